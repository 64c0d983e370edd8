"""Cyvasse (Jeff C. Caird) per the Cyvasse ruling v1.0 (its clauses are cited as CY-x.y and
CY-Rnn; the engine's own decisions are in docs/rules/cyvasse.md): versions A, B and C on the
square boards and the hex board (Hex Cyvasse), Optional Rules a-g, the hex optional rules and
every CY-0.2 parameter.

Modules, lowest first: variant (the variant string), board (geometry, men, position), terrain
(version C tiles and values), setup (the hidden setup), move (the `Move` record and what every
version shares), version_c (version C), movegen (versions A and B, dispatching C) and rules (the
ruleset: decide, evolve, notation, end of game)."""

from domain.cyvasse.board import Position, geometry
from domain.cyvasse.move import Move
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
