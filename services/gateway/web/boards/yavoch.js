// Yavoch: five staggered levels of 5 x 5 positions (docs/rules/yavoch.md, section 1), drawn side
// by side, level 1 (bottom) on the left. Each level is shifted one long step (+1 x, +1 y)
// against the one below (Y-1.4), so every grid is drawn one row higher than the one below it:
// positions stacked straight above each other (a perpendicular column, Y-1.6) share a row.
// Positions are named as the notation names them: level, x, y (`243`). Within a level x runs
// left to right and y bottom to top, as in the engine's text picture (domain/yavoch/render.py).
//
// Ship moves and attacks are made by two clicks; every other action of the server's legal list
// is a button in the panel under the board. In the setup, the player who places its fleet gets
// a placement editor (the engine's legal list offers no placements: too many).
import { lastCells, pressable, svg, twoClicks } from "./common.js";

export const LEVELS = [1, 2, 3, 4, 5];
export const KIND_NAMES = { C: "Command ship", N: "Neornith", S: "Squam", A: "Archid", T: "Trych",
                            G: "gate" };
export const FLEET_ORDER = ["C", "N", "S", "A", "T", "G"]; // domain/yavoch/actions.py
export const DEFAULT_FLEET = { command: 1, neornith: 3, squam: 4, archid: 2, trych: 10,
                               gate_pairs: 1 }; // domain/yavoch/pieces.py Fleet
const PLATFORM = new Set(["resign", "offer-draw", "accept-draw", "decline-draw"]); // app.js has them
/** A ship move or attack as the legal list writes it: `S224-215>242/M`, `A115x111`. */
export const MOVE = /^[12]?([CNSAT])([1-5]{3})([-x])([1-5]{3})(?:>([1-5]{3}))?(\/M)?$/;
/** The last move's cells in the move list (moves, attacks, teleports to their exit, gate moves,
 *  shots, detonations), as the players wrote them. */
export const LAST = /^[12]?[CNSATG]([1-5]{3})(?:[-x*](?:[1-5]{3}>)?([1-5]{3})|!)/;
const CELL = 40;
const GAP = 30;
const LEFT = 24;
const TOP = 40;

export const COMPONENTS = {
  AMI: "Antimatter/Matter Inverter", DEC: "Dark Energy Collimator",
  MET: "Matter/Energy Transducer", FEE: "Field Effect Emitter", GRP: "Graviton Polarizer",
  PBI: "Particle Beam Inductor", WHI: "Worm Hole Initiator", BET: "Base Element Transducer",
  MMP: "Magnetic Monopoles", ANY: "Wild Card (any component)",
};
const MARKINGS = { T: "a Trych", S: "a Squam", N: "a Neornith", A: "an Archid", X: "any ship" };
export const IMPACTS = {
  EF: "Engineering Failure", ED: "Enemy Defector", CA: "Core Anomaly", CD: "Core Dump",
  MAS: "Massive Asteroid Swarm", UAI: "Unexpected Asteroid Impact",
};
export const WEAPONS = {
  TB: "Tractor Beam", AT: "Antimatter Torpedo", EV: "Evolution", CL: "Cloning",
  REA: "Remote Energy Absorber", RD: "Revenant Device", HD: "Hyperdrive",
  DF: "Deflector Field", SD: "Self Destruct",
};

// -- pure helpers (no DOM: node can import and check them) -----------------------------------

/** The 125 positions in notation order (111, 112, ..., 555). */
export function positions() {
  const out = [];
  for (const l of LEVELS) for (let x = 1; x <= 5; x++) for (let y = 1; y <= 5; y++) out.push(`${l}${x}${y}`);
  return out;
}

/** Y-1.9 (default `core_definition=board_lines`): x = 3 or y = 3. */
export function isCore(name, definition = "board_lines") {
  const [l, x, y] = [...name].map(Number);
  return definition === "physical_lines" ? x === 6 - l || y === 6 - l : x === 3 || y === 3;
}

/** The variant's settings (`full+fleet.trych=5+...`): {ruleset, key: value}. */
export function variantSettings(variant = "") {
  const [ruleset, ...rest] = String(variant || "decker").split("+");
  const out = { ruleset: ruleset || "decker" };
  for (const part of rest) {
    const [k, v] = part.split("=");
    if (k) out[k] = v ?? "";
  }
  return out;
}

