"""Shared helpers for the Spacewar rules tests: hand-set positions in the position notation
(docs/rules/spacewar.md) and a referee that plays action texts."""

from typing import Any

from domain.core import Rejection
from domain.spacewar import SPACEWAR, State
from domain.spacewar.board import parse_square
from domain.spacewar.pieces import Piece
from tests.rulesets.referee import Referee

REFEREE = Referee(SPACEWAR)
act = REFEREE.act  # (state, text, seat=None): must succeed
play = REFEREE.play  # (state, *texts), each by the side to act
refuse = REFEREE.refuse  # (state, text, seat=None): the Rejection


def new(position: str = "", variant: str = "") -> State:
    return REFEREE.start(variant, position)


def position(
    white: str,
    black: str,
    *,
    t: int = 1,
    p: int = 1,
    s: str = "move",
    a: str = "w",
    passes: int = 0,
    moved: str = "-",
    hit: int = 1,
    hits: str = "-",
    window: str = "-",
    pending: str = "0,0",
) -> str:
    """A position text; `white` and `black` list pieces as in the notation (`Kb2,Ra2s`)."""
    return (f"t={t} p={p} s={s} a={a} passes={passes} moved={moved} hit={hit} W={white} "
            f"B={black} hits={hits} window={window} pending={pending}")  # fmt: skip


def at(white: str, black: str, variant: str = "", **fields: Any) -> State:
    """A state from a hand-set position (see `position`)."""
    return new(position(white, black, **fields), variant)


def sq(name: str) -> int:
    square = parse_square(name)
    assert square is not None, name
    return square


def piece(state: State, name: str) -> Piece | None:
    return state.board[sq(name)]


def legal(state: State) -> set[str]:
    return {SPACEWAR.format_action(state, a) for a in SPACEWAR.legal_actions(state, state.actor)}


def clause(rejection: Rejection) -> str:
    return rejection.clause


def pieces_text(state: State) -> str:
    """The W= and B= fields of the position."""
    fields = dict(item.split("=", 1) for item in SPACEWAR.position(state).split())
    return f"W={fields['W']} B={fields['B']}"
