// Tabula's web client: sign-in, the lobby, and a game page that draws the board, sends the
// player's actions and follows the game over one WebSocket. No build step: plain ES modules
// served by the gateway (docs/gateway.md). The server decides everything; this page draws
// what it is told, offers only the legal actions it lists, and makes the player's own secrets
// (client seed, hidden setup) itself.
import * as fair from "./fairplay.js";

const main = document.getElementById("main");
const me = { player: null };
let leave = () => {}; // what the current page must undo when another one opens

// -- talking to the gateway ------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, error) {
    super(error.reason);
    this.status = status;
    this.code = error.code;
    this.clause = error.clause ?? "";
  }
}

// The connection as the page sees it: "online", "reconnecting" (the game's feed dropped and is
// being opened again) or "offline" (the gateway does not answer). Shown in the header; the game
// page takes no moves while offline, and sends the ones it holds once back.
const connection = { state: "online", changed: () => {} };

function setConnection(state) {
  if (connection.state === state) return;
  connection.state = state;
  const slot = document.getElementById("connection");
  slot.className = `connection ${state}`;
  slot.textContent = { online: "Online", reconnecting: "Reconnecting…",
                       offline: "Offline: waiting for the server" }[state];
  connection.changed();
}

/** Whether an error leaves an action's outcome unknown (the request may or may not have been
 * applied): no answer at all, or a 503. Sent again with the same command id, it is applied once. */
function unknownOutcome(e) {
  return !(e instanceof ApiError) || e.status === 503;
}

export async function api(path, { method = "GET", body } = {}) {
  const options = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let reply;
  try {
    reply = await fetch(path, options);
  } catch (e) { // no answer: the gateway is away (restarting) or the network is
    setConnection("offline");
    throw e;
  }
  if (reply.status !== 503) setConnection("online");
  const data = await reply.json().catch(() => ({}));
  if (!reply.ok) {
    throw new ApiError(reply.status, data.error ?? { code: "internal", reason: reply.statusText });
  }
  return data;
}

/** Act with the given command id; a 503 is retried a few times at once, anything else thrown
 * (the caller keeps an action whose outcome is unknown, and sends it again, same id). */
async function act(gameId, action, command_id, careful = false) {
  for (let attempt = 0; ; attempt++) {
    try {
      const sent = performance.now();
      const body = { action, command_id, lag_ms: Math.round(lag.ms), careful };
      const receipt = await api(`/api/games/${gameId}/actions`, { method: "POST", body });
      lag.seen(performance.now() - sent);
      keepReceipt(gameId, receipt);
      return receipt;
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 503 || attempt >= 2) throw e;
      await new Promise((r) => setTimeout(r, 300 * 2 ** attempt)); // backoff, same command
    }
  }
}

/** The network lag this page reports with each action, for the clocks' lag compensation
 * (docs/clocks.md): half the round trip of its actions, smoothed; the service gives back at
 * most this much, within a quota of its own. */
const lag = {
  ms: 0,
  seen(roundTrip) {
    const one = Math.min(roundTrip / 2, 1000);
    this.ms = this.ms ? 0.8 * this.ms + 0.2 * one : one;
  },
};

function keepReceipt(gameId, receipt) {
  const key = `tabula:receipts:${gameId}`;
  const kept = JSON.parse(localStorage.getItem(key) ?? "[]");
  kept.push(receipt);
  localStorage.setItem(key, JSON.stringify(kept));
}

// -- small DOM helpers -----------------------------------------------------------------------

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) el.setAttribute(k, v === true ? "" : v);
  }
  el.append(...children.flat().filter((c) => c !== null && c !== undefined));
  return el;
}

export function show(...children) {
  main.replaceChildren(...children);
  main.focus();
}

export function errorBox(error, ruleset) {
  if (!error) return h("p", { class: "error", role: "alert", hidden: true });
  const clause = error.clause
    ? h("a", { href: `/rules/${ruleset}#${error.clause.split("/")[0]}`, target: "_blank" },
        error.clause)
    : null;
  return h("p", { class: "error", role: "alert" }, `${error.message} `,
           h("code", {}, error.code ?? ""), clause ? " — rule " : "", clause);
}

// -- pages -----------------------------------------------------------------------------------

async function route() {
  leave();
  leave = () => {};
  const hash = location.hash || "#/";
  const game = /^#\/games\/([a-z0-9-]+)$/.exec(hash);
  if (game) return gamePage(game[1]);
  const audited = /^#\/audit\/([a-z0-9-]+)(?:\/(\d+))?$/.exec(hash);
  if (audited) return auditPage(audited[1], audited[2] ? Number(audited[2]) : null);
  // Public pages (issue 23, web/people.js): a player's profile, a ruleset's leaderboard.
  const profile = /^#\/players\/([^/]+)$/.exec(hash);
  if (profile) return (await import("./people.js")).profilePage(decodeURIComponent(profile[1]));
  const board = /^#\/leaderboard\/([a-z0-9-]+)$/.exec(hash);
  if (board) return (await import("./people.js")).leaderboardPage(board[1]);
  if (!me.player || (hash === "#/account" && !me.player.account)) return signIn();
  return lobby();
}

/** Sign in as a guest (a name), or to an account (name and password), or make one; a guest
 * signed in already who makes an account keeps its games. */
function signIn() {
  let error = errorBox();
  const guest = me.player && !me.player.account;
  const form = h("form", { class: "card", onsubmit: async (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const how = e.submitter?.value ?? "guest";
    const body = { name: data.get("name") };
    if (how !== "guest") body.password = data.get("password");
    try {
      if (how === "account" && !body.password) throw new ApiError(400, {
        code: "request/malformed", reason: "an account needs a password (8 characters or more)" });
      me.player = await api(how === "register" ? "/api/accounts" : "/api/session",
                            { method: "POST", body });
      header();
      if (location.hash === "#/account") location.hash = "#/";
      else route();
    } catch (err) {
      const shown = errorBox(err);
      error.replaceWith(shown);
      error = shown;
    }
  } },
    h("h1", {}, guest ? "Keep your games: make an account" : "Play at Tabula"),
    h("label", {}, "Your name ", h("input", { name: "name", required: true, maxlength: 32,
                                              autocomplete: "username", autofocus: true,
                                              value: me.player?.name ?? "" })),
    h("label", {}, "Password ", h("input", { name: "password", type: "password", maxlength: 1024,
                                             autocomplete: guest ? "new-password"
                                                                 : "current-password" })),
    h("p", { class: "buttons" },
      guest ? null : h("button", { type: "submit", value: "guest" }, "Sign in as a guest"), " ",
      guest ? null : h("button", { type: "submit", value: "account" }, "Sign in"), " ",
      h("button", { type: "submit", value: "register" }, "Create an account")),
    h("p", { class: "hint" }, "A guest needs only a name. An account (a password of 8 characters "
      + "or more) keeps your games across browsers; a guest who makes one keeps its games."),
    error);
  show(form);
}

