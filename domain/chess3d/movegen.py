"""Move generation and attack detection on the raw mailbox (sections 5 and 6).

Everything here works on plain values (board bytes, side, rights) so the hot paths avoid
attribute lookups. A move is a triple `(from, to, promotion_kind)` of mailbox indices and a
piece kind (0: no promotion).
"""

from collections.abc import Callable, Iterator
from operator import itemgetter
from typing import Final

from domain.chess3d.geometry import (
    BISHOP,
    BISHOP_DIRS,
    COLORS,
    DIRECTION_OF,
    EMPTY,
    FORWARD,
    KING,
    KING_OFFSETS,
    KNIGHT,
    KNIGHT_OFFSETS,
    LEVEL,
    MAX_DELTA,
    NAMES,
    PAWN,
    PAWN_CAPTURES,
    PROMOTION_RANK,
    QUEEN,
    RANK_OF,
    ROOK,
    ROOK_DIRS,
    SIZE,
    SQUARES,
    VDIAG_DIRS,
    square,
)

MoveTuple = tuple[int, int, int]
Board = bytes | bytearray
Getter = Callable[[Board], tuple[int, ...]]

PROMOTION_KINDS: Final = (QUEEN, ROOK, BISHOP, KNIGHT)

# Castling (C3-6.3): bit, king from, king to, rook from, rook to, cubes that must be empty,
# cube the king crosses.
CASTLE_K: Final = 1
CASTLE_Q: Final = 2
CASTLE_k: Final = 4
CASTLE_q: Final = 8
CASTLING_LETTERS: Final = "KQkq"


def _castle(bit: int, z: int, y: int, kx: int, rx: int) -> tuple[int, ...]:
    step = 1 if kx > 4 else -1
    between = tuple(square(x, y, z) for x in range(min(4, rx) + 1, max(4, rx)))
    return (bit, square(4, y, z), square(kx, y, z), square(rx, y, z),
            square(4 + step, y, z), square(4 + step, y, z), *between)  # fmt: skip


# (bit, king from, king to, rook from, rook to, crossed cube, *between)
CASTLES: Final = (
    (_castle(CASTLE_K, 0, 0, 6, 7), _castle(CASTLE_Q, 0, 0, 2, 0)),
    (_castle(CASTLE_k, 2, 7, 6, 7), _castle(CASTLE_q, 2, 7, 2, 0)),
)
# Castling rights lost when a move starts or ends on the cube (C3-6.3.3 a).
CASTLING_LOSS: Final = {
    square(4, 0, 0): CASTLE_K | CASTLE_Q,
    square(7, 0, 0): CASTLE_K,
    square(0, 0, 0): CASTLE_Q,
    square(4, 7, 2): CASTLE_k | CASTLE_q,
    square(7, 7, 2): CASTLE_k,
    square(0, 7, 2): CASTLE_q,
}
# Double-step rights (C3-R12): bit x for the White pawn on I<x>2, bit 8 + x for Black on III<x>7.
DOUBLE_BIT: Final = {square(x, 1, 0): 1 << x for x in range(8)} | {
    square(x, 6, 2): 1 << (8 + x) for x in range(8)
}


def _getter(cells: list[int]) -> Getter:
    # Padded with cell 0 (always OFFBOARD) so the getter always returns a tuple.
    return itemgetter(*cells, 0, 0)


def _on_board(i: int) -> bool:
    return 0 <= i < len(NAMES) and NAMES[i] != ""


def _neighbour_getters(offsets: tuple[int, ...]) -> dict[int, Getter]:
    return {sq: _getter([sq + o for o in offsets if _on_board(sq + o)]) for sq in SQUARES}


# Cubes from which a pawn of the given seat attacks the key cube.
PAWN_ATTACKERS: Final = tuple(
    _neighbour_getters(tuple(-o for o in PAWN_CAPTURES[seat])) for seat in (0, 1)
)

# Piece kinds that attack along each direction, without and with the vertical diagonals.
LINE_KINDS: Final = tuple(
    dict.fromkeys(ROOK_DIRS, (ROOK, QUEEN))
    | dict.fromkeys(BISHOP_DIRS, (BISHOP, QUEEN))
    | dict.fromkeys(VDIAG_DIRS, (QUEEN,) if q26 else ())
    for q26 in (False, True)
)
QUEEN_DIRS: Final = (ROOK_DIRS + BISHOP_DIRS, ROOK_DIRS + BISHOP_DIRS + VDIAG_DIRS)


