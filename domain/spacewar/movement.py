"""Movement phases (SW-5.1–SW-5.4), ship movement (SW-5.10–SW-5.15), ramming and capture
(SW-5.20–SW-5.22) and the field rules for moving ships (SW-5.33, SW-5.35)."""

from itertools import combinations
from typing import Final

from domain.spacewar.actions import MoveShip
from domain.spacewar.board import (
    DIAGONAL,
    DISTANCE,
    KING,
    KNIGHT,
    NAMES,
    ORTHOGONAL,
    SQUARES,
    coords,
    neighbours,
    sort_key,
    square,
    step,
)
from domain.spacewar.fields import Fields
from domain.spacewar.pieces import (
    GENERATORS,
    GROUP,
    GUNBOAT,
    IMMOBILIZER,
    KIND_NAMES,
    MISSILE,
    MOTHERSHIP,
    NEUTRALIZER,
    PRESSOR,
    TRACTOR,
    Piece,
)
from domain.spacewar.state import State, moved_hits, put

Board = tuple[Piece | None, ...]
Problem = tuple[str, str]  # (clause, reason)


def group_allows(groups: tuple[int, ...], group: int) -> bool:
    """SW-5.2 / SW-R6: the ships moved so far plus this one are all of one group or pairwise of
    different groups."""
    moved = (*groups, group)
    return len(set(moved)) == 1 or len(set(moved)) == len(moved)


def _line(start: int, df: int, dr: int, most: int) -> tuple[int, ...]:
    """The squares from `start` along `(df, dr)`, at most `most`, up to the board's edge."""
    out: list[int] = []
    for n in range(1, most + 1):
        sq = step(start, df * n, dr * n)
        if sq is None:
            break
        out.append(sq)
    return tuple(out)


