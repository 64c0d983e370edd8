"""Event store on Redis Streams: one stream per game, a tamper-evident hash chain, never trimmed.

Keys are hash-tagged by game id (`tabula:game:{<id>}:...`) so a Redis Cluster keeps a game on one
slot. Appends go through one server-side script (append.lua): expected version and head hash
checked, idempotent per command id. Concurrent appends are group-committed: every append queued
while a round trip is in flight goes out in the next pipeline, one round trip per batch (on a
cluster, one per primary, each closed by WAIT and WAITAOF: an append is acknowledged once a replica
holds it on disk too).
"""

import asyncio
import contextlib
import math
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, cast
from urllib.parse import unquote, urlsplit

import hiredis
import msgspec
import redis.asyncio as aioredis
import redis.exceptions
from redis.asyncio.cluster import ClusterNode, PipelineCommand, RedisCluster
from redis.exceptions import (
    AskError,
    ClusterDownError,
    MovedError,
    NoScriptError,
    ResponseError,
    TryAgainError,
    WatchError,
)

from contracts.envelope import StoredEvent
from contracts.events import GameCreated, GameEnded, GameSealed
from domain import fairplay
from services.runtime import metrics
from services.runtime.archived import ArchivedGame, ArchiveReader, Entries
from services.runtime.codec import CorruptEntry
from services.runtime.keys import GAMES_INDEX, commands_key, log_key, meta_key
from services.runtime.signing import Signer

# How long a removed game's tombstone meta stays (forget.lua): three times the 5 minutes
# append.lua allows a create between its time and its append.
TOMBSTONE_S = 900
BATCH_TIMEOUT = 30.0  # seconds for one batch's round trip; past it the outcome is unknown
# On a cluster: how long an append waits for a replica to hold it on disk (WAITAOF) before its
# outcome is unknown; and how often a batch's appends refused for a slot that moved (a
# failover) are sent again, the cluster's layout read again first.
REPLICA_WAIT_MS = 2000
REDIRECTS = 3


class NotReplicated(redis.exceptions.ConnectionError):
    """An append its primary applied that no replica held on disk in time: a failover could
    lose it, so it is not acknowledged (its outcome is unknown; a retry is applied once)."""


# What an append can end in without an answer: it may or may not have been applied. On a
# cluster, also what it meets between two layouts (a primary failing over): ran nowhere, or
# its outcome unknown; either way a retry with the same command id is applied once.
UNKNOWN_OUTCOME = (OSError, redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
                   redis.exceptions.ClusterError, AskError, TryAgainError,
                   redis.exceptions.SlotNotCoveredError)  # fmt: skip
_MOVED = (AskError, ClusterDownError, MovedError, NoScriptError, TryAgainError)


def connect(url: str, max_connections: int = 64) -> "aioredis.Redis":
    """A client whose pool is bounded and blocking: a burst of requests waits for a connection
    instead of failing (redis-py's default pool raises "Too many connections").

    Several URLs, comma-separated, name a Valkey cluster's nodes (any reachable one gives its
    layout; the first's user and password are used): redis-py's cluster client, which speaks
    as the single-node one does for every command Tabula sends (a game's keys share a slot)."""
    if "," in url:
        return cast("aioredis.Redis", _cluster(url.split(","), max_connections))
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=max_connections, timeout=30
    )
    return aioredis.Redis.from_pool(pool)  # owns the pool: aclose() closes its connections


class _ClusterConnection(aioredis.Connection):
    """A cluster node's connection whose write on a connection closed under it fails with the
    ConnectionError a closed connection gives.

    redis-py's cluster client disconnects a node's connections when a command to it fails (a
    failover): all of them when it closes the client to read the layout again, and the free
    ones otherwise, one of which another task may have just taken. That task's write (or its
    connect's handshake) then finds the connection closed: AttributeError ('NoneType' object
    has no attribute 'writelines') or, on uvloop, RuntimeError ("... the handler is closed"),
    which neither redis-py's retries nor the services take for a connection's failure: a
    command's outcome became "internal" instead of unknown, and its bot stopped."""

    async def send_packed_command(
        self, command: bytes | str | Iterable[bytes], check_health: bool = True
    ) -> None:
        try:
            await super().send_packed_command(command, check_health)
        except (AttributeError, RuntimeError) as exc:
            if isinstance(exc, AttributeError) and exc.obj is not None:
                raise  # not the closed connection's missing writer
            raise redis.exceptions.ConnectionError(
                f"connection closed while writing to {self.host}:{self.port}: {exc}"
            ) from exc


