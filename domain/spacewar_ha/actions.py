"""The actions of HA-5: which are legal (generation), why one is not (a Rejection citing the
clause), and what one does (unchecked application): moving, firing, forcing, immobilising and
releasing, crashing, repair and supply, Bases. Turn order and the end are in turns.py."""

from collections.abc import Iterator

from contracts.errors import ErrorCode
from domain.core import Rejection
from domain.spacewar_ha.board import ALL_DIRECTIONS, DIAGONAL, KNIGHT, ORTHOGONAL, Board
from domain.spacewar_ha.notation import (
    CRASH,
    FIRE,
    FORCE,
    IMMOBILISE,
    MOVE,
    PASS,
    PULL,
    PUSH,
    RELEASE,
    REPAIR,
    SUPPLY,
    Action,
)
from domain.spacewar_ha.pieces import (
    DEFENDER,
    FIRERS,
    KIND_NAMES,
    MEDIC,
    SCOUT,
    SHOOTER,
    STARTING,
    TRACTOR,
    Base,
    Piece,
)
from domain.spacewar_ha.position import Position

# The move rules of HA-5.2–HA-5.6: directions, and whether the piece leaps (Scout).
MOVE_DIRECTIONS = {TRACTOR: ALL_DIRECTIONS, DEFENDER: ORTHOGONAL, SHOOTER: DIAGONAL,
                   MEDIC: ALL_DIRECTIONS, SCOUT: KNIGHT}  # fmt: skip
MOVE_CLAUSE = {TRACTOR: "HA-5.2", DEFENDER: "HA-5.3", SCOUT: "HA-5.4", SHOOTER: "HA-5.5",
               MEDIC: "HA-5.6"}  # fmt: skip
MOVE_WORDS = {TRACTOR: "1 or 2 squares in one of the 8 directions",
              DEFENDER: "1 or 2 squares orthogonally", SCOUT: "a knight's leap",
              SHOOTER: "1 or 2 squares diagonally",
              MEDIC: "1 or 2 squares in one of the 8 directions"}  # fmt: skip
FIRE_DIRECTIONS = {DEFENDER: ORTHOGONAL, SHOOTER: DIAGONAL}  # HA-5.11; the Scout: knight squares


def _illegal(reason: str, clause: str) -> Rejection:
    return Rejection(ErrorCode.ILLEGAL_ACTION, reason, clause)


# -- generation ----------------------------------------------------------------------------


def destinations(pos: Position, piece: Piece, board: dict[int, Piece], jump: bool) -> Iterator[int]:
    """The squares `piece` may move to, ignoring what stands on the destination (HA-5.1):
    intermediate squares must be empty unless it jumps (Scout, or a Medic with
    `medic_can_jump`)."""
    b = pos.board
    if piece.kind == SCOUT:
        yield from b.knight_squares(piece.square)
        return
    for d in MOVE_DIRECTIONS[piece.kind]:
        one = b.step(piece.square, d)
        if one is None:
            continue
        yield one
        two = b.step(piece.square, d, 2)
        if two is not None and (jump or one not in board):
            yield two


def fire_targets(pos: Position, piece: Piece, board: dict[int, Piece]) -> list[int]:
    """HA-5.11, HA-R6, HA-R7, HA-R25: the squares `piece` may fire at — an enemy piece first on
    a line, or an empty uncaptured enemy Base before it; for a Scout its knight squares."""
    b, enemy = pos.board, 1 - piece.owner
    bases = {x.square: x for x in pos.bases if x.owner == enemy and not x.captured}
    out: list[int] = []
    if piece.kind == SCOUT:
        for s in b.knight_squares(piece.square):
            other = board.get(s)
            if (other is not None and other.owner == enemy) or (other is None and s in bases):
                out.append(s)
        return sorted(out)
    for d in FIRE_DIRECTIONS.get(piece.kind, ()):
        for s in b.ray(piece.square, d):
            other = board.get(s)
            if other is None:
                if s in bases:
                    out.append(s)
                continue
            if other.owner == enemy:
                out.append(s)
            break
    return sorted(out)


def force_targets(pos: Position, tractor: Piece, board: dict[int, Piece]) -> list[tuple[int, str]]:
    """HA-5.20, HA-R12: (square, `<` or `>`) for the first piece on each of the Tractor's 8
    lines, pulled one square closer or pushed one farther, not off the board."""
    b = pos.board
    out = []
    for d in ALL_DIRECTIONS:
        first = next((s for s in b.ray(tractor.square, d) if s in board), None)
        if first is None:
            continue
        out.append((first, PULL))
        if b.step(first, d) is not None:
            out.append((first, PUSH))
    return out


def repair_limit(piece: Piece, target: Piece, cap: bool) -> int:
    """The most Repair the Medic `piece` may spend on `target` (HA-5.40)."""
    if not cap:
        return piece.repair
    return max(0, min(piece.repair, STARTING[target.kind].health - target.health))


