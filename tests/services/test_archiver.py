"""The archiver (issue 21, second increment): a sealed game is copied into PostgreSQL with every
stored field's exact bytes, checked against its seal first, in one transaction, idempotently; a
game in play, or one whose stored chain was tampered with, is not archived; a failure or a
cancellation before the commit leaves no row of the game. The hot copy stays in Valkey."""

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import Any

import psycopg
import pytest
import redis.asyncio as aioredis

from contracts import subjects
from services.archiver.__main__ import build, wire
from services.archiver.archive import Archiver, GameCopy, Mismatch, same_rows
from services.client.client import Client
from services.runtime import access, bus
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore
from services.runtime.keys import commands_key, log_key, meta_key
from services.runtime.service import ServiceApp
from tests.conftest import Postgres, running
from tests.e2e.test_cli import forget, imported

TABLES = ("archived_commands", "archived_events", "archived_games")


@pytest.fixture
async def archiver(
    postgres: Postgres, role_settings: Callable[[str], Settings]
) -> AsyncIterator[Archiver]:
    """An archiver as its own users: `archiver` in Valkey and in PostgreSQL."""
    redis = aioredis.from_url(role_settings("archiver").redis_url)
    a = Archiver(redis, postgres.url("archiver"))
    yield a
    await a.close()
    await redis.aclose()


async def rows(postgres: Postgres, game_id: str) -> dict[str, list[tuple[Any, ...]]]:
    """The archive's rows of one game, per table, read as the auditor (SELECT only)."""
    out = {}
    async with await psycopg.AsyncConnection.connect(postgres.url("auditor")) as conn:
        for table in TABLES:
            cur = await conn.execute(
                f"SELECT * FROM {table} WHERE game_id = %s ORDER BY 2", (game_id,)
            )
            out[table] = [tuple(r) for r in await cur.fetchall()]
    return out


async def purge(postgres: Postgres, game_id: str) -> None:
    """Remove a game from the archive as the operator (no role of Tabula's may), so a test
    starts from a game not archived even on a DATABASE_URL kept across sessions."""
    from psycopg.conninfo import make_conninfo

    url = make_conninfo(postgres.superuser, dbname=access.PG_DATABASE)
    async with await psycopg.AsyncConnection.connect(url) as conn:
        for table in TABLES:
            await conn.execute(f"DELETE FROM {table} WHERE game_id = %s", (game_id,))


async def nothing_of(postgres: Postgres, game_id: str) -> bool:
    return not any((await rows(postgres, game_id)).values())


async def test_a_sealed_game_is_archived_byte_for_byte_and_twice_is_harmless(
    archiver: Archiver, store: EventStore, redis: "aioredis.Redis", postgres: Postgres
) -> None:
    """Every archived_events row holds the stream entry's fields as stored (XRANGE's bytes),
    the command ids their stored receipts, the game its head; archiving again (through the
    check that it is there, and straight through the inserts) changes no row."""
    stored = await imported(store, redis, "chess3d-v1")
    game_id = stored[0].game_id
    await purge(postgres, game_id)
    try:
        assert await archiver.archive(game_id) == "archived"
        archived = await rows(postgres, game_id)
        entries = await redis.xrange(log_key(game_id), "-", "+")
        assert len(archived["archived_events"]) == len(entries) == len(stored)
        for row, (entry_id, fields) in zip(archived["archived_events"], entries, strict=True):
            _, version, stream_id, g, v, type_, body, cmd, ts, h, act = row
            assert stream_id == entry_id == f"0-{version}".encode()
            stored_fields = {b"g": g, b"v": v, b"type": type_, b"body": body, b"cmd": cmd,
                             b"ts": ts, b"h": h}  # fmt: skip
            if act is not None:
                stored_fields[b"act"] = act
            assert stored_fields == fields
        commands = await redis.hgetall(commands_key(game_id))
        assert {bytes(r[1]): bytes(r[2]) for r in archived["archived_commands"]} == commands
        meta = await redis.hgetall(meta_key(game_id))
        (game,) = archived["archived_games"]
        assert game[:5] == (game_id, meta[b"ruleset"].decode(), meta[b"chain"].decode(),
                            len(stored), meta[b"head"].decode())  # fmt: skip
        assert game[4] == stored[-1].hash

        assert await archiver.archive(game_id) == "already"
        copy = await archiver.read(game_id)
        await archiver.write(copy)  # the inserts again, past the "already" check
        assert await rows(postgres, game_id) == archived
        assert await redis.exists(log_key(game_id))  # the hot copy stays, this increment
    finally:
        await forget(redis, game_id)


