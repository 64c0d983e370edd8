"""Copying a sealed game from Valkey into PostgreSQL's archive (issue 21, second increment).

A game is copied only once it is sealed (meta `sealed`, a GameSealed at the head), and only
after the copy is checked against the seal: the hash chain recomputed over the stored bytes
verifies, ends at the meta's head, and the GameSealed names the (n-1, h_(n-1)) before it. Then
the game, every stream entry (each field's stored bytes, never re-encoded) and its command ids
go in ONE transaction, `INSERT ... ON CONFLICT DO NOTHING` (archiving twice is harmless), and
the rows read back inside that transaction must equal what was read from Valkey, or nothing is
committed. A game that fails a check is refused: logged loudly with its id, counted, and not
archived.

The hot copy stays in Valkey: removing an archived game's keys (a narrow right) and reads that
fall through to the archive are the next increment.
"""

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec
import psycopg
import redis.asyncio as aioredis
import redis.exceptions
import structlog

from contracts.envelope import StoredEvent
from contracts.events import GameSealed
from domain import fairplay
from domain.audit.chain import chain_entries
from services.runtime.codec import CorruptEntry
from services.runtime.eventstore import parse_entry
from services.runtime.keys import GAMES_INDEX, commands_key, log_key, meta_key

log = structlog.get_logger()

# The fields append.lua and import_log write on every entry (`act` when the command had one).
REQUIRED = (b"g", b"v", b"type", b"body", b"cmd", b"ts", b"h")
OPTIONAL = (b"act",)
INDEX_PAGE = 1000


class Refused(Exception):
    """The game's keys do not verify against its seal: it is not archived."""


class NotSealed(Exception):
    """The game is in play (or ended but not yet sealed): not the archiver's yet."""


class Mismatch(Exception):
    """The archive's rows, read back in the transaction, are not the copy written (a row
    there already that differs): the transaction is rolled back."""


class Notice(msgspec.Struct):
    """What the archiver reads of a committed event's notice (contracts.envelope.StoredEvent)."""

    game_id: str
    type: str


@dataclass(frozen=True)
class GameCopy:
    """A sealed game's keys as stored, verified: what goes into the archive."""

    game_id: str
    entries: list[tuple[bytes, dict[bytes, bytes]]]  # stream id, fields: XRANGE's raw reply
    meta: dict[bytes, bytes]
    commands: dict[bytes, bytes]
    stored: list[StoredEvent]

    @property
    def head(self) -> StoredEvent:
        return self.stored[-1]

    def event_rows(self) -> list[tuple[Any, ...]]:
        """archived_events' rows, in version order, each field the stored bytes."""
        return [
            (self.game_id, s.version, entry_id, f[b"g"], f[b"v"], f[b"type"], f[b"body"],
             f[b"cmd"], f[b"ts"], f[b"h"], f.get(b"act"))
            for s, (entry_id, f) in zip(self.stored, self.entries, strict=True)
        ]  # fmt: skip

    def command_rows(self) -> list[tuple[Any, ...]]:
        rows = []
        for command_id, value in sorted(self.commands.items()):
            first, last, digest = value.decode().split(" ")
            rows.append((self.game_id, command_id, value, int(first), int(last), digest))
        return rows


def _text(meta: dict[bytes, bytes], name: str) -> str | None:
    value = meta.get(name.encode())
    return None if value is None else value.decode(errors="replace")


