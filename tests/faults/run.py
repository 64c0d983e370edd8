"""`make test-faults`: bot games of every registered ruleset played through a `tabula up` stack
while its processes are killed, then a ledger check of everything the services acknowledged.

The stack is the embedded default (`tabula up` in a temporary home, two rules replicas). Bots
are paired by matchmaking at `--games` tables per ruleset and variant, then play; a table whose
game ends starts another (made by the rules service directly) until the faults are done, so
every kill strikes games in play; at every fourth table one seat is the bots service's (handed
over as the gateway hands it a house bot). Meanwhile the runner SIGKILLs a rules replica, the
randomness service, Valkey, nats-server, the archiver, PostgreSQL and the bots service, and
freezes Valkey (SIGSTOP: alive but silent, for the supervisor's health check), each `--kills`
times, one at a time, each once
the games have moved on since the stack recovered from the one before; the archiver copies
finished games and has them removed from Valkey throughout, so kills strike it mid-archive.
Every receipt the bots get is kept with its command id. Afterwards, from the stores:
- every finished game ends up in the archive alone, its Valkey keys removed (0 unarchived);
- every acknowledged command is present exactly once: its entries are exactly the versions its
  receipt names, ending in the receipt's hash (0 lost, 0 duplicated);
- every game's log passes the full audit (chain, store head, every command decided again):
  0 forked;
- every game finished and is sealed (0 stalled), within `--deadline` seconds.
For each kill it reports how long the stack took to replace the process and how long until every
game in play had moved again (the longest a game looked stalled).

With `--cluster` (`make test-cluster`) the stack is `tabula up --cluster`: a NATS cluster of 3
nodes, a Valkey cluster of 3 primaries with a replica each, and 2 of every service and of the
gateway; the faults are then, in turn, a NATS node, a Valkey primary (its replica takes over;
the supervisor restarts it, and it rejoins as a replica), a rules replica, a matchmaker, a
gateway, a randomness service and a bots instance, each SIGKILLed, with the same ledger check.

Run: .venv/bin/python -m tests.faults.run [--games 10] [--kills 3] [--kinds rules,valkey,...]
     [--cluster]
"""

import argparse
import asyncio
import os
import random
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import redis

from contracts import subjects
from contracts.commands import BotSeated, PlaySeat, Receipt
from domain.audit import audit
from services.cli.demo import quiet_nats_logs
from services.client.bot import TRANSIENT, play_seat
from services.client.client import Client, Seated, TabulaError, new_id
from services.runtime import access, bus
from services.runtime.archived import ArchiveReader
from services.runtime.bus import Requester
from services.runtime.config import StackFile
from services.runtime.eventstore import EventStore
from tests.stack import embedded_stack

TABLES = (
    ("chess3d", ""),
    ("cyvasse", "A"),
    ("cyvasse", "C+hex91"),
    ("yavoch", "decker"),
    ("yavoch", "full"),
    ("yiora", ""),
    ("yiora", "secondary_complex"),
)
KINDS = ("rules", "randomness", "valkey", "nats", "valkey-hang", "archiver", "postgres", "bots")
PROCESS = {  # a fault kind: the process it strikes (a word of its command line), the signal
    "rules": ("services.rules", signal.SIGKILL),
    "bots": ("services.bots", signal.SIGKILL),
    "archiver": ("services.archiver", signal.SIGKILL),
    "postgres": ("bin/postgres", signal.SIGKILL),
    "randomness": ("services.randomness", signal.SIGKILL),
    "valkey": ("valkey", signal.SIGKILL),
    "nats": ("nats-server", signal.SIGKILL),
    "valkey-hang": ("valkey", signal.SIGSTOP),
}
CLUSTER_KINDS = ("nats", "valkey-primary", "rules", "matchmaking", "gateway", "randomness", "bots")
PROCESS |= {
    "valkey-primary": ("valkey", signal.SIGKILL),  # a primary's pid, asked of the cluster
    "matchmaking": ("services.matchmaking", signal.SIGKILL),
    "gateway": ("services.gateway", signal.SIGKILL),
}
REPLACED_S = 90.0  # a struck process not replaced by then fails the run
SETTLED_S = 180.0  # for every finished game to be archived and out of Valkey, after the play
CREATES = 8  # tries at a new game's create, 0.2 s apart and doubling (25 s of pauses)
HOUSE_EVERY = 4  # every 4th table's seat 1 is the bots service's (level 1, as the house's)
BOTS_LEASE_S = "5"  # a killed bots instance's seats are taken up by another after this


