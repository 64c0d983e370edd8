"""Benchmark: the time to adjudicate a 3-D Chess move, in process.

Two mixes, each timing what the rules service does per accepted action:
- random: seeded random games, `decide` (end-of-game checks included), taking the state it
  computed, as the service does;
- greedy: pre-recorded greedy bot games (captures preferred, the service's mix in `make bench`),
  `parse_action` + `decide`.
Prints the median and p99 microseconds per action for each.
Run: .venv/bin/python -m tests.bench.adjudication [games] [max_plies]
"""

import random
import statistics
import sys
import time

from domain.chess3d import CHESS3D, Move
from domain.core import Decided, Rejection
from tests.recorded import record_games


def time_random(games: int, max_plies: int, seed: int = 1) -> list[float]:
    rng = random.Random(seed)
    timings: list[float] = []
    clock = time.perf_counter
    for _ in range(games):
        state = CHESS3D.start(CHESS3D.create(""))
        for _ in range(max_plies):
            if CHESS3D.outcome(state):
                break
            seat = state.pos.turn
            move = rng.choice([a for a in CHESS3D.legal_actions(state, seat)
                               if isinstance(a, Move)])  # fmt: skip
            started = clock()
            events = CHESS3D.decide(state, seat, move)
            assert isinstance(events, Decided), events
            state = events.state  # as the service does: the events are not folded again
            timings.append(clock() - started)
    return timings


def time_greedy(games: int, max_plies: int) -> list[float]:
    timings: list[float] = []
    clock = time.perf_counter
    for played in record_games(games, max_plies, seed=1):
        state = CHESS3D.start(CHESS3D.create(""))
        for seat, text in played:
            started = clock()
            action = CHESS3D.parse_action(state, seat, text)
            assert not isinstance(action, Rejection), action
            events = CHESS3D.decide(state, seat, action)
            assert isinstance(events, Decided), events
            state = events.state
            timings.append(clock() - started)
    return timings


def summary(name: str, timings: list[float]) -> str:
    us = sorted(t * 1e6 for t in timings)
    p99 = us[min(len(us) - 1, int(len(us) * 0.99))]
    return (
        f"  {name:<34} median {statistics.median(us):6.1f} us   p99 {p99:6.1f} us   "
        f"({len(us)} actions)"
    )


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    games = int(args[0]) if args else 20
    max_plies = int(args[1]) if len(args) > 1 else 200
    print(summary("random games: decide", time_random(games, max_plies)))
    print(summary("greedy games: parse+decide", time_greedy(games, max_plies)))


if __name__ == "__main__":
    main()
