"""Movement, capture modes, threats and legality for versions A and B on square boards
(CY-4.2, CY-5, CY-6.1, CY-6.4.2-6.4.4). Pure functions over `Position` and `Config`."""

from typing import Final, NamedTuple

from domain.cyvasse.board import (
    ALL,
    COLOURS,
    DRAGON,
    KIND,
    KING,
    MOUNTAIN,
    MOVES,
    OPPOSITE,
    TREBUCHET,
    VALUE,
    Geometry,
    Position,
    owner,
)
from domain.cyvasse.variant import Config

# Action modes (CY-1.3.3).
MOVE: Final = 0  # <from>-<to>
CAPTURE: Final = 1  # <from>x<to>, displacement capture
SHOOT: Final = 2  # <from>*<to>, stationary capture
DROP: Final = 3  # D@<sq>, Dragon from reserve
PASS: Final = 4  # pass (CY-4.3, B only)

# capture_modes bits
DISPLACE: Final = 1
STATIONARY: Final = 2

# Furthest distance any capture mode of a kind reaches (Dragonfyre 2 < Dragon 4).
REACH: Final = tuple(rng for _dirs, rng in MOVES)


class Move(NamedTuple):
    """A board action: mode, from square (-1 for a drop or pass), to square (-1 for a pass)."""

    mode: int
    from_square: int
    to_square: int


PASS_MOVE: Final = Move(PASS, -1, -1)


def capture_modes(
    cfg: Config, board: bytes, side: int, kind: int, ray: tuple[int, ...], d: int, k: int
) -> int:
    """The capture modes (DISPLACE | STATIONARY bits) by which `side`'s man of `kind` reaches
    the square k steps along `ray` (direction `d`), ignoring values and check (CY-5.4, 5.5.1).
    The target square's content is not looked at."""
    modes = 0
    dirs, rng = MOVES[kind]
    if d in dirs and k <= rng:  # CY-5.2, CY-5.4.1
        for i in range(k - 1):
            p = board[ray[i]]
            if p and not (
                kind == DRAGON and p & KIND == MOUNTAIN and cfg.dragon_capture_over_mountains
            ):  # CY-5.2.2, CY-5.4.2, CY-R13
                break
        else:
            modes = DISPLACE
    if kind == TREBUCHET and k == 2 and d < 4:  # CY-5.4.3, CY-R08, CY-R09 (R = 2 on squares)
        mid = board[ray[0]]
        if mid and (cfg.super_trebuchet or mid & KIND == MOUNTAIN or owner(mid) == side):
            modes |= STATIONARY
    if kind == DRAGON and cfg.dragonfyre and k <= 2:  # CY-5.4.5, CY-R43
        mid = board[ray[0]] if k == 2 else 0
        if not mid or (owner(mid) == side and mid & KIND != MOUNTAIN):
            modes |= STATIONARY
    return modes


def threateners(cfg: Config, geo: Geometry, board: bytes, target: int, by: int) -> list[int]:
    """Squares of `by`'s men that threaten `target` (CY-5.5.1): reverse rays from the target."""
    found = []
    rays = geo.rays
    for d in ALL:
        back = OPPOSITE[d]
        for k, s in enumerate(rays[target][d][:4], 1):
            man = board[s]
            if not man or owner(man) != by:
                continue
            kind = man & KIND
            if k <= REACH[kind] and capture_modes(cfg, board, by, kind, rays[s][back], back, k):
                found.append(s)
    return found


def attacked(cfg: Config, geo: Geometry, board: bytes, target: int, by: int) -> bool:
    """Whether some man of `by` threatens `target` (CY-6.1.1)."""
    rays = geo.rays
    for d in ALL:
        back = OPPOSITE[d]
        for k, s in enumerate(rays[target][d][:4], 1):
            man = board[s]
            if not man or owner(man) != by:
                continue
            kind = man & KIND
            if k <= REACH[kind] and capture_modes(cfg, board, by, kind, rays[s][back], back, k):
                return True
    return False


def pseudo_from(cfg: Config, geo: Geometry, board: bytes, side: int, s: int) -> list[Move]:
    """Moves and captures of the man on `s` by geometry alone (no values, no check)."""
    man = board[s]
    kind = man & KIND
    out: list[Move] = []
    dirs, rng = MOVES[kind]
    rays = geo.rays[s]
    for d in dirs:  # moves: CY-5.2.1, CY-5.2.2
        for t in rays[d][:rng]:
            p = board[t]
            if not p:
                out.append(Move(MOVE, s, t))
            elif not (kind == DRAGON and p & KIND == MOUNTAIN):
                break
    for d in ALL:  # captures: CY-5.4
        ray = rays[d]
        for k, t in enumerate(ray[: REACH[kind]], 1):
            p = board[t]
            if not p or p & KIND == MOUNTAIN or owner(p) == side:  # CY-5.4.9, CY-R56
                continue
            modes = capture_modes(cfg, board, side, kind, ray, d, k)
            if modes & DISPLACE:
                out.append(Move(CAPTURE, s, t))
            if modes & STATIONARY:
                out.append(Move(SHOOT, s, t))
    return out