async function lobby() {
  const rulesets = await api("/api/rulesets");
  const people = await import("./people.js"); // the games in play, the players' links
  const listed = h("div", { class: "lobby-lists" });
  const error = h("div");
  const queued = h("div", { role: "status" });
  const form = challengeForm(rulesets, error, () => refresh());
  show(h("h1", {}, "Lobby"), form, error, queued, people.leaderboardLinks(rulesets), listed);
  const waiting = new Set(); // challenges I sit in: once full they leave the list, as games
  async function refresh() {
    const data = await api("/api/lobby");
    if (data.queue.game_id) {
      location.hash = `#/games/${data.queue.game_id}`;
      return;
    }
    queued.replaceChildren(...(data.queue.queued ? [h("p", { class: "card" },
      `Looking for an opponent: ${data.queue.ruleset}${data.queue.variant ? ` (${data.queue.variant})` : ""}`
      + ` (${data.queue.waiting} waiting)`
      + (data.queue.bot_at_ms ? `; if nobody comes by ${new Date(data.queue.bot_at_ms)
        .toLocaleTimeString()}, a level ${data.queue.bot_level} bot takes the seat` : "") + " ",
      h("button", { onclick: async () => {
        await api("/api/queue", { method: "DELETE" });
        refresh();
      } }, "Leave the queue"))] : []));
    // Private challenges (issue 23): those to you, and yours to a named player.
    const every = [...data.challenges, ...data.invitations, ...data.sent];
    const open = new Set(every.map((c) => c.challenge.id));
    for (const id of waiting) {
      if (open.has(id)) continue;
      waiting.delete(id);
      const gone = await api(`/api/challenges/${id}`).catch(() => null);
      if (gone?.game_id) {
        location.hash = `#/games/${gone.game_id}`;
        return;
      }
      if (gone?.declined && gone.declined !== me.player.name) {
        error.replaceChildren(h("p", { role: "status" },
                                `${gone.declined} declined your challenge.`));
      }
    }
    for (const c of every) {
      if (c.seated.some((s) => s.player === me.player.id)) waiting.add(c.challenge.id);
    }
    const personal = [[data.invitations, "Challenges to you"],
                      [data.sent, "Your challenges to players"]]
      .filter(([list]) => list.length)
      .map(([list, caption]) => challengeTable(list, error, refresh, caption));
    listed.replaceChildren(...personal, challengeTable(data.challenges, error, refresh),
                           people.liveList(data.live ?? []), gameList("Your games", data.mine),
                           gameList("Recent games", data.games));
  }
  await refresh();
  const timer = setInterval(refresh, 2000); // a challenge taken meanwhile shows up
  leave = () => clearInterval(timer);
}

function challengeForm(rulesets, error, done) {
  const custom = h("span", { hidden: true },
                   field("Minutes", h("input", { name: "base", type: "number", min: 0, max: 180,
                                                 value: 5, step: "any" })), " ",
                   field("Increment (s)", h("input", { name: "increment", type: "number",
                                                       min: 0, max: 180, value: 3 })));
  const seat = h("select", { name: "seat" });
  const variants = h("select", { name: "named", onchange: seats });
  const ruleset = h("select", { name: "ruleset", onchange: fill },
                    rulesets.map((r) => h("option", { value: r.name }, r.name)));
  const chosen = () => rulesets.find((x) => x.name === ruleset.value);
  const level = h("select", { name: "level", title: "The house bot's strength: 1 plays at "
    + "random, 2 to 5 search ever longer (each level is rated as a player of its own)" });
  async function levels() { // the house bot's levels, each with its rating in this game
    const asked = ruleset.value;
    let found = [];
    try {
      found = (await api(`/api/bots/levels?ruleset=${encodeURIComponent(asked)}`)).levels;
    } catch { // the form still works: the default level
      found = [{ level: 3, name: "club", ratings: [] }];
    }
    if (asked !== ruleset.value) return; // another game was chosen meanwhile
    const before = level.value || "3";
    level.replaceChildren(...found.map((l) => {
      const best = l.ratings[0];
      const rated = best ? ` (${Math.round(best.rating)}${best.provisional ? "?" : ""})` : "";
      return h("option", { value: l.level }, `${l.level} ${l.name}${rated}`);
    }));
    level.value = before;
  }
  function fill() {
    const r = chosen();
    levels();
    variants.replaceChildren(h("option", { value: "" }, "default"),
                             ...r.variants.variants.map((v) => h("option", { value: v.name,
                                                                          title: v.description },
                                                              `${v.name}: ${v.description}`)));
    variants.hidden = !r.variants.variants.length;
    seats();
  }
  function seats() { // as many as the chosen variant has (a named one may have more)
    const r = chosen();
    const n = r.variants.variants.find((v) => v.name === variants.value)?.seats ?? r.seats;
    seat.replaceChildren(...Array.from({ length: n }, (_, i) =>
      h("option", { value: i }, `seat ${i}`)));
  }
  fill();
  const form = h("form", { class: "card", onsubmit: async (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const extra = String(data.get("variant") ?? "").trim();
    const variant = [data.get("named"), extra].filter(Boolean).join("+");
    const body = { ruleset: data.get("ruleset"), variant, seat: Number(data.get("seat")),
                   position: String(data.get("position") ?? "").trim(),
                   move_deadline_ms: Number(data.get("deadline")),
                   rated: data.get("rated") === "on" };
    const bot = { ...body, level: Number(data.get("level") || 3) };
    const clock = data.get("clock") === "custom"
      ? [Number(data.get("base")) * MINUTE, Number(data.get("increment")) * 1000]
      : JSON.parse(String(data.get("clock") || "null"));
    if (clock) body.clock = bot.clock = { base_ms: clock[0], increment_ms: clock[1] };
    try {
      if (e.submitter?.value === "queue") {
        await api("/api/queue", { method: "POST",
                                  body: { ruleset: body.ruleset, variant, bot_level: bot.level } });
        error.replaceChildren();
        done();
        return;
      }
      if (e.submitter?.value === "bot") {
        const made = await api("/api/bots", { method: "POST", body: bot });
        location.hash = `#/games/${made.game_id}`;
        return;
      }
      const opponent = String(data.get("opponent") ?? "").trim();
      if (opponent) body.opponent = opponent; // for that player alone (issue 23)
      await api("/api/challenges", { method: "POST", body });
      error.replaceChildren();
      done();
    } catch (err) {
      error.replaceChildren(errorBox(err));
    }
  } },
    h("h2", {}, "Start a game"),
    field("Game", ruleset), " ", field("Variant", variants), " ",
    field("Options", h("input", { name: "variant", placeholder: "e.g. key=value" })),
    " ", field("Sit at", seat), " ",
    field("Opponent (name)", h("input", { name: "opponent", maxlength: 32, autocomplete: "off",
                                          placeholder: "anyone" })), " ",
    field("Time per move", h("select", { name: "deadline" },
      DEADLINES.map(([label, ms]) => h("option", { value: ms }, label)))),
    " ", field("Clock", h("select", { name: "clock", onchange: (e) => {
      custom.hidden = e.target.value !== "custom";
    } }, CLOCKS.map(([label, value]) => h("option", { value }, label)))),
    custom, " ", h("label", {}, h("input", { type: "checkbox", name: "rated" }), " Rated"),
    " ", h("details", {}, h("summary", {}, "Start from a position"),
      h("label", {}, "Position to start from (in its notation; empty: the usual one) ",
        h("textarea", { name: "position", rows: 3, cols: 60, spellcheck: false }))),
    " ", h("button", { type: "submit", value: "open" }, "Open"),
    " ", field("Bot level", level),
    " ", h("button", { type: "submit", value: "bot" }, "Play a house bot"),
    " ", h("button", { type: "submit", value: "queue", title: "Be paired with the next player "
      + "who queues for the same game and variant (the seat is chosen for you); if nobody "
      + "comes in time, house bots of the level chosen take the other seats" },
      "Find an opponent"));
  return form;
}