/** Y-2.1 / Y-0.4: pieces of each kind per side, gates one by one, in fleet order. */
export function fleetCounts(variant = "") {
  const s = variantSettings(variant);
  const n = (key) => (s[`fleet.${key}`] !== undefined ? Number(s[`fleet.${key}`]) : DEFAULT_FLEET[key]);
  return { C: n("command"), N: n("neornith"), S: n("squam"), A: n("archid"), T: n("trych"),
           G: 2 * n("gate_pairs") };
}

/** The positions of the home levels, in notation order. */
export function homePositions(levels) {
  return positions().filter((p) => levels.includes(Number(p[0])));
}

/** A placement's text as the engine writes it (actions.placement_text): kinds in the order
 *  C N S A T G, positions ascending within a kind, gates in the order placed (they pair up two
 *  by two). `pieces`: [{kind, at}] in the order placed. */
export function placementText(pieces) {
  const rank = (k) => FLEET_ORDER.indexOf(k);
  const sorted = pieces.map((p, i) => ({ ...p, i })).sort((a, b) =>
    rank(a.kind) - rank(b.kind)
    || (a.kind === "G" ? a.i - b.i : a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return `place ${sorted.map((p) => `${p.kind}${p.at}`).join(" ")}`;
}

/** As domain/yavoch/bot.py `random_placement`: every piece in fleet order on a free home
 *  position, `choose(n)` picking in [0, n). */
export function randomPlacement(levels, counts, choose = (n) => Math.floor(Math.random() * n)) {
  const free = homePositions(levels);
  const pieces = [];
  for (const kind of FLEET_ORDER) {
    for (let i = 0; i < (counts[kind] ?? 0); i++) pieces.push({ kind, at: free.splice(choose(free.length), 1)[0] });
  }
  return pieces;
}

/** The engine's placement checks (decide._check_placement), in its order: null when the
 *  placement is whole and legal, else {clause, reason}. */
export function checkPlacement(pieces, levels, counts) {
  for (const { at } of pieces) {
    if (!levels.includes(Number(at[0]))) {
      return { clause: "Y-3.1", reason: `${at} is not on your home levels ${levels[0]} and ${levels[1]}` };
    }
  }
  if (new Set(pieces.map((p) => p.at)).size !== pieces.length) {
    return { clause: "Y-3.2", reason: "one piece per position (a ship does not start on a gate)" };
  }
  const left = remaining(pieces, counts);
  if (FLEET_ORDER.some((k) => left[k] !== 0)) {
    const want = FLEET_ORDER.map((k) => `${counts[k]} ${k}`).join(" ");
    const todo = FLEET_ORDER.filter((k) => left[k] > 0).map((k) => `${left[k]} ${k}`);
    const extra = FLEET_ORDER.filter((k) => left[k] < 0).map((k) => `${-left[k]} ${k}`);
    const detail = [todo.length ? `still to place: ${todo.join(", ")}` : "",
                    extra.length ? `too many: ${extra.join(", ")}` : ""].filter(Boolean).join("; ");
    return { clause: "Y-3.2", reason: `place the whole fleet, every piece once: ${want} (${detail})` };
  }
  return null;
}

/** Pieces of each kind still to place (negative: too many). */
export function remaining(pieces, counts) {
  const left = {};
  for (const k of FLEET_ORDER) left[k] = (counts[k] ?? 0) - pieces.filter((p) => p.kind === k).length;
  return left;
}

/** The field from a position record (`1C111:3 1G254 2M333 E244:1 / 1`), for when the view has
 *  no board (it comes sealed to a seat in a game with hidden information). */
export function boardFromPosition(position = "") {
  const body = position.split("/")[0].trim();
  const out = { ships: [], gates: [], mines: [], tokens: [] };
  const pairs = {};
  for (const item of body ? body.split(/\s+/) : []) {
    const [head, energy] = item.split(":");
    if (head[0] === "E") {
      out.tokens.push({ at: head.slice(1), count: Number(energy ?? 0) });
      continue;
    }
    const player = Number(head[0]);
    const kind = head[1];
    const at = head.slice(2);
    if (kind === "G") {
      pairs[player] = (pairs[player] ?? 0) + 1;
      out.gates.push({ at, player, pair: Math.floor((pairs[player] - 1) / 2) });
    } else if (kind === "M") out.mines.push({ at, player });
    else out.ships.push({ at, kind, player, energy: Number(energy ?? 0) });
  }
  return out;
}

/** {position: {ship, gate, mine, tokens}} from the view's lists. */
export function fieldOf(b) {
  const field = new Map(positions().map((p) => [p, {}]));
  for (const s of b.ships ?? []) field.get(s.at).ship = s;
  for (const g of b.gates ?? []) field.get(g.at).gate = g;
  for (const m of b.mines ?? []) field.get(m.at).mine = m;
  for (const t of b.tokens ?? []) field.get(t.at).tokens = t.count;
  return field;
}

/** What a position holds, in words: "243: Player 1 Archid, energy 2, on a gate of Player 1". */
export function cellLabel(name, info, manyPairs = {}) {
  const parts = [];
  if (info.ship) {
    const s = info.ship;
    parts.push(`Player ${s.player} ${KIND_NAMES[s.kind] ?? s.kind}, energy ${s.energy}`);
  }
  if (info.gate) {
    const g = info.gate;
    const pair = manyPairs[g.player] ? ` (pair ${g.pair + 1})` : "";
    parts.push(info.ship ? `on a gate of Player ${g.player}${pair}` : `gate of Player ${g.player}${pair}`);
  }
  if (info.mine) parts.push(`mine of Player ${info.mine.player}`);
  if (info.draft) parts.push(`your ${KIND_NAMES[info.draft]} (placed, not yet sent)`);
  if (info.tokens) parts.push(`${info.tokens} energy token${info.tokens === 1 ? "" : "s"}`);
  return `${name}: ${parts.length ? parts.join(", ") : "empty"}`;
}

/** "the Player 2 Squam (energy 1)" or "empty". */
export function occupant(field, at) {
  const info = field.get(at) ?? {};
  if (info.ship) return `Player ${info.ship.player} ${KIND_NAMES[info.ship.kind]}, energy ${info.ship.energy}`;
  if (info.mine) return `mine of Player ${info.mine.player}`;
  if (info.gate) return `gate of Player ${info.gate.player}`;
  return "empty";
}

/** A card in words: "Graviton Polarizer, for a Squam (GRP-S)", "Core Dump, impact (I-CD)". */
export function cardName(card) {
  if (!card) return "a hidden card";
  const parts = card.split("-");
  if (parts[0] === "I") return `${IMPACTS[parts[1]] ?? parts[1]}, impact card (${card})`;
  if (parts[0] === "C") {
    return `${COMPONENTS[parts[1]] ?? parts[1]}, for ${MARKINGS[parts[2]] ?? parts[2]} (${parts[1]}-${parts[2]})`;
  }
  return card;
}

/**
 * The server's legal action texts sorted for the page: `moves` (ship moves and attacks, text ->
 * [from, to] for twoClicks; a teleport's `to` is the gate it enters) and the buttons' groups.
 * The platform verbs (resign, draws) are left to the page's own buttons.
 */
export function classify(legal) {
  const moves = {};
  const groups = { levels: [], respond: [], discard: [], detonate: [], gate: [], shot: [],
                   weapon: [], transfer: [], end: [], other: [] };
  for (const text of legal) {
    let m;
    if (PLATFORM.has(text)) continue;
    if ((m = MOVE.exec(text))) moves[text] = [m[2], m[4]];
    else if (/^levels \d\d$/.test(text)) groups.levels.push(text);
    else if (/^R:/.test(text)) groups.respond.push(text);
    else if (/^discard \d+$/.test(text)) groups.discard.push(text);
    else if (/^[12]?T[1-5]{3}!$/.test(text)) groups.detonate.push(text);
    else if (/^[12]?G[1-5]{3}-[1-5]{3}$/.test(text)) groups.gate.push(text);
    else if (/^[12]?C[1-5]{3}\*[1-5]{3}$/.test(text)) groups.shot.push(text);
    else if (/^W:/.test(text)) groups.weapon.push(text);
    else if (/^E[1-5]{3}>[1-5]{3}$/.test(text)) groups.transfer.push(text);
    else if (text === "END") groups.end.push(text);
    else groups.other.push(text);
  }
  return { moves, groups };
}

const cardsOf = (tail) => (tail ? ` (cards #${tail.split(",").join(", #")})` : "");

/** A button's words for one legal action text (`field` names what stands where). */
export function describe(text, field = new Map(), hand = []) {
  let m;
  if ((m = /^levels (\d)(\d)$/.exec(text))) {
    const other = m[1] === "1" ? "4 and 5" : "1 and 2";
    return `Levels ${m[1]} and ${m[2]} (Player 2 gets ${other})`;
  }
  if (text === "R:none") return "No answer: let it happen";
  if ((m = /^R:(DF|SD):[12]?([NSAT])([1-5]{3})(?:@([\d,]+))?$/.exec(text))) {
    const verb = m[1] === "DF" ? "Deflector Field for" : "Self Destruct with";
    return `${verb} the ${KIND_NAMES[m[2]]} at ${m[3]}${cardsOf(m[4])}`;
  }
  if ((m = /^discard (\d+)$/.exec(text))) {
    const card = hand.find((h) => String(h.position) === m[1]);
    return `Discard card #${m[1]}${card ? `: ${cardName(card.card)}` : ""}`;
  }
  if ((m = /^[12]?T([1-5]{3})!$/.exec(text))) return `Detonate the Trych at ${m[1]}`;
  if ((m = /^[12]?G([1-5]{3})-([1-5]{3})$/.exec(text))) return `Gate ${m[1]} → ${m[2]}`;
  if ((m = /^[12]?C([1-5]{3})\*([1-5]{3})$/.exec(text))) {
    return `Fire from ${m[1]} at ${m[2]} (${occupant(field, m[2])})`;
  }
  if ((m = /^E([1-5]{3})>([1-5]{3})$/.exec(text))) {
    const s = (at) => field.get(at)?.ship;
    const who = (at) => (s(at) ? `${KIND_NAMES[s(at).kind]}, energy ${s(at).energy}` : "?");
    return `One unit from ${m[1]} (${who(m[1])}) to ${m[2]} (${who(m[2])})`;
  }
  if (text === "END") return "End the turn";
  if ((m = /^W:([A-Z]+):[12]?([NSAT])([1-5]{3})(?::([^@]*))?(?:@([\d,]+))?$/.exec(text))) {
    return weaponArgs(m[1], m[4] ?? "", field);
  }
  return text;
}

/** What a weapon's arguments do, in words (docs/rules/yavoch.md, the weapons' arguments). */
function weaponArgs(code, args, field) {
  let m;
  if ((code === "AT" || code === "REA" || code === "RD") && /^[1-5]{3}$/.test(args)) {
    const verb = { AT: "Torpedo", REA: "Drain", RD: "Convert" }[code];
    return `${verb} ${args} (${occupant(field, args)})`;
  }
  if (code === "TB" && (m = /^([1-5]{3})>([1-5]{3})$/.exec(args))) {
    return `Pull ${m[1]} (${occupant(field, m[1])}) to ${m[2]}`;
  }
  if (code === "EV" && (m = /^([1-5]{3})=([TSNA])$/.exec(args))) {
    return `${m[1]} (${occupant(field, m[1])}) becomes ${MARKINGS[m[2]]}`;
  }
  if (code === "CL" && (m = /^([1-5]{3})=(\d+)$/.exec(args))) {
    return `Clone to ${m[1]} with ${m[2]} unit${m[2] === "1" ? "" : "s"}`;
  }
  if (code === "HD" && /^[1-5]{3}$/.test(args)) return `Jump to ${args}`;
  return `${code} ${args}`;
}

/** The action a response window answers, in words (its text in brackets). */
export function windowWords(action = "") {
  let m;
  if ((m = /^W:([A-Z]+):[12]?([NSAT])([1-5]{3})/.exec(action))) {
    return `the ${WEAPONS[m[1]] ?? m[1]} of the ${KIND_NAMES[m[2]]} at ${m[3]} (${action})`;
  }
  if ((m = /^[12]?([CNSA])([1-5]{3})x([1-5]{3})/.exec(action))) {
    return `the ${KIND_NAMES[m[1]]}'s attack from ${m[2]} on ${m[3]} (${action})`;
  }
  if ((m = /^[12]?C([1-5]{3})\*([1-5]{3})/.exec(action))) return `the HEP CAT shot from ${m[1]} at ${m[2]} (${action})`;
  if ((m = /^[12]?T([1-5]{3})!/.exec(action))) return `the Trych detonation at ${m[1]} (${action})`;
  return action;
}

/** Weapons grouped by weapon and user: [{code, user, kind, cards, texts}] in list order. */
export function weaponGroups(texts) {
  const groups = new Map();
  for (const text of texts) {
    const m = /^W:([A-Z]+):[12]?([NSAT])([1-5]{3})(?::[^@]*)?(?:@([\d,]+))?$/.exec(text);
    const key = m ? `${m[1]}:${m[3]}` : text;
    if (!groups.has(key)) {
      groups.set(key, { code: m?.[1] ?? "", kind: m?.[2] ?? "", user: m?.[3] ?? "", cards: m?.[4] ?? "",
                        texts: [] });
    }
    groups.get(key).texts.push(text);
  }
  return [...groups.values()];
}

/** Home levels: [seat 0's, seat 1's], from the view or from the `levels NM` in the moves. */
export function homeLevels(b, moves = []) {
  if (b.home_levels) return b.home_levels;
  const chosen = [...moves].reverse().map((t) => /^levels (12|45)$/.exec(t)).find(Boolean);
  if (!chosen) return null;
  return chosen[1] === "12" ? [[1, 2], [4, 5]] : [[4, 5], [1, 2]];
}

// -- drawing -----------------------------------------------------------------------------------

const editor = { key: null, pieces: [], kind: null, note: "" }; // the placement being made
let layMine = false; // the "leave a mine" choice of the two-click moves

/** The top-left corner of a position's square. */
function corner(name) {
  const [l, x, y] = [...name].map(Number);
  return [LEFT + (l - 1) * (5 * CELL + GAP) + (x - 1) * CELL, TOP + (5 - l) * CELL + (5 - y) * CELL];
}

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) el.setAttribute(k, v === true ? "" : v);
  }
  el.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