class LedgerClient(Client):
    """A player's client that keeps every acknowledged command: (command id, receipt)."""

    ledger: list[tuple[str, Receipt]]

    async def act(self, game_id: str, seat: int, token: str, action: str, *,
                  expected_version: int | None = None, command_id: str | None = None,
                  ) -> Receipt:  # fmt: skip
        command_id = command_id or new_id()
        receipt = await super().act(
            game_id, seat, token, action, expected_version=expected_version, command_id=command_id
        )
        self.ledger.append((command_id, receipt))
        return receipt


def children(pid: int) -> dict[int, str]:
    """The processes `pid` started, with their command lines."""
    found: dict[int, str] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            try:
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
            except FileNotFoundError:
                continue
            found[int(child)] = cmdline.decode(errors="replace")
    return found


def pids_of(up: int, word: str) -> set[int]:
    return {pid for pid, cmd in children(up).items() if word in cmd}


@dataclass
class Kill:
    kind: str
    replaced_s: float  # until the supervisor had a new process running
    recovered_s: float = 0.0  # until every game in play had moved again


def primary_pid(admin_urls: str) -> int:
    """The pid of a Valkey cluster primary (the first that says so), asked as the admin."""
    for url in admin_urls.split(","):
        with redis.Redis.from_url(url) as node:
            if node.execute_command("ROLE")[0] == b"master":
                return int(node.info("server")["process_id"])
    raise RuntimeError("no Valkey primary answers")


def failed_over(admin_urls: str, dead: int) -> bool:
    """Every live node says the cluster is whole (every slot served) with 3 primaries, none
    of them the dead process."""
    primaries = 0
    for url in admin_urls.split(","):
        try:
            with redis.Redis.from_url(url, socket_timeout=1) as node:
                if int(node.info("server")["process_id"]) == dead:
                    continue
                info = node.execute_command("CLUSTER", "INFO").decode()
                if "cluster_state:ok" not in info or "cluster_slots_ok:16384" not in info:
                    return False
                primaries += node.execute_command("ROLE")[0] == b"master"
        except redis.exceptions.ConnectionError:  # the dead one, or not yet up
            continue
    return primaries == 3


@dataclass
class Run:
    up: int
    admin_redis_url: str = ""
    games: dict[str, str] = field(default_factory=dict)  # game id -> "ruleset variant"
    moved: dict[str, float] = field(default_factory=dict)  # game id -> time of its last event
    finished: set[str] = field(default_factory=set)
    kills: list[Kill] = field(default_factory=list)


