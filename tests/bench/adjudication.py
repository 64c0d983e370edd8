"""Benchmark: time to adjudicate a move (decide + evolve of its events, end checks included).

Plays K seeded random games of 3-D Chess and prints the median and p99 microseconds per move.
Run: .venv/bin/python -m tests.bench.adjudication [games] [max_plies]
"""

import random
import statistics
import sys
import time

from domain.chess3d import CHESS3D, Move


def run(games: int = 20, max_plies: int = 300, seed: int = 1) -> list[float]:
    rng = random.Random(seed)
    timings: list[float] = []
    clock = time.perf_counter
    for _ in range(games):
        state = CHESS3D.start(CHESS3D.create(""))
        for _ in range(max_plies):
            if CHESS3D.outcome(state):
                break
            seat = state.pos.turn
            moves = [a for a in CHESS3D.legal_actions(state, seat) if isinstance(a, Move)]
            move = rng.choice(moves)
            started = clock()
            events = CHESS3D.decide(state, seat, move)
            assert isinstance(events, tuple)
            for event in events:
                state = CHESS3D.evolve(state, event)
            timings.append(clock() - started)
    return timings


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    games = int(args[0]) if args else 20
    max_plies = int(args[1]) if len(args) > 1 else 300
    timings = sorted(t * 1e6 for t in run(games, max_plies))
    p99 = timings[min(len(timings) - 1, int(len(timings) * 0.99))]
    print(f"games: {games}  moves measured: {len(timings)}")
    print(f"decide+evolve per move: median {statistics.median(timings):.1f} us, p99 {p99:.1f} us")


if __name__ == "__main__":
    main()
