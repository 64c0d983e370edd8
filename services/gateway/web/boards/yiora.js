// Yiora: the round board, five rings (Y innermost to A outermost) by 36 columns, drawn as
// annular sectors (docs/rules/yiora.md#board). Column 1 is at the bottom on White's side and
// the numbers rise counter-clockwise (YI-1.2); a Black or Silver player sees the board turned
// half round, its own Overlord at the bottom. The men come from the view's games (both games
// of a Secondary variation: White and Black on the black squares, Gold and Silver on the
// white ones); the centre circle holds the men no longer on the board (YI-1.5). Squares are
// named as moves name them, compactly (`A19`); a move is sent as the server's legal action
// text, with its game's prefix in a Secondary variation (`bsq:O5-R10`, YI-1.7).
import { svg, twoClicks } from "./common.js";

const RINGS = "YIORA"; // ring 1 (innermost) to 5 (YI-1.1)
const COLUMNS = 36;
const SIZE = 600; // the viewBox: the board scales to any width
const C = SIZE / 2;
const CENTRE = 110; // the centre circle's radius (the men off the board)
const RING = 32; // the width of a ring
const STEP = 360 / COLUMNS;
const KINDS = { O: "overlord", M: "mage", P: "pawn" };
const ARMY = { O: 1, M: 4, P: 4 }; // each side's nine men (YI-2.1)
const GAME_NAMES = { bsq: "Black squares", wsq: "White squares" };
const SIDES = { bsq: ["White", "Black"], wsq: ["Gold", "Silver"] };
const SIDE_LETTERS = { W: "White", B: "Black", G: "Gold", S: "Silver" };
export const MOVE = /^(?:(bsq|wsq):)?([YIORA]\d{1,2})[-x]([YIORA]\d{1,2})$/i;
const DRAW = /^(?:(bsq|wsq):)?(offer|accept|decline)-draw$/;

/** The compact name of a square from its ring (1..5) and column (1..36). */
export const squareName = (ring, column) => `${RINGS[ring - 1]}${column}`;

/** Black when ring + column is even (YI-1.4, YI-R02). */
export const isBlack = (ring, column) => (ring + column) % 2 === 0;

/**
 * The games as the view's board shows them; if a view has no board (it always has), the same
 * read from the position (YI-1.8; a Secondary one is `bsq:… | wsq:…`).
 */
export function gamesOf(view) {
  if (Array.isArray(view.board?.games)) return view.board.games;
  return parsePosition(view.position ?? "");
}

export function parsePosition(text) {
  if (!text) return [];
  return text.split("|").map((part) => {
    const m = /^\s*(?:(bsq|wsq):)?([wbgs]) ([WG]):(\S*) ([BS]):(\S*)/.exec(part);
    if (!m) return null;
    const game = m[1] ?? "bsq";
    const men = [];
    for (const [letter, list] of [[m[3], m[4]], [m[5], m[6]]]) {
      for (const token of list.split(",").filter(Boolean)) {
        const t = /^([OMP])([YIORA])(\d{1,2})$/.exec(token);
        if (t) men.push({ square: `${t[2]}-${t[3]}`, ring: t[2], column: Number(t[3]),
                          side: SIDE_LETTERS[letter], piece: t[1], threatened: false });
      }
    }
    const turn = { w: 0, g: 0, b: 1, s: 1 }[m[2]];
    return { game, sides: SIDES[game], seats: [[], []], to_move: SIDES[game][turn], men,
             due: true, threatened: null, last_move: null, result: null, reason: null };
  }).filter(Boolean);
}

const compact = (square) => square.replace("-", "").toUpperCase();

/** The point at `radius` on the centre line of column `column` (math angles: y up). */
function point(radius, angle) {
  const a = (angle * Math.PI) / 180;
  return [C + radius * Math.cos(a), C - radius * Math.sin(a)];
}

const fmt = (n) => n.toFixed(2);

/** An annular sector: from radius r1 to r2, from angle a1 to a2 (counter-clockwise). */
function sector(r1, r2, a1, a2) {
  const [x1, y1] = point(r2, a1);
  const [x2, y2] = point(r2, a2);
  const [x3, y3] = point(r1, a2);
  const [x4, y4] = point(r1, a1);
  // SVG's y runs down: a counter-clockwise arc on the screen has sweep-flag 0
  return `M${fmt(x1)} ${fmt(y1)}A${r2} ${r2} 0 0 0 ${fmt(x2)} ${fmt(y2)}`
    + `L${fmt(x3)} ${fmt(y3)}A${r1} ${r1} 0 0 1 ${fmt(x4)} ${fmt(y4)}Z`;
}

