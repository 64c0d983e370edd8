"""Benchmark: Cyvasse adjudication (decide per action, taking the state it computed, as the
service does) over random games of A, B and C
on the square and hex boards.

Run: .venv/bin/python -m tests.bench.cyvasse
"""

import statistics

from tests.domain.cyvasse.test_games import play_random_game


def main() -> None:
    for variant in ("A", "B", "B+square10", "C", "C+square10", "A+hex91", "B+hex91", "C+hex91",
                    "B+hex91+sea-movement"):  # fmt: skip
        timings: list[float] = []
        for seed in range(10):
            play_random_game(variant, 100 + seed, timings)
        us = sorted(t * 1e6 for t in timings)
        p99 = us[min(len(us) - 1, int(len(us) * 0.99))]
        print(f"  cyvasse {variant:<20} decide        median {statistics.median(us):6.1f} us"
              f"   p99 {p99:7.1f} us   ({len(us)} actions)")  # fmt: skip


if __name__ == "__main__":
    main()
