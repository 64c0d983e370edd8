"""Force fields (SW-5.30–SW-5.36): hostile generators, neutralizers, clear squares."""

from collections.abc import Iterable, Sequence

from domain.spacewar.board import SQUARES, distance
from domain.spacewar.pieces import GENERATORS, IMMOBILIZER, NEUTRALIZER, Piece
from domain.spacewar.variant import Config

Board = tuple[Piece | None, ...]


def hostile(board: Board, config: Config, q: int, side: int, only: str = "") -> list[int]:
    """SW-5.31: the squares of `side`'s opponent's generators whose field covers `q` (of type
    `only` when given)."""
    out = []
    for g in range(SQUARES):
        piece = board[g]
        if piece is None or piece.owner == side or piece.kind not in GENERATORS:
            continue
        if only and piece.kind != only:
            continue
        if distance(g, q) <= config.range_of(piece.kind):
            out.append(g)
    return out


def _can_serve(board: Board, config: Config, n: int, g: int, q: int) -> bool:
    """SW-5.32, SW-5.34: `n` matches `g`'s type and reaches `q` or `g`."""
    neutralizer, generator = board[n], board[g]
    assert neutralizer is not None
    assert generator is not None
    if neutralizer.kind != NEUTRALIZER[generator.kind]:
        return False
    reach = config.range_of(neutralizer.kind)
    return distance(n, q) <= reach or distance(n, g) <= reach


def matched(board: Board, config: Config, q: int, generators: Sequence[int],
            neutralizers: Iterable[int]) -> bool:  # fmt: skip
    """SW-5.34: whether every generator can be given its own distinct neutralizer (a bipartite
    matching, by augmenting paths)."""
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
    return matched(board, config, q, hostile(board, config, q, side), neutralizers)


def immobilized(board: Board, config: Config, q: int, side: int,
                neutralizers: Iterable[int]) -> bool:  # fmt: skip
    """SW-5.35(a): the hostile Immobilizers covering `q` cannot all be neutralized."""
    generators = hostile(board, config, q, side, IMMOBILIZER)
    return not matched(board, config, q, generators, neutralizers)