def _cluster(urls: list[str], max_connections: int) -> RedisCluster:
    seeds = [urlsplit(u.strip()) for u in urls]
    first = seeds[0]
    cluster = RedisCluster(
        startup_nodes=[ClusterNode(s.hostname or "127.0.0.1", s.port or 6379) for s in seeds],
        username=unquote(first.username) if first.username else None,
        password=unquote(first.password) if first.password else None,
        max_connections=max_connections,
        require_full_coverage=False,  # a primary failing over leaves the other slots served
    )
    # RedisCluster takes no connection class: the nodes it finds are made with these kwargs,
    # the seeds were made already.
    cluster.nodes_manager.connection_kwargs["connection_class"] = _ClusterConnection
    for node in cluster.nodes_manager.startup_nodes.values():
        node.connection_class = _ClusterConnection
    return cluster


async def wait_ready(redis: "aioredis.Redis", timeout: float = 300.0) -> None:
    """Until the store answers: a restarted Valkey refuses commands while it loads its data
    (BusyLoadingError, a ConnectionError), and a service started beside it must wait, not die."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            await redis.ping()
            return
        except UNKNOWN_OUTCOME:
            if loop.time() > deadline:
                raise
            await asyncio.sleep(0.2)  # poll interval while the store loads or starts


@dataclass(frozen=True, slots=True)
class Appended:
    first_version: int
    version: int
    hash: str
    duplicate: bool = False
    events: tuple[StoredEvent, ...] = ()  # what this call stored (none for a duplicate)


@dataclass(frozen=True, slots=True)
class Conflict:
    """The stream is at `version`, not at the expected one."""

    version: int


@dataclass(frozen=True, slots=True)
class NewEvent:
    type: str
    body: bytes


def implied_meta(events: Sequence[NewEvent]) -> list[str]:
    """Field/value pairs the events imply for the game's meta: its ruleset when created, its
    result and reason when ended, `sealed` when sealed. Written by the append script with the
    events themselves."""
    pairs: list[str] = []
    for event in events:
        if event.type == "GameCreated":
            pairs += ["ruleset", msgspec.json.decode(event.body, type=GameCreated).ruleset]
        elif event.type == "GameEnded":
            ended = msgspec.json.decode(event.body, type=GameEnded)
            pairs += ["result", ended.result, "reason", ended.reason]
        elif event.type == "GameSealed":
            pairs += ["sealed", "1"]
    return pairs


@dataclass(frozen=True, slots=True)
class Head:
    version: int
    hash: str
    result: str = ""  # once the game has ended


def _parse_result(raw: bytes | str) -> tuple[int, int, str]:
    text = raw.decode() if isinstance(raw, bytes) else raw
    first, last, digest = text.split(" ")
    return int(first), int(last), digest


# What every entry holds, as append.lua and import_log write it (`act` only under chain v2),
# at stream id 0-<v>: readers page by version, so an entry elsewhere would be read again.
_FIELDS = (b"v", b"type", b"body", b"ts", b"cmd", b"h")


def _entry(game_id: str, entry_id: bytes | str, fields: dict[bytes, bytes]) -> StoredEvent:
    """A stream entry as its stored event; CorruptEntry naming it (its stream id, and its
    version if it has one) when the store's writers cannot have written it."""
    entry = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    v = fields.get(b"v", b"")
    version = int(v) if v.isdigit() and len(v) < 20 else None  # at most a u64, as chained

    def text(name: bytes) -> str:
        try:
            return fields.get(name, b"").decode()
        except UnicodeDecodeError:
            raise ValueError(f"its {name.decode()} is not UTF-8") from None

    try:
        if missing := [f.decode() for f in _FIELDS if f not in fields]:
            raise ValueError(f"it has no field {', '.join(missing)}")
        if version is None:
            raise ValueError(f"its version (v) {v[:40]!r} is not a number")
        if entry != f"0-{version}":
            raise ValueError(f"the store puts version {version} at stream id 0-{version}")
        if not (fields[b"ts"].isdigit() and len(fields[b"ts"]) < 20):
            raise ValueError(f"its time (ts) {fields[b'ts'][:40]!r} is not a number")
        return StoredEvent(game_id=game_id, version=version, type=text(b"type"),
                           body=msgspec.Raw(fields[b"body"]), time_ms=int(fields[b"ts"]),
                           command_id=text(b"cmd"), hash=text(b"h"),
                           action=text(b"act"))  # fmt: skip
    except ValueError as exc:
        raise CorruptEntry(game_id, str(exc), version=version, entry=entry) from None


