"""Shared helpers for the Yiora rules tests."""

from domain.yiora import YIORA, Move, State
from domain.yiora.geometry import NAMES, parse_square
from domain.yiora.rules import Game
from domain.yiora.seats import seats_of
from tests.rulesets.referee import Referee

START = (
    "w W:OA1,MA35,MA3,MR36,MR2,PO33,PO35,PO3,PO5 B:OA19,MA17,MA21,MR18,MR20,PO15,PO17,PO21,PO23 0 1"
)
WSQ_START = (
    "g G:OA2,MA36,MA4,MR1,MR3,PO34,PO36,PO4,PO6 S:OA20,MA18,MA22,MR19,MR21,PO16,PO18,PO22,PO24 0 1"
)


def _only_seat(state: State) -> int:
    seats = YIORA.to_act(state)
    assert len(seats) == 1, f"seats {sorted(seats)} to act: name the seat"
    return next(iter(seats))


REFEREE = Referee(YIORA, _only_seat)
act = REFEREE.act  # (state, text, seat=None): must succeed
play = REFEREE.play  # (state, *texts), each by the only seat to act
refuse = REFEREE.refuse  # (state, text, seat=None): the Rejection from parsing or deciding


def new(position: str = "", variant: str = "") -> State:
    return REFEREE.start(variant, position)


def sq(name: str) -> int:
    square = parse_square(name)
    assert square is not None, name
    return square


def moves_from(state: State, square: str, game: int = 0) -> set[str]:
    """Destination squares (compact names) of the side to move's legal moves from `square`."""
    seat = seats_of(state.config, game, state.games[game].pos.turn)[0]
    return {
        NAMES[a.to_square]
        for a in YIORA.legal_actions(state, seat)
        if isinstance(a, Move) and a.game == game and a.from_square == sq(square)
    }


def legal_texts(state: State, seat: int | None = None) -> set[str]:
    """Canonical texts of `seat`'s (default: the only seat to act) legal moves."""
    return REFEREE.legal_texts(state, seat, keep=lambda a: isinstance(a, Move))


def game(state: State, index: int = 0) -> Game:
    return state.games[index]
