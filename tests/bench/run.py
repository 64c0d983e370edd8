"""`make bench`: the whole stack against a bare loop, on the same load, over several rounds.

Load: pre-recorded legal 3-D Chess games (recorded before timing, so the client only sends), G
concurrent games each submitting its moves one after another; a worker whose game is over takes
the next one. A round runs three configurations: the bare loop (NATS request -> one XADD ->
reply, tests.bench.bare), the rules service with 1 replica and with 2, in an order rotated each
round. Each configuration is measured for a fixed window (default 10 s, after a warm-up) with
every process's CPU over the same window. nats-server, Valkey, the bare service and the first
rules replica are started once and kept; the second replica runs only for the 2-replica
configuration. The headline is the median over rounds of each round's ratio rules / bare. A
round during which the rest of the machine used more than BUSY % of a core is run again (at most
`rounds` times in all), since another program on these 2 cores moves the ratio more than
anything measured.
"""

import argparse
import asyncio
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import msgspec
import nats
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from prometheus_client.parser import text_string_to_metric_families

from contracts import subjects
from contracts.commands import Act
from services.client.client import Client
from services.runtime import access
from services.runtime.embedded import free_port, start_nats, start_valkey
from tests.bench.bare import SUBJECT as BARE_SUBJECT
from tests.recorded import record_games

Moves = list[tuple[int, str]]
Game = tuple[str, list[bytes]]  # the subject a game's actions go to, and each action encoded
NextGame = Callable[[], Awaitable[Game]]

RECEIPT = b'"reply":"receipt"'  # a reply that is anything else is counted as an error
LOAD = "load generator"
OTHER = "rest of the machine"
BUSY = 10  # % of one core used by the rest of the machine above which a round is run again
LABELS = {
    "bare": "bare loop (NATS+XADD)",
    "rules1": "rules, 1 replica",
    "rules2": "rules, 2 replicas",
}


def rss_mb(pid: int) -> float:
    """Resident memory of a process (VmRSS from /proc), in MB."""
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024


def cpu_seconds(pid: int) -> float:
    """User + system CPU a process has used so far (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_cpu_seconds() -> float:
    """CPU the whole machine has been busy so far, all cores (from /proc/stat)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def cpu_snapshot(procs: dict[str, int]) -> dict[str, float]:
    return {
        LOAD: time.process_time(),
        **{name: cpu_seconds(pid) for name, pid in procs.items()},
        OTHER: machine_cpu_seconds(),
    }


@dataclass
class Run:
    """One configuration's measured window in one round."""

    config: str
    requests: int
    seconds: float
    latencies_ms: list[float]
    cpu_s: dict[str, float]  # CPU seconds in the window: load generator, each process, the rest
    errors: int
    late_games: int  # games the pool lacked, created inside the window
    conflicts: int = 0  # appends the store refused for a version another replica had taken

    @property
    def rate(self) -> float:
        return self.requests / self.seconds

    def pct(self, q: int) -> float:
        return statistics.quantiles(self.latencies_ms, n=100)[q - 1]

    def share(self, name: str) -> float:
        """CPU of a process as a percentage of one core."""
        return 100 * self.cpu_s[name] / self.seconds

    def ms_per_move(self, *names: str) -> float:
        """CPU of these processes per move answered, in ms."""
        return 1000 * sum(self.cpu_s[n] for n in names) / self.requests


def spread(values: list[float], fmt: str) -> str:
    """The median, with the min-max over rounds when there is more than one."""
    med = format(statistics.median(values), fmt)
    if len(values) == 1:
        return med
    return f"{med} ({format(min(values), fmt)}-{format(max(values), fmt)})"


def start(module: str, nats_url: str, redis_url: str, log: Path,
          metrics_port: int = 0) -> subprocess.Popen[bytes]:  # fmt: skip
    env = {
        **os.environ,
        "NATS_URL": nats_url,
        "REDIS_URL": redis_url,
        "TABULA_LOG_LEVEL": "warning",
        "TABULA_SECRET": "bench",
        "TABULA_METRICS_PORT": str(metrics_port),
    }
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-m", module], env=env, stdout=out, stderr=out)


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    proc.wait()


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

    async def on_pong(msg: Msg) -> None:
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


def encode_game(game_id: str, tokens: list[str], moves: Moves) -> Game:
    enc = msgspec.json.Encoder()
    return subjects.rules_act(game_id), [
        enc.encode(
            Act(
                game_id=game_id,
                seat=seat,
                token=tokens[seat],
                command_id=uuid.uuid4().hex,
                action=move,
            )
        )
        for seat, move in moves
    ]