def parse_entry(game_id: str, entry_id: bytes | str, fields: dict[bytes, bytes]) -> StoredEvent:
    """A raw stream entry (XRANGE's id and fields) as its stored event; CorruptEntry when the
    store's writers cannot have written it."""
    # What the store's writers write (canonical numbers, UTF-8) is taken as it is, without
    # _entry's checks one by one: every read of a log parses each of its entries.
    v, ts = fields.get(b"v"), fields.get(b"ts")
    if (v is not None and ts is not None and entry_id == b"0-" + v and v.isdigit()
            and not v.startswith(b"0") and len(v) < 20
            and ts.isdigit() and len(ts) < 20):  # fmt: skip
        try:
            act = fields.get(b"act")
            return StoredEvent(game_id=game_id, version=int(v), type=fields[b"type"].decode(),
                               body=msgspec.Raw(fields[b"body"]), time_ms=int(ts),
                               command_id=fields[b"cmd"].decode(), hash=fields[b"h"].decode(),
                               action="" if act is None else act.decode())  # fmt: skip
        except (KeyError, UnicodeDecodeError):
            pass  # _entry names what is wrong
    return _entry(game_id, entry_id, fields)


async def read_raw(
    redis: "aioredis.Redis", game_id: str
) -> tuple[Entries, dict[bytes, bytes], dict[bytes, bytes]]:
    """A game's stream (XRANGE's raw entries), meta and command ids exactly as stored, as of
    one moment (one MULTI/EXEC)."""
    async with redis.pipeline(transaction=True) as pipe:
        pipe.xrange(log_key(game_id), "-", "+")
        pipe.hgetall(meta_key(game_id))
        pipe.hgetall(commands_key(game_id))
        raw_entries, meta, commands = await pipe.execute()
    return [(bytes(i), dict(f)) for i, f in raw_entries], dict(meta), dict(commands)


class StaleCreate(RuntimeError):
    """append.lua refused a create more than 5 minutes past its time: nothing was appended."""


class GameExists(ValueError):
    """An import into a store that already holds the game."""


class _Pending:
    __slots__ = ("args", "future", "keys")

    def __init__(self, keys: list[str], args: list[Any], future: "asyncio.Future[Any]") -> None:
        self.keys, self.args, self.future = keys, args, future