function drawCell(name, info, manyPairs, core) {
  const [x, y] = corner(name);
  const g = svg("g", { "data-cell": name, class: "cell" });
  g.append(svg("rect", { x, y, width: CELL, height: CELL, class: core ? "core" : "light" }));
  const cx = x + CELL / 2;
  const cy = y + CELL / 2;
  if (info.gate) {
    const p = `p${info.gate.player}`;
    g.append(svg("circle", { cx, cy, r: CELL / 2 - 3, class: `gate ${p}` }));
    if (manyPairs[info.gate.player]) {
      g.append(svg("text", { x: x + 4, y: y + 11, class: `pair ${p}` }, `${info.gate.pair + 1}`));
    }
  }
  if (info.mine) {
    const p = `p${info.mine.player}`;
    const r = 11;
    g.append(svg("polygon", { points: `${cx},${cy - r} ${cx + r},${cy} ${cx},${cy + r} ${cx - r},${cy}`,
                              class: `mine ${p}` }));
    g.append(svg("text", { x: cx, y: cy + 4, class: "mine-letter" }, "M"));
  }
  const ship = info.ship ?? (info.draft ? { kind: info.draft, player: info.draftPlayer, energy: null } : null);
  if (ship) {
    const p = `p${ship.player}`;
    g.append(svg("text", { x: cx, y: y + 28, class: `piece ${p}${info.draft ? " draft" : ""}` }, ship.kind));
    if (ship.energy !== null && (ship.kind !== "T" || ship.energy > 0)) {
      g.append(svg("text", { x: x + CELL - 3, y: y + CELL - 3, class: `energy ${p}` }, `${ship.energy}`));
    }
  }
  if (info.tokens) {
    g.append(svg("text", { x: x + 3, y: y + CELL - 3, class: "token" }, `E${info.tokens}`));
  }
  const label = cellLabel(name, info, manyPairs);
  g.append(svg("title", {}, label));
  g.setAttribute("aria-label", label);
  return g;
}

