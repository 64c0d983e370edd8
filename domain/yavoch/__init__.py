"""Yavoch per /work/shared/rulings/yavoch.md (rulings v1), built so far: the field (Y-1.1 to
Y-1.11), the position, piece and action notation (Y-1.12 to Y-1.14), the pieces and counts
(section 2) and ship movement (Y-5.1 to Y-5.16, in domain.yavoch.movement). No ruleset is
registered yet: battles, energy, turns and cards come next."""

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