/** A man's shape centred on (x, y) at scale `s`: a diamond Overlord (it steps diagonally), a
 * round Mage, a triangular Pawn; each with its letter, coloured by its side. */
function manShape(x, y, side, piece, s = 1, label = "") {
  const g = svg("g", { class: `man ${side.toLowerCase()} ${KINDS[piece]}` });
  if (piece === "O") {
    const d = 11 * s;
    g.append(svg("polygon", { points: `${fmt(x)},${fmt(y - d)} ${fmt(x + d)},${fmt(y)} `
                                      + `${fmt(x)},${fmt(y + d)} ${fmt(x - d)},${fmt(y)}` }));
  } else if (piece === "M") {
    g.append(svg("circle", { cx: fmt(x), cy: fmt(y), r: fmt(8.5 * s) }));
  } else {
    const h = 9.5 * s;
    g.append(svg("polygon", { points: `${fmt(x)},${fmt(y - h)} ${fmt(x + h)},${fmt(y + h * 0.75)} `
                                      + `${fmt(x - h)},${fmt(y + h * 0.75)}` }));
  }
  if (s >= 0.9) {
    g.append(svg("text", { x: fmt(x), y: fmt(y + (piece === "P" ? 5 : 3.3) * s),
                           "font-size": fmt(9.5 * s) }, piece));
  }
  if (label) g.append(svg("title", {}, label));
  return g;
}

/** The sides `seat` plays: [[game, side index], …]. */
function sidesOf(games, seat) {
  if (seat === null || seat === undefined) return [];
  const out = [];
  for (const g of games) {
    (g.seats ?? []).forEach((seats, side) => {
      if (seats.includes(seat)) out.push([g, side]);
    });
  }
  return out;
}

export function render(root, ctx) {
  const view = ctx.view;
  const games = gamesOf(view);
  const secondary = games.length > 1 || view.board?.variation?.startsWith("secondary");
  const mine = sidesOf(games, ctx.seat);
  // Black and Silver see their own side at the bottom: the board turned half round
  const flip = mine.length > 0 && mine.every(([, side]) => side === 1);
  const turn = flip ? 180 : 0;
  const angle = (column) => -90 + (column - 1) * STEP + turn;
  const active = document.activeElement;
  const focused = root.contains(active) ? active.getAttribute?.("data-cell") : null;

  // who stands where, and what is marked
  const men = new Map(); // square -> {side, piece, threatened}
  const last = new Set();
  const threatened = new Set();
  for (const g of games) {
    for (const m of g.men ?? []) men.set(compact(m.square), m);
    const lm = g.last_move ? MOVE.exec(g.last_move) : null;
    if (lm) {
      last.add(lm[2].toUpperCase());
      last.add(lm[3].toUpperCase());
    }
    if (g.threatened) threatened.add(compact(g.threatened));
  }
  const bottom = flip ? "Black and Silver" : "White and Gold";
  const title = `Yiora board, five rings by 36 columns, ${bottom} at the bottom`;
  const board = svg("svg", { viewBox: `0 0 ${SIZE} ${SIZE}`, class: "board yiora", role: "group",
                             "aria-label": title });
  board.append(svg("circle", { cx: C, cy: C, r: CENTRE + 5 * RING + 2, class: "rim" }));
  const cells = new Map(); // the squares a game is played on: clickable
  for (let ring = 1; ring <= 5; ring++) {
    const r1 = CENTRE + (ring - 1) * RING;
    const r2 = r1 + RING;
    for (let column = 1; column <= COLUMNS; column++) {
      const name = squareName(ring, column);
      const black = isBlack(ring, column);
      const used = black || secondary; // Primary Basic uses the black squares only (YI-0.1)
      const a = angle(column);
      const kind = `cell ${black ? "sq-black" : "sq-white"}${used ? "" : " unused"}`;
      const g = svg("g", { "data-cell": name, class: kind });
      g.append(svg("path", { d: sector(r1, r2, a - STEP / 2, a + STEP / 2),
                             class: `sq ${black ? "dark" : "light"}` }));
      let label = `${name}: ${used ? "empty" : "not used"}`;
      const m = men.get(name);
      if (m) {
        const [x, y] = point((r1 + r2) / 2, a);
        const threat = threatened.has(name) || m.threatened;
        if (threat) g.append(svg("circle", { cx: fmt(x), cy: fmt(y), r: 14, class: "threat" }));
        g.append(manShape(x, y, m.side, m.piece));
        label = `${name}: ${m.side} ${KINDS[m.piece]}${threat ? ", threatened" : ""}`;
        if (threat) g.classList.add("threatened");
      }
      if (last.has(name)) g.classList.add("last");
      g.setAttribute("aria-label", label);
      g.append(svg("title", {}, label));
      if (used) cells.set(name, g);
      else g.setAttribute("aria-hidden", "true");
      board.append(g);
    }
  }
  // labels: every column outside ring A, the ring letters on four seams between columns
  const outer = CENTRE + 5 * RING;
  for (let column = 1; column <= COLUMNS; column++) {
    const [x, y] = point(outer + 14, angle(column));
    board.append(svg("text", { x: fmt(x), y: fmt(y + 4), class: "label column" }, String(column)));
  }
  for (const seam of [36, 9, 18, 27]) {
    for (let ring = 1; ring <= 5; ring++) {
      const [x, y] = point(CENTRE + (ring - 0.5) * RING, angle(seam) + STEP / 2);
      board.append(svg("text", { x: fmt(x), y: fmt(y + 3.5), class: "label ring" },
                       RINGS[ring - 1]));
    }
  }
  board.append(graveyard(games));
  const caption = status(games, mine, ctx);
  root.replaceChildren(board, caption, legend());

  const moves = {};
  for (const text of ctx.legal ?? []) {
    const m = MOVE.exec(text);
    if (m) moves[text] = [m[2].toUpperCase(), m[3].toUpperCase()];
  }
  twoClicks(root, cells, moves, ctx.act ?? (() => {}));
  roving(root, cells, focused);
}

