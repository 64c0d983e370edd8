"""Movement, capture modes, threats and legality (CY-4.2, CY-5, CY-6.1, CY-6.4, CY-6.5) on
every board: the directions, ranges, adjacency and ports come from the `Geometry`. Versions A
and B use the plain functions; version C (terrain, ranged attacks, values with terrain and
morale, options e-g) has its own `*_c` functions, chosen once per call by the top-level entry
points, so that A and B pay nothing for it. Pure functions over `Position` and `Config`."""

from typing import Final, NamedTuple

from domain.cyvasse.board import (
    COLOURS,
    COUNT,
    CROSSBOWMEN,
    DRAGON,
    KIND,
    KING,
    MOUNTAIN,
    TREBUCHET,
    VALUE,
    Geometry,
    Position,
    Storm,
    owner,
)
from domain.cyvasse.terrain import (
    BURNING,
    FOREST,
    FORTRESS,
    PROMOTION,
    WATER,
    attack,
    cannot_attack,
    defence,
    entry_cost,
    fortress_owner,
    halts,
    may_enter,
)
from domain.cyvasse.variant import Config

# Action modes (CY-1.3.3).
MOVE: Final = 0  # <from>-<to>
CAPTURE: Final = 1  # <from>x<to>, displacement capture
SHOOT: Final = 2  # <from>*<to>, stationary capture
DROP: Final = 3  # D@<sq>, Dragon from reserve
PASS: Final = 4  # pass (CY-4.3, B and C)
RUIN: Final = 5  # ruin@<sq>, Fortress Storming (CY-6.4.5)

# capture_modes bits
DISPLACE: Final = 1
STATIONARY: Final = 2


class Move(NamedTuple):
    """A board action: mode, from square (-1 for a drop, ruin or pass), to square (-1 for a
    pass) and the kind a man entering its own Fortress is promoted to (0: none, CY-6.4.7)."""

    mode: int
    from_square: int
    to_square: int
    promote: int = 0


PASS_MOVE: Final = Move(PASS, -1, -1)


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


def sea_threats(geo: Geometry, board: bytes, terrain: bytes, target: int, by: int) -> list[int]:
    """CY-6.5.2, CY-R52: `by`'s men (not the Dragon) on the ports neighbouring the port
    `target` (none on Water in version C); call only with `sea-movement`."""
    found = []
    for s in geo.sea[target]:
        man = board[s]
        if (
            man
            and owner(man) == by
            and man & KIND not in (DRAGON, MOUNTAIN)
            and not (terrain and cannot_attack(terrain, s, man & KIND))
        ):
            found.append(s)
    return found


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
                return True
    return cfg.sea_movement and bool(sea_threats(geo, board, b"", target, by))


def pseudo_from(cfg: Config, geo: Geometry, board: bytes, side: int, s: int) -> list[Move]:
    """Moves and captures of the man on `s` by geometry alone (no values, no check)."""
    man = board[s]
    kind = man & KIND
    out: list[Move] = []
    dirs, rng = geo.moves[kind]
    rays = geo.rays[s]
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


def drop_zone(cfg: Config, geo: Geometry, pos: Position, side: int) -> list[int]:
    """Where `side` may introduce its reserve Dragon, occupancy aside: the own half (CY-R41);
    on the hex board in version C the cells within hex distance 2 of the own Fortress cell,
    ruined or not (CY-6.5.3, CY-R53), else the own zone."""
    if geo.hex and pos.terrain:
        fort = pos.forts[side] if pos.forts else -1
        if fort < 0:
            return []
        return [t for t in range(geo.size) if geo.distance(fort, t) <= 2]
    return sorted(geo.halves[side])


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
        return capture_allowed_c(cfg, geo, board, terrain, side, fr, to)
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
    mode, fr, to, promote = move
    if mode in (PASS, RUIN):
        return board
    b = bytearray(board)
    if mode == DROP:
        b[to] = COLOURS[side] | DRAGON
    elif mode == SHOOT:
        b[to] = 0
    else:
        b[to] = COLOURS[side] | promote if promote else b[fr]
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
        cfg, geo, board, side, move.from_square, move.to_square, pos.terrain
    ):
        return False
    if cfg.values or captures_king(board, move):
        return True
    return not in_check(cfg, geo, apply(board, move, side), side)


