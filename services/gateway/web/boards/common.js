// What every board module shares: SVG making, and choosing a move by two clicks among the
// server's legal actions (the board never decides what is legal: the list is the server's).

export const SVG = "http://www.w3.org/2000/svg";

export function svg(tag, attrs = {}, text = "") {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text) el.textContent = text;
  return el;
}

/** Make an SVG cell a button: focusable, pressed by a click, Enter or Space. */
export function pressable(el, press) {
  el.setAttribute("tabindex", "0");
  el.setAttribute("role", "button");
  el.addEventListener("click", press);
  el.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      press();
    }
  });
}

/**
 * Two-click move input over cells named as the notation names them. `moves` maps each legal
 * action text to its [from, to] cell names; the first click picks a from-cell that has moves,
 * the second a highlighted to-cell (several actions to one cell, e.g. promotions: the caller's
 * `choose` picks one). Cells are SVG elements carrying data-cell; each is focusable, and Enter
 * or Space clicks it, so the board works from the keyboard too.
 */
export function twoClicks(root, cells, moves, act, choose = (options) => options[0]) {
  const starts = new Set(Object.values(moves).map(([f]) => f));
  // The picked cell outlives a redraw (the opponent's events redraw the board between clicks).
  let from = starts.has(root.dataset.from) ? root.dataset.from : null;
  const pick = (cell) => {
    from = cell;
    if (cell === null) delete root.dataset.from;
    else root.dataset.from = cell;
  };
  const paint = () => {
    for (const [name, el] of cells) {
      el.classList.toggle("movable", from === null && starts.has(name));
      el.classList.toggle("selected", name === from);
      const target = from !== null && Object.values(moves).some(([f, t]) => f === from && t === name);
      el.classList.toggle("target", target);
    }
  };
  const click = (name) => {
    if (from !== null) {
      const options = Object.entries(moves).filter(([, [f, t]]) => f === from && t === name);
      if (options.length) {
        pick(null);
        paint();
        act(choose(options.map(([text]) => text)));
        return;
      }
    }
    pick(starts.has(name) && name !== from ? name : null);
    paint();
  };
  for (const [name, el] of cells) pressable(el, () => click(name));
  paint();
}

/** The last move's cells, from the last action text in the move list (for marking it). */
export function lastCells(moves, pattern) {
  for (let i = moves.length - 1; i >= 0; i--) {
    const m = pattern.exec(moves[i]);
    if (m) return [m[1], m[2]];
  }
  return [];
}
