// Spacewar (Joe Joyce; docs/rules/spacewar.md, Part A): the 16x12 board, files a–p and ranks
// 1–12 (SW-1.1), White's back rank at the bottom for White, turned half round for Black. The
// pieces come from the view's board (display.py): each ship drawn by kind and owner, full size
// when large side up, shrunk when small (SW-4.2); a missile as a dart pointing forward, outlined in
// orange once fired (SW-R13). Every generator's field (SW-5.30) shades the squares it
// covers in its owner's colour; standing beam hits (SW-5.41) ring their piece with the hit ids.
//
// Acting: the server's legal actions, never guessed. Those that go from one square to another
// are two clicks (the first square, then a highlighted second): ship moves (start, destination),
// launches (missile, first square), beams and field attacks (firer, target), counter beams
// (counter ship, the hit piece), field responses (responder, the moved piece), and a
// replacement is one click on its square. When several actions share the two squares (a
// Mothership's paths, anchors, field destinations, which Mothership and Gunboat launch) the
// page lists them to choose from. Every legal action is also a button under the board, grouped
// by kind. The text sent is always one of ctx.legal, unchanged.
import { actionButtons, choiceClicks, edgeLabels, roving, svg } from "./common.js";

const FILES = "abcdefghijklmnop";
const RANKS = 12;
const CELL = 40;
const MARGIN = 22;
const WIDTH = 16 * CELL + 2 * MARGIN;
const HEIGHT = RANKS * CELL + 2 * MARGIN;
const KINDS = { K: "Mothership", D: "Tractor", E: "Pressor", N: "Immobilizer", R: "Gunboat",
                P: "missile" };
const HIT_TYPES = { D: "tractor", E: "pressor", N: "immobilizer" };
const GENERATORS = "DEN";
const SQ = "[a-p](?:1[0-2]|[1-9])";
const MOVE = new RegExp(`^([KDENR])(${SQ})((?:[-x]${SQ})+)(?:=(${SQ}))?`
                        + `(?:;A:(${SQ}(?:,${SQ})*))?$`);
const BEAM = new RegExp(`^B (${SQ})>(${SQ})$`);
const COUNTER = new RegExp(`^C (${SQ}):(h\\d+)$`);
const FIELD = new RegExp(`^F (${SQ})>(${SQ})>(${SQ}|off)$`);
const RESPONSE = new RegExp(`^FR (${SQ})$`);
const LAUNCH = new RegExp(`^L (${SQ}),(${SQ}),(${SQ})>(${SQ})$`);
const PLACE = new RegExp(`^P@(${SQ})$`);
const STEPS = { move: "movement", combat: "force combat", launch: "launch step",
                flight: "missile movement", replace: "replacement step" };
const PLATFORM = new Set(["resign", "offer-draw", "accept-draw", "decline-draw"]);

const squareOf = (f, r) => `${FILES[f - 1]}${r}`;

/** Each legal action by kind, with the squares it is clicked on: `from`/`to` for two clicks,
 * `at` for one. */
export function classify(text, board) {
  let m;
  if ((m = MOVE.exec(text))) {
    const path = [m[2], ...m[3].match(new RegExp(SQ, "g"))];
    return { kind: "move", from: path[0], to: path.at(-1), path, placement: m[4] ?? null,
             anchors: m[5] ? m[5].split(",") : [] };
  }
  if ((m = BEAM.exec(text))) return { kind: "beam", from: m[1], to: m[2] };
  if ((m = FIELD.exec(text))) return { kind: "field", from: m[1], to: m[2], dest: m[3] };
  if ((m = COUNTER.exec(text))) {
    const hit = (board.hits ?? []).find((h) => h.id === m[2]);
    return { kind: "counter", from: m[1], to: hit?.target ?? null, hit: m[2] };
  }
  if ((m = RESPONSE.exec(text))) {
    return { kind: "response", from: m[1], to: board.window?.piece ?? null };
  }
  if ((m = LAUNCH.exec(text))) {
    return { kind: "launch", from: m[3], to: m[4], mothership: m[1], gunboat: m[2] };
  }
  if ((m = PLACE.exec(text))) return { kind: "place", at: m[1] };
  if (text === "END") return { kind: "end" };
  if (text === "pass") return { kind: "pass" };
  if (PLATFORM.has(text)) return { kind: "platform" };
  return { kind: "other" };
}

