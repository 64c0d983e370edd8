"""Shared helpers for the Cyvasse rules tests."""

import msgspec

from domain.cyvasse import CYVASSE, Move, State
from tests.rulesets.referee import Referee

REFEREE = Referee(CYVASSE, lambda state: state.pos.turn)
act = REFEREE.act  # (state, text, seat=None): must succeed
play = REFEREE.play  # (state, *texts), each by the side to move
refuse = REFEREE.refuse  # (state, text, seat=None): the Rejection from parsing or deciding


def position(white: str, black: str, side: str = "w", reserve: str = "-", quiet: int = 0,
             terrain: str = "", storm: str = "-") -> str:  # fmt: skip
    """A CY-1.3.5 record from men lists like "Ke1 Td1" (terrain like "Xb4 Fd4")."""
    return (f"side={side}; white={white}; black={black}; terrain={terrain}; "
            f"reserve={reserve}; storm={storm}; plies_since_progress={quiet}")  # fmt: skip


def new(white: str, black: str, variant: str = "A", side: str = "w", reserve: str = "-",
        quiet: int = 0, terrain: str = "", storm: str = "-") -> State:  # fmt: skip
    return REFEREE.start(variant, position(white, black, side, reserve, quiet, terrain, storm))


def legal_texts(state: State) -> set[str]:
    """Canonical texts of the side to move's legal board actions."""
    return REFEREE.legal_texts(state, keep=lambda a: isinstance(a, Move))


def actions_from(state: State, square: str) -> set[str]:
    return {t for t in legal_texts(state) if t.startswith(square) and t[len(square)] in "-x*"}


def setup_bytes(men: dict[str, str], terrain: dict[str, str] | None = None) -> bytes:
    if terrain is None:
        return msgspec.json.encode({"men": men}, order="sorted")
    return msgspec.json.encode({"men": men, "terrain": terrain}, order="sorted")
