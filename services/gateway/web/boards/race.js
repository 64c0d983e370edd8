// The race test ruleset (tests/rulesets/race.py): a track per seat to square 20, and hands.
import { canonicalJson } from "../fairplay.js";
import { svg } from "./common.js";

export function render(root, ctx) {
  const b = ctx.view.board;
  const squares = b.squares ?? [];
  const target = b.target ?? 20;
  const step = 16;
  const board = svg("svg", { viewBox: `0 0 ${target * step + 120} ${squares.length * 30 + 10}`,
                             class: "board race", role: "img", "aria-label": "race track" });
  squares.forEach((square, seat) => {
    const y = 8 + seat * 30;
    board.append(svg("text", { x: 4, y: y + 14, class: "label" }, `seat ${seat}`));
    for (let i = 0; i < target; i++) {
      board.append(svg("rect", { x: 60 + i * step, y, width: step - 2, height: 20,
                                 class: i < square ? "dark" : "light" }));
    }
    board.append(svg("text", { x: 64 + target * step, y: y + 14, class: "label" }, `${square}`));
  });
  root.replaceChildren(board);
  const hands = b.hands ?? [];
  const mine = ctx.seat !== null ? hands[ctx.seat] : null;
  if (Array.isArray(mine)) {
    const list = document.createElement("p");
    list.className = "hand";
    list.textContent = `Your hand: ${mine.map((h) => `${h.card} (+${h.value}, deck ${h.position})`).join(", ") || "empty"}`;
    root.append(list);
  }
}

/** The hidden setup: a boost of 0-3 squares (RACE-1), as the bytes to commit. */
export function setup(root, ctx) {
  return new Promise((resolve) => {
    const form = document.createElement("form");
    form.innerHTML = `<label>Boost (RACE-1): <select name="boost">
      <option>0</option><option>1</option><option>2</option><option>3</option></select></label>
      <button type="submit">Commit my setup</button>`;
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const boost = Number(new FormData(form).get("boost"));
      resolve(new TextEncoder().encode(canonicalJson({ boost })));
    });
    root.replaceChildren(form);
  });
}
