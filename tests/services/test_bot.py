"""Bots read on, rather than act, between a mating move and the GameEnded that follows it."""

import random

from contracts.events import GameEnded
from domain.chess3d import CHESS3D
from services.client.bot import greedy_policy
from tests.domain.chess3d.helpers import fen_of, new

MATE = {"IA1": "k", "IIIA1": "K", "IIH1": "Q"}  # IIH1-IIA1 mates (chess3d C3-R25's example)


def test_the_mated_side_has_nothing_to_play_before_the_game_end_is_read() -> None:
    """Events of one append arrive one by one: folded up to the mating move only, the mated
    side is still 'to act'; the policy then returns None instead of failing."""
    state = new(fen_of(MATE))
    action = CHESS3D.parse_action(state, 0, "IIH1-IIA1")
    events = CHESS3D.decide(state, 0, action)  # type: ignore[arg-type]
    assert isinstance(events, tuple)
    assert isinstance(events[-1], GameEnded)
    after_move = CHESS3D.evolve(state, events[0])  # the GameEnded not yet read
    assert CHESS3D.outcome(after_move) is None
    assert greedy_policy(CHESS3D, after_move, 1, random.Random(0)) is None
