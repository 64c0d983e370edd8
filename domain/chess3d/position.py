"""The immutable position (what 3D-FEN describes, C3-1.8) plus repetition history, and moves.

`play` is the single place a move changes a position; decide and evolve both use it.
"""

from typing import Final, NamedTuple

from domain.chess3d.geometry import (
    BLACK,
    COLORS,
    EMPTY,
    EMPTY_BOARD,
    FILE_LETTERS,
    FORWARD,
    KIND_LETTERS,
    KING,
    LEVEL,
    NAMES,
    PAWN,
    PROMOTION_RANK,
    RANK_OF,
    ROOK,
    SQUARES,
    WHITE,
    parse_square,
    square,
)
from domain.chess3d.movegen import (
    CASTLES,
    CASTLING_LETTERS,
    CASTLING_LOSS,
    DOUBLE_BIT,
    Board,
    MoveTuple,
    attacked,
    ep_captures,
    legal_moves,
    make_board,
)

STARTING_FEN: Final = (
    "8/8/8/8/8/8/PPPPPPPP/RNBQKBNR|8/8/8/8/8/8/8/8|rnbqkbnr/pppppppp/8/8/8/8/8/8"
    " w KQkq - ABCDEFGHabcdefgh 0 1 -"
)
_LEVEL_STEPS: Final = frozenset((LEVEL, -LEVEL, 2 * LEVEL, -2 * LEVEL))


class Position(NamedTuple):
    """A position: 3D-FEN fields 1-8, the King cubes, and the repetition record.

    `history` holds the repetition keys (C3-7.5.1) of the positions since the last
    irreversible move, oldest first, this position's last; bit i of `checks` says whether the
    move that produced `history[i]` gave check (C3-7.5.3).
    """

    board: bytes
    turn: int  # seat to move: 0 White, 1 Black
    castling: int  # bits of movegen.CASTLE_*
    ep: int  # en-passant cube (C3-6.2.1) or 0
    double: int  # movegen.DOUBLE_BIT bits of pawns that have never moved
    halfmove: int  # plies since the last progress move (C3-7.6.1)
    fullmove: int
    demand: int  # plies since demand-mate, -1 if none in force
    kings: tuple[int, int]
    check: bool  # the side to move is in check
    history: tuple[int, ...]
    checks: int

    @property
    def key(self) -> int:
        return self.history[-1]


def make(
    b: Board,
    move: MoveTuple,
    side: int,
    castling: int,
    ep: int,
    double: int,
    kings: tuple[int, int],
) -> tuple[bytearray, int, int, int, tuple[int, int], bool]:
    """The raw effect of `move`: board, castling, en-passant cube, double-step rights, Kings,
    and whether it is a progress move (C3-7.6.1)."""
    fr, to, _ = move
    kind = b[fr] & 7
    progress = b[to] != EMPTY
    new_ep = 0
    if kind == PAWN:
        delta = to - fr
        progress = progress or to == ep or delta not in _LEVEL_STEPS
        if delta == 2 * FORWARD[side]:
            new_ep = fr + FORWARD[side]  # C3-6.2.1 (never after a two-level step, C3-6.2.4)
    elif kind == KING:
        kings = (to, kings[1]) if side == 0 else (kings[0], to)
    if castling:
        castling &= ~(CASTLING_LOSS.get(fr, 0) | CASTLING_LOSS.get(to, 0))
    if double:
        double &= ~(DOUBLE_BIT.get(fr, 0) | DOUBLE_BIT.get(to, 0))
    return make_board(b, move, ep), castling, new_ep, double, kings, progress


def repetition_key(
    board: bytes,
    turn: int,
    castling: int,
    double: int,
    ep: int,
    king: int,
    q26: bool,
    check: bool | None = None,
) -> int:
    """C3-7.5.1 identity: men, side to move, castling rights, double-step rights and the set of
    legal en-passant captures. A 64-bit hash, so history stays small (see docs/rules).
    `check` (whether `turn` is in check) may be given when already known."""
    captures = ep_captures(board, turn, ep, king, q26, check) if ep else ()
    return hash((board, turn, castling, double, ep if captures else 0, captures))