def supply_limit(piece: Piece, target: Piece, cap: bool) -> int:
    """The most Supply the Medic `piece` may spend on `target` (HA-5.41)."""
    if target.kind == MEDIC:
        return 0
    if not cap:
        return piece.supply
    return max(0, min(piece.supply, STARTING[target.kind].ammo - target.ammo))


def generate(pos: Position, cap: bool, jump: bool) -> list[Action]:
    """Every HA-5 action of the side to act (moves, fire, force, immobilise, repair, supply):
    the actions of HA-4.1's step 2. Releases and `pass` are not among them."""
    board = pos.at()
    side = pos.turn
    out: list[Action] = []
    for piece in pos.pieces:
        if piece.owner != side:
            continue
        src, letter = piece.square, piece.kind
        if not pos.held(src):
            for dst in destinations(pos, piece, board, jump and piece.kind == MEDIC):
                other = board.get(dst)
                if other is None:
                    out.append(Action(MOVE, letter, src, dst))
                elif other.owner != side:
                    out.append(Action(CRASH, letter, src, dst))
        if piece.kind in FIRERS:
            for dst in fire_targets(pos, piece, board):
                out += [Action(FIRE, letter, src, dst, k) for k in range(1, piece.ammo + 1)]
        if piece.kind == TRACTOR:
            if piece.ammo >= 1:
                out += [Action(FORCE, letter, src, s, mode=m)
                        for s, m in force_targets(pos, piece, board)]  # fmt: skip
            held = pos.hold_of(src)
            for s in pos.board.neighbours(src):
                other = board.get(s)
                if other is None or other.owner == side:
                    continue
                if s != held and (src, s) not in pos.released:  # HA-R22, HA-R28
                    out.append(Action(IMMOBILISE, letter, src, s))
        if piece.kind == MEDIC:
            for s in (src, *pos.board.neighbours(src)):
                other = board.get(s)
                if other is None or other.owner != side:
                    continue
                for k in range(1, repair_limit(piece, other, cap) + 1):
                    out.append(Action(REPAIR, letter, src, s, k))
                if s != src:
                    for k in range(1, supply_limit(piece, other, cap) + 1):
                        out.append(Action(SUPPLY, letter, src, s, k))
    return out


def releases(pos: Position) -> list[Action]:
    """The releases the side to act may declare (HA-4.1, HA-5.22, HA-R24)."""
    board = pos.at()
    return [Action(RELEASE, TRACTOR, t) for t, _ in pos.holds if board[t].owner == pos.turn]


# -- checking -------------------------------------------------------------------------------


def check(pos: Position, action: Action, cap: bool, jump: bool) -> Rejection | None:
    """None if the side to act may play `action`, else why not, citing the clause."""
    legal = generate(pos, cap, jump)
    if action.kind == PASS:
        if legal:
            return _illegal("pass only when you have no other action (you have "
                            f"{len(legal)})", "HA-5.70")  # fmt: skip
        return None
    if action.kind == RELEASE and action in releases(pos):
        return None
    if action in legal:
        return None
    return explain(pos, action, cap, jump)