function drawBoard(field, { homes, seat, last, definition }) {
  const width = LEFT + 5 * (5 * CELL) + 4 * GAP + 8;
  const height = TOP + 9 * CELL + 8;
  const board = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "board yavoch", role: "group",
                             "aria-label": "Yavoch field: levels 1 (bottom) to 5 (top), 5 x 5 positions each" });
  const manyPairs = {};
  for (const info of field.values()) if (info.gate?.pair > 0) manyPairs[info.gate.player] = true;
  const cells = new Map();
  for (const l of LEVELS) {
    const [x0, y0] = corner(`${l}15`); // the level's top-left square (x 1, y 5)
    const owner = homes ? homes.findIndex((levels) => levels.includes(l)) : -1;
    if (owner >= 0) {
      board.append(svg("rect", { x: x0 - 3, y: y0 - 3, width: 5 * CELL + 6, height: 5 * CELL + 6,
                                 class: `home p${owner + 1}` }));
    }
    const whose = owner < 0 ? "" : ` · home of P${owner + 1}${owner === seat ? " (you)" : ""}`;
    board.append(svg("text", { x: x0 + 2.5 * CELL, y: y0 - 22, class: `label level${owner >= 0 ? ` p${owner + 1}` : ""}` },
                     `Level ${l}${whose}`));
    for (let i = 1; i <= 5; i++) {
      board.append(svg("text", { x: x0 + (i - 0.5) * CELL, y: y0 - 7, class: "label axis" }, `x${i}`));
      board.append(svg("text", { x: x0 - 11, y: y0 + (5 - i + 0.5) * CELL + 4, class: "label axis" }, `y${i}`));
    }
  }
  for (const [name, info] of field) {
    const g = drawCell(name, info, manyPairs, isCore(name, definition));
    if (last.includes(name)) g.classList.add("last");
    board.append(g);
    cells.set(name, g);
  }
  return { board, cells };
}