def legal_moves(cfg: Config, geo: Geometry, pos: Position) -> list[Move]:
    """Every legal board action of the side to move; `pass` alone in B, C when none (CY-4.3)."""
    if pos.terrain:
        moves = legal_moves_c(cfg, geo, pos)
        return moves if moves else [PASS_MOVE]
    moves = [m for m in pseudo_moves(cfg, geo, pos) if is_legal(cfg, geo, pos, m)]
    if not moves and cfg.values:
        return [PASS_MOVE]
    return moves


def has_legal_move(cfg: Config, geo: Geometry, pos: Position) -> bool:
    """Whether the side to move has a legal action other than `pass` (early exit)."""
    if pos.terrain:
        return bool(legal_moves_c(cfg, geo, pos))
    board, side = pos.board, pos.turn
    colour = COLOURS[side]
    for s, man in enumerate(board):
        if man and man & ~KIND == colour and man & KIND != MOUNTAIN:
            for m in pseudo_from(cfg, geo, board, side, s):
                if is_legal(cfg, geo, pos, m):
                    return True
    if pos.reserve >> side & 1:
        for t in drop_zone(cfg, geo, pos, side):
            if not board[t] and is_legal(cfg, geo, pos, Move(DROP, -1, t)):
                return True
    return False


def play(cfg: Config, pos: Position, move: Move) -> Position:
    """The position after a legal `move` (CY-7.4/7.5 bookkeeping; unchecked)."""
    if pos.terrain:
        return play_c(cfg, pos, move)
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


# Version C (CY-5.1.1 C columns, CY-5.3, CY-5.4.4, CY-5.4.8, CY-6.2-6.4) ------------------------


def walk(
    cfg: Config, geo: Geometry, board: bytes, terrain: bytes, kind: int, ray: tuple[int, ...]
) -> tuple[list[int], int]:
    """The empty squares a man of `kind` may move to along `ray` and the occupied square its
    line stops at if the man may enter it (-1 if none): CY-5.2, CY-5.3, Wildfyre CY-5.2.3.
    Whether the stop square holds an enemy is for the caller."""
    moves: list[int] = []
    dirs_rng = geo.moves_c[kind][1]
    if kind == DRAGON:  # CY-5.3.5, CY-R26: no costs, no halts; flies over Mountains
        over = False
        for t in ray[:dirs_rng]:
            if terrain[t] == BURNING:
                break
            p = board[t]
            if not p:
                moves.append(t)
            elif p & KIND == MOUNTAIN:
                over = True
            else:
                return moves, t if not over or cfg.dragon_capture_over_mountains else -1
        return moves, -1
    spent = 0
    for t in ray[:dirs_rng]:
        tile = terrain[t]
        if tile == BURNING:
            break
        spent += entry_cost(kind, tile)
        if not may_enter(kind, tile, spent):
            break
        if board[t]:
            return moves, t
        moves.append(t)
        if halts(kind, tile):
            break
    return moves, -1


def capture_modes_c(
    cfg: Config, geo: Geometry, board: bytes, terrain: bytes, side: int, s: int,
    ray: tuple[int, ...], d: int, k: int,
) -> int:  # fmt: skip
    """CY-5.4 in version C: the modes by which `side`'s man on `s` reaches the square k steps
    along `ray` (direction `d`), ignoring values; the target's content is not looked at."""
    kind = board[s] & KIND
    if cannot_attack(terrain, s, kind):  # CY-5.4.8
        return 0
    modes = 0
    dirs, _rng = geo.moves_c[kind]
    if d in dirs and walk(cfg, geo, board, terrain, kind, ray)[1] == ray[k - 1]:  # CY-5.4.1
        modes = DISPLACE
    if k <= 2:
        mid = board[ray[0]] if k == 2 else 0
        own = bool(mid) and owner(mid) == side
        if kind == TREBUCHET:  # CY-5.4.4, CY-R10, CY-R11, CY-R37: over Mountains, own men
            shoots = d < geo.n_orth and (
                not mid or cfg.super_trebuchet or mid & KIND == MOUNTAIN or own
            )
        elif kind == CROSSBOWMEN:  # CY-5.4.4: square diagonal, hex orthogonal; a clear line
            shoots = d in geo.xbow and not mid
        else:  # CY-5.4.5, CY-R43, CY-6.5.4: Dragonfyre over empty squares and own men
            shoots = (
                kind == DRAGON
                and cfg.dragonfyre
                and d in dirs
                and (not mid or (own and mid & KIND != MOUNTAIN))
            )
        if shoots:
            modes |= STATIONARY
    elif k == 3 and kind == TREBUCHET and cfg.super_trebuchet and d < geo.n_orth:
        modes |= STATIONARY  # hex: Super Trebuchets reach 3 over anything (CY-R42)
    return modes