def _time(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


async def read_game(redis: "aioredis.Redis", game_id: str) -> GameCopy:
    """The game's stream, meta and command ids exactly as stored (one MULTI/EXEC, so one
    moment of the game), verified against its seal; Refused naming what does not hold."""
    async with redis.pipeline(transaction=True) as pipe:
        pipe.xrange(log_key(game_id), "-", "+")
        pipe.hgetall(meta_key(game_id))
        pipe.hgetall(commands_key(game_id))
        raw_entries, meta, commands = await pipe.execute()
    entries = [(bytes(i), dict(f)) for i, f in raw_entries]
    return verify(game_id, entries, meta, commands)


def verify(
    game_id: str,
    entries: list[tuple[bytes, dict[bytes, bytes]]],
    meta: dict[bytes, bytes],
    commands: dict[bytes, bytes],
) -> GameCopy:
    """The copy, once it holds against the seal; Refused otherwise."""
    if _text(meta, "sealed") != "1":
        raise NotSealed(game_id)
    if not entries:
        raise Refused("the game's log is empty")
    stored = []
    for entry_id, fields in entries:
        unknown = sorted(k.decode(errors="replace") for k in fields
                         if k not in REQUIRED and k not in OPTIONAL)  # fmt: skip
        if unknown:
            raise Refused(f"the entry at stream id {entry_id.decode()} has fields the archive "
                          f"has no column for: {', '.join(unknown)}")  # fmt: skip
        try:
            event = parse_entry(game_id, entry_id, fields)
        except CorruptEntry as exc:
            raise Refused(str(exc)) from None
        if b"g" not in fields or fields[b"g"] != game_id.encode():
            raise Refused(f"the entry at version {event.version} names another game (g)")
        stored.append(event)
    n = len(stored)
    if (broken := fairplay.verify_chain(game_id, chain_entries(stored))) is not None:
        raise Refused(f"the hash chain does not verify at version {broken}")
    chain = fairplay.chain_version(game_id, chain_entries(stored[:1]))
    if str(chain) != (_text(meta, "chain") or "1"):
        raise Refused(f"the log's hash chain is v{chain}, the meta says v{_text(meta, 'chain')}")
    head = stored[-1]
    if _text(meta, "version") != str(n) or _text(meta, "head") != head.hash:
        said = f"version {_text(meta, 'version')} ({(_text(meta, 'head') or '')[:12]})"
        raise Refused(f"the log ends at version {n} ({head.hash[:12]}), the meta's head is {said}")
    if head.type != "GameSealed" or n < 2:
        raise Refused(f"the log's last event is {head.type}, not GameSealed")
    try:
        seal = msgspec.json.decode(bytes(head.body), type=GameSealed)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise Refused(f"the GameSealed does not decode: {exc}") from None
    if seal.version != n - 1 or seal.hash != stored[n - 2].hash:
        raise Refused(f"the GameSealed names version {seal.version} ({seal.hash[:12]}), the "
                      f"log has version {n - 1} ({stored[n - 2].hash[:12]}) before it")  # fmt: skip
    for command_id, value in commands.items():
        try:
            first_s, last_s, digest = value.decode().split(" ")
            first, last = int(first_s), int(last_s)
        except ValueError:
            raise Refused(f"command {command_id!r}'s receipt {value[:60]!r} is malformed") from None
        if not (0 < first <= last <= n) or stored[last - 1].hash != digest:
            raise Refused(f"command {command_id!r}'s receipt {value.decode()} is not in the log")
    return GameCopy(game_id, entries, dict(meta), dict(commands), stored)


async def write(conn: "psycopg.AsyncConnection[Any]", copy: GameCopy,
                check: "Callable[[psycopg.AsyncCursor[Any], GameCopy], Any] | None" = None,
                ) -> None:  # fmt: skip
    """The game, its events and its command ids in one transaction, idempotently; committed
    only if the rows read back (`check`, by default `same_rows`) are the copy."""
    meta, head = copy.meta, copy.head
    async with conn.transaction(), conn.cursor() as cur:
        await cur.execute(
            "INSERT INTO archived_games (game_id, ruleset, chain, head_version, head_hash, "
            "result, reason, created_at, sealed_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            (copy.game_id, _text(meta, "ruleset") or "", _text(meta, "chain") or "1",
             head.version, head.hash, _text(meta, "result"), _text(meta, "reason"),
             _time(copy.stored[0].time_ms), _time(head.time_ms)),
        )  # fmt: skip
        await cur.executemany(
            "INSERT INTO archived_events (game_id, version, stream_id, g, v, type, body, cmd, "
            "ts, h, act) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            copy.event_rows(),
        )
        if copy.commands:
            await cur.executemany(
                "INSERT INTO archived_commands (game_id, command_id, value, first_version, "
                "last_version, hash) VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                copy.command_rows(),
            )
        await (check or same_rows)(cur, copy)


async def same_rows(cur: "psycopg.AsyncCursor[Any]", copy: GameCopy) -> None:
    """Inside the transaction: the archive holds exactly the copy (its head, every event's
    fields byte for byte, every command id), else Mismatch (and the caller's rollback)."""
    await cur.execute(
        "SELECT head_version, head_hash FROM archived_games WHERE game_id = %s", (copy.game_id,)
    )
    if await cur.fetchone() != (copy.head.version, copy.head.hash):
        raise Mismatch("the archived game's head is not the store's")
    await cur.execute(
        "SELECT game_id, version, stream_id, g, v, type, body, cmd, ts, h, act "
        "FROM archived_events WHERE game_id = %s ORDER BY version",
        (copy.game_id,),
    )
    if [tuple(r) for r in await cur.fetchall()] != copy.event_rows():
        raise Mismatch("the archived events are not the stored entries")
    await cur.execute(
        "SELECT game_id, command_id, value, first_version, last_version, hash "
        "FROM archived_commands WHERE game_id = %s ORDER BY command_id",
        (copy.game_id,),
    )
    if [tuple(r) for r in await cur.fetchall()] != copy.command_rows():
        raise Mismatch("the archived command ids are not the stored ones")


