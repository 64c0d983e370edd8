"""Move generation and legality of versions A and B (CY-4.2, CY-5, CY-6.1, CY-6.4, CY-6.5) on
every board: capture modes, threats, check, the legal actions, playing one and perft; the
directions, ranges, adjacency and ports come from the `Geometry`. Version C (terrain, ranged
attacks, values with terrain and morale, options e-g) is in version_c.py: the entry points
capture_allowed, legal_moves, has_legal_move and play hand a position with terrain to it once per
call, so that A and B pay nothing for it. Pure functions over `Position` and `Config`."""

from collections.abc import Callable, Iterable
from functools import cache, partial

from domain.cyvasse import version_c
from domain.cyvasse.board import (
    COLOURS,
    DRAGON,
    KIND,
    KING,
    MOUNTAIN,
    TREBUCHET,
    VALUE,
    Geometry,
    Position,
    geometry,
    owner,
)
from domain.cyvasse.move import (
    CAPTURE,
    DISPLACE,
    DROP,
    MOVE,
    PASS,
    PASS_MOVE,
    SHOOT,
    STATIONARY,
    Move,
    apply,
    captures_king,
    drop_zone,
    sea_threats,
)
from domain.cyvasse.variant import Config


def capture_modes(
    cfg: Config, geo: Geometry, board: bytes, side: int, kind: int, ray: tuple[int, ...], d: int,
    k: int,
) -> int:  # fmt: skip
    """The capture modes (DISPLACE | STATIONARY bits) by which `side`'s man of `kind` reaches
    the square k steps along `ray` (direction `d`), ignoring values and check (CY-5.4, 5.5.1).
    The target square's content is not looked at."""
    modes = 0
    dirs, rng = geo.moves[kind]
    if d in dirs and k <= rng:  # CY-5.2, CY-5.4.1
        for i in range(k - 1):
            p = board[ray[i]]
            if p and not (
                kind == DRAGON and p & KIND == MOUNTAIN and cfg.dragon_capture_over_mountains
            ):  # CY-5.2.2, CY-5.4.2, CY-R13
                break
        else:
            modes = DISPLACE
    if kind == TREBUCHET and d < geo.n_orth:  # CY-5.4.3, CY-R08, CY-R09
        if k == 2:
            mid = board[ray[0]]
            if mid and (cfg.super_trebuchet or mid & KIND == MOUNTAIN or owner(mid) == side):
                modes |= STATIONARY
        elif k == 3 and cfg.super_trebuchet:  # only on hex (reach 3): R = 3, CY-R42
            modes |= STATIONARY
    if kind == DRAGON and cfg.dragonfyre and k <= 2 and d in dirs:  # CY-5.4.5, CY-R43, 6.5.4
        mid = board[ray[0]] if k == 2 else 0
        if not mid or (owner(mid) == side and mid & KIND != MOUNTAIN):
            modes |= STATIONARY
    return modes


def threateners(cfg: Config, geo: Geometry, board: bytes, target: int, by: int) -> list[int]:
    """Squares of `by`'s men that threaten `target` (CY-5.5.1): reverse rays from the target."""
    found = []
    rays, opposite, reach, scan = geo.rays, geo.opposite, geo.reach, geo.scan
    for d in geo.dirs:
        back = opposite[d]
        for k, s in enumerate(rays[target][d][:scan], 1):
            man = board[s]
            if not man or owner(man) != by:
                continue
            kind = man & KIND
            if k <= reach[kind] and capture_modes(cfg, geo, board, by, kind, rays[s][back],
                                                  back, k):  # fmt: skip
                found.append(s)
    if cfg.sea_movement:
        found.extend(sea_threats(geo, board, b"", target, by))
    return found


def attacked(cfg: Config, geo: Geometry, board: bytes, target: int, by: int) -> bool:
    """Whether some man of `by` threatens `target` (CY-6.1.1, sea threats: CY-6.5.2)."""
    return _threatened_along(cfg, geo, board, target, by, geo.dirs) or (
        cfg.sea_movement and bool(sea_threats(geo, board, b"", target, by))
    )