function legendLine(full) {
  const dot = (cls, text) => h("span", { class: cls }, text);
  return h("p", { class: "yavoch-legend" },
    dot("p1", "Player 1"), " and ", dot("p2", "Player 2"), " · letters: C Command ship, N Neornith, ",
    "S Squam, A Archid, T Trych; the small number is the ship's energy · ◯ gate · ◆ mine",
    full ? " · E2: 2 energy tokens" : "", " · shaded: core positions · framed: home levels · ",
    "each level lies one step further in x and y than the one below, drawn one row higher: ",
    "positions straight above each other share a row (above 243 is 332).");
}

function status(b, seat, toAct) {
  const who = (s) => `Player ${s + 1}${s === seat ? " (you)" : ""}`;
  switch (b.phase) {
    case "levels": return `Setup: ${who(0)} chooses the home levels.`;
    case "place": return `Setup: ${who(toAct[0] ?? 0)} places the fleet.`;
    case "respond": {
      const w = b.window ?? {};
      return `${who(w.seat)} may answer ${windowWords(w.action)}, for the ship${(w.ships ?? []).length > 1 ? "s" : ""} at ${(w.ships ?? []).join(", ")}.`;
    }
    case "discard": return `${who(b.to_move)} holds too many cards and discards one (Y-6.13).`;
    case "ended": return `Game over: ${b.result ?? ""} (${b.reason ?? ""}).`;
    case "play": {
      if (b.to_move === null || b.to_move === undefined) return "";
      const done = b.moved ? "MOVE made" : "MOVE not made yet";
      return `Turn ${b.turn} · ${who(b.to_move)} to act · ${done}${b.fired ? " · HEP CAT fired" : ""}.`;
    }
    default: return b.phase ? `Phase: ${b.phase}` : "";
  }
}

