"""A long fuzz run against a real stack: hostile and typed messages over every request subject.

A fresh embedded stack (`tabula up` in a temporary home) first gets a few games created
legitimately by the player (`Client.create_game`, one per ruleset and some variants: the
"legit" games, which typed messages aim at). Then N hypothesis-generated messages
(tests.faults.hostile): about 3/4 over the player's subjects as the player, 1/4 over the
randomness service's as the rules service (its only caller). Of each role's messages about half
are `typed` (valid by the contracts' types, so they decode and reach the handlers: creates,
enqueues, actions with a legit game's real or wrong tokens, draws), the other half `hostile`
(random fields and values, almost all `request/malformed`), with a slice of raw bytes and
oversize payloads (over the 64 KiB request limit: `request/too-large`). The run fails unless
- every reply is a typed error or a normal reply: never `internal`, never none (10 s timeout);
- at least 90% of the typed messages decode as their subject's type (checked here, locally);
- no process crashed: the services, nats-server and valkey keep their pids, all alive;
- memory stays flat: each service's RSS after the run is within 25% + 16 MiB of its RSS after
  a warm-up of 10% of the messages;
- nothing is appended or created except by requests that were valid and answered as such:
  every new game in the index is one a `created` reply named, or one matchmaking made (as many
  as `queued` replies with `waiting` 0); every event appended to any game (after its head at
  the start) carries the command id of a request answered with `created` or a `receipt` for
  that game, or the platform's own (its finish, `finish:...` revealing the seed and sealing,
  or `match:...` in a game matchmaking made); the only other new keys are the randomness
  service's (seed, draws, secrets) for a game id it answered a seed or a draw for, or of a
  game with an accepted action. The valid requests answered as such are counted and reported;
- nothing is gone but keys that expire by design (a rate limit's window, a gateway session:
  `EXPIRING`) and that carried their TTL when the run began, and the keys of games that ended
  and were archived (the archive holds them; they left Valkey and its index).

Run: .venv/bin/python -m tests.faults.fuzz [--messages 50000]
"""

import argparse
import asyncio
import contextlib
import re
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import redis.asyncio as aioredis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from contracts import subjects
from contracts.commands import MAX_REQUEST_BYTES, GetKeys
from contracts.errors import ErrorCode
from services.client.client import Client
from services.runtime import access
from services.runtime.archived import ArchiveReader
from services.runtime.config import StackFile, stack_path
from services.runtime.eventstore import EventStore
from services.runtime.keys import GAMES_INDEX, PREFIX
from tests.faults.hostile import (
    RANDOMNESS,
    SUBJECTS,
    Case,
    Legit,
    ask,
    decodes,
    hostile,
    typed,
)
from tests.stack import embedded_stack

PLAYER: dict[str, type[Any]] = {**SUBJECTS, subjects.RULES_KEYS: GetKeys}
TYPES = {**PLAYER, **RANDOMNESS}
# The legit games, created by the player before the run: (ruleset, variant). Typed messages
# aim at the first far more often than at the others: a game with seeds, whose seed protocol
# (four actions with the right tokens) comes before any draw.
LEGIT = [("yavoch", ""), ("chess3d", ""), ("cyvasse", ""), ("yavoch", "full"),
         ("cyvasse", "C+hex91")]  # fmt: skip
OVERSIZE = (MAX_REQUEST_BYTES + 1, 70_000, 500_000, 1_000_000)  # nats max payload: 1 MiB
IN_FLIGHT = 32  # concurrent requests
PROGRESS = 5_000
MIB = 1 << 20
# A game id may end in a newline: the contract's pattern ends in `$`, which admits one.
GAME_KEY = re.compile(r"^tabula:game:\{(.+)\}:(\w+)$", re.DOTALL)
RANDOMNESS_KEYS = frozenset({"seed", "drawn", "secret"})  # what a seeded game id may get
TYPED_DECODE = 0.9  # the least share of typed messages that must decode
PLATFORM_FINISH = frozenset({"SeedRevealed", "GameSealed"})  # what a `finish:` command appends
# The key families written with a TTL (services.runtime.keys: rate_key, a fixed window's counter
# kept for the window and a second; session_key, which expires with the session; failures_key,
# wrong passwords counted in a window; bot_lease_key, renewed while a bots instance plays the
# seat). `tabula up`'s readiness probe of the gateway (GET /) opens a rate window, gone 61 s
# later: expired, not lost. Every other family is kept for ever.
EXPIRING = (*(f"{PREFIX}:gw:{family}:" for family in ("rate", "session", "failures")),
            f"{PREFIX}:bots:lease:")  # fmt: skip


