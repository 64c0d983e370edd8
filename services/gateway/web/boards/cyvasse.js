// Cyvasse (docs/rules/cyvasse.md): the square boards (8x8, 10x10, CY-1.1) and the hex board
// (hex91, CY-1.2) drawn from the position record (CY-1.3.5), terrain of version C included;
// and the hidden setup (CY-3), checked here in the order and words of domain/cyvasse/setup.py
// (parse_setup) before it is committed, and encoded as encode_setup encodes it. Cells are named
// as the notation names them (`d4`, hex `f6`). The pure functions are exported (and touch no
// DOM) so that they can be checked outside a browser.
import { canonicalJson } from "../fairplay.js";
import { pressable, svg, twoClicks } from "./common.js";

// -- the men, the tiles and the boards (domain/cyvasse/board.py, terrain.py) -----------------

const LETTERS = "KDTEHCLSRM"; // CY-1.3.1: kinds 1..10 in the engine's order
const NAMES = { K: "King", D: "Dragon", T: "Trebuchet", E: "Elephant", H: "Heavy Horse",
                C: "Crossbowmen", L: "Light Horse", S: "Spears", R: "Rabble", M: "Mountain" };
const COUNT = { K: 1, D: 1, T: 2, E: 2, H: 2, C: 2, L: 2, S: 4, R: 4, M: 6 }; // CY-2.1
// CY-1.3.2: the tile letters (B, burning, only in position records) and their names.
const TILE_NAMES = { H: "Hills", W: "Water", F: "Forest", X: "Fortress", B: "burning Wildfyre" };
const TILE_LABELS = { H: "Hills", W: "Water", F: "Forest", X: "Fortress", B: "Burning (Wildfyre)" };
// CY-2.3, CY-R50: tiles per side, in the engine's order (Fortress, Hills, Water, Forest).
const TILES = {
  square8: [["X", 1], ["H", 4], ["W", 4], ["F", 7]],
  square10: [["X", 1], ["H", 5], ["W", 5], ["F", 9]],
  hex91: [["X", 1], ["H", 4], ["W", 4], ["F", 7]],
};
const BOARDS = { square8: 8, square10: 10, hex91: 11 };
const FILES = "abcdefghijk";
const SIDES = ["White", "Black"];
const SQUARE_RE = /^([a-k])(1[01]|[1-9])$/; // board.py SQUARE_RE
const CELL = "[a-k](?:1[01]|[1-9])";
const MOVE_RE = new RegExp(`^(${CELL})([-x*])(${CELL})(?:=([A-Z]))?$`);
const SINGLE_RE = new RegExp(`^(D|ruin)@(${CELL})$`);

/** The configuration a variant string names (domain/cyvasse/variant.py): what the board and
 * the setup need of it. "" is version A on square8. */
export function parseVariant(text) {
  const cfg = { version: "A", board: "square8", dragonReserve: false, seaMovement: false };
  for (const raw of String(text ?? "").split("+")) {
    const item = raw.trim();
    const [key, value] = item.includes("=") ? item.split("=", 2) : [item, "true"];
    if (["A", "B", "C"].includes(item)) cfg.version = item;
    else if (item in BOARDS) cfg.board = item;
    else if (key === "version" && ["A", "B", "C"].includes(value)) cfg.version = value;
    else if (key === "board" && value in BOARDS) cfg.board = value;
    else if (key === "dragon-reserve") cfg.dragonReserve = value === "true";
    else if (key === "sea-movement") cfg.seaMovement = value === "true";
  }
  cfg.terrain = cfg.version === "C";
  return cfg;
}

const geometries = new Map();

/**
 * The cells of a board as domain/cyvasse/board.py `geometry` indexes them: square cell
 * y * n + x; hex cell (a, b) by band t = a + b, then a. `halves` are the placement areas
 * (CY-1.1.2, CY-1.2.4), `orthogonal` the orthogonal neighbours, `sea` the neighbouring ports.
 */
export function geometry(board) {
  if (geometries.has(board)) return geometries.get(board);
  const hex = board === "hex91";
  let cells;
  let vectors;
  let halves;
  const n = BOARDS[board] ?? 8;
  if (hex) {
    cells = [];
    for (let a = 0; a < 11; a++) {
      for (let b = 0; b < 11; b++) if (Math.abs(a - b) <= 5) cells.push([a, b]);
    }
    cells.sort((p, q) => p[0] + p[1] - (q[0] + q[1]) || p[0] - q[0]);
    vectors = [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [-1, -1]];
    halves = [cells.map(([a, b], s) => (a + b <= 8 ? s : -1)).filter((s) => s >= 0),
              cells.map(([a, b], s) => (a + b >= 12 ? s : -1)).filter((s) => s >= 0)];
  } else {
    cells = Array.from({ length: n * n }, (_, s) => [s % n, Math.floor(s / n)]);
    vectors = [[1, 0], [-1, 0], [0, 1], [0, -1]];
    const half = (n * n) / 2;
    halves = [[...Array(half).keys()], [...Array(half).keys()].map((s) => s + half)];
  }
  const index = new Map(cells.map(([x, y], s) => [`${x},${y}`, s]));
  const names = cells.map(([x, y]) => `${FILES[x]}${y + 1}`);
  const orthogonal = cells.map(([x, y]) =>
    vectors.map(([dx, dy]) => index.get(`${x + dx},${y + dy}`)).filter((t) => t !== undefined));
  const sea = cells.map(() => []);
  if (hex) { // CY-1.2.8: the coast a1 - f1 - k6 - k11 - f11 - a6
    const ports = [[0, 0], [5, 0], [10, 5], [10, 10], [5, 10], [0, 5]].map(([a, b]) =>
      index.get(`${a},${b}`));
    ports.forEach((p, i) => { sea[p] = [ports[(i + 5) % 6], ports[(i + 1) % 6]]; });
  }
  const geo = {
    board: hex ? "hex91" : n === 10 ? "square10" : "square8", hex, n, size: cells.length,
    coords: cells, names, cellOf: new Map(names.map((name, s) => [name, s])),
    halves: halves.map((h) => new Set(h)), orthogonal, sea,
    label: hex ? "hex91 board" : `${n}x${n} board`,
  };
  geometries.set(board, geo);
  return geo;
}

