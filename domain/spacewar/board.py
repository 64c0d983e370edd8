"""The board of SW-1: 16 files `a`–`p` by 12 ranks `1`–`12` (SW-1.1, SW-R1), squares written
file letter + rank number (SW-1.2), the king-metric distance (SW-1.3) and forward (SW-1.4).

A square is an index 0..191: `(rank - 1) * 16 + (file - 1)`."""

from typing import Final

FILES: Final = 16
RANKS: Final = 12
SQUARES: Final = FILES * RANKS
FILE_LETTERS: Final = "abcdefghijklmnop"
WHITE, BLACK = 0, 1
SIDE_LETTERS: Final = ("w", "b")
SIDE_NAMES: Final = ("White", "Black")


def square(f: int, r: int) -> int:
    """The square at file `f` (1..16) and rank `r` (1..12), assumed on the board."""
    return (r - 1) * FILES + (f - 1)


def on_board(f: int, r: int) -> bool:
    return 1 <= f <= FILES and 1 <= r <= RANKS


def coords(sq: int) -> tuple[int, int]:
    """(file, rank), both 1-based (SW-1.2)."""
    return sq % FILES + 1, sq // FILES + 1


NAMES: Final = tuple(FILE_LETTERS[s % FILES] + str(s // FILES + 1) for s in range(SQUARES))
_BY_NAME: Final = {name: s for s, name in enumerate(NAMES)}


def parse_square(text: str) -> int | None:
    return _BY_NAME.get(text)


def _distance(a: int, b: int) -> int:
    af, ar = coords(a)
    bf, br = coords(b)
    return max(abs(af - bf), abs(ar - br))


# SW-1.3 for every pair of squares, `DISTANCE[a][b]`: the field and range checks of one
# position's moves ask for it many thousand times.
DISTANCE: Final = tuple(tuple(_distance(a, b) for b in range(SQUARES)) for a in range(SQUARES))


def distance(a: int, b: int) -> int:
    """SW-1.3: max(|df|, |dr|)."""
    return DISTANCE[a][b]


def step(sq: int, df: int, dr: int) -> int | None:
    """The square `(df, dr)` away from `sq`, None off the board."""
    f, r = coords(sq)
    return square(f + df, r + dr) if on_board(f + df, r + dr) else None


def forward(side: int) -> int:
    """SW-1.4: +1 rank for White, -1 for Black."""
    return 1 if side == WHITE else -1


def back_rank(side: int) -> int:
    """SW-1.1: White's back rank is rank 1, Black's rank 12."""
    return 1 if side == WHITE else RANKS


def neighbours(sq: int) -> tuple[int, ...]:
    """The on-board squares adjacent to `sq` (SW-1.3: d = 1)."""
    out = (step(sq, df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if df or dr)
    return tuple(s for s in out if s is not None)


# The squares adjacent to each square, in square order (SW-1.3: d = 1).
ADJACENT: Final = tuple(
    tuple(s for s in range(SQUARES) if DISTANCE[sq][s] == 1) for sq in range(SQUARES)
)


def sort_key(sq: int) -> tuple[int, int]:
    """Squares in the order of their names: file, then rank."""
    f, r = coords(sq)
    return f, r


ORTHOGONAL: Final = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONAL: Final = ((1, 1), (1, -1), (-1, 1), (-1, -1))
KING: Final = ORTHOGONAL + DIAGONAL
KNIGHT: Final = ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1))