function group(title, hint, ...content) {
  return h("section", { class: "yavoch-group", "aria-label": title },
           h("h3", {}, title), hint ? h("p", { class: "hint" }, hint) : null, ...content);
}

function buttons(texts, act, field, hand) {
  return texts.map((t) => h("button", { type: "button", "data-action": t, title: t,
                                        onclick: () => act(t) }, describe(t, field, hand)));
}

function panel(ctx, b, field, groups, moves) {
  const hand = ctx.seat !== null && ctx.seat !== undefined ? (b.hands?.[ctx.seat] ?? []) : [];
  const out = [];
  const bt = (texts) => buttons(texts, ctx.act, field, hand);
  if (groups.levels.length) {
    out.push(group("Choose your home levels", "Y-3.1: you place your fleet on two levels at one end.",
                   bt(groups.levels)));
  }
  if (groups.respond.length) {
    const w = b.window ?? {};
    out.push(group("Answer the attack",
                   `Y-5.96: ${windowWords(w.action)} strikes your ship${(w.ships ?? []).length > 1 ? "s" : ""} at ${(w.ships ?? []).join(", ")}.`,
                   bt(groups.respond)));
  }
  if (groups.discard.length) {
    out.push(group("Discard a card", "Y-6.13: your hand is over its limit; the card goes face down.",
                   bt(groups.discard)));
  }
  const shipMoves = Object.keys(moves);
  if (shipMoves.length) {
    const hasMine = shipMoves.some((t) => t.endsWith("/M"));
    const mine = hasMine
      ? h("label", {}, h("input", { type: "checkbox", class: "lay-mine", checked: layMine,
                                    onchange: (e) => { layMine = e.target.checked; } }),
          " leave a mine where the ship starts (costs 1 unit, /M)")
      : null;
    out.push(group("Move a ship", "Click one of your ships (outlined), then a highlighted position: "
                   + "a move, an attack, or one of your gates to teleport through.", mine));
  }
  if (groups.detonate.length) {
    out.push(group("Detonate a Trych", "Y-5.30: destroys the enemy pieces on the 8 positions around it.",
                   bt(groups.detonate)));
  }
  if (groups.gate.length) {
    const by = new Map();
    for (const t of groups.gate) {
      const from = /G([1-5]{3})-/.exec(t)[1];
      if (!by.has(from)) by.set(from, []);
      by.get(from).push(t);
    }
    out.push(group("Move a gate", "Y-5.16: one step to an unoccupied position.",
                   [...by.values()].map((ts) => h("div", { class: "row" }, bt(ts)))));
  }
  if (groups.weapon.length) {
    out.push(group("Use a secret weapon", "Y-5.80: a weapon is this turn's MOVE; its three cards are discarded.",
      weaponGroups(groups.weapon).map((wg) => h("details", {},
        h("summary", {}, `${WEAPONS[wg.code] ?? wg.code} by the ${KIND_NAMES[wg.kind] ?? wg.kind} at ${wg.user}`
                         + `${cardsOf(wg.cards)}: ${wg.texts.length} choice${wg.texts.length === 1 ? "" : "s"}`),
        bt(wg.texts)))));
  }
  if (groups.shot.length) {
    out.push(group("Fire the HEP CAT", "Y-5.60: once per turn, 1 unit of the Command ship's energy.",
                   bt(groups.shot)));
  }
  if (groups.transfer.length) {
    out.push(group("Transfer energy", "Y-5.54: after the MOVE, between adjacent ships of yours.",
                   bt(groups.transfer)));
  }
  if (groups.end.length) out.push(group("End the turn", "", bt(groups.end)));
  if (groups.other.length) out.push(group("Other actions", "", bt(groups.other)));
  return out;
}

