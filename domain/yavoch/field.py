"""The Yavoch field (Y-1.1 to Y-1.11): positions, directions, level offsets, columns, core,
quadrants and coordinate lines.

A position is `(level, x, y)`, all 1-based (Y-1.1). Each level is offset from the level below
by one long-vector step, so the position straight above `(L, x, y)` is `(L+1, x-1, y-1)`
(Y-1.4, Y-R1). Everything below is derived from those two facts; the counts the ruling states
(125 positions, 61 perpendicular columns, 25 slant columns, 45 core positions, 9 per quadrant
and per coordinate line) are checked by the tests, not written here.
"""

import functools
from collections import defaultdict
from enum import Enum
from typing import Final, Literal, NamedTuple

LEVELS: Final = (1, 2, 3, 4, 5)  # Y-1.1: 1 = bottom, 5 = top
COORDINATES: Final = (1, 2, 3, 4, 5)  # Y-1.1: x and y


class Position(NamedTuple):
    """Y-1.1: a position `(L, x, y)`; ordered level first, then x, then y."""

    level: int
    x: int
    y: int


class Direction(NamedTuple):
    """Y-1.3: a direction vector `(dL, dx, dy)`."""

    dlevel: int
    dx: int
    dy: int


# Y-1.3 directions.
SHORT_VECTORS: Final = (
    Direction(0, +1, 0),
    Direction(0, -1, 0),
    Direction(0, 0, +1),
    Direction(0, 0, -1),
)
LONG_VECTORS: Final = (
    Direction(0, +1, +1),
    Direction(0, +1, -1),
    Direction(0, -1, +1),
    Direction(0, -1, -1),
)
PU: Final = Direction(+1, -1, -1)  # perpendicular up: straight above (Y-1.4)
PD: Final = Direction(-1, +1, +1)  # perpendicular down
SU: Final = Direction(+1, 0, 0)  # slant up
SD: Final = Direction(-1, 0, 0)  # slant down
IN_LEVEL_DIRECTIONS: Final = SHORT_VECTORS + LONG_VECTORS
PERPENDICULAR_DIRECTIONS: Final = (PU, PD)
SLANT_DIRECTIONS: Final = (SU, SD)
LINE_DIRECTIONS: Final = IN_LEVEL_DIRECTIONS + PERPENDICULAR_DIRECTIONS + SLANT_DIRECTIONS
DIRECTION_NAMES: Final = {PU: "PU", PD: "PD", SU: "SU", SD: "SD"}


def on_field(level: int, x: int, y: int) -> bool:
    """Y-1.1: level, x and y all in 1..5."""
    return 1 <= level <= 5 and 1 <= x <= 5 and 1 <= y <= 5


# Y-1.1: the 125 positions in notation order (111, 112, ..., 555).
POSITIONS: Final = tuple(
    Position(lv, x, y) for lv in LEVELS for x in COORDINATES for y in COORDINATES
)


def level_positions(level: int) -> tuple[Position, ...]:
    """Y-1.1: the 25 positions of one level (a 5 x 5 matrix)."""
    if level not in LEVELS:
        raise ValueError(f"Y-1.1: level must be 1..5, not {level}")
    return tuple(p for p in POSITIONS if p.level == level)


@functools.cache
def step(p: Position, d: Direction) -> Position | None:
    """Y-1.3: `p + d`, or None when that is off the field."""
    level, x, y = p.level + d.dlevel, p.x + d.dx, p.y + d.dy
    return Position(level, x, y) if on_field(level, x, y) else None


@functools.cache
def line(p: Position, d: Direction) -> tuple[Position, ...]:
    """Y-1.8: `p+d, p+2d, ...` while on the field (`p` itself excluded). Cached: the field is
    fixed, and the rules walk lines all the time (slides, sight, shots)."""
    out: list[Position] = []
    q = step(p, d)
    while q is not None:
        out.append(q)
        q = step(q, d)
    return tuple(out)


# Y-1.4: level offsets. Level L's grid lies one long-vector step further than level L-1's, so
# in the frame of level 1 the point under (L, x, y) is (x + L - 1, y + L - 1).
def level_offset(level: int) -> tuple[int, int]:
    """Y-1.4: how far level `level`'s grid is shifted, in (x, y) steps, from level 1's."""
    if level not in LEVELS:
        raise ValueError(f"Y-1.1: level must be 1..5, not {level}")
    return (level - 1, level - 1)


def physical_xy(p: Position) -> tuple[int, int]:
    """Y-1.4 / Y-1.6: the point of level 1's frame that `p` stands straight above.

    Positions with equal `physical_xy` (equivalently equal `(x+L, y+L)`) form a perpendicular
    column."""
    dx, dy = level_offset(p.level)
    return (p.x + dx, p.y + dy)


def above(p: Position) -> Position | None:
    """Y-1.4: the position physically straight above `p` (`p + PU`), or None."""
    return step(p, PU)