/** board.py parse_square: the index of the cell named `text`, or undefined. */
function cellIndex(geo, text) {
  return typeof text === "string" && SQUARE_RE.test(text) ? geo.cellOf.get(text) : undefined;
}

/**
 * A CY-1.3.5 position record as {side, men: {cell: {seat, kind}}, terrain: {cell: letter},
 * reserve: [seats], storm: [{cell, seat, eligible}], quiet}. Lenient: it reads what the
 * engine writes (board.py format_position) and skips what it does not know.
 */
export function parsePosition(text) {
  const fields = {};
  for (const part of String(text ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at >= 0) fields[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  const words = (value) => String(value ?? "").split(/\s+/).filter(Boolean);
  const men = {};
  ["white", "black"].forEach((key, seat) => {
    for (const item of words(fields[key])) men[item.slice(1)] = { seat, kind: item[0] };
  });
  const terrain = {};
  for (const item of words(fields.terrain)) terrain[item.slice(1)] = item[0];
  const list = (value) => String(value ?? "-").split(",").map((x) => x.trim())
    .filter((x) => x && x !== "-");
  const reserve = list(fields.reserve).filter((x) => x === "w" || x === "b")
    .map((x) => "wb".indexOf(x));
  const storm = list(fields.storm).map((entry) => {
    const [cell, side, eligible] = entry.split(":");
    return { cell, seat: "wb".indexOf(side), eligible: eligible === "1" };
  });
  return { side: fields.side === "b" ? 1 : 0, men, terrain, reserve, storm,
           quiet: Number(fields.plies_since_progress ?? 0) };
}

/**
 * The server's legal actions sorted for the board (rules.py format_move): `moves` {text:
 * [from, to]} for twoClicks (`-`, `x`, `*`, promotions), `singles` {cell: [texts]} for the
 * one-cell actions (`D@c3`, `ruin@b4`) and whether `pass` is among them.
 */
export function parseActions(legal) {
  const moves = {};
  const singles = {};
  let pass = false;
  for (const text of legal ?? []) {
    const m = MOVE_RE.exec(text);
    if (m) {
      moves[text] = [m[1], m[3]];
      continue;
    }
    const d = SINGLE_RE.exec(text);
    if (d) (singles[d[2]] ??= []).push(text);
    else if (text === "pass") pass = true;
  }
  return { moves, singles, pass };
}

/** Of the actions sharing one from and to cell: the plain displacement capture, else the
 * first (the server lists the plain move before its promotion). */
export function chooseAction(options) {
  return options.find((t) => /^[a-k]\d+x[a-k]\d+$/.test(t)) ?? options[0];
}

/** The cells of the last board action of the move list (a move's two, a drop's or ruin's
 * one; none after a pass). Commands (draw offers...) are skipped. */
export function lastMoveCells(moves) {
  for (let i = (moves ?? []).length - 1; i >= 0; i--) {
    const text = moves[i];
    const m = MOVE_RE.exec(text);
    if (m) return [m[1], m[3]];
    const d = SINGLE_RE.exec(text);
    if (d) return [d[2]];
    if (text === "pass") return [];
  }
  return [];
}

// -- the setup rules (domain/cyvasse/setup.py) ------------------------------------------------

/** The letters a player places (CY-2.1, CY-3.3), in the engine's order: 26, or 25 without the
 * Dragon in reserve. */
export function army(cfg) {
  const kinds = [];
  for (const letter of LETTERS) {
    if (letter === "D" && cfg.dragonReserve) continue;
    for (let i = 0; i < COUNT[letter]; i++) kinds.push(letter);
  }
  return kinds;
}

/** CY-3.4 (setup.py sealed): the cells cut off from the largest orthogonal component once
 * `mountains` (a set of cell indexes) are removed, sorted; [] when the Mountain rule holds. */
export function sealed(geo, mountains) {
  const seen = new Set(mountains);
  const components = [];
  for (let root = 0; root < geo.size; root++) {
    if (seen.has(root)) continue;
    seen.add(root);
    const component = [root];
    for (let i = 0; i < component.length; i++) {
      for (const t of geo.orthogonal[component[i]]) {
        if (!seen.has(t)) {
          seen.add(t);
          component.push(t);
        }
      }
    }
    components.push(component);
  }
  let largest = 0;
  components.forEach((c, i) => { if (c.length > components[largest].length) largest = i; });
  return components.filter((_, i) => i !== largest).flat().sort((a, b) => a - b);
}

function mountainProblem(geo, mountains) {
  const cut = sealed(geo, mountains);
  if (!cut.length) return null;
  const cutSet = new Set(cut);
  const walls = [...mountains].filter((m) => geo.orthogonal[m].some((t) => cutSet.has(t)))
    .sort((a, b) => a - b);
  const names = walls.map((s) => geo.names[s]).join(", ");
  const closed = cut.map((s) => geo.names[s]).join(", ");
  return `mountains at ${names} close ${closed} off from orthogonal movement (a pass must remain)`;
}

function halfProblem(geo, seat, name) {
  const side = SIDES[seat];
  if (geo.hex) {
    const bands = seat ? "bands a+b >= 12" : "bands a+b <= 8";
    return ["CY-3.2", `${name} is outside ${side}'s placement zone (${bands}; bands 9-11 are `
                      + "no-man's-land) [CY-R47]"];
  }
  let ranks = geo.n === 8 ? "1-4" : "1-5";
  if (seat) ranks = geo.n === 8 ? "5-8" : "6-10";
  return ["CY-3.2", `${name} is outside ${side}'s half (ranks ${ranks}) [CY-R01]`];
}

/** Python's repr of a string or other JSON value, as the engine's messages quote it. */
function pyRepr(value) {
  if (value === null) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value !== "string") return JSON.stringify(value);
  return value.includes("'") && !value.includes('"') ? `"${value}"` : `'${value.replace(/'/g, "\\'")}'`;
}

function noSquare(geo, name) {
  return [geo.hex ? "CY-1.2.2" : "CY-1.1.1", `${pyRepr(name)} is not a square of the ${geo.label}`];
}

const sortedEntries = (obj) => Object.keys(obj).sort().map((k) => [k, obj[k]]);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** CY-1.3.4: the shape of a setup object ({"men": {...}}, in C with "terrain"). */
function shapeProblem(cfg, obj) {
  const keys = cfg.terrain ? ["men", "terrain"] : ["men"];
  if (!isObject(obj) || Object.keys(obj).sort().join() !== keys.join()
      || !keys.every((k) => isObject(obj[k]))) {
    if (cfg.terrain) {
      return ["CY-1.3.4", 'a version-C setup is a JSON object {"men": {"<square>": "<letter>", '
                          + '...}, "terrain": {"<square>": "<H|W|F|X>", ...}} [CY-R36]'];
    }
    return ["CY-1.3.4", 'a setup is a JSON object {"men": {"<square>": "<letter>", ...}}'];
  }
  return null;
}

/**
 * setup.py parse_setup on a decoded setup object: null if the engine accepts it, else
 * [clause, reason], the first problem in the engine's order and words (CY-1.3.4, CY-1.1.1 /
 * CY-1.2.2, CY-1.3.1, CY-3.2, CY-3.3 / CY-6.4.2, CY-3.4, CY-3.6.4, then version C's tiles:
 * CY-1.3.2, CY-3.2, CY-3.6.1, CY-3.6.2, CY-3.6.3).
 */
export function checkSetup(cfg, geo, seat, obj) {
  const shape = shapeProblem(cfg, obj);
  if (shape) return shape;
  const men = new Map(); // cell index -> letter
  const counts = {};
  for (const [name, letter] of sortedEntries(obj.men)) {
    const s = cellIndex(geo, name);
    if (s === undefined) return noSquare(geo, name);
    if (typeof letter !== "string" || letter.length !== 1 || !LETTERS.includes(letter)) {
      return ["CY-1.3.1", `${pyRepr(letter)} on ${name} is not a man's letter (${LETTERS})`];
    }
    if (!geo.halves[seat].has(s)) return halfProblem(geo, seat, name);
    men.set(s, letter);
    counts[letter] = (counts[letter] ?? 0) + 1;
  }
  const expected = {};
  for (const letter of army(cfg)) expected[letter] = (expected[letter] ?? 0) + 1;
  for (const letter of LETTERS) {
    const placed = counts[letter] ?? 0;
    const wanted = expected[letter] ?? 0;
    if (placed !== wanted) {
      if (letter === "D" && cfg.dragonReserve) {
        return ["CY-6.4.2", "with dragon-reserve the Dragon is not placed in the setup"];
      }
      return ["CY-3.3", `${placed} ${NAMES[letter]} placed; all ${wanted} must be placed [CY-R03]`];
    }
  }
  const peaks = [...men].filter(([, k]) => k === "M").map(([s]) => s).sort((a, b) => a - b);
  const problem = mountainProblem(geo, new Set(peaks));
  if (problem) return ["CY-3.4", `${problem} [CY-R04]`];
  if (cfg.seaMovement) {
    const ported = peaks.filter((s) => geo.sea[s].length).map((s) => geo.names[s]);
    if (ported.length) {
      return ["CY-3.6.4", `with sea-movement no Mountain may stand on a port (${ported.join(", ")}) `
                          + "[CY-R58]"];
    }
  }
  if (!cfg.terrain) return null;
  const tiles = new Map(); // cell index -> tile letter
  for (const [name, letter] of sortedEntries(obj.terrain)) {
    const s = cellIndex(geo, name);
    if (s === undefined) return noSquare(geo, name);
    if (typeof letter !== "string" || letter.length !== 1 || !"HWFX".includes(letter)) {
      return ["CY-1.3.2", `${pyRepr(letter)} on ${name} is not a tile letter (H Hills, W Water, `
                          + "F Forest, X Fortress; Grassland is left out)"];
    }
    if (!geo.halves[seat].has(s)) return halfProblem(geo, seat, geo.names[s]);
    tiles.set(s, letter);
  }
  for (const [tile, count] of TILES[geo.board]) {
    const placed = [...tiles.values()].filter((t) => t === tile).length;
    if (placed !== count) {
      return ["CY-3.6.1", `${placed} ${TILE_NAMES[tile]} tiles placed; the ${geo.label} needs `
                          + `exactly ${count} per side (CY-2.3)`];
    }
  }
  const king = [...men].find(([, k]) => k === "K")[0];
  if (tiles.get(king) !== "X") {
    return ["CY-3.6.2", `the King must stand on its own Fortress, not on ${geo.names[king]} [CY-R58]`];
  }
  const wet = peaks.filter((s) => tiles.get(s) === "W").map((s) => geo.names[s]);
  if (wet.length) return ["CY-3.6.3", `no Mountain may stand on Water (${wet.join(", ")}) [CY-R58]`];
  return null;
}

/** parse_setup on setup bytes: the JSON and its one spelling (CY-1.3.4), then checkSetup. */
export function checkSetupBytes(cfg, geo, seat, bytes) {
  const text = new TextDecoder().decode(bytes);
  let obj;
  try {
    obj = JSON.parse(text);
  } catch (e) {
    return ["CY-1.3.4", `the setup is not JSON: ${e.message}`];
  }
  const shape = shapeProblem(cfg, obj);
  if (shape) return shape;
  if (canonicalJson(obj) !== text) {
    return ["CY-1.3.4", "the setup must be compact JSON with sorted keys, each key once"];
  }
  return checkSetup(cfg, geo, seat, obj);
}

/** The setup object (setup.py encode_setup's) of a placement {men, terrain} of cell names. */
export function setupObject(cfg, placement) {
  const obj = { men: { ...placement.men } };
  if (cfg.terrain) obj.terrain = { ...placement.terrain };
  return obj;
}

/** The setup bytes of a placement: compact JSON, keys sorted (msgspec order="sorted"). */
export function encodeSetup(cfg, placement) {
  return new TextEncoder().encode(canonicalJson(setupObject(cfg, placement)));
}

/** A uniform integer in 0..n-1 (WebCrypto). */
export function randomBelow(n) {
  const limit = Math.floor(0x100000000 / n) * n;
  const word = new Uint32Array(1);
  do crypto.getRandomValues(word); while (word[0] >= limit);
  return word[0] % n;
}

function shuffled(items, choose) {
  const order = [...items];
  for (let i = order.length - 1; i > 0; i--) { // Fisher-Yates, as setup.py
    const j = choose(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

// setup.py _FALLBACK: a Mountain set valid by CY-3.4 (the hex one avoids the ports).
const FALLBACK = {
  square8: ["b1", "d1", "f1", "h1", "b3", "e3"],
  square10: ["b1", "d1", "f1", "h1", "b3", "e3"],
  hex91: ["b1", "d1", "a3", "c3", "e3", "b5"],
};

/**
 * A legal placement {men: {cell: letter}, terrain: {cell: letter}} made as setup.py
 * random_placement makes it (random_men, then random_terrain in version C), every choice
 * `choose(n)`: with the same choices it is the engine's placement.
 */
export function randomPlacement(cfg, geo, seat, choose = randomBelow) {
  const squares = [...geo.halves[seat]].sort((a, b) => a - b);
  const kinds = army(cfg);
  let men = null;
  for (let attempt = 0; attempt < 64 && !men; attempt++) {
    const order = shuffled(squares, choose);
    const placement = new Map(kinds.map((k, i) => [order[i], k]));
    const peaks = [...placement].filter(([, k]) => k === "M").map(([s]) => s);
    if (cfg.seaMovement && peaks.some((s) => geo.sea[s].length)) continue; // CY-3.6.4
    if (!sealed(geo, new Set(peaks)).length) men = placement;
  }
  if (!men) {
    let mountains = FALLBACK[geo.board].map((name) => geo.cellOf.get(name));
    if (seat) mountains = mountains.map((s) => geo.size - 1 - s);
    const rest = squares.filter((s) => !mountains.includes(s));
    const others = kinds.filter((k) => k !== "M");
    men = new Map(others.map((k, i) => [rest[i], k]));
    for (const s of mountains) men.set(s, "M");
  }
  const tiles = new Map();
  if (cfg.terrain) { // random_terrain: Fortress under the King, Water not under a Mountain
    const king = [...men].find(([, k]) => k === "K")[0];
    const free = shuffled(squares.filter((s) => s !== king), choose);
    const counts = Object.fromEntries(TILES[geo.board]);
    const wet = free.filter((s) => men.get(s) !== "M").slice(0, counts.W);
    const rest = free.filter((s) => !wet.includes(s));
    tiles.set(king, "X");
    for (const s of wet) tiles.set(s, "W");
    const others = TILES[geo.board].filter(([t]) => t !== "X" && t !== "W")
      .flatMap(([t, count]) => Array(count).fill(t));
    others.forEach((t, i) => { if (i < rest.length) tiles.set(rest[i], t); });
  }
  const named = (map) => Object.fromEntries([...map].map(([s, v]) => [geo.names[s], v]));
  return { men: named(men), terrain: named(tiles) };
}

// -- drawing ---------------------------------------------------------------------------------

const SQ = 40; // a square's side
const HR = 22; // a hex cell's radius (centre to corner)
const H3 = Math.sqrt(3);
const PAD = 20; // room for the labels

/**
 * Where each cell is drawn: {x, y} its centre and the shape's attributes, own side at the
 * bottom (`flip` for Black), plus the viewBox size. Hex cells are flat-topped, one row per
 * band (CY-1.2.9): (a, b) at column a - b, White's corner a1 at the bottom.
 */
export function layout(geo, flip) {
  const places = [];
  if (geo.hex) {
    for (const [a, b] of geo.coords) {
      let c = a - b;
      let t = a + b;
      if (flip) [c, t] = [-c, 20 - t];
      const x = PAD + HR + (c + 5) * 1.5 * HR;
      const y = PAD / 2 + (H3 / 2) * HR * (21 - t);
      places.push({ x, y, points: hexPoints(x, y, HR), inner: hexPoints(x, y, HR - 2.5) });
    }
    return { places, width: 2 * PAD + 17 * HR, height: PAD + 11 * H3 * HR + 4 };
  }
  const n = geo.n;
  for (const [fx, ry] of geo.coords) {
    const col = flip ? n - 1 - fx : fx;
    const row = flip ? ry : n - 1 - ry;
    const x0 = PAD + col * SQ;
    const y0 = PAD / 2 + row * SQ;
    places.push({ x: x0 + SQ / 2, y: y0 + SQ / 2, rect: { x: x0, y: y0, width: SQ, height: SQ } });
  }
  return { places, width: PAD * 1.5 + n * SQ, height: PAD * 1.5 + n * SQ };
}

function hexPoints(x, y, r) {
  return Array.from({ length: 6 }, (_, i) => {
    const angle = (Math.PI / 3) * i;
    return `${(x + r * Math.cos(angle)).toFixed(2)},${(y + r * Math.sin(angle)).toFixed(2)}`;
  }).join(" ");
}

/** The ground colour class of a cell: its tile, else the board's colouring (squares light and
 * dark, a1 dark; hex cells one of three colours by band, CY-1.2.5). */
function groundClass(geo, s, tile) {
  if (tile) return `t-${tile}`;
  const [a, b] = geo.coords[s];
  if (geo.hex) return ["light", "mid", "dark"][(a + b) % 3];
  return (a + b) % 2 === 0 ? "dark" : "light";
}

function noMansLand(geo, s) {
  return geo.hex && !geo.halves[0].has(s) && !geo.halves[1].has(s);
}

/** A board's frame: the svg with its labels, screen line and one <g class="cell"> per cell
 * holding its ground shape and a highlight overlay; `content(s, g, place)` adds the rest. */
function drawBoard(geo, flip, label, content, { ports = false } = {}) {
  const { places, width, height } = layout(geo, flip);
  const board = svg("svg", { viewBox: `0 0 ${width.toFixed(1)} ${height.toFixed(1)}`,
                             class: `board cyvasse ${geo.board}`, role: "group",
                             "aria-label": label });
  const cells = new Map();
  geo.names.forEach((name, s) => {
    const place = places[s];
    const g = svg("g", { "data-cell": name, class: "cell" });
    content(s, g, place);
    cells.set(name, g);
    board.append(g);
    if (ports && geo.sea[s].length) { // CY-1.2.8, with sea-movement
      g.append(svg("text", { x: place.x + HR * 0.74, y: place.y + 3, class: "port" }, "⚓"));
    }
  });
  if (geo.hex) {
    for (const [s, place] of places.entries()) { // the names: no edge labels on a hexagon
      cells.get(geo.names[s]).append(svg("text", { x: place.x, y: place.y - HR * 0.58,
                                                   class: "name" }, geo.names[s]));
    }
    const y = places[geo.cellOf.get("f6")].y; // band 10, the screen (CY-1.2.4)
    board.append(svg("line", { x1: PAD, x2: width - PAD, y1: y, y2: y, class: "screen" }));
  } else {
    const n = geo.n;
    for (let i = 0; i < n; i++) {
      const file = flip ? n - 1 - i : i;
      const rank = flip ? i + 1 : n - i;
      board.append(svg("text", { x: PAD + i * SQ + SQ / 2, y: PAD / 2 + n * SQ + 14,
                                 class: "label" }, FILES[file]));
      board.append(svg("text", { x: PAD / 2, y: PAD / 2 + i * SQ + SQ / 2 + 4, class: "label" },
                       String(rank)));
    }
    const y = PAD / 2 + (n / 2) * SQ; // the screen between the halves (CY-1.1.2)
    board.append(svg("line", { x1: PAD - 4, x2: PAD + n * SQ + 4, y1: y, y2: y, class: "screen" }));
  }
  return { board, cells };
}

/** The ground shape and highlight overlay of a cell. */
function ground(geo, s, g, place, tile) {
  const cls = `ground ${groundClass(geo, s, tile)}${noMansLand(geo, s) ? " nml" : ""}`;
  if (place.rect) {
    const r = place.rect;
    g.append(svg("rect", { ...r, class: cls }),
             svg("rect", { x: r.x + 1.5, y: r.y + 1.5, width: r.width - 3, height: r.height - 3,
                           class: "hl" }));
  } else {
    g.append(svg("polygon", { points: place.points, class: cls }),
             svg("polygon", { points: place.inner, class: "hl" }));
  }
  if (tile) { // the tile's letter too, so that no colour has to be told apart
    const x = place.rect ? place.rect.x + 7 : place.x - HR * 0.76;
    const y = place.rect ? place.rect.y + 11 : place.y + 3;
    g.append(svg("text", { x, y, class: "tile" }, tile));
  }
}

/** A man: a letter in a circle (White light, Black dark), a Mountain a triangle. */
function man(g, place, seat, kind) {
  const colour = seat === 0 ? "white" : "black";
  const r = place.rect ? 14 : HR * 0.55;
  const { x, y } = place;
  if (kind === "M") {
    const h = r * 1.05;
    g.append(svg("polygon", { points: `${x},${y - h} ${x + h * 1.1},${y + h * 0.75} `
                                      + `${x - h * 1.1},${y + h * 0.75}`,
                              class: `mountain ${colour}` }));
    return;
  }
  const group = svg("g", { class: `man ${colour}` });
  group.append(svg("circle", { cx: x, cy: y, r }),
               svg("text", { x, y: y + r * 0.38, style: `font-size:${(r * 1.05).toFixed(1)}px` },
                   kind));
  g.append(group);
}

function cellLabel(name, occupant, tile, withTerrain, extra = "") {
  let label = `${name}: ${occupant ? `${SIDES[occupant.seat]} ${NAMES[occupant.kind] ?? occupant.kind}`
                                   : "empty"}`;
  if (withTerrain) label += `, ${tile ? TILE_LABELS[tile] ?? tile : "Grassland"}`;
  return label + extra;
}

function legend(cfg, geo) {
  const p = document.createElement("p");
  p.className = "cy-legend";
  const men = LETTERS.split("").filter((l) => l !== "M").map((l) => `${l} ${NAMES[l]}`).join(", ");
  p.append(`Men: ${men}; ▲ Mountain. White light, Black dark.`);
  if (cfg.terrain) {
    p.append(" Terrain (letter in the corner):");
    for (const t of ["H", "W", "F", "X", "B"]) {
      const swatch = document.createElement("span");
      swatch.className = `cy-swatch t-${t}`;
      swatch.setAttribute("aria-hidden", "true");
      p.append(" ", swatch, `${t} ${TILE_LABELS[t]}`);
    }
    p.append("; other squares Grassland.");
  }
  if (geo.hex) p.append(" The dashed line is the screen (band 10); bands 9-11 are no-man's-land.");
  if (geo.hex && cfg.seaMovement) p.append(" ⚓ port (sea movement).");
  return p;
}

/**
 * The board from ctx.view.position, drawn from the seat's side, with two-click input over the
 * server's legal moves and one-click input for `D@cell` and `ruin@cell`.
 */
export function render(root, ctx) {
  const cfg = parseVariant(ctx.view.variant);
  const geo = geometry(cfg.board);
  const pos = parsePosition(ctx.view.position);
  const flip = ctx.seat === 1;
  const last = lastMoveCells(ctx.moves);
  const stormAt = new Map(pos.storm.map((e) => [e.cell, e]));
  const title = `Cyvasse board (${geo.label}), ${SIDES[flip ? 1 : 0]} at the bottom`;
  const { board, cells } = drawBoard(geo, flip, title, (s, g, place) => {
    const name = geo.names[s];
    const tile = pos.terrain[name];
    ground(geo, s, g, place, tile);
    const occupant = pos.men[name];
    if (occupant) man(g, place, occupant.seat, occupant.kind);
    if (last.includes(name)) g.classList.add("last");
    const storm = stormAt.get(name);
    const extra = storm ? `, stormed by ${SIDES[storm.seat]}${storm.eligible ? " (may ruin it)" : ""}`
                        : "";
    const label = cellLabel(name, occupant, tile, cfg.terrain, extra);
    g.append(svg("title", {}, label));
    g.setAttribute("aria-label", label);
  }, { ports: cfg.seaMovement });
  const info = document.createElement("p");
  info.className = "cy-info";
  const reserve = pos.reserve.map((seat) => SIDES[seat]).join(", ");
  if (reserve) info.append(`Dragon in reserve: ${reserve}. `);
  for (const e of pos.storm) {
    info.append(`${SIDES[e.seat]} storms ${e.cell} (${e.eligible ? "may ruin it" : "must survive one turn"}). `);
  }
  if (ctx.view.board?.in_check) info.append("Check! ");
  const { moves, singles, pass } = parseActions(ctx.legal);
  const oneCell = Object.entries(singles).filter(([cell, texts]) => texts.length === 1
                                                                   && cells.has(cell));
  const drops = oneCell.filter(([, [t]]) => t.startsWith("D@")).map(([cell]) => cell);
  const ruins = oneCell.filter(([, [t]]) => t.startsWith("ruin@")).map(([cell]) => cell);
  if (drops.length) info.append(`Bring in your Dragon: click a highlighted empty cell (D@…). `);
  for (const cell of ruins) info.append(`Ruin the Fortress on ${cell}: click your man there twice (ruin@${cell}). `);
  const children = [board, legend(cfg, geo)];
  if (info.childNodes.length) children.push(info);
  if (pass) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "cy-pass";
    button.textContent = "Pass (no legal action)";
    button.addEventListener("click", () => ctx.act("pass"));
    const p = document.createElement("p");
    p.append(button);
    children.push(p);
  }
  root.replaceChildren(...children);
  oneClick(cells, new Map(oneCell.map(([cell, [text]]) => [cell, text])), moves, ctx.act);
  twoClicks(root, cells, moves, ctx.act, chooseAction);
  afterClicks(cells, oneCell.map(([cell]) => cell), moves);
}

/**
 * One-click actions (`D@cell`, `ruin@cell`), registered before twoClicks so that they see the
 * selection as it was: a cell's action is sent when no man is selected and the cell starts no
 * move (a drop; a stormer without moves), or when the cell's own man is selected already (the
 * second click on a stormer); otherwise the click belongs to twoClicks.
 */
function oneClick(cells, singles, moves, act) {
  const starts = new Set(Object.values(moves).map(([f]) => f));
  for (const [cell, text] of singles) {
    const node = cells.get(cell);
    const fire = () => {
      const selected = [...cells.values()].some((c) => c.classList.contains("selected"));
      if (node.classList.contains("selected") || (!selected && !starts.has(cell))) act(text);
    };
    node.addEventListener("click", fire);
    node.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") fire();
    });
    const label = `${node.getAttribute("aria-label")}; ${text}`;
    node.setAttribute("aria-label", label);
    node.querySelector("title").textContent = label;
  }
}

/** Marks the one-click cells that a click would act on now (class "single"), after each of
 * twoClicks' own updates. */
function afterClicks(cells, singleCells, moves) {
  const starts = new Set(Object.values(moves).map(([f]) => f));
  const paint = () => {
    const selected = [...cells.values()].some((c) => c.classList.contains("selected"));
    for (const cell of singleCells) {
      const node = cells.get(cell);
      node.classList.toggle("single", node.classList.contains("selected")
                                      || (!selected && !starts.has(cell)));
    }
  };
  for (const node of cells.values()) {
    node.addEventListener("click", paint);
    node.addEventListener("keydown", paint);
  }
  paint();
}

// -- the hidden setup screen -----------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v === true ? "" : v);
  }
  node.append(...children);
  return node;
}

