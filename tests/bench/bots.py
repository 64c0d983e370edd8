"""Benchmark: adjudication (decide per action, taking the state it computed, as the service
does) over games of the ruleset's own random bot at every seat to act, for the rulesets whose
games are bot games end to end: Yiora's variations and both Spacewars. Games per minute through
the services: `tabula demo --ruleset R --variant V --games 200 --audit` against a running stack.

Run: .venv/bin/python -m tests.bench.bots
"""

import random
import statistics
import time

from domain.core import Decided
from domain.core.ruleset import bot_policy_of
from domain.registry import find_ruleset

GAMES = (  # ruleset, variant (random bots rarely end a Spacewar game: a turn limit bounds it)
    ("yiora", "primary"),
    ("yiora", "secondary_basic"),
    ("yiora", "secondary_complex"),
    ("yiora", "secondary_complex+complex_turn_mode=parallel"),
    ("yiora", "secondary_complex+teams"),
    ("spacewar", "turn_limit=20"),
    ("spacewar-ha", "turn_limit=100"),
)
SEEDS = 40
MAX_ACTIONS = 20_000


def play(ruleset: str, variant: str, seed: int, timings: list[float]) -> None:
    """One game of the ruleset's own bot at every seat to act, each decide timed."""
    rs = find_ruleset(ruleset)
    bot = bot_policy_of(rs)
    assert bot is not None, ruleset
    rng = random.Random(seed)
    state = rs.start(rs.create(variant))
    for _ in range(MAX_ACTIONS):
        if rs.outcome(state) is not None:
            return
        seat = rng.choice(sorted(rs.to_act(state)))
        action = bot.bot_action(state, seat, rng.randrange)
        start = time.perf_counter()
        decided = rs.decide(state, seat, action)
        timings.append(time.perf_counter() - start)
        assert isinstance(decided, Decided), decided
        state = decided.state


def main() -> None:
    for ruleset, variant in GAMES:
        timings: list[float] = []
        for seed in range(SEEDS):
            play(ruleset, variant, seed, timings)
        us = sorted(t * 1e6 for t in timings)
        p99 = us[min(len(us) - 1, int(len(us) * 0.99))]
        print(f"  {ruleset:<11} {variant:<46} decide  median {statistics.median(us):6.1f} us"
              f"   p99 {p99:7.1f} us   ({len(us)} actions, {SEEDS} games)")  # fmt: skip


if __name__ == "__main__":
    main()
