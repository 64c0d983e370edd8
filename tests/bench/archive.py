"""`make bench-archive`: issue 21's figures, against ONE embedded stack (`tabula up` in a
temporary home, the archiver sweeping every 2 s besides archiving each game on its GameSealed
notice). Not a test: it prints a report, then a summary block for the README.

Phases, in this order (`--phases`):
- full: N finished games (`--games`, default 1,000) of mixed rulesets and variants (TABLES),
  each created by the rules service and played to its end by the bots of
  services.client.bot.play_seat, `--concurrency` games at a time. Every second: Valkey's
  `used_memory` (INFO memory, as admin) and the archive backlog (games in the games index whose
  meta says sealed: sealed, still hot). Then it waits until every game is in the archive alone
  (its keys removed, `EventStore.where == "archive"`). The baseline is taken after `--warmup`
  games were played and archived (Valkey's once-only costs: connection pools, scripts).
  Reported: used_memory before / after and (after - before) / N, the bytes a finished game
  leaves in Valkey once archived, with the tombstone metas' share (their count and MEMORY
  USAGE), MEMORY USAGE summed over every key before and after (what the keys hold, apart from
  Valkey's own memory), MEMORY STATS's changes; the backlog's max and median; wall
  time, games/s, commands/s. Per ruleset and variant: PostgreSQL's bytes per archived game
  (the row, its TOASTed log and command ids, and a share of the indexes), the packed
  payload's raw (msgpack, uncompressed) size, and the Valkey bytes the game took while hot:
  MEMORY USAGE (SAMPLES 0) summed over its keys in one MULTI the moment its GameSealed notice
  arrives, kept only when that MULTI saw the meta sealed and not yet archived (the archiver
  hears the same notice, then reads, writes PostgreSQL and asks the rules service to remove the
  keys: milliseconds later). A process of its own does it (hot_sampler), so that the bots'
  CPU does not delay it; the games it missed are counted.
- read: K games of the full phase, several rulesets (`--read-sample`), each read whole from the
  archive (EventStore(archive=...).read_all of a game only in the archive, the reader's cache
  cleared before each read, so PostgreSQL is measured) and from Valkey, then replayed
  (codec.decode_log + table.fold) from each. The Valkey copy is the game's archived log
  imported (EventStore.import_log, the stored bytes exactly) into a second Valkey server started
  here with the stack's settings (AOF, fsync always): in the stack's own Valkey an imported
  sealed game would be archived again and removed by the next sweep within 2 s, and a game's
  id is refused while its tombstone stands. Sources alternate, repeated `--read-reps` times;
  per game the median of each, reported as ratios archive / Valkey.
- flat: M short games (`--flat-games`, default 20,000), each created by the rules service
  (ruleset and variant round robin), its fair-play steps done by the bots, then 0-4 random
  legal actions and a resignation, `--flat-concurrency` at a time. used_memory sampled every
  `--flat-sample` games finished: first, max, last; the hot games (games index) and the
  backlog at each sample; the keys in Valkey at the end.

- throughput: what the archiver (and the removals it asks of the rules service) costs the rules
  service's throughput, under each load of `--ab-load`: "recorded", make bench's load (recorded
  3-D Chess games of 80 plies sent move by move, so the load generator chooses nothing, then
  resigned so that they end and are archived: the issue's figure); "full", the full phase's
  games played to their end by the bots (their choices cost the load generator as much as the
  stack's rules service); and "short", the flat phase's short games (they seal, and so are
  archived, at the highest rate per command: the archiver's worst case). `--ab-concurrency`
  games at a time, games started as games end, the same games in every window (so that A and B
  differ by the archiver, not by the mix). Each window: `--ab-warmup` s of load, then
  `--ab-seconds` s measured: receipts (creates and actions acknowledged, each checked) per
  second, and every process's CPU over the window. A: the archiver running; B: the archiver
  frozen (SIGSTOP on its pid, found among `tabula up`'s children by "services.archiver", before
  the warm-up; SIGCONT once the window's games have ended). After each window, until the backlog
  is archived, so each starts from the same state. `--ab-rounds` rounds, order ABBA; a round
  during which the rest of the machine used more than `--ab-busy` % of a core is run again (at
  most `--ab-rounds` times), as in `make bench`. Reported per round: the rates, A/B, the rules
  service's CPU per receipt; the median A/B (target >= 0.95); the backlog's max during the A
  windows (sampled every second; in B once, at the end of the window: the scan grows with the
  backlog); the load generator's CPU share and the rest of the machine's.

The read phase runs before the flat one, so that it measures a quiet stack. The throughput
phase runs last: it leaves thousands of games' tombstones (15 min TTL) that would move the
flat phase's used_memory, and it measures ratios within itself. CPU over each played phase:
this process (the load generator) and each of the stack's.

Run: .venv/bin/python -m tests.bench.archive [--games 1000] [--flat-games 20000] ...
Smoke (about two minutes): .venv/bin/python -m tests.bench.archive --games 40 --flat-games 400
    --flat-sample 100 --read-sample 5 --ab-seconds 10 --ab-rounds 1
"""

import argparse
import asyncio
import contextlib
import itertools
import multiprocessing
import os
import random
import signal
import statistics
import tempfile
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import psycopg

from contracts import subjects
from contracts.commands import Receipt
from domain.core import table as tables
from domain.core.ruleset import Rejection, Ruleset
from services.cli.demo import quiet_nats_logs
from services.client.bot import NON_MOVES, TRANSIENT, BotResult, play_seat
from services.client.client import Client, NewGame, TabulaError
from services.runtime.archived import ArchiveReader
from services.runtime.codec import decode_log
from services.runtime.embedded import start_valkey
from services.runtime.eventstore import EventStore, connect
from services.runtime.keys import (
    GAMES_INDEX,
    commands_key,
    drawn_key,
    log_key,
    meta_key,
    secret_key,
    seed_key,
)
from tests.bench.run import machine_cpu_seconds
from tests.faults.run import pids_of
from tests.recorded import record_games
from tests.stack import embedded_stack

# Ruleset and variant of the games, round robin. Random bots rarely end a Spacewar game: the
# turn limit (SW-8.4, HA-8.4) bounds them, as in `make test-long`.
TABLES = (
    ("chess3d", ""),
    ("cyvasse", "A"),
    ("cyvasse", "C+hex91"),
    ("yavoch", "decker"),
    ("yavoch", "full"),
    ("yiora", "primary"),
    ("yiora", "secondary_basic"),  # four seats
    ("yiora", "secondary_complex"),
    ("spacewar", "turn_limit=20"),
    ("spacewar-ha", "turn_limit=100"),
)
RECORDED_PLIES = 80  # as make bench records them
CREATES = 8  # tries at a create, 0.2 s apart and doubling (its seed waits for randomness)
KB = 1024
_type = msgspec.json.Decoder(dict[str, Any])


def label(ruleset: str, variant: str) -> str:
    return f"{ruleset} {variant}".strip()


# -- CPU of the bench and of the stack's processes ---------------------------------------------

STACK_PARTS = (  # a word of a process's command line -> the name it is reported under
    ("services.rules", "rules"),
    ("services.archiver", "archiver"),
    ("services.projector", "projector"),
    ("services.randomness", "randomness"),
    ("services.matchmaking", "matchmaking"),
    ("services.gateway", "gateway"),
    ("valkey", "valkey"),
    ("nats-server", "nats"),
    ("postgres", "postgres"),
)


