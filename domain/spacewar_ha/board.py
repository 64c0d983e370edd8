"""The board of HA-1: files `a`… and ranks `1`…, squares, adjacency, lines and knight squares.

A square is an index `(rank - 1) * width + (file - 1)` on a board of the configured size
(HA-0.3 `board`, default 8 x 8, HA-R1); a `Board` holds the size and the geometry derived from
it once.
"""

import functools
from dataclasses import dataclass, field
from typing import Final

FILES: Final = "abcdefghijklmnop"  # at most 16 files
MAX_RANKS: Final = 16
ORTHOGONAL: Final = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONAL: Final = ((1, 1), (1, -1), (-1, 1), (-1, -1))
ALL_DIRECTIONS: Final = ORTHOGONAL + DIAGONAL  # HA-1.2: the 8 lines
KNIGHT: Final = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))


@dataclass(frozen=True, slots=True)
class Board:
    """A `width` x `height` board (HA-1.1)."""

    width: int = 8
    height: int = 8
    _names: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = tuple(f"{FILES[s % self.width]}{s // self.width + 1}" for s in range(self.size))
        object.__setattr__(self, "_names", names)

    @property
    def size(self) -> int:
        return self.width * self.height

    def name(self, square: int) -> str:
        """`e4` (HA-1.1)."""
        return self._names[square]

    def parse(self, text: str) -> int | None:
        """The square named `text`, None if it names none of this board."""
        if len(text) < 2 or text[0] not in FILES[: self.width] or not text[1:].isdigit():
            return None
        rank = int(text[1:])
        if text[1] == "0" or not 1 <= rank <= self.height:
            return None
        return (rank - 1) * self.width + FILES.index(text[0])

    def coords(self, square: int) -> tuple[int, int]:
        """(file, rank), both from 0."""
        return square % self.width, square // self.width

    def at(self, f: int, r: int) -> int | None:
        """The square at file `f`, rank `r` (from 0), None off the board."""
        if 0 <= f < self.width and 0 <= r < self.height:
            return r * self.width + f
        return None

    def step(self, square: int, direction: tuple[int, int], n: int = 1) -> int | None:
        f, r = self.coords(square)
        return self.at(f + direction[0] * n, r + direction[1] * n)

    def ray(self, square: int, direction: tuple[int, int]) -> tuple[int, ...]:
        """The squares of a line from `square` (excluded) to the edge (HA-1.2)."""
        return _ray(self.width, self.height, square, direction)

    def adjacent(self, a: int, b: int) -> bool:
        """King-distance 1 (HA-1.2)."""
        (fa, ra), (fb, rb) = self.coords(a), self.coords(b)
        return max(abs(fa - fb), abs(ra - rb)) == 1

    def neighbours(self, square: int) -> tuple[int, ...]:
        return tuple(s for d in ALL_DIRECTIONS if (s := self.step(square, d)) is not None)

    def knight_squares(self, square: int) -> tuple[int, ...]:
        """The squares a knight's leap away (HA-1.2)."""
        return tuple(s for d in KNIGHT if (s := self.step(square, d)) is not None)

    def mirror(self, square: int) -> int:
        """The same file on the rank mirrored across the middle (Black's side of HA-3.1)."""
        f, r = self.coords(square)
        return (self.height - 1 - r) * self.width + f


@functools.cache
def _ray(width: int, height: int, square: int, direction: tuple[int, int]) -> tuple[int, ...]:
    f, r = square % width, square // width
    out: list[int] = []
    while True:
        f, r = f + direction[0], r + direction[1]
        if not (0 <= f < width and 0 <= r < height):
            return tuple(out)
        out.append(r * width + f)