async def strike(run: Run, kind: str, rng: random.Random) -> Kill:
    """One fault, then wait until the stack has replaced the process and every game still in
    play has moved again."""
    word, sig = PROCESS[kind]
    before = pids_of(run.up, word)
    loop = asyncio.get_running_loop()
    if kind == "valkey-primary":
        # The supervisor held meanwhile: a killed node it started again at once would be back
        # before the cluster noticed it gone; held, the node stays down (as if its host had
        # died) until its replica has taken over, and then rejoins as a replica.
        victim = await asyncio.to_thread(primary_pid, run.admin_redis_url)
        os.kill(run.up, signal.SIGSTOP)
        try:
            struck = loop.time()
            os.kill(victim, sig)
            async with asyncio.timeout(REPLACED_S):
                while not await asyncio.to_thread(failed_over, run.admin_redis_url, victim):  # noqa: ASYNC110
                    await asyncio.sleep(0.1)  # the cluster's own state, polled
            print(f"  {kind}: {sig.name} pid {victim}; its replica took over after "
                  f"{loop.time() - struck:.1f}s", flush=True)  # fmt: skip
        finally:
            os.kill(run.up, signal.SIGCONT)
    else:
        victim = rng.choice(sorted(before))
        struck = loop.time()
        os.kill(victim, sig)
        print(f"  {kind}: {sig.name} pid {victim}", flush=True)
    async with asyncio.timeout(REPLACED_S):
        # The process table has no event to wait on: poll it.
        while not (pids_of(run.up, word) - before) or victim in pids_of(run.up, word):  # noqa: ASYNC110
            await asyncio.sleep(0.05)
    kill = Kill(kind, loop.time() - struck)
    waiting = set(run.games) - run.finished
    async with asyncio.timeout(REPLACED_S):  # a game that never moves again fails the run
        while waiting := {g for g in waiting - run.finished if run.moved.get(g, 0) <= struck}:  # noqa: ASYNC110
            await asyncio.sleep(0.05)  # the games' progress, polled: one check for many games
    kill.recovered_s = loop.time() - struck
    print(f"    replaced in {kill.replaced_s:.1f}s, every game moving again after "
          f"{kill.recovered_s:.1f}s", flush=True)  # fmt: skip
    return kill


async def chaos(run: Run, kinds: list[str], kills: int, step: int, client: LedgerClient,
                rng: random.Random) -> None:  # fmt: skip
    """Each kind `kills` times, round robin; the next once `step` more commands were
    acknowledged since the last recovery."""
    for _ in range(kills):
        for kind in kinds:
            mark = len(client.ledger)
            while len(client.ledger) < mark + step:  # noqa: ASYNC110
                await asyncio.sleep(0.05)  # the ledger's growth, polled
            run.kills.append(await strike(run, kind, rng))