def _stat(pid: int) -> tuple[float, list[int]]:
    """A process's CPU so far (its own, and its exited children's) and its children."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids += [int(c) for c in (task / "children").read_text().split()]
    return ticks / os.sysconf("SC_CLK_TCK"), kids


def stack_cpu(root: int) -> dict[str, float]:
    """CPU seconds so far of every process under `tabula up`, grouped by what it runs."""
    out: defaultdict[str, float] = defaultdict(float)
    todo = [root]
    while todo:
        pid = todo.pop()
        try:
            seconds, kids = _stat(pid)
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (FileNotFoundError, ProcessLookupError):
            continue
        name = next((n for word, n in STACK_PARTS if word in cmd), "supervisor")
        out[name] += seconds
        todo += kids
    return dict(out)


@dataclass
class Cpu:
    """CPU over one phase: the bench process (the load generator) and the stack's."""

    root: int
    start: float = 0.0
    bench0: float = 0.0
    stack0: dict[str, float] = field(default_factory=dict)

    def begin(self) -> "Cpu":
        self.start, self.bench0, self.stack0 = time.perf_counter(), time.process_time(), \
            stack_cpu(self.root)  # fmt: skip
        return self

    def spent(self) -> tuple[float, float, dict[str, float]]:
        """Since begin(): wall seconds, the bench's CPU seconds, each stack part's."""
        wall = time.perf_counter() - self.start
        now = stack_cpu(self.root)
        parts = {k: now.get(k, 0.0) - self.stack0.get(k, 0.0) for k in now}
        return wall, time.process_time() - self.bench0, parts

    def line(self) -> str:
        wall, bench, parts = self.spent()
        stack = sum(parts.values())
        each = ", ".join(f"{k} {100 * v / wall:.0f}%"
                         for k, v in sorted(parts.items(), key=lambda kv: -kv[1])
                         if 100 * v / wall >= 1)  # fmt: skip
        return (f"CPU, % of one core over {wall:.0f} s: bench (load generator) "
                f"{100 * bench / wall:.0f}%, stack {100 * stack / wall:.0f}% ({each})")  # fmt: skip


# -- Valkey as admin ---------------------------------------------------------------------------


async def used_memory(admin: Any) -> tuple[int, int]:
    info = await admin.info("memory")
    return int(info["used_memory"]), int(info["used_memory_dataset"])


async def memory_stats(admin: Any) -> dict[str, int]:
    """MEMORY STATS's byte counts (allocator bytes by what holds them), INFO's
    lazyfree_pending_objects and connected_clients."""
    stats = await admin.memory_stats()
    out = {str(k): int(v) for k, v in stats.items() if isinstance(v, int)}
    info = await admin.info()
    out["lazyfree_pending_objects"] = int(info.get("lazyfree_pending_objects", 0))
    out["connected_clients"] = int(info["connected_clients"])
    out["slowlog.len"] = int(await admin.execute_command("SLOWLOG", "LEN"))
    return out


def memory_changes(before: dict[str, int], after: dict[str, int]) -> str:
    """What changed between two MEMORY STATS, largest first (changes under 1 KB left out but
    for the counts)."""
    counts = ("keys.count", "connected_clients", "lazyfree_pending_objects", "slowlog.len")
    changed = [(k, after.get(k, 0) - before.get(k, 0)) for k in sorted(set(before) | set(after))
               if not k.startswith(("peak.", "dataset.percentage", "keys.bytes-per-key",
                                    "fragmentation", "allocator", "rss-"))]  # fmt: skip
    shown = [(k, d) for k, d in changed if k in counts or abs(d) >= 1024]
    shown.sort(key=lambda kd: (kd[0] in counts, -abs(kd[1])))
    return ", ".join(f"{k} {d:+,}" for k, d in shown)


async def index_counts(admin: Any) -> tuple[int, int]:
    """Games in the games index (hot: in play, or sealed and not yet removed), and how many of
    them are sealed (the archive backlog)."""
    hot = sealed = 0
    start = 0
    while ids := await admin.zrange(GAMES_INDEX, start, start + 999):
        pipe = admin.pipeline(transaction=False)
        for game_id in ids:
            pipe.hget(meta_key(game_id.decode()), "sealed")
        flags = await pipe.execute()
        hot += len(ids)
        sealed += sum(f == b"1" for f in flags)
        start += 1000
    return hot, sealed


@dataclass
class Keys:
    """Every key in Valkey with its MEMORY USAGE (SAMPLES 0), and the tombstone metas among
    them (meta `archived`), those of `ours` counted apart."""

    count: int = 0
    bytes: int = 0
    stones: int = 0
    stone_bytes: int = 0
    ours: int = 0


def _game_meta(key: bytes) -> bool:
    return key.startswith(b"tabula:game:{") and key.endswith(b"}:meta")


async def tombstones(admin: Any, ours: set[str]) -> Keys:
    found = Keys()
    keys = [k async for k in admin.scan_iter(count=1000)]
    for start in range(0, len(keys), 500):
        page = keys[start : start + 500]
        pipe = admin.pipeline(transaction=False)
        for key in page:
            pipe.memory_usage(key, samples=0)
            if _game_meta(key):
                pipe.hget(key, "archived")
        replies = iter(await pipe.execute())
        for key in page:
            usage = next(replies) or 0
            found.count += 1
            found.bytes += usage
            if _game_meta(key) and next(replies) is not None:
                found.stones += 1
                found.stone_bytes += usage
                found.ours += key.decode().split("{", 1)[1].split("}", 1)[0] in ours
    return found


def game_keys(game_id: str) -> list[str]:
    return [log_key(game_id), meta_key(game_id), commands_key(game_id), secret_key(game_id),
            drawn_key(game_id), seed_key(game_id)]  # fmt: skip


async def hot_bytes(admin: Any, game_id: str) -> int | None:
    """MEMORY USAGE (exact: SAMPLES 0) summed over the game's keys, in one MULTI that also
    reads its meta: None unless the game was sealed and not yet archived in that moment."""
    async with admin.pipeline(transaction=True) as pipe:
        for key in game_keys(game_id):
            pipe.memory_usage(key, samples=0)
        pipe.hmget(meta_key(game_id), ["sealed", "archived"])
        *usages, (sealed, archived) = await pipe.execute()
    if sealed != b"1" or archived is not None or usages[0] is None:
        return None
    return sum(u or 0 for u in usages)


def hot_sampler(nats_url: str, admin_url: str, conn: Any) -> None:
    """A process of its own, doing nothing else, so that it hears a GameSealed notice as soon as
    the archiver does: MEMORY USAGE of the game's keys at once (hot_bytes). Sends "ready" once
    subscribed; on any message back, the sizes found ({game id: bytes}) and the games missed."""
    asyncio.run(_hot_sampler(nats_url, admin_url, conn))


async def _hot_sampler(nats_url: str, admin_url: str, conn: Any) -> None:
    import nats

    nc = await nats.connect(nats_url)
    admin = connect(admin_url, max_connections=16)
    found: dict[str, int] = {}
    missed: list[str] = []
    tasks: set[asyncio.Task[None]] = set()

    async def measure(game_id: str) -> None:
        size = await hot_bytes(admin, game_id)
        if size is None:
            missed.append(game_id)
        else:
            found[game_id] = size

    async def on_event(msg: Any) -> None:
        if b'"GameSealed"' in msg.data and _type.decode(msg.data).get("type") == "GameSealed":
            task = asyncio.create_task(measure(msg.subject.split(".")[2]))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

    await nc.subscribe(subjects.all_game_events(), cb=on_event)
    await nc.flush()
    conn.send("ready")
    await asyncio.get_running_loop().run_in_executor(None, conn.recv)
    await asyncio.gather(*tasks)
    conn.send((found, missed))
    await nc.close()
    await admin.aclose()


