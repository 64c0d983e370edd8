"""Cyvasse (Jeff C. Caird) per /work/shared/rulings/cyvasse.md (ruling v1.0): versions A, B and
C on the square boards and the hex board (Hex Cyvasse), Optional Rules a-g, the hex optional
rules and every CY-0.2 parameter."""

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
