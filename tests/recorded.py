"""Pre-recorded legal games, so load tests and benchmarks spend no client CPU choosing moves."""

import random
from typing import Any

from domain.registry import find_ruleset
from services.client.bot import greedy_policy


def record_games(
    count: int, max_plies: int, seed: int = 0, ruleset: str = "chess3d"
) -> list[list[tuple[int, str]]]:
    """`count` games of (seat, action) pairs, each stopping at its end or at `max_plies`."""
    rs = find_ruleset(ruleset)
    games = []
    for g in range(count):
        rng = random.Random(seed * 1_000_003 + g)
        state: Any = rs.start(rs.create(""))
        played: list[tuple[int, str]] = []
        while len(played) < max_plies and rs.outcome(state) is None:
            (seat,) = rs.to_act(state)
            action = greedy_policy(rs, state, seat, rng)
            events = rs.decide(state, seat, action)
            assert isinstance(events, tuple), events  # chess3d never draws nor refuses here
            played.append((seat, rs.format_action(state, action)))
            for e in events:
                state = rs.evolve(state, e)
        games.append(played)
    return games
