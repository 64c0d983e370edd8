"""Missile phases (SW-5.60–SW-5.66) and replacement (SW-5.75–SW-5.77)."""

from domain.spacewar.actions import Launch, PlaceReplacement
from domain.spacewar.board import (
    ADJACENT,
    FILES,
    NAMES,
    back_rank,
    coords,
    distance,
    forward,
    on_board,
    sort_key,
    square,
)
from domain.spacewar.fields import clear, immobilized
from domain.spacewar.pieces import GUNBOAT, MISSILE, MOTHERSHIP, Piece
from domain.spacewar.state import State, moved_hits, put
from domain.spacewar.variant import Config

Problem = tuple[str, str]
Board = tuple[Piece | None, ...]


def _ships_of(board: Board, side: int) -> list[int]:
    """SW-5.33, SW-R19: in a missile phase every ship of the missile's owner neutralizes."""
    return [sq for sq, p in enumerate(board) if p is not None and p.owner == side and p.ship]


def first_squares(gunboat: int, side: int) -> list[int]:
    """SW-5.62: the squares adjacent to the Gunboat in the player's next rank, on the board."""
    f, r = coords(gunboat)
    r2 = r + forward(side)
    return [square(f + d, r2) for d in (-1, 0, 1) if on_board(f + d, r2)]


def check_launch(state: State, side: int, launch: Launch) -> Problem | None:
    board = state.board
    k, r, m = (board[s] for s in (launch.mothership, launch.gunboat, launch.missile))
    if k is None or k.owner != side or k.kind != MOTHERSHIP:
        return "SW-5.62", f"there is no Mothership of yours on {NAMES[launch.mothership]}"
    if r is None or r.owner != side or r.kind != GUNBOAT:
        return "SW-5.62", f"there is no Gunboat of yours on {NAMES[launch.gunboat]}"
    if k.small or r.small:
        return "SW-4.2", "the Mothership and the Gunboat of a launch must be large side up"
    if distance(launch.mothership, launch.gunboat) != 1:
        return "SW-5.62", "the Gunboat must be adjacent to the Mothership"
    if m is None or m.kind != MISSILE or distance(launch.mothership, launch.missile) != 1:
        return "SW-5.62", f"{NAMES[launch.missile]} holds no missile adjacent to the Mothership"
    if m.launched:
        return "SW-5.62", "that missile was launched already in this phase"
    if launch.first not in first_squares(launch.gunboat, side):
        return "SW-5.62", ("the first square is one of the squares next to the Gunboat in your "
                           "next rank")  # fmt: skip
    return None


def _replaced(pending: tuple[int, int], owner: int) -> tuple[int, int]:
    return (pending[0] + 1, pending[1]) if owner == 0 else (pending[0], pending[1] + 1)


def _collide(pieces: dict[int, Piece], pending: tuple[int, int]) -> tuple[int, int]:
    """SW-5.66, SW-5.75(b), SW-R52: every piece in a collision is destroyed; a missile in it is
    replaced when the collision held a piece of the other player and no other piece of its
    owner. `pieces`: the pieces in the collision by an identifying key."""
    for key, piece in pieces.items():
        if piece.kind != MISSILE:
            continue
        others = [p for k2, p in pieces.items() if k2 != key]
        if any(p.owner != piece.owner for p in others) and all(
            p.owner != piece.owner for p in others
        ):
            pending = _replaced(pending, piece.owner)
    return pending


def apply_launch(state: State, side: int, launch: Launch) -> State:
    """SW-5.62: the launch and the missile's flight of `missile_step` squares."""
    board = state.board
    k, r, m = (board[s] for s in (launch.mothership, launch.gunboat, launch.missile))
    assert k is not None
    assert r is not None
    assert m is not None
    changes: dict[int, Piece | None] = {launch.missile: None}
    if state.config.launch_flips:
        changes[launch.mothership] = k._replace(small=True)
        changes[launch.gunboat] = r._replace(small=True)
    board = put(board, changes)
    hits = state.hits
    missile = m._replace(owner=side, fired=True, launched=True)
    pending = state.pending
    sq: int | None = launch.first
    for n in range(state.config.missile_step):
        if n > 0:
            assert sq is not None
            f, rank = coords(sq)
            sq = square(f, rank + forward(side)) if on_board(f, rank + forward(side)) else None
        if sq is None:  # SW-5.62: leaving the board removes it (replaced)
            pending = _replaced(pending, side)
            hits = moved_hits(hits, {launch.missile}, {})
            break
        occupant = board[sq]
        if occupant is not None:  # SW-R49, SW-5.66: a collision
            pending = _collide({-1: missile, sq: occupant}, pending)
            hits = moved_hits(hits, {sq, launch.missile}, {})
            board = put(board, {sq: None})
            break
        last = n == state.config.missile_step - 1
        if last or not clear(board, state.config, sq, side, _ships_of(board, side)):
            board = put(board, {sq: missile})
            hits = moved_hits(hits, set(), {launch.missile: sq})  # its hits go with it
            break
    return state._replace(board=board, pending=pending, hits=hits)