def pseudo_moves(cfg: Config, geo: Geometry, pos: Position) -> list[Move]:
    side, board = pos.turn, pos.board
    colour = COLOURS[side]
    out: list[Move] = []
    for s, man in enumerate(board):
        if man and man & ~KIND == colour and man & KIND != MOUNTAIN:
            out.extend(pseudo_from(cfg, geo, board, side, s))
    if pos.reserve >> side & 1:  # CY-6.4.2, CY-R41
        out.extend(Move(DROP, -1, t) for t in sorted(geo.halves[side]) if not board[t])
    return out


def capture_allowed(cfg: Config, geo: Geometry, board: bytes, side: int, fr: int, to: int) -> bool:
    """CY-5.6: version A allows every capture; B needs a single, flank or King-flank capture."""
    if not cfg.values:
        return True
    defence = VALUE[board[to] & KIND]
    if VALUE[board[fr] & KIND] >= defence:  # CY-R19
        return True
    flank = threateners(cfg, geo, board, to, side)  # CY-R20
    if len(flank) < 2:
        return False
    kinds = [board[s] & KIND for s in flank]
    return KING in kinds or sum(VALUE[k] for k in kinds) >= defence  # CY-R21, CY-R22


def apply(board: bytes, move: Move, side: int) -> bytes:
    mode, fr, to = move
    if mode == PASS:
        return board
    b = bytearray(board)
    if mode == DROP:
        b[to] = COLOURS[side] | DRAGON
    elif mode == SHOOT:
        b[to] = 0
    else:
        b[to] = b[fr]
        b[fr] = 0
    return bytes(b)


def captures_king(board: bytes, move: Move) -> bool:
    return move.mode in (CAPTURE, SHOOT) and board[move.to_square] & KIND == KING


def in_check(cfg: Config, geo: Geometry, board: bytes, side: int) -> bool:
    """CY-6.1.1 (version A): `side`'s King is threatened."""
    king = board.find(COLOURS[side] | KING)
    return king >= 0 and attacked(cfg, geo, board, king, side ^ 1)


def is_legal(cfg: Config, geo: Geometry, pos: Position, move: Move) -> bool:
    """A pseudo-legal action is legal (CY-4.2): values (B) and, in A, the King not left in
    check; taking the enemy King (possible only right after the reveal, CY-R60) is legal."""
    board, side = pos.board, pos.turn
    if move.mode in (CAPTURE, SHOOT) and not capture_allowed(
        cfg, geo, board, side, move.from_square, move.to_square
    ):
        return False
    if cfg.values or captures_king(board, move):
        return True
    return not in_check(cfg, geo, apply(board, move, side), side)


def legal_moves(cfg: Config, geo: Geometry, pos: Position) -> list[Move]:
    """Every legal board action of the side to move; `pass` alone in B when none (CY-4.3)."""
    moves = [m for m in pseudo_moves(cfg, geo, pos) if is_legal(cfg, geo, pos, m)]
    if not moves and cfg.values:
        return [PASS_MOVE]
    return moves


def has_legal_move(cfg: Config, geo: Geometry, pos: Position) -> bool:
    """Whether the side to move has a legal action other than `pass` (early exit)."""
    board, side = pos.board, pos.turn
    colour = COLOURS[side]
    for s, man in enumerate(board):
        if man and man & ~KIND == colour and man & KIND != MOUNTAIN:
            for m in pseudo_from(cfg, geo, board, side, s):
                if is_legal(cfg, geo, pos, m):
                    return True
    if pos.reserve >> side & 1:
        for t in geo.halves[side]:
            if not board[t] and is_legal(cfg, geo, pos, Move(DROP, -1, t)):
                return True
    return False


def play(pos: Position, move: Move) -> Position:
    """The position after a legal `move` (CY-7.4/7.5 bookkeeping; unchecked)."""
    side = pos.turn
    board = apply(pos.board, move, side)
    reserve = pos.reserve & ~(1 << side) if move.mode == DROP else pos.reserve
    progress = move.mode in (CAPTURE, SHOOT, DROP)
    turn = side ^ 1
    key = board + bytes((turn, reserve))
    return Position(
        board,
        turn,
        reserve,
        0 if progress else pos.quiet + 1,
        pos.passes + 1 if move.mode == PASS else 0,
        (key,) if progress else (*pos.history, key),
    )


def perft(cfg: Config, geo: Geometry, pos: Position, depth: int) -> int:
    """Number of legal action sequences of length `depth`. Like chess perft it ignores the
    draw rules (CY-7.4-7.6), but a King capture ends the game: no sequence continues it."""
    if depth == 0:
        return 1
    moves = legal_moves(cfg, geo, pos)
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        if not captures_king(pos.board, m):
            total += perft(cfg, geo, play(pos, m), depth - 1)
    return total
