// Players in public (issue 23): a player's profile (ratings, a rating history plot per class,
// their games in words), the leaderboards, and the games in play to watch. Read from the
// gateway's public routes (docs/gateway.md, "Players"); no sign-in needed. Loaded by app.js on
// demand, whose page helpers it uses (by then app.js has run).
import { api, errorBox, h, show } from "./app.js";
import { svg } from "./boards/common.js";

/** A player's name, linked to their profile by player id: a guest's name is nobody's key, an
 * id always is (the profile route takes an account's name too). */
export function playerLink(seat) {
  if (!seat.player) return h("span", {}, seat.name || "anonymous");
  return h("a", { href: `#/players/${encodeURIComponent(seat.player)}` },
           seat.name || seat.player);
}

/** Items joined by ", " (elements kept as elements). */
function commas(items) {
  return items.flatMap((item, i) => (i ? [", ", item] : [item]));
}

const what = (g) => `${g.ruleset}${g.variant ? ` (${g.variant})` : ""}`;
const when = (ms) => (ms ? new Date(ms).toLocaleString() : "");
const events = (n) => `${n} event${n === 1 ? "" : "s"}`;
// Lichess marks a provisional rating with "?": too few games yet to trust it.
const rated = (r) => `${r.rating}${r.provisional ? "?" : ""}`;
const PROVISIONAL = "provisional: too few rated games yet to trust it";

function minutes(ms) {
  if (ms === null || ms === undefined) return "";
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  const m = Math.round(ms / 60_000);
  return m < 60 ? `${m} min` : m < 2880 ? `${Math.round(m / 60)} h` : `${Math.round(m / 1440)} d`;
}

// -- the games in play ---------------------------------------------------------------------------

/** The games in play, the latest moved first: each with its players and how long its log is
 * (events: a proxy for its moves), linked to its page to watch. */
export function liveList(games, title = "Games in play") {
  const line = (g) => h("li", {},
    h("a", { href: g.watch, title: g.game_id }, what(g)), " · ",
    commas(g.seated.map(playerLink)), ` · ${events(g.events)}`,
    g.rated ? " · rated" : "", ` · last active ${when(g.updated_ms)}`);
  return h("section", { class: "live" }, h("h2", {}, title),
           games.length ? h("ul", {}, games.map(line)) : h("p", {}, "none"));
}

/** Links to each ruleset's leaderboard. */
export function leaderboardLinks(rulesets) {
  return h("p", { class: "leaderboards" }, "Leaderboards: ",
           commas(rulesets.map((r) => h("a", { href: `#/leaderboard/${r.name}` }, r.name))));
}

// -- a profile -------------------------------------------------------------------------------

export async function profilePage(name) {
  show(h("h1", {}, name), h("p", {}, "Loading…"));
  let data;
  try {
    data = await api(`/api/players/${encodeURIComponent(name)}`);
  } catch (e) {
    show(h("h1", {}, name), errorBox(e));
    return;
  }
  const list = h("tbody");
  const more = h("p");
  show(h("h1", {}, data.name),
       data.name !== data.player ? h("p", { class: "hint" }, `player id ${data.player}`) : null,
       ratingsTable(data.ratings),
       h("div", { class: "histories" }, data.ratings.filter((r) => r.history.length)
                                                 .map(historyPlot)),
       h("table", { class: "games" }, h("caption", {}, "Games"),
         h("thead", {}, h("tr", {}, ["game", "against", "result", "date", "length", ""].map(
           (t) => h("th", { scope: "col" }, t)))), list),
       more);
  // The next page is asked for by the cursor the last one gave: games that start meanwhile
  // neither repeat nor shift a page.
  function add(reply) {
    list.append(...reply.games.map(gameRow));
    if (!data.games.length && !reply.games.length) {
      list.append(h("tr", {}, h("td", { colspan: 6 }, "no games yet")));
    }
    more.replaceChildren(reply.next ? h("button", { onclick: async () => {
      try {
        add(await api(`/api/players/${encodeURIComponent(data.player)}`
                      + `?before=${encodeURIComponent(reply.next)}`));
      } catch (e) {
        more.replaceChildren(errorBox(e));
      }
    } }, "Older games") : "");
  }
  add(data);
}