# -- playing -----------------------------------------------------------------------------------


async def create(client: Client, ruleset: str, variant: str) -> NewGame:
    for attempt in range(CREATES):
        try:
            return await client.create_game(ruleset, variant)
        except TabulaError as exc:  # its seed waits for the randomness service
            if exc.code not in TRANSIENT or attempt == CREATES - 1:
                raise
            await asyncio.sleep(0.2 * 2**attempt)
    raise AssertionError("unreachable")


@dataclass
class Played:
    game_id: str
    label: str
    commands: int  # the create and every action the bots had accepted
    version: int  # events in the game's log
    seconds: float


async def play_game(
    client: Client,
    ruleset: str,
    variant: str,
    seed: int,
    policy: Any = None,
    on_created: Callable[[str], Awaitable[None]] | None = None,
) -> Played:
    started = time.perf_counter()
    made = await create(client, ruleset, variant)
    if on_created is not None:
        await on_created(made.game_id)
    kw = {} if policy is None else {"policy": policy}
    results: list[BotResult] = await asyncio.gather(*(
        play_seat(client, made.game_id, s.seat, s.token, seed=seed * 8 + s.seat, **kw)
        for s in made.seats
    ))  # fmt: skip
    return Played(made.game_id, label(ruleset, variant), 1 + sum(r.moves for r in results),
                  max(r.version for r in results), time.perf_counter() - started)  # fmt: skip


async def run_games(count: int, concurrency: int, deadline: float,
                    one: Callable[[int], Awaitable[Played]],
                    done: Callable[[Played], Awaitable[None]] | None = None,
                    ) -> tuple[list[Played], list[BaseException]]:  # fmt: skip
    """`count` games, `concurrency` at a time; those not finished by `deadline` (s) are
    cancelled and counted as errors."""
    sem = asyncio.Semaphore(concurrency)
    played: list[Played] = []

    async def guarded(i: int) -> None:
        async with sem:
            p = await one(i)
        played.append(p)
        if done is not None:
            await done(p)

    tasks = [asyncio.create_task(guarded(i)) for i in range(count)]
    finished, pending = await asyncio.wait(tasks, timeout=deadline)
    for t in pending:
        t.cancel()
    errors: list[BaseException] = (
        [TimeoutError(f"{len(pending)} games still playing at the deadline ({deadline:.0f} s)")]
        if pending
        else []
    )
    errors += [e for t in finished if (e := t.exception()) is not None]
    return played, errors


async def play_recorded(client: Client, moves: list[tuple[int, str]]) -> None:
    """A recorded 3-D Chess game sent move by move (the client chooses nothing: make bench's
    load), then resigned by the seat to move, so that it ends and is archived."""
    game = await create(client, "chess3d", "")
    tokens = [s.token for s in game.seats]
    for seat, action in moves:
        await client.act(game.game_id, seat, tokens[seat], action)
    seat = 1 - moves[-1][0] if moves else 0
    with contextlib.suppress(TabulaError):  # the recording ended the game itself
        await client.act(game.game_id, seat, tokens[seat], "resign")


def short_policy(moves: int) -> Callable[..., Any]:
    """A bot policy for one game: `moves` random legal actions (by any seat), then the seat
    asked to act resigns (the verb is parsed: not every ruleset lists it among its legal
    actions)."""
    left = [moves]

    def policy(rs: Ruleset[Any, Any], state: Any, seat: int, rng: random.Random) -> Any:
        if left[0] > 0:
            plays = [a for a in rs.legal_actions(state, seat)
                     if rs.format_action(state, a) not in NON_MOVES]  # fmt: skip
            if plays:
                left[0] -= 1
                return rng.choice(plays)
        resign = rs.parse_action(state, seat, "resign")
        return None if isinstance(resign, Rejection) else resign

    return policy


# -- phase "full" ------------------------------------------------------------------------------


@dataclass
class Full:
    games: dict[str, str] = field(default_factory=dict)  # game id -> label
    hot: dict[str, int] = field(default_factory=dict)  # game id -> MEMORY USAGE when sealed
    hot_missed: int = 0  # samples the archiver's removal beat
    lines: list[str] = field(default_factory=list)  # the summary's
    pg_total: float = 0.0  # bytes per archived game, the whole table