def scrape(url: str, name: str) -> list[tuple[dict[str, str], float]]:
    """A metric's samples on a process's /metrics page at `url`: (labels, value)."""
    with urllib.request.urlopen(url, timeout=10) as reply:
        text = reply.read().decode()
    return [(sample.labels, sample.value) for family in text_string_to_metric_families(text)
            for sample in family.samples if sample.name == name]  # fmt: skip


def conflicts(url: str) -> int:
    """The replica's appends refused for a version another had taken, since it started."""
    return int(sum(value for _, value in scrape(url, "tabula_append_conflicts_total")))


async def settled(urls: list[str]) -> None:
    """Until the replicas whose metrics are at `urls` serve equal shares of the games'
    partitions and none still serves one it offered (services.rules.partitions): settled, each
    game's actions reach one replica during a window."""
    async with asyncio.timeout(30):
        while True:
            held, offered = [], 0.0
            for url in urls:
                states = {labels["state"]: value
                          for labels, value in scrape(url, "tabula_rules_partitions")}  # fmt: skip
                held.append(states.get("held", 0.0))
                offered += states.get("offered", 0.0)
            if not offered and sum(held) == subjects.ACT_PARTITIONS and max(held) - min(held) <= 1:
                return
            await asyncio.sleep(0.1)  # polling the replicas' ticks; the exit is the count


class RulesGames:
    """Fresh games on the rules service, created before a run; each is played once."""

    def __init__(self, client: Client, recorded: list[Moves]) -> None:
        self.client = client
        self.recorded = recorded
        self.made = 0
        self.pool: list[Game] = []
        self.late = 0  # games created during a run because the pool ran out

    async def create(self) -> Game:
        moves = self.recorded[self.made % len(self.recorded)]
        self.made += 1
        created = await self.client.create_game("chess3d")
        return encode_game(created.game_id, [s.token for s in created.seats], moves)

    async def fill(self, count: int) -> None:
        sem = asyncio.Semaphore(100)

        async def one() -> Game:
            async with sem:
                return await self.create()

        self.pool = list(await asyncio.gather(*(one() for _ in range(count))))
        self.late = 0

    async def next(self) -> Game:
        if self.pool:
            return self.pool.pop()
        self.late += 1
        return await self.create()


def bare_games(recorded: list[Moves], games: int) -> NextGame:
    """The bare loop keeps no state: the same encoded games, over and over."""
    tokens = ["00", "00"]  # any token the contract accepts: the bare loop checks none
    plans = [encode_game(f"bare-{g}", tokens, recorded[g % len(recorded)]) for g in range(games)]
    cycle = itertools.cycle(plans)

    async def next_game() -> Game:
        return BARE_SUBJECT, next(cycle)[1]

    return next_game


async def drive(
    config: str,
    nc: NATS,
    next_game: NextGame,
    workers: int,
    procs: dict[str, int],
    warmup: float,
    seconds: float,
) -> Run:
    """`workers` games at a time, each worker taking the next game when its game is over.

    The load runs `warmup` seconds, then is measured for `seconds`: the requests completed in
    that window, their latencies, and every process's CPU from the window's start to its end.
    """
    done: list[tuple[float, float]] = []  # (completed at, latency in ms)
    errors = 0
    running = True

    async def worker() -> None:
        nonlocal errors
        while running:
            subject, requests = await next_game()
            for data in requests:
                if not running:
                    return
                sent = time.perf_counter()
                msg = await nc.request(subject, data, timeout=30)
                now = time.perf_counter()
                if RECEIPT not in msg.data[:40]:
                    errors += 1
                    break  # the rest of this game would be refused: take the next one
                done.append((now, (now - sent) * 1000))

    tasks = [asyncio.create_task(worker()) for _ in range(workers)]
    await asyncio.sleep(warmup)
    before, t0 = cpu_snapshot(procs), time.perf_counter()
    await asyncio.sleep(seconds)
    after, t1 = cpu_snapshot(procs), time.perf_counter()
    running = False
    await asyncio.gather(*tasks)

    cpu = {name: after[name] - before[name] for name in before}
    cpu[OTHER] = max(0.0, cpu[OTHER] - sum(v for k, v in cpu.items() if k != OTHER))
    latencies = [ms for at, ms in done if t0 <= at <= t1]
    if len(latencies) < 2:
        raise RuntimeError(f"{config}: {len(latencies)} receipts in the window, {errors} errors")
    return Run(config, len(latencies), t1 - t0, latencies, cpu, errors, 0)


