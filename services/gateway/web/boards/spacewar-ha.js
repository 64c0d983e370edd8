// Spacewar Health/Ammo (docs/rules/spacewar.md, Part B): the board of the variant (8x8 by
// default, HA-1.1; files a–p and ranks 1–16 as `board` allows), White's rank 1 at the bottom
// for White, turned half round for Black. Every value is public (HA-7.1): each piece is drawn by
// kind and owner with its Health (top left) and Ammo (top right), a Medic with Repair (top
// right) and Supply (bottom right); a Base is a square framed in its owner's colour with its
// Repair/Supply pools (bottom left), crossed out once captured; an immobilised piece is ringed
// and tied to its Tractor by a dashed line (HA-5.21); the last action's squares are marked.
//
// Acting: the server's legal actions, never guessed. Those between two squares are two clicks
// (the piece, then a highlighted square): moves, crashes, fire, force, immobilisations, repairs
// and supplies (a self-repair: click the Medic twice). When several actions share the two
// squares (fire amounts, pull or push, a crash or a force, repair amounts) the page lists them
// to choose from. Every legal action is also a button under the board, grouped by kind
// (releases and pass among them). The text sent is always one of ctx.legal, unchanged.
import { actionButtons, choiceClicks, edgeLabels, roving, svg } from "./common.js";

const FILES = "abcdefghijklmnop";
const CELL = 56;
const MARGIN = 22;
const KINDS = { Q: "Tractor", R: "Defender", N: "Scout", B: "Shooter", K: "Medic" };
const SIDES = ["White", "Black"];
const SQ = "[a-p](?:1[0-6]|[1-9])";
const STEP = new RegExp(`^([QRNBK])(${SQ})([-x])(${SQ})$`);
const FIRE = new RegExp(`^([QRNBK])(${SQ})\\*(${SQ})\\((\\d+)\\)$`);
const FORCE = new RegExp(`^([QRNBK])(${SQ})>(${SQ})([<>])$`);
const HOLD = new RegExp(`^([QRNBK])(${SQ})#(${SQ})$`);
const RELEASE = new RegExp(`^([QRNBK])(${SQ})~$`);
const CARE = new RegExp(`^([QRNBK])(${SQ})\\+(${SQ})\\(([ha])(\\d+)\\)$`);
const PLATFORM = new Set(["resign", "offer-draw", "accept-draw", "decline-draw"]);

/** A legal action by kind, with the squares it is clicked on (`from`, `to`). */
function classify(text) {
  let m;
  if ((m = STEP.exec(text))) {
    return { kind: m[3] === "x" ? "crash" : "move", letter: m[1], from: m[2], to: m[4] };
  }
  if ((m = FIRE.exec(text))) {
    return { kind: "fire", letter: m[1], from: m[2], to: m[3], amount: Number(m[4]) };
  }
  if ((m = FORCE.exec(text))) {
    return { kind: "force", letter: m[1], from: m[2], to: m[3], pull: m[4] === "<" };
  }
  if ((m = HOLD.exec(text))) return { kind: "immobilise", letter: m[1], from: m[2], to: m[3] };
  if ((m = RELEASE.exec(text))) return { kind: "release", letter: m[1], from: m[2] };
  if ((m = CARE.exec(text))) {
    return { kind: m[4] === "h" ? "repair" : "supply", letter: m[1], from: m[2], to: m[3],
             amount: Number(m[5]) };
  }
  if (text === "pass") return { kind: "pass" };
  if (PLATFORM.has(text)) return { kind: "platform" };
  return { kind: "other" };
}

/** An action in words, for the chooser and the buttons' titles. */
function describe(text, c) {
  const who = KINDS[c.letter] ?? "";
  switch (c.kind) {
    case "move": return `${who} ${c.from} moves to ${c.to}`;
    case "crash": return `${who} ${c.from} crashes into ${c.to}`;
    case "fire": return `${who} ${c.from} fires ${c.amount} Ammo at ${c.to}`;
    case "force": return `${who} ${c.from} ${c.pull ? "pulls" : "pushes"} ${c.to} one square `
      + (c.pull ? "closer" : "farther");
    case "immobilise": return `${who} ${c.from} immobilises ${c.to}`;
    case "release": return `${who} ${c.from} releases the piece it holds (then act)`;
    case "repair": return c.from === c.to ? `${who} ${c.from} repairs itself by ${c.amount}`
      : `${who} ${c.from} repairs ${c.to} by ${c.amount}`;
    case "supply": return `${who} ${c.from} supplies ${c.to} with ${c.amount} Ammo`;
    case "pass": return "pass (no other action)";
    default: return text;
  }
}

const GROUPS = [["move", "Moves"], ["crash", "Crashes"], ["fire", "Fire"], ["force", "Force"],
                ["immobilise", "Immobilise"], ["release", "Release"], ["repair", "Repair"],
                ["supply", "Supply"], ["pass", "Pass"], ["other", "Other"]];
const FOLDED = new Set(["move", "fire", "repair", "supply"]); // long lists: the board has them