async def full_phase(stack: Any, root: int, args: argparse.Namespace, admin: Any,
                     client: Client, full: Full) -> None:  # fmt: skip
    n = args.games
    print(f"\n== full: {n} games of {len(TABLES)} rulesets and variants, {args.concurrency} at a "
          f"time, played to their end by bots ==", flush=True)  # fmt: skip
    print("  " + ", ".join(label(r, v) for r, v in TABLES))
    if args.warmup:
        # Valkey's bounded, once-only costs (the services' connection pools filling under load,
        # the slow log's 128 entries, the scripts) come with the first games, not with each:
        # warm-up games are played and archived before the baseline.
        warm, _ = await run_games(args.warmup, args.concurrency, args.deadline,
                                  lambda i: play_game(client, *TABLES[i % len(TABLES)],
                                                      10**6 + i))  # fmt: skip
        await unarchived(admin, stack.postgres_url, {p.game_id for p in warm}, args.settle)
        print(f"  {len(warm)} warm-up games played and archived before the baseline "
              f"(--warmup)", flush=True)  # fmt: skip
    await asyncio.sleep(3)  # the last removals and lazy frees
    before, before_ds = await used_memory(admin)
    stats_before = await memory_stats(admin)
    keys_before = await admin.dbsize()
    keys0 = await tombstones(admin, set())
    warm_stones, warm_stone_bytes = keys0.stones, keys0.stone_bytes
    samples: list[tuple[float, int, int, int]] = []  # time, used_memory, hot, backlog
    ctx = multiprocessing.get_context("spawn")
    mine, theirs = ctx.Pipe()
    hot_proc = ctx.Process(target=hot_sampler, args=(stack.nats_url, stack.admin_redis_url,
                                                     theirs), daemon=True)  # fmt: skip
    hot_proc.start()
    await asyncio.get_running_loop().run_in_executor(None, mine.recv)

    async def one(i: int) -> Played:
        ruleset, variant = TABLES[i % len(TABLES)]
        return await play_game(client, ruleset, variant, args.seed + i)

    async def done(p: Played) -> None:
        full.games[p.game_id] = p.label
        if len(full.games) % max(1, n // 10) == 0:
            print(f"  {len(full.games)}/{n} games finished", flush=True)

    stop = asyncio.Event()

    async def sampler() -> None:
        t0 = time.perf_counter()
        while not stop.is_set():
            mem, _ = await used_memory(admin)
            hot, backlog = await index_counts(admin)
            samples.append((time.perf_counter() - t0, mem, hot, backlog))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 1.0)

    cpu = Cpu(root).begin()
    sampling = asyncio.create_task(sampler())
    started = time.perf_counter()
    played, errors = await run_games(n, args.concurrency, args.deadline, one, done)
    wall = time.perf_counter() - started
    cpu_line = cpu.line()
    # The games archived and out of Valkey: polled, one look at them all each time.
    settle_started = time.perf_counter()
    left = await unarchived(admin, stack.postgres_url, set(full.games), args.settle)
    settle_s = time.perf_counter() - settle_started
    stop.set()
    await sampling
    mine.send("stop")
    found, missed = await asyncio.get_running_loop().run_in_executor(None, mine.recv)
    hot_proc.join(timeout=30)
    full.hot = {g: b for g, b in found.items() if g in full.games}
    full.hot_missed = sum(g in full.games for g in missed)
    store = EventStore.from_url(stack.admin_redis_url, archive=ArchiveReader(stack.postgres_url))
    try:
        where = Counter([await store.where(g) or "nowhere" for g in full.games])
    finally:
        await store.close()
    after, after_ds = await used_memory(admin)
    stats_after = await memory_stats(admin)
    keys_after = await admin.dbsize()
    clients = stats_after.get("clients.normal", 0) - stats_before.get("clients.normal", 0)
    keys1 = await tombstones(admin, set(full.games))
    stones, ours, stone_bytes = keys1.stones, keys1.ours, keys1.stone_bytes
    # The warm-up's tombstones are in the baseline, and those still there now (they expire
    # 15 min after their game's removal) in `after`: both are left out of the difference.
    warm_left = stones - ours
    warm_left_bytes = round(warm_left * warm_stone_bytes / max(1, warm_stones))
    stone_bytes -= warm_left_bytes
    delta = (after - warm_left_bytes) - (before - warm_stone_bytes)

    finished = len(played)
    commands = sum(p.commands for p in played)
    events = sum(p.version for p in played)
    backlogs = [s[3] for s in samples] or [0]
    per_game = delta / max(1, finished)
    per_game_ds = (after_ds - before_ds - warm_left_bytes + warm_stone_bytes) / max(1, finished)
    stone_share = stone_bytes / max(1, finished)
    no_clients = (delta - clients) / max(1, finished)
    print(f"  {finished} games finished in {wall:.1f} s: {finished / wall:.1f} games/s, "
          f"{commands / wall:,.0f} commands/s, {events / wall:,.0f} events/s "
          f"({commands:,} commands, {events:,} events)")  # fmt: skip
    print(f"  {cpu_line}")
    for e in errors:
        print(f"  ERROR: {e!r}")
    print(f"  archived and out of Valkey {settle_s:.1f} s after the last game ended: "
          f"{finished - len(left)}/{finished}; EventStore.where: {dict(where)}")  # fmt: skip
    print(
        f"  archive backlog (sealed games still in Valkey), sampled every second over "
        f"{len(samples)} s: max {max(backlogs)}, median {statistics.median(backlogs):.0f}"
    )
    print(f"  Valkey used_memory before {before:,} B, after {after:,} B (keys {keys_before} -> "
          f"{keys_after}); the warm-up's tombstones left out ({warm_stones}, "
          f"{warm_stone_bytes:,} B in the baseline; {warm_left} still there now): "
          f"{per_game:,.0f} B per finished game left in Valkey (target <= 1 KB); by "
          f"used_memory_dataset {per_game_ds:,.0f} B")  # fmt: skip
    print(f"  of which tombstones (meta `archived`, 15 min TTL): {ours} of this phase's games, "
          f"MEMORY USAGE {stone_bytes:,} B = {stone_share:,.0f} B per finished game; without "
          f"them {per_game - stone_share:,.0f} B per game")  # fmt: skip
    key_delta = (keys1.bytes - warm_left_bytes) - (keys0.bytes - warm_stone_bytes)
    print(f"  MEMORY USAGE summed over every key in Valkey: before {keys0.bytes:,} B "
          f"({keys0.count} keys), after {keys1.bytes:,} B ({keys1.count} keys), the warm-up's "
          f"tombstones left out: {key_delta / max(1, finished):,.0f} B per finished game; the "
          f"rest of used_memory's difference is Valkey's own (see MEMORY STATS)")  # fmt: skip
    print(f"  MEMORY STATS, after - before: {memory_changes(stats_before, stats_after)}")
    print(f"  without the clients' buffers (clients.normal {clients:+,} B: connections the "
          f"services opened, not per game): {no_clients:,.0f} B per game")  # fmt: skip
    peak = max(samples, key=lambda s: s[1]) if samples else (0.0, before, 0, 0)
    print(f"  used_memory peak while playing: {peak[1]:,} B at {peak[0]:.0f} s "
          f"({peak[2]} games hot)")  # fmt: skip
    full.lines += [
        (
            f"full: {finished} bot games ({len(TABLES)} rulesets/variants), "
            f"{args.concurrency} at a time: {wall:.0f} s, {finished / wall:.1f} games/s, "
            f"{commands / wall:,.0f} commands/s"
        ),
        (
            f"  Valkey per finished game after archiving: {per_game:,.0f} B (used_memory "
            f"{before / 1e6:.1f} -> {after / 1e6:.1f} MB), of which tombstones "
            f"{stone_share:,.0f} B ({ours} keys, {stone_bytes:,} B); without the growth "
            f"of clients' buffers {no_clients:,.0f} B; by MEMORY USAGE over every key "
            f"{key_delta / max(1, finished):,.0f} B; target <= 1 KB"
        ),
        (
            f"  archive backlog: max {max(backlogs)}, median {statistics.median(backlogs):.0f} "
            f"sealed games hot; all archived {settle_s:.0f} s after the last ended "
            f"({finished - len(left)}/{finished})"
        ),
        f"  {cpu_line}",
    ]
    await pg_report(stack.postgres_url, full)