# Line tables indexed by `target - source + MAX_DELTA`: the unit step from source towards
# target if the two cubes share a line of a Rook / Bishop / Queen (18 or 26 directions), else 0.
def _line_table(dirs: tuple[int, ...]) -> list[int]:
    return [d if d in dirs else 0 for d in DIRECTION_OF]


ROOK_LINE: Final = _line_table(ROOK_DIRS)
BISHOP_LINE: Final = _line_table(BISHOP_DIRS)
QUEEN_LINE: Final = (_line_table(QUEEN_DIRS[0]), _line_table(QUEEN_DIRS[1]))
# SLIDERS[q26][seat]: (piece, line table) for the seat's Queens, Rooks and Bishops.
SLIDERS: Final = tuple(
    tuple(
        ((col | QUEEN, QUEEN_LINE[q26]), (col | ROOK, ROOK_LINE), (col | BISHOP, BISHOP_LINE))
        for col in COLORS
    )
    for q26 in (False, True)
)


# Tables indexed by `to - from + MAX_DELTA`: whether a Knight / King step covers the difference.
def _step_table(offsets: tuple[int, ...]) -> list[bool]:
    table = [False] * len(DIRECTION_OF)
    for o in offsets:
        table[o + MAX_DELTA] = True
    return table


KNIGHT_STEP: Final = _step_table(KNIGHT_OFFSETS)
KING_STEP: Final = _step_table(KING_OFFSETS)
# LEAPERS[seat]: (piece, step table) for the seat's Knights and King.
LEAPERS: Final = tuple(((col | KNIGHT, KNIGHT_STEP), (col | KING, KING_STEP)) for col in COLORS)


def attacked(b: Board, sq: int, by: int, q26: bool) -> bool:
    """C3-5.0.5: whether side `by` attacks cube `sq`.

    Pawn attackers are looked up around `sq`. Knights, King and sliders are found with
    `bytes.find` (there are few) and tested through the tables indexed by the index difference;
    a slider attacks iff it is on one of its lines through `sq` with nothing between.
    """
    base = MAX_DELTA - sq
    for piece, step in LEAPERS[by]:
        i = b.find(piece)
        while i >= 0:
            if step[i + base]:
                return True
            i = b.find(piece, i + 1)
    if COLORS[by] | PAWN in PAWN_ATTACKERS[by][sq](b):
        return True
    for piece, line in SLIDERS[q26][by]:
        i = b.find(piece)
        while i >= 0:
            d = line[i + base]
            if d:
                t = sq + d
                while b[t] == EMPTY:
                    t += d
                if t == i:
                    return True
            i = b.find(piece, i + 1)
    return False


# The men of one side that attack by leaping, each with its step table, and along lines, each
# with its line table: what `attacked` finds on the board, found once to test many cubes.
# `attacked` keeps its own walk rather than calling `attacked_by(.., attackers(..))`: asked
# once (check after each move, on the rules service's path) it stops at the first attacker.
Attackers = tuple[list[tuple[int, list[bool]]], list[tuple[int, list[int]]]]


def attackers(b: Board, by: int, q26: bool) -> Attackers:
    leapers = []
    for piece, step in LEAPERS[by]:
        i = b.find(piece)
        while i >= 0:
            leapers.append((i, step))
            i = b.find(piece, i + 1)
    sliders = []
    for piece, line in SLIDERS[q26][by]:
        i = b.find(piece)
        while i >= 0:
            sliders.append((i, line))
            i = b.find(piece, i + 1)
    return leapers, sliders


def attacked_by(b: Board, sq: int, by: int, men: Attackers) -> bool:
    """`attacked(b, sq, by, q26)`, given `men = attackers(b, by, q26)` of the same board."""
    base = MAX_DELTA - sq
    leapers, sliders = men
    for i, step in leapers:
        if step[i + base]:
            return True
    if COLORS[by] | PAWN in PAWN_ATTACKERS[by][sq](b):
        return True
    for i, line in sliders:
        d = line[i + base]
        if d:
            t = sq + d
            while b[t] == EMPTY:
                t += d
            if t == i:
                return True
    return False