def explain(pos: Position, action: Action, cap: bool, jump: bool) -> Rejection:
    """Why the illegal `action` is refused."""
    b, board = pos.board, pos.at()
    piece = board.get(action.src)
    where = b.name(action.src)
    if piece is None or piece.owner != pos.turn:
        return _illegal(f"there is no piece of yours on {where}", "HA-4.1")
    if piece.kind != action.letter:
        return _illegal(f"the piece on {where} is a {KIND_NAMES[piece.kind]} "
                        f"({piece.kind}), not {action.letter}", "HA-2.1")  # fmt: skip
    name = KIND_NAMES[piece.kind]
    target = board.get(action.dst) if action.dst >= 0 else None
    dst = b.name(action.dst) if action.dst >= 0 else ""
    kind = action.kind
    if kind in (MOVE, CRASH):
        return _explain_move(pos, piece, action, board, jump)
    if kind == FIRE:
        if piece.kind not in FIRERS:
            return _illegal(f"a {name} cannot fire", "HA-2.2")
        if not 1 <= action.amount <= piece.ammo:
            return _illegal(f"fire spends 1 to {piece.ammo} Ammo (the firer's Ammo), not "
                            f"{action.amount}", "HA-5.10")  # fmt: skip
        if target is not None and target.owner == piece.owner:
            return _illegal(f"{dst} holds your own piece: only enemies are targets", "HA-R8")
        base = pos.base_at(action.dst)
        if target is None and base is not None and base.owner == piece.owner:
            return _illegal(f"{dst} is your own Base: only enemy Bases are targets", "HA-5.11")
        if target is None and base is not None and base.captured:
            return _illegal(f"the Base on {dst} is captured: never a target", "HA-R25")
        if target is None and base is None:
            return _illegal(f"there is nothing to fire at on {dst}", "HA-5.11")
        if piece.kind == SCOUT:
            return _illegal(f"a Scout fires at its knight squares only, not {dst}", "HA-R7")
        return _illegal(f"{dst} is not the first piece (or an empty enemy Base before it) "
                        f"on one of the {name}'s lines", "HA-R6")  # fmt: skip
    if kind == FORCE:
        if piece.kind != TRACTOR:
            return _illegal(f"only a Tractor forces, not a {name}", "HA-5.20")
        if piece.ammo < 1:
            return _illegal("forcing spends 1 Ammo and this Tractor has none", "HA-5.20")
        firsts = {s for s, _ in force_targets(pos, piece, board)}
        if action.dst not in firsts:
            return _illegal(f"{dst} is not the first piece on one of the Tractor's lines",
                            "HA-R12")  # fmt: skip
        return _illegal(f"pushing the piece on {dst} would put it off the board", "HA-5.20")
    if kind == IMMOBILISE:
        if piece.kind != TRACTOR:
            return _illegal(f"only a Tractor immobilises, not a {name}", "HA-5.21")
        if target is None or not b.adjacent(action.src, action.dst):
            return _illegal(f"a Tractor immobilises an adjacent piece; {dst} holds none",
                            "HA-5.21")  # fmt: skip
        if target.owner == piece.owner:
            return _illegal(f"{dst} holds your own piece: a Tractor immobilises enemies",
                            "HA-R13")  # fmt: skip
        if (action.src, action.dst) in pos.released:
            return _illegal(f"this Tractor released {dst} this turn: it may not hold it again "
                            "before your next turn", "HA-R28")  # fmt: skip
        return _illegal(f"this Tractor holds {dst} already", "HA-R22")
    if kind == RELEASE:
        if piece.kind != TRACTOR:
            return _illegal(f"only a Tractor releases, not a {name}", "HA-5.22")
        return _illegal(f"the Tractor on {where} immobilises nothing", "HA-5.22")
    if kind in (REPAIR, SUPPLY):
        clause = "HA-5.40" if kind == REPAIR else "HA-5.41"
        if piece.kind != MEDIC:
            return _illegal(f"only a Medic repairs or supplies, not a {name}", clause)
        if (
            target is None
            or target.owner != piece.owner
            or not (action.dst == action.src or b.adjacent(action.src, action.dst))
        ):
            return _illegal(f"a Medic {kind}s itself or an adjacent friendly piece, not {dst}",
                            "HA-R15")  # fmt: skip
        if kind == SUPPLY and target.kind == MEDIC:
            return _illegal("a Medic has no Ammo: supply a Tractor, Defender, Scout or Shooter",
                            "HA-5.41")  # fmt: skip
        pool = piece.repair if kind == REPAIR else piece.supply
        word = "Repair" if kind == REPAIR else "Supply"
        if not 1 <= action.amount <= pool:
            return _illegal(f"{kind} spends 1 to {pool} {word} (the Medic's), not "
                            f"{action.amount}", clause)  # fmt: skip
        return _illegal(f"with cap_at_start no value exceeds its start: the piece on {dst} "
                        f"misses less than {action.amount}", clause)  # fmt: skip
    return _illegal(f"{kind} is not an action here", "HA-4.1")


def _explain_move(pos: Position, piece: Piece, action: Action, board: dict[int, Piece],
                  jump: bool) -> Rejection:  # fmt: skip
    b = pos.board
    name, dst = KIND_NAMES[piece.kind], b.name(action.dst)
    if pos.held(piece.square):
        return _illegal(f"the {name} on {b.name(piece.square)} is immobilised", "HA-5.21")
    clause = MOVE_CLAUSE[piece.kind]
    if action.dst not in _pattern(b, piece):
        return _illegal(f"a {name} moves {MOVE_WORDS[piece.kind]}", clause)
    if action.dst not in set(destinations(pos, piece, board, jump and piece.kind == MEDIC)):
        clause = "HA-R14" if piece.kind == MEDIC else clause
        return _illegal(f"the {name} cannot pass the piece in its way (no jumping)", clause)
    target = board.get(action.dst)
    if target is not None and target.owner == piece.owner:
        return _illegal(f"{dst} holds your own piece", "HA-R11")
    if target is not None:
        return _illegal(f"{dst} holds an enemy piece: a crash is written with x", "HA-1.4")
    return _illegal(f"{dst} holds no piece: a crash needs one (a Base is never crashed into)",
                    "HA-5.31")  # fmt: skip


