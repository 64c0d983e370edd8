"""The turn structure (SW-4): entering phases and steps, the automatic steps the engine records
(SW-4.5, SW-R53) and the end of the game (SW-8)."""

from typing import NamedTuple

from domain.core.outcome import Outcome, draw, win
from domain.spacewar.board import BLACK, WHITE
from domain.spacewar.combat import combat_actions
from domain.spacewar.missiles import legal_launches, move_missiles, place_squares
from domain.spacewar.movement import any_move
from domain.spacewar.pieces import MOTHERSHIP, Piece
from domain.spacewar.state import (
    COMBAT,
    FIRST,
    FLIGHT,
    LAUNCH,
    MOVE,
    REPLACE,
    State,
    first_step,
    half_turn_owner,
)


class Next(NamedTuple):
    """Where the game goes after the current step: a phase and step (the turn may advance)."""

    turn: int
    phase: int
    step: str


def after_step(state: State) -> Next | None:
    """The phase and step that follow the current (finished) step, None when `turn_limit`
    ends the game instead (SW-8.4)."""
    if state.step in (COMBAT, FLIGHT) and sum(state.pending) > 0:
        return Next(state.turn, state.phase, REPLACE)  # SW-5.77, SW-R51
    if state.phase == 8:
        limit = state.config.turn_limit
        if limit and state.turn >= limit:
            return None
        return Next(state.turn + 1, 1, MOVE)
    return Next(state.turn, state.phase + 1, first_step(state.phase + 1))


def enter(state: State, turn: int, phase: int, step: str) -> State:
    """Begin a phase or step (SW-4.1, SW-4.2, SW-5.43)."""
    board = state.board
    hits, next_hit = state.hits, state.next_hit
    if state.config.beam_hits_reset == "phase" and state.step == COMBAT:
        hits, next_hit = (), 1  # SW-5.43: cleared at the end of a force-combat phase
    if phase != state.phase or turn != state.turn:
        board = tuple(p._replace(launched=False) if p is not None and p.launched else p
                      for p in board)  # fmt: skip
        if phase in (1, 5):  # SW-4.2
            board = tuple(None if p is None else _refreshed(p) for p in board)
            if state.config.beam_hits_reset == "half_turn":
                hits, next_hit = (), 1
    actor = FIRST[phase]
    if step == REPLACE:
        owner = half_turn_owner(phase)
        actor = owner if state.pending[owner] else 1 - owner
    return state._replace(board=board, turn=turn, phase=phase, step=step, actor=actor,
                          passes=0, groups=(), closed=False, hits=hits, next_hit=next_hit,
                          window=None)  # fmt: skip


def _refreshed(piece: Piece) -> Piece:
    """SW-4.2: large side up, no moved or anchored flag."""
    return piece._replace(small=False, moved=False, anchored=False)


def only_pass(state: State) -> bool:
    """SW-4.5: the actor's only legal action is a pass."""
    side = state.actor
    if state.step == COMBAT:
        return next(combat_actions(state, side), None) is None
    if state.step == LAUNCH:
        return not legal_launches(state, side)
    return False


class Auto(NamedTuple):
    """An automatic step (SW-R53): `kind` is "pass", "advance", "missiles" or "lost"."""

    kind: str
    seat: int = 0
    to: Next | None = None


def automatic(state: State) -> Auto | None:
    """The next step the engine takes by itself, None when a player must decide."""
    if state.outcome is not None:
        return None
    step = state.step
    if step == MOVE:
        if state.closed or state.moves >= 4 or not any_move(state, state.actor):
            return Auto("advance", to=after_step(state))  # SW-5.4, SW-R7, SW-R57
        return None
    if step in (COMBAT, LAUNCH):
        if state.passes >= 2:  # SW-4.3
            if step == LAUNCH:
                return Auto("missiles")
            return Auto("advance", to=after_step(state))
        if state.config.auto_pass and only_pass(state):
            return Auto("pass", seat=state.actor)  # SW-4.5
        return None
    if step == FLIGHT:
        return Auto("advance", to=after_step(state))
    # the replacement step (SW-5.77)
    if state.pending[state.actor] and not place_squares(state, state.actor):
        return Auto("lost", seat=state.actor)
    if not any(state.pending):
        return Auto("advance", to=after_step(state))
    return None


def next_placer(state: State) -> State:
    """After a placement: the other owner places once this one has none left."""
    if state.pending[state.actor] == 0 and state.pending[1 - state.actor]:
        return state._replace(actor=1 - state.actor)
    return state


def fly(state: State) -> tuple[State, list[str]]:
    """SW-5.65: the movement step; then the replacement step follows."""
    moved, log = move_missiles(state)
    return moved._replace(step=FLIGHT, passes=0), log


def end_of_game(state: State) -> Outcome | None:
    """SW-8.1, SW-8.2: a player without a Mothership on the board loses; both at once: drawn."""
    owners = {p.owner for p in state.board if p is not None and p.kind == MOTHERSHIP}
    alive = [side in owners for side in (WHITE, BLACK)]
    if all(alive):
        return None
    if not any(alive):
        return draw("motherships")
    return win(WHITE if alive[WHITE] else BLACK, "motherships")
