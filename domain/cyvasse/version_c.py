"""Version C (CY-5.2.3, CY-5.2.4, CY-5.3, CY-5.4.4, CY-5.4.8, CY-5.6.2 with CY-6.2, CY-6.3,
CY-6.4.5-6.4.7): moves over terrain, ranged attacks, captures with the values of terrain,
Fortress and morale, no check (CY-6.1.5), the Fortress rules (ruin by the Dragon, Storming,
Promotion) and Wildfyre, and why version C refuses an action. The tiles, costs and values are in
terrain.py; movegen.py and rules.py dispatch here when the position has terrain."""

from domain.core import Rejection
from domain.cyvasse.board import (
    COLOURS,
    COUNT,
    CROSSBOWMEN,
    DRAGON,
    KIND,
    KING,
    MOUNTAIN,
    NAMES_OF_KIND,
    TREBUCHET,
    Geometry,
    Position,
    Storm,
    owner,
)
from domain.cyvasse.move import (
    CAPTURE,
    DISPLACE,
    DROP,
    MOVE,
    PASS,
    RUIN,
    SHOOT,
    STATIONARY,
    Move,
    apply,
    drop_zone,
    how,
    illegal,
    no_ranged_attack,
    sea_threats,
)
from domain.cyvasse.terrain import (
    BURNING,
    FOREST,
    FORTRESS,
    PROMOTION,
    TILE_NAMES,
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

# Movement and capture (CY-5.2, CY-5.3, CY-5.4, CY-5.5, CY-5.6.2) ---------------------------


def _move_line(
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


def _capture_modes(
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
    if d in dirs and _move_line(cfg, geo, board, terrain, kind, ray)[1] == ray[k - 1]:  # CY-5.4.1
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


def _threateners(
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
            if _capture_modes(cfg, geo, board, terrain, by, s, rays[s][back], back, k):
                found.append(s)
    if cfg.sea_movement:
        found.extend(sea_threats(geo, board, terrain, target, by))
    return found


def may_capture(
    cfg: Config, geo: Geometry, board: bytes, terrain: bytes, side: int, fr: int, to: int
) -> bool:
    """CY-5.6.2 with the values of CY-6.2 (CY-R23): single, flank or King flank."""
    target = defence(geo, board, terrain, to, cfg.fortress_cap)
    if attack(geo, board, terrain, fr) >= target:
        return True
    flank = _threateners(cfg, geo, board, terrain, to, side)
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


def _moves_and_captures(cfg: Config, geo: Geometry, pos: Position, s: int) -> list[Move]:
    """Moves and captures of the man on `s` in version C, values aside."""
    board, terrain, side = pos.board, pos.terrain, pos.turn
    kind = board[s] & KIND
    out: list[Move] = []
    dirs, _rng = geo.moves_c[kind]
    rays = geo.rays[s]
    shoots = not cannot_attack(terrain, s, kind)
    for d in dirs:  # CY-5.2, CY-5.3, CY-5.4.1
        moves, stop = _move_line(cfg, geo, board, terrain, kind, rays[d])
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
                if _capture_modes(cfg, geo, board, terrain, side, s, ray, d, k) & STATIONARY:
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


# Legal actions and play (CY-4.2, CY-6.3, CY-6.4.5-6.4.7) -----------------------------------


def legal_moves(cfg: Config, geo: Geometry, pos: Position) -> list[Move]:
    """Every legal board action but `pass` in version C: no check (CY-6.1.5), values of CY-6.2
    for captures, Dragon drops on non-burning squares (CY-R41), ruins (CY-6.4.5)."""
    board, terrain, side = pos.board, pos.terrain, pos.turn
    colour = COLOURS[side]
    out: list[Move] = []
    for s, man in enumerate(board):
        if man and man & ~KIND == colour and man & KIND != MOUNTAIN:
            for m in _moves_and_captures(cfg, geo, pos, s):
                if m.mode == MOVE or may_capture(cfg, geo, board, terrain, side, s, m.to_square):
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


def play(cfg: Config, pos: Position, move: Move) -> Position:
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


# Refusals (CY-5.3.3, CY-5.4.4, CY-5.4.8, CY-5.6.2, CY-6.4.5, CY-6.4.7) ---------------------


def check_ruin(cfg: Config, geo: Geometry, pos: Position, to: int) -> Rejection | None:
    """CY-6.4.5, CY-R44: `ruin@<sq>` needs a storming man that survived one enemy turn."""
    if not cfg.fortress_storming:
        return illegal("ruining a Fortress needs version C with fortress-storming", "CY-6.4.5")
    for sq, seat, eligible in pos.storm:
        if sq == to and seat == pos.turn:
            if eligible:
                return None
            return illegal(f"your man on {geo.names[to]} must first survive your opponent's "
                            "next turn", "CY-6.4.5")  # fmt: skip
    return illegal(f"no man of yours has stormed the enemy Fortress on {geo.names[to]} and "
                    "stayed there", "CY-6.4.5")  # fmt: skip


def check_move(cfg: Config, geo: Geometry, pos: Position, move: Move) -> Rejection | None:
    """Version C: a move or capture of the man on the from-square (CY-5.1.1 C, 5.3, 5.4.4,
    5.4.8, 6.2, 6.4.7); no check (CY-6.1.5)."""
    board, terrain, side = pos.board, pos.terrain, pos.turn
    mode, fr, to, promote = move
    pseudo = _moves_and_captures(cfg, geo, pos, fr)
    kind = board[fr] & KIND
    name = NAMES_OF_KIND[kind]
    if move not in pseudo:
        if promote and move._replace(promote=0) in pseudo:
            up = PROMOTION.get(kind)
            if terrain[to] != FORTRESS or fortress_owner(terrain, to) != side:
                return illegal("only a man entering your own intact Fortress is promoted",
                                "CY-6.4.7")  # fmt: skip
            if up != promote:
                ladder = f"a {NAMES_OF_KIND[up]}" if up else "nothing"
                return illegal(f"a {name} is promoted one step up the values, to {ladder}",
                                "CY-R46")  # fmt: skip
            return illegal(f"you have lost no {NAMES_OF_KIND[up]}: a promotion only replaces "
                            "a lost man", "CY-R46")  # fmt: skip
        return _explain(cfg, geo, pos, move, kind)
    if mode in (CAPTURE, SHOOT) and not may_capture(cfg, geo, board, terrain, side, fr, to):
        target = board[to]
        flank = _threateners(cfg, geo, board, terrain, to, side)
        total = sum(attack(geo, board, terrain, s) for s in flank)
        return illegal(
            f"a {name} (attack {attack(geo, board, terrain, fr)}) cannot take a "
            f"{NAMES_OF_KIND[target & KIND]} (defence "
            f"{defence(geo, board, terrain, to, cfg.fortress_cap)}): the men threatening "
            f"{geo.names[to]} sum to {total} and include no King",
            "CY-5.6.2",
        )
    return None


def _explain(cfg: Config, geo: Geometry, pos: Position, move: Move, kind: int) -> Rejection:
    """Why version C does not generate a move or capture of this man."""
    board, terrain = pos.board, pos.terrain
    mode, fr, to, _ = move
    name, names = NAMES_OF_KIND[kind], geo.names
    if mode != MOVE and cannot_attack(terrain, fr, kind):
        return illegal(f"a {name} on Water cannot attack", "CY-5.4.8")
    if mode == SHOOT:
        if kind == TREBUCHET:
            return illegal("a Trebuchet's ranged attack reaches 1-2 squares orthogonally, over "
                            "an empty square, a Mountain or a man of your own",
                            "CY-5.4.4")  # fmt: skip
        if kind == CROSSBOWMEN:
            way = "orthogonally" if geo.hex else "diagonally"
            return illegal(f"Crossbowmen shoot 1-2 squares {way} over an empty square",
                            "CY-5.4.4")  # fmt: skip
        return no_ranged_attack(cfg, kind)
    d, k = geo.line(fr, to) or (-1, 0)
    dirs, rng = geo.moves_c[kind]
    if d not in dirs or k > rng:
        clause = "CY-5.1.2" if geo.hex else "CY-5.1.1"
        return illegal(f"a {name} moves {how(geo, kind, True)} in version C", clause)
    line = geo.rays[fr][d][:k]
    if any(terrain[s] == BURNING for s in line):
        return illegal("no man may enter or pass a burning square", "CY-5.2.3")
    blocked = next((s for s in line[:-1] if board[s] and not (
        kind == DRAGON and board[s] & KIND == MOUNTAIN)), -1)  # fmt: skip
    if blocked >= 0:
        return illegal(f"the {name} cannot pass the man on {names[blocked]}", "CY-5.2.2")
    if kind == DRAGON:
        return illegal("the Dragon may not capture across Mountains in this variant "
                        "(dragon_capture_over_mountains=false)", "CY-5.4.2")  # fmt: skip
    reached = _move_line(cfg, geo, board, terrain, kind, geo.rays[fr][d])
    last = (reached[0] + [reached[1]])[-1] if reached[0] or reached[1] >= 0 else fr
    tile = TILE_NAMES[terrain[last]] if last != fr else ""
    why = f"it must halt on the {tile} of {names[last]}" if last != fr else "it cannot enter"
    return illegal(f"the {name} cannot reach {names[to]} over this terrain: {why} "
                    "(entry costs: Hills, Forest 2, Water 3)", "CY-5.3.3")  # fmt: skip
