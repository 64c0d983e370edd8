"""Properties over random-bot games: each decision equals folding its events, replay (also
through JSON) equals the live state, no two pieces share a square, the position notation
round-trips, every legal action is accepted and the bot's games end (HA-8)."""

import random
from typing import Any, Union

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from contracts.events import PLATFORM_EVENTS, Event
from domain.core import Decided, NeedDraws, fold
from domain.spacewar_ha import SPACEWAR_HA, State
from domain.spacewar_ha.notation import VERBS
from domain.spacewar_ha.position import parse_position
from domain.spacewar_ha.rules import SpacewarHa

VARIANTS = [
    "",
    "turn_limit=40",
    "cap_at_start=false+medic_can_jump=true",
    "board=6x6+setup=Ra1/Nb1/Qc1/Kd1/Bf1+bases=c2/d2",
    "board=10x8+bases=e2/f2",
]
ENCODER = msgspec.json.Encoder()
_UNION: Any = Union.__getitem__((*PLATFORM_EVENTS, *SpacewarHa.events))
DECODER: msgspec.json.Decoder[Event] = msgspec.json.Decoder(_UNION)


def valid(state: State) -> None:
    """No two pieces on a square; values non-negative (HA-2.2), Health at least 1; holds name a
    Tractor and an adjacent enemy (HA-5.21); the notation round-trips."""
    pos = state.pos
    squares = [p.square for p in pos.pieces]
    assert len(squares) == len(set(squares))
    assert all(p.health >= 1 and min(p.ammo, p.repair, p.supply) >= 0 for p in pos.pieces)
    board = pos.at()
    for t, h in pos.holds:
        assert board[t].kind == "Q"
        assert board[h].owner != board[t].owner
        assert pos.board.adjacent(t, h)
    assert parse_position(SPACEWAR_HA.position(state), pos.board) == pos


def run(variant: str, seed: int, limit: int = 400) -> tuple[State, list[Event]]:
    rng = random.Random(seed)
    created = SPACEWAR_HA.create(variant)
    state = SPACEWAR_HA.start(created)
    log: list[Event] = [created]
    for _ in range(limit):
        if state.outcome:
            break
        (seat,) = SPACEWAR_HA.to_act(state)
        if rng.random() < 0.1:  # now and then: any legal action, releases included
            actions = [a for a in SPACEWAR_HA.legal_actions(state, seat) if a.kind not in VERBS]
            action = actions[rng.randrange(len(actions))]
        else:
            action = SPACEWAR_HA.bot_action(state, seat, rng.randrange)
        decided = SPACEWAR_HA.decide(state, seat, action)
        assert isinstance(decided, Decided)
        assert not isinstance(decided, NeedDraws)
        folded = state
        for event in decided:
            folded = SPACEWAR_HA.evolve(folded, event)
        assert folded == decided.state
        log += decided
        state = decided.state
        valid(state)
    return state, log


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(0, 2**32))
def test_random_games_replay_and_keep_invariants(variant: str, seed: int) -> None:
    """HA-4.1, HA-8: replay by folding (also through JSON) equals the live state."""
    state, log = run(variant, seed)
    assert fold(SPACEWAR_HA, log) == state
    again = [DECODER.decode(ENCODER.encode(e)) for e in log]
    assert fold(SPACEWAR_HA, again) == state


def test_bot_games_end() -> None:
    """HA-8.1, HA-8.2, HA-8.4: random-bot games of the default variant end (most by Bases)."""
    reasons = []
    for seed in range(30):
        state, _ = run("turn_limit=200", seed, limit=1000)
        assert state.outcome is not None
        reasons.append(state.outcome.reason)
    assert reasons.count("bases") > 20


def test_every_legal_action_is_accepted_and_nothing_else_is_listed() -> None:
    """legal_actions is sorted; each listed action is accepted; `pass` is listed alone with
    releases or not at all (HA-5.70)."""
    rng = random.Random(7)
    state = SPACEWAR_HA.start(SPACEWAR_HA.create(""))
    for _ in range(60):
        if state.outcome:
            break
        (seat,) = SPACEWAR_HA.to_act(state)
        actions = [a for a in SPACEWAR_HA.legal_actions(state, seat) if a.kind not in VERBS]
        texts = [SPACEWAR_HA.format_action(state, a) for a in actions]
        assert texts == sorted(texts)
        assert [SPACEWAR_HA.parse_action(state, seat, t) for t in texts] == actions  # HA-1.4
        for action in actions:
            assert isinstance(SPACEWAR_HA.decide(state, seat, action), Decided)
        decided = SPACEWAR_HA.decide(state, seat, actions[rng.randrange(len(actions))])
        assert isinstance(decided, Decided)
        state = decided.state
