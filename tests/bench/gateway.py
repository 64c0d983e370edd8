"""Benchmark: what the gateway adds, and how many WebSockets one gateway process holds.

Against a `tabula up` of its own (closed servers, every service in its own process):
1. Added latency per action. Pairs of guests play pre-recorded legal 3-D Chess games through the
   gateway's HTTP API, and the same moves are played by pairs of bots straight on NATS (the
   client library, as the `player` user), one action at a time, in interleaved rounds; the p50
   and p99 of each, and their difference, from the same run.
2. Concurrent WebSockets. `--sockets` spectator feeds are opened over `--games` games while
   guests play them through the gateway; every feed must receive every event of its game. The
   gateway's RSS and CPU are read from /proc, beside the load generator's own CPU.

With `--cluster`, only 2., against `tabula up --cluster` and its two gateways: the feeds and the
players are spread over both (a feed of a game on one gateway, its players on the other).

Run: .venv/bin/python -m tests.bench.gateway [--rounds 5] [--actions 200] [--sockets 1000]
     .venv/bin/python -m tests.bench.gateway --cluster --sockets 3000
"""

import argparse
import asyncio
import os
import resource
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import httpx
import msgspec
import websockets
from websockets.typing import Origin

from services.client.client import Client
from tests.recorded import record_games
from tests.stack import embedded_stack

HZ = os.sysconf("SC_CLK_TCK")


