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

async function api(path, { method = "GET", body } = {}) {
  const options = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const reply = await fetch(path, options);
  const data = await reply.json().catch(() => ({}));
  if (!reply.ok) {
    throw new ApiError(reply.status, data.error ?? { code: "internal", reason: reply.statusText });
  }
  return data;
}

/** Act with one command id, retried while the outcome is unknown: applied once either way. */
async function act(gameId, action) {
  const command_id = crypto.randomUUID();
  for (let attempt = 0; ; attempt++) {
    try {
      const receipt = await api(`/api/games/${gameId}/actions`, { method: "POST",
                                                                   body: { action, command_id } });
      keepReceipt(gameId, receipt);
      return receipt;
    } catch (e) {
      const unknown = !(e instanceof ApiError) || e.status === 503;
      if (!unknown || attempt >= 4) throw e;
      await new Promise((r) => setTimeout(r, 300 * 2 ** attempt)); // backoff, same command
    }
  }
}

function keepReceipt(gameId, receipt) {
  const key = `tabula:receipts:${gameId}`;
  const kept = JSON.parse(localStorage.getItem(key) ?? "[]");
  kept.push(receipt);
  localStorage.setItem(key, JSON.stringify(kept));
}

// -- small DOM helpers -----------------------------------------------------------------------

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) el.setAttribute(k, v === true ? "" : v);
  }
  el.append(...children.flat().filter((c) => c !== null && c !== undefined));
  return el;
}

function show(...children) {
  main.replaceChildren(...children);
  main.focus();
}

function errorBox(error, ruleset) {
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
  const audited = /^#\/audit\/([a-z0-9-]+)$/.exec(hash);
  if (audited) return auditPage(audited[1]);
  if (!me.player) return signIn();
  return lobby();
}

function signIn() {
  const error = errorBox();
  const form = h("form", { class: "card", onsubmit: async (e) => {
    e.preventDefault();
    try {
      me.player = await api("/api/session", { method: "POST",
                                              body: { name: new FormData(form).get("name") } });
      header();
      route();
    } catch (err) {
      error.replaceWith(errorBox(err));
    }
  } },
    h("h1", {}, "Play at Tabula"),
    h("label", {}, "Your name ", h("input", { name: "name", required: true, maxlength: 32,
                                              autocomplete: "nickname", autofocus: true })),
    h("button", { type: "submit" }, "Sign in as a guest"), error);
  show(form);
}

async function lobby() {
  const rulesets = await api("/api/rulesets");
  const listed = h("div", { class: "lobby-lists" });
  const error = h("div");
  const form = challengeForm(rulesets, error, () => refresh());
  show(h("h1", {}, "Lobby"), form, error, listed);
  const waiting = new Set(); // challenges I sit in: once full they leave the list, as games
  async function refresh() {
    const data = await api("/api/lobby");
    const open = new Set(data.challenges.map((c) => c.challenge.id));
    for (const id of waiting) {
      if (open.has(id)) continue;
      waiting.delete(id);
      const gone = await api(`/api/challenges/${id}`).catch(() => null);
      if (gone?.game_id) {
        location.hash = `#/games/${gone.game_id}`;
        return;
      }
    }
    for (const c of data.challenges) {
      if (c.seated.some((s) => s.player === me.player.id)) waiting.add(c.challenge.id);
    }
    listed.replaceChildren(challengeTable(data.challenges, error, refresh),
                           gameList("Your games", data.mine), gameList("Recent games", data.games));
  }
  await refresh();
  const timer = setInterval(refresh, 2000); // a challenge taken meanwhile shows up
  leave = () => clearInterval(timer);
}