function cardsPanel(b, seat) {
  const hands = b.hands ?? [];
  const rows = [];
  hands.forEach((hand, s) => {
    const whose = s === seat ? "Your hand" : `Player ${s + 1}'s hand`;
    const known = hand.some((c) => c.card);
    rows.push(h("p", { class: "hand" }, `${whose}: ${hand.length} card${hand.length === 1 ? "" : "s"}`,
      known ? h("ul", {}, hand.map((c) => h("li", {}, `#${c.position} ${cardName(c.card)}`))) : null));
  });
  const top = b.top_card ? ` (the top card is ${b.top_card === "impact" ? "an impact" : "a component"} card)` : "";
  rows.push(h("p", { class: "piles" }, `Draw pile: ${b.draw_pile ?? 0}${top} · discard pile: ${b.discard_pile ?? 0}`));
  return group("Cards", "", rows);
}

/** The engine's view; while it comes sealed to a seat (a game with hidden information), the
 *  field from the public position record, the setup phase guessed from it and the moves. */
export function viewBoard(ctx, seat, toAct) {
  const raw = ctx.view.board ?? {};
  if (raw.ships) return raw;
  const b = boardFromPosition(ctx.view.position ?? "");
  const homes = homeLevels(b, ctx.moves ?? []);
  let phase = ctx.view.phase ?? ""; // the platform's: seeding, setup, play, ended
  if (phase === "play" && seat !== null && toAct.includes(seat)) {
    if (!homes && !b.ships.length) phase = "levels";
    else if (homes && !b.ships.some((s) => s.player === seat + 1)) phase = "place";
  }
  return { ...b, phase, home_levels: homes };
}

export function render(root, ctx) {
  const seat = ctx.seat ?? null;
  const toAct = ctx.view.to_act ?? [];
  const b = viewBoard(ctx, seat, toAct);
  const variant = b.variant ?? ctx.view.variant ?? "";
  const settings = variantSettings(variant);
  const full = settings.ruleset === "full";
  const homes = homeLevels(b, ctx.moves ?? []);
  const field = fieldOf(b);
  const placing = b.phase === "place" && seat !== null && toAct.includes(seat) && homes !== null;
  const counts = fleetCounts(variant);
  const key = `${variant}|${seat}|${homes?.[seat ?? 0]}`;
  if (!placing) editor.key = null;
  else if (editor.key !== key) Object.assign(editor, { key, pieces: [], kind: "C", note: "" });
  if (placing) {
    for (const p of editor.pieces) Object.assign(field.get(p.at), { draft: p.kind, draftPlayer: seat + 1 });
  }
  const last = lastCells(ctx.moves ?? [], LAST);
  const { board, cells } = drawBoard(field, { homes, seat, last, definition: settings.core_definition });
  const line = status(b, seat, toAct);
  const extra = [];
  if (seat !== null) {
    const mine = homes ? `, home levels ${homes[seat].join(" and ")}` : "";
    extra.push(h("p", { class: "yavoch-you" }, h("span", { class: `p${seat + 1}` }, `You are Player ${seat + 1}`), mine, "."));
  }
  if (line) extra.push(h("p", { class: "yavoch-status" }, line));
  if (b.draw_offer !== null && b.draw_offer !== undefined && b.phase !== "ended") {
    extra.push(h("p", { class: "yavoch-status" }, `Player ${b.draw_offer + 1} offers a draw.`));
  }
  root.replaceChildren(board, legendLine(full), ...extra);
  if (placing) {
    placementEditor(root, ctx, { cells, homes, seat, counts, variant });
    return;
  }
  const { moves, groups } = classify(ctx.legal ?? []);
  const choose = (options) => options.find((t) => t.endsWith("/M") === layMine) ?? options[0];
  twoClicks(root, cells, moves, (text) => {
    layMine = false;
    return ctx.act(text);
  }, choose);
  const parts = panel(ctx, b, field, groups, moves);
  if (full || (b.hands ?? []).some((hand) => hand.length)) parts.push(cardsPanel(b, seat));
  if (parts.length) root.append(h("div", { class: "yavoch-panel" }, parts));
}