def _threatened_along(
    cfg: Config, geo: Geometry, board: bytes, target: int, by: int, dirs: Iterable[int]
) -> bool:
    """Whether some man of `by` threatens `target` along one of `dirs` (sea threats aside)."""
    rays, opposite, reach, scan = geo.rays, geo.opposite, geo.reach, geo.scan
    for d in dirs:
        back = opposite[d]
        for k, s in enumerate(rays[target][d][:scan], 1):
            man = board[s]
            if not man or owner(man) != by:
                continue
            kind = man & KIND
            if k <= reach[kind] and capture_modes(cfg, geo, board, by, kind, rays[s][back],
                                                  back, k):  # fmt: skip
                return True
    return False


@cache
def _read_by_lines(board: str) -> tuple[dict[int, tuple[int, ...]], ...]:
    """Per target cell: cell -> the directions d whose part of `_threatened_along` reads that
    cell (the men up to `scan` cells along d and the cells capture_modes looks at between)."""
    geo = geometry(board)
    table = []
    for target in range(geo.size):
        reads: dict[int, list[int]] = {}
        for d in geo.dirs:
            back = geo.opposite[d]
            for k, s in enumerate(geo.rays[target][d][: geo.scan], 1):
                for cell in (s, *geo.rays[s][back][: k - 1]):
                    if d not in reads.setdefault(cell, []):
                        reads[cell].append(d)
        table.append({cell: tuple(dirs) for cell, dirs in reads.items()})
    return tuple(table)


def pseudo_from(cfg: Config, geo: Geometry, board: bytes, side: int, s: int) -> list[Move]:
    """Moves and captures of the man on `s` by geometry alone (no values, no check)."""
    man = board[s]
    kind = man & KIND
    out: list[Move] = []
    dirs, rng = geo.moves[kind]
    rays = geo.rays[s]
    if kind not in (TREBUCHET, DRAGON):
        # The other men capture only as they move (CY-5.4.1): the first man along one of
        # their directions (which run in `geo.dirs` order) within range. One pass finds what
        # capture_modes would, the captures listed after the moves.
        captures = []
        for d in dirs:  # moves: CY-5.2.1, CY-5.2.2
            for t in rays[d][:rng]:
                p = board[t]
                if p:
                    if p & KIND != MOUNTAIN and owner(p) != side:  # CY-5.4.9, CY-R56
                        captures.append(Move(CAPTURE, s, t))
                    break
                out.append(Move(MOVE, s, t))
        out += captures
    else:
        for d in dirs:  # moves: CY-5.2.1, CY-5.2.2
            for t in rays[d][:rng]:
                p = board[t]
                if not p:
                    out.append(Move(MOVE, s, t))
                elif not (kind == DRAGON and p & KIND == MOUNTAIN):
                    break
        reach = geo.reach[kind]
        for d in geo.dirs:  # captures: CY-5.4
            ray = rays[d]
            for k, t in enumerate(ray[:reach], 1):
                p = board[t]
                if not p or p & KIND == MOUNTAIN or owner(p) == side:  # CY-5.4.9, CY-R56
                    continue
                modes = capture_modes(cfg, geo, board, side, kind, ray, d, k)
                if modes & DISPLACE:
                    out.append(Move(CAPTURE, s, t))
                if modes & STATIONARY:
                    out.append(Move(SHOOT, s, t))
    if cfg.sea_movement and kind != DRAGON:  # CY-6.5.2, CY-R52: to a neighbouring port
        for t in geo.sea[s]:
            p = board[t]
            if not p:
                out.append(Move(MOVE, s, t))
            elif owner(p) != side and p & KIND != MOUNTAIN:
                out.append(Move(CAPTURE, s, t))
    return out


def pseudo_moves(cfg: Config, geo: Geometry, pos: Position) -> list[Move]:
    side, board = pos.turn, pos.board
    colour = COLOURS[side]
    out: list[Move] = []
    for s, man in enumerate(board):
        if man and man & ~KIND == colour and man & KIND != MOUNTAIN:
            out.extend(pseudo_from(cfg, geo, board, side, s))
    if pos.reserve >> side & 1:  # CY-6.4.2, CY-R41, CY-6.5.3
        out.extend(Move(DROP, -1, t) for t in drop_zone(cfg, geo, pos, side) if not board[t])
    return out


def capture_allowed(
    cfg: Config, geo: Geometry, board: bytes, side: int, fr: int, to: int, terrain: bytes = b""
) -> bool:
    """CY-5.6: version A allows every capture; B and C need a single, flank or King-flank
    capture (C with the values of CY-6.2, `terrain` given)."""
    if terrain:
        return version_c.may_capture(cfg, geo, board, terrain, side, fr, to)
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