/** A control with its label (by `for`, not around it: a select's name is then the label's
 * words alone, not its options' too). */
function field(text, control) {
  control.id = `field-${control.name}`;
  return h("span", { class: "field" }, h("label", { for: control.id }, `${text} `), control);
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const DEADLINES = [["none", 0], ["1 minute", MINUTE], ["5 minutes", 5 * MINUTE],
                   ["1 day", DAY], ["3 days", 3 * DAY]];

// Clock presets (minutes + increment in seconds, as Lichess names them), and a custom one.
const CLOCKS = [["none", ""], ["1+0 bullet", "[60000,0]"], ["1+1 bullet", "[60000,1000]"],
                ["3+2 blitz", "[180000,2000]"], ["5+3 blitz", "[300000,3000]"],
                ["10+5 rapid", "[600000,5000]"], ["15+10 rapid", "[900000,10000]"],
                ["30+20 classical", "[1800000,20000]"], ["custom", "custom"]];

/** A short tone when it becomes your move, if the player turned sounds on (off by default:
 * a page makes no noise unasked). Web Audio: no file to fetch. */
function chime() {
  if (localStorage.getItem("tabula:sound") !== "on") return;
  const audio = new AudioContext();
  const tone = audio.createOscillator();
  const gain = audio.createGain();
  tone.frequency.value = 660;
  gain.gain.setValueAtTime(0.15, audio.currentTime);
  gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.25);
  tone.connect(gain).connect(audio.destination);
  tone.start();
  tone.stop(audio.currentTime + 0.25);
  tone.onended = () => audio.close();
}

