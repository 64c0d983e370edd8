"""What a Spacewar board shows: the JSON `view` and the text `render`."""

from typing import Any

from domain.spacewar.board import NAMES, RANKS, SIDE_NAMES, coords, square
from domain.spacewar.pieces import GENERATORS, KIND_NAMES
from domain.spacewar.state import State


def view(state: State, position: str, to_act: list[int]) -> dict[str, Any]:
    pieces = []
    for sq, p in enumerate(state.board):
        if p is None:
            continue
        f, r = coords(sq)
        pieces.append({"square": NAMES[sq], "file": f, "rank": r, "owner": SIDE_NAMES[p.owner],
                       "piece": p.kind, "name": KIND_NAMES[p.kind],
                       "side": "small" if p.small else "large", "moved": p.moved,
                       "anchored": p.anchored, "fired": p.fired, "launched": p.launched,
                       "hits": [f"h{h.id}" for h in state.hits if h.target == sq
                                and not h.cancelled],
                       # SW-5.30: a generator's field covers the squares within this range
                       "range": state.config.range_of(p.kind) if p.kind in GENERATORS
                       else None})  # fmt: skip
    w = state.window
    outcome = state.outcome
    return {
        "files": 16,
        "ranks": RANKS,
        "turn": state.turn,
        "phase": state.phase,
        "step": state.step,
        "to_act": to_act,
        "side_to_act": None if outcome else SIDE_NAMES[state.actor],
        "pieces": pieces,
        "hits": [
            {
                "id": f"h{h.id}",
                "type": h.kind,
                "firer": None if h.firer is None else NAMES[h.firer],
                "target": NAMES[h.target],
                "cancelled": h.cancelled,
            }
            for h in state.hits
        ],
        "window": None
        if w is None
        else {
            "attack": w.attack,
            "piece": NAMES[w.now],
            "from": NAMES[w.origin],
            "generator": NAMES[w.generator],
        },
        "pending": {"White": state.pending[0], "Black": state.pending[1]},
        "moved_groups": list(state.groups),
        "draw_offer": SIDE_NAMES[state.agreement.offer] if state.agreement.offer >= 0 else None,
        "result": outcome.result if outcome else None,
        "reason": outcome.reason if outcome else None,
        "position": position,
    }


def render(state: State) -> str:
    """Rank 12 on top; White's pieces in capitals, Black's in lower case; a small ship or a
    fired missile is followed by `'`, a piece with a standing hit by `*`."""
    hit = {h.target for h in state.hits if not h.cancelled}
    lines = []
    for r in range(RANKS, 0, -1):
        cells = []
        for f in range(1, 17):
            sq = square(f, r)
            p = state.board[sq]
            if p is None:
                cells.append(" . ")
                continue
            letter = p.kind if p.owner == 0 else p.kind.lower()
            mark = "'" if p.small or p.fired else " "
            cells.append(letter + mark + ("*" if sq in hit else " "))
        lines.append(f"{r:>2} " + "".join(cells))
    lines.append("   " + "".join(f" {c} " for c in "abcdefghijklmnop"))
    who = "over" if state.outcome else f"{SIDE_NAMES[state.actor]} to act"
    lines.append(f"turn {state.turn} phase {state.phase} ({state.step}), {who}")
    return "\n".join(lines)
