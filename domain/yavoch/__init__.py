"""Yavoch per the Yavoch rulings v1 (clauses Y-...; the engine's own decisions in
docs/rules/yavoch.md): Captain Decker's (`decker`) and the Full Yavoch (`full`) as one ruleset,
`YAVOCH` (rules.py).

Its parts, from the ground up: the field (field.py), notation (notation.py), pieces and counts
(pieces.py), movement (movement.py), the effects of actions and events on the field (board.py),
cards (cards.py), variants (variant.py); then the game state (state.py), the actions a player
writes (actions.py), applying events (evolve.py), a decision in progress (run.py), the Full
Yavoch's cards and weapons (full.py), turns and the end of the game (turns.py), deciding an
action (decide.py), legal actions (legal.py), the bots' policy (bot.py), the position record
(record.py) and the text picture (render.py).
"""

from domain.yavoch.field import (
    LINE_DIRECTIONS,
    PERPENDICULAR_COLUMNS,
    POSITIONS,
    SLANT_COLUMNS,
    Direction,
    Position,
    Quadrant,
)
from domain.yavoch.notation import (
    Action,
    Piece,
    format_action,
    format_position,
    parse_action,
    parse_position,
)
from domain.yavoch.rules import YAVOCH, Yavoch

__all__ = [
    "LINE_DIRECTIONS",
    "PERPENDICULAR_COLUMNS",
    "POSITIONS",
    "SLANT_COLUMNS",
    "YAVOCH",
    "Action",
    "Direction",
    "Piece",
    "Position",
    "Quadrant",
    "Yavoch",
    "format_action",
    "format_position",
    "parse_action",
    "parse_position",
]