/** A piece's shape centred on (x, y): Tractor a circle, Defender a square, Scout a triangle
 * pointing forward, Shooter a diamond, Medic a cross; white or black by owner. */
function pieceShape(p, x, y, up) {
  const owner = SIDES[p.owner].toLowerCase();
  const g = svg("g", { class: `piece-shape ${owner} k-${p.kind}` });
  const at = ([a, b]) => `${(x + a).toFixed(1)},${(y + b).toFixed(1)}`;
  const poly = (pts) => svg("polygon", { points: pts.map(at).join(" ") });
  const dir = up ? -1 : 1;
  switch (p.kind) {
    case "Q": g.append(svg("circle", { cx: x, cy: y, r: 14 })); break;
    case "R": g.append(svg("rect", { x: x - 13, y: y - 13, width: 26, height: 26, rx: 3 })); break;
    case "N": g.append(poly([[0, 16 * dir], [15, -11 * dir], [-15, -11 * dir]])); break;
    case "B": g.append(poly([[0, -16], [16, 0], [0, 16], [-16, 0]])); break;
    default: g.append(poly([[-7, -16], [7, -16], [7, -7], [16, -7], [16, 7], [7, 7], [7, 16],
                           [-7, 16], [-7, 7], [-16, 7], [-16, -7], [-7, -7]]));
  }
  g.append(svg("text", { x, y: y + 5, "font-size": 13 }, p.kind));
  return g;
}

function pieceWords(p) {
  let words = `${SIDES[p.owner]} ${KINDS[p.kind] ?? p.name}, Health ${p.health}`;
  words += p.kind === "K" ? `, Repair ${p.repair}, Supply ${p.supply}` : `, Ammo ${p.ammo}`;
  return words;
}

function baseWords(b) {
  return `${SIDES[b.owner]} Base, `
    + (b.captured ? "captured" : `Repair ${b.repair}, Supply ${b.supply}`);
}

/** The squares of the last action (the view's `last`), to mark them. */
function lastSquares(text) {
  const c = classify(text ?? "");
  return new Set([c.from, c.to].filter(Boolean));
}

