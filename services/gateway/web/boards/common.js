// What every board module shares: SVG making, and choosing a move by two clicks among the
// server's legal actions (the board never decides what is legal: the list is the server's);
// for boards that list actions too, a chooser, the action buttons, edge labels, roving focus.

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
  const pairs = Object.entries(moves).map(([text, [from, to]]) => [text, { from, to }]);
  pickSquares(root, cells, pairs, (options) => act(choose(options.map(([text]) => text))));
}

/**
 * Picking a cell, then a target, over actions that each go from one cell to another: `pairs`
 * lists [text, {from, to}], `singles` [text, {at}] taken by one click on `at`. A first click on
 * a from-cell picks it (its to-cells get "target"); a click on a target gives `take` the actions
 * between the two, a click on a cell that only has one-click actions gives `take` those; any
 * other click calls `miss`, then picks the cell or drops the pick. The picked cell outlives a
 * redraw (root.dataset.from); with `escape`, Escape on a cell drops it. Cells are pressable.
 */
export function pickSquares(root, cells, pairs, take,
                            { singles = [], miss = () => {}, escape = false } = {}) {
  const starts = new Set(pairs.map(([, c]) => c.from));
  const ones = new Set(singles.map(([, c]) => c.at));
  let from = starts.has(root.dataset.from) ? root.dataset.from : null;
  const pick = (cell) => {
    from = cell;
    if (cell === null) delete root.dataset.from;
    else root.dataset.from = cell;
  };
  const paint = () => {
    for (const [name, el] of cells) {
      el.classList.toggle("movable", from === null && (starts.has(name) || ones.has(name)));
      el.classList.toggle("selected", name === from);
      el.classList.toggle("target", from !== null
        && pairs.some(([, c]) => c.from === from && c.to === name));
    }
  };
  const click = (name) => {
    if (from !== null) {
      const options = pairs.filter(([, c]) => c.from === from && c.to === name);
      if (options.length) {
        pick(null);
        paint();
        take(options);
        return;
      }
    }
    if (!starts.has(name) && ones.has(name)) {
      pick(null);
      paint();
      take(singles.filter(([, c]) => c.at === name));
      return;
    }
    miss();
    pick(starts.has(name) && name !== from ? name : null);
    paint();
  };
  for (const [name, el] of cells) {
    pressable(el, () => click(name));
    if (!escape) continue;
    el.addEventListener("keydown", (e) => {
      if (e.key !== "Escape" || from === null) return;
      pick(null);
      paint();
    });
  }
  paint();
}

/**
 * The board's clicks over parsed legal actions ([text, {from, to} or {at}], the cells on the
 * board only), each clicked set of several actions listed in `choice` to choose from (one is
 * sent at once); any other click empties `choice`. `describe(text, c)` words an action.
 */
export function choiceClicks(root, cells, parsed, act, choice, describe, { escape = false } = {}) {
  const pairs = parsed.filter(([, c]) => c.from && c.to && cells.has(c.from) && cells.has(c.to));
  const singles = parsed.filter(([, c]) => c.at && cells.has(c.at));
  pickSquares(root, cells, pairs, (options) => chooser(choice, options, act, describe, escape),
              { singles, miss: () => choice.replaceChildren(), escape });
}

/**
 * Send the one action in `options` ([text, c] pairs), or list them all in `choice` (a group
 * "Choose the action": a button each, its text and its words, then Cancel; with `escape`,
 * Escape closes it), the first focused. Choosing empties `choice` and sends the text.
 */
export function chooser(choice, options, act, describe, escape = false) {
  const send = (text) => {
    choice.replaceChildren();
    act(text);
  };
  if (options.length === 1) {
    send(options[0][0]);
    return;
  }
  const head = document.createElement("p");
  head.textContent = `${options.length} actions here: choose one.`;
  const buttons = options.map(([text, c]) => {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.action = text;
    b.textContent = `${text} — ${describe(text, c)}`;
    b.addEventListener("click", () => send(text));
    return b;
  });
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.textContent = "Cancel";
  cancel.addEventListener("click", () => choice.replaceChildren());
  choice.setAttribute("role", "group");
  choice.setAttribute("aria-label", "Choose the action");
  choice.replaceChildren(head, ...buttons.flatMap((b) => [b, " "]), cancel);
  if (escape) {
    choice.addEventListener("keydown", (e) => {
      if (e.key === "Escape") choice.replaceChildren();
    });
  }
  buttons[0].focus();
}