def play(pos: Position, move: MoveTuple, q26: bool, check: bool | None = None) -> Position:
    """The position after the (legal) `move`; `check` may be given when already known."""
    side = pos.turn
    a, castling, ep, double, kings, progress = make(
        pos.board, move, side, pos.castling, pos.ep, pos.double, pos.kings
    )
    board = bytes(a)
    turn = side ^ 1
    if check is None:
        check = attacked(board, kings[turn], side, q26)
    key = repetition_key(board, turn, castling, double, ep, kings[turn], q26, check)
    if progress or castling != pos.castling or double != pos.double:
        history: tuple[int, ...] = (key,)
        checks = int(check)
    else:
        history = (*pos.history, key)
        checks = pos.checks | (check << len(pos.history))
    return Position(
        board,
        turn,
        castling,
        ep,
        double,
        0 if progress else pos.halfmove + 1,
        pos.fullmove + side,
        pos.demand + 1 if pos.demand >= 0 else -1,
        kings,
        check,
        history,
        checks,
    )


def with_demand(pos: Position) -> Position:
    """The position once a demand-mate is in force (C3-7.6.2): clock at 0."""
    return Position(
        pos.board,
        pos.turn,
        pos.castling,
        pos.ep,
        pos.double,
        pos.halfmove,
        pos.fullmove,
        0,
        pos.kings,
        pos.check,
        pos.history,
        pos.checks,
    )


def generate_legal_moves(pos: Position, q26: bool) -> list[MoveTuple]:
    return legal_moves(
        pos.board, pos.turn, pos.castling, pos.ep, pos.double, pos.kings[pos.turn], q26, pos.check
    )


def perft(pos: Position, depth: int, q26: bool) -> int:
    """The number of legal move sequences of length `depth` from `pos`."""
    if depth <= 0:
        return 1
    return _perft(pos.board, pos.turn, pos.castling, pos.ep, pos.double, pos.kings, depth, q26)


def _perft(
    b: Board,
    side: int,
    castling: int,
    ep: int,
    double: int,
    kings: tuple[int, int],
    depth: int,
    q26: bool,
) -> int:
    moves = legal_moves(b, side, castling, ep, double, kings[side], q26)
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        a, c2, ep2, d2, k2, _ = make(b, m, side, castling, ep, double, kings)
        total += _perft(a, side ^ 1, c2, ep2, d2, k2, depth - 1, q26)
    return total


# 3D-FEN (C3-1.8) ---------------------------------------------------------------------------


def format_fen(pos: Position) -> str:
    levels = []
    for z in range(3):
        ranks = []
        for y in range(7, -1, -1):
            text, run = "", 0
            for x in range(8):
                p = pos.board[square(x, y, z)]
                if p == EMPTY:
                    run += 1
                    continue
                if run:
                    text, run = text + str(run), 0
                letter = KIND_LETTERS[p & 7]
                text += letter.lower() if p & BLACK else letter
            ranks.append(text + (str(run) if run else ""))
        levels.append("/".join(ranks))
    castling = "".join(c for i, c in enumerate(CASTLING_LETTERS) if pos.castling & (1 << i))
    double = "".join(FILE_LETTERS[x] for x in range(8) if pos.double & (1 << x)) + "".join(
        FILE_LETTERS[x].lower() for x in range(8) if pos.double & (1 << (8 + x))
    )
    return " ".join(
        (
            "|".join(levels),
            "wb"[pos.turn],
            castling or "-",
            NAMES[pos.ep] if pos.ep else "-",
            double or "-",
            str(pos.halfmove),
            str(pos.fullmove),
            str(pos.demand) if pos.demand >= 0 else "-",
        )
    )


def _parse_placement(text: str) -> bytearray:
    levels = text.split("|")
    if len(levels) != 3:
        raise ValueError("placement needs three levels separated by '|'")
    board = bytearray(EMPTY_BOARD)
    for z, level in enumerate(levels):
        ranks = level.split("/")
        if len(ranks) != 8:
            raise ValueError(f"level {z + 1} needs 8 ranks separated by '/'")
        for i, rank in enumerate(ranks):
            y, x = 7 - i, 0
            for ch in rank:
                if ch in "12345678":
                    x += int(ch)
                elif ch.upper() in "KQRBNP" and x < 8:
                    kind = KIND_LETTERS.index(ch.upper())
                    board[square(x, y, z)] = (WHITE if ch.isupper() else BLACK) | kind
                    x += 1
                else:
                    raise ValueError(f"bad character {ch!r} in placement")
            if x != 8:
                raise ValueError(f"rank {y + 1} of level {z + 1} does not have 8 cubes")
    return board