def _pattern(b: Board, piece: Piece) -> set[int]:
    if piece.kind == SCOUT:
        return set(b.knight_squares(piece.square))
    return {s for d in MOVE_DIRECTIONS[piece.kind] for n in (1, 2)
            if (s := b.step(piece.square, d, n)) is not None}  # fmt: skip


# -- application ----------------------------------------------------------------------------


class _Work:
    """A position being changed: pieces by square, each with the square it started on."""

    def __init__(self, pos: Position) -> None:
        self.pos = pos
        self.board: dict[int, tuple[int, Piece]] = {p.square: (p.square, p) for p in pos.pieces}
        self.bases: dict[int, Base] = {x.square: x for x in pos.bases}
        self.holds = dict(pos.holds)

    def piece(self, square: int) -> Piece:
        return self.board[square][1]

    def set(self, square: int, piece: Piece) -> None:
        self.board[square] = (self.board[square][0], piece._replace(square=square))

    def relocate(self, src: int, dst: int, piece: Piece) -> None:
        origin, _ = self.board.pop(src)
        self.board[dst] = (origin, piece._replace(square=dst))
        self.rest(dst)

    def remove(self, square: int) -> None:
        del self.board[square]

    def rest(self, square: int) -> None:
        """HA-5.50(a), HA-R26: a piece at rest on its opponent's Base captures it."""
        base = self.bases.get(square)
        piece = self.board[square][1]
        if base is not None and not base.captured and base.owner != piece.owner:
            self.bases[square] = base._replace(captured=True, repair=0, supply=0)

    def crash(self, src: int, dst: int) -> None:
        """HA-5.30: the piece on `src` enters `dst`, where another piece stands."""
        mover, target = self.piece(src), self.piece(dst)
        if mover.health > target.health:
            self.remove(dst)
            self.relocate(src, dst, mover._replace(health=mover.health - target.health))
        elif mover.health < target.health:
            self.remove(src)
            self.set(dst, target._replace(health=target.health - mover.health))
        else:  # HA-R10: both captured
            self.remove(src)
            self.remove(dst)

    def result(self) -> Position:
        """The position, its immobilisations kept only where HA-5.22 and HA-R23 keep them."""
        now = {origin: square for square, (origin, _) in self.board.items()}
        holds = []
        for t, h in self.holds.items():
            if now.get(t) != t or h not in now:  # the Tractor moved or was captured
                continue
            if self.pos.board.adjacent(t, now[h]):
                holds.append((t, now[h]))
        return self.pos._replace(
            pieces=tuple(p for _, (_, p) in sorted(self.board.items())),
            bases=tuple(self.bases[s] for s in sorted(self.bases)),
            holds=tuple(sorted(holds)),
        )


def apply(pos: Position, action: Action) -> Position:
    """The position after the side to act's `action` (unchecked; the turn does not change)."""
    work = _Work(pos)
    kind, src, dst = action.kind, action.src, action.dst
    if kind == PASS:
        return pos
    piece = work.piece(src)
    if kind == MOVE:
        work.relocate(src, dst, piece)
    elif kind == CRASH:
        work.crash(src, dst)
    elif kind == FIRE:
        work.set(src, piece._replace(ammo=piece.ammo - action.amount))
        if dst in work.board:
            target = work.piece(dst)
            health = max(0, target.health - action.amount)  # HA-R9
            if health == 0:
                work.remove(dst)
            else:
                work.set(dst, target._replace(health=health))
        else:  # HA-5.12: an empty Base fired upon is captured
            work.bases[dst] = work.bases[dst]._replace(captured=True, repair=0, supply=0)
    elif kind == FORCE:
        work.set(src, piece._replace(ammo=piece.ammo - 1))
        b = pos.board
        fs, fr = b.coords(src)
        ts, tr = b.coords(dst)
        step = ((ts > fs) - (ts < fs), (tr > fr) - (tr < fr))
        if action.mode == PULL:
            step = (-step[0], -step[1])
        to = b.step(dst, step)
        assert to is not None
        if to in work.board:
            work.crash(dst, to)
        else:
            work.relocate(dst, to, work.piece(dst))
    elif kind == IMMOBILISE:
        work.holds[src] = dst
    elif kind == RELEASE:
        held = work.holds.pop(src, None)
        if held is not None:  # HA-R28: remembered until the turn ends (turns.next_turn)
            released = tuple(sorted({*pos.released, (src, held)}))
            return work.result()._replace(released=released)
    elif kind == REPAIR:
        work.set(src, piece._replace(repair=piece.repair - action.amount))
        target = work.piece(dst)
        work.set(dst, target._replace(health=target.health + action.amount))
    elif kind == SUPPLY:
        work.set(src, piece._replace(supply=piece.supply - action.amount))
        target = work.piece(dst)
        work.set(dst, target._replace(ammo=target.ammo + action.amount))
    return work.result()
