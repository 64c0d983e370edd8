"""Yavoch per /work/shared/rulings/yavoch.md (rulings v1): Captain Decker's (`decker`) and the
Full Yavoch (`full`) as one ruleset, `YAVOCH` (rules.py). The field (field.py), notation
(notation.py), pieces and counts (pieces.py), movement (movement.py), the effects of actions and
events on the field (board.py), cards (cards.py), variants (variant.py) and the text picture
(render.py) are its parts."""

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