function ratingsTable(ratings) {
  if (!ratings.length) return h("p", {}, "No rated games yet.");
  return h("table", { class: "ratings" }, h("caption", {}, "Ratings"),
    h("thead", {}, h("tr", {}, ["game", "variant", "speed", "rating", "deviation", "games"].map(
      (t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, ratings.map((r) => h("tr", {},
      h("td", {}, h("a", { href: `#/leaderboard/${r.ruleset}`, title: "its leaderboard" },
                    r.ruleset)),
      h("td", {}, r.family), h("td", {}, r.speed),
      h("td", { title: r.provisional ? PROVISIONAL : null }, rated(r)),
      h("td", {}, String(r.deviation)), h("td", {}, String(r.games))))));
}

/** A class's rating after each rated game, oldest to newest, as an SVG polyline. */
function historyPlot(r) {
  const [width, height, pad] = [480, 140, 40];
  const values = r.history.map((p) => p.rating);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low || 1; // one value, or all equal: a flat line mid-height
  const x = (i) => pad + (values.length > 1 ? (i * (width - 2 * pad)) / (values.length - 1)
                                            : (width - 2 * pad) / 2);
  const y = (v) => (high === low ? height / 2
                                  : height - pad - ((v - low) * (height - 2 * pad)) / span);
  const label = `${r.ruleset} ${r.family} ${r.speed}: from ${values[0]} to ${values.at(-1)} `
    + `over ${values.length} rated games`;
  const plot = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "history", role: "img",
                            "aria-label": label });
  plot.append(
    svg("line", { x1: pad, y1: height - pad, x2: width - pad, y2: height - pad, class: "axis" }),
    svg("text", { x: 2, y: pad, class: "tick" }, String(high)),
    svg("text", { x: 2, y: height - pad, class: "tick" }, String(low)),
    svg("polyline", { points: values.map((v, i) => `${x(i)},${y(v)}`).join(" "),
                      class: "line" }));
  for (const [i, p] of r.history.entries()) {
    const dot = svg("circle", { cx: x(i), cy: y(p.rating), r: 3, class: "dot" });
    dot.append(svg("title", {}, `${p.rating} after ${p.game_id}, ${when(p.ended_ms)}`));
    plot.append(dot);
  }
  return h("figure", { class: "card" }, h("figcaption", {}, `${r.ruleset} · ${r.family} · `
    + `${r.speed}: ${rated(r)}`), plot);
}

function gameRow(g) {
  const result = g.words ?? "in play";
  const length = [events(g.events), minutes(g.duration_ms)].filter(Boolean).join(", ");
  return h("tr", {},
    h("td", {}, what(g), g.rated ? " · rated" : ""),
    h("td", {}, g.opponents.length ? commas(g.opponents.map(playerLink)) : "—"),
    h("td", { class: g.outcome ?? "" }, result),
    h("td", {}, when(g.created_ms)),
    h("td", { title: "events in its log, a measure of its moves" }, length),
    h("td", {}, h("a", { href: g.replay }, "replay"), " · ", h("a", { href: g.audit }, "audit")));
}

// -- a leaderboard ---------------------------------------------------------------------------

export async function leaderboardPage(ruleset) {
  show(h("h1", {}, `Leaderboard: ${ruleset}`), h("p", {}, "Loading…"));
  let data;
  try {
    data = await api(`/api/leaderboard/${encodeURIComponent(ruleset)}`);
  } catch (e) {
    show(h("h1", {}, `Leaderboard: ${ruleset}`), errorBox(e));
    return;
  }
  const rulesets = await api("/api/rulesets").catch(() => []);
  show(h("h1", {}, `Leaderboard: ${ruleset}`), leaderboardLinks(rulesets),
       h("div", {}, data.boards.length ? data.boards.map(board)
                                     : h("p", {}, "No rated games yet.")));
}

function board(b) {
  const table = (title, rows) => h("table", { class: "leaderboard" }, h("caption", {}, title),
    h("thead", {}, h("tr", {}, ["#", "player", "rating", "deviation", "games"].map(
      (t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, rows.map((r) => h("tr", {},
      h("td", {}, String(r.place)), h("td", {}, playerLink(r)),
      h("td", {}, `${r.rating}${title === "Provisional" ? "?" : ""}`),
      h("td", {}, String(r.deviation)), h("td", {}, String(r.games))))));
  return h("section", {}, h("h2", {}, `${b.family} · ${b.speed}`),
    b.top.length ? table("Top players", b.top)
                 : h("p", {}, "Nobody's rating is established yet."),
    b.provisional.length ? [table("Provisional", b.provisional),
                            h("p", { class: "hint" }, `Provisional ratings (marked ?) are listed `
                              + "apart: too few rated games yet to trust them.")] : null);
}
