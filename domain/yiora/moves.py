"""How the men move and capture (YI-5), threats (YI-5.0, YI-6.1) and legal moves (YI-4.2).

A board is 180 bytes, one per square (geometry: 0 empty, else side * 4 + kind). Men of the
other game are never on it: each game of a Secondary variation has a board of its own, so the
games cannot interact (YI-8.2, YI-R24). A move is a (from, to) pair of squares.
"""

from typing import Final

from domain.yiora.geometry import (
    DIAGONAL,
    LINES,
    MAGE,
    MAGE_RAYS,
    OVERLORD,
    PAWN,
    PAWN_PATHS,
    man,
)

Board = bytes | bytearray
MoveTuple = tuple[int, int]

_CODES: Final = tuple((man(s, OVERLORD), man(s, MAGE), man(s, PAWN)) for s in (0, 1))


def overlord_targets(b: Board, sq: int, side: int) -> list[int]:
    """One step to a diagonal neighbour, empty or enemy (YI-5.1)."""
    return [n for n in DIAGONAL[sq] if not b[n] or b[n] >> 2 != side]


def mage_targets(b: Board, sq: int, side: int) -> list[int]:
    """Along the ring up to 5 squares and along the column up to 2, not passing a man; or one
    diagonal step (YI-5.2.1 to YI-5.2.3, YI-R12, YI-R14)."""
    targets = overlord_targets(b, sq, side)
    for ray in MAGE_RAYS[sq]:
        for t in ray:
            p = b[t]
            if p:
                if p >> 2 != side:
                    targets.append(t)  # a capture ends the move (YI-5.0)
                break
            targets.append(t)
    return targets


def pawn_targets(b: Board, sq: int, side: int) -> list[int]:
    """The distinct ends of the pawn's paths: each of its (up to four) paths is followed to the
    first man, which it may capture if an enemy; a destination two paths reach is one move
    (YI-5.3.3 to YI-5.3.5, YI-R13)."""
    seen: set[int] = set()
    for path in PAWN_PATHS[sq]:
        for t in path:
            p = b[t]
            if p:
                if p >> 2 != side:
                    seen.add(t)
                break
            seen.add(t)
    return list(seen)


def targets(b: Board, sq: int) -> list[int]:
    """Where the man on `sq` could end a move, ignoring its Overlord's safety (YI-5.0)."""
    code = b[sq]
    kind, side = code & 3, code >> 2
    if kind == PAWN:
        return pawn_targets(b, sq, side)
    if kind == MAGE:
        return mage_targets(b, sq, side)
    return overlord_targets(b, sq, side)


def attacked(b: Board, t: int, by: int) -> bool:
    """Whether side `by` threatens square `t` (YI-5.0): a man of `by` could end a move there.
    Pins do not matter (YI-R17). Every line is followed outwards from `t`: a ring, column or
    pawn path read backwards is a path of the same kind (a pawn's bounce is symmetric), so the
    first man met on it threatens `t` if it is an enemy of the right kind."""
    overlord, mage, pawn = _CODES[by]
    for n in DIAGONAL[t]:
        p = b[n]
        if p in (overlord, mage):
            return True
    for ray in MAGE_RAYS[t]:
        for s in ray:
            p = b[s]
            if p:
                if p == mage:
                    return True
                break
    for path in PAWN_PATHS[t]:
        for s in path:
            p = b[s]
            if p:
                if p == pawn:
                    return True
                break
    return False


def make(b: Board, move: MoveTuple) -> bytes:
    fr, to = move
    a = bytearray(b)
    a[to] = a[fr]
    a[fr] = 0
    return bytes(a)


def men_of(b: Board, side: int) -> list[int]:
    """The squares of `side`'s men, Overlord first, then Mages, then Pawns."""
    squares = []
    for code in _CODES[side]:
        i = b.find(code)
        while i >= 0:
            squares.append(i)
            i = b.find(code, i + 1)
    return squares


def is_legal(b: Board, move: MoveTuple, side: int, overlord: int, check: bool) -> bool:
    """Whether the pseudo-legal `move` leaves `side`'s Overlord (on `overlord`) unthreatened
    (YI-4.2, YI-6.1). `check`: whether it is threatened now."""
    fr, to = move
    if fr == overlord:
        a = bytearray(b)
        a[to], a[fr] = a[fr], 0
        return not attacked(a, to, side ^ 1)
    if not check and not LINES[overlord] >> fr & 1:
        return True  # no line onto the Overlord passes `fr`: nothing can be opened
    a = bytearray(b)
    a[to], a[fr] = a[fr], 0
    return not attacked(a, overlord, side ^ 1)


def legal_moves(b: Board, side: int, overlord: int, check: bool) -> list[MoveTuple]:
    """Every legal move of `side` (YI-4.2), unordered."""
    moves = []
    for fr in men_of(b, side):
        for to in targets(b, fr):
            if is_legal(b, (fr, to), side, overlord, check):
                moves.append((fr, to))
    return moves


def has_legal_move(b: Board, side: int, overlord: int, check: bool) -> bool:
    for fr in men_of(b, side):
        for to in targets(b, fr):
            if is_legal(b, (fr, to), side, overlord, check):
                return True
    return False


def overlord_can_escape(b: Board, side: int, overlord: int) -> bool:
    """Whether a move of the Overlord itself leads to an unthreatened square (YI-6.3.2)."""
    return any(is_legal(b, (overlord, to), side, overlord, True)
               for to in overlord_targets(b, overlord, side))  # fmt: skip


def overlord_square(b: Board, side: int) -> int:
    return b.find(_CODES[side][0])
