"""The circular board (YI-1.1 to YI-1.6): rings, columns, wrap-around, colours, square names and
the lattice of each game's colour, as tables computed once.

A square (r, c), ring r = 1 (Y, innermost) … 5 (A, outermost) and column c = 1 … 36, is stored
at index `(r - 1) * 36 + (c - 1)` (0 … 179). Every table below is indexed by square. A step
along the game lattice (YI-1.6) never changes a square's colour, so one set of tables serves
both games: from a black square they reach only black squares, from a white one only white
ones; squares of the other colour are never looked at (YI-R05, YI-R24).
"""

import re
from typing import Final

RINGS: Final = 5
COLUMNS: Final = 36
SQUARE_COUNT: Final = RINGS * COLUMNS
RING_LETTERS: Final = "YIORA"  # r = 1 … 5, innermost first (YI-1.1, YI-R01)

# Colours (YI-1.4): black iff r + c is even; each game is played on one colour (YI-1.6, YI-8.1).
BLACK: Final = 0
WHITE: Final = 1
COLOUR_NAMES: Final = ("black", "white")

# A man on the board: side * 4 + kind (0 empty). Side 0 is White (Gold in game wsq), side 1
# Black (Silver), YI-8.1.
EMPTY: Final = 0
OVERLORD: Final = 1
MAGE: Final = 2
PAWN: Final = 3
KIND_LETTERS: Final = ".OMP"  # YI-1.8: O Overlord, M Mage, P Pawn
KIND_NAMES: Final = ("", "Overlord", "Mage", "Pawn")
MAGE_RING_REACH: Final = 5  # squares of its colour along a ring (YI-5.2.1)
MAGE_COLUMN_REACH: Final = 2  # squares of its colour along a column (YI-5.2.2)
PAWN_REACH: Final = 5  # steps of a pawn's path (YI-5.3, YI-R09)


def man(side: int, kind: int) -> int:
    return side * 4 + kind


def side_of(code: int) -> int:
    return code >> 2


def kind_of(code: int) -> int:
    return code & 3


def square(r: int, c: int) -> int:
    """The index of square (r, c), 1-based ring and column."""
    return (r - 1) * COLUMNS + (c - 1)


def ring_of(sq: int) -> int:
    return sq // COLUMNS + 1


def column_of(sq: int) -> int:
    return sq % COLUMNS + 1


def wrap(c: int, k: int) -> int:
    """Column arithmetic c ⊕ k (YI-1.2): 36 ⊕ 1 = 1, 1 ⊕ −1 = 36, 35 ⊕ 2 = 1."""
    return (c - 1 + k) % COLUMNS + 1


def colour_of(sq: int) -> int:
    """BLACK iff r + c is even (YI-1.4, YI-R02)."""
    return (ring_of(sq) + column_of(sq)) % 2


SQUARES: Final = tuple(range(SQUARE_COUNT))
COLOUR: Final = tuple(colour_of(sq) for sq in SQUARES)
LATTICE: Final = tuple(tuple(sq for sq in SQUARES if COLOUR[sq] == colour) for colour in (0, 1))
NAMES: Final = tuple(f"{RING_LETTERS[ring_of(sq) - 1]}{column_of(sq)}" for sq in SQUARES)
DISPLAY_NAMES: Final = tuple(f"{RING_LETTERS[ring_of(sq) - 1]}-{column_of(sq)}" for sq in SQUARES)
SQUARE_BY_NAME: Final = {**{n: sq for sq, n in enumerate(NAMES)},
                         **{n: sq for sq, n in enumerate(DISPLAY_NAMES)}}  # fmt: skip
SQUARE_PATTERN: Final = r"([YIORA])-?([1-9]|[12][0-9]|3[0-6])"  # YI-1.3
_SQUARE_RE: Final = re.compile(rf"^{SQUARE_PATTERN}$")


def parse_square(text: str) -> int | None:
    """The square named `text`, `A-19` or `A19` (YI-1.3; lower case too), or None."""
    m = _SQUARE_RE.match(text.strip().upper())
    if not m:
        return None
    return square(RING_LETTERS.index(m.group(1)) + 1, int(m.group(2)))