// -- the placement editor (Y-3.2) ----------------------------------------------------------------

function placementEditor(root, ctx, { cells, homes, seat, counts }) {
  const levels = homes[seat];
  const redraw = (focus) => {
    render(root, ctx);
    if (focus) root.querySelector(`[data-cell="${focus}"]`)?.focus();
  };
  const nextKind = () => {
    const left = remaining(editor.pieces, counts);
    if (editor.kind && left[editor.kind] > 0) return;
    editor.kind = FLEET_ORDER.find((k) => left[k] > 0) ?? null;
  };
  const click = (name) => {
    editor.note = "";
    const i = editor.pieces.findIndex((p) => p.at === name);
    if (i >= 0) {
      editor.kind = editor.pieces[i].kind; // taking a piece back: place it again next
      editor.pieces.splice(i, 1);
    } else if (!levels.includes(Number(name[0]))) {
      editor.note = `Y-3.1: ${name} is not on your home levels ${levels[0]} and ${levels[1]}.`;
    } else if (cellsTaken(ctx, name)) {
      editor.note = `Y-3.2: ${name} is taken.`;
    } else if (!editor.kind || remaining(editor.pieces, counts)[editor.kind] <= 0) {
      const left = remaining(editor.pieces, counts);
      editor.note = FLEET_ORDER.some((k) => left[k] > 0)
        ? `No ${KIND_NAMES[editor.kind] ?? "piece"} left to place: choose another piece.`
        : "Every piece is placed: click a placed piece to take it back.";
    } else {
      editor.pieces.push({ kind: editor.kind, at: name });
      nextKind();
    }
    redraw(name);
  };
  for (const [name, el] of cells) {
    if (!levels.includes(Number(name[0]))) continue;
    el.classList.add("placeable");
    pressable(el, () => click(name));
  }
  const left = remaining(editor.pieces, counts);
  const palette = h("div", { class: "yavoch-palette", role: "group", "aria-label": "pieces to place" },
    FLEET_ORDER.filter((k) => counts[k] > 0).map((k) => h("button", {
      type: "button", "data-kind": k, "aria-pressed": String(editor.kind === k),
      onclick: () => { editor.kind = k; editor.note = ""; redraw(); },
    }, `${KIND_NAMES[k]} (${k}): ${Math.max(left[k], 0)} of ${counts[k]} left`)));
  const problem = checkPlacement(editor.pieces, levels, counts);
  const text = placementText(editor.pieces);
  const check = problem
    ? h("p", { class: "yavoch-check", role: "status" },
        h("a", { href: `/rules/yavoch#${problem.clause}`, target: "_blank" }, problem.clause), `: ${problem.reason}`)
    : h("p", { class: "yavoch-check ok", role: "status" }, "Your whole fleet is placed: ", h("code", {}, text));
  const controls = h("div", { class: "row" },
    h("button", { type: "button", onclick: () => {
      editor.pieces = randomPlacement(levels, counts);
      editor.kind = null;
      editor.note = "";
      redraw();
    } }, "Random placement"),
    h("button", { type: "button", onclick: () => {
      Object.assign(editor, { pieces: [], kind: "C", note: "" });
      nextKind();
      redraw();
    } }, "Clear"),
    h("button", { type: "button", class: "place-fleet", disabled: problem !== null,
                  onclick: () => ctx.act(text) }, "Place my fleet"));
  root.append(h("div", { class: "yavoch-panel" }, group("Place your fleet",
    `Y-3.2: every piece on its own position of your home levels ${levels[0]} and ${levels[1]}. `
    + "Choose a piece, then click a free position of your home levels; click a placed piece to take "
    + "it back. Gates pair up two by two in the order placed.",
    palette, editor.note ? h("p", { class: "error", role: "alert" }, editor.note) : null, check, controls)));
}

/** A position already holding something on the field (the opponent's placed fleet never is on
 *  your home levels, but a set position might be). */
function cellsTaken(ctx, name) {
  const b = ctx.view.board ?? {};
  return [b.ships, b.gates, b.mines].some((list) => (list ?? []).some((p) => p.at === name));
}