def in_check(cfg: Config, geo: Geometry, board: bytes, side: int) -> bool:
    """CY-6.1.1 (version A): `side`'s King is threatened."""
    king = board.find(COLOURS[side] | KING)
    return king >= 0 and attacked(cfg, geo, board, king, side ^ 1)


def is_legal(cfg: Config, geo: Geometry, pos: Position, move: Move) -> bool:
    """A pseudo-legal action is legal (CY-4.2): values (B) and, in A, the King not left in
    check; taking the enemy King (possible only right after the reveal, CY-R60) is legal."""
    board, side = pos.board, pos.turn
    if move.mode in (CAPTURE, SHOOT) and not capture_allowed(
        cfg, geo, board, side, move.from_square, move.to_square, pos.terrain
    ):
        return False
    if cfg.values or captures_king(board, move):
        return True
    return not in_check(cfg, geo, apply(board, move, side), side)


def _legality(cfg: Config, geo: Geometry, pos: Position) -> Callable[[Move], bool]:
    """`is_legal` for the many actions of one position (versions A and B).

    Version A out of check: an action threatens its own King only along a line whose cells it
    changes, and only along one with an enemy man in reach of the King already (an action
    adds no enemy man), so only those lines are tested again (and sea threats, which read the
    King's two ports); an action that changes none needs no board built. Moves of the King
    itself are tested whole."""
    if cfg.values:
        return partial(is_legal, cfg, geo, pos)
    board, side = pos.board, pos.turn
    king = board.find(COLOURS[side] | KING)
    if king < 0 or attacked(cfg, geo, board, king, side ^ 1):
        return partial(is_legal, cfg, geo, pos)
    reads = _read_by_lines(geo.board)[king]
    reach, enemy = geo.reach, side ^ 1
    live = {
        d
        for d in geo.dirs
        for k, s in enumerate(geo.rays[king][d][: geo.scan], 1)
        if (man := board[s]) and owner(man) == enemy and k <= reach[man & KIND]
    }
    sea = cfg.sea_movement

    def legal(move: Move) -> bool:
        _mode, fr, to, _promote = move
        if captures_king(board, move):
            return True
        if fr == king:
            return is_legal(cfg, geo, pos, move)
        dirs = [d for d in (*reads.get(fr, ()), *reads.get(to, ())) if d in live]
        if not dirs and not sea:
            return True
        after = apply(board, move, side)
        return not (
            _threatened_along(cfg, geo, after, king, enemy, dirs)
            or (sea and sea_threats(geo, after, b"", king, enemy))
        )

    return legal


def legal_moves(cfg: Config, geo: Geometry, pos: Position) -> list[Move]:
    """Every legal board action of the side to move; `pass` alone in B, C when none (CY-4.3)."""
    if pos.terrain:
        moves = version_c.legal_moves(cfg, geo, pos)
        return moves or [PASS_MOVE]
    legal = _legality(cfg, geo, pos)
    moves = [m for m in pseudo_moves(cfg, geo, pos) if legal(m)]
    if not moves and cfg.values:
        return [PASS_MOVE]
    return moves


def has_legal_move(cfg: Config, geo: Geometry, pos: Position) -> bool:
    """Whether the side to move has a legal action other than `pass` (early exit)."""
    if pos.terrain:
        return bool(version_c.legal_moves(cfg, geo, pos))
    board, side = pos.board, pos.turn
    colour = COLOURS[side]
    legal = _legality(cfg, geo, pos)
    for s, man in enumerate(board):
        if man and man & ~KIND == colour and man & KIND != MOUNTAIN:
            for m in pseudo_from(cfg, geo, board, side, s):
                if legal(m):
                    return True
    if pos.reserve >> side & 1:
        for t in drop_zone(cfg, geo, pos, side):
            if not board[t] and legal(Move(DROP, -1, t)):
                return True
    return False


def play(cfg: Config, pos: Position, move: Move) -> Position:
    """The position after a legal `move` (CY-7.4/7.5 bookkeeping; unchecked)."""
    if pos.terrain:
        return version_c.play(cfg, pos, move)
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
            total += perft(cfg, geo, play(cfg, pos, m), depth - 1)
    return total