def junk(types: dict[str, type[Any]]) -> st.SearchStrategy[Case]:
    """Raw bytes, and oversize payloads (some starting like a valid request)."""
    size = st.sampled_from(OVERSIZE)
    start = st.sampled_from([b"", b'{"game_id":"', b'{"command_id":"']) | st.binary(max_size=16)
    big = st.tuples(size, start).map(lambda t: (t[1] + b"x" * t[0])[: t[0]])
    return st.tuples(st.sampled_from(sorted(types)), st.binary(max_size=4096) | big)


@dataclass
class Tally:
    started: float = field(default_factory=time.monotonic)
    subjects: Counter[str] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)
    seconds: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    slowest: dict[str, tuple[float, int]] = field(default_factory=dict)  # seconds, bytes
    by_subject: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    sent: Counter[str] = field(default_factory=Counter)  # by source: typed, hostile, junk
    decoded: Counter[str] = field(default_factory=Counter)  # of those, decodable
    malformed: Counter[str] = field(default_factory=Counter)  # of those, answered malformed
    seeded: set[str] = field(default_factory=set)  # game ids with a seed or draw answered
    # Valid requests answered as such: command ids with a `created` or `receipt` reply, by
    # game; the games `created` replies named; `queued` replies with waiting 0 (a pairing).
    accepted: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    created: set[str] = field(default_factory=set)
    answered: Counter[str] = field(default_factory=Counter)  # created, receipt, paired, ...
    failures: list[str] = field(default_factory=list)

    def progress(self) -> str:
        top = ", ".join(f"{c}={n}" for c, n in self.codes.most_common(6))
        return (f"{self.codes.total():>7} sent, {time.monotonic() - self.started:7.1f} s, "
                f"{len(self.failures)} failures; {top}")  # fmt: skip


def shown(case: Case) -> str:
    subject, payload = case
    body = payload if len(payload) <= 2000 else payload[:200] + b"..."
    return f"{subject} ({len(payload)} bytes) {body!r}"


async def one(client: Client, case: Case, source: str, tally: Tally) -> None:
    subject, payload = case
    tally.subjects[subject] += 1
    tally.sent[source] += 1
    if len(payload) <= MAX_REQUEST_BYTES and decodes(TYPES, case):
        tally.decoded[source] += 1
    sent = time.monotonic()
    try:
        reply = await ask(client, subject, payload)
        code = str(reply.get("code", reply["reply"]))
    except Exception as exc:  # noqa: BLE001  # no reply, or not a reply: a failure either way
        code = f"no reply: {type(exc).__name__}"
        tally.failures.append(f"{code} ({exc}) to {shown(case)}")
    else:
        if code == ErrorCode.INTERNAL:
            tally.failures.append(f"internal {reply} to {shown(case)}")
        elif len(payload) > MAX_REQUEST_BYTES and code != ErrorCode.TOO_LARGE:
            tally.failures.append(f"{code} (not too-large) to {shown(case)}")
        valid(case, reply, tally)
    took = time.monotonic() - sent
    tally.seconds[subject] += took
    tally.slowest[subject] = max(tally.slowest.get(subject, (0.0, 0)), (took, len(payload)))
    tally.codes[code] += 1
    tally.by_subject[subject][code] += 1
    if code == ErrorCode.MALFORMED:
        tally.malformed[source] += 1
    if tally.codes.total() % PROGRESS == 0:
        print(tally.progress(), flush=True)


def valid(case: Case, reply: dict[str, Any], tally: Tally) -> None:
    """Record a valid request answered as such: what it may have appended or created."""
    kind = reply.get("reply")
    if kind in ("seed", "drawn"):
        tally.seeded.add(str(reply["game_id"]))
    elif kind == "queued" and reply.get("waiting") == 0:
        kind = "paired"  # its table was full: matchmaking created a game
    elif kind in ("created", "receipt"):
        request = msgspec.json.decode(case[1])
        tally.accepted[str(reply["game_id"])].add(str(request["command_id"]))
        if kind == "created":
            tally.created.add(str(reply["game_id"]))
        elif reply.get("duplicate"):
            kind = "receipt (duplicate)"
    else:
        return
    tally.answered[str(kind)] += 1


