"""Yavoch per /work/shared/rulings/yavoch.md (rulings v1): first increment, section 1 only —
the field (Y-1.1 to Y-1.11) and the position, piece and action notation (Y-1.12 to Y-1.14).
No ruleset is registered yet."""

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

__all__ = [
    "LINE_DIRECTIONS",
    "PERPENDICULAR_COLUMNS",
    "POSITIONS",
    "SLANT_COLUMNS",
    "Action",
    "Direction",
    "Piece",
    "Position",
    "Quadrant",
    "format_action",
    "format_position",
    "parse_action",
    "parse_position",
]