def below(p: Position) -> Position | None:
    """Y-1.4: the position physically straight below `p` (`p + PD`), or None."""
    return step(p, PD)


def _columns(key: dict[Position, tuple[int, int]]) -> tuple[tuple[Position, ...], ...]:
    groups: defaultdict[tuple[int, int], list[Position]] = defaultdict(list)
    for p in POSITIONS:  # level-major, so each column comes out bottom to top
        groups[key[p]].append(p)
    return tuple(tuple(g) for _, g in sorted(groups.items()))


# Y-1.6: perpendicular (vertical) columns, bottom to top, ordered by physical_xy.
PERPENDICULAR_COLUMNS: Final = _columns({p: physical_xy(p) for p in POSITIONS})
# Y-1.5: slant columns, bottom to top, ordered by (x, y).
SLANT_COLUMNS: Final = _columns({p: (p.x, p.y) for p in POSITIONS})
_PERPENDICULAR_OF: Final = {p: c for c in PERPENDICULAR_COLUMNS for p in c}
_SLANT_OF: Final = {p: c for c in SLANT_COLUMNS for p in c}


def perpendicular_column(p: Position) -> tuple[Position, ...]:
    """Y-1.6: the perpendicular column through `p`, bottom to top."""
    return _PERPENDICULAR_OF[p]


def slant_column(p: Position) -> tuple[Position, ...]:
    """Y-1.5: the slant column through `p` (same x, y on every level), bottom to top."""
    return _SLANT_OF[p]


def is_adjacent(p: Position, q: Position) -> bool:
    """Y-1.7: same level and one in-level direction apart."""
    return p.level == q.level and p != q and max(abs(p.x - q.x), abs(p.y - q.y)) == 1


@functools.cache
def adjacent_positions(p: Position) -> tuple[Position, ...]:
    """Y-1.7: the (at most 8) adjacent positions, in IN_LEVEL_DIRECTIONS order."""
    return tuple(q for d in IN_LEVEL_DIRECTIONS if (q := step(p, d)) is not None)


# Y-1.9: core positions.
CoreDefinition = Literal["board_lines", "physical_lines"]
CORE_DEFINITIONS: Final[tuple[CoreDefinition, ...]] = ("board_lines", "physical_lines")


def is_core(p: Position, definition: CoreDefinition = "board_lines") -> bool:
    """Y-1.9 / Y-R2: `board_lines` (default): x = 3 or y = 3 on every level;
    `physical_lines`: x = 6-L or y = 6-L, the lines straight above level 3's centre lines."""
    if definition == "board_lines":
        return p.x == 3 or p.y == 3
    if definition == "physical_lines":
        return p.x == 6 - p.level or p.y == 6 - p.level
    raise ValueError(
        f"Y-1.9: core_definition must be board_lines or physical_lines, not {definition!r}"
    )


def core_positions(definition: CoreDefinition = "board_lines") -> tuple[Position, ...]:
    """Y-1.9: every core position, in notation order."""
    return tuple(p for p in POSITIONS if is_core(p, definition))


# Y-1.10 / Y-R3: quadrants, each a 3 x 3 block including its boundary (dotted) positions.
class Quadrant(Enum):
    """Y-1.10: the quadrant and the die roll that names it (Y-6.27)."""

    ALPHA = 6
    BETA = 7
    GAMMA = 8
    DELTA = 9

    @property
    def roll(self) -> int:
        return self.value


# Y-1.10 default `quadrants` table: the x range and the y range of each block.
QUADRANTS: Final[dict[Quadrant, tuple[range, range]]] = {
    Quadrant.ALPHA: (range(1, 4), range(1, 4)),  # x <= 3 and y <= 3
    Quadrant.BETA: (range(3, 6), range(1, 4)),  # x >= 3 and y <= 3
    Quadrant.GAMMA: (range(3, 6), range(3, 6)),  # x >= 3 and y >= 3
    Quadrant.DELTA: (range(1, 4), range(3, 6)),  # x <= 3 and y >= 3
}


def quadrant_positions(quadrant: Quadrant, level: int = 3) -> tuple[Position, ...]:
    """Y-1.10: the 9 positions of `quadrant` on `level` (the rules use level 3 only)."""
    xs, ys = QUADRANTS[quadrant]
    return tuple(p for p in level_positions(level) if p.x in xs and p.y in ys)


def quadrant_of_roll(roll: int) -> Quadrant:
    """Y-1.10: the quadrant a roll of 6..9 names."""
    try:
        return Quadrant(roll)
    except ValueError:
        raise ValueError(f"Y-1.10: a quadrant roll is 6..9, not {roll}") from None


def coordinate_line(n: int, level: int = 3) -> tuple[Position, ...]:
    """Y-1.11 / Y-R4: short-vector coordinate line `n` of `level`: x = n or y = n (9 positions)."""
    if n not in COORDINATES:
        raise ValueError(f"Y-1.11: a coordinate line is numbered 1..5, not {n}")
    return tuple(p for p in level_positions(level) if n in (p.x, p.y))
