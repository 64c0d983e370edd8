// 3-D Chess: three 8x8 levels drawn side by side (I, II, III; White's home level first),
// from the position's 3D-FEN (docs/rules/chess3d.md#notation). Cubes are named as moves name
// them: level, file, rank (`IIE4`).
import { lastCells, svg, twoClicks } from "./common.js";

const LEVELS = ["I", "II", "III"];
const FILES = "ABCDEFGH";
// Solid glyphs for both sides, coloured by CSS (text presentation: \uFE0E keeps them from
// turning into emoji).
const GLYPHS = { K: "♚\uFE0E", Q: "♛\uFE0E", R: "♜\uFE0E", B: "♝\uFE0E", N: "♞\uFE0E",
                 P: "♟\uFE0E" };
const NAMES = { K: "King", Q: "Queen", R: "Rook", B: "Bishop", N: "Knight", P: "pawn" };
const MOVE = /^(I{1,3}[A-H][1-8])[-x](I{1,3}[A-H][1-8])(?:=([QRBN]))?$/;
const CELL = 34;

/** {cube name: piece letter (upper: White, lower: Black)} from a 3D-FEN's board field. */
export function parseFen(fen) {
  const pieces = {};
  fen.split(" ")[0].split("|").forEach((level, l) => {
    level.split("/").forEach((row, r) => {
      let file = 0;
      for (const ch of row) {
        if (/\d/.test(ch)) file += Number(ch);
        else pieces[`${LEVELS[l]}${FILES[file++]}${8 - r}`] = ch;
      }
    });
  });
  return pieces;
}

export function render(root, ctx) {
  const fen = ctx.view.position;
  const pieces = parseFen(fen);
  const flip = ctx.seat === 1; // Black sees its own side at the bottom
  const width = 3 * (8 * CELL + 16) + 8;
  const board = svg("svg", { viewBox: `0 0 ${width} ${8 * CELL + 40}`, class: "board chess3d",
                             role: "group", "aria-label": "3-D Chess board" });
  const cells = new Map();
  const last = lastCells(ctx.moves, MOVE);
  LEVELS.forEach((level, l) => {
    const x0 = 8 + l * (8 * CELL + 16);
    board.append(svg("text", { x: x0 + 4 * CELL, y: 14, class: "label" }, `Level ${level}`));
    for (let r = 0; r < 8; r++) {
      for (let f = 0; f < 8; f++) {
        const rank = flip ? r + 1 : 8 - r;
        const file = flip ? 7 - f : f;
        const name = `${level}${FILES[file]}${rank}`;
        const x = x0 + f * CELL;
        const y = 22 + r * CELL;
        const g = svg("g", { "data-cell": name, class: "cell" });
        const dark = (file + rank) % 2 === 0;
        g.append(svg("rect", { x, y, width: CELL, height: CELL, class: dark ? "dark" : "light" }));
        if (last.includes(name)) g.classList.add("last");
        const p = pieces[name];
        let label = `${name}: empty`;
        if (p) {
          const white = p === p.toUpperCase();
          const kind = p.toUpperCase();
          g.append(svg("text", { x: x + CELL / 2, y: y + CELL * 0.78,
                                 class: `piece ${white ? "white" : "black"}` }, GLYPHS[kind]));
          label = `${name}: ${white ? "White" : "Black"} ${NAMES[kind]}`;
        }
        g.append(svg("title", {}, label));
        g.setAttribute("aria-label", label);
        board.append(g);
        cells.set(name, g);
      }
    }
  });
  root.replaceChildren(board);
  const moves = {};
  for (const text of ctx.legal) {
    const m = MOVE.exec(text);
    if (m) moves[text] = [m[1], m[2]];
  }
  const choose = (options) =>
    options.find((t) => t.endsWith("=Q")) ?? options[0]; // promote to a Queen by default
  twoClicks(root, cells, moves, ctx.act, choose);
}