/** The centre circle: the men each side has not on the board (of its nine, YI-2.1): the
 * captured ones, and in a game begun from a position, those it began without. */
function graveyard(games) {
  const g = svg("g", { class: "graveyard" });
  g.append(svg("circle", { cx: C, cy: C, r: CENTRE - 2, class: "centre" }));
  const rows = [];
  for (const game of games) {
    (game.sides ?? SIDES[game.game]).forEach((side) => {
      const count = { O: 0, M: 0, P: 0 };
      for (const m of game.men ?? []) if (m.side === side) count[m.piece] += 1;
      const gone = [];
      for (const piece of "OMP") {
        for (let i = count[piece]; i < ARMY[piece]; i++) gone.push(piece);
      }
      if (gone.length) rows.push([side, gone]);
    });
  }
  const words = rows.map(([side, gone]) => `${side}: ${gone.map((p) => KINDS[p]).join(", ")}`);
  g.setAttribute("aria-label",
                 `Off the board${words.length ? ` (${words.join("; ")})` : ": none"}`);
  g.setAttribute("role", "img");
  g.append(svg("title", {}, g.getAttribute("aria-label")));
  g.append(svg("text", { x: C, y: C - 62 + (rows.length ? 0 : 58), class: "label captured" },
               rows.length ? "Off the board" : "Off the board: none"));
  const top = C - 40 + (4 - rows.length) * 11;
  rows.forEach(([side, gone], i) => {
    const y = top + i * 24;
    const x0 = C - ((gone.length - 1) * 17) / 2;
    gone.forEach((piece, j) => {
      g.append(manShape(x0 + j * 17, y, side, piece, 0.72, `${side} ${KINDS[piece]} (off the board)`));
    });
  });
  return g;
}

