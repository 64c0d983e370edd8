"""Shared helpers for the spacewar-ha rules tests: hand-set positions, acting by text."""

from domain.core import Rejection
from domain.spacewar_ha import SPACEWAR_HA, Action, State
from domain.spacewar_ha.notation import RELEASE, VERBS
from tests.rulesets.referee import Referee

BASES = "Wd2:36/72,We2:36/72,Bd7:36/72,Be7:36/72"
REFEREE = Referee(SPACEWAR_HA)
act = REFEREE.act  # (state, text, seat=None): must succeed
play = REFEREE.play  # (state, *texts), each by the side to act


def new(position: str = "", variant: str = "") -> State:
    return REFEREE.start(variant, position)


def at(pieces: str, bases: str = BASES, side: str = "w", holds: str = "-", passed: int = 0,
       number: int = 1, variant: str = "") -> State:  # fmt: skip
    """A hand-set position: `pieces` as in the position notation."""
    return new(f"{side} {number} {passed} {pieces} {bases} {holds}", variant)


def refuse(state: State, text: str, seat: int | None = None) -> Rejection:
    return REFEREE.refuse(state, text, seat)


def clause(state: State, text: str, seat: int | None = None) -> str:
    """The clause the refusal of `text` cites."""
    return refuse(state, text, seat).clause


def legal(state: State) -> set[str]:
    """The side to act's legal game actions (no platform verbs), as text."""
    return REFEREE.legal_texts(state, keep=lambda a: a.kind not in VERBS)


def legal_from(state: State, square: str) -> set[str]:
    """The legal actions of the piece on `square`."""
    return {
        t for t in legal(state) if t[1:].startswith(square) and not t[1 + len(square)].isdigit()
    }


def pieces(state: State) -> str:
    """The pieces field of the position."""
    return SPACEWAR_HA.position(state).split()[3]


def field(state: State, index: int) -> str:
    return SPACEWAR_HA.position(state).split()[index]


def is_release(action: Action) -> bool:
    return action.kind == RELEASE