class EventStore:
    def __init__(
        self,
        redis: "aioredis.Redis",
        max_batch: int = 256,
        max_inflight: int = 4,
        signer: Signer | None = None,
        archive: ArchiveReader | None = None,
    ) -> None:
        # Any: redis-py types every reply as bytes | str | None; this client is bytes-mode.
        self.redis: Any = redis
        # Where a game's reads go once it has left Valkey (None: no archive, hot games only).
        self.archive = archive
        self.signer = signer  # signs each GameSealed (the rules service's store)
        self._script = resources.files("services.runtime").joinpath("append.lua").read_text()
        self._sha: str | None = None
        self._forget = resources.files("services.runtime").joinpath("forget.lua").read_text()
        self._chains: dict[str, int] = {}  # game id -> its hash chain version (never changes)
        self._queue: list[_Pending] = []
        self._wakeup = asyncio.Event()
        self._max_batch = max_batch
        self._max_inflight = max_inflight
        self._committer: asyncio.Task[None] | None = None
        self.batches = 0  # round trips made by the committer, for stats
        self.appends = 0

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> "EventStore":
        return cls(connect(url), **kwargs)

    async def close(self) -> None:
        if self._committer:
            self._committer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._committer
        await self.redis.aclose()
        if self.archive is not None:
            await self.archive.close()

    # -- appending -------------------------------------------------------------------------

    def _seal(self, game_id: str, version: int, digest: str) -> GameSealed:
        if self.signer is None:
            return GameSealed(version=version, hash=digest)
        return GameSealed(version=version, hash=digest, key=self.signer.public,
                          signature=self.signer.seal(game_id, version, digest))  # fmt: skip

    async def append(
        self,
        game_id: str,
        expected_version: int,
        prev_hash: str,
        command_id: str,
        events: Sequence[NewEvent],
        *,
        seal: bool = False,
        time_ms: int | None = None,
        action: str = "",
    ) -> Appended | Conflict:
        """Append `events` at `expected_version`, whose chain hash is `prev_hash`.

        A command id already applied returns its original result (duplicate=True) and appends
        nothing; a stale expected version or head returns Conflict and appends nothing. With
        `seal`, a GameSealed event recording the final (n, h_n) follows in the same append.
        `action` ("<seat> <action>") is the command that produced the events; every entry of
        the append records it, inside the chain (v2), so an audit can decide it again.
        """
        if not events:
            raise ValueError("an append needs at least one event")
        now = time_ms if time_ms is not None else int(time.time() * 1000)
        if not (command_id.isascii() and action.isascii()):  # chain v2 hashes them as ASCII
            raise ValueError(f"command id and action must be ASCII, got {command_id!r}")
        chain = await self.chain_of(game_id, expected_version)
        stored: list[StoredEvent] = []
        digest = prev_hash
        version = expected_version
        for event in events:
            version += 1
            digest = fairplay.entry_hash(
                chain, version, digest, event.type, event.body, now, command_id, action
            )
            stored.append(
                StoredEvent(
                    game_id=game_id,
                    version=version,
                    type=event.type,
                    body=msgspec.Raw(event.body),
                    time_ms=now,
                    command_id=command_id,
                    hash=digest,
                    action=action,
                )
            )
            if seal and len(stored) == len(events):
                body = msgspec.json.encode(self._seal(game_id, version, digest))
                version += 1
                digest = fairplay.entry_hash(
                    chain, version, digest, "GameSealed", body, now, command_id, action
                )
                stored.append(
                    StoredEvent(
                        game_id=game_id,
                        version=version,
                        type="GameSealed",
                        body=msgspec.Raw(body),
                        time_ms=now,
                        command_id=command_id,
                        hash=digest,
                        action=action,
                    )
                )
        args: list[Any] = [expected_version, prev_hash, command_id, now, game_id, len(stored)]
        for e in stored:
            args += [e.type, bytes(e.body), e.hash]
        args += [chain, action, *implied_meta(events), *(["sealed", "1"] if seal else [])]
        keys = [log_key(game_id), meta_key(game_id), commands_key(game_id)]
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.append(_Pending(keys, args, future))
        self._wakeup.set()
        if self._committer is None or self._committer.done():
            self._committer = asyncio.create_task(self._commit_loop(), name="eventstore-commit")
        with metrics.APPEND_SECONDS.time():  # queued, batched, run and fsynced
            status, payload = await future
        status = status.decode() if isinstance(status, bytes) else status
        if status in ("conflict", "chain"):
            metrics.APPEND_CONFLICTS.inc()
        if status == "conflict":
            return Conflict(int(payload))
        if status == "stale":
            raise StaleCreate(f"game {game_id}'s create is more than 5 minutes past its time "
                              f"({now} ms): ask again (or this host's clock is behind the "
                              "store's)")  # fmt: skip
        if status == "chain":  # the game was created anew since we looked: look again
            self._chains.pop(game_id, None)
            return Conflict(int(payload))
        first, last, head = _parse_result(payload)
        if status == "dup":
            return Appended(first, last, head, duplicate=True)
        if len(self._chains) >= 100_000:
            self._chains.clear()
        self._chains[game_id] = chain
        return Appended(first, last, head, events=tuple(stored))

    async def chain_of(self, game_id: str, expected_version: int = 1) -> int:
        """The hash chain version of a game's appends: v2 for a new game (its first append,
        at version 0); for a game that exists, the one its create recorded in the meta
        (`chain`; absent for a game created before v2: v1, which it keeps, or its chain would
        break). Cached once an append succeeded: a game's chain version never changes, and the
        append script refuses one that differs from the meta's."""
        if expected_version == 0:
            return fairplay.CHAIN_V2
        chain = self._chains.get(game_id)
        if chain is None:
            raw = await self.redis.hget(meta_key(game_id), "chain")
            chain = int(raw) if raw is not None else fairplay.CHAIN_V1
        return chain

    async def _ensure_script(self) -> str:
        if self._sha is None:
            self._sha = str(await self.redis.script_load(self._script))
        return self._sha

    async def _commit_loop(self) -> None:
        """Send what has queued as one batch; up to `max_inflight` batches travel at once, so
        the service keeps deciding while Redis works. (A game has at most one append in
        flight, under the rules service's per-game lock, so batches never reorder a game.)"""
        slots = asyncio.Semaphore(self._max_inflight)
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            while self._queue:
                await slots.acquire()
                batch = self._queue[: self._max_batch]
                del self._queue[: self._max_batch]
                task = asyncio.create_task(self._settle(batch))
                task.add_done_callback(lambda _t: slots.release())

    async def _settle(self, batch: list[_Pending]) -> None:
        try:
            results = await self._run_batch(batch)
        except Exception as exc:  # noqa: BLE001  # the round trip failed: every caller hears it
            for p in batch:
                if not p.future.done():
                    p.future.set_exception(exc)
            return
        for p, result in zip(batch, results, strict=True):
            if p.future.done():
                continue
            if isinstance(result, Exception):
                p.future.set_exception(result)
            else:
                p.future.set_result(result)

    async def _run_batch(self, batch: list[_Pending]) -> list[Any]:
        """One round trip: every EVALSHA of the batch in one write, then every reply.

        Packed by hiredis in C: redis-py's pipeline packs in Python, which cost the rules
        service a tenth of its CPU under load.
        """
        if isinstance(self.redis, RedisCluster):
            return await self._run_cluster_batch(self.redis, batch)
        sha = await self._ensure_script()
        for attempt in (1, 2):
            packed = b"".join(
                hiredis.pack_command(("EVALSHA", sha, len(p.keys), *p.keys, *p.args)) for p in batch
            )
            pool = self.redis.connection_pool
            conn = await pool.get_connection()
            try:
                # One deadline for the whole round trip, not a timer per reply (inf: none).
                async with asyncio.timeout(BATCH_TIMEOUT):
                    await conn.send_packed_command(packed, check_health=False)
                    results: list[Any] = []
                    for _ in batch:
                        try:
                            results.append(await conn.read_response(timeout=math.inf))
                        except ResponseError as exc:  # this command's error; the rest stand
                            results.append(exc)
            except BaseException:
                await conn.disconnect()  # replies may be half-read: never reuse it
                raise
            finally:
                await pool.release(conn)
            self.batches += 1
            self.appends += len(batch)
            if attempt == 1 and any(isinstance(r, NoScriptError) for r in results):
                # The server lost its script cache (restart): reload once and replay the batch.
                # Safe: a NOSCRIPT entry did nothing, and replaying an applied one is a dup.
                self._sha = sha = str(await self.redis.script_load(self._script))
                continue
            return results
        raise AssertionError("unreachable")

    async def _run_cluster_batch(self, cluster: RedisCluster, batch: list[_Pending]) -> list[Any]:
        """On a cluster: each primary's share of the batch in one pipeline, on one of its
        connections, closed by WAIT and `WAITAOF 1 1`. An append that wrote (or found its command's
        earlier append: append.lua writes again) is acknowledged only when the primary and a
        replica hold it on disk, so a failover keeps it; else its outcome is unknown
        (NotReplicated). One refused because its slot moved is sent again to the slot's new
        primary, the layout read again first (safe: it did nothing). A primary's round trip that
        breaks leaves its share's outcome unknown (a ConnectionError; a retry with the same
        command id is applied once), and the layout is read again for the next batch.

        Each share goes out on its primary's own connection (ClusterNode.execute_pipeline), not
        through redis-py's cluster pipeline: on a ConnectionError that closes the whole client
        (every connection of every node, some of them mid-write in other tasks) and sends the
        batch again with WAIT and WAITAOF on its default node, whose replicas would acknowledge
        what another primary's never got."""
        results: list[Any] = [None] * len(batch)
        todo = list(range(len(batch)))
        for attempt in range(REDIRECTS + 1):
            sha = await self._ensure_script()
            primaries: dict[str, ClusterNode] = {}
            shares: dict[str, list[PipelineCommand]] = {}
            for i in todo:
                pending = batch[i]
                node = cluster.get_node_from_key(pending.keys[0])
                if node is None:  # nothing sent: retried by the caller with the same command
                    raise redis.exceptions.ConnectionError(
                        f"no primary serves the slot of {pending.keys[0]} (a failover?)"
                    )
                primaries[node.name] = node
                shares.setdefault(node.name, []).append(PipelineCommand(
                    i, "EVALSHA", sha, len(pending.keys), *pending.keys, *pending.args
                ))  # fmt: skip
            for share in shares.values():
                # WAIT first: a replica's answer to the first ask tells the fsync of the
                # iteration before its own (WAITAOF alone then waits for its next ack, a
                # second later); asked again once it has the writes, it tells them on disk.
                share.append(PipelineCommand(-1, "WAIT", 1, REPLICA_WAIT_MS))
                share.append(PipelineCommand(-1, "WAITAOF", 1, 1, REPLICA_WAIT_MS))
            async with asyncio.timeout(BATCH_TIMEOUT):
                broken = await asyncio.gather(
                    *(primaries[name].execute_pipeline(share) for name, share in shares.items()),
                    return_exceptions=True,
                )
            again = []
            relayout = False  # a primary did not answer (failed over?): read the layout again
            for (name, share), failed in zip(shares.items(), broken, strict=True):
                if isinstance(failed, BaseException):
                    # The round trip broke (the primary died, its connection was closed under
                    # the write: _ClusterConnection): sent or not, applied or not, its share's
                    # outcome is unknown, whatever the exception says.
                    unknown = failed if isinstance(failed, UNKNOWN_OUTCOME) else (
                        redis.exceptions.ConnectionError(f"the round trip to {name} broke: "
                                                         f"{failed!r}"))  # fmt: skip
                    for cmd in share[:-2]:
                        results[cmd.position] = unknown
                    relayout = True
                    continue
                ack = share[-1].result
                for cmd in share[:-2]:
                    i, reply = cmd.position, cmd.result
                    if isinstance(reply, _MOVED) and attempt < REDIRECTS:
                        again.append(i)
                        if isinstance(reply, NoScriptError):  # a primary promoted since, without it
                            self._sha = None
                    elif isinstance(reply, Exception) or reply[0] not in (b"ok", b"dup"):
                        results[i] = reply  # an error, or a refusal: nothing was written
                        relayout |= isinstance(reply, UNKNOWN_OUTCOME)
                    elif isinstance(ack, Exception) or ack[1] < 1:
                        results[i] = NotReplicated(
                            f"no replica of {name} holds the append on disk "
                            f"within {REPLICA_WAIT_MS} ms: {ack!r}"
                        )
                    else:
                        results[i] = reply
            self.batches += 1
            if again or relayout:
                # Unread, the layout stays as it was: a redirect is refused again (its outcome
                # unknown), and the next batch reads it again.
                with contextlib.suppress(*UNKNOWN_OUTCOME, redis.exceptions.RedisClusterException):
                    await cluster.nodes_manager.initialize()
            if not again:
                break
            todo = again
        self.appends += len(batch)
        return results

    async def register_game(self, game_id: str, created_ms: int) -> None:
        """Index a game for listing and for the sweep (outside the game's slot, so not in the
        script): before its first append, so no game is ever missing from the index. An entry
        whose create then failed has no meta, and listings skip it."""
        await self.redis.zadd(GAMES_INDEX, {game_id: created_ms}, nx=True)

    # -- importing -------------------------------------------------------------------------

    async def import_log(self, stored: list[StoredEvent]) -> None:
        """Load a whole game's log (an export) exactly: the stored bytes, versions, hashes,
        times and command ids, as the append script would have written them.

        One MULTI/EXEC on the game's keys (stream, meta, command ids), refused with GameExists
        if the game has any of them (WATCHed, so a concurrent writer also makes it refuse). The
        caller checks the chain first; this only requires versions 1..n of one game, and takes
        its hash chain version (v1 or v2, meta `chain`) from h_1, so appends continue it. The
        game is then indexed for listing, outside its slot, as `register_game` does.
        """
        if not stored:
            raise ValueError("nothing to import")
        game_id = stored[0].game_id
        for i, s in enumerate(stored, 1):
            if s.game_id != game_id or s.version != i:
                raise ValueError(f"not one game's log in order: {s.game_id} version {s.version}")
        one = stored[0]
        h1 = fairplay.ChainEntry(one.version, one.type, bytes(one.body), one.time_ms,
                                 one.command_id, one.hash, one.action)  # fmt: skip
        chain = fairplay.chain_version(game_id, [h1])
        if chain is None:
            raise ValueError(f"the hash of event 1 of {game_id} is h_1 under no chain version")
        implied = implied_meta([NewEvent(s.type, bytes(s.body)) for s in stored])
        meta: dict[str, Any] = {"version": stored[-1].version, "head": stored[-1].hash,
                                "chain": chain, **dict(zip(implied[::2], implied[1::2],
                                                           strict=True))}  # fmt: skip
        commands: dict[str, str] = {}  # command id -> "first last hash", as append.lua keeps
        firsts: dict[str, int] = {}
        for s in stored:
            first = firsts.setdefault(s.command_id, s.version)
            commands[s.command_id] = f"{first} {s.version} {s.hash}"
        keys = (log_key(game_id), meta_key(game_id), commands_key(game_id))
        async with self.redis.pipeline(transaction=True) as pipe:
            await pipe.watch(*keys)
            if await pipe.exists(*keys):
                raise GameExists(f"game {game_id} exists in this store")
            pipe.multi()
            for s in stored:
                fields = {"g": game_id, "v": s.version, "type": s.type, "body": bytes(s.body),
                          "cmd": s.command_id, "ts": s.time_ms, "h": s.hash}  # fmt: skip
                if s.action:
                    fields["act"] = s.action
                pipe.xadd(keys[0], fields, id=f"0-{s.version}")
            pipe.hset(keys[1], mapping=meta)
            pipe.hset(keys[2], mapping=commands)
            try:
                await pipe.execute()
            except WatchError:
                raise GameExists(f"game {game_id} was written while importing") from None
        await self.redis.zadd(GAMES_INDEX, {game_id: stored[0].time_ms}, nx=True)

    # -- reading ---------------------------------------------------------------------------

    async def archived(self, game_id: str) -> ArchivedGame | None:
        """The game from the archive, None when there is none or it does not hold the game."""
        return None if self.archive is None else await self.archive.game(game_id)

    async def where(self, game_id: str) -> str | None:
        """Where the game's reads go now: "hot" (Valkey), "archive" or None (nowhere)."""
        version, archived = await self.redis.hmget(meta_key(game_id), ["version", "archived"])
        if version is not None and archived is None:
            return "hot"
        return "archive" if await self.archived(game_id) is not None else None

    async def head(self, game_id: str) -> Head | None:
        version, digest, result, archived = await self.redis.hmget(
            meta_key(game_id), ["version", "head", "result", "archived"]
        )
        if (version is None or archived is not None) and (
            game := await self.archived(game_id)
        ) is not None:
            return Head(game.head_version, game.head_hash, game.result)
        if version is None:
            return None
        return Head(int(version), digest.decode(), result.decode() if result else "")

    async def read(
        self, game_id: str, after: int = 0, count: int | None = None
    ) -> list[StoredEvent]:
        """Events with version > after, in order: from Valkey while the game is there, else
        from the archive (the meta is read with the log: nothing, or a tombstone, means gone)."""
        if self.archive is None:
            entries = await self.redis.xrange(log_key(game_id), f"(0-{after}", "+", count=count)
        else:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.xrange(log_key(game_id), f"(0-{after}", "+", count=count)
                pipe.hmget(meta_key(game_id), ["version", "archived"])
                entries, (version, archived) = await pipe.execute()
            if not entries and (version is None or archived is not None):
                game = await self.archived(game_id)
                stored = game.stored[after:] if game is not None else ()
                return list(stored[:count] if count is not None else stored)
        return [parse_entry(game_id, entry_id, fields) for entry_id, fields in entries]

    async def read_all(self, game_id: str, after: int = 0, page: int = 1000) -> list[StoredEvent]:
        out: list[StoredEvent] = []
        while True:
            chunk = await self.read(game_id, after, page)
            out += chunk
            if len(chunk) < page:
                return out
            after = chunk[-1].version

    async def follow(
        self, game_id: str, after: int = 0, block_ms: int = 5000
    ) -> AsyncIterator[StoredEvent]:
        """Catch up from `after`, then follow live appends (XREAD BLOCK), forever."""
        last = f"0-{after}"
        key = log_key(game_id)
        while True:
            reply = await self.redis.xread({key: last}, count=500, block=block_ms)
            for _key, entries in reply or []:
                for entry_id, fields in entries:
                    last = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
                    yield parse_entry(game_id, entry_id, fields)

    async def command_result(self, game_id: str, command_id: str) -> Appended | None:
        """The append a command made (a retry's receipt), from the archive once the game has
        left Valkey."""
        return (await self.prior(game_id, command_id))[0]

    async def prior(self, game_id: str, command_id: str) -> tuple[Appended | None, bool]:
        """The append a command made, and whether the archive holds the game (asked only when
        Valkey does not: one lookup for a create)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hget(commands_key(game_id), command_id)
            pipe.hmget(meta_key(game_id), ["version", "archived"])
            raw, (version, archived) = await pipe.execute()
        game = None
        if raw is None and (version is None or archived is not None):
            game = await self.archived(game_id)
            raw = game.commands.get(command_id) if game is not None else None
        if raw is None:
            return None, game is not None
        first, last, digest = _parse_result(raw)
        return Appended(first, last, digest, duplicate=True), game is not None

    async def games(self, limit: int = 100) -> list[tuple[str, dict[str, str]]]:
        """The newest games with their meta (ruleset, version, result): those in Valkey and
        those archived, newest first."""
        scored = await self.redis.zrevrange(GAMES_INDEX, 0, limit - 1, withscores=True)
        pipe = self.redis.pipeline(transaction=False)
        for game_id, _ in scored:
            pipe.hgetall(meta_key(game_id.decode()))
        found = [
            (g.decode(), int(ms), {k.decode(): v.decode() for k, v in m.items() if k != b"head"})
            for (g, ms), m in zip(scored, await pipe.execute(), strict=True)
            if m and b"archived" not in m  # an archived game is listed from the archive
        ]
        if self.archive is not None:  # a game in both (archived, not yet removed): once
            hot = {g for g, _, _ in found}
            found += [g for g in await self.archive.newest(limit) if g[0] not in hot]
        found.sort(key=lambda g: (-g[1], g[0]))
        return [(g, meta) for g, _, meta in found[:limit]]

    async def forget(self, game_id: str, version: int, digest: str) -> str:
        """Remove a sealed game's keys (forget.lua), leaving its tombstone: "forgotten", "gone"
        (before, or never here), "in-play" or "moved"."""
        keys = [log_key(game_id), meta_key(game_id), commands_key(game_id)]
        reply = await self.redis.eval(self._forget, len(keys), *keys, version, digest, TOMBSTONE_S)
        return str(reply[0].decode())

    async def unindex(self, game_id: str) -> None:
        """Take a removed game out of the games index (outside its slot: not in the script)."""
        await self.redis.zrem(GAMES_INDEX, game_id)

    async def unfinished(self, page: int = 1000) -> AsyncIterator[str]:
        """Games whose end is in the log but which are not sealed, from the games index."""
        start = 0
        while ids := await self.redis.zrange(GAMES_INDEX, start, start + page - 1):
            pipe = self.redis.pipeline(transaction=False)
            for game_id in ids:
                pipe.hmget(meta_key(game_id.decode()), ["result", "sealed"])
            for game_id, (result, sealed) in zip(ids, await pipe.execute(), strict=True):
                if result is not None and sealed is None:
                    yield game_id.decode()
            start += page