Run = tuple[Client, st.SearchStrategy[Case], int, str]  # ..., count, source


def drive(loop: asyncio.AbstractEventLoop, runs: list[Run], t: Tally) -> None:
    """In a thread: generate each run's messages and send them, IN_FLIGHT at a time."""
    slots = threading.BoundedSemaphore(IN_FLIGHT)

    def sent(_: Future[None]) -> None:
        slots.release()

    def run(client: Client, strategy: st.SearchStrategy[Case], count: int, source: str) -> None:
        @settings(max_examples=count, deadline=None, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))  # fmt: skip
        @given(strategy)
        def send(case: Case) -> None:
            slots.acquire()
            sending = one(client, case, source, t)
            asyncio.run_coroutine_threadsafe(sending, loop).add_done_callback(sent)

        send()

    for client, strategy, count, source in runs:
        if count > 0:
            run(client, strategy, count, source)
    for _ in range(IN_FLIGHT):  # every request answered (or timed out)
        slots.acquire()


def processes(up: int) -> dict[int, str]:
    """The children of `tabula up` (services, nats-server, valkey): pid -> command line."""
    found = {}
    for children in Path(f"/proc/{up}/task").glob("*/children"):
        for pid in map(int, children.read_text().split()):
            with contextlib.suppress(OSError):  # exited meanwhile
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
                found[pid] = cmdline.decode().strip()
    return found


def rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


async def keys(redis: Any) -> tuple[int, int, set[str]]:
    """(games indexed, DBSIZE, every key)."""
    every = {k.decode() async for k in redis.scan_iter(count=1000)}
    return await redis.zcard(GAMES_INDEX), await redis.dbsize(), every


async def expiring(redis: Any, every: set[str]) -> set[str]:
    """The keys among `every` that belong to an EXPIRING family and carry a TTL now."""
    candidates = sorted(k for k in every if k.startswith(EXPIRING))
    pipe = redis.pipeline(transaction=False)
    for key in candidates:
        pipe.pttl(key)
    return {k for k, ttl in zip(candidates, await pipe.execute(), strict=True) if ttl > 0}


def gone(before: set[str], after: set[str], timed: set[str]) -> tuple[set[str], list[str]]:
    """Keys of `before` missing from `after`: (expired, failures). Only a key that carried a TTL
    at the start (`timed`, from `expiring`) may have expired; any other is lost."""
    missing = before - after
    return missing & timed, [f"key {k!r} is gone" for k in sorted(missing - timed)]


