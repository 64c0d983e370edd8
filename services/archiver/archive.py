"""Copying a sealed game from Valkey into PostgreSQL's archive, then having its keys removed.

A game is copied only once it is sealed (meta `sealed`, a GameSealed at the head), and only
after the copy is checked against the seal: the hash chain recomputed over the stored bytes
verifies, ends at the meta's head, and the GameSealed names the (n-1, h_(n-1)) before it. Then
the game's row, its log and command ids packed (services.runtime.archived: every stream
entry's stored bytes, never re-encoded), goes in ONE transaction, `INSERT ... ON CONFLICT DO
NOTHING` (archiving twice is harmless), and the row read back inside that transaction must
be the bytes packed (one archived before, by an older packing, must unpack to what was read
from Valkey), or nothing is committed. A game that fails a check is refused: logged loudly
with its id, counted, and not archived.

Only once the archive's commit is acknowledged does the archiver ask the rules service to
remove the game's hot keys (Forget on the bus): the archiver itself may only read Valkey. The
rules service compares the archive's copy with the keys byte for byte before it removes them,
and only a sealed game's (forget.lua), so even the archiver's credentials cannot remove a game
in play or one whose archived copy is not exact. A crash between the two steps leaves the game
whole in both places; the next sweep asks again. Reads fall through to the archive
(services.runtime.eventstore.EventStore.archive).
"""

import asyncio
import contextlib
import functools
import itertools
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec
import psycopg
import redis.asyncio as aioredis
import redis.exceptions
import structlog
from nats.aio.client import Client as NATS
from nats.errors import Error as NATSError

from contracts import subjects
from contracts.commands import Forget, ForgetGames, Forgotten, ForgottenGames
from contracts.envelope import StoredEvent
from contracts.events import GameSealed
from domain import fairplay
from domain.audit.chain import chain_entries
from services.runtime import archived, metrics
from services.runtime.bus import Requester, TabulaError
from services.runtime.codec import CorruptEntry
from services.runtime.database import connected
from services.runtime.eventstore import parse_entry, read_raw
from services.runtime.keys import GAMES_INDEX, meta_key

log = structlog.get_logger()

# The fields append.lua and import_log write on every entry (`act` when the command had one).
KNOWN = frozenset((b"g", b"v", b"type", b"body", b"cmd", b"ts", b"h", b"act"))
INDEX_PAGE = 1000
# Asks for games' hot keys to be removed: game -> None when they are, else why they stay.
Forgetter = Callable[[dict[str, tuple[int, str]]], Awaitable[dict[str, str | None]]]
# Reads the batch's rows back inside its transaction: Mismatch when they are not the copies.
Check = Callable[["psycopg.AsyncCursor[Any]", list["GameCopy"]], Awaitable[None]]
BATCH = 64  # games read, written in one transaction, then removed, at a time
# Notices come one game at a time: a batch short of BATCH waits this long for more, so that at
# a high rate one transaction, one read-back and one Forget serve many games, not one each (a
# game then leaves Valkey a second later: nothing waits on it).
GATHER_S = 1.0


class Refused(Exception):
    """The game's keys do not verify against its seal: it is not archived."""


class NotSealed(Exception):
    """The game is in play (or ended but not yet sealed): not the archiver's yet."""


class Gone(Exception):
    """The game's keys were removed already (its tombstone, or nothing): archived before.
    `head` is the tombstone's (version, hash): the removal may still lack its last steps."""

    def __init__(self, game_id: str, head: tuple[int, str] | None) -> None:
        super().__init__(game_id)
        self.head = head


class NotForgotten(Exception):
    """The rules service did not remove the game's keys (it refused, or did not answer): the
    game stays whole in both places until the next sweep asks again."""


class Mismatch(Exception):
    """The archive's rows, read back in the transaction, are not the copy written (a row
    there already that differs): the transaction is rolled back."""


class Notice(msgspec.Struct):
    """What the archiver reads of a GameSealed's notice (subjects.game_sealed: the public
    contracts.envelope.StoredEvent)."""

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

    @functools.cached_property
    def packed(self) -> tuple[bytes, bytes]:
        """The log and the command ids as the archive stores them (format archived.FORMAT)."""
        return (archived.pack_log(self.entries),
                archived.pack_commands(self.commands, self.entries))  # fmt: skip

    def row(self) -> tuple[Any, ...]:
        """The game's archived_games row (the columns of INSERT_GAME)."""
        meta, head = self.meta, self.head
        return (self.game_id, _text(meta, "ruleset") or "", _text(meta, "chain") or "1",
                head.version, head.hash, _text(meta, "result"), _text(meta, "reason"),
                _time(self.stored[0].time_ms), _time(head.time_ms), archived.FORMAT,
                *self.packed)  # fmt: skip