async def test_a_game_in_play_is_not_archived(
    archiver: Archiver, store: EventStore, redis: "aioredis.Redis", postgres: Postgres
) -> None:
    """A game ended but not yet sealed, and one in play, are left alone: the sweep does not
    list them and asking for them archives nothing."""
    ended = await imported(store, redis, "chess3d-v0")  # GameEnded, no seal
    sealed = await imported(store, redis, "yiora-complex-teams-v2")
    in_play = sealed[:10]
    await forget(redis, in_play[0].game_id)
    await store.import_log(in_play)
    try:
        for game in (ended, in_play):
            game_id = game[0].game_id
            assert game_id not in await archiver.pending()
            assert await archiver.archive(game_id) == "unsealed"
            assert await nothing_of(postgres, game_id)
    finally:
        await forget(redis, ended[0].game_id)
        await forget(redis, in_play[0].game_id)


@pytest.mark.parametrize("how", ["appended after the seal", "an entry rewritten", "meta head"])
async def test_a_game_whose_stored_chain_was_tampered_with_is_refused(
    how: str, archiver: Archiver, store: EventStore, redis: "aioredis.Redis",
    postgres: Postgres, role_settings: Callable[[str], Settings],
) -> None:  # fmt: skip
    """An entry forged after the seal (as the rules service's own user can XADD), an entry
    rewritten in place (as only the operator can), or a meta head moved: the copy does not
    verify against the seal, so the game is refused, and not one row of it is written."""
    stored = await imported(store, redis, "yavoch-decker-v1")
    game_id, n = stored[0].game_id, len(stored)
    await purge(postgres, game_id)
    rules: Any = aioredis.from_url(role_settings("rules").redis_url)
    key = log_key(game_id)
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
        assert await nothing_of(postgres, game_id)
        assert game_id not in await archiver.pending()  # logged once, not retried
    finally:
        await rules.aclose()
        await forget(redis, game_id)


@pytest.mark.parametrize("failure", ["an error", "a cancellation"])
async def test_a_failure_before_the_commit_leaves_no_row_of_the_game(
    failure: str, archiver: Archiver, store: EventStore, redis: "aioredis.Redis",
    postgres: Postgres,
) -> None:  # fmt: skip
    """The game, its events and its command ids are written, then (before the commit) the
    archiver fails, or is cancelled as a killed one would be: not one row of the game is
    left, and the next attempt archives it whole."""
    stored = await imported(store, redis, "yavoch-full-v1")
    game_id = stored[0].game_id
    await purge(postgres, game_id)
    written = asyncio.Event()

    async def fail(cur: "psycopg.AsyncCursor[Any]", copy: GameCopy) -> None:
        await cur.execute("SELECT count(*) FROM archived_events WHERE game_id = %s", (game_id,))
        assert await cur.fetchone() == (len(stored),)  # inside the transaction: all of them
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
        assert await nothing_of(postgres, game_id)
        archiver.check = same_rows
        assert await archiver.archive(game_id) == "archived"
        assert len((await rows(postgres, game_id))["archived_events"]) == len(stored)
    finally:
        await forget(redis, game_id)


