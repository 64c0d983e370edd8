"""A text picture of a Yavoch field: the five levels side by side (bottom level first).

Each position is four characters: `1S3 ` (player 1's Squam with 3 units), `2T  ` (an empty
Trych), `1N2@` (a ship standing on a gate), `2G  ` (a gate), `1M  ` (a mine), `E2  ` (two energy
tokens), ` .  ` (empty). Rows run y = 5 (top) to 1, columns x = 1 to 5.
"""

from domain.yavoch.field import LEVELS, Position
from domain.yavoch.state import State

_GAP = "   "


def _cell(state: State, p: Position) -> str:
    board = state.board
    ship, gate = board.ships.get(p), board.gates.get(p)
    if ship is not None:
        return f"{ship.owner}{ship.kind.value}{ship.energy or ' '}{'@' if gate else ' '}"
    if gate is not None:
        return f"{gate.owner}G  "
    if p in board.mines:
        return f"{board.mines[p]}M  "
    if p in board.tokens:
        return f"E{board.tokens[p]}  "
    return " .  "


def render(state: State) -> str:
    width = 3 + 5 * 4
    lines = [_GAP.join(f"level {level}".ljust(width) for level in LEVELS)]
    lines.append(
        _GAP.join(("   " + "".join(f"x{x}  " for x in range(1, 6))).ljust(width) for _ in LEVELS)
    )
    for y in range(5, 0, -1):
        lines.append(
            _GAP.join(
                f"y{y} " + "".join(_cell(state, Position(level, x, y)) for x in range(1, 6))
                for level in LEVELS
            )
        )
    lines.append("")
    out = state.outcome
    if out is not None:
        lines.append(f"{out.result} ({out.reason})")
    elif state.phase in ("levels", "place"):
        lines.append(f"setup: {state.phase}")
    else:
        status = f"turn {state.number}: player {state.mover + 1} to act"
        if state.window is not None:
            status += f"; player {state.window.seat + 1} may answer {state.window.action}"
        lines.append(status)
    if state.cfg.full:
        cards = state.cards
        lines.append(
            f"hands {len(cards.hands[0])}/{len(cards.hands[1])}, draw pile "
            f"{len(cards.pile) + len(cards.found)}, discards {len(cards.discard)}"
        )
    return "\n".join(lines)