def piece_moves(
    b: Board,
    sq: int,
    side: int,
    castling: int,
    ep: int,
    double: int,
    q26: bool,
    out: list[MoveTuple],
) -> None:
    """Append the pseudo-legal moves (C3-5, C3-6) of the man of `side` on `sq` to `out`."""
    kind = b[sq] & 7
    enemy = COLORS[side ^ 1]
    if kind == PAWN:
        _pawn_moves(b, sq, side, ep, double, enemy, out)
        return
    if kind in (KNIGHT, KING):
        for o in KNIGHT_OFFSETS if kind == KNIGHT else KING_OFFSETS:
            t = sq + o
            x = b[t]
            if x == EMPTY or x & enemy:
                out.append((sq, t, 0))
        if kind == KING and castling:
            _castling_moves(b, sq, side, castling, q26, out)
        return
    dirs = ROOK_DIRS if kind == ROOK else BISHOP_DIRS if kind == BISHOP else QUEEN_DIRS[q26]
    for d in dirs:
        t = sq + d
        x = b[t]
        while x == EMPTY:
            out.append((sq, t, 0))
            t += d
            x = b[t]
        if x & enemy:
            out.append((sq, t, 0))


def ordinary_move(b: Board, fr: int, to: int, side: int, q26: bool) -> bool:
    """Whether the man of `side` on `fr` may move to `to` by a move piece_moves generates
    without a promotion piece: a quick test of a single move. False (ask piece_moves) for
    castling, pawn double steps, en passant and promotions."""
    if not (0 <= fr < SIZE and 0 <= to < SIZE):
        return False
    x = b[to]
    if x != EMPTY and not x & COLORS[side ^ 1]:
        return False
    kind = b[fr] & 7
    delta = to - fr
    if kind == PAWN:
        if RANK_OF[to] == PROMOTION_RANK[side]:
            return False
        if delta in (FORWARD[side], LEVEL, -LEVEL):  # C3-5.6.1 steps
            return x == EMPTY
        return x != EMPTY and delta in PAWN_CAPTURES[side]  # C3-5.6.3
    delta += MAX_DELTA
    if kind == KNIGHT:
        return KNIGHT_STEP[delta]
    if kind == KING:
        return KING_STEP[delta]
    if kind == ROOK:
        d = ROOK_LINE[delta]
    elif kind == BISHOP:
        d = BISHOP_LINE[delta]
    elif kind == QUEEN:
        d = QUEEN_LINE[q26][delta]
    else:
        return False
    if not d:
        return False
    t = fr + d
    while t != to and b[t] == EMPTY:
        t += d
    return t == to


def _pawn_moves(
    b: Board, sq: int, side: int, ep: int, double: int, enemy: int, out: list[MoveTuple]
) -> None:
    f = FORWARD[side]
    promo_rank = PROMOTION_RANK[side]
    t = sq + f
    if b[t] == EMPTY:  # C3-5.6.1 forward step
        if RANK_OF[t] == promo_rank:
            out.extend((sq, t, k) for k in PROMOTION_KINDS)
        else:
            out.append((sq, t, 0))
            if double and double & DOUBLE_BIT.get(sq, 0) and b[t + f] == EMPTY:
                out.append((sq, t + f, 0))  # C3-5.6.2 forward double step
    for v in (LEVEL, -LEVEL):  # C3-5.6.1 level steps
        if b[sq + v] == EMPTY:
            out.append((sq, sq + v, 0))
    if double and double & DOUBLE_BIT.get(sq, 0):  # C3-5.6.2 two-level double step
        v = LEVEL if side == 0 else -LEVEL
        if b[sq + v] == EMPTY and b[sq + 2 * v] == EMPTY:
            out.append((sq, sq + 2 * v, 0))
    for o in PAWN_CAPTURES[side]:  # C3-5.6.3, C3-6.2
        t = sq + o
        if b[t] & enemy or (t == ep and ep):
            if RANK_OF[t] == promo_rank:
                out.extend((sq, t, k) for k in PROMOTION_KINDS)
            else:
                out.append((sq, t, 0))