def parse_fen(text: str, q26: bool) -> Position:
    """Parse a 3D-FEN (C3-1.8); raises ValueError with a reason if it is not a valid position."""
    fields = text.split()
    if len(fields) != 8:
        raise ValueError(f"3D-FEN needs 8 space-separated fields, got {len(fields)}")
    placement, side_text, castling_text, ep_text, double_text, half, full, demand_text = fields
    board = _parse_placement(placement)
    if side_text not in ("w", "b"):
        raise ValueError("side to move must be 'w' or 'b'")
    turn = 0 if side_text == "w" else 1
    kings = []
    for side in (0, 1):
        cubes = [sq for sq in SQUARES if board[sq] == COLORS[side] | KING]
        if len(cubes) != 1:
            raise ValueError(f"{('White', 'Black')[side]} must have exactly one King")
        kings.append(cubes[0])
    for sq in SQUARES:
        p = board[sq]
        if p & 7 == PAWN and RANK_OF[sq] == PROMOTION_RANK[(p & BLACK) >> 5]:
            raise ValueError(f"a pawn on its promotion rank ({NAMES[sq]})")
    castling = _parse_castling(castling_text, board)
    ep = _parse_ep(ep_text, board, turn)
    double = _parse_double(double_text, board)
    try:
        halfmove, fullmove = int(half), int(full)
        demand = -1 if demand_text == "-" else int(demand_text)
    except ValueError:
        raise ValueError("clock fields must be integers") from None
    if halfmove < 0 or fullmove < 1 or demand < -1:
        raise ValueError("clock fields out of range")
    b = bytes(board)
    if attacked(b, kings[turn ^ 1], turn, q26):
        raise ValueError("the side not to move is in check")
    king_cubes = (kings[0], kings[1])
    key = repetition_key(b, turn, castling, double, ep, kings[turn], q26)
    check = attacked(b, kings[turn], turn ^ 1, q26)
    return Position(
        b, turn, castling, ep, double, halfmove, fullmove, demand, king_cubes, check, (key,), 0
    )


def _parse_castling(text: str, board: bytearray) -> int:
    if text == "-":
        return 0
    if (
        not text
        or any(c not in CASTLING_LETTERS for c in text)
        or list(text) != sorted(set(text), key=CASTLING_LETTERS.index)
    ):
        raise ValueError("castling rights must be '-' or a subset of 'KQkq' in that order")
    rights = 0
    for side in (0, 1):
        for bit, king_from, _kt, rook_from, *_ in CASTLES[side]:
            if CASTLING_LETTERS[bit.bit_length() - 1] not in text:
                continue
            if board[king_from] != COLORS[side] | KING or board[rook_from] != COLORS[side] | ROOK:
                raise ValueError(f"castling right {CASTLING_LETTERS[bit.bit_length() - 1]} "
                                 f"needs the King on {NAMES[king_from]} and a Rook on "
                                 f"{NAMES[rook_from]}")  # fmt: skip
            rights |= bit
    return rights


def _parse_ep(text: str, board: bytearray, turn: int) -> int:
    if text == "-":
        return 0
    ep = parse_square(text)
    mover = turn ^ 1
    if (
        ep is None
        or RANK_OF[ep] != (2 if mover == 0 else 5)
        or board[ep] != EMPTY
        or board[ep - FORWARD[mover]] != EMPTY
        or board[ep + FORWARD[mover]] != COLORS[mover] | PAWN
    ):
        raise ValueError(f"{text!r} is not a possible en-passant cube")
    return ep


def _parse_double(text: str, board: bytearray) -> int:
    if text == "-":
        return 0
    upper = [c for c in text if c.isupper()]
    lower = [c for c in text if c.islower()]
    if (
        text != "".join(upper + lower)
        or any(c.upper() not in FILE_LETTERS for c in text)
        or upper != sorted(set(upper))
        or lower != sorted(set(lower))
    ):
        raise ValueError("double-step rights must be '-' or files A-H then a-h, in order")
    double = 0
    for c in text:
        x = FILE_LETTERS.index(c.upper())
        side = 0 if c.isupper() else 1
        sq = square(x, 1, 0) if side == 0 else square(x, 6, 2)
        if board[sq] != COLORS[side] | PAWN:
            raise ValueError(f"double-step right {c} needs a pawn on {NAMES[sq]}")
        double |= DOUBLE_BIT[sq]
    return double