def plan(n: int, player: Client, rules: Client, games: list[Legit]) -> list[Run]:
    """n messages: 3/4 as the player, 1/4 as the rules service; of each, half typed, 1/20 raw
    or oversize, the rest hostile."""
    runs: list[Run] = []
    for client, types, count in ((player, PLAYER, n - n // 4), (rules, RANDOMNESS, n // 4)):
        runs += [
            (client, typed(types, games), count // 2, "typed"),
            (client, hostile(types), count - count // 2 - count // 20, "hostile"),
            (client, junk(types), count // 20, "junk"),
        ]
    return runs


async def legit(player: Client) -> list[Legit]:
    """The legit games: created by the player as any player would, their tokens kept."""
    games = []
    for ruleset, variant in LEGIT:
        new = await player.create_game(ruleset, variant)
        tokens = tuple(g.token for g in sorted(new.seats, key=lambda g: g.seat))
        games.append(Legit(new.game_id, ruleset, new.version, tokens))
    return games


async def index(redis: Any) -> dict[str, int]:
    """Every indexed game id -> its head version (0: none)."""
    ids = [g.decode() for g in await redis.zrange(GAMES_INDEX, 0, -1)]
    pipe = redis.pipeline(transaction=False)
    for g in ids:
        pipe.hget(f"tabula:game:{{{g}}}:meta", "version")
    return {g: int(v or 0) for g, v in zip(ids, await pipe.execute(), strict=True)}


async def appended(store: EventStore, before: dict[str, int], after: dict[str, int],
                   tally: Tally) -> tuple[int, list[str]]:  # fmt: skip
    """Events appended since `before`, each checked against the valid requests answered as such
    (see the module docstring): (how many, failures)."""
    count, failures = 0, []
    new = set(after) - set(before)
    made = new - tally.created  # by matchmaking: named by no `created` reply
    if len(made) != tally.answered["paired"]:
        named, paired = len(new & tally.created), tally.answered["paired"]
        failures.append(f"{len(new)} new games: {named} named by `created` replies, "
                        f"{len(made)} others, but {paired} pairings")  # fmt: skip
    failures += [f"`created` game {g} is not in the index" for g in tally.created - set(after)]
    for game_id, head in sorted(after.items()):
        if head <= before.get(game_id, 0):
            continue
        ok = tally.accepted.get(game_id, set())
        for e in await store.read_all(game_id, after=before.get(game_id, 0)):
            count += 1
            mine = (
                e.command_id in ok
                or (game_id in made and e.command_id.startswith("match:"))
                or (e.command_id.startswith("finish:") and e.type in PLATFORM_FINISH)
            )
            if not mine:
                by = f"command {e.command_id!r}, which got no `created` or `receipt`"
                failures.append(f"{game_id!r} v{e.version} {e.type} appended by {by}")
    return count, failures


async def fuzz(home: Path, up: int, n: int) -> tuple[Tally, list[str]]:
    stack = msgspec.json.decode(stack_path(home).read_bytes(), type=StackFile)
    creds = access.load_or_create(home / "secrets")
    player = await Client.connect(stack.nats_url)
    rules = await Client.connect(access.with_user(stack.nats_url, "rules",
                                                  creds.passwords["rules"]))  # fmt: skip
    redis = aioredis.from_url(stack.admin_redis_url)
    store = EventStore.from_url(stack.admin_redis_url, archive=ArchiveReader(stack.postgres_url))
    loop, tally, report = asyncio.get_running_loop(), Tally(), []
    games = await legit(player)
    print("legit games: " + ", ".join(f"{g.ruleset} {g.game_id}" for g in games))
    procs = processes(up)
    services = {pid: cmd.split()[-1] for pid, cmd in procs.items() if "services." in cmd}
    names = {p: services.get(p) or Path(c.split()[0]).name for p, c in procs.items()}
    print("processes: " + ", ".join(f"{name} {pid}" for pid, name in names.items()))
    heads, (indexed, size, before) = await index(redis), await keys(redis)
    timed = await expiring(redis, before)
    warm = n // 10
    await asyncio.to_thread(drive, loop, plan(warm, player, rules, games), tally)
    print(f"warm-up done: {warm} messages", flush=True)
    base = {pid: rss(pid) for pid in services}
    await asyncio.to_thread(drive, loop, plan(n - warm, player, rules, games), tally)
    failures = tally.failures
    if tally.codes.total() < n:
        failures.append(f"only {tally.codes.total()} of {n} messages sent")
    now = processes(up)
    for pid, cmd in procs.items():
        if now.get(pid) != cmd:  # a dead child is gone from the list, or a zombie without one
            failures.append(f"process {pid} ({cmd}) is gone or replaced")
    failures += [f"new process {pid} ({cmd})" for pid, cmd in now.items() if pid not in procs]
    for pid, name in services.items():
        after = rss(pid) if pid in now else 0
        was, now_ = base[pid] / MIB, after / MIB
        report.append(f"  {name:<20} {pid:>7} RSS {was:7.1f} MiB -> {now_:7.1f} MiB")
        if after > base[pid] * 1.25 + 16 * MIB:
            failures.append(f"{name} ({pid}) grew from {was:.1f} to {now_:.1f} MiB")
    heads_after, (indexed_after, size_after, after_keys) = await index(redis), await keys(redis)
    # Games that left Valkey for the archive meanwhile: their heads from there, their keys gone.
    for game_id in (set(heads) | tally.created) - set(heads_after):
        if await store.where(game_id) == "archive" and (head := await store.head(game_id)):
            heads_after[game_id] = head.version
    events, wrong = await appended(store, heads, heads_after, tally)
    failures += wrong
    new_games = set(heads_after) - set(heads)
    new = sorted(after_keys - before)
    made, randomness = Counter[str](), Counter[str]()
    for key in new:
        m = GAME_KEY.match(key)
        if m and m[1] in new_games:
            made[m[2]] += 1
        elif m and m[2] in RANDOMNESS_KEYS and (m[1] in tally.seeded or m[1] in tally.accepted):
            randomness[m[2]] += 1
        else:
            failures.append(f"new key {key!r}")
    archived = {k for k in before - after_keys
                if (m := GAME_KEY.match(k)) and await store.where(m[1]) == "archive"}  # fmt: skip
    expired, lost = gone(before - archived, after_keys, timed)
    failures += lost
    if size_after - size != len(new) - len(before - after_keys):
        failures.append(f"DBSIZE {size} -> {size_after}, {len(new)} new keys, "
                        f"{len(before - after_keys)} gone")  # fmt: skip
    answered = ", ".join(f"{n} {kind}" for kind, n in sorted(tally.answered.items()))
    report += [
        (
            f"  games index {indexed} -> {indexed_after}; DBSIZE {size} -> {size_after}; "
            f"{len(expired)} keys expired as designed: {', '.join(sorted(expired)) or 'none'}; "
            f"{len(archived)} keys of archived games removed"
        ),
        f"  valid requests answered as such: {answered or 'none'}",
        (
            f"  {len(new_games)} new games ({len(new_games & tally.created)} named by `created` "
            f"replies, {len(new_games - tally.created)} made by matchmaking); {events} events "
            f"appended, to {sum(h > heads.get(g, 0) for g, h in heads_after.items())} games"
        ),
        "  keys of new games: " + (", ".join(f"{n} {k}" for k, n in sorted(made.items()))
                                   or "none"),
        f"  created by the randomness service for {len(tally.seeded)} game ids with a seed or "
        "draw answered, or an accepted action: "
        + (", ".join(f"{n} {kind}" for kind, n in sorted(randomness.items())) or "none"),
        "  legit games now: " + ", ".join(f"{g.game_id} v{heads_after.get(g.game_id)}"
                                          for g in games),
    ]  # fmt: skip
    await asyncio.gather(player.close(), rules.close())
    await asyncio.gather(redis.aclose(), store.close())
    return tally, report


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--messages", type=int, default=50_000, help="hostile messages to send")
    n = p.parse_args().messages
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        with embedded_stack(home) as up:
            tally, report = asyncio.run(fuzz(home, up.proc.pid, n))
        report.append(f"  `tabula up` exited with {up.proc.returncode}")
        errors, samples = Counter[str](), []
        for log in sorted((home / "logs").glob("*.log")):
            for line in log.read_text(errors="replace").splitlines():
                if '"level": "error"' in line or "Traceback" in line:
                    errors[log.name] += 1
                    if errors[log.name] <= 3:  # the first few, for the report
                        samples.append(f"  {log.name}: {line[:1500]}")
    failures = tally.failures
    failures += [f"`tabula up`: {line.strip()}" for line in up.output if "restarting" in line]
    print(f"\n{tally.codes.total()} messages in {time.monotonic() - tally.started:.1f} s")
    print("per subject:")
    for s, n in sorted(tally.subjects.items()):
        (most, size), mean = tally.slowest[s], tally.seconds[s] / n
        print(f"  {s:<22} {n:>7}  mean {mean * 1000:5.1f} ms, "
              f"slowest {most * 1000:6.1f} ms ({size} bytes)")  # fmt: skip
    print("decoded (locally, as the subject's type) and answered malformed, by source:")
    for source, n in sorted(tally.sent.items()):
        ok, bad = tally.decoded[source], tally.malformed[source]
        print(f"  {source:<8} {n:>7} sent, {ok:>7} decoded ({ok / n:6.1%}), "
              f"{bad:>7} malformed ({bad / n:6.1%})")  # fmt: skip
        if source == "typed" and ok < TYPED_DECODE * n:
            failures.append(f"only {ok} of {n} typed messages decode")
    total = tally.codes.total() or 1
    print(f"  all      {tally.codes.total():>7} sent, {tally.decoded.total():>7} decoded "
          f"({tally.decoded.total() / total:6.1%})")  # fmt: skip
    print("replies:")
    print("\n".join(f"  {c:<22} {n:>7}" for c, n in tally.codes.most_common()))
    print("replies by subject:")
    for s, codes in sorted(tally.by_subject.items()):
        print(f"  {s}: " + ", ".join(f"{c} {n}" for c, n in codes.most_common()))
    print("memory and store:")
    print("\n".join(report))
    print("error lines in service logs: " + (", ".join(f"{f} {n}" for f, n in errors.items())
                                             or "none"))  # fmt: skip
    print("\n".join(samples))
    if failures:
        print(f"\nFAILED: {len(failures)} failures")
        print("\n".join(f"  {f}" for f in failures[:100]))
        sys.exit(1)
    print(
        "\nOK: every reply typed, no crash, memory flat, nothing appended or created except "
        "by requests that were valid and answered as such"
    )


if __name__ == "__main__":
    main()