def _castling_moves(
    b: Board, sq: int, side: int, castling: int, q26: bool, out: list[MoveTuple]
) -> None:
    for bit, king_from, king_to, rook_from, _rook_to, cross, *between in CASTLES[side]:
        if not castling & bit or sq != king_from or b[rook_from] != COLORS[side] | ROOK:
            continue
        if any(b[c] != EMPTY for c in between):  # C3-6.3.3 b
            continue
        enemy = side ^ 1
        if (
            attacked(b, sq, enemy, q26)  # c
            or attacked(b, cross, enemy, q26)  # d
            or attacked(b, king_to, enemy, q26)  # e
        ):
            continue
        out.append((sq, king_to, 0))


def make_board(b: Board, move: MoveTuple, ep: int) -> bytearray:
    """The board after `move` (castling, en passant and promotion inferred from the board)."""
    fr, to, promo = move
    a = bytearray(b)
    piece = a[fr]
    kind = piece & 7
    if kind == PAWN:
        if to == ep and ep:
            a[to - FORWARD[piece >> 5]] = EMPTY  # C3-6.2.2: remove the passed pawn
        if promo:
            piece = (piece & 0x30) | promo
    elif kind == KING and (to - fr == 2 or fr - to == 2):
        if to > fr:
            a[fr + 1], a[fr + 3] = a[fr + 3], EMPTY
        else:
            a[fr - 1], a[fr - 4] = a[fr - 4], EMPTY
    a[fr] = EMPTY
    a[to] = piece
    return a


def is_legal(
    b: Board,
    move: MoveTuple,
    side: int,
    king: int,
    in_check: bool,
    ep: int,
    q26: bool,
    enemies: Attackers | None = None,
) -> bool:
    """C3-4.2: a pseudo-legal move is legal iff the mover's King is not attacked after it.
    `enemies` may give `attackers(b, side ^ 1, q26)` when many King steps are tested."""
    fr, to, _ = move
    if fr == king:
        d = fr - to
        if not KING_STEP[d + MAX_DELTA]:  # castling: the Rook moves too
            return not attacked(make_board(b, move, ep), to, side ^ 1, q26)
        # A King step changes only `fr` (emptied) and `to` (which attacked ignores), so `to`
        # is attacked after it iff it is now, or a line opens through `fr` (d points onward).
        if (
            attacked(b, to, side ^ 1, q26)
            if enemies is None
            else attacked_by(b, to, side ^ 1, enemies)
        ):
            return False
        t = fr + d
        while b[t] == EMPTY:
            t += d
        x = b[t]
        return not (x & COLORS[side ^ 1] and x & 7 in LINE_KINDS[q26][d])
    if in_check or (to == ep and ep and b[fr] & 7 == PAWN):
        return not attacked(make_board(b, move, ep), king, side ^ 1, q26)
    d = DIRECTION_OF[fr - king + MAX_DELTA]
    if not d:
        return True
    # Only a discovered attack along the line King -> from-cube can arise.
    t = king + d
    while t == fr or (t != to and b[t] == EMPTY):
        t += d
    if t == to:
        return True
    x = b[t]
    return not (x & COLORS[side ^ 1] and x & 7 in LINE_KINDS[q26][d])


# OWN_MEN[seat]: the `bytes.translate` table that marks the cells of the seat's men with 1.
OWN_MEN: Final = tuple(bytes(1 if i & col else 0 for i in range(256)) for col in COLORS)


def own_squares(b: Board, side: int) -> Iterator[int]:
    """The cubes of `side`'s men, in mailbox order (found by `find` on the marked board)."""
    marks = b.translate(OWN_MEN[side])
    sq = marks.find(1)
    while sq >= 0:
        yield sq
        sq = marks.find(1, sq + 1)


def pins(b: Board, side: int, king: int, q26: bool) -> dict[int, range]:
    """The men of `side` pinned to its King: cube -> the cubes of its pin line from the King
    (excluded) to the pinning slider (included), the only ones it may move to (C3-4.2)."""
    own, enemy = COLORS[side], COLORS[side ^ 1]
    pinned = {}
    for d, kinds in LINE_KINDS[q26].items():
        if not kinds:
            continue
        t = king + d
        while b[t] == EMPTY:
            t += d
        if not b[t] & own:
            continue
        man = t
        t += d
        while b[t] == EMPTY:
            t += d
        x = b[t]
        if x & enemy and x & 7 in kinds:
            pinned[man] = range(king + d, t + d, d)
    return pinned