def legal_launches(state: State, side: int) -> list[Launch]:
    board = state.board
    out: list[Launch] = []
    for k, kp in enumerate(board):
        if kp is None or kp.owner != side or kp.kind != MOTHERSHIP or kp.small:
            continue
        near = ADJACENT[k]
        gunboats = [s for s in near if (p := board[s]) is not None and p.owner == side
                    and p.kind == GUNBOAT and not p.small]  # fmt: skip
        missiles = [s for s in near if (p := board[s]) is not None and p.kind == MISSILE
                    and not p.launched]  # fmt: skip
        for r in gunboats:
            for m in missiles:
                out.extend(Launch(k, r, m, q) for q in first_squares(r, side))
    return out


def _all_kings(board: Board) -> bool:
    return all(any(p is not None and p.owner == s and p.kind == MOTHERSHIP for p in board)
               for s in (0, 1))  # fmt: skip


def move_missiles(state: State) -> tuple[State, list[str]]:
    """SW-5.65: the movement step in `missile_step` simultaneous sub-steps; the game's end is
    checked after each (SW-4.6). Returns the state and the squares where pieces were destroyed
    or missiles left the board."""
    config = state.config
    board = state.board
    pending = state.pending
    hits = state.hits
    log: list[str] = []
    fired = [sq for sq, p in enumerate(board) if p is not None and p.kind == MISSILE and p.fired
             and not p.launched]  # fmt: skip
    frozen = {sq for sq in fired if _frozen(board, config, sq)}
    movers = set(fired) - frozen
    for _ in range(config.missile_step):
        if not movers or not _all_kings(board):
            break
        targets: dict[int, int | None] = {}
        for sq in movers:
            piece = board[sq]
            assert piece is not None
            f, r = coords(sq)
            r2 = r + forward(piece.owner)
            targets[sq] = square(f, r2) if on_board(f, r2) else None
        destroyed: set[int] = set()
        for sq, to in targets.items():
            if to is None:  # SW-5.65(3): off the board, replaced
                piece = board[sq]
                assert piece is not None
                pending = _replaced(pending, piece.owner)
                destroyed.add(sq)
                log.append(f"{NAMES[sq]}>off")
        live = {sq: to for sq, to in targets.items() if to is not None}
        for sq, to in live.items():  # SW-5.65(4): head-on passes
            if to in live and live[to] == sq and sq < to:
                a, b = board[sq], board[to]
                assert a is not None
                assert b is not None
                pending = _collide({sq: a, to: b}, pending)
                destroyed.update((sq, to))
                log.append(f"{NAMES[sq]}x{NAMES[to]}")
        live = {sq: to for sq, to in live.items() if sq not in destroyed}
        by_target: dict[int, list[int]] = {}
        for sq, to in live.items():
            by_target.setdefault(to, []).append(sq)
        entered: dict[int, int] = {}
        for q, comers in by_target.items():  # SW-5.65(5)
            standing_piece = None if q in movers else board[q]
            if len(comers) == 1 and standing_piece is None:
                entered[comers[0]] = q
                continue
            pieces: dict[int, Piece] = {}
            for sq in comers:
                piece = board[sq]
                assert piece is not None
                pieces[sq] = piece
            if standing_piece is not None:
                pieces[-1] = standing_piece
                destroyed.add(q)
            pending = _collide(pieces, pending)
            destroyed.update(comers)
            log.append(f"x{NAMES[q]}")
        arriving = {q: board[sq] for sq, q in entered.items()}
        hits = moved_hits(hits, destroyed, entered)
        board = put(board, dict.fromkeys(movers | destroyed))
        board = put(board, arriving)
        # SW-5.65(6), SW-R50: judged on the board after the whole sub-step.
        movers = {q for q in entered.values() if _clear(board, config, q)}
    return state._replace(board=board, pending=pending, hits=hits), log


def _frozen(board: Board, config: Config, sq: int) -> bool:
    """SW-5.65(1): a missile whose square fails SW-5.35(a)."""
    owner = _owner(board, sq)
    return immobilized(board, config, sq, owner, _ships_of(board, owner))


def _clear(board: Board, config: Config, sq: int) -> bool:
    owner = _owner(board, sq)
    return clear(board, config, sq, owner, _ships_of(board, owner))


def _owner(board: Board, sq: int) -> int:
    piece = board[sq]
    assert piece is not None
    return piece.owner


def check_place(state: State, side: int, place: PlaceReplacement) -> Problem | None:
    if state.pending[side] <= 0:
        return "SW-5.77", "you have no replacement to place"
    if coords(place.square)[1] != back_rank(side) or state.board[place.square] is not None:
        return "SW-5.77", "a replacement goes on an empty square of your own back rank"
    return None


def place_squares(state: State, side: int) -> list[int]:
    rank = back_rank(side)
    squares = [square(f, rank) for f in range(1, FILES + 1)]
    return sorted((s for s in squares if state.board[s] is None), key=sort_key)


def apply_place(state: State, side: int, place: PlaceReplacement) -> State:
    pending = (state.pending[0] - 1, state.pending[1]) if side == 0 else (
        state.pending[0], state.pending[1] - 1)  # fmt: skip
    board = put(state.board, {place.square: Piece(side, MISSILE)})
    return state._replace(board=board, pending=pending)