async def poll_archived(postgres: Postgres, game_id: str, timeout: float = 30.0) -> None:
    """Until the archive holds the game (a condition, polled within a bound)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (await rows(postgres, game_id))["archived_games"]:
        assert loop.time() < deadline, f"{game_id} was not archived within {timeout} s"
        await asyncio.sleep(0.05)  # poll interval


async def test_the_service_archives_what_it_finds_at_start_and_each_game_sealed_after(
    store: EventStore, redis: "aioredis.Redis", postgres: Postgres,
    role_settings: Callable[[str], Settings], client: Client,
) -> None:  # fmt: skip
    """The archiver, as a service on its own users: a game sealed while it was down is found
    by its first sweep; a game sealed while it runs is archived on the GameSealed notice (its
    next sweep is an hour away)."""
    before = await imported(store, redis, "yiora-complex-teams-v2")
    await purge(postgres, before[0].game_id)
    settings = dataclasses.replace(role_settings("archiver"), archive_s=3600,
                                   database_url=postgres.url("archiver"))  # fmt: skip
    try:
        async with running(build, settings):
            await poll_archived(postgres, before[0].game_id)
            created = await client.create_game("chess3d")
            await client.act(created.game_id, 0, created.seats[0].token, "resign")
            await poll_archived(postgres, created.game_id)
            archived = await rows(postgres, created.game_id)
            assert archived["archived_events"][-1][5] == b"GameSealed"
    finally:
        await forget(redis, before[0].game_id)


async def test_a_drain_finishes_the_game_in_hand(
    archiver: Archiver, store: EventStore, redis: "aioredis.Redis", postgres: Postgres,
    role_settings: Callable[[str], Settings],
) -> None:  # fmt: skip
    """SIGTERM's drain cancels the sweep but waits for the game being written: it is archived
    whole, after the drain began."""
    stored = await imported(store, redis, "chess3d-v1")
    game_id = stored[0].game_id
    await purge(postgres, game_id)
    in_hand, proceed = asyncio.Event(), asyncio.Event()

    async def slow(cur: "psycopg.AsyncCursor[Any]", copy: GameCopy) -> None:
        if copy.game_id == game_id:
            in_hand.set()
            await proceed.wait()
        await same_rows(cur, copy)

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
        assert await nothing_of(postgres, game_id)  # not committed yet
        proceed.set()
        await drain
        assert archiver.totals["archived"] == 1  # done when the drain returned, not later
        assert len((await rows(postgres, game_id))["archived_events"]) == len(stored)
    finally:
        await nc.close()
        await forget(redis, game_id)


async def test_a_different_copy_already_in_the_archive_is_not_completed(
    archiver: Archiver, store: EventStore, redis: "aioredis.Redis", postgres: Postgres
) -> None:
    """ON CONFLICT DO NOTHING keeps a row already there; the read-back inside the transaction
    sees that it is not the store's (a game row with another head, put there as the
    operator) and rolls back: no event or command id of the game is added to it."""
    from psycopg.conninfo import make_conninfo

    stored = await imported(store, redis, "yavoch-full-v1")
    game_id = stored[0].game_id
    await purge(postgres, game_id)
    url = make_conninfo(postgres.superuser, dbname=access.PG_DATABASE)
    try:
        async with await psycopg.AsyncConnection.connect(url) as conn:
            await conn.execute(
                "INSERT INTO archived_games (game_id, ruleset, chain, head_version, head_hash, "
                "created_at, sealed_at) VALUES (%s, 'yavoch', '1', 1, %s, now(), now())",
                (game_id, "0" * 64),
            )
        copy = await archiver.read(game_id)
        with pytest.raises(Mismatch, match="head"):
            await archiver.write(copy)
        archived = await rows(postgres, game_id)
        assert archived["archived_events"] == archived["archived_commands"] == []
    finally:
        await purge(postgres, game_id)
        await forget(redis, game_id)
