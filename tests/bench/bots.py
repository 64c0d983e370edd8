"""Benchmark: Yiora adjudication (decide per move, taking the state it computed, as the service
does) over random bot games of each variation. Games per minute through the services: `tabula
demo --ruleset yiora --variant V --games 20` against a running stack (docs/operations.md).

Run: .venv/bin/python -m tests.bench.yiora
"""

import random
import statistics
import time

from domain.core import Decided
from domain.yiora import YIORA

VARIANTS = ("primary", "secondary_basic", "secondary_complex",
            "secondary_complex+complex_turn_mode=parallel", "secondary_complex+teams")  # fmt: skip
GAMES = 40
MAX_ACTIONS = 2_000


def play(variant: str, seed: int, timings: list[float]) -> None:
    """One game of the ruleset's own bot at every seat to act, each decide timed."""
    rng = random.Random(seed)
    state = YIORA.start(YIORA.create(variant))
    for _ in range(MAX_ACTIONS):
        if YIORA.outcome(state) is not None:
            return
        seat = rng.choice(sorted(YIORA.to_act(state)))
        action = YIORA.bot_action(state, seat, rng.randrange)
        start = time.perf_counter()
        decided = YIORA.decide(state, seat, action)
        timings.append(time.perf_counter() - start)
        assert isinstance(decided, Decided), decided
        state = decided.state


def main() -> None:
    for variant in VARIANTS:
        timings: list[float] = []
        for seed in range(GAMES):
            play(variant, seed, timings)
        us = sorted(t * 1e6 for t in timings)
        p99 = us[min(len(us) - 1, int(len(us) * 0.99))]
        print(f"  yiora {variant:<46} decide  median {statistics.median(us):6.1f} us"
              f"   p99 {p99:7.1f} us   ({len(us)} moves, {GAMES} games)")  # fmt: skip


if __name__ == "__main__":
    main()