async def unarchived(admin: Any, postgres_url: str, games: set[str], timeout: float) -> set[str]:
    """Until every game is in the archive and its keys are out of Valkey (no meta, or a
    tombstone), or `timeout` s passed: the games still not so then."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    ids = sorted(games)
    async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as pg:
        while True:
            pipe = admin.pipeline(transaction=False)
            for g in ids:
                pipe.hmget(meta_key(g), ["version", "archived"])
            metas = await pipe.execute()
            gone = {g for g, (v, a) in zip(ids, metas, strict=True) if v is None or a is not None}
            cur = await pg.execute(
                "SELECT game_id FROM archived_games WHERE game_id = ANY(%s)", (ids,)
            )
            archived = {r[0] for r in await cur.fetchall()}
            left = games - (gone & archived)
            if not left or loop.time() > deadline:
                return left
            await asyncio.sleep(0.5)  # the archiver's progress, polled


async def pg_report(postgres_url: str, full: Full) -> None:
    """PostgreSQL's bytes per archived game, per ruleset and variant, as the auditor reads."""
    ids = sorted(full.games)
    async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as pg:
        cur = await pg.execute(
            "SELECT count(*), pg_indexes_size('archived_games'), "
            "pg_total_relation_size('archived_games'), pg_relation_size('archived_games'), "
            "coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0), "
            "coalesce(pg_indexes_size(nullif(c.reltoastrelid, 0)), 0) "
            "FROM archived_games, pg_class c WHERE c.oid = 'archived_games'::regclass "
            "GROUP BY c.reltoastrelid"
        )
        row = await cur.fetchone()
        assert row is not None, "the archive is empty"
        count, indexes, total, heap, toast, toast_indexes = row
        cur = await pg.execute(
            "SELECT game_id, pg_column_size(t.*), pg_column_size(log), "
            "pg_column_size(commands), octet_length(log), octet_length(commands), log, "
            "commands FROM archived_games t WHERE game_id = ANY(%s)",
            (ids,),
        )
        rows = await cur.fetchall()
    # pg_column_size(t.*) is the row as one composite value: its TOASTed columns come inline
    # (flattened), so it holds the stored log and command ids already (checked below). Added:
    # an equal share of the table's indexes and of its TOAST table's (chunk id, seq) index.
    share = (indexes + toast_indexes) / count
    by_label: dict[str, list[tuple[float, int, int]]] = defaultdict(list)
    inline_ok = True
    for game_id, row_size, log_size, cmd_size, log_len, cmd_len, log, cmds in rows:
        inline_ok &= row_size >= log_size + cmd_size and log_size >= log_len * 0.99
        raw = len(zlib.decompress(bytes(log))) + len(zlib.decompress(bytes(cmds)))
        by_label[full.games[game_id]].append((row_size + share, log_len + cmd_len, raw))
    print(f"\n  PostgreSQL, archived_games as the auditor reads it: {count} rows; table "
          f"{heap:,} B, TOAST {toast:,} B (its index {toast_indexes:,} B), indexes "
          f"{indexes:,} B; pg_total_relation_size {total:,} B = {total / count:,.0f} B per "
          f"game")  # fmt: skip
    if not inline_ok:
        print("  NOTE: pg_column_size(row) came out below pg_column_size(log) + "
              "pg_column_size(commands): the per-row figures below undercount")  # fmt: skip
    full.pg_total = total / count
    hot_by: dict[str, list[int]] = defaultdict(list)
    for game_id, size in full.hot.items():
        hot_by[full.games.get(game_id, "?")].append(size)
    header = (f"  {'ruleset variant':<30} {'games':>5} {'PG B/game':>10} {'packed':>8} "
              f"{'raw msgpack':>11} {'Valkey hot':>10} {'hot n':>5}  (means)")  # fmt: skip
    print(header)
    table_lines = [header.strip()]
    for name in sorted(by_label):
        mine = by_label[name]
        hot = hot_by.get(name, [])
        line = (f"{name:<30} {len(mine):>5} {statistics.mean(m[0] for m in mine):>10,.0f} "
                f"{statistics.mean(m[1] for m in mine):>8,.0f} "
                f"{statistics.mean(m[2] for m in mine):>11,.0f} "
                f"{statistics.mean(hot) if hot else float('nan'):>10,.0f} "
                f"{len(hot):>5}")  # fmt: skip
        print("  " + line)
        table_lines.append(line)
    everything = [m for mine in by_label.values() for m in mine]
    hot_all = list(full.hot.values())
    line = (f"{'all':<30} {len(everything):>5} {statistics.mean(m[0] for m in everything):>10,.0f} "
            f"{statistics.mean(m[1] for m in everything):>8,.0f} "
            f"{statistics.mean(m[2] for m in everything):>11,.0f} "
            f"{statistics.mean(hot_all) if hot_all else float('nan'):>10,.0f} "
            f"{len(hot_all):>5}")  # fmt: skip
    print("  " + line)
    table_lines.append(line)
    print(f"  PG B/game: pg_column_size of the row (its TOASTed log and command ids inline) + "
          f"(indexes + TOAST index) / rows; packed: the log and command ids as stored "
          f"(zlib); raw: their msgpack uncompressed; Valkey hot: MEMORY USAGE of the game's "
          f"keys when sealed, measured for {len(hot_all)} games ({full.hot_missed} missed: "
          f"the archiver removed the keys first). Target <= 40 KB per game.")  # fmt: skip
    full.lines += [
        (
            f"  PostgreSQL per archived game: {statistics.mean(m[0] for m in everything):,.0f} B "
            f"by rows (mean), {total / count:,.0f} B by pg_total_relation_size; target <= 40 KB"
        ),
        *("    " + t for t in table_lines),
    ]


# -- phase "read" ------------------------------------------------------------------------------


async def read_phase(stack: Any, args: argparse.Namespace, full: Full, workdir: Path) -> list[str]:
    by_label: dict[str, list[str]] = defaultdict(list)
    for game_id, name in sorted(full.games.items()):
        by_label[name].append(game_id)
    sample: list[str] = []
    rng = random.Random(args.seed)
    pools = {k: rng.sample(v, len(v)) for k, v in sorted(by_label.items())}
    while len(sample) < args.read_sample and any(pools.values()):
        for pool in pools.values():
            if pool and len(sample) < args.read_sample:
                sample.append(pool.pop())
    print(f"\n== read: {len(sample)} archived games of {len({full.games[g] for g in sample})} "
          f"rulesets/variants, each read whole and replayed from the archive and from Valkey, "
          f"{args.read_reps} times, alternating ==", flush=True)  # fmt: skip
    valkey = start_valkey(workdir / "valkey-read")
    reader = ArchiveReader(stack.postgres_url)
    cold = EventStore.from_url(stack.admin_redis_url, archive=reader)
    hot = EventStore.from_url(valkey.url, archive=ArchiveReader(stack.postgres_url))
    times: dict[str, dict[str, list[float]]] = {g: defaultdict(list) for g in sample}
    try:
        for g in sample:
            if await cold.where(g) != "archive":
                raise RuntimeError(f"{g} is not in the archive alone")
            stored = await cold.read_all(g)
            await hot.import_log(stored)
            again = await hot.read_all(g)
            if again != stored:
                raise RuntimeError(f"{g}: the imported log reads back differently")

        def replay(stored: list[Any], game_id: str) -> None:
            ruleset, events = decode_log(stored)
            tables.fold(ruleset, game_id, events)

        for rep in range(args.read_reps):
            for i, g in enumerate(sample):
                order = [("archive", cold), ("valkey", hot)]
                if (rep + i) % 2:
                    order.reverse()
                for source, store in order:
                    reader.cache.clear()  # PostgreSQL read each time, not the cache
                    reader.cached_events = 0
                    t0 = time.perf_counter()
                    stored = await store.read_all(g)
                    t1 = time.perf_counter()
                    replay(stored, g)
                    t2 = time.perf_counter()
                    times[g][f"{source} read"].append(t1 - t0)
                    times[g][f"{source} replay"].append(t2 - t1)
                    times[g][f"{source} both"].append(t2 - t0)
    finally:
        await cold.close()
        await hot.close()
        valkey.stop()

    med = {g: {k: statistics.median(v) for k, v in t.items()} for g, t in times.items()}

    def ratios(what: str, games: list[str]) -> list[float]:
        return [med[g][f"archive {what}"] / med[g][f"valkey {what}"] for g in games]

    print(f"  {'ruleset variant':<30} {'games':>5} {'events':>7} {'read ms A/V':>15} "
          f"{'read A/V':>8} {'read+replay ms A/V':>19} {'A/V':>5}")  # fmt: skip
    groups: dict[str, list[str]] = defaultdict(list)
    for g in sample:
        groups[full.games[g]].append(g)
    lengths: dict[str, int] = {}
    async with await psycopg.AsyncConnection.connect(stack.postgres_url, autocommit=True) as pg:
        cur = await pg.execute("SELECT game_id, head_version FROM archived_games WHERE "
                               "game_id = ANY(%s)", (sample,))  # fmt: skip
        lengths = {r[0]: r[1] for r in await cur.fetchall()}
    for name, games in sorted(groups.items()):
        print(f"  {name:<30} {len(games):>5} {statistics.median(lengths[g] for g in games):>7.0f} "
              f"{statistics.median(med[g]['archive read'] for g in games) * 1e3:>7.2f}/"
              f"{statistics.median(med[g]['valkey read'] for g in games) * 1e3:<7.2f} "
              f"{statistics.median(ratios('read', games)):>8.2f} "
              f"{statistics.median(med[g]['archive both'] for g in games) * 1e3:>9.2f}/"
              f"{statistics.median(med[g]['valkey both'] for g in games) * 1e3:<9.2f} "
              f"{statistics.median(ratios('both', games)):>5.2f}")  # fmt: skip
    total = {k: sum(med[g][k] for g in sample) for k in med[sample[0]]}
    read_r, both_r = statistics.median(ratios("read", sample)), \
        statistics.median(ratios("both", sample))  # fmt: skip
    replay_r = statistics.median(ratios("replay", sample))
    sum_read = total["archive read"] / total["valkey read"]
    sum_both = total["archive both"] / total["valkey both"]
    print(f"  archive / Valkey, median over games of each game's median: read {read_r:.2f}, "
          f"replay {replay_r:.2f}, read+replay {both_r:.2f}; summed over the sample: read "
          f"{total['archive read'] / total['valkey read']:.2f}, read+replay "
          f"{total['archive both'] / total['valkey both']:.2f} (target <= 1.00)")  # fmt: skip
    return [
        (
            f"read: {len(sample)} archived games, {args.read_reps} reps, median per game, "
            f"archive / Valkey: whole log read {read_r:.2f}, read+replay {both_r:.2f} "
            f"(replay alone {replay_r:.2f}); summed: read {sum_read:.2f}, "
            f"read+replay {sum_both:.2f}"
        ),
    ]