/** An action in words, for the chooser and the buttons' titles. */
function describe(text, c) {
  switch (c.kind) {
    case "move": {
      let words = `${KINDS[text[0]]} ${c.path.join("→")}`;
      if (text.includes("x")) words += " onto the enemy";
      if (c.placement) words += `, captured ship placed on ${c.placement}`;
      if (c.anchors.length) words += `, anchoring ${c.anchors.join(", ")}`;
      return words;
    }
    case "beam": return `beam from ${c.from} at ${c.to}`;
    case "field": return c.dest === "off"
      ? `field attack from ${c.from}: push ${c.to} off the board`
      : `field attack from ${c.from}: ${c.to} to ${c.dest}`;
    case "counter": return `counter beam from ${c.from} cancelling hit ${c.hit}`;
    case "response": return `field response by ${c.from}: the piece goes back`;
    case "launch": return `launch: Mothership ${c.mothership}, Gunboat ${c.gunboat}, `
      + `missile ${c.from} to ${c.to}`;
    case "place": return `replacement missile on ${c.at}`;
    case "end": return "end the movement phase";
    case "pass": return "pass";
    default: return text;
  }
}

const GROUPS = [["move", "Ship moves"], ["end", "End of movement"], ["beam", "Beams"],
                ["counter", "Counter beams"], ["field", "Field attacks"],
                ["response", "Field responses"], ["launch", "Launches"],
                ["place", "Replacements"], ["pass", "Pass"], ["other", "Other"]];
const FOLDED = new Set(["move"]); // the ship moves: the board takes them by two clicks

/** A ship's or missile's shape centred on (x, y): Mothership a hexagon, Tractor a circle,
 * Pressor a diamond, Immobilizer an octagon, Gunboat a triangle pointing forward, missile a
 * dart pointing forward. A small-side ship is drawn at 60 % (SW-4.2). */
function pieceShape(p, x, y, up) {
  const owner = p.owner.toLowerCase();
  const small = p.piece !== "P" && p.side === "small";
  const s = small ? 0.6 : 1;
  const g = svg("g", { class: `piece-shape ${owner} k-${p.piece}${small ? " small" : ""}`
                              + `${p.piece === "P" ? (p.fired ? " fired" : " unfired") : ""}` });
  const at = ([a, b]) => `${(x + a * s).toFixed(1)},${(y + b * s).toFixed(1)}`;
  const poly = (pts) => svg("polygon", { points: pts.map(at).join(" ") });
  const ring = (n, r, turn = 0) => Array.from({ length: n }, (_, i) => {
    const a = (2 * Math.PI * i) / n + turn;
    return [r * Math.cos(a), r * Math.sin(a)];
  });
  const dir = up ? -1 : 1; // forward on the screen: up for the side at the bottom
  switch (p.piece) {
    case "K": g.append(poly(ring(6, 16))); break;
    case "D": g.append(svg("circle", { cx: x, cy: y, r: (14 * s).toFixed(1) })); break;
    case "E": g.append(poly([[0, -16], [16, 0], [0, 16], [-16, 0]])); break;
    case "N": g.append(poly(ring(8, 15, Math.PI / 8))); break;
    case "R": g.append(poly([[0, 15 * dir], [14, -11 * dir], [-14, -11 * dir]])); break;
    default: g.append(poly([[0, 15 * dir], [7, -9 * dir], [0, -4 * dir], [-7, -9 * dir]]));
  }
  if (p.piece !== "P") {
    g.append(svg("text", { x, y: (y + 5 * s).toFixed(1), "font-size": (14 * s).toFixed(1) },
                 p.piece));
  }
  return g;
}