def threateners_c(
    cfg: Config, geo: Geometry, board: bytes, terrain: bytes, target: int, by: int
) -> list[int]:
    """Squares of `by`'s men that threaten `target` in version C (CY-5.5.1, CY-R20)."""
    found = []
    rays, opposite, reach, scan = geo.rays, geo.opposite, geo.reach_c, geo.scan
    for d in geo.dirs:
        back = opposite[d]
        for k, s in enumerate(rays[target][d][:scan], 1):
            man = board[s]
            if not man or owner(man) != by or k > reach[man & KIND]:
                continue
            if capture_modes_c(cfg, geo, board, terrain, by, s, rays[s][back], back, k):
                found.append(s)
    if cfg.sea_movement:
        found.extend(sea_threats(geo, board, terrain, target, by))
    return found


def capture_allowed_c(
    cfg: Config, geo: Geometry, board: bytes, terrain: bytes, side: int, fr: int, to: int
) -> bool:
    """CY-5.6.2 with the values of CY-6.2 (CY-R23): single, flank or King flank."""
    target = defence(geo, board, terrain, to, cfg.fortress_cap)
    if attack(geo, board, terrain, fr) >= target:
        return True
    flank = threateners_c(cfg, geo, board, terrain, to, side)
    if len(flank) < 2:
        return False
    if any(board[s] & KIND == KING for s in flank):
        return True
    return sum(attack(geo, board, terrain, s) for s in flank) >= target


def _promotions(cfg: Config, pos: Position, move: Move) -> list[Move]:
    """CY-6.4.7, CY-R46: `move` and, if it enters the mover's own intact Fortress with a man
    whose next type up the ladder the player has lost, the same move with that promotion."""
    to = move.to_square
    terrain = pos.terrain
    if not cfg.fortress_promotion or terrain[to] != FORTRESS:
        return [move]
    side = pos.turn
    if fortress_owner(terrain, to) != side:
        return [move]
    up = PROMOTION.get(pos.board[move.from_square] & KIND)
    if up is None:
        return [move]
    have = pos.board.count(COLOURS[side] | up) + (up == DRAGON and pos.reserve >> side & 1)
    return [move, move._replace(promote=up)] if have < COUNT[up] else [move]


def pseudo_from_c(cfg: Config, geo: Geometry, pos: Position, s: int) -> list[Move]:
    """Moves and captures of the man on `s` in version C, values aside."""
    board, terrain, side = pos.board, pos.terrain, pos.turn
    kind = board[s] & KIND
    out: list[Move] = []
    dirs, _rng = geo.moves_c[kind]
    rays = geo.rays[s]
    shoots = not cannot_attack(terrain, s, kind)
    for d in dirs:  # CY-5.2, CY-5.3, CY-5.4.1
        moves, stop = walk(cfg, geo, board, terrain, kind, rays[d])
        out.extend(Move(MOVE, s, t) for t in moves)
        if stop >= 0 and shoots:
            p = board[stop]
            if owner(p) != side and p & KIND != MOUNTAIN:
                out.append(Move(CAPTURE, s, stop))
    if shoots and (kind in (TREBUCHET, CROSSBOWMEN) or (kind == DRAGON and cfg.dragonfyre)):
        shoot = geo.shoot if kind == TREBUCHET else 2
        for d in geo.dirs:  # CY-5.4.4, CY-5.4.5
            ray = rays[d]
            for k, t in enumerate(ray[:shoot], 1):
                p = board[t]
                if not p or p & KIND == MOUNTAIN or owner(p) == side:  # CY-5.4.9, CY-R56
                    continue
                if capture_modes_c(cfg, geo, board, terrain, side, s, ray, d, k) & STATIONARY:
                    out.append(Move(SHOOT, s, t))
    if cfg.sea_movement and kind != DRAGON:  # CY-6.5.2, CY-R52: no terrain costs or halts
        for t in geo.sea[s]:
            p = board[t]
            if terrain[t] == BURNING:
                continue
            if not p:
                out.append(Move(MOVE, s, t))
            elif shoots and owner(p) != side and p & KIND != MOUNTAIN:
                out.append(Move(CAPTURE, s, t))
    if cfg.fortress_promotion:
        out = [p for m in out for p in (_promotions(cfg, pos, m) if m.mode != SHOOT else [m])]
    return out


