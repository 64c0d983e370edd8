"""Benchmark: adjudicating the moves of pre-recorded greedy bot games (the service's mix).

Replays `tests.recorded.record_games(games, max_plies, seed=1)` (greedy games: captures
preferred) and times `parse_action` + `decide` + `evolve` of each recorded action, as the rules
service does per request. Prints the median and p99 microseconds per action.
Run: .venv/bin/python -m tests.bench.adjudication_greedy [games] [max_plies]
"""

import statistics
import sys
import time

from domain.chess3d import CHESS3D
from domain.core import Rejection
from tests.recorded import record_games


def run(games: int = 20, max_plies: int = 200, seed: int = 1) -> list[float]:
    recorded = record_games(games, max_plies, seed=seed)
    timings: list[float] = []
    clock = time.perf_counter
    for played in recorded:
        state = CHESS3D.start(CHESS3D.create(""))
        for seat, text in played:
            started = clock()
            action = CHESS3D.parse_action(state, seat, text)
            assert not isinstance(action, Rejection), action
            events = CHESS3D.decide(state, seat, action)
            assert isinstance(events, tuple), events
            for event in events:
                state = CHESS3D.evolve(state, event)
            timings.append(clock() - started)
    return timings


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    games = int(args[0]) if args else 20
    max_plies = int(args[1]) if len(args) > 1 else 200
    timings = sorted(t * 1e6 for t in run(games, max_plies))
    p99 = timings[min(len(timings) - 1, int(len(timings) * 0.99))]
    print(f"games: {games}  actions measured: {len(timings)}")
    print(f"parse+decide+evolve per action: median {statistics.median(timings):.1f} us, "
          f"p99 {p99:.1f} us")  # fmt: skip


if __name__ == "__main__":
    main()
