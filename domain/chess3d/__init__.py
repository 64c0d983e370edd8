"""3-D Chess (Lynn R. Johnson, 1967) per the 3-D Chess ruling v1.0 (its C3- clauses;
the engine's own decisions in docs/rules/chess3d.md)."""

from domain.chess3d.geometry import parse_square, square, square_name
from domain.chess3d.position import STARTING_FEN, Position
from domain.chess3d.rules import CHESS3D, Action, Chess3D, Command, Move, State
from domain.chess3d.variant import Config


def perft(state: State, depth: int) -> int:
    """Number of legal move sequences of length `depth` from the state's position."""
    return CHESS3D.perft(state, depth)


__all__ = [
    "CHESS3D",
    "STARTING_FEN",
    "Action",
    "Chess3D",
    "Command",
    "Config",
    "Move",
    "Position",
    "State",
    "parse_square",
    "perft",
    "square",
    "square_name",
]