async def settle(store: EventStore, run: Run) -> set[str]:
    """Until every game of the run is in the archive alone (archived, its Valkey keys removed),
    or SETTLED_S passed: the games still in Valkey then."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SETTLED_S
    while True:
        hot = {g for g in run.games if await store.where(g) != "archive"}
        if not hot or loop.time() > deadline:
            return hot
        await asyncio.sleep(0.5)  # the archiver's progress, polled: one look at every game


async def check(store: EventStore, run: Run, ledger: list[tuple[str, Receipt]]) -> Counter[str]:
    """Lost, duplicated, forked, unsealed and unarchived counts, and the acknowledged. Each
    game is read from where it is: once settled, the archive alone."""
    counts = Counter(dict.fromkeys(("lost", "duplicated", "forked", "unsealed"), 0))
    counts["acknowledged"] = len(ledger)
    counts["unarchived"] = len(await settle(store, run))
    logs = {g: await store.read_all(g) for g in run.games}
    for game_id, stored in logs.items():
        report = audit(stored)
        if not report.ok:
            counts["forked"] += 1
            print(f"  {game_id}: audit fails: {report.failure}")
        head = await store.head(game_id)
        if head is None or not stored or head.version != stored[-1].version:
            counts["forked"] += 1
        if not stored or stored[-1].type != "GameSealed":
            counts["unsealed"] += 1
    by_command: dict[tuple[str, str], list[int]] = defaultdict(list)
    for game_id, stored in logs.items():
        for s in stored:
            by_command[game_id, s.command_id].append(s.version)
    for command_id, r in ledger:
        versions = by_command.get((r.game_id, command_id), [])
        stored = logs[r.game_id]
        if not versions:
            counts["lost"] += 1
            print(f"  lost: {r.game_id} command {command_id} (receipt v{r.version})")
        elif versions != list(range(r.first_version, r.version + 1)) or (
            stored[r.version - 1].hash != r.hash
        ):
            counts["duplicated"] += 1
            print(f"  {r.game_id} command {command_id}: receipt v{r.first_version}-{r.version},"
                  f" log has {versions}")  # fmt: skip
    return counts


async def play(stack: StackFile, run: Run, args: argparse.Namespace, home: Path) -> int:
    rng = random.Random(args.seed)
    quiet_nats_logs()  # the bus's restarts are expected here
    client = await LedgerClient.connect(stack.nats_url, timeout=2.0, retries=60)
    client.ledger = []
    # The gateway's user, which alone hands the bots service a seat (services/runtime/access.py)
    creds = access.load_or_create(home / "secrets")
    gateway = access.with_user(stack.nats_url, "gateway", creds.passwords["gateway"])
    desk = Requester(await bus.connect(gateway, max_reconnect_attempts=-1), timeout=2.0,
                     retries=60)  # fmt: skip
    loop = asyncio.get_running_loop()
    pairs = [(r, v) for r, v in TABLES for _ in range(args.games)]
    seats: list[Seated] = await asyncio.gather(*(
        client.find_match(r, v, player=f"bot-{i}-{k}") for i, (r, v) in enumerate(pairs)
        for k in (0, 1)
    ))  # fmt: skip
    tables: dict[str, list[Seated]] = defaultdict(list)
    for s in seats:
        tables[s.game_id].append(s)
    print(f"{len(tables)} games paired; playing under faults", flush=True)
    kinds = args.kinds.split(",")
    faults = asyncio.create_task(chaos(run, kinds, args.kills, args.step, client, rng))

    async def new_game(i: int) -> list[Seated]:
        """A game to keep a table busy while faults remain, made by the rules service directly
        (what the faults strike is the play, not the pairing)."""
        ruleset, variant = TABLES[i % len(TABLES)]
        for attempt in range(CREATES):
            try:
                made = await client.create_game(ruleset, variant)
                break
            except TabulaError as exc:  # its seed waits for the randomness service
                if exc.code not in TRANSIENT or attempt == CREATES - 1:
                    raise
                await asyncio.sleep(0.2 * 2**attempt)
        return [Seated(game_id=made.game_id, ruleset=ruleset, variant=variant, seat=g.seat,
                       token=g.token) for g in made.seats]  # fmt: skip

    async def table(i: int, seated: list[Seated]) -> None:
        """Games one after another at one table: the first paired, the next ones made while
        faults remain, so every kill strikes games in play however short they are. At every
        HOUSE_EVERY-th table seat 1 is handed to the bots service, as the gateway hands it a
        house bot's seat, and played there."""
        while True:
            game_id = seated[0].game_id
            run.games[game_id] = f"{seated[0].ruleset} {seated[0].variant}".strip()

            def moved(game_id: str = game_id) -> None:
                run.moved[game_id] = loop.time()

            ours = seated
            if i % HOUSE_EVERY == HOUSE_EVERY - 1:
                ours = [s for s in seated if s.seat != 1]
                house = next(s for s in seated if s.seat == 1)
                ask = PlaySeat(game_id=game_id, seat=1, token=house.token, level=1)
                await desk.request(subjects.BOTS_PLAY, ask, BotSeated)
            await asyncio.gather(*(play_seat(client, game_id, s.seat, s.token, on_event=moved,
                                             seed=args.seed + i + s.seat)
                                   for s in ours))  # fmt: skip
            run.finished.add(game_id)
            if faults.done():
                return
            i += len(tables)
            seated = await new_game(i)

    playing = [asyncio.create_task(table(i, t)) for i, t in enumerate(tables.values())]
    started = time.perf_counter()
    done, pending = await asyncio.wait(playing, timeout=args.deadline)
    for task in pending:
        task.cancel()
    if not faults.done():
        faults.cancel()
    elif faults.exception() is not None:
        done.add(faults)  # a process not replaced in time is an error of the run
    errors = [t.exception() for t in done if t.exception() is not None]
    elapsed = time.perf_counter() - started
    stalled = set(run.games) - run.finished
    await client.close()
    await desk.nc.close()

    store = EventStore.from_url(stack.admin_redis_url, archive=ArchiveReader(stack.postgres_url))
    try:
        counts = await check(store, run, client.ledger)
    finally:
        await store.close()
    counts["stalled"] = len(stalled)
    counts["bot errors"] = len(errors)
    by_kind: dict[str, list[Kill]] = defaultdict(list)
    for k in run.kills:
        by_kind[k.kind].append(k)
    print(f"\n{len(run.games)} games ({', '.join(sorted(set(run.games.values())))}) in "
          f"{elapsed:.0f}s")  # fmt: skip
    print(
        f"{'fault':<12} {'kills':>5} {'replaced (max s)':>17} {'games moving (median/max s)':>28}"
    )
    for kind in kinds:
        ks = by_kind.get(kind, [])
        if ks:
            rec = [k.recovered_s for k in ks]
            print(f"{kind:<12} {len(ks):>5} {max(k.replaced_s for k in ks):>17.1f} "
                  f"{statistics.median(rec):>18.1f} / {max(rec):.1f}")  # fmt: skip
        else:
            print(f"{kind:<12} {0:>5}")
    print(", ".join(f"{n} {what}" for what, n in counts.items()))
    for game_id in sorted(stalled):
        print(f"  stalled: {game_id} ({run.games[game_id]})")
    for exc in errors:
        print(f"  bot error: {exc!r}")
    failures = [w for w in ("lost", "duplicated", "forked", "unsealed", "unarchived", "stalled",
                            "bot errors") if counts[w]]  # fmt: skip
    short = [kind for kind in kinds if len(by_kind.get(kind, [])) < args.kills]
    if short:
        failures.append(f"too few kills of {', '.join(short)}")
    if failures:
        print("FAILED: " + "; ".join(failures))
        return 1
    print("OK: 0 lost, 0 duplicated, 0 forked, 0 unarchived, 0 stalled")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--games", type=int, default=10,
                   help="tables per ruleset and variant, each playing games until the faults "
                   "are done")  # fmt: skip
    p.add_argument("--kills", type=int, default=3, help="kills of each kind")
    p.add_argument(
        "--kinds",
        help="fault kinds, comma-separated (default: every kind of the "
        f"stack: {', '.join(KINDS)}; on a cluster {', '.join(CLUSTER_KINDS)})",
    )
    p.add_argument(
        "--cluster",
        action="store_true",
        help="run on `tabula up --cluster` (NATS and Valkey clusters, 2 of each service)",
    )
    p.add_argument("--step", type=int, default=40,
                   help="commands acknowledged between one recovery and the next kill")  # fmt: skip
    p.add_argument("--deadline", type=float, default=900.0, help="seconds for every game to end")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    known = set(PROCESS)
    args.kinds = args.kinds or ",".join(CLUSTER_KINDS if args.cluster else KINDS)
    unknown = set(args.kinds.split(",")) - known
    if unknown:
        p.error(f"unknown fault kinds {sorted(unknown)}; known: {', '.join(sorted(known))}")
    # The stack's home (logs/ of every service) is kept when the run fails, for its post-mortem,
    # and removed only once the run passed.
    home = tempfile.mkdtemp(prefix="tabula-faults-")
    up = None
    status = 1
    try:
        flags = ["--cluster"] if args.cluster else []
        with embedded_stack(Path(home), *flags, TABULA_SWEEP_S="2", TABULA_ARCHIVE_S="2",
                            TABULA_BOTS_LEASE_S=BOTS_LEASE_S) as up:  # fmt: skip
            run = Run(up.proc.pid, up.stack.admin_redis_url)
            status = asyncio.run(play(up.stack, run, args, Path(home)))
            return status
    finally:
        if up is not None:
            print("tabula up said, while the faults ran:\n" + "".join(up.output), end="")
        if status == 0:
            shutil.rmtree(home, ignore_errors=True)
        else:
            print(f"the stack's home (its logs/) is kept: {home}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
