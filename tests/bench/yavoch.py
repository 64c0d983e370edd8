"""Benchmark: Yavoch adjudication per action (parse + decide at the fair-play table, folding only
what a decision does not carry, as the service does),
over random-bot games of `decker` and `full`. The draws each action needs are obtained first,
untimed (in the service they come from the randomness service); the timed call is the one the
rules service makes once it holds them.

Run: .venv/bin/python -m tests.bench.yavoch
"""

import random
import statistics
import time

from domain.core import Decided, DrawResult, NeedDraws, Rejection
from domain.core import table as tables
from domain.yavoch.rules import YAVOCH
from tests.rulesets.driver import LocalGame, client_seed, fulfil


def timed_game(seed: int, variant: str, timings: list[float]) -> None:
    rng = random.Random(seed)
    game = LocalGame.create(rng.randbytes(32).hex(), f"bench-{seed}", YAVOCH, variant)
    game.seed([client_seed(rng), client_seed(rng)])
    while tables.outcome(game.table) is None:
        (seat,) = tables.to_act(game.table)
        state = game.table.game
        text = YAVOCH.format_action(state, YAVOCH.bot_action(state, seat, rng.randrange))
        draws: list[DrawResult] = []
        decision = tables.decide(game.table, seat, text)
        while isinstance(decision, NeedDraws):
            assert game.table.fair is not None
            draws += fulfil(decision.requests, game.server_seed, game.game_id,
                            game.table.fair.mix)  # fmt: skip
            decision = tables.decide(game.table, seat, text, draws)
        start = time.perf_counter()
        decision = tables.decide(game.table, seat, text, draws)
        assert not isinstance(decision, Rejection | NeedDraws), decision
        if not isinstance(decision, Decided):  # as the service: fold only what decide did not
            table = game.table
            for event in decision:
                table = tables.evolve(table, event)
        timings.append(time.perf_counter() - start)
        game.apply(decision)


def main() -> None:
    for variant in ("decker", "full"):
        timings: list[float] = []
        for seed in range(10):
            timed_game(seed, variant, timings)
        us = sorted(t * 1e6 for t in timings)
        p99 = us[min(len(us) - 1, int(len(us) * 0.99))]
        print(f"  yavoch {variant:<8} parse+decide  median {statistics.median(us):6.1f} us"
              f"   p99 {p99:7.1f} us   ({len(us)} actions)")  # fmt: skip


if __name__ == "__main__":
    main()