/** Each game's state in words, the seat's sides, and the per-game draw actions (YI-8.4.3). */
function status(games, mine, ctx) {
  const box = document.createElement("div");
  box.className = "yiora-status";
  if (mine.length) {
    const p = document.createElement("p");
    p.className = "yiora-you";
    const words = mine.map(([g, side]) => `${g.sides[side]}`
      + (games.length > 1 ? ` (${GAME_NAMES[g.game].toLowerCase()})` : ""));
    p.textContent = `You play ${words.join(" and ")}.`;
    box.append(p);
  }
  for (const g of games) {
    const p = document.createElement("p");
    p.className = "yiora-game";
    p.dataset.game = g.game;
    let text = games.length > 1 ? `${GAME_NAMES[g.game]} (${g.game}), ${g.sides.join(" v ")}: `
                                : "";
    if (g.result) {
      text += `${g.result} (${g.reason})`;
    } else {
      text += `${g.to_move} to move`;
      if (g.threatened) text += `, its Overlord on ${g.threatened} is threatened`;
      if (g.draw_offer) text += `; ${g.draw_offer} offers a draw`;
      if (!g.due) text += " (after the other game's move)";
    }
    if (g.last_move) text += `. Last move ${g.last_move}`;
    p.textContent = text;
    box.append(p);
  }
  // a Secondary variation's draw actions name their game: the panel offers the bare ones only
  const draws = (ctx.legal ?? []).filter((t) => DRAW.exec(t)?.[1]);
  if (draws.length && ctx.act) {
    const p = document.createElement("p");
    p.className = "yiora-draws";
    for (const text of draws) {
      const [, game, verb] = DRAW.exec(text);
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.action = text;
      const where = GAME_NAMES[game].toLowerCase();
      b.textContent = `${verb[0].toUpperCase()}${verb.slice(1)} a draw (${where})`;
      b.addEventListener("click", () => ctx.act(text));
      p.append(b, " ");
    }
    box.append(p);
  }
  return box;
}

function legend() {
  const p = document.createElement("p");
  p.className = "yiora-legend";
  p.textContent = "Men: ◆ Overlord, ● Mage, ▲ Pawn, in the colour of their side: White and Black "
    + "on the black squares, Gold and Silver on the white squares. A dashed red ring: a threatened "
    + "Overlord. Keys: Tab to the board, ← → round the ring, ↑ ↓ in and out, Enter or Space to "
    + "pick a man, then its destination.";
  return p;
}

/**
 * One tab stop for the board (the cell focused last, else the selected or first movable one),
 * the arrow keys moving between the playable squares: ← → along the ring (column −1 / +1, as
 * they go on the screen at the bottom, the player's own side), ↑ ↓ to the next ring in / out.
 * A redraw keeps the focus on the same square.
 */
function roving(root, cells, focused) {
  const names = [...cells.keys()];
  if (!names.length) return;
  const pickFirst = () => {
    for (const cls of ["selected", "movable"]) {
      const hit = names.find((n) => cells.get(n).classList.contains(cls));
      if (hit) return hit;
    }
    return null;
  };
  let current = [focused, root.dataset.focus].find((n) => n && cells.has(n)) ?? pickFirst()
    ?? names[0];
  const set = (name) => {
    current = name;
    root.dataset.focus = name;
    for (const [n, el] of cells) el.setAttribute("tabindex", n === name ? "0" : "-1");
  };
  set(current);
  const parse = (name) => [RINGS.indexOf(name[0]) + 1, Number(name.slice(1))];
  const wrap = (c) => ((((c - 1) % COLUMNS) + COLUMNS) % COLUMNS) + 1;
  const step = (name, key) => {
    const [r, c] = parse(name);
    if (key === "ArrowRight" || key === "ArrowLeft") {
      const d = key === "ArrowRight" ? 1 : -1;
      for (let k = 1; k < COLUMNS; k++) {
        const n = squareName(r, wrap(c + d * k));
        if (cells.has(n)) return n;
      }
      return null;
    }
    if (key === "ArrowUp" || key === "ArrowDown") {
      const d = key === "ArrowUp" ? -1 : 1; // up: towards the centre, as at one's own side
      for (let ring = r + d; ring >= 1 && ring <= 5; ring += d) {
        for (const dc of [0, 1, -1]) {
          const n = squareName(ring, wrap(c + dc));
          if (cells.has(n)) return n;
        }
      }
    }
    return null;
  };
  for (const [name, el] of cells) {
    el.addEventListener("focus", () => set(name));
    el.addEventListener("keydown", (e) => {
      const next = step(name, e.key);
      if (next) {
        e.preventDefault();
        cells.get(next).focus();
      }
    });
  }
  if (focused && cells.has(focused)) cells.get(focused).focus({ preventScroll: true });
}