# RETURNING names the rows this INSERT wrote: a game not named was in the archive already.
INSERT_GAME = (
    "INSERT INTO archived_games (game_id, ruleset, chain, head_version, head_hash, result, "
    "reason, created_at, sealed_at, format, log, commands) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING "
    "RETURNING game_id"
)


def _text(meta: dict[bytes, bytes], name: str) -> str | None:
    value = meta.get(name.encode())
    return None if value is None else value.decode(errors="replace")


def _time(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


async def read_game(redis: "aioredis.Redis", game_id: str) -> GameCopy:
    """The game's stream, meta and command ids exactly as stored (one MULTI/EXEC, so one
    moment of the game), verified against its seal; Refused naming what does not hold."""
    return verify(game_id, *await read_raw(redis, game_id))


def verify(
    game_id: str,
    entries: list[tuple[bytes, dict[bytes, bytes]]],
    meta: dict[bytes, bytes],
    commands: dict[bytes, bytes],
) -> GameCopy:
    """The copy, once it holds against the seal; Refused otherwise."""
    if not meta or b"archived" in meta:
        tomb = (meta.get(b"version"), meta.get(b"head"))
        raise Gone(game_id, (int(tomb[0]), tomb[1].decode()) if tomb[0] and tomb[1] else None)
    if _text(meta, "sealed") != "1":
        raise NotSealed(game_id)
    if not entries:
        raise Refused("the game's log is empty")
    stored = []
    g = game_id.encode()
    for entry_id, fields in entries:
        if not fields.keys() <= KNOWN:
            unknown = sorted(k.decode(errors="replace") for k in fields.keys() - KNOWN)
            raise Refused(f"the entry at stream id {entry_id.decode()} has fields the archive "
                          f"has no column for: {', '.join(unknown)}")  # fmt: skip
        try:
            event = parse_entry(game_id, entry_id, fields)
        except CorruptEntry as exc:
            raise Refused(str(exc)) from None
        if fields.get(b"g") != g:
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


async def write(conn: "psycopg.AsyncConnection[Any]", copies: list[GameCopy],
                check: "Check | None" = None) -> set[str]:  # fmt: skip
    """The games' rows in one transaction, idempotently; committed only if the rows read back
    (`check`, by default `same_rows`) are the copies. The games whose rows it wrote (the
    others were archived before)."""
    if not copies:
        return set()
    async with conn.transaction(), conn.cursor() as cur:
        await cur.executemany(INSERT_GAME, [c.row() for c in copies], returning=True)
        new: set[str] = set()
        while True:
            new.update(row[0] for row in await cur.fetchall())
            if not cur.nextset():
                break
        await (check or same_rows)(cur, copies)
    return new


async def same_rows(cur: "psycopg.AsyncCursor[Any]", copies: list[GameCopy]) -> None:
    """Inside the transaction: the archive holds exactly the copies (each one's head, every
    entry's fields byte for byte, every command id), else Mismatch (and the caller's rollback).
    A row that is the bytes just packed is the copy; another (archived before, by an older
    packing) is unpacked and compared. The rules service compares the archive's copy with the
    hot keys again before it removes them (Rules.forget)."""
    await cur.execute(
        "SELECT game_id, head_version, head_hash, format, log, commands FROM archived_games "
        "WHERE game_id = ANY(%s)",
        ([c.game_id for c in copies],),
    )
    rows = {row[0]: row[1:] for row in await cur.fetchall()}
    for copy in copies:
        row = rows.get(copy.game_id)
        if row is None or (row[0], row[1]) != (copy.head.version, copy.head.hash):
            raise Mismatch(f"the archived game {copy.game_id}'s head is not the store's")
        fmt, log_, commands = row[2], bytes(row[3]), bytes(row[4])
        if (fmt, log_, commands) == (archived.FORMAT, *copy.packed):
            continue
        if archived.unpack_log(log_, fmt) != copy.entries:
            raise Mismatch(f"the archived log of {copy.game_id} is not the stored entries")
        if archived.unpack_commands(commands, fmt, copy.entries) != copy.commands:
            raise Mismatch(f"the archived command ids of {copy.game_id} are not the stored ones")


class Archiver:
    """Finds sealed games still in Valkey, copies them into the archive and has their keys
    removed, a batch at a time: up to BATCH games read from Valkey, written in one
    transaction (one commit, one fsync, for all of them), then their removals asked in one
    Forget. One PostgreSQL connection, as the `archiver` role (SELECT and INSERT on the
    archive, nothing more)."""

    def __init__(self, redis: "aioredis.Redis", database_url: str, forget: Forgetter) -> None:
        self.redis = redis
        self.database_url = database_url
        # Asks for games' hot keys to be removed (bus_forget): for each game, None when they
        # are, else why they stay; NotForgotten when nobody answered.
        self.forget = forget
        self.conn: psycopg.AsyncConnection[Any] | None = None
        self.lock = asyncio.Lock()  # one batch in hand at a time, on the one connection
        self.due: dict[str, None] = {}  # games to archive, in the order they were cued
        self.worker: asyncio.Task[None] | None = None
        self.closing = False  # the drain began: finish the batch in hand, start no other
        self.refused: set[str] = set()  # refused by this process: logged once, not retried
        self.totals: Counter[str] = Counter()
        # How the worker runs: in a task the service's drain waits for (set by wire()).
        self.spawn: Callable[[Coroutine[Any, Any, None]], asyncio.Task[None]] = asyncio.create_task
        self.check: Check = same_rows

    async def connection(self) -> "psycopg.AsyncConnection[Any]":
        self.conn = await connected(self.conn, self.database_url)
        return self.conn

    async def read(self, game_id: str) -> GameCopy:
        return await read_game(self.redis, game_id)

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()

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
        """Sealed games still in Valkey (nor refused by this process): not archived yet, or
        archived with their keys not yet removed. A removed game leaves the index."""
        out: list[str] = []
        async for page in self.sealed():
            out += [g for g in page if g not in self.refused]
        return out

    # -- cues -------------------------------------------------------------------------------

    def noticed(self, notice: Notice) -> None:
        """A GameSealed's notice: the cue to archive its game now."""
        if notice.type == "GameSealed":
            self.mark([notice.game_id])

    def mark(self, game_ids: list[str]) -> None:
        if self.closing:
            return
        self.due.update(dict.fromkeys(game_ids))
        if self.due and (self.worker is None or self.worker.done()):
            self.worker = self.spawn(self._work())

    async def _work(self) -> None:
        while self.due and not self.closing:
            if len(self.due) < BATCH:
                await asyncio.sleep(GATHER_S)
                if self.closing:
                    break
            batch = list(itertools.islice(self.due, BATCH))
            for game_id in batch:
                del self.due[game_id]
            await self.archive_batch(batch)

    def stop(self) -> None:
        """The drain began: the batch in hand is finished, no other is started."""
        self.closing = True

    async def sweep(self) -> None:
        """Archive every sealed game still in Valkey: what a notice missed (the archiver was
        down, or the notice lost) or a removal that did not happen is found here."""
        pending = await self.pending()
        metrics.ARCHIVE_BACKLOG.set(len(pending))
        metrics.GAMES_HOT.set(await self.redis.zcard(GAMES_INDEX))
        before = self.totals.copy()
        if pending:
            self.mark(pending)
            if self.worker is not None:
                await asyncio.shield(self.worker)
        if pending or self.totals != before:
            log.info("archive sweep", pending=len(pending), **self.counts(before))

    def counts(self, before: Counter[str]) -> dict[str, int]:
        """This sweep's outcomes and the process's totals: the archiver's metrics line."""
        now = {k: self.totals[k] - before[k]
               for k in ("archived", "already", "kept", "refused", "failed")}  # fmt: skip
        return {**now, **{f"total_{k}": v for k, v in self.totals.items()}}

    # -- archiving --------------------------------------------------------------------------

    async def archive(self, game_id: str) -> str:
        """Archive one game and have its hot keys removed (see archive_batch)."""
        return (await self.archive_batch([game_id]))[game_id]

    async def archive_batch(self, game_ids: list[str]) -> dict[str, str]:
        """Archive games and have their hot keys removed; each game's outcome: "archived",
        "already" (in the archive before: its keys are removed now), "gone" (removed before),
        "kept" (archived, but its keys stay until the next sweep), "unsealed" (in play: left
        alone), "refused" (it does not verify: not archived), "failed" (a server failed:
        tried again next sweep)."""
        async with self.lock:
            outcomes = await self._batch(game_ids)
            self.totals.update(outcomes.values())
            for outcome in outcomes.values():
                metrics.ARCHIVED.labels(outcome).inc()
            return outcomes

    async def _batch(self, game_ids: list[str]) -> dict[str, str]:
        out = {g: "refused" for g in game_ids if g in self.refused}
        todo = [g for g in game_ids if g not in out]
        reads = await asyncio.gather(*(self.read(g) for g in todo), return_exceptions=True)
        copies: list[GameCopy] = []
        removals: dict[str, tuple[int, str]] = {}  # game -> the head its Forget names
        for game_id, read in zip(todo, reads, strict=True):
            with structlog.contextvars.bound_contextvars(game_id=game_id):
                match read:
                    case GameCopy():
                        copies.append(read)
                    case Gone(head=None):
                        out[game_id] = "gone"
                    case Gone(head=head) if head is not None:  # its last steps may be due
                        out[game_id], removals[game_id] = "gone", head
                    case NotSealed():
                        out[game_id] = "unsealed"
                    case Refused():
                        self.refused.add(game_id)
                        log.error("ARCHIVE REFUSED: the game's keys do not verify against its "
                                  "seal; it stays in the hot store only", reason=str(read),
                                  refused_total=self.totals["refused"] + 1)  # fmt: skip
                        out[game_id] = "refused"
                    case redis.exceptions.RedisError() | OSError():
                        log.warning("archive failed; tried again next sweep", error=repr(read))
                        out[game_id] = "failed"
                    case BaseException():
                        raise read
        if copies:
            out |= await self._commit(copies)
            removals |= {c.game_id: (c.head.version, c.head.hash) for c in copies
                         if out[c.game_id] in ("archived", "already")}  # fmt: skip
        out |= await self._remove(removals, out)
        return out

    async def _commit(self, copies: list[GameCopy]) -> dict[str, str]:
        """The copies not archived yet written in one transaction: each "archived",
        "already" or "failed". A copy whose read-back differs (Mismatch) rolls the batch back;
        each is then written on its own, so the others still go in."""
        try:
            try:
                new = await write(await self.connection(), copies, self.check)
            except Mismatch:
                if len(copies) == 1:
                    raise
                out: dict[str, str] = {}
                for copy in copies:
                    out |= await self._commit([copy])
                return out
        except Mismatch as exc:
            log.error("archive rolled back: the archive's rows are not the store's",
                      game_id=copies[0].game_id, reason=str(exc))  # fmt: skip
            return {c.game_id: "failed" for c in copies}
        except (psycopg.Error, OSError) as exc:
            log.warning("archive failed; tried again next sweep", error=repr(exc),
                        games=len(copies))  # fmt: skip
            if self.conn is not None and self.conn.broken:
                with contextlib.suppress(psycopg.Error):
                    await self.conn.close()
            return {c.game_id: "failed" for c in copies}
        for copy in copies:
            if copy.game_id in new:
                log.info("archived", game_id=copy.game_id, version=copy.head.version,
                         head=copy.head.hash, commands=len(copy.commands))  # fmt: skip
        return {c.game_id: "archived" if c.game_id in new else "already" for c in copies}

    async def _remove(self, removals: dict[str, tuple[int, str]], out: dict[str, str]
                      ) -> dict[str, str]:  # fmt: skip
        """One Forget for the batch's games: "kept" where their keys stay."""
        if not removals:
            return {}
        try:
            refused = await self.forget(removals)
        except NotForgotten as exc:
            refused = dict.fromkeys(removals, str(exc))
        for game_id, why in refused.items():
            if why is not None:
                log.warning("archived; its hot keys stay until the next sweep", game_id=game_id,
                            reason=why)  # fmt: skip
        return {g: out[g] if refused.get(g) is None else "kept" for g in removals}


def bus_forget(nc: "NATS", timeout: float = 30.0) -> Forgetter:
    """Forget on the bus (subjects.RULES_FORGET), one request for the games given (at most a
    batch), answered by a rules replica: for each game None, or why its keys stay;
    NotForgotten when nobody answered in time (a Forget is safe to send again)."""
    requester = Requester(nc, timeout=timeout, retries=0)

    async def forget(heads: dict[str, tuple[int, str]]) -> dict[str, str | None]:
        req = ForgetGames(games=[Forget(game_id=g, version=v, hash=h)
                                 for g, (v, h) in heads.items()])  # fmt: skip
        try:
            reply = await requester.request(subjects.RULES_FORGET, req, ForgottenGames)
        except TabulaError as exc:
            raise NotForgotten(str(exc)) from None
        except (NATSError, TimeoutError) as exc:
            raise NotForgotten(f"the rules service did not answer: {exc!r}") from None
        return {g: None if isinstance(o, Forgotten) else f"{o.code}: {o.reason}"
                for g, o in zip(heads, reply.outcomes, strict=True)}  # fmt: skip

    return forget
