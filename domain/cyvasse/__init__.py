"""Cyvasse (Jeff C. Caird) per /work/shared/rulings/cyvasse.md (ruling v1.0): versions A, B and
C on square boards, Optional Rules a-g. Hex Cyvasse is refused by `create`."""

from domain.cyvasse.board import Position, geometry
from domain.cyvasse.movegen import Move
from domain.cyvasse.rules import CYVASSE, Action, Command, Cyvasse, State
from domain.cyvasse.variant import Config, parse_variant

__all__ = [
    "CYVASSE",
    "Action",
    "Command",
    "Config",
    "Cyvasse",
    "Move",
    "Position",
    "State",
    "geometry",
    "parse_variant",
]
