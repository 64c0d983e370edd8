"""The archiver (issue 21): a sealed game is copied into PostgreSQL as ONE row of archived_games,
its log and command ids packed (services.runtime.archived) with every stored field's exact
bytes, checked against its seal first, in one transaction, idempotently; a game in play, or one
whose stored chain was tampered with, is not archived; a failure or a cancellation before the
commit leaves no row of the game. Only a committed copy is followed by a Forget.

The tests of the copy alone give the archiver a `forget` that records its calls (the hot keys
stay); the service's test runs the whole flow: the real Forget over the bus, answered by a
rules service that reads the archive (tests/services/test_forget.py tests the removal)."""

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
import redis.asyncio as aioredis
from psycopg.conninfo import make_conninfo

from contracts import subjects
from services.archiver.__main__ import build, wire
from services.archiver.archive import Archiver, GameCopy, Mismatch, same_rows, write
from services.client.client import Client
from services.runtime import access, archived, bus
from services.runtime.archived import ArchiveReader
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore, read_raw
from services.runtime.keys import meta_key
from services.runtime.service import ServiceApp
from tests.conftest import Postgres, running
from tests.e2e.test_cli import forget as drop
from tests.e2e.test_cli import imported


@dataclasses.dataclass
class Recording:
    """A `forget` that records the games it was asked to forget and removes nothing."""

    asked: list[str] = dataclasses.field(default_factory=list)

    async def __call__(self, heads: dict[str, tuple[int, str]]) -> dict[str, str | None]:
        self.asked += heads
        return dict.fromkeys(heads)


@pytest.fixture
def recording() -> Recording:
    return Recording()


@pytest.fixture
async def archiver(
    postgres: Postgres, role_settings: Callable[[str], Settings], recording: Recording
) -> AsyncIterator[Archiver]:
    """An archiver as its own users (`archiver` in Valkey and in PostgreSQL) whose Forget only
    records: for the tests of the copy alone."""
    redis = aioredis.from_url(role_settings("archiver").redis_url)
    a = Archiver(redis, postgres.url("archiver"), recording)
    yield a
    await a.close()
    await redis.aclose()


async def archived_row(postgres: Postgres, game_id: str) -> dict[str, Any] | None:
    """The game's archived_games row by column, read as the auditor (SELECT only); None when
    the archive does not hold it."""
    async with await psycopg.AsyncConnection.connect(postgres.url("auditor")) as conn:
        cur = await conn.execute("SELECT * FROM archived_games WHERE game_id = %s", (game_id,))
        row = await cur.fetchone()
        if row is None:
            return None
        assert cur.description is not None
        return {d.name: v for d, v in zip(cur.description, row, strict=True)}


def operator_url(postgres: Postgres) -> str:
    return make_conninfo(postgres.superuser, dbname=access.PG_DATABASE)


async def purge(postgres: Postgres, game_id: str) -> None:
    """Remove a game from the archive as the operator (no role of Tabula's may), so a test
    starts from a game not archived even on a DATABASE_URL kept across sessions."""
    async with await psycopg.AsyncConnection.connect(operator_url(postgres)) as conn:
        await conn.execute("DELETE FROM archived_games WHERE game_id = %s", (game_id,))


async def put_row(postgres: Postgres, game_id: str, head: tuple[int, str],
                  entries: archived.Entries, commands: dict[bytes, bytes]) -> None:  # fmt: skip
    """A row of the game put in the archive as the operator (or anyone with its rights)."""
    async with await psycopg.AsyncConnection.connect(operator_url(postgres)) as conn:
        await conn.execute(
            "INSERT INTO archived_games (game_id, ruleset, chain, head_version, head_hash, "
            "created_at, sealed_at, format, log, commands) "
            "VALUES (%s, 'yavoch', '2', %s, %s, now(), now(), %s, %s, %s)",
            (
                game_id,
                *head,
                archived.FORMAT,
                archived.pack_log(entries),
                archived.pack_commands(commands),
            ),
        )