export function render(root, ctx) {
  const view = ctx.view;
  const board = view.board ?? {};
  const W = board.width ?? 8;
  const H = board.height ?? 8;
  const pieces = board.pieces ?? [];
  const bases = board.bases ?? [];
  const holds = board.holds ?? [];
  const legal = ctx.legal ?? [];
  const act = ctx.act;
  const flip = ctx.seat === 1; // Black sees its own rank H at the bottom
  const active = document.activeElement;
  const focused = root.contains(active) ? active.getAttribute?.("data-cell") : null;
  const at = new Map(pieces.map((p) => [p.square, p]));
  const baseAt = new Map(bases.map((b) => [b.square, b]));
  const last = lastSquares(board.last);
  const WIDTH = W * CELL + 2 * MARGIN;
  const HEIGHT = H * CELL + 2 * MARGIN;

  const title = `Spacewar Health/Ammo board, ${W} files by ${H} ranks, `
    + `${flip ? "Black" : "White"} at the bottom`;
  const el = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "board spacewar-ha",
                          role: "group", "aria-label": title });
  const cells = new Map();
  const xy = (f, r) => [MARGIN + (flip ? W - f : f - 1) * CELL,
                        MARGIN + (flip ? r - 1 : H - r) * CELL];
  const centre = (name) => {
    const [x, y] = xy(FILES.indexOf(name[0]) + 1, Number(name.slice(1)));
    return [x + CELL / 2, y + CELL / 2];
  };
  for (let row = H; row >= 1; row--) { // DOM order: top row first, as read
    const rank = flip ? H + 1 - row : row;
    for (let i = 1; i <= W; i++) {
      const file = flip ? W + 1 - i : i;
      const name = `${FILES[file - 1]}${rank}`;
      const [x, y] = xy(file, rank);
      const g = svg("g", { "data-cell": name, class: "cell" });
      g.append(svg("rect", { x, y, width: CELL, height: CELL,
                             class: `sq ${(file + rank) % 2 === 0 ? "dark" : "light"}` }));
      g.append(svg("rect", { x: x + 1.5, y: y + 1.5, width: CELL - 3, height: CELL - 3,
                             class: "hl" }));
      const parts = [];
      const p = at.get(name);
      const base = baseAt.get(name);
      if (base) {
        const owner = SIDES[base.owner].toLowerCase();
        g.classList.add("base", `base-${owner}`);
        if (base.captured) g.classList.add("captured");
        g.append(svg("rect", { x: x + 4, y: y + 4, width: CELL - 8, height: CELL - 8,
                               class: `base-frame ${owner}${base.captured ? " captured" : ""}` }));
        if (base.captured) {
          g.append(svg("path", { d: `M${x + 8},${y + 8}L${x + CELL - 8},${y + CELL - 8}`
                                    + `M${x + CELL - 8},${y + 8}L${x + 8},${y + CELL - 8}`,
                                 class: "base-cross" }));
        }
        if (!base.captured) {
          g.append(svg("text", { x: x + 5, y: y + CELL - 5, class: `value pools ${owner}` },
                       `${base.repair}/${base.supply}`));
        }
      }
      if (p) {
        if (p.immobilised) {
          g.classList.add("held");
          g.append(svg("circle", { cx: x + CELL / 2, cy: y + CELL / 2 + 2, r: 19,
                                   class: "held-ring" }));
        }
        g.append(pieceShape(p, x + CELL / 2, y + CELL / 2 + 2, (p.owner === 0) !== flip));
        g.append(svg("text", { x: x + 3, y: y + 11, class: "value health" }, `${p.health}`));
        if (p.kind === "K") {
          g.append(svg("text", { x: x + CELL - 3, y: y + 11, class: "value repair" },
                       `${p.repair}`));
          g.append(svg("text", { x: x + CELL - 3, y: y + CELL - 4, class: "value supply" },
                       `${p.supply}`));
        } else {
          g.append(svg("text", { x: x + CELL - 3, y: y + 11, class: "value ammo" }, `${p.ammo}`));
        }
        let words = pieceWords(p);
        const by = holds.filter((h) => h.held === name).map((h) => h.tractor);
        if (p.immobilised) words += `, immobilised${by.length ? ` by ${by.join(" and ")}` : ""}`;
        const holding = holds.find((h) => h.tractor === name);
        if (holding) words += `, holding ${holding.held}`;
        parts.push(words);
      }
      if (base) parts.push(baseWords(base));
      const label = `${name}: ${parts.length ? parts.join("; ") : "empty"}`;
      if (last.has(name)) g.classList.add("last");
      g.setAttribute("aria-label", label);
      g.append(svg("title", {}, label));
      el.append(g);
      cells.set(name, g);
    }
  }
  for (const h of holds) { // HA-5.21: the Tractor's hold, drawn over the squares
    const [a, b] = centre(h.tractor);
    const [c, d] = centre(h.held);
    const k = 20 / Math.hypot(c - a, d - b); // from rim to rim: the pieces stay clear
    el.append(svg("line", { x1: a + (c - a) * k, y1: b + (d - b) * k, x2: c - (c - a) * k,
                            y2: d - (d - b) * k, class: "hold-line" }));
  }
  edgeLabels(el, xy, FILES.slice(0, W), H, CELL, MARGIN, [WIDTH, HEIGHT]);

  const parsed = legal.map((text) => [text, classify(text)]);
  const choice = document.createElement("div");
  choice.className = "ha-choice";
  root.replaceChildren(status(view, board, ctx), el, choice,
                       actionButtons("ha", GROUPS, FOLDED, parsed, act, describe), legend());
  // Clicks over the legal actions: a first click on a square that starts some two-square action
  // picks it (its second squares light up), a click on a lit square acts (the picked square
  // itself is lit when it is its own target: a self-repair). Several actions for one pair: the
  // chooser under the board lists them; Escape drops the pick or closes the chooser. The picked
  // square outlives a redraw.
  if (act) choiceClicks(root, cells, parsed, act, choice, describe, { escape: true });
  roving(root, cells, focused, W);
}

/** The status line: the side to act and its turn, the turn limit, the pass, the result. */
function status(view, board, ctx) {
  const box = document.createElement("div");
  box.className = "ha-status";
  const line = document.createElement("p");
  line.className = "ha-turn";
  const limit = /(?:^|\+)turn_limit=(\d+)/.exec(view.variant ?? "")?.[1];
  const result = board.result || view.result;
  let text;
  if (result) {
    text = `Game over: ${result}${view.reason ? ` (${view.reason})` : ""}`;
  } else {
    text = `${SIDES[board.turn] ?? "?"} to act, turn ${board.number}`
      + (limit ? ` of ${limit}` : "");
    if (board.passed) text += "; the last turn was a pass (a second pass draws)";
  }
  line.textContent = `${text}.`;
  box.append(line);
  const notes = [];
  if (ctx.seat === 0 || ctx.seat === 1) notes.push(`You play ${SIDES[ctx.seat]}.`);
  if (board.last) notes.push(`Last action: ${board.last}.`);
  if (notes.length) {
    const p = document.createElement("p");
    p.className = "ha-notes";
    p.textContent = notes.join(" ");
    box.append(p);
  }
  return box;
}

function legend() {
  const box = document.createElement("div");
  box.className = "ha-legend";
  const p = document.createElement("p");
  p.textContent = "Pieces: Tractor Q a circle, Defender R a square, Scout N a triangle pointing "
    + "forward, Shooter B a diamond, Medic K a cross; white or black by owner. Numbers: Health "
    + "top left (red), Ammo top right (blue); a Medic's Repair top right (green) and Supply "
    + "bottom right (blue). Bases: squares framed in their owner's colour (blue White, red "
    + "Black) with their Repair/Supply bottom left, crossed out once captured. A dashed ring "
    + "and line: an immobilised piece and its Tractor. Keys: Tab to the board, arrows between "
    + "squares, Enter or Space to pick a piece, then its target (the Medic itself again to "
    + "repair itself), Escape to drop it.";
  box.append(p);
  return box;
}
