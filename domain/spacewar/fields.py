"""Force fields (SW-5.30–SW-5.36): hostile generators, neutralizers, clear squares."""

from collections.abc import Iterable, Sequence

from domain.spacewar.board import DISTANCE
from domain.spacewar.pieces import GENERATORS, IMMOBILIZER, NEUTRALIZER, Piece
from domain.spacewar.variant import Config

Board = tuple[Piece | None, ...]


class Fields:
    """The fields over one board that act on `side`'s pieces (SW-5.31), with the opponent's
    generators found once: a position's moves test many squares against them."""

    def __init__(self, board: Board, config: Config, side: int) -> None:
        self.board, self.config = board, config
        # (square, type, range) of each of the opponent's generators, in square order
        self.generators = [
            (g, p.kind, config.range_of(p.kind))
            for g, p in enumerate(board)
            if p is not None and p.owner != side and p.kind in GENERATORS
        ]

    def hostile(self, q: int, only: str = "") -> list[int]:
        """SW-5.31: the squares of the generators whose field covers `q` (of type `only` when
        given)."""
        near = DISTANCE[q]
        return [g for g, kind, reach in self.generators
                if near[g] <= reach and (not only or kind == only)]  # fmt: skip

    def clear(self, q: int, neutralizers: Iterable[int]) -> bool:
        """SW-5.34: `q` is clear with these eligible neutralizers."""
        return matched(self.board, self.config, q, self.hostile(q), neutralizers)

    def immobilized(self, q: int, neutralizers: Iterable[int]) -> bool:
        """SW-5.35(a): the hostile Immobilizers covering `q` cannot all be neutralized."""
        generators = self.hostile(q, IMMOBILIZER)
        return not matched(self.board, self.config, q, generators, neutralizers)


def hostile(board: Board, config: Config, q: int, side: int, only: str = "") -> list[int]:
    """SW-5.31: the squares of `side`'s opponent's generators whose field covers `q` (of type
    `only` when given)."""
    return Fields(board, config, side).hostile(q, only)


def _can_serve(board: Board, config: Config, n: int, g: int, q: int) -> bool:
    """SW-5.32, SW-5.34: `n` matches `g`'s type and reaches `q` or `g`."""
    neutralizer, generator = board[n], board[g]
    assert neutralizer is not None
    assert generator is not None
    if neutralizer.kind != NEUTRALIZER[generator.kind]:
        return False
    reach = config.range_of(neutralizer.kind)
    return DISTANCE[n][q] <= reach or DISTANCE[n][g] <= reach


def matched(board: Board, config: Config, q: int, generators: Sequence[int],
            neutralizers: Iterable[int]) -> bool:  # fmt: skip
    """SW-5.34: whether every generator can be given its own distinct neutralizer (a bipartite
    matching, by augmenting paths)."""
    if not generators:  # nothing to neutralize
        return True
    pool = list(neutralizers)
    options = [[n for n in pool if _can_serve(board, config, n, g, q)] for g in generators]
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for n in options[i]:
            if n in seen:
                continue
            seen.add(n)
            if n not in owner or augment(owner[n], seen):
                owner[n] = i
                return True
        return False

    return all(augment(i, set()) for i in range(len(generators)))


def clear(board: Board, config: Config, q: int, side: int, neutralizers: Iterable[int]) -> bool:
    """SW-5.34: `q` is clear for a piece of `side` with these eligible neutralizers."""
    return Fields(board, config, side).clear(q, neutralizers)


def immobilized(board: Board, config: Config, q: int, side: int,
                neutralizers: Iterable[int]) -> bool:  # fmt: skip
    """SW-5.35(a): the hostile Immobilizers covering `q` cannot all be neutralized."""
    return Fields(board, config, side).immobilized(q, neutralizers)
