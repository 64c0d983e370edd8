"""Force combat (SW-5.40–SW-5.47): beams, counter beams, field attacks and responses."""

from collections.abc import Iterator

from domain.spacewar.actions import Beam, Counter, Field, FieldResponse
from domain.spacewar.board import DISTANCE, NAMES, coords, distance, on_board, sort_key, square
from domain.spacewar.pieces import GENERATORS, KIND_NAMES, MISSILE, PRESSOR, TRACTOR, Piece
from domain.spacewar.state import Hit, State, Window, moved_hits, put

Problem = tuple[str, str]


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def field_squares(
    generator: int, target: int
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """SW-5.44, SW-R24: the closer and the farther squares of `target` as (file, rank), on the
    board or not."""
    gf, gr = coords(generator)
    tf, tr = coords(target)
    s = (_sign(gf - tf), _sign(gr - tr))

    def around(v: tuple[int, int]) -> list[tuple[int, int]]:
        if v[0] and v[1]:
            return [(tf + v[0], tr + v[1]), (tf + v[0], tr), (tf, tr + v[1])]
        if v[0]:
            return [(tf + v[0], tr + p) for p in (-1, 0, 1)]
        return [(tf + p, tr + v[1]) for p in (-1, 0, 1)]

    return around(s), around((-s[0], -s[1]))


def field_destinations(board: tuple[Piece | None, ...], generator: int,
                       target: int) -> list[int | None]:  # fmt: skip
    """SW-5.44, SW-R25, SW-R48: a pull's empty closer squares, a push's empty farther squares
    and `None` (off the board) when some farther square is off it."""
    piece = board[generator]
    assert piece is not None
    closer, farther = field_squares(generator, target)
    pool = closer if piece.kind == TRACTOR else farther
    empty: list[int] = [
        square(f, r) for f, r in pool if on_board(f, r) and board[square(f, r)] is None
    ]
    empty.sort(key=sort_key)
    out: list[int | None] = [*empty]
    if piece.kind == PRESSOR and any(not on_board(f, r) for f, r in pool):
        out.append(None)
    return out


def _own_large(
    state: State, side: int, sq: int, kinds: tuple[str, ...], what: str
) -> Problem | None:
    piece = state.board[sq]
    if piece is None or piece.owner != side:
        return "SW-5.40", f"there is no ship of yours on {NAMES[sq]}"
    if piece.kind not in kinds:
        names = " or ".join(KIND_NAMES[k] for k in kinds)
        return "SW-5.40", f"{what} is made by a {names}, not a {KIND_NAMES[piece.kind]}"
    if piece.small:
        return "SW-4.2", (f"the {KIND_NAMES[piece.kind]} on {NAMES[sq]} is small side up: it has "
                          "used its power")  # fmt: skip
    return None


def standing(state: State, sq: int) -> set[str]:
    """The types of the uncancelled hits on the piece on `sq`."""
    return {h.kind for h in state.hits if h.target == sq and not h.cancelled}


def check_beam(state: State, side: int, beam: Beam) -> Problem | None:
    problem = _own_large(state, side, beam.firer, GENERATORS, "a beam")
    if problem:
        return problem
    target = state.board[beam.target]
    if target is None or target.owner == side:
        return (
            "SW-5.41",
            f"a beam targets an enemy ship or missile; {NAMES[beam.target]} holds none",
        )
    firer = state.board[beam.firer]
    assert firer is not None
    reach = state.config.range_of(firer.kind)
    if distance(beam.firer, beam.target) > reach:
        return "SW-5.41", f"{NAMES[beam.target]} is beyond the beam's range {reach}"
    return None


def apply_beam(state: State, beam: Beam) -> State:
    """SW-5.41: the hit, and the target destroyed at once by two different types (a missile
    so destroyed is not replaced)."""
    firer = state.board[beam.firer]
    assert firer is not None
    board = put(state.board, {beam.firer: firer._replace(small=True)})
    hits = (*state.hits, Hit(state.next_hit, firer.kind, beam.firer, beam.target))
    state = state._replace(board=board, hits=hits, next_hit=state.next_hit + 1)
    if len(standing(state, beam.target)) >= 2:
        state = state._replace(board=put(state.board, {beam.target: None}),
                               hits=moved_hits(state.hits, {beam.target}, {}))  # fmt: skip
    return state


def check_counter(state: State, side: int, counter: Counter) -> Problem | None:
    problem = _own_large(state, side, counter.ship, GENERATORS, "a counter beam")
    if problem:
        return problem
    hit = next((h for h in state.hits if h.id == counter.hit), None)
    target = state.board[hit.target] if hit else None
    if hit is None or hit.cancelled or target is None or target.owner != side:
        return "SW-5.42", f"no uncancelled hit h{counter.hit} stands on a piece of yours (SW-R55)"
    ship = state.board[counter.ship]
    assert ship is not None
    reach = state.config.range_of(ship.kind)
    near_firer = hit.firer is not None and distance(counter.ship, hit.firer) <= reach
    if not near_firer and distance(counter.ship, hit.target) > reach:
        return "SW-5.42", (f"the counter beam reaches neither the firing ship nor the hit piece "
                           f"(range {reach})")  # fmt: skip
    return None


def apply_counter(state: State, counter: Counter) -> State:
    ship = state.board[counter.ship]
    assert ship is not None
    hits = tuple(h._replace(cancelled=True) if h.id == counter.hit else h for h in state.hits)
    return state._replace(board=put(state.board, {counter.ship: ship._replace(small=True)}),
                          hits=hits)  # fmt: skip


def check_field(state: State, side: int, field: Field) -> Problem | None:
    problem = _own_large(state, side, field.generator, (TRACTOR, PRESSOR), "a field attack")
    if problem:
        return problem
    target = state.board[field.target]
    if target is None or target.owner == side:
        return "SW-5.44", (f"a field attacks an enemy ship or missile; {NAMES[field.target]} "
                           "holds none (SW-R23)")  # fmt: skip
    if distance(field.generator, field.target) > state.config.range_tp:
        return (
            "SW-5.44",
            f"{NAMES[field.target]} is beyond the field's range {state.config.range_tp}",
        )
    options = field_destinations(state.board, field.generator, field.target)
    if field.destination not in options:
        if not options:
            return "SW-5.44", "no destination is available: the attack is illegal"
        generator = state.board[field.generator]
        assert generator is not None
        how = "an empty closer square" if generator.kind == TRACTOR else (
            "an empty farther square, or off when one is off the board")  # fmt: skip
        return "SW-R25", f"a {'pull' if generator.kind == TRACTOR else 'push'} goes to {how}"
    return None


def apply_field(state: State, field: Field) -> State:
    """SW-5.44: the target moved, or pushed off the board and destroyed (a missile so removed
    is replaced, SW-R34, placed at the end of the phase, SW-R51); the response window opens
    when it was moved and not destroyed (SW-5.45)."""
    generator = state.board[field.generator]
    target = state.board[field.target]
    assert generator is not None
    assert target is not None
    board = put(state.board, {field.generator: generator._replace(small=True)})
    if field.destination is None:
        pending = state.pending
        if target.kind == MISSILE:
            pending = _more(pending, target.owner)
        return state._replace(board=put(board, {field.target: None}), pending=pending,
                              hits=moved_hits(state.hits, {field.target}, {}))  # fmt: skip
    board = put(board, {field.target: None, field.destination: target})
    attack = "pull" if generator.kind == TRACTOR else "push"
    window = Window(attack, field.destination, field.target, field.generator)
    hits = moved_hits(state.hits, set(), {field.target: field.destination})
    return state._replace(board=board, window=window, hits=hits)


def _more(pending: tuple[int, int], owner: int) -> tuple[int, int]:
    return (pending[0] + 1, pending[1]) if owner == 0 else (pending[0], pending[1] + 1)


def check_response(state: State, side: int, response: FieldResponse) -> Problem | None:
    window = state.window
    moved = state.board[window.now] if window else None
    if window is None or moved is None or moved.owner != side:
        return "SW-5.45", ("a field response is played only as the action right after an enemy "
                           "field attack moved one of your pieces (SW-R54)")  # fmt: skip
    kind = PRESSOR if window.attack == "pull" else TRACTOR
    problem = _own_large(state, side, response.ship, (kind,), f"the response to a {window.attack}")
    if problem:
        return "SW-5.45" if problem[0] == "SW-5.40" else problem[0], problem[1]
    reach = state.config.range_tp
    if (distance(response.ship, window.origin) > reach
            and distance(response.ship, window.generator) > reach):  # fmt: skip
        return "SW-R26", (f"the responder reaches neither {NAMES[window.origin]} nor the "
                          f"attacking generator (range {reach})")  # fmt: skip
    return None


def apply_response(state: State, response: FieldResponse) -> State:
    """SW-5.45: the moved piece goes back to the square it was moved from; hits stay on it."""
    window = state.window
    assert window is not None
    ship = state.board[response.ship]
    assert ship is not None
    board = put(state.board, {response.ship: ship._replace(small=True)})
    piece = board[window.now]  # read after the flip: the moved piece may be the responder
    assert piece is not None
    board = put(board, {window.now: None, window.origin: piece})
    hits = moved_hits(state.hits, set(), {window.now: window.origin})
    return state._replace(board=board, hits=hits)


CombatAction = Beam | Counter | Field | FieldResponse


def legal_combat(state: State, side: int) -> list[CombatAction]:
    """Every legal Beam, Counter, Field and FieldResponse (Pass is always legal, SW-5.46)."""
    return list(combat_actions(state, side))


def combat_actions(state: State, side: int) -> Iterator[CombatAction]:
    """`legal_combat` one by one: whether there is any (SW-4.5) is known from the first."""
    board, config = state.board, state.config
    ships = [sq for sq, p in enumerate(board)
             if p is not None and p.owner == side and p.kind in GENERATORS
             and not p.small]  # fmt: skip
    enemies = [sq for sq, p in enumerate(board) if p is not None and p.owner != side]
    for sq in ships:
        piece = board[sq]
        assert piece is not None
        reach = config.range_of(piece.kind)
        near = DISTANCE[sq]
        for t in enemies:
            if near[t] <= reach:
                yield Beam(sq, t)
        for hit in state.hits:
            if check_counter(state, side, Counter(sq, hit.id)) is None:
                yield Counter(sq, hit.id)
        if piece.kind in (TRACTOR, PRESSOR):
            for t in enemies:
                if near[t] <= config.range_tp:
                    for d in field_destinations(board, sq, t):
                        yield Field(sq, t, d)
        if state.window and check_response(state, side, FieldResponse(sq)) is None:
            yield FieldResponse(sq)