def legal_moves_c(cfg: Config, geo: Geometry, pos: Position) -> list[Move]:
    """Every legal board action but `pass` in version C: no check (CY-6.1.5), values of CY-6.2
    for captures, Dragon drops on non-burning squares (CY-R41), ruins (CY-6.4.5)."""
    board, terrain, side = pos.board, pos.terrain, pos.turn
    colour = COLOURS[side]
    out: list[Move] = []
    for s, man in enumerate(board):
        if man and man & ~KIND == colour and man & KIND != MOUNTAIN:
            for m in pseudo_from_c(cfg, geo, pos, s):
                if m.mode == MOVE or capture_allowed_c(cfg, geo, board, terrain, side, s,
                                                       m.to_square):  # fmt: skip
                    out.append(m)
    if pos.reserve >> side & 1:
        out.extend(
            Move(DROP, -1, t)
            for t in drop_zone(cfg, geo, pos, side)
            if not board[t] and terrain[t] != BURNING
        )
    out.extend(Move(RUIN, -1, sq) for sq, seat, eligible in pos.storm if seat == side and eligible)
    return out


def _storms(cfg: Config, pos: Position, move: Move, board: bytes, terrain: bytes) -> list[Storm]:
    """CY-6.4.5, CY-R44: storming rights after `move` (played by the side to move)."""
    side = pos.turn
    mode, fr, to, _ = move
    out: list[Storm] = []
    for sq, seat, eligible in pos.storm:
        if seat == side:  # the stormer acted: leaving or ruining ends the right
            if not (mode == RUIN and to == sq) and not (mode in (MOVE, CAPTURE) and fr == sq):
                out.append((sq, seat, eligible))
        elif board[sq] and owner(board[sq]) == seat:  # survived the opponent's turn
            out.append((sq, seat, 1))
    if (
        cfg.fortress_storming
        and mode in (MOVE, CAPTURE)
        and terrain[to] == FORTRESS
        and fortress_owner(terrain, to) != side
    ):
        out.append((to, side, 0))
    return sorted(out)


def play_c(cfg: Config, pos: Position, move: Move) -> Position:
    """The position after a legal version-C `move`: ruin by the Dragon (CY-6.3), Wildfyre
    (CY-6.4.6), storming rights and ruin (CY-6.4.5), promotion (CY-6.4.7); unchecked."""
    side = pos.turn
    mode, fr, to, promote = move
    board = apply(pos.board, move, side)
    tiles = pos.terrain
    tile = tiles[to] if to >= 0 else 0
    changed = -1
    if mode == RUIN:
        changed = FOREST
    elif mode in (MOVE, CAPTURE, SHOOT):
        if (
            tile == FORTRESS
            and pos.board[fr] & KIND == DRAGON
            and fortress_owner(tiles, to) != side
        ):  # CY-6.3.1, CY-R35
            changed = FOREST
        elif mode == SHOOT and tile == WATER and cfg.wildfyre:  # CY-R45
            changed = BURNING
    terrain = tiles if changed < 0 else tiles[:to] + bytes((changed,)) + tiles[to + 1 :]
    storm = tuple(_storms(cfg, pos, move, board, terrain)) if cfg.fortress_storming else ()
    reserve = pos.reserve & ~(1 << side) if mode == DROP else pos.reserve
    progress = mode in (CAPTURE, SHOOT, DROP, RUIN) or promote > 0 or changed >= 0  # CY-7.5
    nxt = Position(
        board,
        side ^ 1,
        reserve,
        0 if progress else pos.quiet + 1,
        pos.passes + 1 if mode == PASS else 0,
        (),
        terrain,
        storm,
        pos.forts,
    )
    key = nxt.key()
    return nxt._replace(history=(key,) if progress else (*pos.history, key))
