"""Yiora (Primary Basic, Secondary Basic, Secondary Complex) per the Yiora ruling v1.0 (its
clauses are cited as YI-x.y and YI-Rnn; the engine's own decisions are in docs/rules/yiora.md).

Modules, lowest first: geometry (rings, columns, colours, names, the lattice), moves (the men's
moves, threats, legality), position (one game's position, YI-1.8, setups, the end of a game,
perft), variant (YI-0.2), seats (who plays what, turns, the match result), notation (YI-1.7),
display (view and render) and rules (the ruleset)."""

from domain.yiora.geometry import display_name, parse_square, square, square_name
from domain.yiora.notation import Action, Command, Move, Verb
from domain.yiora.position import Position
from domain.yiora.rules import YIORA, Game, State, Yiora
from domain.yiora.variant import Config, parse_variant

__all__ = [
    "YIORA",
    "Action",
    "Command",
    "Config",
    "Game",
    "Move",
    "Position",
    "State",
    "Verb",
    "Yiora",
    "display_name",
    "parse_square",
    "parse_variant",
    "square",
    "square_name",
]
