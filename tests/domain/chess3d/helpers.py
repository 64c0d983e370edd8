"""Shared helpers for the 3-D Chess rules tests."""

from contracts.events import Event
from domain.chess3d import CHESS3D, Move, State
from domain.chess3d.geometry import NAMES, square
from domain.core import Rejection


def fen_of(men: dict[str, str], side: str = "w", rest: str = "- - - 0 1 -") -> str:
    """A 3D-FEN with `men` ({"IE1": "K", ...}) and the given side and remaining fields."""
    levels = []
    for z in range(3):
        ranks = []
        for y in range(7, -1, -1):
            text, run = "", 0
            for x in range(8):
                man = men.get(NAMES[square(x, y, z)])
                if man is None:
                    run += 1
                    continue
                if run:
                    text, run = text + str(run), 0
                text += man
            ranks.append(text + (str(run) if run else ""))
        levels.append("/".join(ranks))
    return f"{'|'.join(levels)} {side} {rest}"


def new(position: str = "", variant: str = "") -> State:
    return CHESS3D.start(CHESS3D.create(variant, position))


def act(state: State, text: str, seat: int | None = None) -> tuple[State, tuple[Event, ...]]:
    """Parse, decide and evolve `text` for `seat` (default: the side to move); must succeed."""
    seat = state.pos.turn if seat is None else seat
    action = CHESS3D.parse_action(state, seat, text)
    assert not isinstance(action, Rejection), action
    events = CHESS3D.decide(state, seat, action)
    assert isinstance(events, tuple), events
    for event in events:
        state = CHESS3D.evolve(state, event)
    return state, events


def play(state: State, *texts: str) -> State:
    for text in texts:
        state, _ = act(state, text)
    return state


def refuse(state: State, text: str, seat: int | None = None) -> Rejection:
    """The Rejection `text` earns (from parsing or deciding)."""
    seat = state.pos.turn if seat is None else seat
    action = CHESS3D.parse_action(state, seat, text)
    if isinstance(action, Rejection):
        return action
    result = CHESS3D.decide(state, seat, action)
    assert isinstance(result, Rejection), result
    return result


def moves_from(state: State, cube: str) -> set[str]:
    """Destination cubes of the legal moves from `cube` (promotions collapsed)."""
    return {
        NAMES[a.to_square]
        for a in CHESS3D.legal_actions(state, state.pos.turn)
        if isinstance(a, Move) and NAMES[a.from_square] == cube
    }


def legal_texts(state: State) -> set[str]:
    return {
        CHESS3D.format_action(state, a)
        for a in CHESS3D.legal_actions(state, state.pos.turn)
        if isinstance(a, Move)
    }