export function render(root, ctx) {
  const view = ctx.view;
  const board = view.board ?? {};
  const pieces = board.pieces ?? [];
  const legal = ctx.legal ?? [];
  const act = ctx.act;
  const flip = ctx.seat === 1; // Black sees its own back rank (12) at the bottom
  const active = document.activeElement;
  const focused = root.contains(active) ? active.getAttribute?.("data-cell") : null;
  const at = new Map(pieces.map((p) => [p.square, p]));

  // SW-5.30: each generator covers the squares within its range, whichever side is up
  const fields = new Map(); // square -> [generator pieces covering it]
  for (const p of pieces) {
    if (!GENERATORS.includes(p.piece)) continue;
    const [f0, r0] = [p.file, p.rank];
    const n = p.range; // the engine's, from the game's variant (range_tp, range_i)
    for (let f = Math.max(1, f0 - n); f <= Math.min(16, f0 + n); f++) {
      for (let r = Math.max(1, r0 - n); r <= Math.min(RANKS, r0 + n); r++) {
        const name = squareOf(f, r);
        if (!fields.has(name)) fields.set(name, []);
        fields.get(name).push(p);
      }
    }
  }
  const show = root.dataset.fields ?? "both"; // the legend's toggle: both, White, Black, none
  const last = lastSquares(ctx.moves ?? [], board);
  const windowFrom = board.window?.from ?? null;

  const title = `Spacewar board, 16 files by 12 ranks, ${flip ? "Black" : "White"} at the bottom`;
  const el = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "board spacewar",
                          role: "group", "aria-label": title });
  const cells = new Map();
  const xy = (f, r) => [MARGIN + (flip ? 16 - f : f - 1) * CELL,
                        MARGIN + (flip ? r - 1 : RANKS - r) * CELL];
  for (let r = RANKS; r >= 1; r--) { // DOM order: top row first, as read
    const rank = flip ? RANKS + 1 - r : r;
    for (let i = 1; i <= 16; i++) {
      const file = flip ? 17 - i : i;
      const name = squareOf(file, rank);
      const [x, y] = xy(file, rank);
      const g = svg("g", { "data-cell": name, class: "cell" });
      g.append(svg("rect", { x, y, width: CELL, height: CELL,
                             class: `sq ${(file + rank) % 2 === 0 ? "dark" : "light"}` }));
      const over = fields.get(name) ?? [];
      for (const owner of ["White", "Black"]) {
        const count = over.filter((p) => p.owner === owner).length;
        if (!count) continue;
        const shown = show === "both" || show === owner;
        g.append(svg("rect", { x: x + 0.5, y: y + 0.5, width: CELL - 1, height: CELL - 1,
                               class: `field ${owner.toLowerCase()}${shown ? "" : " hidden"}`,
                               "fill-opacity": Math.min(0.1 + 0.06 * (count - 1), 0.34) }));
        g.classList.add(`in-${owner.toLowerCase()}-field`);
      }
      g.append(svg("rect", { x: x + 1.5, y: y + 1.5, width: CELL - 3, height: CELL - 3,
                             class: "hl" }));
      const p = at.get(name);
      let label = `${name}: `;
      if (p) {
        const hits = (board.hits ?? []).filter((h) => h.target === name);
        const standing = hits.filter((h) => !h.cancelled);
        if (standing.length) {
          g.append(svg("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: 18, class: "hit-ring" }));
        }
        g.append(pieceShape(p, x + CELL / 2, y + CELL / 2, (p.owner === "White") !== flip));
        label += pieceWords(p);
        if (p.anchored) {
          g.append(svg("text", { x: x + 3, y: y + 12, class: "mark anchor" }, "⚓\uFE0E"));
        }
        if (p.moved) {
          g.append(svg("circle", { cx: x + 6, cy: y + CELL - 6, r: 3, class: "mark moved" }));
        }
        if (hits.length) {
          const badge = svg("text", { x: x + CELL - 2, y: y + 10, class: "mark hits" });
          hits.forEach((h, j) => {
            const text = `${j ? " " : ""}${h.id}${h.type}`;
            badge.append(svg("tspan", { class: h.cancelled ? "cancelled" : "" }, text));
          });
          g.append(badge);
          const words = hits.map((h) => `${h.id} (${HIT_TYPES[h.type] ?? h.type}`
            + `${h.firer ? ` from ${h.firer}` : ""}${h.cancelled ? ", cancelled" : ""})`);
          label += `, hit ${words.join(", ")}`;
          if (standing.length) g.classList.add("hit");
        }
      } else {
        label += "empty";
      }
      if (over.length) {
        label += `; in the field of ${over.map((q) => `${q.owner} ${KINDS[q.piece]} ${q.square}`)
          .join(", ")}`;
      }
      if (name === windowFrom) {
        g.append(svg("rect", { x: x + 4, y: y + 4, width: CELL - 8, height: CELL - 8,
                               class: "origin" }));
        label += "; the field-moved piece came from here";
      }
      if (last.has(name)) g.classList.add("last");
      g.setAttribute("aria-label", label);
      g.append(svg("title", {}, label));
      el.append(g);
      cells.set(name, g);
    }
  }
  edgeLabels(el, xy, FILES, RANKS, CELL, MARGIN, [WIDTH, HEIGHT]);

  const parsed = legal.map((text) => [text, classify(text, board)]);
  const choice = document.createElement("div");
  choice.className = "sw-choice";
  root.replaceChildren(status(view, board, ctx), el, choice,
                       actionButtons("sw", GROUPS, FOLDED, parsed, act, describe),
                       legend(root, ctx, show));
  // Clicks over the legal actions: a first click on a square that starts some two-square
  // action picks it (its second squares light up), a click on a lit square acts; a square with
  // one-click actions (a replacement) acts at once. Several actions for one click: the chooser
  // under the board lists them. The picked square outlives a redraw.
  if (act) choiceClicks(root, cells, parsed, act, choice, describe);
  roving(root, cells, focused, 16);
}

function pieceWords(p) {
  const owner = p.owner;
  if (p.piece === "P") return `${owner} missile, ${p.fired ? "fired" : "unfired"}`;
  let words = `${owner} ${KINDS[p.piece]}, ${p.side} side up`;
  if (p.anchored) words += ", anchored";
  if (p.moved) words += ", moved";
  return words;
}

/** The squares of the last action (the move list's last entry), to mark them. */
function lastSquares(moves, board) {
  for (let i = moves.length - 1; i >= 0; i--) {
    const c = classify(moves[i], board);
    if (c.kind === "move") return new Set([c.from, c.to]);
    if (["beam", "launch"].includes(c.kind)) return new Set([c.from, c.to]);
    if (c.kind === "field") return new Set([c.from, c.to, c.dest].filter((s) => s !== "off"));
    if (c.kind === "counter" || c.kind === "response") return new Set([c.from]);
    if (c.kind === "place") return new Set([c.at]);
    if (c.kind === "end" || c.kind === "pass") return new Set();
  }
  return new Set();
}

/** The status line: turn, phase and step, the side to act, and what is pending. */
function status(view, board, ctx) {
  const box = document.createElement("div");
  box.className = "sw-status";
  const line = document.createElement("p");
  line.className = "sw-phase";
  const kind = { 1: "movement", 5: "movement", 3: "missile", 7: "missile" }[board.phase]
    ?? "force combat";
  let text = `Turn ${board.turn}, phase ${board.phase} of 8 (${kind}`;
  if (board.step && STEPS[board.step] !== kind) text += `, ${STEPS[board.step]}`;
  text += ")";
  if (board.result) text += `. Game over: ${board.result} (${board.reason})`;
  else if (board.side_to_act) text += `. ${board.side_to_act} to act`;
  if (board.step === "move" && !board.result) {
    text += `; ${board.moved_groups?.length ?? 0} of up to 4 ships moved`;
  }
  line.textContent = `${text}.`;
  box.append(line);
  const notes = [];
  if (ctx.seat === 0 || ctx.seat === 1) {
    notes.push(`You play ${ctx.seat === 0 ? "White" : "Black"}.`);
  }
  const w = board.window;
  if (w) notes.push(`The ${w.attack} moved the piece on ${w.piece} from ${w.from} (generator `
                    + `${w.generator}): its owner may respond now.`);
  for (const [side, n] of Object.entries(board.pending ?? {})) {
    if (n) notes.push(`${side} has ${n} replacement missile${n > 1 ? "s" : ""} to place.`);
  }
  if (ctx.moves?.length) notes.push(`Last action: ${ctx.moves.at(-1)}.`);
  if (notes.length) {
    const p = document.createElement("p");
    p.className = "sw-notes";
    p.textContent = notes.join(" ");
    box.append(p);
  }
  return box;
}

function legend(root, ctx, show) {
  const box = document.createElement("div");
  box.className = "sw-legend";
  const p = document.createElement("p");
  p.textContent = "Ships: Mothership K a hexagon, Tractor D a circle, Pressor E a diamond, "
    + "Immobilizer N an octagon, Gunboat R a triangle pointing forward; white or black by owner, "
    + "drawn smaller (dashed) when small side up; missiles: darts pointing forward, outlined "
    + "in orange once fired. Shading: the squares a side's fields cover (darker where several "
    + "overlap). A red ring: standing beam hits, their ids and types above the piece (grey, "
    + "struck through: cancelled). ⚓ anchored, • moved since the last movement phase began, "
    + "dashed: where a field-moved piece came from. Keys: Tab to the board, arrows between "
    + "squares, Enter or Space to pick a piece, then its target.";
  const toggles = document.createElement("p");
  toggles.className = "sw-field-toggle";
  toggles.setAttribute("role", "group");
  toggles.setAttribute("aria-label", "Fields shown");
  toggles.append("Fields shown: ");
  for (const [value, words] of [["both", "both"], ["White", "White's"], ["Black", "Black's"],
                                ["none", "none"]]) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = words;
    b.setAttribute("aria-pressed", String(show === value));
    b.addEventListener("click", () => {
      root.dataset.fields = value;
      render(root, ctx);
    });
    toggles.append(b, " ");
  }
  box.append(toggles, p);
  return box;
}