def report(runs: list[Run], rounds: int, workers: int, warmup: float, seconds: float) -> None:
    print(
        f"\n{workers} concurrent games; {rounds} round{'s' * (rounds > 1)}, each configuration "
        f"measured {seconds:.0f} s per round after {warmup:.0f} s of warm-up, order rotated; "
        "median (min-max) over rounds:"
    )
    for config, label in LABELS.items():
        mine = [r for r in runs if r.config == config]
        print(
            f"  {label:<22} {spread([r.rate for r in mine], ',.0f'):>24} moves/s  "
            f"p50 {spread([r.pct(50) for r in mine], '.1f')} ms  "
            f"p99 {spread([r.pct(99) for r in mine], '.1f')} ms"
        )
        cpu = ", ".join(
            f"{name} {statistics.median(r.share(name) for r in mine):.0f}%"
            for name in mine[0].cpu_s
        )
        print(f"  {'':<22} CPU, % of one core: {cpu}")
        if errors := sum(r.errors for r in mine):
            print(f"  {'':<22} {errors} replies were errors, not receipts")
        if late := sum(r.late_games for r in mine):
            print(f"  {'':<22} {late} games created inside the measured windows (pool too small)")
        served = [n for n in mine[0].cpu_s if n.startswith(("rules", "bare"))]
        per_move = spread([r.ms_per_move(*served) for r in mine], ".3f")
        print(
            f"  {'':<22} CPU per move of {' + '.join(served)}: {per_move} ms"
            + (f"; conflicts {sum(r.conflicts for r in mine)}" if config != "bare" else "")
        )
    bare = [r for r in runs if r.config == "bare"]
    for config in ("rules1", "rules2"):
        mine = [r for r in runs if r.config == config]
        ratios = [r.rate / b.rate for r, b in zip(mine, bare, strict=True)]
        print(
            f"  ratio {LABELS[config]} / bare loop: {spread(ratios, '.2f')} "
            f"over {len(ratios)} round{'s' * (len(ratios) > 1)} (target >= 0.5)"
        )
    one, two = ([r for r in runs if r.config == c] for c in ("rules1", "rules2"))
    ratios = [b.rate / a.rate for a, b in zip(one, two, strict=True)]
    conflicts = sum(r.conflicts for r in two)
    print(
        f"  2 replicas / 1 (game affinity): {spread(ratios, '.2f')} (target >= 0.95); "
        f"conflicts between the replicas {conflicts} (target 0)"
    )


