"""Properties over random-bot games: each decision equals folding its events, replay (also
through JSON) equals the live state, the position notation round-trips, pieces never share a
square or multiply, and every phase sequence follows SW-4."""

import random
from typing import Union

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from contracts.events import PLATFORM_EVENTS, Event
from contracts.spacewar import StepBegan
from domain.core import Decided, Rejection, fold
from domain.spacewar import SPACEWAR, State
from domain.spacewar.state import first_step

VARIANTS = [
    "turn_limit=2",
    "turn_limit=2+range_tp=2+missile_step=1",
    "turn_limit=2+beam_hits_reset=half_turn+launch_flips=false",
    "turn_limit=1+auto_pass=false+king_placement=outside",
]
MAX_ACTIONS = 400
ENCODER = msgspec.json.Encoder()
DECODER: msgspec.json.Decoder[Event] = msgspec.json.Decoder(
    Union.__getitem__((*PLATFORM_EVENTS, *SPACEWAR.events))
)


def _follows(before: tuple[int, int, str], after: tuple[int, int, str]) -> bool:
    """SW-4.1, SW-5.60, SW-5.77: the next step of a phase, or the next phase's first step."""
    turn, phase, step = before
    if after == (turn, phase, "replace"):
        return step in ("combat", "launch") and phase % 4 != 1
    if phase == 8:
        return after == (turn + 1, 1, "move")
    return after == (turn, phase + 1, first_step(phase + 1))


def _pieces(state: State) -> int:
    return sum(p is not None for p in state.board)


def play_game(variant: str, seed: int) -> tuple[list[Event], State]:
    rng = random.Random(seed)
    created = SPACEWAR.create(variant)
    state = SPACEWAR.start(created)
    log: list[Event] = [created]
    where = (1, 1, "move")
    for _ in range(MAX_ACTIONS):
        if state.outcome:
            break
        (seat,) = SPACEWAR.to_act(state)
        action = SPACEWAR.bot_action(state, seat, rng.randrange)
        assert action is not None, SPACEWAR.position(state)
        text = SPACEWAR.format_action(state, action)
        parsed = SPACEWAR.parse_action(state, seat, text)
        assert not isinstance(parsed, Rejection), parsed
        decision = SPACEWAR.decide(state, seat, parsed)
        assert isinstance(decision, Decided), (text, decision, SPACEWAR.position(state))
        # decide equals folding its events
        folded = state
        for event in decision:
            folded = SPACEWAR.evolve(folded, event)
            if isinstance(event, StepBegan):
                nxt = (event.turn, event.phase, event.step)
                assert _follows(where, nxt), (where, nxt)
                where = nxt
        assert folded == decision.state
        before = _pieces(state)
        state = decision.state
        assert _pieces(state) <= before + sum(state.pending) + 1  # a capture moves, never adds
        log.extend(decision)
        # the position round-trips wherever a player decides
        if not state.outcome:
            text = SPACEWAR.position(state)
            again = SPACEWAR.start(msgspec.structs.replace(created, position=text))
            assert SPACEWAR.position(again) == SPACEWAR.position(state)
    return log, state


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 2**32 - 1))
def test_random_games_replay_and_keep_invariants(variant: str, seed: int) -> None:
    log, state = play_game(variant, seed)
    assert state.outcome is not None  # turn_limit bounds bot games
    assert fold(SPACEWAR, log) == state
    decoded = [DECODER.decode(ENCODER.encode(e)) for e in log]
    assert fold(SPACEWAR, decoded) == state