/**
 * Every legal action ([text, c] in `parsed`) as a button (data-action its text, its title
 * `describe(text, c)`), in a box `${prefix}-actions` grouped by kind as `groups` ([kind,
 * heading]) lists them, each group `${prefix}-group ${prefix}-${kind}`; the kinds in `folded`
 * in a closed <details>. Without `act` (a replay, not one's turn) the box is empty.
 */
export function actionButtons(prefix, groups, folded, parsed, act, describe) {
  const box = document.createElement("div");
  box.className = `${prefix}-actions`;
  if (!act || !parsed.length) return box;
  for (const [kind, heading] of groups) {
    const items = parsed.filter(([, c]) => c.kind === kind);
    if (!items.length) continue;
    const fold = folded.has(kind);
    const group = document.createElement(fold ? "details" : "div");
    group.className = `${prefix}-group ${prefix}-${kind}`;
    const head = document.createElement(fold ? "summary" : "h3");
    head.textContent = `${heading} (${items.length})`;
    group.append(head);
    for (const [text, c] of items) {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.action = text;
      b.title = describe(text, c);
      b.textContent = text;
      b.addEventListener("click", () => act(text));
      group.append(b, " ");
    }
    box.append(group);
  }
  return box;
}

/** File letters (`files`, one a file) above and below a board of square cells, rank numbers on
 * both sides: `xy(file, rank)` is a square's top left corner, [width, height] the drawing's. */
export function edgeLabels(el, xy, files, ranks, cell, margin, [width, height]) {
  for (let i = 1; i <= files.length; i++) {
    const [x] = xy(i, 1);
    for (const y of [margin - 7, height - 7]) {
      el.append(svg("text", { x: x + cell / 2, y, class: "label" }, files[i - 1]));
    }
  }
  for (let r = 1; r <= ranks; r++) {
    const [, y] = xy(1, r);
    for (const x of [margin / 2, width - margin / 2]) {
      el.append(svg("text", { x, y: y + cell / 2 + 4, class: "label" }, String(r)));
    }
  }
}

/** One tab stop for a board of `width` cells a row (the cell focused last, else the selected
 * or first movable one); the arrow keys move between cells as they lie on the screen. */
export function roving(root, cells, focused, width) {
  const names = [...cells.keys()]; // screen order: top row first, left to right
  const first = () => names.find((n) => cells.get(n).classList.contains("selected"))
    ?? names.find((n) => cells.get(n).classList.contains("movable"));
  const current = [focused, root.dataset.focus].find((n) => n && cells.has(n)) ?? first()
    ?? names[0];
  const set = (name) => {
    root.dataset.focus = name;
    for (const [n, el] of cells) el.setAttribute("tabindex", n === name ? "0" : "-1");
  };
  set(current);
  const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -width, ArrowDown: width };
  names.forEach((name, i) => {
    const el = cells.get(name);
    el.addEventListener("focus", () => set(name));
    el.addEventListener("keydown", (e) => {
      const d = moves[e.key];
      if (d === undefined) return;
      const j = i + d;
      const sameRow = Math.abs(d) !== 1 || Math.floor(j / width) === Math.floor(i / width);
      if (j < 0 || j >= names.length || !sameRow) return;
      e.preventDefault();
      cells.get(names[j]).focus();
    });
  });
  if (focused && cells.has(focused)) cells.get(focused).focus({ preventScroll: true });
}

/** The last move's cells, from the last action text in the move list (for marking it). */
export function lastCells(moves, pattern) {
  for (let i = moves.length - 1; i >= 0; i--) {
    const m = pattern.exec(moves[i]);
    if (m) return [m[1], m[2]];
  }
  return [];
}