# -- phase "flat" ------------------------------------------------------------------------------


async def flat_phase(root: int, args: argparse.Namespace, admin: Any, client: Client,
                     postgres_url: str) -> list[str]:  # fmt: skip
    m = args.flat_games
    every = args.flat_sample
    print(f"\n== flat: {m} short games ({len(TABLES)} rulesets/variants round robin: fair-play "
          f"steps, 0-4 random actions, a resignation), {args.flat_concurrency} at a time; "
          f"used_memory every {every} games ==", flush=True)  # fmt: skip
    rows: list[tuple[int, float, int, int, int, int]] = []
    finished = 0
    t0 = time.perf_counter()
    sampling = asyncio.Lock()

    async def sample(n: int) -> None:
        async with sampling:
            mem, _ = await used_memory(admin)
            hot, backlog = await index_counts(admin)
            keys = await admin.dbsize()
            rows.append((n, time.perf_counter() - t0, mem, hot, backlog, keys))
            print(
                f"  {n:>7} games  {rows[-1][1]:>6.0f} s  used_memory {mem:>12,} B  "
                f"hot {hot:>4}  backlog {backlog:>4}  keys {keys:>6}",
                flush=True,
            )

    async def one(i: int) -> Played:
        ruleset, variant = TABLES[i % len(TABLES)]
        rng = random.Random(args.seed * 1_000_003 + i)
        return await play_game(client, ruleset, variant, args.seed + i,
                               policy=short_policy(rng.randrange(5)))  # fmt: skip

    played: list[Played] = []

    async def done(p: Played) -> None:
        nonlocal finished
        finished += 1
        played.append(p)
        if finished % every == 0:
            await sample(finished)

    await sample(0)
    stats_before = await memory_stats(admin)
    cpu = Cpu(root).begin()
    started = time.perf_counter()
    _, errors = await run_games(m, args.flat_concurrency, args.deadline, one, done)
    wall = time.perf_counter() - started
    cpu_line = cpu.line()
    for e in errors[:5]:
        print(f"  ERROR: {e!r}")
    if len(errors) > 5:
        print(f"  ... {len(errors) - 5} more errors")
    if finished % every:
        await sample(finished)
    settled = time.perf_counter()
    left = await unarchived(admin, postgres_url, {p.game_id for p in played}, args.settle)
    settle_s = time.perf_counter() - settled
    print(f"  every game archived and out of Valkey {settle_s:.1f} s after the last ended: "
          f"{len(played) - len(left)}/{len(played)}; then:")  # fmt: skip
    await sample(finished)
    stats_after = await memory_stats(admin)
    at_end = await tombstones(admin, set())
    stones, stone_bytes = at_end.stones, at_end.stone_bytes
    playing = [r[2] for r in rows[1:-1]] or [rows[0][2]]
    settled_mem = rows[-1][2]
    first = playing[0]
    commands = sum(p.commands for p in played)
    growth = (settled_mem - rows[0][2]) / max(1, finished)
    print(f"  {finished} games in {wall:.0f} s: {finished / wall:.1f} games/s, "
          f"{commands / wall:,.0f} commands/s")  # fmt: skip
    print(f"  {cpu_line}")
    print(f"  used_memory before the phase {rows[0][2]:,} B; at the samples while playing: "
          f"first {first:,} B, max {max(playing):,} B, last {playing[-1]:,} B; once all were "
          f"archived {settled_mem:,} B: {growth:,.0f} B per game over the phase (tombstones "
          "included)")  # fmt: skip
    print(f"  hot games (games index) at the samples: {[r[3] for r in rows]}; backlog "
          f"{[r[4] for r in rows]}")  # fmt: skip
    print(f"  keys at the end {rows[-1][5]}: {stones} tombstones (MEMORY USAGE {stone_bytes:,} "
          f"B, {stone_bytes / max(1, stones):.0f} B each; they expire 15 min after their "
          f"game's removal)")  # fmt: skip
    print(f"  MEMORY STATS, end - start of the phase: {memory_changes(stats_before, stats_after)}")
    return [
        (
            f"flat: {finished} short games, {args.flat_concurrency} at a time "
            f"({finished / wall:.1f} games/s): used_memory sampled every {every} games: "
            f"first {first / 1e6:.2f} MB, max {max(playing) / 1e6:.2f} MB, last "
            f"{playing[-1] / 1e6:.2f} MB, all archived {settled_mem / 1e6:.2f} MB "
            f"({growth:,.0f} B/game); hot games at the samples max {max(r[3] for r in rows)} "
            f"(sealed, awaiting the archiver: max {max(r[4] for r in rows)}); "
            f"{rows[-1][5]} keys at the end, {stones} of them tombstones ({stone_bytes:,} B)"
        ),
        f"  {cpu_line}",
    ]


# -- phase "throughput" ------------------------------------------------------------------------


class Counting(Client):
    """A client that counts the receipts it is given (a create's and each action's), once each
    is checked."""

    acked = 0

    def keep(self, receipt: Receipt) -> Receipt:
        kept = super().keep(receipt)
        self.acked += 1
        return kept