class Archiver:
    """Finds sealed games not yet archived and copies them, one at a time, on one PostgreSQL
    connection (as the `archiver` role: SELECT and INSERT on the archive, nothing more)."""

    def __init__(self, redis: "aioredis.Redis", database_url: str) -> None:
        self.redis = redis
        self.database_url = database_url
        self.conn: psycopg.AsyncConnection[Any] | None = None
        self.lock = asyncio.Lock()  # one game in hand at a time
        self.refused: set[str] = set()  # refused by this process: logged once, not retried
        self.totals: Counter[str] = Counter()
        # How a game's archive is run: in a task the service's drain waits for (set by build).
        self.spawn: Callable[[str], asyncio.Task[None]] = self._task
        self.check: Callable[[psycopg.AsyncCursor[Any], GameCopy], Any] = same_rows

    def _task(self, game_id: str) -> "asyncio.Task[None]":
        return asyncio.create_task(self.run(game_id))

    async def connection(self) -> "psycopg.AsyncConnection[Any]":
        if self.conn is None or self.conn.closed or self.conn.broken:
            if self.conn is not None:
                await self.conn.close()
            self.conn = await psycopg.AsyncConnection.connect(self.database_url)
        return self.conn

    async def read(self, game_id: str) -> GameCopy:
        return await read_game(self.redis, game_id)

    async def write(self, copy: GameCopy) -> None:
        await write(await self.connection(), copy, self.check)

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()

    async def archived(self, game_ids: list[str]) -> set[str]:
        conn = await self.connection()
        async with conn.transaction(), conn.cursor() as cur:
            await cur.execute(
                "SELECT game_id FROM archived_games WHERE game_id = ANY(%s)", (game_ids,)
            )
            return {row[0] for row in await cur.fetchall()}

    async def sealed(self) -> AsyncIterator[list[str]]:
        """Pages of the games index's sealed games (meta `sealed`), oldest first."""
        start = 0
        # Any: redis-py types every reply as bytes | str | ...; this client is bytes-mode.
        redis: Any = self.redis
        while ids := await redis.zrange(GAMES_INDEX, start, start + INDEX_PAGE - 1):
            pipe = redis.pipeline(transaction=False)
            for game_id in ids:
                pipe.hget(meta_key(game_id.decode()), "sealed")
            flags = await pipe.execute()
            yield [g.decode() for g, f in zip(ids, flags, strict=True) if f == b"1"]
            start += INDEX_PAGE

    async def pending(self) -> list[str]:
        """Sealed games not in the archive (nor refused by this process)."""
        out: list[str] = []
        async for page in self.sealed():
            if page:
                done = await self.archived(page)
                out += [g for g in page if g not in done and g not in self.refused]
        return out

    async def sweep(self) -> None:
        """Archive every sealed game not yet archived: what a notice missed (the archiver was
        down, or the notice lost) is found here. Each game runs in a task the drain waits for,
        so a SIGTERM finishes the game in hand and starts no other."""
        pending = await self.pending()
        before = self.totals.copy()
        for game_id in pending:
            await asyncio.shield(self.spawn(game_id))
        if pending or self.totals != before:
            log.info("archive sweep", pending=len(pending), **self.counts(before))

    def counts(self, before: Counter[str]) -> dict[str, int]:
        """This sweep's outcomes and the process's totals: the archiver's metrics line."""
        now = {k: self.totals[k] - before[k] for k in ("archived", "already", "refused", "failed")}
        return {**now, **{f"total_{k}": v for k, v in self.totals.items()}}

    def noticed(self, notice: Notice) -> None:
        """A committed event's notice: a GameSealed is the cue to archive its game now."""
        if notice.type == "GameSealed":
            self.spawn(notice.game_id)

    async def run(self, game_id: str) -> None:
        await self.archive(game_id)

    async def archive(self, game_id: str) -> str:
        """Archive one game: "archived", "already" (in the archive before), "unsealed" (in
        play: left alone), "refused" (it does not verify: not archived), "failed" (a server
        failed: tried again next sweep)."""
        async with self.lock:
            with structlog.contextvars.bound_contextvars(game_id=game_id):
                outcome = await self._archive(game_id)
                self.totals[outcome] += 1
                return outcome

    async def _archive(self, game_id: str) -> str:
        try:
            if game_id in self.refused or await self.archived([game_id]):
                return "already"
            copy = await self.read(game_id)
            await self.write(copy)
        except NotSealed:
            return "unsealed"
        except Refused as exc:
            self.refused.add(game_id)
            log.error("ARCHIVE REFUSED: the game's keys do not verify against its seal; "
                      "it stays in the hot store only", reason=str(exc),
                      refused_total=self.totals["refused"] + 1)  # fmt: skip
            return "refused"
        except Mismatch as exc:
            log.error("archive rolled back: the archive's rows are not the store's",
                      reason=str(exc))  # fmt: skip
            return "failed"
        except (psycopg.Error, OSError, redis.exceptions.RedisError) as exc:
            log.warning("archive failed; tried again next sweep", error=repr(exc))
            if self.conn is not None and self.conn.broken:
                with contextlib.suppress(psycopg.Error):
                    await self.conn.close()
            return "failed"
        log.info("archived", version=copy.head.version, head=copy.head.hash,
                 commands=len(copy.commands))  # fmt: skip
        return "archived"