def time_of(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


async def test_a_sealed_game_is_archived_byte_for_byte_and_twice_is_harmless(
    archiver: Archiver, recording: Recording, store: EventStore, redis: "aioredis.Redis",
    postgres: Postgres,
) -> None:  # fmt: skip
    """The row's packed log unpacks to the stream's entries exactly as XRANGE returned them
    before archiving (ids, fields, bytes), its packed command ids to HGETALL's; its columns
    are the meta's and the log's; the archive's reader gives back the stored events. Archiving
    again (through the check that it is there, and straight through the insert) changes
    nothing. Forget is asked once the copy is committed, each time."""
    stored = await imported(store, redis, "chess3d-v1")
    game_id = stored[0].game_id
    await purge(postgres, game_id)
    entries, meta, commands = await read_raw(redis, game_id)  # before archiving
    assert len(entries) == len(stored)
    assert commands
    reader = ArchiveReader(postgres.url("auditor"))
    try:
        assert await archived_row(postgres, game_id) is None
        assert await archiver.archive(game_id) == "archived"
        assert recording.asked == [game_id]
        row = await archived_row(postgres, game_id)
        assert row is not None
        assert row["format"] == archived.FORMAT
        assert archived.unpack_log(bytes(row["log"]), row["format"]) == entries
        assert archived.unpack_commands(bytes(row["commands"]), row["format"], entries) == commands
        assert (row["game_id"], row["ruleset"], row["chain"], row["head_version"],
                row["head_hash"], row["result"], row["reason"]) == (
            game_id, meta[b"ruleset"].decode(), meta[b"chain"].decode(), len(stored),
            meta[b"head"].decode(), meta[b"result"].decode(), meta[b"reason"].decode(),
        )  # fmt: skip
        assert row["head_hash"] == stored[-1].hash
        assert (row["created_at"], row["sealed_at"]) == (
            time_of(stored[0].time_ms),
            time_of(stored[-1].time_ms),
        )
        game = await reader.game(game_id)
        assert game is not None
        assert list(game.stored) == stored
        assert game.commands == {k.decode(): v.decode() for k, v in commands.items()}

        assert await archiver.archive(game_id) == "already"
        copy = await archiver.read(game_id)
        # The insert again: nothing written, the row read back is the copy.
        assert await write(await archiver.connection(), [copy]) == set()
        assert await archived_row(postgres, game_id) == row
        assert recording.asked == [game_id, game_id]
        assert await read_raw(redis, game_id) == (entries, meta, commands)  # forget recorded
    finally:
        await reader.close()
        await drop(redis, game_id)


async def test_a_game_in_play_is_not_archived(
    archiver: Archiver, recording: Recording, store: EventStore, redis: "aioredis.Redis",
    postgres: Postgres,
) -> None:  # fmt: skip
    """A game ended but not yet sealed, and one in play, are left alone: the sweep does not
    list them, asking for them archives nothing, and nobody is asked to forget them."""
    ended = await imported(store, redis, "chess3d-v0")  # GameEnded, no seal
    sealed = await imported(store, redis, "yiora-complex-teams-v2")
    in_play = sealed[:10]
    await drop(redis, in_play[0].game_id)
    await store.import_log(in_play)
    try:
        for game in (ended, in_play):
            game_id = game[0].game_id
            await purge(postgres, game_id)
            assert game_id not in await archiver.pending()
            assert await archiver.archive(game_id) == "unsealed"
            assert await archived_row(postgres, game_id) is None
        assert recording.asked == []
    finally:
        await drop(redis, ended[0].game_id)
        await drop(redis, in_play[0].game_id)


@pytest.mark.parametrize("how", ["appended after the seal", "an entry rewritten", "meta head"])
async def test_a_game_whose_stored_chain_was_tampered_with_is_refused(
    how: str, archiver: Archiver, recording: Recording, store: EventStore,
    redis: "aioredis.Redis", postgres: Postgres, role_settings: Callable[[str], Settings],
) -> None:  # fmt: skip
    """An entry forged after the seal (as the rules service's own user can XADD), an entry
    rewritten in place (as only the operator can), or a meta head moved: the copy does not
    verify against the seal, so the game is refused, no row of it is written, and nobody is
    asked to forget it."""
    stored = await imported(store, redis, "yavoch-decker-v1")
    game_id, n = stored[0].game_id, len(stored)
    await purge(postgres, game_id)
    rules: Any = aioredis.from_url(role_settings("rules").redis_url)
    key = f"tabula:game:{{{game_id}}}:log"
    try:
        if how == "appended after the seal":
            forged = {"g": game_id, "v": n + 1, "type": "GameEnded", "cmd": "x",
                      "body": b'{"type":"GameEnded","result":"1-0"}',
                      "ts": stored[-1].time_ms, "h": "0" * 64}  # fmt: skip
            await rules.xadd(key, forged, id=f"0-{n + 1}")
        elif how == "an entry rewritten":  # the stream written again, a space after body 5
            entries = await redis.xrange(key, "-", "+")
            await redis.delete(key)
            for entry_id, fields in entries:
                changed = {b"body": fields[b"body"] + b" "} if entry_id == b"0-5" else {}
                await redis.xadd(key, {**fields, **changed}, id=entry_id)
        else:
            await rules.hset(meta_key(game_id), "head", "0" * 64)
        assert game_id in await archiver.pending()
        assert await archiver.archive(game_id) == "refused"
        assert await archived_row(postgres, game_id) is None
        assert game_id not in await archiver.pending()  # logged once, not retried
        assert recording.asked == []
    finally:
        await rules.aclose()
        await drop(redis, game_id)


@pytest.mark.parametrize("failure", ["an error", "a cancellation"])
async def test_a_failure_before_the_commit_leaves_no_row_of_the_game(
    failure: str, archiver: Archiver, recording: Recording, store: EventStore,
    redis: "aioredis.Redis", postgres: Postgres,
) -> None:  # fmt: skip
    """The game's row is written, then (before the commit) the archiver fails, or is cancelled
    as a killed one would be: no row of the game is left, nobody is asked to forget it, and
    the next attempt archives it whole."""
    stored = await imported(store, redis, "yavoch-full-v1")
    game_id = stored[0].game_id
    await purge(postgres, game_id)
    entries, _, _ = await read_raw(redis, game_id)
    written = asyncio.Event()

    async def fail(cur: "psycopg.AsyncCursor[Any]", copies: list[GameCopy]) -> None:
        await cur.execute("SELECT count(*) FROM archived_games WHERE game_id = %s", (game_id,))
        assert await cur.fetchone() == (1,)  # inside the transaction: there
        if failure == "an error":
            raise RuntimeError("injected before the commit")
        written.set()
        await asyncio.Event().wait()  # until cancelled

    try:
        archiver.check = fail
        task = asyncio.create_task(archiver.archive(game_id))
        if failure == "an error":
            with pytest.raises(RuntimeError, match="injected"):
                await task
        else:
            await written.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        assert await archived_row(postgres, game_id) is None
        assert recording.asked == []
        archiver.check = same_rows
        assert await archiver.archive(game_id) == "archived"
        row = await archived_row(postgres, game_id)
        assert row is not None
        assert archived.unpack_log(bytes(row["log"]), row["format"]) == entries
        assert recording.asked == [game_id]
    finally:
        await drop(redis, game_id)


async def poll(condition: Callable[[], Any], what: str, timeout: float = 60.0) -> None:
    """Until `condition()` (awaited) is true: a condition, polled within a bound."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await condition():
        assert loop.time() < deadline, f"{what}: not within {timeout} s"
        await asyncio.sleep(0.05)  # poll interval


async def poll_archived(postgres: Postgres, game_id: str, timeout: float = 60.0) -> None:
    """Until the archive holds the game."""

    async def held() -> bool:
        return await archived_row(postgres, game_id) is not None

    await poll(held, f"{game_id} archived", timeout)


async def poll_forgotten(redis: "aioredis.Redis", game_id: str, timeout: float = 60.0) -> None:
    """Until the game's meta in Valkey is a tombstone (its keys removed)."""

    async def gone() -> bool:
        return await redis.hget(meta_key(game_id), "archived") == b"1"

    await poll(gone, f"{game_id} removed from Valkey", timeout)


async def test_the_service_archives_what_it_finds_at_start_and_each_game_sealed_after(
    store: EventStore, redis: "aioredis.Redis", postgres: Postgres,
    archive_stack: Callable[[str], Settings],
) -> None:  # fmt: skip
    """The archiver, as a service on its own users, with a rules service that reads the
    archive: a game sealed while it was down is found by its first sweep; a game sealed while
    it runs is archived on the GameSealed notice (its next sweep is an hour away). Each is
    archived whole, then removed from Valkey through the rules service."""
    before = await imported(store, redis, "yiora-complex-teams-v2")
    await purge(postgres, before[0].game_id)
    entries, _, _ = await read_raw(redis, before[0].game_id)
    settings = dataclasses.replace(archive_stack("archiver"), archive_s=3600,
                                   database_url=postgres.url("archiver"))  # fmt: skip
    client = await Client.connect(archive_stack("player").nats_url)
    try:
        async with running(build, settings):
            await poll_archived(postgres, before[0].game_id)
            await poll_forgotten(redis, before[0].game_id)
            row = await archived_row(postgres, before[0].game_id)
            assert row is not None
            assert archived.unpack_log(bytes(row["log"]), row["format"]) == entries

            created = await client.create_game("chess3d")
            await purge(postgres, created.game_id)  # a fresh id: nothing there, but be sure
            await client.act(created.game_id, 0, created.seats[0].token, "resign")
            await poll_archived(postgres, created.game_id)
            await poll_forgotten(redis, created.game_id)
            row = await archived_row(postgres, created.game_id)
            assert row is not None
            (last_id, last), *_ = reversed(archived.unpack_log(bytes(row["log"]), row["format"]))
            assert last[b"type"] == b"GameSealed"
            assert last_id == f"0-{row['head_version']}".encode()
    finally:
        await client.close()
        await drop(redis, before[0].game_id)


async def test_a_drain_finishes_the_game_in_hand(
    archiver: Archiver, recording: Recording, store: EventStore, redis: "aioredis.Redis",
    postgres: Postgres, role_settings: Callable[[str], Settings],
) -> None:  # fmt: skip
    """SIGTERM's drain cancels the sweep but waits for the game being written: it is archived
    whole (and its Forget asked), after the drain began."""
    stored = await imported(store, redis, "chess3d-v1")
    game_id = stored[0].game_id
    await purge(postgres, game_id)
    entries, _, _ = await read_raw(redis, game_id)
    in_hand, proceed = asyncio.Event(), asyncio.Event()

    async def slow(cur: "psycopg.AsyncCursor[Any]", copies: list[GameCopy]) -> None:
        if any(c.game_id == game_id for c in copies):
            in_hand.set()
            await proceed.wait()
        await same_rows(cur, copies)

    nc = await bus.connect(role_settings("archiver").nats_url)
    app = ServiceApp(nc, subjects.ARCHIVER_SERVICE, "test")
    archiver.check = slow
    wire(app, archiver, 3600)
    try:
        await app.start()
        await in_hand.wait()
        drain = asyncio.create_task(app.drain())
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while not all(job.done() for job in app._running_jobs):  # the sweep is cancelled
            assert loop.time() < deadline
            await asyncio.sleep(0.01)  # poll interval
        assert await archived_row(postgres, game_id) is None  # not committed yet
        assert game_id not in recording.asked
        proceed.set()
        await drain
        # done when the drain returned, not later
        assert archiver.totals["archived"] >= 1
        assert game_id in recording.asked
        row = await archived_row(postgres, game_id)
        assert row is not None
        assert archived.unpack_log(bytes(row["log"]), row["format"]) == entries
    finally:
        await nc.close()
        await drop(redis, game_id)


@pytest.mark.parametrize("other", ["another head", "the same head, other bytes"])
async def test_a_different_copy_already_in_the_archive_is_not_completed(
    other: str, archiver: Archiver, recording: Recording, store: EventStore,
    redis: "aioredis.Redis", postgres: Postgres,
) -> None:  # fmt: skip
    """ON CONFLICT DO NOTHING keeps a row already there; the read-back inside the transaction
    sees that it is not the store's (a row with another head, or the store's head over a log
    with one body changed, put there as the operator) and rolls back: the row stays as it was
    and no Forget is asked."""
    stored = await imported(store, redis, "yavoch-full-v1")
    game_id = stored[0].game_id
    await purge(postgres, game_id)
    entries, _, commands = await read_raw(redis, game_id)
    try:
        if other == "another head":
            await put_row(postgres, game_id, (2, "0" * 64), entries[:2], {})
        else:
            changed = [(i, {**f, b"body": f[b"body"] + b" "} if i == b"0-5" else f)
                       for i, f in entries]  # fmt: skip
            await put_row(postgres, game_id, (len(stored), stored[-1].hash), changed, commands)
        there = await archived_row(postgres, game_id)
        copy = await archiver.read(game_id)
        with pytest.raises(Mismatch, match="head" if other == "another head" else "log"):
            await write(await archiver.connection(), [copy])
        assert await archived_row(postgres, game_id) == there
        assert recording.asked == []
    finally:
        await purge(postgres, game_id)
        await drop(redis, game_id)


async def test_the_same_copy_packed_otherwise_is_already_archived(
    archiver: Archiver, recording: Recording, store: EventStore, redis: "aioredis.Redis",
    postgres: Postgres,
) -> None:  # fmt: skip
    """A row already there whose bytes are not the archiver's packing (its command ids packed
    without the log, as an older release might have) but that unpacks to the store's copy is
    the game archived: "already", and its keys' removal is asked."""
    stored = await imported(store, redis, "yavoch-full-v1")
    game_id = stored[0].game_id
    await purge(postgres, game_id)
    entries, _, commands = await read_raw(redis, game_id)
    try:
        await put_row(postgres, game_id, (len(stored), stored[-1].hash), entries, commands)
        there = await archived_row(postgres, game_id)
        assert there is not None
        assert bytes(there["commands"]) != (await archiver.read(game_id)).packed[1]
        assert await archiver.archive(game_id) == "already"
        assert await archived_row(postgres, game_id) == there
        assert recording.asked == [game_id]
    finally:
        await purge(postgres, game_id)
        await drop(redis, game_id)


async def test_a_batch_goes_in_one_transaction_and_one_bad_copy_keeps_out_only_itself(
    archiver: Archiver, recording: Recording, store: EventStore, redis: "aioredis.Redis",
    postgres: Postgres,
) -> None:  # fmt: skip
    """Sealed games archived together are written in one transaction (the read-back of each
    sees the others' rows, uncommitted); when one game's read-back fails, the batch is rolled
    back and each game written on its own: the others are archived and removed, that one is
    not, and no Forget names it."""
    names = ("chess3d-v1", "yavoch-full-v1", "yiora-complex-teams-v2")
    games = [(await imported(store, redis, name))[0].game_id for name in names]
    bad = games[1]
    seen: list[set[str]] = []

    async def check(cur: "psycopg.AsyncCursor[Any]", copies: list[GameCopy]) -> None:
        await cur.execute("SELECT game_id FROM archived_games WHERE game_id = ANY(%s)", (games,))
        seen.append({row[0] for row in await cur.fetchall()})
        if any(c.game_id == bad for c in copies):
            raise Mismatch("injected for one game")
        await same_rows(cur, copies)

    for game_id in games:
        await purge(postgres, game_id)
    try:
        archiver.check = check
        outcomes = await archiver.archive_batch(games)
        assert seen[0] == set(games)  # the first read-back: all three rows, one transaction
        assert outcomes == {games[0]: "archived", bad: "failed", games[2]: "archived"}
        assert sorted(recording.asked) == sorted([games[0], games[2]])
        assert await archived_row(postgres, bad) is None
        for game_id in (games[0], games[2]):
            assert await archived_row(postgres, game_id) is not None
    finally:
        for game_id in games:
            await purge(postgres, game_id)
            await drop(redis, game_id)