def proc_state(pid: int) -> str:
    """A process's state letter (/proc/PID/stat): R, S, D, T (stopped), ..."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


@contextlib.contextmanager
def frozen(root: int, freeze: bool) -> Iterator[set[int]]:
    """The archiver processes under `tabula up` (its children whose command line holds
    "services.archiver", as tests/faults/run.py finds them), SIGSTOPped for the block when
    `freeze`, and SIGCONTinued after it whatever happens."""
    pids = pids_of(root, "services.archiver")
    if not pids:
        raise RuntimeError("no services.archiver process among `tabula up`'s children")
    if not freeze:
        yield pids
        return
    stopped: set[int] = set()
    try:
        for pid in sorted(pids):
            os.kill(pid, signal.SIGSTOP)
            stopped.add(pid)
        for _ in range(100):  # the signal is delivered asynchronously: until seen stopped
            if all(proc_state(pid) == "T" for pid in pids):
                break
            time.sleep(0.01)
        else:
            raise RuntimeError(f"archiver {sorted(pids)} not stopped after SIGSTOP")
        yield pids
    finally:
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


@dataclass
class Window:
    """One measured window: `config` A (the archiver running) or B (frozen)."""

    config: str
    round: int
    seconds: float
    receipts: int
    games: int
    cpu: dict[str, float]  # CPU seconds over the window: each stack part, "bench", "rest"
    backlog: list[int]  # sealed games still hot, sampled about every second
    errors: int
    settle_s: float = 0.0  # after the window, until the backlog was archived

    @property
    def rate(self) -> float:
        return self.receipts / self.seconds

    def share(self, name: str) -> float:
        """CPU of `name` as a percentage of one core."""
        return 100 * self.cpu.get(name, 0.0) / self.seconds

    def ms_per_receipt(self, name: str) -> float:
        return 1e3 * self.cpu.get(name, 0.0) / max(1, self.receipts)


def spread(values: list[float], fmt: str) -> str:
    """The median, with the min-max when there is more than one value."""
    med = format(statistics.median(values), fmt)
    if len(values) == 1:
        return med
    return f"{med} ({format(min(values), fmt)}-{format(max(values), fmt)})"


async def backlog_now(admin: Any) -> int:
    return (await index_counts(admin))[1]


async def drain_backlog(admin: Any, timeout: float) -> tuple[float, int]:
    """Until no sealed game is hot (the archiver caught up), or `timeout` s: the seconds it
    took and the backlog left."""
    started = time.perf_counter()
    while True:
        left = await backlog_now(admin)
        if not left or time.perf_counter() - started > timeout:
            return time.perf_counter() - started, left
        await asyncio.sleep(0.5)  # the archiver's progress, polled


async def throughput_phase(stack: Any, root: int, args: argparse.Namespace, admin: Any,
                           load: str) -> list[str]:  # fmt: skip
    seconds, rounds, warmup, conc = args.ab_seconds, args.ab_rounds, args.ab_warmup, \
        args.ab_concurrency  # fmt: skip
    short = load == "short"
    games = {"short": "the flat phase's short games",
             "full": "the full phase's games, to their end",
             "recorded": f"make bench's recorded 3-D Chess games ({RECORDED_PLIES} plies, then a "
                         "resignation)"}[load]  # fmt: skip
    recorded = record_games(40, RECORDED_PLIES, seed=1) if load == "recorded" else []
    print(f"\n== throughput ({load} load): {games}, {conc} at a time, played for "
          f"{seconds:.0f} s windows (after {warmup:.0f} s of warm-up) in {rounds} round"
          f"{'s' * (rounds > 1)}, order ABBA: A the archiver running, B the archiver frozen "
          f"(SIGSTOP; SIGCONT after the window, then its backlog archived before the next) ==",
          flush=True)  # fmt: skip
    client = await Counting.connect(stack.nats_url, timeout=10.0)
    assert isinstance(client, Counting)
    client.remember = False
    windows: list[Window] = []
    discarded: list[Window] = []  # the A windows of rounds run again
    failures: list[BaseException] = []

    async def measure(config: str, rnd: int) -> Window:
        running = True
        finished = 0
        errors = 0
        # Every window plays the same games (rulesets, variants, the bots' seeds) in the same
        # order: what differs between A and B is the archiver, not the mix of games.
        numbers = itertools.count()

        async def worker() -> None:
            nonlocal finished, errors
            while running:
                n = next(numbers)
                ruleset, variant = TABLES[n % len(TABLES)]
                rng = random.Random(args.seed * 1_000_003 + 10**8 + n)
                policy = short_policy(rng.randrange(5)) if short else None
                try:
                    if recorded:
                        await play_recorded(client, recorded[n % len(recorded)])
                    else:
                        await play_game(client, ruleset, variant, args.seed + 10**8 + n, policy)
                    finished += 1
                except Exception as exc:  # noqa: BLE001  # counted, and the load goes on
                    errors += 1
                    failures.append(exc)
                    await asyncio.sleep(0.5)

        with frozen(root, config == "B") as pids:
            workers = [asyncio.create_task(worker()) for _ in range(conc)]
            try:
                await asyncio.sleep(warmup)
                backlog: list[int] = []
                cpu = Cpu(root).begin()
                machine0 = machine_cpu_seconds()
                acked0, games0 = client.acked, finished
                t0 = time.perf_counter()
                end = t0 + seconds
                # The backlog sampled every second in A; in B once, at the end: a scan of
                # the games index grows with the backlog, a cost A would not bear.
                while time.perf_counter() < end:
                    if config == "A":
                        backlog.append(await backlog_now(admin))
                    await asyncio.sleep(max(0.0, min(1.0, end - time.perf_counter())))
                acked1, games1 = client.acked, finished
                wall, bench, parts = cpu.spent()
                machine = machine_cpu_seconds() - machine0
                if config == "B":
                    backlog.append(await backlog_now(admin))
            finally:
                running = False
                # The games in flight end (short ones within a second or two), unmeasured.
                _, late = await asyncio.wait(workers, timeout=300)
                for t in late:
                    t.cancel()
                await asyncio.gather(*late, return_exceptions=True)
            if config == "B":
                now_pids = pids_of(root, "services.archiver")
                if now_pids != pids or any(proc_state(p) != "T" for p in pids):
                    print(f"  WARNING: the archiver did not stay frozen through the window "
                          f"({sorted(pids)} -> {sorted(now_pids)})")  # fmt: skip
        cpu_s = {**parts, "bench": bench}
        cpu_s["rest"] = max(0.0, machine - sum(cpu_s.values()))
        w = Window(config, rnd, wall, acked1 - acked0, games1 - games0, cpu_s, backlog, errors)
        w.settle_s, left = await drain_backlog(admin, args.settle)
        if left:
            print(f"  WARNING: {left} sealed games still hot {w.settle_s:.0f} s after the window")
        each = ", ".join(f"{k} {w.share(k):.0f}%" for k in sorted(cpu_s, key=lambda k: -cpu_s[k])
                         if w.share(k) >= 1)  # fmt: skip
        state = "archiver running" if config == "A" else "archiver frozen"
        print(f"  round {rnd + 1} {config} ({state}): "
              f"{w.rate:,.1f} receipts/s ({w.receipts:,} in {wall:.1f} s, {w.games} games "
              f"ended); backlog {'max' if config == 'A' else 'at the end'} "
              f"{max(backlog, default=0)}; rules CPU "
              f"{w.ms_per_receipt('rules'):.2f} ms/receipt; {errors} errors; backlog archived "
              f"{w.settle_s:.1f} s after the window", flush=True)  # fmt: skip
        print(f"      CPU, % of one core: {each} (bench = the load generator; rest = the rest "
              f"of the machine)", flush=True)  # fmt: skip
        return w

    try:
        start_left = await drain_backlog(admin, args.settle)
        if start_left[1]:
            print(f"  WARNING: {start_left[1]} sealed games hot before the first round")
        rnd = reruns = 0
        while rnd < rounds:
            order = ("A", "B") if rnd % 2 == 0 else ("B", "A")  # ABBA
            mine = {c: await measure(c, rnd) for c in order}
            busy = max(w.share("rest") for w in mine.values())
            ratio = mine["A"].rate / mine["B"].rate
            if busy > args.ab_busy and reruns < rounds:
                # As in `make bench`: another program on these cores moves the ratio more than
                # anything measured. Run again (at most `rounds` times in all); its A backlog
                # still counts.
                reruns += 1
                discarded.append(mine["A"])
                print(f"  round {rnd + 1}: A/B {ratio:.3f}, but the rest of the machine used "
                      f"{busy:.0f}% of a core (> {args.ab_busy:.0f}%): run again",
                      flush=True)  # fmt: skip
                continue
            windows += mine.values()
            flag = f" (the rest of the machine used {busy:.0f}% of a core)" * (busy > args.ab_busy)
            print(f"  round {rnd + 1}: A/B {ratio:.3f}{flag}", flush=True)
            rnd += 1
    finally:
        await client.close()
    for e in failures[:5]:
        print(f"  ERROR: {e!r}")
    if len(failures) > 5:
        print(f"  ... {len(failures) - 5} more errors")

    a = [w for w in windows if w.config == "A"]
    b = [w for w in windows if w.config == "B"]
    ratios = [x.rate / y.rate for x, y in zip(a, b, strict=True)]
    cost = [x.ms_per_receipt("rules") / y.ms_per_receipt("rules") for x, y in
            zip(a, b, strict=True)]  # fmt: skip
    a_backlog = max((m for w in a + discarded for m in w.backlog), default=0)
    b_backlog = max((m for w in b for m in w.backlog), default=0)
    bench_a = [w.share("bench") for w in a]
    bench_b = [w.share("bench") for w in b]
    rest = [w.share("rest") for w in windows]
    stack_share = [sum(w.share(k) for k in w.cpu if k not in ("bench", "rest")) for w in windows]
    print(f"  receipts/s: A {spread([w.rate for w in a], ',.1f')}, B "
          f"{spread([w.rate for w in b], ',.1f')}; A/B per round "
          f"{', '.join(f'{r:.3f}' for r in ratios)}: median {statistics.median(ratios):.3f} "
          f"(target >= 0.95)")  # fmt: skip
    print(f"  rules CPU per receipt A/B: median {statistics.median(cost):.3f} (ms/receipt A "
          f"{spread([w.ms_per_receipt('rules') for w in a], '.2f')}, B "
          f"{spread([w.ms_per_receipt('rules') for w in b], '.2f')}): the removals the archiver "
          f"asks of the rules service")  # fmt: skip
    print(f"  archive backlog (sealed games still hot), sampled every second in A: max "
          f"{a_backlog} during the A windows; in the B windows (frozen) it grew to "
          f"{b_backlog}, archived {spread([w.settle_s for w in b], '.1f')} s after "
          f"SIGCONT")  # fmt: skip
    print(f"  load generator (bench process): {spread(bench_a, '.0f')}% of a core in A, "
          f"{spread(bench_b, '.0f')}% in B; stack {spread(stack_share, '.0f')}%; "
          f"rest of the machine {spread(rest, '.0f')}% ({os.cpu_count()} cores)")  # fmt: skip
    if max(bench_a + bench_b) >= 90:
        print("  NOTE: the load generator used >= 90% of a core in some window: the rates may "
              "be bounded by it rather than by the stack, understating any cost")  # fmt: skip
    return [
        (
            f"throughput: {load} games, {conc} at a time, {rounds} round(s) ABBA of "
            f"{seconds:.0f} s windows: A (archiver running) "
            f"{spread([w.rate for w in a], ',.0f')} receipts/s, "
            f"B (archiver frozen) {spread([w.rate for w in b], ',.0f')}; ratio A/B median "
            f"{statistics.median(ratios):.3f} ({', '.join(f'{r:.3f}' for r in ratios)}; target "
            f">= 0.95); rules CPU per receipt A/B {statistics.median(cost):.3f}"
        ),
        (
            f"  backlog max {a_backlog} sealed games hot during the A windows (B grew to "
            f"{b_backlog}); load generator {spread(bench_a + bench_b, '.0f')}% of a core, rest "
            f"of the machine {spread(rest, '.0f')}%"
        ),
    ]


# -- the run -----------------------------------------------------------------------------------


async def bench(stack: Any, root: int, args: argparse.Namespace, workdir: Path) -> None:
    quiet_nats_logs()
    phases = args.phases.split(",")
    client = await Client.connect(stack.nats_url, timeout=10.0)
    client.remember = False  # tens of thousands of receipts: checked, not kept
    admin = connect(stack.admin_redis_url)
    summary: list[str] = []
    full = Full()
    try:
        if "full" in phases:
            await full_phase(stack, root, args, admin, client, full)
            summary += full.lines
        if "read" in phases and full.games:
            summary += await read_phase(stack, args, full, workdir)
        if "flat" in phases:
            summary += await flat_phase(root, args, admin, client, stack.postgres_url)
        if "throughput" in phases:
            for load in args.ab_load.split(","):
                summary += await throughput_phase(stack, root, args, admin, load)
    finally:
        await client.close()
        await admin.aclose()
    print("\n== summary (make bench-archive) ==")
    print("\n".join(summary))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--games", type=int, default=1000, help="finished games of the full phase")
    p.add_argument("--concurrency", type=int, default=16, help="full phase: games at a time")
    p.add_argument("--warmup", type=int, default=100,
                   help="full phase: games played and archived before the baseline")  # fmt: skip
    p.add_argument("--flat-games", type=int, default=20_000, help="short games of the flat phase")
    p.add_argument("--flat-concurrency", type=int, default=32, help="flat phase: games at a time")
    p.add_argument("--flat-sample", type=int, default=1000,
                   help="flat phase: used_memory sampled every this many games")  # fmt: skip
    p.add_argument("--read-sample", type=int, default=50, help="archived games read")
    p.add_argument("--read-reps", type=int, default=21, help="reads of each game from each")
    p.add_argument("--phases", default="full,read,flat,throughput",
                   help="of full, read, flat, throughput")  # fmt: skip
    p.add_argument("--ab-seconds", type=float, default=60.0,
                   help="throughput phase: measured seconds of each window")  # fmt: skip
    p.add_argument("--ab-rounds", type=int, default=3,
                   help="throughput phase: rounds of A and B, order ABBA")  # fmt: skip
    p.add_argument("--ab-warmup", type=float, default=10.0,
                   help="throughput phase: seconds of load before each window")  # fmt: skip
    p.add_argument("--ab-busy", type=float, default=10.0,
                   help="throughput phase: a round during which the rest of the machine "
                   "used more than this %% of a core is run again (at most --ab-rounds "
                   "times)")  # fmt: skip
    p.add_argument("--ab-concurrency", type=int, default=32,
                   help="throughput phase: games at a time")  # fmt: skip
    p.add_argument("--ab-load", default="recorded,full,short",
                   help="throughput phase, run for each: recorded (make bench's load: recorded "
                   "3-D Chess games sent move by move, then resigned; the issue's figure), "
                   "full (the full phase's games played to their end by bots) or short (the "
                   "flat phase's: the archiver's worst case)")  # fmt: skip
    p.add_argument("--deadline", type=float, default=7200.0, help="seconds for a phase's games")
    p.add_argument("--settle", type=float, default=600.0,
                   help="seconds for every game to be archived once played")  # fmt: skip
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--home", help="the stack's home, kept (its logs/): default a temporary one")
    args = p.parse_args(argv)
    args.flat_sample = max(1, min(args.flat_sample, args.flat_games))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tabula-bench-archive-") as tmp:
        home = Path(args.home) if args.home else Path(tmp) / "home"
        home.mkdir(parents=True, exist_ok=True)
        with embedded_stack(home, TABULA_ARCHIVE_S="2") as up:
            print(f"stack up in {time.perf_counter() - started:.0f} s ({os.cpu_count()} cores; "
                  f"load {os.getloadavg()[0]:.2f})", flush=True)  # fmt: skip
            asyncio.run(bench(up.stack, up.proc.pid, args, Path(tmp)))
    print(f"\nbench-archive took {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