/**
 * The hidden setup (CY-3): place every man (and, in version C, every tile) by clicks in the own
 * half or zone, or draw a random one; checked here as the engine will check it, and only then
 * committed. Resolves to the setup bytes (setup.py encode_setup's encoding).
 */
export function setup(root, ctx) {
  return new Promise((resolve) => {
    const cfg = parseVariant(ctx.view.variant);
    const geo = geometry(cfg.board);
    const seat = ctx.seat === 1 ? 1 : 0;
    const zone = geo.halves[seat];
    const placement = { men: {}, terrain: {} }; // cell name -> letter
    const items = [];
    for (const letter of LETTERS) {
      const count = army(cfg).filter((k) => k === letter).length;
      if (count) items.push({ layer: "men", letter, name: NAMES[letter], count });
    }
    if (cfg.terrain) {
      for (const [letter, count] of TILES[geo.board]) {
        items.push({ layer: "terrain", letter, name: TILE_NAMES[letter], count });
      }
    }
    let chosen = items[0];
    let done = false;
    const left = (item) => item.count
      - Object.values(placement[item.layer]).filter((l) => l === item.letter).length;

    const where = geo.hex
      ? (seat ? "bands 12-20" : "bands 0-8")
      : `ranks ${seat ? (geo.n === 8 ? "5-8" : "6-10") : (geo.n === 8 ? "1-4" : "1-5")}`;
    const palette = el("div", { class: "cy-palette", role: "group",
                                "aria-label": "Men and tiles to place" });
    const boardSlot = el("div", { class: "cy-setup-board" });
    const status = el("p", { class: "cy-check", role: "status", "aria-live": "polite" });
    const commit = el("button", { type: "button", class: "cy-commit", disabled: true,
                                  onclick: () => finish() }, "Commit my setup");
    const controls = [
      el("button", { type: "button", onclick: () => randomise() }, "Random setup"),
      el("button", { type: "button", onclick: () => clear() }, "Clear"),
    ];
    const notes = [];
    if (cfg.dragonReserve) notes.push("Your Dragon starts in reserve (CY-6.4.2): do not place it.");
    if (cfg.terrain) notes.push("Version C: lay every terrain tile too; your King stands on your Fortress, no Mountain on Water (CY-3.6).");
    if (cfg.seaMovement) notes.push("Sea movement: no Mountain on a port ⚓ (CY-3.6.4).");
    root.replaceChildren(el("section", { class: "cy-setup card", "aria-label": "Cyvasse setup" },
      el("h2", {}, `Your setup: ${SIDES[seat]}, ${geo.label}, ${where}`),
      el("p", {}, "Choose a man or tile below, then click cells of your own area (highlighted) to "
                  + "place it. Clicking a cell takes back what lies there in the layer you are "
                  + "placing (men or tiles). Your Mountains must leave every square reachable "
                  + "(CY-3.4). The opponent sees nothing until both setups are committed.",
         notes.length ? " " + notes.join(" ") : ""),
      palette, boardSlot, status, el("p", { class: "cy-buttons" }, ...controls, " ", commit)));

    function pick(item) {
      chosen = item;
      redraw({ item });
    }

    function advance() { // the next item with some left, from the current one on
      if (chosen && left(chosen) > 0) return;
      const at = items.indexOf(chosen);
      chosen = [...items.slice(at + 1), ...items.slice(0, at + 1)].find((i) => left(i) > 0) ?? null;
    }

    function clickCell(name) {
      if (done) return;
      const layer = chosen?.layer
        ?? (placement.men[name] ? "men" : placement.terrain[name] ? "terrain" : null);
      if (!layer) return;
      const there = placement[layer][name];
      if (there) { // take it back, ready to be placed again
        delete placement[layer][name];
        chosen = items.find((i) => i.layer === layer && i.letter === there);
      } else if (chosen && left(chosen) > 0) {
        placement[layer][name] = chosen.letter;
        advance();
      }
      redraw({ cell: name });
    }

    function randomise() {
      const made = randomPlacement(cfg, geo, seat);
      placement.men = made.men;
      placement.terrain = made.terrain;
      chosen = null;
      redraw();
    }

    function clear() {
      placement.men = {};
      placement.terrain = {};
      chosen = items[0];
      redraw();
    }

    function finish() {
      const bytes = encodeSetup(cfg, placement);
      const problem = checkSetupBytes(cfg, geo, seat, bytes);
      if (problem) { // cannot happen: the button is enabled only for a setup without one
        redraw();
        return;
      }
      done = true;
      for (const b of root.querySelectorAll("button")) b.disabled = true;
      status.textContent = "Committing your setup…";
      resolve(bytes);
    }

    function redraw(focus = {}) {
      palette.replaceChildren(...["men", "terrain"].filter((layer) =>
        items.some((i) => i.layer === layer)).map((layer) => el("span", { class: "cy-group" },
        `${layer === "men" ? "Men" : "Terrain"}: `,
        ...items.filter((i) => i.layer === layer).map((item) => {
          const n = left(item);
          const button = el("button", { type: "button", "aria-pressed": String(item === chosen),
                                        class: `cy-item${layer === "terrain" ? ` t-${item.letter}` : ""}`,
                                        title: `${n} of ${item.count} left to place`,
                                        onclick: () => pick(item) },
                            `${item.letter} ${item.name} `, el("small", {}, `${n}/${item.count}`));
          if (item === focus.item) queueMicrotask(() => button.focus());
          return button;
        }))));
      const { board, cells } = drawBoard(geo, seat === 1, `Your setup area (${where})`,
        (s, g, place) => {
          const name = geo.names[s];
          const tile = placement.terrain[name];
          ground(geo, s, g, place, tile);
          const letter = placement.men[name];
          if (letter) man(g, place, seat, letter);
          const label = cellLabel(name, letter ? { seat, kind: letter } : null, tile, cfg.terrain);
          g.append(svg("title", {}, label));
          g.setAttribute("aria-label", label);
          if (!zone.has(s)) {
            g.classList.add("off");
            return;
          }
          g.classList.add("zone");
          pressable(g, () => clickCell(name));
        }, { ports: cfg.seaMovement });
      boardSlot.replaceChildren(board, legend(cfg, geo));
      if (focus.cell) cells.get(focus.cell)?.focus();
      const problem = checkSetup(cfg, geo, seat, setupObject(cfg, placement));
      const remaining = items.reduce((sum, i) => sum + Math.max(0, left(i)), 0);
      if (problem) {
        const [clause, reason] = problem;
        status.className = "cy-check error";
        status.replaceChildren(
          remaining ? `${remaining} still to place. ` : "",
          "Not yet valid: ",
          el("a", { href: `/rules/cyvasse#${clause}`, target: "_blank" }, clause), `: ${reason}`);
      } else {
        status.className = "cy-check ok";
        status.textContent = "Valid setup: every rule the engine checks holds. Commit it when ready.";
      }
      commit.disabled = done || problem !== null;
    }

    redraw();
  });
}
