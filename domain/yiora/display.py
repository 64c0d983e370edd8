"""What a Yiora board shows: the JSON `view` and the text `render` (the rings unrolled as a
5 × 36 grid, ring A on top, column 1 on the left)."""

from typing import TYPE_CHECKING, Any, Final

from domain.yiora.geometry import (
    COLOUR,
    COLOUR_NAMES,
    COLUMNS,
    KIND_LETTERS,
    KIND_NAMES,
    RING_LETTERS,
    RINGS,
    column_of,
    display_name,
    kind_of,
    ring_of,
    side_of,
    square,
)
from domain.yiora.position import GAME_IDS, SIDE_LETTERS, SIDE_NAMES
from domain.yiora.seats import seat_count, seats_of, teams

if TYPE_CHECKING:  # rules.py imports this module
    from domain.yiora.rules import Game, State

EMPTY_CELL: Final = "."  # an empty square of a game's colour
UNUSED_CELL: Final = "·"  # a square of a colour no game uses (the white squares in Primary Basic)


def _game_view(state: "State", g: int, due: int | None) -> dict[str, Any]:
    game: Game = state.games[g]
    pos = game.pos
    names = SIDE_NAMES[pos.colour]
    threatened = pos.overlords[pos.turn] if pos.check else None  # YI-6.1, also once mated
    men = []
    for sq, code in enumerate(pos.board):
        if not code:
            continue
        side, kind = side_of(code), kind_of(code)
        men.append({"square": display_name(sq), "ring": RING_LETTERS[ring_of(sq) - 1],
                    "column": column_of(sq), "side": names[side], "piece": KIND_LETTERS[kind],
                    "name": KIND_NAMES[kind], "threatened": sq == threatened})  # fmt: skip
    offer = game.agreement.offer
    result = game.result
    return {
        "game": GAME_IDS[pos.colour],
        "colour": COLOUR_NAMES[pos.colour],
        "sides": list(names),
        "seats": [list(seats_of(state.config, g, side)) for side in (0, 1)],
        "to_move": None if result else names[pos.turn],
        "due": result is None and due in (None, g),
        "threatened": display_name(threatened) if threatened is not None else None,  # YI-6.1
        "men": men,
        "last_move": game.last or None,
        "halfmove": pos.halfmove,
        "fullmove": pos.fullmove,
        "draw_offer": names[offer] if offer >= 0 and result is None else None,
        "result": result.result if result else None,
        "reason": result.reason if result else None,
    }


def view(state: "State", position: str, to_act: list[int]) -> dict[str, Any]:
    config, out = state.config, state.outcome
    due = state.due()
    first = state.games[0]
    return {
        "variant": config.variant,
        "variation": config.variation,
        "position": position,
        "seats": seat_count(config),
        "teams": [list(team) for team in teams(config)],
        "turn_mode": config.complex_turn_mode if config.variation == "secondary_complex" else None,
        "to_act": to_act,
        "games": [_game_view(state, g, due) for g in range(len(state.games))],
        # As every two-seat board shows them: the seat to move and its Overlord's threat.
        "to_move": to_act[0] if len(to_act) == 1 else None,
        "in_check": first.pos.check and not state.secondary,
        "result": out.result if out else None,
        "reason": out.reason if out else None,
        "winners": list(out.winners) if out else [],
    }


def _cell(state: "State", sq: int) -> str:
    for game in state.games:
        if game.pos.colour == COLOUR[sq]:
            code = game.pos.board[sq]
            if not code:
                return EMPTY_CELL
            return SIDE_LETTERS[game.pos.colour][side_of(code)] + KIND_LETTERS[kind_of(code)]
    return UNUSED_CELL


def render(state: "State", position: str) -> str:
    """The rings unrolled: one row per ring, A (outermost) on top, columns 1 to 36; a man is
    its side's letter and its kind's (`WO` the White Overlord, `SP` a Silver Pawn)."""
    lines = ["ring |" + "".join(f"{c:>3}" for c in range(1, COLUMNS + 1))]
    for r in range(RINGS, 0, -1):
        cells = "".join(f"{_cell(state, square(r, c)):>3}" for c in range(1, COLUMNS + 1))
        lines.append(f"  {RING_LETTERS[r - 1]}  |{cells}")
    due = state.due()
    for g, game in enumerate(state.games):
        pos = game.pos
        names = SIDE_NAMES[pos.colour]
        label = f"{GAME_IDS[pos.colour]}: " if len(state.games) == 2 else ""
        if game.result:
            status = f"{game.result.result} ({game.result.reason})"
        else:
            status = f"{names[pos.turn]} to move"
            if pos.check:
                threatened = display_name(pos.overlords[pos.turn])
                status += f", its Overlord on {threatened} is threatened"
            if due == g:
                status += " (due in this turn)"
        last = f"; last move {game.last}" if game.last else ""
        lines.append(f"{label}{status}{last}")
    if state.outcome and len(state.games) == 2:
        lines.append(f"match: {state.outcome.result} ({state.outcome.reason})")
    lines.append(position)
    return "\n".join(lines)


__all__ = ["render", "view"]
