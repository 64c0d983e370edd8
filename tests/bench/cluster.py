"""Benchmark: the whole stack on clusters against the single-node stack, on `make bench`'s load.

Each configuration is a `tabula up` of its own: the single-node stack (one nats-server, one
Valkey, two rules replicas and one of every other service) or `tabula up --cluster` (3 NATS
nodes, Valkey 3 primaries each with a replica, every append waiting for a replica's AOF, and two
of every service). The load is tests.bench.run's: pre-recorded 3-D Chess games, G at a time,
each move a request from the client library as the `player` user, to the game's partition.
Rounds alternate the order; each stack is started for its window and stopped after it, so the
other's idle processes take no CPU from it. The headline is the median over rounds of each
round's ratio cluster / single, beside the machine's CPU per move in each (all processes but the
load generator's).

Run: .venv/bin/python -m tests.bench.cluster [--rounds 3] [--seconds 15] [--games 100]
"""

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from services.client.client import Client
from tests.bench.run import LOAD, OTHER, RulesGames, Run, conflicts, drive, settled
from tests.recorded import record_games
from tests.stack import embedded_stack

CONFIGS = {"single": (), "cluster": ("--cluster",)}


async def measure(config: str, recorded: list[list[tuple[int, str]]], pool_size: int,
                  games: int, warmup: float, seconds: float) -> Run:  # fmt: skip
    with (
        tempfile.TemporaryDirectory() as home,
        embedded_stack(Path(home), *CONFIGS[config]) as up,
    ):
        stack = up.stack
        replicas = [url for name, url in stack.metrics.items() if name.startswith("rules")]
        client = await Client.connect(stack.nats_url)
        try:
            await settled(replicas)
            pool = RulesGames(client, recorded)
            await pool.fill(pool_size)
            before = sum(map(conflicts, replicas))
            run = await drive(config, client.nc, pool.next, games, {}, warmup, seconds)
            run.conflicts = sum(map(conflicts, replicas)) - before
            run.late_games = pool.late
        finally:
            await client.close()
    return run


async def bench(rounds: int, games: int, plies: int, warmup: float, seconds: float) -> None:
    recorded = record_games(games, plies, seed=5)
    mean_plies = statistics.mean(len(m) for m in recorded)
    print(f"{len(recorded)} recorded 3-D Chess games of about {mean_plies:.0f} plies; {games} "
          f"at a time, {seconds:.0f} s measured after {warmup:.0f} s of warm-up",
          flush=True)  # fmt: skip
    best = 0.0  # the fastest rate so far sizes the next pool of fresh games
    runs: dict[str, list[Run]] = {c: [] for c in CONFIGS}
    ratios = []
    for n in range(rounds):
        order = list(CONFIGS) if n % 2 == 0 else list(CONFIGS)[::-1]
        this = {}
        for config in order:
            size = int(1.5 * best * (warmup + seconds) / mean_plies) + games if best else games * 20
            started = time.perf_counter()
            run = await measure(config, recorded, size, games, warmup, seconds)
            best = max(best, run.rate)
            this[config] = run
            runs[config].append(run)
            print(f"  {config:8s} {run.rate:7,.0f} moves/s, p50 {run.pct(50):5.1f} ms, "
                  f"p99 {run.pct(99):6.1f} ms, machine CPU {run.ms_per_move(OTHER):.2f} ms/move, "
                  f"load generator {run.share(LOAD):.0f}% of a core; errors {run.errors}, "
                  f"conflicts {run.conflicts}, games made in the window {run.late_games} "
                  f"({time.perf_counter() - started:.0f} s with the stack's start and stop)",
                  flush=True)  # fmt: skip
        ratios.append(this["cluster"].rate / this["single"].rate)
        print(f"round {n + 1}/{rounds}: cluster / single {ratios[-1]:.2f}", flush=True)
    cpu = {c: statistics.median(r.ms_per_move(OTHER) for r in runs[c]) for c in CONFIGS}
    print(
        f"\nwhole stack on the clusters / single-node stack: {statistics.median(ratios):.2f} "
        f"(median of {rounds} rounds, {min(ratios):.2f}-{max(ratios):.2f}); machine CPU per move "
        f"{cpu['cluster']:.2f} ms against {cpu['single']:.2f} ms"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--games", type=int, default=100, help="concurrent games")
    p.add_argument("--plies", type=int, default=80, help="plies per recorded game")
    p.add_argument("--warmup", type=float, default=3)
    p.add_argument("--seconds", type=float, default=15)
    args = p.parse_args()
    asyncio.run(bench(args.rounds, args.games, args.plies, args.warmup, args.seconds))


if __name__ == "__main__":
    main()