class Guests:
    """Two signed-in guests at one gateway game (HTTP keep-alive, as a page would)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.people = [httpx.AsyncClient(base_url=base, headers={"Origin": base}, timeout=60)
                       for _ in range(2)]  # fmt: skip

    async def start(self) -> str:
        for i, p in enumerate(self.people):
            (await p.post("/api/session", json={"name": f"p{i}"})).raise_for_status()
        opened = await self.people[0].post("/api/challenges", json={"ruleset": "chess3d"})
        cid = opened.json()["challenge"]["id"]
        accepted = await self.people[1].post(f"/api/challenges/{cid}/accept", json={})
        game_id: str = accepted.json()["game_id"]
        return game_id

    async def act(self, game_id: str, seat: int, action: str) -> None:
        reply = await self.people[seat].post(f"/api/games/{game_id}/actions",
                                             json={"action": action,
                                                   "command_id": uuid.uuid4().hex})  # fmt: skip
        reply.raise_for_status()

    async def close(self) -> None:
        for p in self.people:
            await p.aclose()


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def gateway_pids(up_pid: int) -> list[int]:
    children = Path(f"/proc/{up_pid}/task/{up_pid}/children").read_text().split()
    found = [
        int(c) for c in children if "services.gateway" in Path(f"/proc/{c}/cmdline").read_text()
    ]
    if not found:
        raise RuntimeError("no gateway process under tabula up")
    return found


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def latency(base: str, nats_url: str, rounds: int, actions: int) -> None:
    games = record_games(rounds * 2 * (actions // 10 + 1), 80, seed=7)  # more than enough
    client = await Client.connect(nats_url)
    through: dict[str, list[float]] = {"gateway": [], "nats": []}
    clock = time.perf_counter
    played = iter(games)
    try:
        for r in range(rounds):
            for way in ("gateway", "nats") if r % 2 == 0 else ("nats", "gateway"):
                done = 0
                while done < actions:
                    moves = next(played)
                    if way == "gateway":
                        guests = Guests(base)
                        game_id = await guests.start()
                        for seat, action in moves[: actions - done]:
                            started = clock()
                            await guests.act(game_id, seat, action)
                            through[way].append(clock() - started)
                        await guests.close()
                    else:
                        new = await client.create_game("chess3d")
                        tokens = {g.seat: g.token for g in new.seats}
                        for seat, action in moves[: actions - done]:
                            started = clock()
                            await client.act(new.game_id, seat, tokens[seat], action)
                            through[way].append(clock() - started)
                    done += min(len(moves), actions - done)
    finally:
        await client.close()
    for way, samples in through.items():
        print(f"  {way:8s} p50 {1e3 * statistics.median(samples):6.2f} ms   "
              f"p99 {1e3 * pct(samples, 0.99):6.2f} ms   ({len(samples)} actions)")  # fmt: skip
    g, n = through["gateway"], through["nats"]
    p50 = 1e3 * (statistics.median(g) - statistics.median(n))
    p99 = 1e3 * (pct(g, 0.99) - pct(n, 0.99))
    print(f"  added by the gateway: p50 {p50:+.2f} ms, p99 {p99:+.2f} ms")


async def sockets(bases: list[str], gateways: list[int], games: int, count: int,
                  plies: int) -> None:  # fmt: skip
    """`count` feeds over `games` games, spread over the gateways at `bases` (pids `gateways`);
    each game's players at one gateway and its feeds at every one."""
    recorded = record_games(games, plies, seed=11)
    tables = [Guests(bases[g % len(bases)]) for g in range(games)]
    ids = [await t.start() for t in tables]
    received = [0] * count
    opened = 0

    async def feed(i: int, stop: asyncio.Event) -> None:
        nonlocal opened
        game_id, base = ids[i % games], bases[(i // games) % len(bases)]
        ws_url = base.replace("http", "ws", 1)
        async with websockets.connect(f"{ws_url}/api/games/{game_id}/ws?after=0",
                                      origin=Origin(base), max_queue=None) as ws:  # fmt: skip
            opened += 1
            while not stop.is_set():
                try:
                    frame = await asyncio.wait_for(ws.recv(), 1.0)
                except TimeoutError:
                    continue
                received[i] += len(msgspec.json.decode(frame)["events"])

    stop = asyncio.Event()
    feeds = []
    for i in range(count):  # opened at a steady pace, as tabs would be
        feeds.append(asyncio.create_task(feed(i, stop)))
        if i % 50 == 49:
            await asyncio.sleep(0.05)
    while opened < count:  # noqa: ASYNC110  # a benchmark waiting for its own connections
        await asyncio.sleep(0.1)
    rss_before = [rss_mb(g) for g in gateways]
    cpu_before, own_before = [cpu_s(g) for g in gateways], time.process_time()
    started = time.perf_counter()

    async def play(t: Guests, game_id: str, moves: list[tuple[int, str]]) -> None:
        for seat, action in moves:
            await t.act(game_id, seat, action)

    await asyncio.gather(*(play(t, g, m) for t, g, m in zip(tables, ids, recorded, strict=True)))
    expected = [1 + len(m) for m in recorded]  # GameCreated, then one event per move at least
    deadline = time.perf_counter() + 30

    def waiting() -> bool:
        return any(received[i] < expected[i % games] for i in range(count))

    while time.perf_counter() < deadline and waiting():  # noqa: ASYNC110  # frames in flight
        await asyncio.sleep(0.1)
    elapsed = time.perf_counter() - started
    short = sum(received[i] < expected[i % games] for i in range(count))
    print(
        f"  {count} WebSockets over {games} games and {len(bases)} gateway(s), "
        f"{sum(len(m) for m in recorded)} actions in {elapsed:.1f} s: "
        f"{count - short} received every event, {short} fell short"
    )
    for n, (pid, rss, cpu) in enumerate(zip(gateways, rss_before, cpu_before, strict=True)):
        print(
            f"  gateway {n}: RSS {rss_mb(pid):.0f} MB (with the sockets open; {rss:.0f} MB "
            f"before play), CPU {100 * (cpu_s(pid) - cpu) / elapsed:.0f}% of a core"
        )
    print(f"  load generator CPU {100 * (time.process_time() - own_before) / elapsed:.0f}%")
    stop.set()
    await asyncio.gather(*feeds)
    for t in tables:
        await t.close()


async def main(args: argparse.Namespace) -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the sockets need descriptors
    with (
        tempfile.TemporaryDirectory() as home,
        # No limit the load could reach: rates, sign-ins, actions, feeds per player and address
        embedded_stack(
            Path(home),
            *(["--cluster"] if args.cluster else []),
            TABULA_GATEWAY_LIMITS=",".join(["10000000"] * 5),
        ) as up,  # fmt: skip
    ):
        # Each gateway serves its metrics at its own root: its base URL
        bases = sorted(url.removesuffix("/metrics") for name, url in up.stack.metrics.items()
                       if name.startswith("gateway"))  # fmt: skip
        pids = gateway_pids(up.proc.pid)
        print(f"gateways at {', '.join(bases)}, stack in {home}")
        if not args.cluster:
            print(f"added latency: {args.rounds} rounds of {args.actions} actions each way, "
                  "one at a time")  # fmt: skip
            await latency(bases[0], up.stack.nats_url, args.rounds, args.actions)
        print("concurrent WebSockets, while the games are played through the gateway:")
        await sockets(bases, pids, args.games, args.sockets, args.plies)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--sockets", type=int, default=1000)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--plies", type=int, default=40)
    parser.add_argument("--cluster", action="store_true", help="tabula up --cluster: 2 gateways")
    asyncio.run(main(parser.parse_args()))