async def bench(
    games: int,
    plies: int,
    rounds: int,
    seconds: float,
    warmup: float,
    open_games: int,
    workdir: Path,
) -> None:
    print(f"recording {min(games, 40)} legal games of up to {plies} plies ...", flush=True)
    recorded = record_games(min(games, 40), plies, seed=1)
    mean_plies = statistics.mean(len(m) for m in recorded)
    # Closed servers, as `tabula up` runs them: every process as its own user.
    creds = access.load_or_create(workdir)
    nats_conf, acl = access.write_server_files(workdir, creds)
    nats_server = start_nats(workdir, nats_conf)
    valkey = start_valkey(None if os.environ.get("BENCH_NO_AOF") else workdir / "redis", acl=acl)

    def nats_as(role: str) -> str:
        return access.with_user(nats_server.url, role, creds.passwords[role])

    def redis_as(role: str) -> str:
        return access.with_user(valkey.url, role, creds.passwords[role])

    ports = [free_port(), free_port()]  # each replica's metrics: its conflicts

    def start_rules(name: str, port: int) -> subprocess.Popen[bytes]:
        log = workdir / f"{name}.log"
        return start("services.rules", nats_as("rules"), redis_as("rules"), log, port)

    nu = nats_as("admin")  # the operator's: $SRV pings and the bare loop's subject
    client = await Client.connect(nats_as("player"), timeout=30)
    operator = await Client.connect(nu, timeout=30)
    servers = {"nats": nats_server.proc.pid, "valkey": valkey.proc.pid}
    bare = start("tests.bench.bare", nu, redis_as("admin"), workdir / "bare.log")
    first = start_rules("rules-a", ports[0])
    try:
        await wait_service(nu, "tabula-bench-bare")
        await wait_replicas(nu, 1)
        pool = RulesGames(client, recorded)
        next_bare = bare_games(recorded, games)

        # Calibration: a short rules run sizes the pool of fresh games each rules run needs.
        await pool.fill(games * 4)
        calibration = await drive("rules1", client.nc, pool.next, games, {}, 1.0, 2.0)
        best = calibration.rate
        print(f"calibration: rules, 1 replica, about {best:,.0f} moves/s", flush=True)

        async def measure(config: str, n: int) -> Run:
            nonlocal best
            if config == "bare":
                procs = {"bare service": bare.pid, **servers}
                return await drive(config, operator.nc, next_bare, games, procs, warmup, seconds)
            second = start_rules(f"rules-b-{n}", ports[1]) if config == "rules2" else None
            try:
                if second is None:
                    procs = {"rules": first.pid, **servers}
                else:
                    await wait_replicas(nu, 2)
                    procs = {"rules A": first.pid, "rules B": second.pid, **servers}
                scraped = [f"http://127.0.0.1:{p}/metrics" for p in ports[: 2 if second else 1]]
                await settled(scraped)
                await pool.fill(int(1.5 * best * (warmup + seconds + 1) / mean_plies + games))
                before = sum(map(conflicts, scraped))
                run = await drive(config, client.nc, pool.next, games, procs, warmup, seconds)
                run.conflicts = sum(map(conflicts, scraped)) - before
            finally:
                if second is not None:
                    stop(second)
            run.late_games = pool.late
            best = max(best, run.rate)
            return run

        # A round during which the rest of the machine was busy (some other program on these
        # cores) is run again, at most `rounds` times in all.
        runs: list[Run] = []
        configs = list(LABELS)
        repeated = 0
        while len(runs) < 3 * rounds:
            n = len(runs) // 3
            this = {c: await measure(c, n) for c in configs[n % 3 :] + configs[: n % 3]}
            rates = ", ".join(f"{c} {this[c].rate:,.0f}/s" for c in configs)
            ratios = " / ".join(f"{this[c].rate / this['bare'].rate:.2f}" for c in configs[1:])
            line = f"round {n + 1}/{rounds}: {rates}; ratios {ratios}"
            busy = ", ".join(
                f"{c} {r.share(OTHER):.0f}%" for c, r in this.items() if r.share(OTHER) > BUSY
            )
            if busy and repeated < rounds:
                repeated += 1
                print(f"{line}\n  run again: the {OTHER} was busy ({busy} of a core)", flush=True)
                continue
            if busy:
                line += f"\n  kept, no repeats left: the {OTHER} was busy ({busy} of a core)"
            print(line, flush=True)
            runs += [this[c] for c in configs]
        if repeated:
            print(f"{repeated} round{'s' * (repeated > 1)} run again (the machine was busy)")
        report(runs, rounds, games, warmup, seconds)

        if open_games:
            # A fresh replica, as the one-shot bench had: `games` games played, then many open.
            stop(first)
            first = start_rules("rules-rss", ports[0])
            await wait_replicas(nu, 1)
            print(f"\nopening {open_games} games in one fresh replica ...", flush=True)
            await pool.fill(games)

            async def play(requests: list[bytes]) -> None:
                for data in requests:
                    await client.nc.request(subjects.RULES_ACT, data, timeout=30)  # any replica

            await asyncio.gather(*(play(requests) for _, requests in pool.pool))
            sem = asyncio.Semaphore(200)

            async def open_one(i: int) -> None:
                async with sem:
                    created = await client.create_game("chess3d")
                    tokens = [s.token for s in created.seats]
                    for seat, move in recorded[i % len(recorded)][:4]:
                        await client.act(created.game_id, seat, tokens[seat], move)

            await asyncio.gather(*(open_one(i) for i in range(open_games)))
            rss = rss_mb(first.pid)
            print(
                f"  rules replica RSS with {open_games + games} games cached "
                f"({games} of {plies} plies, {open_games} of 4): {rss:.0f} MB (target < 500 MB)"
            )
    finally:
        stop(bare)
        stop(first)
        await client.close()
        await operator.close()
        nats_server.stop()
        valkey.stop()

    from tests.bench.adjudication import main as adjudication
    from tests.bench.bots import main as bots
    from tests.bench.cyvasse import main as cyvasse
    from tests.bench.signing import main as signing
    from tests.bench.yavoch import main as yavoch

    print("\n3-D Chess adjudication (decide + evolve + end-of-game checks), in process:")
    adjudication([])
    print("\nCyvasse adjudication, in process:")
    cyvasse()
    print("\nYavoch adjudication, in process:")
    yavoch()
    print("\nYiora and Spacewar adjudication over bot games, in process:")
    bots()
    print("\nSigned receipts (Ed25519), in process:")
    signing()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--games", type=int, default=100, help="concurrent games")
    p.add_argument("--plies", type=int, default=80, help="plies per recorded game")
    p.add_argument("--rounds", type=int, default=3, help="rounds of the three configurations")
    p.add_argument("--seconds", type=float, default=10, help="measured load per configuration")
    p.add_argument("--warmup", type=float, default=2, help="unmeasured load before each window")
    p.add_argument("--open-games", type=int, default=10_000, help="games for the RSS check")
    args = p.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tabula-bench-") as tmp:
        asyncio.run(
            bench(
                args.games,
                args.plies,
                args.rounds,
                args.seconds,
                args.warmup,
                args.open_games,
                Path(tmp),
            )
        )
    print(f"\nbench took {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