def _steps(start: int, moves: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    """The squares one of `moves` away from `start`, on the board."""
    return tuple(sq for df, dr in moves if (sq := step(start, df, dr)) is not None)


# The board's geometry for `paths`, for every square: the squares one king step (SW-5.10) or
# one leap (SW-5.13) away, and the lines of 1 to 3 squares a slide follows (SW-5.11, SW-5.12,
# SW-5.14), each in the order of its directions.
_STEPS: Final = {
    kind: tuple(_steps(sq, moves) for sq in range(SQUARES))
    for kind, moves in ((MOTHERSHIP, KING), (IMMOBILIZER, KNIGHT))
}
_LINES: Final = {
    kind: tuple(tuple(_line(sq, df, dr, 3) for df, dr in directions) for sq in range(SQUARES))
    for kind, directions in ((TRACTOR, ORTHOGONAL), (PRESSOR, DIAGONAL), (GUNBOAT, KING))
}


def paths(board: Board, start: int) -> list[tuple[int, ...]]:
    """Every geometric path of the ship on `start` (SW-5.10–SW-5.15): intermediate squares
    empty, the destination not friendly; fields not considered."""
    piece = board[start]
    assert piece is not None
    out: list[tuple[int, ...]] = []

    def open_to(sq: int) -> bool:
        other = board[sq]
        return other is None or other.owner != piece.owner

    if piece.kind == MOTHERSHIP:
        for one in _STEPS[MOTHERSHIP][start]:
            if not open_to(one):
                continue
            out.append((start, one))
            if board[one] is not None:
                continue
            for two in _STEPS[MOTHERSHIP][one]:
                if two != start and open_to(two):
                    out.append((start, one, two))
        return out
    if piece.kind == IMMOBILIZER:
        for to in _STEPS[IMMOBILIZER][start]:
            if open_to(to):
                out.append((start, to))
        return out
    for line in _LINES[piece.kind][start]:
        path = [start]
        for sq in line:
            if not open_to(sq):
                break
            path.append(sq)
            out.append(tuple(path))
            if board[sq] is not None:
                break
    return out


def written(path: tuple[int, ...], kind: str) -> tuple[int, ...]:
    """SW-1.5: a Mothership's move names every square of its path, another ship's its start
    and its destination."""
    return path if kind == MOTHERSHIP else (path[0], path[-1])


def full_path(board: Board, path: tuple[int, ...]) -> tuple[int, ...] | None:
    """The path a written move stands for (None: no such move of the ship on its square)."""
    piece = board[path[0]]
    assert piece is not None
    return next((p for p in paths(board, path[0]) if written(p, piece.kind) == path), None)


def capture_placements(board: Board, path: tuple[int, ...]) -> list[int] | None:
    """SW-5.21, SW-R45: where a Mothership capturing on `path` may place the captured ship (the
    empty squares next to its destination after the move, its start included); None when the
    move captures nothing."""
    mover, occupant = board[path[0]], board[path[-1]]
    if mover is None or mover.kind != MOTHERSHIP or occupant is None:
        return None
    if occupant.owner == mover.owner or occupant.kind in (MOTHERSHIP, MISSILE):
        return None
    after = put(board, {path[0]: None})
    return sorted((s for s in neighbours(path[-1]) if after[s] is None), key=sort_key)


def eligible_anchors(state: State, side: int, mover: int) -> list[int]:
    """SW-5.33: ships the player may anchor with a move: its Tractors, Pressors and
    Immobilizers that have not moved and are not anchored, the mover excepted."""
    return [sq for sq, p in enumerate(state.board)
            if p is not None and p.owner == side and p.kind in GENERATORS
            and not p.moved and not p.anchored and sq != mover]  # fmt: skip


def _anchored(state: State, side: int, mover: int) -> list[int]:
    return [sq for sq, p in enumerate(state.board)
            if p is not None and p.owner == side and p.anchored and sq != mover]  # fmt: skip


class Movers:
    """What the field rules of `side`'s moves need from one position, found once for all of
    its moves: the enemy fields (SW-5.31), the anchors standing and the ships free to anchor
    (SW-5.33)."""

    def __init__(self, state: State, side: int) -> None:
        self.fields = Fields(state.board, state.config, side)
        self.standing = _anchored(state, side, -1)
        self.free = eligible_anchors(state, side, -1)
        self._passable: dict[int, bool] = {}

    def anchored(self, mover: int) -> list[int]:
        return [sq for sq in self.standing if sq != mover]

    def eligible(self, mover: int) -> list[int]:
        """`eligible_anchors` for a move of the ship on `mover`."""
        return [sq for sq in self.free if sq != mover]

    def passable(self, q: int) -> bool:
        """SW-5.34: `q` is clear with the standing anchors alone (kept: many paths cross it)."""
        known = self._passable.get(q)
        if known is None:
            known = self._passable[q] = self.fields.clear(q, self.standing)
        return known


def field_problem(state: State, side: int, path: tuple[int, ...], anchors: tuple[int, ...],
                  movers: Movers | None = None) -> Problem | None:  # fmt: skip
    """SW-5.35 with the anchors already standing and `anchors` named with the move (`movers`:
    the position's, when already found)."""
    movers = movers or Movers(state, side)
    fields = movers.fields
    neutralizers = [*movers.anchored(path[0]), *anchors]
    if fields.immobilized(path[0], neutralizers):
        return "SW-5.35", (f"the ship on {NAMES[path[0]]} is immobilized: the enemy "
                           "Immobilizers covering it are not all neutralized")  # fmt: skip
    for sq in path[1:-1]:
        if not fields.clear(sq, neutralizers):
            return "SW-5.35", (f"{NAMES[sq]} lies in an enemy field that is not neutralized: "
                               "a ship may stop in it but not pass through it")  # fmt: skip
    return None


def movable(state: State, side: int, sq: int) -> bool:
    piece = state.board[sq]
    return (piece is not None and piece.owner == side and piece.ship and not piece.moved
            and not piece.anchored and group_allows(state.groups, GROUP[piece.kind]))  # fmt: skip


def any_move(state: State, side: int) -> bool:
    """SW-5.4, SW-R57: whether some move is legal, allowing every anchor the player could
    name."""
    if state.moves >= 4:
        return False
    movers = Movers(state, side)
    for sq in range(len(state.board)):
        if not movable(state, side, sq):
            continue
        anchors = tuple(movers.eligible(sq))
        if any(field_problem(state, side, path, anchors, movers) is None
               for path in paths(state.board, sq)):  # fmt: skip
            return True
    return False


def _relevant(state: State, movers: Movers, path: tuple[int, ...],
              candidates: list[int]) -> list[int]:  # fmt: skip
    """The candidate anchors that could neutralize a generator on the move's field squares."""
    board, config = state.board, state.config
    serving: list[tuple[int, str, int]] = []  # (square, type, range) of each candidate
    for n in candidates:
        p = board[n]
        assert p is not None
        serving.append((n, p.kind, config.range_of(p.kind)))
    wanted: set[int] = set()
    checks = [(path[0], IMMOBILIZER)] + [(sq, "") for sq in path[1:-1]]
    for q, only in checks:
        for g in movers.fields.hostile(q, only):
            generator = board[g]
            assert generator is not None
            kind = NEUTRALIZER[generator.kind]
            for n, own, reach in serving:
                if own == kind and (DISTANCE[n][q] <= reach or DISTANCE[n][g] <= reach):
                    wanted.add(n)
    return sorted(wanted, key=sort_key)


def legal_moves(state: State, side: int) -> list[MoveShip]:
    """Every legal next ship move: for each path (and capture placement), with no anchors when
    it needs none, else with each smallest-by-inclusion set of new anchors that makes it legal
    (the listing's choice, docs/rules/spacewar.md)."""
    out: list[MoveShip] = []
    if state.moves >= 4:
        return out
    board = state.board
    movers = Movers(state, side)
    for sq in range(len(board)):
        if not movable(state, side, sq):
            continue
        piece = board[sq]
        assert piece is not None
        candidates = movers.eligible(sq)
        # field_problem with no anchors named, its checks shared by the ship's paths and by
        # all ships: the standing anchors never include a movable ship
        held = movers.fields.immobilized(sq, movers.standing)
        for path in paths(board, sq):
            placements = capture_placements(board, path)
            options: list[tuple[int, ...]] = []
            if not held and all(movers.passable(q) for q in path[1:-1]):
                options.append(())
            else:
                relevant = _relevant(state, movers, path, candidates)
                for size in range(1, len(relevant) + 1):
                    for subset in combinations(relevant, size):
                        if any(set(o) <= set(subset) for o in options):
                            continue
                        if field_problem(state, side, path, subset, movers) is None:
                            options.append(subset)
            for anchors in options:
                for placement in placements if placements is not None else [None]:
                    out.append(MoveShip(written(path, piece.kind), placement, anchors))
    return out


def check_move(state: State, side: int, move: MoveShip) -> Problem | None:
    """(clause, reason) if the ship move is illegal, else None."""
    board = state.board
    start, dest = move.path[0], move.path[-1]
    piece = board[start]
    if piece is None or piece.owner != side:
        return "SW-5.1", f"there is no ship of yours on {NAMES[start]}"
    if not piece.ship:
        return "SW-5.1", "missiles never move in a movement phase"
    if move.letter and move.letter != piece.kind:
        return "SW-1.5", f"the ship on {NAMES[start]} is a {KIND_NAMES[piece.kind]} ({piece.kind})"
    if piece.anchored:
        return "SW-5.3", f"the ship on {NAMES[start]} is anchored this phase"
    if piece.moved:
        return "SW-5.3", f"the ship on {NAMES[start]} has moved already this phase"
    if state.moves >= 4:
        return "SW-5.1", "at most 4 ships move in a movement phase"
    if not group_allows(state.groups, GROUP[piece.kind]):
        return "SW-5.2", ("the ships moved in a phase are all of one group or at most one of "
                          "each group")  # fmt: skip
    if dest == start:
        return "SW-5.10", "a ship may not make a null move"
    target = board[dest]
    if target is not None and target.owner == side:
        return "SW-5.15", f"{NAMES[dest]} holds a piece of your own (SW-R8)"
    path = full_path(board, move.path)
    if path is None:
        return _geometry(piece, move.path, board)
    enemy = target is not None
    if move.letter and move.capture != enemy:
        return "SW-R56", ("`x` marks exactly the destinations holding an enemy piece: write "
                          + ("x" if enemy else "-") + NAMES[dest])  # fmt: skip
    placements = capture_placements(board, move.path)
    if placements is None and move.placement is not None:
        return "SW-5.21", "only a Mothership capturing an enemy ship places it (=square)"
    if placements is not None:
        if move.placement is None:
            return "SW-5.21", "name where the captured ship is placed: x<square>=<placement>"
        if move.placement not in placements:
            return "SW-R45", (f"{NAMES[move.placement]} is not an empty square next to "
                              f"{NAMES[dest]} after the move")  # fmt: skip
    eligible = eligible_anchors(state, side, start)
    if len(set(move.anchors)) != len(move.anchors):
        return "SW-1.5", "an anchor is named twice"
    for a in move.anchors:
        if a not in eligible:
            return "SW-5.33", (f"{NAMES[a]} cannot be anchored: anchors are your Tractors, "
                               "Pressors and Immobilizers not moved nor anchored this phase, "
                               "the moving ship excepted")  # fmt: skip
    return field_problem(state, side, path, move.anchors)


def _geometry(piece: Piece, path: tuple[int, ...], board: Board) -> Problem:
    kind = piece.kind
    for sq in _between(path) if kind != "K" and len(path) == 2 else path[1:-1]:
        if board[sq] is not None:
            return "SW-5.15", f"the path passes the occupied square {NAMES[sq]}"
    clause = {"K": "SW-5.10", "D": "SW-5.11", "E": "SW-5.12", "N": "SW-5.13", "R": "SW-5.14"}
    words = {
        "K": "a Mothership makes one or two king steps, never ending where it started",
        "D": "a Tractor slides 1 to 3 squares orthogonally",
        "E": "a Pressor slides 1 to 3 squares diagonally",
        "N": "an Immobilizer makes a knight's leap",
        "R": "a Gunboat slides 1 to 3 squares in one of the 8 directions",
    }
    if kind != "K" and len(path) != 2:
        return clause[kind], words[kind] + " (write its start and destination only)"
    return clause[kind], words[kind]


def _between(path: tuple[int, ...]) -> list[int]:
    """The squares strictly between the two ends of a straight line (none if not a line)."""
    (af, ar), (bf, br) = coords(path[0]), coords(path[-1])
    df, dr = bf - af, br - ar
    n = max(abs(df), abs(dr))
    if n < 2 or (df and dr and abs(df) != abs(dr)):
        return []
    sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
    return [square(af + sf * i, ar + sr * i) for i in range(1, n)]


def apply_move(state: State, side: int, move: MoveShip) -> State:
    """SW-5.20–SW-5.22: the move and its result, unchecked."""
    board = state.board
    start, dest = move.path[0], move.path[-1]
    mover = board[start]
    assert mover is not None
    changes: dict[int, Piece | None] = {}
    for a in move.anchors:
        anchor = board[a]
        assert anchor is not None
        changes[a] = anchor._replace(anchored=True)
    occupant = board[dest]
    moved = mover._replace(moved=True)
    destroyed: set[int] = set()
    shifts: dict[int, int] = {start: dest}
    changes[start] = None
    if occupant is None:
        changes[dest] = moved
    elif mover.kind == MOTHERSHIP and occupant.kind not in (MOTHERSHIP, MISSILE):
        changes[dest] = moved  # SW-5.21: captured and placed
        if move.placement is not None:
            changes[move.placement] = occupant._replace(owner=side, moved=False, anchored=False)
            shifts[dest] = move.placement
        else:  # SW-R11: no empty neighbour (hand-set positions only)
            destroyed.add(dest)
    elif mover.kind == GUNBOAT and occupant.kind != GUNBOAT:
        destroyed.add(dest)  # the occupant; the Gunboat stays
        changes[dest] = moved
    else:
        destroyed.update((dest, start))  # both destroyed
        shifts = {}
        changes[dest] = None
    hits = moved_hits(state.hits, destroyed, shifts)
    board = put(board, changes)
    return state._replace(board=board, hits=hits,
                          groups=(*state.groups, GROUP[mover.kind]))  # fmt: skip