/** A clock's time: m:ss, and tenths under 10 s; 0 once run out. */
function clockTime(ms) {
  const left = Math.max(0, ms);
  if (left < 10_000) return `0:0${(Math.floor(left / 100) / 10).toFixed(1)}`;
  const s = Math.floor(left / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function duration(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s >= 86400) return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function challengeTable(challenges, error, refresh, caption = "Open challenges") {
  const rows = challenges.map((c) => {
    // A private challenge's free seat names the player it waits for (issue 23).
    const invited = (i) => c.challenge.invited?.find((v) => v.seat === i || v.seat === null);
    const seats = Array.from({ length: c.challenge.seats }, (_, i) =>
      c.seated.find((s) => s.seat === i)?.name
      ?? (invited(i) ? `(${invited(i).name})` : "—")).join(", ");
    const mine = c.seated.some((s) => s.player === me.player.id);
    const button = (label, method, path) => h("button", { onclick: async () => {
      try {
        const done = await api(path, { method, body: method === "POST" ? {} : undefined });
        if (done.game_id) location.hash = `#/games/${done.game_id}`;
        else refresh();
      } catch (err) {
        error.replaceChildren(errorBox(err));
      }
    } }, label);
    const id = c.challenge.id;
    const action = mine
      ? (c.challenge.by === me.player.id
          ? button("Withdraw", "DELETE", `/api/challenges/${id}`) : h("span", {}, "waiting…"))
      : button("Accept", "POST", `/api/challenges/${id}/accept`);
    const decline = !mine && c.challenge.invited?.length
      ? [" ", button("Decline", "DELETE", `/api/challenges/${id}`)] : [];
    return h("tr", {}, h("td", {}, c.challenge.ruleset),
             h("td", {}, c.challenge.variant || "default"), h("td", {}, seats),
             h("td", {}, action, ...decline));
  });
  return h("table", { class: "challenges" },
    h("caption", {}, caption),
    h("tr", {}, h("th", {}, "game"), h("th", {}, "variant"), h("th", {}, "seats"), h("th")),
    rows.length ? rows : h("tr", {}, h("td", { colspan: 4 }, "none yet")));
}

// A listed game: its ruleset and variant (from the read model, when the gateway has one), who
// sits where (in your games: your opponents), its result or "in play", and when it began.
function gameList(title, games) {
  const line = (g) => {
    const what = g.ruleset ? `${g.ruleset}${g.variant ? ` (${g.variant})` : ""}` : g.game_id;
    // Each player linked to their profile (#/players/<id>: a guest's name is nobody's key).
    const others = g.seated.filter((s) => s.seat !== g.seat).flatMap((s, i) => [i ? ", " : "",
      s.player ? h("a", { href: `#/players/${encodeURIComponent(s.player)}` }, s.name || s.player)
               : s.name || "anonymous"]);
    const who = others.length ? [g.seat === null ? "" : "against ", ...others] : "";
    const result = g.result ? (g.words ?? `${g.result}${g.reason ? ` (${g.reason})` : ""}`)
                            : (g.ruleset ? "in play" : "");
    const when = g.created_ms ? new Date(g.created_ms).toLocaleString() : "";
    return h("li", {}, h("a", { href: `#/games/${g.game_id}`, title: g.game_id }, what),
             ...[who, result, when].filter(Boolean).flatMap((t) => [" · ", t].flat()));
  };
  return h("section", {}, h("h2", {}, title),
           games.length ? h("ul", {}, games.map(line)) : h("p", {}, "none"));
}

// -- the game page ---------------------------------------------------------------------------

async function gamePage(gameId) {
  // `replay`: null while following the game, else {at, view}: the board after event `at`, as
  // the authority shows it to this seat (view: the last past view at hand while `at`'s comes).
  // `outbox`: actions sent whose outcome is not known yet, each with its command id, sent again
  // (same id: applied once) until answered. `owed`: a view came while the outbox held a
  // fair-play step, so the page looks again once the outbox is empty.
  const page = { events: [], view: null, table: null, error: null, busy: false, closed: false,
                 replay: null, past: new Map(), fetching: false, outbox: [], flushing: false,
                 owed: false };
  const boardArea = h("div", { class: "board-area" });
  const setupArea = h("div", { class: "setup" }); // drawing the board leaves it alone
  const side = h("aside", { class: "side" });
  // The replay scrubber, made once (a redraw only updates it, so it keeps the keyboard's focus):
  // a slider over the game's versions, a step back and forth, and Live.
  const slider = h("input", { type: "range", min: 1, max: 1, value: 1, step: 1,
                              "aria-label": "Replay", oninput: () => scrub(Number(slider.value)) });
  const stepBack = h("button", { type: "button", "aria-label": "Back one event",
                                 onclick: () => scrub(shownVersion() - 1) }, "◀");
  const stepOn = h("button", { type: "button", "aria-label": "Forward one event",
                               onclick: () => scrub(shownVersion() + 1) }, "▶");
  const live = h("button", { type: "button", class: "live", onclick: () => goLive() }, "Live");
  const where = h("span", { class: "replay-where", "aria-live": "polite" });
  const replayBar = h("div", { class: "replay", role: "group", "aria-label": "Replay controls" },
                      h("span", { "aria-hidden": "true" }, "Replay "), stepBack, slider, stepOn,
                      " ", live, " ", where);
  show(h("section", { class: "game" }, h("div", {}, setupArea, boardArea, replayBar), side));
  let boards = null;
  let socket = null;
  let retry = 500;
  let refreshing = null;

  async function refresh() {
    const data = await api(`/api/games/${gameId}`);
    if (data.view.result && !page.view?.result && page.events.some((e) => !e.action)) {
      // Ended: the whole log is public now, the actions of every seat included.
      const whole = await api(`/api/games/${gameId}/events?after=0`);
      page.events = whole.concat(page.events.filter((e) => e.version > (whole.at(-1)?.version ?? 0)));
    }
    page.table = data;
    page.view = data.view;
    page.viewAt = performance.now(); // the clocks count down from here (no clock skew)
    if (data.view.phase !== "setup") setupArea.replaceChildren(); // the screen is done with
    if (!boards) {
      boards = await import(`./boards/${data.view.ruleset}.js`).catch(() => ({}));
    }
    draw();
    await fairPlay();
  }
  let again = false; // events came while a refresh was on its way: refresh once more after it
  const soon = () => {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = refresh().catch((e) => {
      if (!unknownOutcome(e)) page.error = e; // else: shown as the connection's state
    }).finally(() => {
      refreshing = null;
      if (again) {
        again = false;
        soon();
      }
    });
  };

  function connect() {
    if (page.closed) return;
    const last = page.events.length ? page.events[page.events.length - 1].version : 0;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const opening = new WebSocket(`${scheme}://${location.host}/api/games/${gameId}/ws?after=${last}`);
    socket = opening;
    let opened = 0; // when it opened
    opening.onopen = () => {
      opened = Date.now();
      setConnection("online");
      flush(); // what waited for the connection, first
      soon(); // and the view, which may have moved on meanwhile
    };
    opening.onmessage = async (msg) => {
      const frame = JSON.parse(typeof msg.data === "string" ? msg.data : await msg.data.text());
      if (frame.type === "events") {
        for (const e of frame.events) {
          if (e.version === (page.events.at(-1)?.version ?? 0) + 1) page.events.push(e);
        }
        retry = 500;
        soon();
      }
    };
    opening.onclose = (e) => {
      if (page.closed) return;
      // A feed that was open a while is reopened at once; one the gateway refused (1013: try
      // again later), closed at once, or that never opened waits, longer each time, and the
      // gateway counts as away.
      const dropped = opened && Date.now() - opened > 2000 && e.code !== 1013;
      setConnection(dropped ? "reconnecting" : "offline");
      setTimeout(connect, dropped ? 0 : (retry = Math.min(retry * 2, 5000)));
    };
  }

  /** The players' actions in order, one per command; the fair-play steps are not moves.
   * While a game with hidden information is in play the typed actions stay with their seats;
   * the moves its events record (`move`, `action` in their bodies) are public all along. */
  function moves() {
    const last = new Map(); // command id -> the last version its events reach
    for (const e of page.events) last.set(e.command_id, e.version);
    const seen = new Set();
    const out = [];
    for (const e of page.events) {
      const body = bodyOf(e) ?? {};
      // While a hidden game is in play its public events carry no typed actions: the text comes
      // from what the event records (a move, an action, Yavoch's levels or fleet placement).
      const text = e.action.replace(/^\d+ /, "") || body.move || body.action
        || (body.levels ? `levels ${body.levels.join("")}` : "")
        || (body.placement ? `place ${body.placement}` : "");
      if (!text || seen.has(e.command_id)) continue;
      seen.add(e.command_id);
      if (!/^(seed|setup)-|^claim-timeout/.test(text)) {
        out.push({ text, version: last.get(e.command_id) });
      }
    }
    return out;
  }

  // -- the replay: a past board comes from the authority (GET ?at=N), which folds the log up
  // to that version and shows it as this seat (or a spectator) saw it then, with no actions.
  const head = () => page.view?.version ?? 1;
  const shownVersion = () => page.replay?.at ?? head();

  async function scrub(version) {
    const at = Math.max(1, Math.min(head(), version));
    if (at >= head()) {
      goLive();
      return;
    }
    page.replay = { at, view: page.past.get(at) ?? page.replay?.view ?? null };
    draw();
    if (!page.fetching) await fetchPast();
  }

  /** The past view the replay is at, from the server: one request at a time, always for the
   * latest position asked (a slider dragged over many versions asks for few of them). */
  async function fetchPast() {
    page.fetching = true;
    try {
      while (page.replay && !page.past.has(page.replay.at) && !page.closed) {
        const at = page.replay.at;
        page.past.set(at, (await api(`/api/games/${gameId}?at=${at}`)).view);
      }
      if (page.replay && page.past.has(page.replay.at)) {
        page.replay.view = page.past.get(page.replay.at);
        draw();
      }
    } catch (e) {
      page.error = e;
      draw();
    } finally {
      page.fetching = false;
    }
  }

  function goLive() {
    page.replay = null;
    draw();
  }

  function drawReplayBar() {
    const top = head();
    const at = shownVersion();
    slider.max = top;
    slider.value = at;
    const type = page.events.find((e) => e.version === at)?.type ?? "";
    const text = page.replay ? `after event ${at} of ${top}${type ? ` (${type})` : ""}`
                             : `live, event ${top}`;
    slider.setAttribute("aria-valuetext", text);
    where.textContent = page.replay ? `Replaying: the board ${text}.`
      : connection.state === "online" ? "Live." : "Not live: the connection is down.";
    stepBack.disabled = at <= 1;
    stepOn.disabled = !page.replay;
    live.setAttribute("aria-pressed", String(!page.replay));
  }

  /** Every random outcome and card this page may see (its own events only: a card dealt to
   * another seat stays face down), each with its nonce (a card: its deck position, the salt's
   * index) and a link to the audit page's check of that event. */
  function diceAndCards() {
    const revealed = page.events.some((e) => e.type === "SeedRevealed");
    const items = [];
    for (const e of page.events) {
      const b = bodyOf(e) ?? {};
      let what;
      let index;
      if (e.type === "RandomDrawn") {
        const range = b.kind === "die" ? ` (faces 0–${b.n - 1})` : ` (of 0 to ${b.n - 1})`;
        what = `${b.kind}(${b.n}) for ${b.purpose}: ${b.value}${range}`;
        index = `nonce ${b.nonce}`;
      } else if (e.type === "DeckShuffled") {
        const order = b.order?.length ? `order ${b.order.join(" ")}` : "order hidden until the end";
        what = `shuffle of ${b.n} cards for ${b.purpose}: ${order}`;
        index = `nonce ${b.nonce}`;
      } else if (e.type === "CardDealt") {
        const mine = b.seat === page.table.you ? " (yours)" : "";
        what = `card to seat ${b.seat}${mine}: ${b.card || "face down"}`;
        index = `deck position ${b.position}`;
      } else if (e.type === "CardRevealed") {
        what = `seat ${b.seat} shows ${b.card}`;
        index = `deck position ${b.position}`;
      } else {
        continue;
      }
      const ahead = page.replay && e.version > page.replay.at;
      items.push(h("li", { "data-version": e.version, class: ahead ? "ahead" : null },
        `${what} · `, h("span", { class: "nonce" }, index), " · ",
        h("a", { href: `#/audit/${gameId}/${e.version}`,
                 title: `the audit's check of event ${e.version}` }, "proof"),
        revealed ? null : h("span", { class: "pending" },
                            " (verifiable once the seed is revealed at the end)")));
    }
    if (!items.length) return [];
    return [h("h2", {}, "Dice and cards"),
            h("ol", { class: "draws", "aria-label": "dice and cards" }, items)];
  }

  /** Send an action: kept in the outbox with its command id until the gateway answers. */
  async function send(action) {
    page.error = null;
    page.outbox.push({ action, command_id: crypto.randomUUID() });
    await flush();
  }

  /** The outbox, in order, one at a time. An action whose outcome is unknown stays, and goes
   * again with the same command id once the feed reopens (or after a pause): the gateway
   * applies a command once, and answers a repeat with the first one's receipt. */
  async function flush() {
    if (page.flushing || page.closed) return;
    page.flushing = true;
    try {
      while (page.outbox.length && !page.closed) {
        const { action, command_id, careful = true } = page.outbox[0];
        try {
          await act(gameId, action, command_id, careful);
        } catch (e) {
          if (unknownOutcome(e)) {
            setTimeout(flush, 3000); // if the feed does not reopen first
            return;
          }
          // An action that would lose the game at once: asked first, then sent as meant.
          if (e.code === "action/loses-the-game" && confirm(`${e.message}.\n\nPlay it anyway?`)) {
            page.outbox[0].careful = false;
            continue;
          }
          // A refused flag (the timer was first, or clocks differ): nothing to tell.
          if (e.code !== "action/loses-the-game" && action !== "flag") page.error = e;
        }
        page.outbox.shift();
      }
    } finally {
      page.flushing = false;
      if (page.view) draw();
      if (page.owed && !page.outbox.length) { // a fair-play step passed over meanwhile
        page.owed = false;
        soon();
      }
    }
  }

  function draw() {
    const view = page.view;
    const you = page.table.you;
    const played = moves();
    const replay = page.replay;
    const upto = replay ? played.filter((m) => m.version <= replay.at) : played;
    // Replaying: the past view, with nothing to play and nobody to play it (no act).
    const ctx = replay?.view
      ? { view: { ...replay.view, legal: [] }, seat: you, legal: [],
          moves: upto.map((m) => m.text), act: undefined }
      : { view, seat: you, legal: view.legal, moves: played.map((m) => m.text),
          act: connection.state === "offline" ? undefined : send };
    if (!replay || replay.view) { // else: the board stays as it is until the past view comes
      const shown = ctx.view;
      if (boards?.render && Object.keys(shown.board).length + shown.position.length) {
        boards.render(boardArea, ctx);
      } else {
        boardArea.replaceChildren(h("pre", { class: "position" }, shown.position));
      }
      boardArea.dataset.version = shown.version;
    }
    // A past board takes no clicks and no focus, nor does the board while the server is away.
    boardArea.inert = replay !== null || connection.state === "offline";
    boardArea.classList.toggle("replaying", replay !== null);
    drawReplayBar();
    // In the ruleset's own words (issue 23): sides by name, whose move, how the game ended.
    const words = page.table.words ?? { sides: [], you_play: "", status: "" };
    const players = page.table.seated.map((s) =>
      h("li", { class: view.to_act.includes(s.seat) ? "to-act" : "" },
        `${words.sides[s.seat] ?? `seat ${s.seat}`}: `,
        h("a", { href: `#/players/${encodeURIComponent(s.player)}` }, s.name),
        s.seat === you ? " (you)" : ""));
    const offline = connection.state === "offline";
    const result = view.result
      ? h("p", { class: "result", role: "status", title: `${view.result} (${view.reason})` },
          words.status || `Result ${view.result} (${view.reason})`)
      : h("p", { role: "status" }, connection.state !== "online"
          ? (offline ? "Offline: moves wait until the server answers again."
                     : "Reconnecting…")
          : view.phase === "play"
            ? (words.status || (view.to_act.includes(you) ? "Your move"
                                                          : `Waiting for seat ${view.to_act.join(", ")}`))
            : `Phase: ${view.phase}`);
    const yourMove = !view.result && view.phase === "play" && view.to_act.includes(you);
    document.title = `${yourMove ? "(Your move) " : ""}${view.ruleset} · Tabula`;
    if (yourMove && !page.yourMove) chime();
    page.yourMove = yourMove;
    const waiting = page.outbox.length
      ? h("p", { class: "outbox", "aria-live": "polite" },
          `Sending ${page.outbox.map((c) => c.action).join(", ")}: `
          + (offline ? "it goes as soon as the server answers." : "waiting for the answer."))
      : null;
    // What the player is typing survives a redraw (the opponent's events redraw the panel).
    const typed = h("input", { name: "action", list: "legal-actions", "aria-label": "action",
                               placeholder: "type an action", value: page.typed ?? "",
                               oninput: () => (page.typed = typed.value) });
    const fieldset = h("fieldset", { disabled: offline }); // no moves while the server is away
    const refocus = document.activeElement?.getAttribute("name") === "action";
    fieldset.append(typed, h("datalist", { id: "legal-actions" },
                             view.legal.map((a) => h("option", { value: a }))),
                    h("button", { type: "submit" }, "Play"));
    const actions = h("form", { class: "actions", onsubmit: (e) => {
      e.preventDefault();
      const text = typed.value.trim();
      page.typed = "";
      if (text && connection.state !== "offline") send(text);
    } }, fieldset);
    const button = (c, label) => h("button", { onclick: () => send(c), class: c,
                                               disabled: offline }, label);
    const commands = ["offer-draw", "resign"].filter((c) => view.legal.includes(c))
      .map((c) => button(c, c.replace("-", " ")));
    // A draw offered to you: a sentence with its answers (issue 23).
    const offeredBy = page.table.seated.find((s) => s.seat === view.board?.draw_offer)?.name;
    const offer = view.legal.includes("accept-draw") && !replay
      ? h("p", { class: "offer", role: "status" },
          `${offeredBy ?? "Your opponent"} offers a draw. `, button("accept-draw", "Accept"), " ",
          view.legal.includes("decline-draw") ? button("decline-draw", "Decline") : null)
      : null;
    const list = h("ol", { class: "moves", "aria-label": "moves" },
                   played.map((m, i) => h("li", {
                     class: replay && m.version > replay.at ? "ahead" : null,
                     "aria-current": replay && i === upto.length - 1 ? "step" : null }, m.text)));
    const clock = deadlineClock(view, you);
    side.replaceChildren(...[
      h("h1", {}, `${view.ruleset}${view.variant ? ` (${view.variant})` : ""}`),
      words.you_play ? h("p", { class: "you-play" }, words.you_play) : null,
      result, offer, clocks(view, you), h("ul", { class: "players" }, players), waiting, clock,
      errorBox(page.error, view.ruleset),
      rematchPanel(view, you),
      view.legal.length && !replay ? actions : null,
      replay ? null : h("div", { class: "commands" }, commands),
      h("h2", {}, "Moves"), list, ...diceAndCards(),
      h("p", {}, h("a", { href: `/rules/${view.ruleset}`, target: "_blank" }, "Rules"), " · ",
        h("a", { href: `/api/games/${gameId}/export` }, "Export"), " · ",
        h("a", { href: `#/audit/${gameId}` }, "Audit"), " · ",
        h("a", { href: "#/" }, "Lobby"))].filter(Boolean));
    if (refocus) typed.focus();
    if (!replay) list.scrollTop = list.scrollHeight; // the newest move in sight, never cut
  }

  /** The chess clocks (view.clock): each seat's time, the running ones counting down from
   * when the view came; a low-time warning under a tenth of the base or 10 s. The service
   * keeps the time and flags a clock run out by itself; this only shows it. */
  function clocks(view, you) {
    const c = view.clock;
    if (!c) return null;
    const names = new Map(page.table.seated.map((s) => [s.seat, s.name]));
    const rows = c.remaining_ms.map((_, seat) =>
      h("li", { class: "clock-seat", "data-seat": seat },
        h("span", { class: "who" }, `${names.get(seat) ?? `seat ${seat}`}${seat === you ? " (you)" : ""}`),
        " ", h("span", { class: "time", role: "timer" })));
    const list = h("ul", { class: "clocks", "aria-label": "clocks" }, rows);
    const low = Math.max(10_000, c.base_ms / 10);
    const tick = () => {
      const ran = view.result ? 0 : performance.now() - page.viewAt;
      rows.forEach((row, seat) => {
        const running = c.running.includes(seat) && !view.result;
        const left = c.remaining_ms[seat] - (running ? ran : 0);
        row.querySelector(".time").textContent = clockTime(left);
        row.classList.toggle("running", running);
        row.classList.toggle("low", left < low);
        // Past any grace (2 s) and a second more, and no end heard of: a seated page flags it
        // itself, in case the service's timer has not (docs/clocks.md); once per view.
        if (running && left < -3000 && you !== null && page.flagged !== view.version) {
          page.flagged = view.version;
          send("flag");
        }
      });
    };
    tick();
    clearInterval(page.clocks);
    if (c.running.length && !view.result) page.clocks = setInterval(tick, 100);
    return list;
  }

  /** The time per move: a countdown for the seats to act, and once it has run out, the
   * waiting seat's claim (the service measures the time; this clock only shows it). */
  function deadlineClock(view, you) {
    if (!view.move_deadline_ms || view.phase !== "play") return null;
    const line = h("p", { class: "clock", "aria-live": "off" });
    const claim = h("button", { hidden: true, disabled: connection.state === "offline",
                                onclick: () => send("claim-timeout") },
                    "Claim the game (time is up)");
    const tick = () => {
      const left = view.last_event_ms + view.move_deadline_ms - Date.now();
      const waiting = you !== null && !view.to_act.includes(you);
      line.textContent = left > 0 ? `Time left for this move: ${duration(left)}`
                                  : "Time is up for this move.";
      claim.hidden = !(left <= 0 && waiting);
    };
    tick();
    clearInterval(page.clock);
    page.clock = setInterval(tick, 1000);
    return h("div", {}, line, claim);
  }

  /** A rematch (issue 23), for the players of an ended game: offer one, answer one offered,
   * or wait for the others; once its game exists, go there. An offer is not a game event: while
   * one may come or stands, the page asks for the game again every few seconds. */
  function rematchPanel(view, you) {
    const r = page.table.rematch;
    const ours = Boolean(view.result) && you !== null && !page.replay;
    const polling = ours && !r?.game_id;
    if (polling && !page.rematchTimer) page.rematchTimer = setInterval(soon, 3000);
    if (!polling) {
      clearInterval(page.rematchTimer);
      page.rematchTimer = null;
    }
    if (!ours) return null;
    if (r?.game_id) {
      // Followed from this page's offer; a later visit to this game stays here, with a link.
      if (page.rematchPending) location.hash = `#/games/${r.game_id}`;
      return h("p", { class: "rematch" }, h("a", { href: `#/games/${r.game_id}` }, "The rematch"));
    }
    page.rematchPending = Boolean(r && !r.declined);
    const offline = connection.state === "offline";
    const ask = async (method, path) => {
      try {
        const body = method === "POST" ? {} : undefined;
        page.table.rematch = await api(`/api/games/${gameId}/rematch${path}`, { method, body });
        page.rematchPending ||= Boolean(page.table.rematch.game_id);
        page.error = null;
      } catch (e) {
        page.error = e;
      }
      draw();
    };
    const button = (label, method, path = "") =>
      h("button", { disabled: offline, onclick: () => ask(method, path) }, label);
    const line = (text, ...buttons) => h("div", { class: "rematch" },
                                           text ? h("p", { role: "status" }, text) : null,
                                           ...buttons);
    if (!r) return line("", button("Offer a rematch", "POST"));
    if (r.declined) {
      const who = r.declined_by === me.player?.name ? "You" : r.declined_by;
      return line(`${who} declined the rematch.`, button("Offer a rematch", "POST"));
    }
    if (r.you_invited) {
      const side = page.table.words?.sides?.[r.your_seat] ?? `seat ${r.your_seat}`;
      return line(`${r.by} offers a rematch (you would play ${side}). `,
                  button("Accept", "POST", "/accept"), " ", button("Decline", "DELETE"));
    }
    const waiting = r.invited.filter((i) => !r.seated.some((s) => s.player === i.player));
    return line(`Rematch offered: waiting for ${waiting.map((i) => i.name).join(", ")}. `,
                button("Withdraw", "DELETE"));
  }

  // The fair-play steps this browser owes, made here: a client seed (committed, then revealed)
  // and a hidden setup (committed, then revealed). Each secret is kept in this browser only.
  async function fairPlay() {
    const view = page.view;
    const seat = page.table.you;
    if (seat === null || page.busy) return; // (a refresh during a step follows it: `again`)
    // A step already in the outbox goes first (another now would be a second commitment); the
    // view that came meanwhile is looked at again once it is answered (it may owe the next).
    if (page.outbox.length) {
      page.owed = true;
      return;
    }
    // What this seat did already is read from the events: a view ahead of them (fetched before
    // the feed brought its events) waits for them, or a commit would look unmade and be redone.
    if (!view.to_act.includes(seat) || (page.events.at(-1)?.version ?? 0) < view.version) return;
    const mine = (type) => page.events.some((e) => e.type === type && bodyOf(e).seat === seat);
    const key = `tabula:${gameId}:${seat}`;
    page.busy = true;
    try {
      if (view.phase === "seeding") {
        let seed = localStorage.getItem(`${key}:seed`);
        if (!mine("ClientSeedCommitted")) {
          seed ??= fair.newClientSeed(); // a commit sent before a reload is sent again alike
          localStorage.setItem(`${key}:seed`, seed);
          await send(`seed-commit ${await fair.clientSeedCommitment(gameId, seat, seed)}`);
        } else if (seed) {
          await send(`seed-reveal ${seed}`);
        }
      } else if (view.phase === "setup" && boards?.setup) {
        const kept = JSON.parse(localStorage.getItem(`${key}:setup`) ?? "null");
        if (!mine("SetupCommitted")) {
          const bytes = await boards.setup(setupArea, { view, seat });
          setupArea.replaceChildren(h("p", {}, "Setup committed: revealed once every seat has committed."));
          const nonce = fair.newNonce();
          const text = new TextDecoder().decode(bytes);
          localStorage.setItem(`${key}:setup`, JSON.stringify({ nonce, text }));
          await send(`setup-commit ${await fair.setupCommitment(gameId, seat, nonce, bytes)}`);
        } else if (kept) {
          await send(`setup-reveal ${kept.nonce} ${kept.text}`);
        }
      }
    } finally {
      page.busy = false;
    }
  }

  // The log so far before anything else: the fair-play steps this page owes depend on what the
  // seat did already (a reload between a seed's commit and its reveal must reveal, not recommit).
  page.events = await api(`/api/games/${gameId}/events?after=0`);
  await refresh();
  connection.changed = () => page.view && draw();
  connect();
  leave = () => {
    connection.changed = () => {};
    page.closed = true;
    document.title = "Tabula";
    clearInterval(page.clock);
    clearInterval(page.clocks);
    clearInterval(page.rematchTimer);
    socket?.close();
  };
}

// -- the audit page: the export checked here, trusting nothing the server says ---------------

async function auditPage(gameId, focus = null) {
  const { auditExport } = await import("./audit.js");
  const out = h("div", { class: "audit", "aria-live": "polite" });
  // Focused on one event (a game page's "proof" link): that draw's own check, first.
  const proof = h("section", { class: "proof", "aria-label": `the proof of event ${focus}`,
                               hidden: focus === null });
  const receipts = JSON.parse(localStorage.getItem(`tabula:receipts:${gameId}`) ?? "[]");
  const file = h("input", { type: "file", accept: ".jsonl,.json,text/plain",
                            "aria-label": "an export file", onchange: async () => {
    const chosen = file.files[0];
    if (chosen) await run(await chosen.text(), `the file ${chosen.name}`);
  } });
  async function run(text, what) {
    out.replaceChildren(h("p", {}, `Checking ${what}…`));
    const report = await auditExport(text, receipts);
    const verdict = report.ok
      ? h("p", { class: "verdict ok", role: "status" }, `The log passes: ${what}.`)
      : h("p", { class: "verdict failed", role: "alert" },
          `The log fails at event ${report.failedAt?.version ?? "?"} `
          + `(${report.failedAt?.type ?? "?"}): ${report.failure}`);
    if (focus !== null) proof.replaceChildren(...proofOf(report, focus));
    out.replaceChildren(verdict,
      h("table", {}, h("caption", {}, "Checks"),
        report.checks.map((c) => h("tr", {}, h("td", {}, c.ok ? "✓" : "✗"),
                                   h("td", {}, c.name), h("td", {}, c.detail)))),
      report.notes.length ? h("ul", { class: "notes" }, report.notes.map((n) => h("li", {}, n)))
                          : null);
  }
  show(h("h1", {}, `Audit of ${gameId}`),
       h("p", {}, "This page recomputes the hash chain, every die, shuffle and card and every "
         + "hidden setup from the game's export, and checks the signed receipts this browser kept "
         + `during play (${receipts.length}), with this browser's own cryptography.`),
       h("p", {}, h("a", { href: `#/games/${gameId}` }, "Back to the game"), " · ",
         h("label", {}, "Audit an export file instead: ", file)),
       proof, out);
  if (focus !== null) proof.replaceChildren(h("p", {}, `Checking event ${focus}…`));
  const reply = await fetch(`/api/games/${gameId}/export`);
  if (reply.ok) {
    await run(await reply.text(), "the export the server gave");
    return;
  }
  const error = new ApiError(reply.status, (await reply.json()).error);
  out.replaceChildren(errorBox(error));
  if (focus !== null) {
    proof.replaceChildren(h("h2", {}, `The proof of event ${focus}`),
      h("p", { class: "verdict pending", role: "status" },
        "Verifiable once the seed is revealed at the end: the server seed that recomputes this "
        + "draw is secret until the game has ended, and so is the export that holds it."));
  }
}

/** One event's own check from the audit's report: what the log recorded, what the revealed
 * seed recomputes (with the nonce), and ✓ or ✗; or why it cannot be checked yet. */
function proofOf(report, version) {
  const title = h("h2", {}, `The proof of event ${version}`);
  const d = report.draws.find((x) => x.version === version);
  if (!d) {
    const stopped = report.failedAt && report.failedAt.version < version;
    return [title, h("p", { class: "verdict", role: "status" }, stopped
      ? `Not checked: the audit stopped at event ${report.failedAt.version}.`
      : `Event ${version} holds no die, shuffle or card.`)];
  }
  const mark = d.ok === true ? "✓" : d.ok === false ? "✗" : "…";
  const words = d.ok === true ? "the seeds give what the log recorded"
    : d.ok === false ? `it does not hold: ${d.detail}`
      : "verifiable once the seed is revealed at the end";
  const row = (name, value) => value === null || value === undefined || value === "" ? null
    : h("tr", {}, h("th", { scope: "row" }, name), h("td", {}, h("code", {}, String(value))));
  return [title,
    h("p", { class: `verdict ${d.ok === true ? "ok" : d.ok === false ? "failed" : "pending"}`,
             role: "status" }, `${mark} Event ${version}, ${d.what}: ${words}.`),
    h("table", { class: "proof-table" },
      row("nonce", d.nonce), row("deck position", d.position),
      row("recorded in the log", d.recorded),
      row(d.type === "CardRevealed" ? "recomputed from the card and its salt"
                                    : "recomputed from the revealed seed", d.computed),
      row("check", `${mark} ${d.how}`),
      row("server seed", report.serverSeed), row("mix of the client seeds", report.mix))];
}

function bodyOf(event) {
  return typeof event.body === "object" ? event.body : JSON.parse(event.body);
}

// -- start -----------------------------------------------------------------------------------

function header() {
  const slot = document.getElementById("me");
  const guest = me.player && !me.player.account;
  const sound = () => localStorage.getItem("tabula:sound") === "on";
  const toggle = h("button", { class: "link", "aria-pressed": String(sound()), onclick: () => {
    localStorage.setItem("tabula:sound", sound() ? "off" : "on");
    header();
  } }, `sound ${sound() ? "on" : "off"}`);
  slot.replaceChildren(toggle, " · ", me.player ? h("span", {}, me.player.name,
    guest ? [" (guest: ", h("a", { href: "#/account" }, "make an account"), ")"] : null, " · ",
    h("button", { class: "link", onclick: async () => {
      await api("/api/session", { method: "DELETE" });
      me.player = null;
      header();
      route();
    } }, "sign out")) : "");
}

try {
  me.player = (await api("/api/me")).player;
} catch {
  me.player = null;
}
header();
window.addEventListener("offline", () => setConnection("offline"));
const safely = () => route().catch((e) => show(errorBox(e)));
window.addEventListener("hashchange", safely);
safely();
