"""The state of a Spacewar game and the phase table of SW-4.1."""

from typing import Final, NamedTuple

from domain.core.agreement import Agreement
from domain.core.outcome import Outcome
from domain.spacewar.board import BLACK, WHITE
from domain.spacewar.pieces import Piece
from domain.spacewar.variant import Config

# Steps: a movement phase is one step; a force-combat phase is its combat step; a missile phase
# has its launch step, its movement step (automatic, SW-R53) and its replacement step. A
# force-combat phase that earned replacements (SW-R51) ends with a replacement step too.
MOVE, COMBAT, LAUNCH, FLIGHT, REPLACE = "move", "combat", "launch", "flight", "replace"
STEPS: Final = (MOVE, COMBAT, LAUNCH, FLIGHT, REPLACE)
MOVEMENT, FORCE, MISSILE_PHASE = "movement", "force combat", "missile"


def phase_kind(phase: int) -> str:
    """SW-4.1: 1 and 5 movement, 3 and 7 missile, the others force combat."""
    return {1: MOVEMENT, 3: MISSILE_PHASE}.get((phase - 1) % 4 + 1, FORCE)


# SW-4.1: who acts (first) in each phase.
FIRST: Final = {1: WHITE, 2: BLACK, 3: WHITE, 4: WHITE, 5: BLACK, 6: WHITE, 7: BLACK, 8: BLACK}


def half_turn_owner(phase: int) -> int:
    """SW-0.2: phases 1–4 are White's half-turn, 5–8 Black's."""
    return WHITE if phase <= 4 else BLACK


def first_step(phase: int) -> str:
    return {MOVEMENT: MOVE, FORCE: COMBAT, MISSILE_PHASE: LAUNCH}[phase_kind(phase)]


class Hit(NamedTuple):
    """A beam hit (SW-5.41): id `h<id>`, the firer's type, the firer's square (None once it has
    left the board), the hit piece's square, and whether a counter beam cancelled it."""

    id: int
    kind: str
    firer: int | None
    target: int
    cancelled: bool = False


class Window(NamedTuple):
    """The field-response window (SW-5.45, SW-R54): the attack (`pull` or `push`), the moved
    piece's square now, the square it was moved from, and the attacking generator's square."""

    attack: str
    now: int
    origin: int
    generator: int


class State(NamedTuple):
    config: Config
    board: tuple[Piece | None, ...]
    turn: int = 1
    phase: int = 1
    step: str = MOVE
    actor: int = WHITE
    passes: int = 0  # consecutive passes in this combat or launch step (SW-4.3)
    groups: tuple[int, ...] = ()  # SW-5.2: the group of every ship moved in this phase
    closed: bool = False  # the movement phase was closed by END
    hits: tuple[Hit, ...] = ()
    next_hit: int = 1  # SW-R47
    window: Window | None = None
    pending: tuple[int, int] = (0, 0)  # replacements earned and not yet placed (SW-5.77)
    agreement: Agreement = Agreement()
    outcome: Outcome | None = None

    @property
    def moves(self) -> int:
        return len(self.groups)


def put(
    board: tuple[Piece | None, ...], changes: dict[int, Piece | None]
) -> tuple[Piece | None, ...]:
    if not changes:
        return board
    out = list(board)
    for sq, piece in changes.items():
        out[sq] = piece
    return tuple(out)


def moved_hits(
    hits: tuple[Hit, ...], destroyed: set[int], moves: dict[int, int]
) -> tuple[Hit, ...]:
    """Hits after pieces on `destroyed` left the board and pieces moved by `moves` (old square
    to new, applied together after the removals): a hit on a destroyed piece goes with it, a
    hit fired by one keeps no firer; a hit stays on a piece that moves (SW-5.43)."""
    out = []
    for hit in hits:
        if hit.target in destroyed:
            continue
        firer = None if hit.firer is None or hit.firer in destroyed else hit.firer
        if firer is not None:
            firer = moves.get(firer, firer)
        out.append(hit._replace(firer=firer, target=moves.get(hit.target, hit.target)))
    return tuple(out)
