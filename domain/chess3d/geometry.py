"""Cubes, names, colours and directions (C3-1.1 to C3-1.6) on a padded 1-D mailbox.

A cube (x, y, z) with 0-based file x, rank y and level z is stored at index
`(z + 2) * 256 + (y + 4) * 16 + x`. Rows are 16 cells wide (8 padding cells) and every level
is surrounded by padding rows and padding levels, so a step or leap of up to two in any
coordinate from a cube lands either on a cube or on an OFFBOARD sentinel, and the difference of
two cube indices identifies (dx, dy, dz) uniquely (`DIRECTION_OF`).
"""

import re
from typing import Final

ROW: Final = 16
LEVEL: Final = 256
SIZE: Final = 7 * LEVEL

# Contents of a mailbox cell: 0 empty, OFFBOARD, or colour | kind.
EMPTY: Final = 0
OFFBOARD: Final = 0x40
WHITE: Final = 0x10
BLACK: Final = 0x20
COLORS: Final = (WHITE, BLACK)  # indexed by seat: 0 White, 1 Black

PAWN: Final = 1
KNIGHT: Final = 2
BISHOP: Final = 3
ROOK: Final = 4
QUEEN: Final = 5
KING: Final = 6
KIND_LETTERS: Final = ".PNBRQK"
LEVEL_NAMES: Final = ("I", "II", "III")
FILE_LETTERS: Final = "ABCDEFGH"


def square(x: int, y: int, z: int) -> int:
    """The mailbox index of the cube with 0-based file x, rank y, level z."""
    return (z + 2) * LEVEL + (y + 4) * ROW + x


def offset(dx: int, dy: int, dz: int) -> int:
    return dx + ROW * dy + LEVEL * dz


# Every cube, level I to III, ranks 1 to 8, files A to H.
SQUARES: Final = tuple(square(x, y, z) for z in range(3) for y in range(8) for x in range(8))
FILE_OF: Final = [-1] * SIZE
RANK_OF: Final = [-1] * SIZE
LEVEL_OF: Final = [-1] * SIZE
NAMES: Final = [""] * SIZE
for _z in range(3):
    for _y in range(8):
        for _x in range(8):
            _sq = square(_x, _y, _z)
            FILE_OF[_sq], RANK_OF[_sq], LEVEL_OF[_sq] = _x, _y, _z
            NAMES[_sq] = f"{LEVEL_NAMES[_z]}{FILE_LETTERS[_x]}{_y + 1}"
SQUARE_BY_NAME: Final = {NAMES[sq]: sq for sq in SQUARES}

EMPTY_BOARD: Final = bytes(EMPTY if NAMES[i] else OFFBOARD for i in range(SIZE))

_CUBE_RE: Final = re.compile(r"^(I|II|III)([A-H])([1-8])$", re.IGNORECASE)


def square_name(sq: int) -> str:
    """The cube's name (C3-1.2), e.g. `IIE4`."""
    return NAMES[sq]


def parse_square(text: str) -> int | None:
    """The cube named `text` (upper or lower case, C3-1.2), or None."""
    if not _CUBE_RE.match(text):
        return None
    return SQUARE_BY_NAME[text.upper()]


def is_dark(sq: int) -> bool:
    """C3-1.3: dark iff x + y is even (1-based), on every level."""
    return (FILE_OF[sq] + RANK_OF[sq]) % 2 == 0


# C3-1.4 directions, as (dx, dy, dz) and as mailbox offsets.
VECTORS: Final = tuple(
    (dx, dy, dz)
    for dz in (-1, 0, 1)
    for dy in (-1, 0, 1)
    for dx in (-1, 0, 1)
    if (dx, dy, dz) != (0, 0, 0)
)
ROOK_VECTORS: Final = tuple(v for v in VECTORS if sum(map(abs, v)) == 1)  # file/rank + vertical
DIAGONAL_VECTORS: Final = tuple(v for v in VECTORS if v[2] == 0 and v[0] and v[1])
TRIAGONAL_VECTORS: Final = tuple(v for v in VECTORS if all(v))
VERTICAL_DIAGONAL_VECTORS: Final = tuple(v for v in VECTORS if v[2] and (v[0] == 0) != (v[1] == 0))
BISHOP_VECTORS: Final = DIAGONAL_VECTORS + TRIAGONAL_VECTORS  # C3-5.4
KNIGHT_VECTORS: Final = tuple(
    (dx, dy, dz)
    for dz in (-2, -1, 0, 1, 2)
    for dy in (-2, -1, 0, 1, 2)
    for dx in (-2, -1, 0, 1, 2)
    if sorted((abs(dx), abs(dy), abs(dz))) == [0, 1, 2]
)  # C3-5.5: the 24 permutations of (0, ±1, ±2)

ROOK_DIRS: Final = tuple(offset(*v) for v in ROOK_VECTORS)
BISHOP_DIRS: Final = tuple(offset(*v) for v in BISHOP_VECTORS)
VDIAG_DIRS: Final = tuple(offset(*v) for v in VERTICAL_DIAGONAL_VECTORS)
KING_OFFSETS: Final = tuple(offset(*v) for v in VECTORS)
KNIGHT_OFFSETS: Final = tuple(offset(*v) for v in KNIGHT_VECTORS)
FORWARD: Final = (ROW, -ROW)  # by seat
# C3-5.6.3: the 8 capture vectors (dx, f, dz), by seat.
PAWN_CAPTURES: Final = tuple(
    tuple(offset(dx, f, dz) for dz in (-1, 0, 1) for dx in (-1, 0, 1) if (dx, dz) != (0, 0))
    for f in (1, -1)
)
PROMOTION_RANK: Final = (7, 0)  # 0-based, by seat
HOME_LEVEL: Final = (0, 2)

# DIRECTION_OF[delta + MAX_DELTA]: the unit offset d with delta = n * d (n >= 1) for two cubes
# on a common line of one of the 26 directions, else 0.
MAX_DELTA: Final = 7 + 7 * ROW + 2 * LEVEL
DIRECTION_OF: Final = [0] * (2 * MAX_DELTA + 1)
for _dx, _dy, _dz in VECTORS:
    for _n in range(1, 8):
        if _dz and _n > 2:
            break
        DIRECTION_OF[offset(_dx * _n, _dy * _n, _dz * _n) + MAX_DELTA] = offset(_dx, _dy, _dz)