def legal_moves(
    b: Board,
    side: int,
    castling: int,
    ep: int,
    double: int,
    king: int,
    q26: bool,
    in_check: bool | None = None,
) -> list[MoveTuple]:
    """The legal moves of `side`, in the order piece_moves makes them, men by cube (`in_check`
    may be given when already known)."""
    if in_check is None:
        in_check = attacked(b, king, side ^ 1, q26)
    # The enemy men are found once for the King's steps (it has up to 26).
    enemies = attackers(b, side ^ 1, q26)
    if in_check:
        pseudo: list[MoveTuple] = []
        for sq in own_squares(b, side):
            piece_moves(b, sq, side, castling, ep, double, q26, pseudo)
        return [m for m in pseudo if is_legal(b, m, side, king, True, ep, q26, enemies)]
    # Out of check, what is_legal finds for a man other than the King, from the pins found
    # once: only a pinned man can uncover an attack, and it may stay on its pin line; every
    # move of a man neither pinned nor a pawn that may take en passant is legal. The King's
    # moves and en passant (which empties a second cube) are tested one by one.
    pinned = pins(b, side, king, q26)
    legal: list[MoveTuple] = []
    for sq in own_squares(b, side):
        line = pinned.get(sq)
        takes_ep = ep != 0 and b[sq] & 7 == PAWN
        if line is None and not takes_ep and sq != king:
            piece_moves(b, sq, side, castling, ep, double, q26, legal)
            continue
        moves: list[MoveTuple] = []
        piece_moves(b, sq, side, castling, ep, double, q26, moves)
        for m in moves:
            if sq == king or (takes_ep and m[1] == ep):
                if is_legal(b, m, side, king, False, ep, q26, enemies):
                    legal.append(m)
            elif line is None or m[1] in line:
                legal.append(m)
    return legal


def count_legal(
    b: Board, side: int, castling: int, ep: int, double: int, king: int, q26: bool
) -> int:
    return len(legal_moves(b, side, castling, ep, double, king, q26))


# The order in which has_legal_move tries the kinds: cheap and usually mobile men first.
_TRY_ORDER: Final = (PAWN, KNIGHT, BISHOP, ROOK, QUEEN)


def has_legal_move(
    b: Board, side: int, ep: int, double: int, king: int, in_check: bool, q26: bool
) -> bool:
    """Whether `side` has any legal move; stops at the first (castling is never needed: a
    castling move implies the ordinary King step to the crossed cube is legal too).

    The men are found kind by kind with `bytes.find`. The King is tried first when in check
    (its steps are the likeliest escapes) and last otherwise (testing its steps is costly).
    """
    moves: list[MoveTuple] = []
    if in_check and _has_legal(b, king, side, ep, double, king, in_check, q26, moves):
        return True
    col = COLORS[side]
    for kind in _TRY_ORDER:
        piece = col | kind
        sq = b.find(piece)
        while sq >= 0:
            if _has_legal(b, sq, side, ep, double, king, in_check, q26, moves):
                return True
            sq = b.find(piece, sq + 1)
    return not in_check and _has_legal(b, king, side, ep, double, king, in_check, q26, moves)


def _has_legal(
    b: Board,
    sq: int,
    side: int,
    ep: int,
    double: int,
    king: int,
    in_check: bool,
    q26: bool,
    moves: list[MoveTuple],
) -> bool:
    """Whether the man on `sq` has a legal move (`moves` is scratch space)."""
    moves.clear()
    piece_moves(b, sq, side, 0, ep, double, q26, moves)
    return any(is_legal(b, move, side, king, in_check, ep, q26) for move in moves)


def ep_captures(
    b: Board, side: int, ep: int, king: int, q26: bool, in_check: bool | None = None
) -> tuple[int, ...]:
    """C3-6.2.2: the cubes of `side`'s pawns that can legally capture on `ep` (`in_check`
    may be given when already known)."""
    if not ep:
        return ()
    pawn = COLORS[side] | PAWN
    if in_check is None:
        in_check = attacked(b, king, side ^ 1, q26)
    return tuple(
        fr
        for o in PAWN_CAPTURES[side]
        if b[fr := ep - o] == pawn and is_legal(b, (fr, ep, 0), side, king, in_check, ep, q26)
    )
