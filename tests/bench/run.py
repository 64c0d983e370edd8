"""`make bench`: the whole stack against a bare loop, in one run, on the same load.

Load: pre-recorded legal 3-D Chess games (recorded before timing, so the client only sends),
G concurrent games each submitting its moves one after another. Figures are ratios within
this run; the load generator's own CPU is reported beside them.
"""

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import msgspec
import nats

from contracts import subjects
from contracts.commands import Act
from services.client.client import Client
from services.runtime import access
from services.runtime.embedded import start_nats, start_valkey
from tests.bench.bare import SUBJECT as BARE_SUBJECT
from tests.recorded import record_games


def rss_mb(pid: int) -> float:
    """Resident memory of a process (VmRSS from /proc), in MB."""
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024


def cpu_seconds(pid: int) -> float:
    """User + system CPU a process has used so far (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Run:
    name: str
    requests: int
    seconds: float
    latencies_ms: list[float]
    client_cpu_s: float
    server_cpu: dict[str, float]  # CPU seconds of each server process during the run

    @property
    def rate(self) -> float:
        return self.requests / self.seconds

    def pct(self, q: float) -> float:
        return statistics.quantiles(self.latencies_ms, n=100)[int(q) - 1]

    def line(self) -> str:
        cpu = ", ".join(
            f"{k} {100 * v / self.seconds:.0f}%"
            for k, v in {"load generator": self.client_cpu_s, **self.server_cpu}.items()
        )
        return (
            f"{self.name:<28} {self.rate:>7.0f}/s  p50 {self.pct(50):6.2f} ms  "
            f"p99 {self.pct(99):6.2f} ms  in {self.seconds:4.1f} s; CPU of one core: {cpu}"
        )


def start(module: str, nats_url: str, redis_url: str, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "NATS_URL": nats_url,
        "REDIS_URL": redis_url,
        "TABULA_LOG_LEVEL": "warning",
        "TABULA_SECRET": "bench",
    }
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-m", module], env=env, stdout=out, stderr=out)


async def wait_service(nats_url: str, name: str) -> None:
    nc = await nats.connect(nats_url)
    try:
        async with asyncio.timeout(30):
            while True:
                try:
                    await nc.request(f"$SRV.PING.{name}", b"", timeout=0.5)
                    return
                except (nats.errors.TimeoutError, nats.errors.NoRespondersError):
                    await asyncio.sleep(0.1)  # poll while the process boots
    finally:
        await nc.close()


async def wait_replicas(nats_url: str, count: int) -> None:
    """Until `count` distinct rules instances answer $SRV.PING (polled, bounded)."""
    nc = await nats.connect(nats_url)
    seen: set[str] = set()
    inbox = nc.new_inbox()

    async def on_pong(msg: nats.aio.msg.Msg) -> None:
        if msg.data:  # an empty message is the server's "no responders" status
            seen.add(msgspec.json.decode(msg.data)["id"])

    sub = await nc.subscribe(inbox, cb=on_pong)
    try:
        async with asyncio.timeout(30):
            while len(seen) < count:
                await nc.publish(f"$SRV.PING.{subjects.RULES_SERVICE}", b"", reply=inbox)
                await asyncio.sleep(0.1)  # poll interval; the exit condition is the count
    finally:
        await sub.unsubscribe()
        await nc.close()


async def drive(
    name: str, client: Client, plans: list[tuple[str, list[bytes]]], procs: dict[str, int]
) -> Run:
    """Each plan is one game: its pre-encoded requests, sent one after another."""
    latencies: list[float] = []

    async def game(subject: str, requests: list[bytes]) -> None:
        for data in requests:
            t = time.perf_counter()
            await client.nc.request(subject, data, timeout=30)
            latencies.append((time.perf_counter() - t) * 1000)

    before = {k: cpu_seconds(pid) for k, pid in procs.items()}
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(game(s, r) for s, r in plans))
    return Run(
        name,
        len(latencies),
        time.perf_counter() - wall,
        latencies,
        time.process_time() - cpu,
        {k: cpu_seconds(pid) - before[k] for k, pid in procs.items()},
    )


async def bench(games: int, plies: int, rounds: int, open_games: int, workdir: Path) -> None:
    print(f"recording {min(games, 40)} legal games of up to {plies} plies ...", flush=True)
    recorded = record_games(min(games, 40), plies, seed=1)
    # Closed servers, as `tabula up` runs them: every process as its own user.
    creds = access.load_or_create(workdir)
    nats_conf, acl = access.write_server_files(workdir, creds)
    nats_server = start_nats(workdir, nats_conf)
    valkey = start_valkey(None if os.environ.get("BENCH_NO_AOF") else workdir / "redis", acl=acl)

    def nats_as(role: str) -> str:
        return access.with_user(nats_server.url, role, creds.passwords[role])

    def redis_as(role: str) -> str:
        return access.with_user(valkey.url, role, creds.passwords[role])

    nu = nats_as("admin")  # the operator's: $SRV pings and the bare loop's subject
    client = await Client.connect(nats_as("player"), timeout=30)
    operator = await Client.connect(nu, timeout=30)
    enc = msgspec.json.Encoder()
    results: list[Run] = []
    try:
        bare = start("tests.bench.bare", nu, redis_as("admin"), workdir / "bare.log")
        await wait_service(nu, "tabula-bench-bare")
        plans = []
        for g in range(games):
            moves = recorded[g % len(recorded)] * rounds
            plans.append(
                (
                    BARE_SUBJECT,
                    [
                        enc.encode(
                            Act(
                                game_id=f"bare-{g}",
                                seat=s,
                                token="t",
                                command_id=uuid.uuid4().hex,
                                action=m,
                            )
                        )
                        for s, m in moves
                    ],
                )
            )
        servers = {"nats": nats_server.proc.pid, "valkey": valkey.proc.pid}
        results.append(
            await drive("bare loop (NATS+XADD)", operator, plans, {"service": bare.pid, **servers})
        )
        bare.terminate()
        bare.wait()

        rules = None
        for replicas in (1, 2):
            procs = [
                start(
                    "services.rules",
                    nats_as("rules"),
                    redis_as("rules"),
                    workdir / f"rules-{replicas}-{i}.log",
                )
                for i in range(replicas)
            ]
            await wait_replicas(nu, replicas)
            plans = []
            for g in range(games):
                moves = recorded[g % len(recorded)]
                created = await client.create_game("chess3d")
                tokens = [s.token for s in created.seats]
                plans.append(
                    (
                        subjects.RULES_ACT,
                        [
                            enc.encode(
                                Act(
                                    game_id=created.game_id,
                                    seat=s,
                                    token=tokens[s],
                                    command_id=uuid.uuid4().hex,
                                    action=m,
                                )
                            )
                            for s, m in moves
                        ],
                    )
                )
            label = f"rules, {replicas} replica{'s' * (replicas > 1)} (full stack)"
            results.append(
                await drive(
                    label,
                    client,
                    plans,
                    {**{f"rules{i}": p.pid for i, p in enumerate(procs)}, **servers},
                )
            )
            if replicas == 1:
                rules = procs[0]  # kept for the memory check
            else:
                for p in procs:
                    p.terminate()
                    p.wait()
        print(f"\n{games} concurrent games, {results[-1].requests} adjudicated moves a run:")
        for r in results:
            print("  " + r.line())
        for r in results[1:]:
            print(f"  ratio {r.name} / bare loop: {r.rate / results[0].rate:.2f} (target >= 0.5)")
        assert rules is not None

        if open_games:
            print(f"\nopening {open_games} games in one replica ...", flush=True)
            sem = asyncio.Semaphore(200)

            async def open_one(i: int) -> None:
                async with sem:
                    created = await client.create_game("chess3d")
                    tokens = [s.token for s in created.seats]
                    for seat, move in recorded[i % len(recorded)][:4]:
                        await client.act(created.game_id, seat, tokens[seat], move)

            await asyncio.gather(*(open_one(i) for i in range(open_games)))
            rss = rss_mb(rules.pid)
            print(
                f"  rules replica RSS with {open_games + games} games cached "
                f"(4 plies each): {rss:.0f} MB (target < 500 MB)"
            )
        rules.terminate()
        rules.wait()
    finally:
        await client.close()
        await operator.close()
        nats_server.stop()
        valkey.stop()

    from tests.bench.adjudication import main as adjudication
    from tests.bench.cyvasse import main as cyvasse
    from tests.bench.signing import main as signing
    from tests.bench.yavoch import main as yavoch

    print("\n3-D Chess adjudication (decide + evolve + end-of-game checks), in process:")
    adjudication([])
    print("\nCyvasse adjudication, in process:")
    cyvasse()
    print("\nYavoch adjudication, in process:")
    yavoch()
    print("\nSigned receipts (Ed25519), in process:")
    signing()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--games", type=int, default=100, help="concurrent games")
    p.add_argument("--plies", type=int, default=80, help="plies per recorded game")
    p.add_argument("--rounds", type=int, default=1, help="repeat each game in the bare loop")
    p.add_argument("--open-games", type=int, default=10_000, help="games for the RSS check")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="tabula-bench-") as tmp:
        asyncio.run(bench(args.games, args.plies, args.rounds, args.open_games, Path(tmp)))


if __name__ == "__main__":
    main()