function challengeForm(rulesets, error, done) {
  const variants = h("select", { name: "named" });
  const seat = h("select", { name: "seat" });
  const ruleset = h("select", { name: "ruleset", onchange: fill },
                    rulesets.map((r) => h("option", { value: r.name }, r.name)));
  function fill() {
    const r = rulesets.find((x) => x.name === ruleset.value);
    variants.replaceChildren(h("option", { value: "" }, "default"),
                             r.variants.variants.map((v) => h("option", { value: v.name,
                                                                          title: v.description },
                                                              `${v.name}: ${v.description}`)));
    seat.replaceChildren(...Array.from({ length: r.seats }, (_, i) =>
      h("option", { value: i }, `seat ${i}`)));
    variants.hidden = !r.variants.variants.length;
  }
  fill();
  const form = h("form", { class: "card", onsubmit: async (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const extra = String(data.get("variant") ?? "").trim();
    const variant = [data.get("named"), extra].filter(Boolean).join("+");
    const body = { ruleset: data.get("ruleset"), variant, seat: Number(data.get("seat")),
                   move_deadline_ms: Number(data.get("deadline")) };
    try {
      if (e.submitter?.value === "bot") {
        const made = await api("/api/bots", { method: "POST", body });
        location.hash = `#/games/${made.game_id}`;
        return;
      }
      await api("/api/challenges", { method: "POST", body });
      error.replaceChildren();
      done();
    } catch (err) {
      error.replaceChildren(errorBox(err));
    }
  } },
    h("h2", {}, "Open a challenge"),
    h("label", {}, "Game ", ruleset), " ", h("label", {}, "Variant ", variants), " ",
    h("label", {}, "Options ", h("input", { name: "variant", placeholder: "e.g. key=value" })),
    " ", h("label", {}, "Sit at ", seat), " ",
    h("label", {}, "Time per move ", h("select", { name: "deadline" },
      DEADLINES.map(([label, ms]) => h("option", { value: ms }, label)))),
    " ", h("button", { type: "submit", value: "open" }, "Open"),
    " ", h("button", { type: "submit", value: "bot" }, "Play a house bot"));
  return form;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const DEADLINES = [["none", 0], ["1 minute", MINUTE], ["5 minutes", 5 * MINUTE],
                   ["1 day", DAY], ["3 days", 3 * DAY]];

function duration(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s >= 86400) return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function challengeTable(challenges, error, refresh) {
  const rows = challenges.map((c) => {
    const seats = Array.from({ length: c.challenge.seats }, (_, i) =>
      c.seated.find((s) => s.seat === i)?.name ?? "—").join(", ");
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
    return h("tr", {}, h("td", {}, c.challenge.ruleset),
             h("td", {}, c.challenge.variant || "default"), h("td", {}, seats), h("td", {}, action));
  });
  return h("table", { class: "challenges" },
    h("caption", {}, "Open challenges"),
    h("tr", {}, h("th", {}, "game"), h("th", {}, "variant"), h("th", {}, "seats"), h("th")),
    rows.length ? rows : h("tr", {}, h("td", { colspan: 4 }, "none yet")));
}

function gameList(title, games) {
  return h("section", {}, h("h2", {}, title),
           games.length ? h("ul", {}, games.map((g) => h("li", {}, h("a", { href: `#/games/${g}` }, g))))
                        : h("p", {}, "none"));
}

// -- the game page ---------------------------------------------------------------------------

async function gamePage(gameId) {
  const page = { events: [], view: null, table: null, error: null, busy: false, closed: false };
  const boardArea = h("div", { class: "board-area" });
  const setupArea = h("div", { class: "setup" }); // drawing the board leaves it alone
  const side = h("aside", { class: "side" });
  show(h("section", { class: "game" }, h("div", {}, setupArea, boardArea), side));
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
    refreshing = refresh().catch((e) => (page.error = e)).finally(() => {
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
    socket = new WebSocket(`${scheme}://${location.host}/api/games/${gameId}/ws?after=${last}`);
    socket.onmessage = async (msg) => {
      const frame = JSON.parse(typeof msg.data === "string" ? msg.data : await msg.data.text());
      if (frame.type === "events") {
        for (const e of frame.events) {
          if (e.version === (page.events.at(-1)?.version ?? 0) + 1) page.events.push(e);
        }
        retry = 500;
        soon();
      }
    };
    socket.onclose = () => {
      if (!page.closed) setTimeout(connect, (retry = Math.min(retry * 2, 10000)));
    };
  }

  /** The players' actions in order, one per command; the fair-play steps are not moves.
   * While a game with hidden information is in play the typed actions stay with their seats;
   * the moves its events record (`move`, `action` in their bodies) are public all along. */
  function moves() {
    const seen = new Set();
    const out = [];
    for (const e of page.events) {
      const body = bodyOf(e);
      const text = e.action.replace(/^\d+ /, "") || body.move || body.action;
      if (!text || seen.has(e.command_id)) continue;
      seen.add(e.command_id);
      if (!/^(seed|setup)-|^claim-timeout/.test(text)) out.push(text);
    }
    return out;
  }

  async function send(action) {
    page.error = null;
    try {
      await act(gameId, action);
    } catch (e) {
      page.error = e;
      draw();
    }
  }

  function draw() {
    const view = page.view;
    const you = page.table.you;
    const ctx = { view, seat: you, legal: view.legal, moves: moves(), act: send };
    if (boards?.render && Object.keys(view.board).length + view.position.length) {
      boards.render(boardArea, ctx);
    } else {
      boardArea.replaceChildren(h("pre", { class: "position" }, view.position));
    }
    const players = page.table.seated.map((s) =>
      h("li", { class: view.to_act.includes(s.seat) ? "to-act" : "" },
        `seat ${s.seat}: ${s.name}${s.seat === you ? " (you)" : ""}`));
    const result = view.result
      ? h("p", { class: "result", role: "status" }, `Result ${view.result} (${view.reason})`)
      : h("p", { role: "status" }, view.phase === "play"
          ? (view.to_act.includes(you) ? "Your move." : `Waiting for seat ${view.to_act.join(", ")}.`)
          : `Phase: ${view.phase}`);
    // What the player is typing survives a redraw (the opponent's events redraw the panel).
    const typed = h("input", { name: "action", list: "legal-actions", "aria-label": "action",
                               placeholder: "type an action", value: page.typed ?? "",
                               oninput: () => (page.typed = typed.value) });
    const refocus = document.activeElement?.getAttribute("name") === "action";
    const actions = h("form", { class: "actions", onsubmit: (e) => {
      e.preventDefault();
      const text = typed.value.trim();
      page.typed = "";
      if (text) send(text);
    } }, typed, h("datalist", { id: "legal-actions" },
                   view.legal.map((a) => h("option", { value: a }))),
      h("button", { type: "submit" }, "Play"));
    const commands = ["offer-draw", "accept-draw", "decline-draw", "resign"]
      .filter((c) => view.legal.includes(c))
      .map((c) => h("button", { onclick: () => send(c), class: c }, c.replace("-", " ")));
    const list = h("ol", { class: "moves", "aria-label": "moves" },
                   moves().map((m) => h("li", {}, m)));
    const clock = deadlineClock(view, you);
    side.replaceChildren(...[
      h("h1", {}, `${view.ruleset}${view.variant ? ` (${view.variant})` : ""}`),
      h("ul", { class: "players" }, players), result, clock,
      errorBox(page.error, view.ruleset),
      view.legal.length ? actions : null, h("div", { class: "commands" }, commands),
      h("h2", {}, "Moves"), list,
      h("p", {}, h("a", { href: `/rules/${view.ruleset}`, target: "_blank" }, "Rules"), " · ",
        h("a", { href: `/api/games/${gameId}/export` }, "Export"), " · ",
        h("a", { href: `#/audit/${gameId}` }, "Audit"), " · ",
        h("a", { href: "#/" }, "Lobby"))].filter(Boolean));
    if (refocus) typed.focus();
  }

  /** The time per move: a countdown for the seats to act, and once it has run out, the
   * waiting seat's claim (the service measures the time; this clock only shows it). */
  function deadlineClock(view, you) {
    if (!view.move_deadline_ms || view.phase !== "play") return null;
    const line = h("p", { class: "clock", "aria-live": "off" });
    const claim = h("button", { hidden: true, onclick: () => send("claim-timeout") },
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

  // The fair-play steps this browser owes, made here: a client seed (committed, then revealed)
  // and a hidden setup (committed, then revealed). Each secret is kept in this browser only.
  async function fairPlay() {
    const view = page.view;
    const seat = page.table.you;
    if (seat === null || page.busy || !view.to_act.includes(seat)) return;
    const mine = (type) => page.events.some((e) => e.type === type && bodyOf(e).seat === seat);
    const key = `tabula:${gameId}:${seat}`;
    page.busy = true;
    try {
      if (view.phase === "seeding") {
        let seed = localStorage.getItem(`${key}:seed`);
        if (!mine("ClientSeedCommitted")) {
          seed = fair.newClientSeed();
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

  await refresh();
  connect();
  leave = () => {
    page.closed = true;
    clearInterval(page.clock);
    socket?.close();
  };
}

// -- the audit page: the export checked here, trusting nothing the server says ---------------

async function auditPage(gameId) {
  const { auditExport } = await import("./audit.js");
  const out = h("div", { class: "audit", "aria-live": "polite" });
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
       out);
  const reply = await fetch(`/api/games/${gameId}/export`);
  if (reply.ok) await run(await reply.text(), "the export the server gave");
  else out.replaceChildren(errorBox(new ApiError(reply.status, (await reply.json()).error)));
}

function bodyOf(event) {
  return typeof event.body === "object" ? event.body : JSON.parse(event.body);
}

// -- start -----------------------------------------------------------------------------------

function header() {
  const slot = document.getElementById("me");
  slot.replaceChildren(me.player ? h("span", {}, `${me.player.name} · `,
    h("button", { class: "link", onclick: async () => {
      await api("/api/session", { method: "DELETE" });
      me.player = null;
      header();
      route();
    } }, "sign out")) : "");
}

try {
  me.player = await api("/api/session");
} catch {
  me.player = null;
}
header();
const safely = () => route().catch((e) => show(errorBox(e)));
window.addEventListener("hashchange", safely);
safely();