def square_name(sq: int) -> str:
    """The compact name (`A19`), as moves and positions write it (YI-1.7, YI-1.8)."""
    return NAMES[sq]


def display_name(sq: int) -> str:
    """The source's name (`A-19`), canonical in displays (YI-1.3)."""
    return DISPLAY_NAMES[sq]


def shift(sq: int, k: int) -> int:
    """The square k columns further round its ring (c ↦ c ⊕ k)."""
    return square(ring_of(sq), wrap(column_of(sq), k))


# -- the lattice of a game's colour (YI-1.6) ------------------------------------------------


def _diagonal(sq: int) -> tuple[int, ...]:
    """The diagonal neighbours (r ± 1, c ⊕ ±1) within the rings (YI-1.6, YI-5.1)."""
    r, c = ring_of(sq), column_of(sq)
    return tuple(square(r + dr, wrap(c, dc)) for dr in (1, -1) for dc in (1, -1)
                 if 1 <= r + dr <= RINGS)  # fmt: skip


def _ring_rays(sq: int) -> tuple[tuple[int, ...], ...]:
    """Along the ring, each way: c ⊕ ±2k for k = 1 … 5 (YI-5.2.1, YI-R05)."""
    r, c = ring_of(sq), column_of(sq)
    return tuple(tuple(square(r, wrap(c, 2 * k * d)) for k in range(1, MAGE_RING_REACH + 1))
                 for d in (1, -1))  # fmt: skip


def _column_rays(sq: int) -> tuple[tuple[int, ...], ...]:
    """Along the column, each way: r ± 2k for k = 1, 2 within the rings; the column ends at
    ring Y and does not cross the centre (YI-5.2.2, YI-R04)."""
    r, c = ring_of(sq), column_of(sq)
    rays = []
    for d in (1, -1):
        ray = tuple(square(r + 2 * k * d, c) for k in range(1, MAGE_COLUMN_REACH + 1)
                    if 1 <= r + 2 * k * d <= RINGS)  # fmt: skip
        if ray:
            rays.append(ray)
    return tuple(rays)


def pawn_path(sq: int, dr: int, dc: int) -> tuple[int, ...]:
    """The squares p_1 … p_5 of a pawn's path from `sq` in the initial direction (dr, dc)
    (YI-5.3.1, YI-5.3.2): before each step, a ring direction that would leave the rings is
    reversed (the reflection at ring Y or A, YI-R10); the column direction never changes.
    Empty if the first step would leave the rings (YI-R11: no reflection at the first step)."""
    r, c = ring_of(sq), column_of(sq)
    if not 1 <= r + dr <= RINGS:
        return ()
    path = []
    for _ in range(PAWN_REACH):
        if not 1 <= r + dr <= RINGS:
            dr = -dr
        r, c = r + dr, wrap(c, dc)
        path.append(square(r, c))
    return tuple(path)


def _pawn_paths(sq: int) -> tuple[tuple[int, ...], ...]:
    paths = (pawn_path(sq, dr, dc) for dr in (1, -1) for dc in (1, -1))
    return tuple(path for path in paths if path)


DIAGONAL: Final = tuple(_diagonal(sq) for sq in SQUARES)
RING_RAYS: Final = tuple(_ring_rays(sq) for sq in SQUARES)
COLUMN_RAYS: Final = tuple(_column_rays(sq) for sq in SQUARES)
# Along a ring or a column: the Mage's sliding lines (YI-5.2.1, YI-5.2.2).
MAGE_RAYS: Final = tuple(RING_RAYS[sq] + COLUMN_RAYS[sq] for sq in SQUARES)
PAWN_PATHS: Final = tuple(_pawn_paths(sq) for sq in SQUARES)


def _bits(squares: set[int]) -> int:
    return sum(1 << sq for sq in squares)


# Every square from which a man, by leaving it, could open a line onto `sq`: the squares of its
# Mage rays and pawn paths. A man elsewhere can move without exposing its Overlord on `sq`.
LINES: Final = tuple(
    _bits({s for ray in MAGE_RAYS[sq] + PAWN_PATHS[sq] for s in ray}) for sq in SQUARES
)
