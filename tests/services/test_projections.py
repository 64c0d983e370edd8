"""The read model (issue 21): PostgreSQL's `games` and `player_games`, projected from the event
logs by the projector as games are played, rebuilt from every log by `tabula projections
rebuild` to the same rows; a projector that was stopped catches up from its position, never
from the start; each role writes only what it must; the gateway's lobby lists what is
projected."""

import asyncio
import contextlib
import dataclasses
import os
import re
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis.asyncio as aioredis
from psycopg.conninfo import make_conninfo

from contracts import subjects
from contracts.events import GameCreated, GameEnded
from domain.chess3d import CHESS3D
from domain.cyvasse import CYVASSE
from domain.spacewar import SPACEWAR
from domain.spacewar_ha import SPACEWAR_HA
from domain.yavoch import YAVOCH
from domain.yiora import YIORA
from services.client.client import Client
from services.gateway.__main__ import listen, serving
from services.gateway.people import Limits
from services.projector.__main__ import build, wire
from services.projector.projections import Projector, game_ids, moment, project
from services.runtime import access, bus
from services.runtime.archived import ArchiveReader
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore
from services.runtime.service import ServiceApp
from tests.conftest import Postgres, bot_game, running
from tests.e2e.test_cli import TABULA, forget, imported
from tests.gateway.conftest import Person

TABLES = {"games": "game_id", "player_games": "player, game_id, seat"}
GOLDEN = ("chess3d-v0", "chess3d-v1", "yavoch-decker-v1", "yavoch-full-v1",
          "yiora-complex-teams-v2")  # fmt: skip

BUILT_IN = {r.name for r in (CHESS3D, CYVASSE, YAVOCH, YIORA, SPACEWAR, SPACEWAR_HA)}


def built_in(rows: dict[str, list[tuple[Any, ...]]]) -> dict[str, list[tuple[Any, ...]]]:
    """The rows of games of the built-in rulesets: a game of a ruleset this process registered
    for a test (tests/rulesets/race.py) is projected further here than by the rebuild's own
    process, which knows only the built-in ones and stops at its first event."""
    return {
        "games": [r for r in rows["games"] if r[1] in BUILT_IN],
        "player_games": [r for r in rows["player_games"] if r[3] in BUILT_IN],
    }


async def tables(postgres: Postgres) -> dict[str, list[tuple[Any, ...]]]:
    """Both tables whole, in key order, read as the auditor (SELECT only)."""
    out = {}
    async with await psycopg.AsyncConnection.connect(postgres.url("auditor")) as conn:
        for table, key in TABLES.items():
            cur = await conn.execute(f"SELECT * FROM {table} ORDER BY {key}")
            out[table] = [tuple(r) for r in await cur.fetchall()]
    return out


async def row_of(postgres: Postgres, game_id: str) -> dict[str, Any] | None:
    async with await psycopg.AsyncConnection.connect(postgres.url("auditor")) as conn:
        cur = await conn.execute("SELECT * FROM games WHERE game_id = %s", (game_id,))
        record = await cur.fetchone()
        names = [d.name for d in cur.description or []]
    return None if record is None else dict(zip(names, record, strict=True))


async def players_of(postgres: Postgres, game_id: str) -> list[tuple[Any, ...]]:
    async with await psycopg.AsyncConnection.connect(postgres.url("auditor")) as conn:
        cur = await conn.execute("SELECT player, seat, result, score FROM player_games "
                                 "WHERE game_id = %s ORDER BY seat", (game_id,))  # fmt: skip
        return [tuple(r) for r in await cur.fetchall()]


async def until(what: str, check: Callable[[], Awaitable[bool]], timeout: float = 30.0) -> None:
    """Until `check()` holds (a condition, polled within a bound)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await check():
        assert loop.time() < deadline, f"not within {timeout} s: {what}"
        await asyncio.sleep(0.05)  # poll interval


async def projected_to(postgres: Postgres, game_id: str, version: int) -> None:
    async def there() -> bool:
        row = await row_of(postgres, game_id)
        return row is not None and row["version"] == version

    await until(f"{game_id} projected to version {version}", there)


async def unproject(postgres: Postgres, *game_ids: str) -> None:
    """Remove games' rows as the operator: a test starts from games not projected, and leaves
    no row of a log it removed (a rebuild would not make it again)."""
    url = make_conninfo(postgres.superuser, dbname=access.PG_DATABASE)
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute("DELETE FROM games WHERE game_id = ANY(%s)", (list(game_ids),))


def store_of(redis: "aioredis.Redis", postgres: Postgres) -> EventStore:
    """The projector's reads: hot logs, and the archive's once a game has left Valkey."""
    return EventStore(redis, archive=ArchiveReader(postgres.url("projector")))


@pytest.fixture
async def projector(
    postgres: Postgres, role_settings: Callable[[str], Settings]
) -> AsyncIterator[Projector]:
    """A projector as its own users: `projector` in Valkey and in PostgreSQL."""
    redis = aioredis.from_url(role_settings("projector").redis_url)
    p = Projector(store_of(redis, postgres), redis, postgres.url("projector"))
    yield p
    await p.close()
    await p.store.close()  # the archive's connection, and the store's


@contextlib.asynccontextmanager
async def projector_service(
    postgres: Postgres, role_settings: Callable[[str], Settings], project_s: float = 3600
) -> AsyncIterator[Projector]:
    """The projector as a service on its own users (notices, and a sweep at start and then
    every `project_s`), its Projector at hand; drained on exit as SIGTERM drains it."""
    settings = role_settings("projector")
    redis = aioredis.from_url(settings.redis_url)
    p = Projector(store_of(redis, postgres), redis, postgres.url("projector"))
    nc = await bus.connect(settings.nats_url)
    app = ServiceApp(nc, subjects.PROJECTOR_SERVICE, "test")
    wire(app, p, project_s)
    try:
        await app.start()
        yield p
    finally:
        await app.drain()
        await p.close()
        await nc.close()
        await p.store.close()


def test_the_fold_is_the_same_whole_or_in_pieces() -> None:
    """project(None, a + b) == project(project(None, a), b) at every cut: what the projector
    writes a piece at a time is what a rebuild writes at once."""
    from tests.contracts.test_golden import load
    from tests.e2e.test_cli import GOLDEN as FOLDER

    for name in GOLDEN:
        stored = load(FOLDER / f"{name}.jsonl")
        whole, error = project(None, stored)
        assert error is None
        assert whole is not None
        assert (whole.version, whole.head) == (stored[-1].version, stored[-1].hash)
        for cut in range(len(stored) + 1):
            first, _ = project(None, stored[:cut])
            assert project(first, stored[cut:]) == (whole, None), (name, cut)


async def test_games_played_are_projected_as_they_are_played(
    store: EventStore, postgres: Postgres, role_settings: Callable[[str], Settings],
    client: Client,
) -> None:  # fmt: skip
    """The projector as a service (its sweep an hour away, so each step is the notices'
    doing): a game in play is projected at its head, then as it ends; two bot games through
    matchmaking are projected to their seals, with their players' rows."""
    settings = dataclasses.replace(role_settings("projector"), project_s=3600,
                                   database_url=postgres.url("projector"))  # fmt: skip
    async with running(build, settings):
        created = await client.create_game("chess3d")
        head = await store.head(created.game_id)
        assert head is not None
        await projected_to(postgres, created.game_id, head.version)
        row = await row_of(postgres, created.game_id)
        assert row is not None
        assert (row["ruleset"], row["seats"], row["players"]) == ("chess3d", 2, ["", ""])
        assert (row["result"], row["ended_at"], row["sealed"]) == (None, None, False)
        assert await players_of(postgres, created.game_id) == []  # anonymous seats

        await client.act(created.game_id, 1, created.seats[1].token, "resign")
        stored = await store.read_all(created.game_id)
        await projected_to(postgres, created.game_id, stored[-1].version)
        row = await row_of(postgres, created.game_id)
        assert row is not None
        assert (row["result"], row["reason"], row["sealed"]) == ("1-0", "resignation", True)
        assert row["head"] == stored[-1].hash
        assert row["created_at"] == moment(stored[0].time_ms)
        ended = next(s for s in stored if s.type == "GameEnded")
        assert row["ended_at"] == moment(ended.time_ms)

        for seed in (11, 21):
            stored, events = await bot_game(client, store, "spacewar", "turn_limit=2",
                                            seed=seed)  # fmt: skip
            game_id = stored[0].game_id
            await projected_to(postgres, game_id, stored[-1].version)
            start = events[0]
            end = next(e for e in events if isinstance(e, GameEnded))
            assert isinstance(start, GameCreated)
            row = await row_of(postgres, game_id)
            assert row is not None
            assert (row["ruleset"], row["variant"], row["players"], row["result"]) == (
                "spacewar",
                start.variant,
                start.players,
                end.result,
            )
            scores = end.result.split("-")
            assert await players_of(postgres, game_id) == [
                (player, seat, end.result, scores[seat])
                for seat, player in enumerate(start.players)
            ]


async def test_a_stopped_projector_catches_up_from_where_it_stopped(
    store: EventStore, postgres: Postgres, role_settings: Callable[[str], Settings],
    client: Client, projector: Projector,
) -> None:  # fmt: skip
    """Stopped while a game goes on and ends: its row stays where it was; started again, its
    first sweep projects the events after that position and those alone (the row's version
    was the position, kept with the row)."""
    created = await client.create_game("chess3d")
    game_id = created.game_id
    async with projector_service(postgres, role_settings):  # its first sweep finds the game
        head = await store.head(game_id)
        assert head is not None
        await projected_to(postgres, game_id, head.version)
    stopped_at = head.version
    await client.act(game_id, 0, created.seats[0].token, "resign")
    stored = await store.read_all(game_id)
    assert stored[-1].version > stopped_at + 1  # GameEnded, GameSealed at least
    row = await row_of(postgres, game_id)
    assert row is not None
    assert row["version"] == stopped_at  # nobody projected meanwhile
    # Every other game of the session's store current first, so that what the restarted
    # projector applies is this game's alone.
    others = Projector(projector.store, projector.redis, projector.database_url)
    for other in await others.pending():
        if other != game_id:
            await others.catch_up(other)
    await others.close()
    async with projector_service(postgres, role_settings) as again:
        await projected_to(postgres, game_id, stored[-1].version)
    assert again.totals["replaced"] == 0
    # This game's events after the position, and nothing of it before.
    assert again.totals["events"] == stored[-1].version - stopped_at
    row = await row_of(postgres, game_id)
    assert row is not None
    assert (row["result"], row["sealed"]) == ("0-1", True)


async def test_catching_up_reads_on_from_the_position_and_a_replaced_log_from_its_start(
    projector: Projector, store: EventStore, redis: "aioredis.Redis", postgres: Postgres,
) -> None:  # fmt: skip
    """A game projected to its 10th event, then its log goes on (the whole golden log, from
    the same first 10): only the events after the 10th are applied. A log replaced by another
    (cut to 5 events) is projected again from its start."""
    full = await imported(store, redis, "yavoch-full-v1")
    game_id = full[0].game_id
    await unproject(postgres, game_id)
    try:
        await forget(redis, game_id)
        await store.import_log(full[:10])
        assert await projector.catch_up(game_id) == "projected"
        assert projector.totals["events"] == 10
        assert await projector.catch_up(game_id) == "current"
        assert projector.totals["events"] == 10

        await forget(redis, game_id)
        await store.import_log(full)
        assert await projector.catch_up(game_id) == "projected"
        assert projector.totals["events"] == len(full)  # 10 + the rest: none twice
        row = await row_of(postgres, game_id)
        assert row is not None
        assert (row["version"], row["head"], row["sealed"]) == (len(full), full[-1].hash, True)

        await forget(redis, game_id)
        await store.import_log(full[:5])
        assert await projector.catch_up(game_id) == "projected"
        assert projector.totals["replaced"] == 1
        row = await row_of(postgres, game_id)
        assert row is not None
        assert (row["version"], row["sealed"], row["result"]) == (5, False, None)
    finally:
        await unproject(postgres, game_id)
        await forget(redis, game_id)


async def test_a_writer_that_read_an_older_row_never_moves_it_back(
    projector: Projector, store: EventStore, redis: "aioredis.Redis", postgres: Postgres,
) -> None:  # fmt: skip
    """Two projectors at once: the one that read the row before the other wrote it writes
    nothing (its guard: the version it read) and reads again."""
    from services.projector.projections import Moved, read_row, write

    full = await imported(store, redis, "chess3d-v1")
    game_id = full[0].game_id
    await unproject(postgres, game_id)
    try:
        assert await projector.catch_up(game_id) == "projected"
        conn = await projector.connection()
        now = await read_row(conn, game_id)
        assert now is not None
        stale, _ = project(None, full[:3])
        assert stale is not None
        with pytest.raises(Moved):  # wrote as if the row were still at version 3
            await write(conn, game_id, stale, now)
        with pytest.raises(Moved):  # a second first insert
            await write(conn, game_id, None, stale)
        assert await read_row(conn, game_id) == now
    finally:
        await unproject(postgres, game_id)
        await forget(redis, game_id)


async def test_a_game_that_left_valkey_is_projected_from_the_archive(
    projector: Projector, store: EventStore, redis: "aioredis.Redis", postgres: Postgres,
) -> None:  # fmt: skip
    """A sealed game in the archive (its packed log, as the archiver writes it) and no longer
    in Valkey: the sweep finds it not projected to its head, and reads its log from the
    archive (EventStore's fall-through) to project it."""
    from services.runtime.archived import FORMAT, pack_commands, pack_log
    from services.runtime.keys import commands_key, log_key

    stored = await imported(store, redis, "yavoch-decker-v1")
    game_id = stored[0].game_id
    await unproject(postgres, game_id)
    raw: Any = redis  # bytes replies, as the archiver reads them
    entries = [(bytes(i), dict(f)) for i, f in await raw.xrange(log_key(game_id), "-", "+")]
    commands = dict(await raw.hgetall(commands_key(game_id)))
    url = make_conninfo(postgres.superuser, dbname=access.PG_DATABASE)
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute("DELETE FROM archived_games WHERE game_id = %s", (game_id,))
        await conn.execute(
            "INSERT INTO archived_games (game_id, ruleset, chain, head_version, head_hash, "
            "result, created_at, sealed_at, format, log, commands) VALUES (%s, 'yavoch', '1', "
            "%s, %s, '0-1', now(), now(), %s, %s, %s)",
            (game_id, len(stored), stored[-1].hash, FORMAT, pack_log(entries),
             pack_commands(commands)),
        )  # fmt: skip
    try:
        await forget(redis, game_id)  # gone from the hot store
        assert game_id in await projector.pending()
        await projector.sweep()
        row = await row_of(postgres, game_id)
        assert row is not None
        assert (row["version"], row["head"], row["sealed"]) == (len(stored), stored[-1].hash, True)
        assert game_id not in await projector.pending()
    finally:
        await unproject(postgres, game_id)
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            await conn.execute("DELETE FROM archived_games WHERE game_id = %s", (game_id,))


async def test_a_drain_finishes_the_games_marked(
    store: EventStore, redis: "aioredis.Redis", postgres: Postgres,
    role_settings: Callable[[str], Settings],
) -> None:  # fmt: skip
    """SIGTERM's drain stops the notices and the sweep but waits for the worker: a game marked
    before it (held back here by the projector's own lock) is projected when the drain
    returns, not before it began."""
    stored = await imported(store, redis, "chess3d-v1")
    game_id = stored[0].game_id
    await unproject(postgres, game_id)
    settings = role_settings("projector")
    r = aioredis.from_url(settings.redis_url)
    p = Projector(store_of(r, postgres), r, postgres.url("projector"))
    nc = await bus.connect(settings.nats_url)
    app = ServiceApp(nc, subjects.PROJECTOR_SERVICE, "test")
    wire(app, p, 3600)
    try:
        async with p.lock:  # the worker waits here, as on a slow catch-up
            await app.start()
            p.mark([game_id])
            drain = asyncio.create_task(app.drain())

            async def jobs_cancelled() -> bool:
                return all(job.done() for job in app._running_jobs)

            await until("the sweep cancelled by the drain", jobs_cancelled)
            assert not drain.done()
            assert await row_of(postgres, game_id) is None
        await drain
        row = await row_of(postgres, game_id)
        assert row is not None
        assert row["version"] == len(stored)
    finally:
        await nc.close()
        await p.close()
        await p.store.close()
        await unproject(postgres, game_id)
        await forget(redis, game_id)


def rebuild_cli(home: Path, role_settings: Callable[[str], Settings],
                postgres: Postgres) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """`tabula projections rebuild` as an operator runs it: the store's read-only user, and
    PostgreSQL as the projector."""
    auditor = role_settings("auditor")
    env = {**os.environ, "TABULA_HOME": str(home), "NATS_URL": auditor.nats_url,
           "REDIS_URL": auditor.redis_url, "DATABASE_URL": postgres.url("projector")}  # fmt: skip
    return subprocess.run([TABULA, "projections", "rebuild"], env=env, capture_output=True,
                          text=True, timeout=300, check=False)  # fmt: skip


async def test_a_rebuild_gives_the_tables_the_projector_keeps(
    projector: Projector, store: EventStore, redis: "aioredis.Redis", postgres: Postgres,
    role_settings: Callable[[str], Settings], tmp_path: Path,
) -> None:  # fmt: skip
    """Golden games (sealed, ended but unsealed, one in play) and whatever else the session's
    store holds, projected by the projector's sweep; `tabula projections rebuild` makes both
    tables again from every log: row for row the same."""
    games = [await imported(store, redis, name) for name in GOLDEN]
    in_play = games[-1][:12]
    await forget(redis, in_play[0].game_id)
    await store.import_log(in_play)
    ids = [g[0].game_id for g in games]
    await unproject(postgres, *ids)
    # Rows whose log is nowhere now (removed by hand, or a DATABASE_URL kept from an earlier
    # session's store): no log cues the projector about them, and a rebuild rightly drops them.
    logs = await game_ids(projector.redis, await projector.connection())
    async with await psycopg.AsyncConnection.connect(postgres.url("auditor")) as conn:
        cur = await conn.execute("SELECT game_id FROM games WHERE NOT game_id = ANY(%s)", (logs,))
        await unproject(postgres, *[g for (g,) in await cur.fetchall()])
    try:
        await projector.sweep()
        incremental = await tables(postgres)
        projected = {r[0] for r in incremental["games"]}
        assert set(ids) <= projected
        ran = await asyncio.to_thread(rebuild_cli, tmp_path, role_settings, postgres)
        assert ran.returncode == 0, ran.stderr
        assert f"rebuilt: {len(incremental['games'])} games" in ran.stdout
        assert re.search(r"^projected (\d+)/\1 games$", ran.stderr, re.MULTILINE), ran.stderr
        assert built_in(await tables(postgres)) == built_in(incremental)
    finally:
        await unproject(postgres, *ids)
        for game_id in ids:
            await forget(redis, game_id)


async def test_each_role_writes_only_its_own_tables(
    projector: Projector, store: EventStore, redis: "aioredis.Redis", postgres: Postgres,
) -> None:  # fmt: skip
    """The projector writes the read model and cannot write the archive; the gateway and the
    auditor read the read model and cannot write it (PostgreSQL's own refusal)."""
    stored = await imported(store, redis, "chess3d-v1")
    game_id = stored[0].game_id
    await unproject(postgres, game_id)
    try:
        assert await projector.catch_up(game_id) == "projected"
        before = await tables(postgres)
        archive = [
            (
                "INSERT INTO archived_games (game_id, ruleset, chain, head_version, head_hash, "
                "created_at, sealed_at) VALUES ('forged', 'x', '2', 1, 'ff', now(), now())"
            ),
            "UPDATE archived_games SET result = '0-1'",
            "DELETE FROM archived_games",
        ]
        read_model = [
            f"UPDATE games SET result = '0-1' WHERE game_id = '{game_id}'",
            f"DELETE FROM player_games WHERE game_id = '{game_id}'",
            f"DELETE FROM games WHERE game_id = '{game_id}'",
            (
                "INSERT INTO games (game_id, ruleset, variant, seats, players, created_at, "
                "updated_at, version, head) VALUES ('forged', 'x', '', 1, '{}', now(), now(), "
                "1, 'h')"
            ),
            "TRUNCATE games CASCADE",
        ]
        for role, statements in [("projector", archive), ("gateway", read_model),
                                 ("auditor", read_model)]:  # fmt: skip
            async with await psycopg.AsyncConnection.connect(postgres.url(role),
                                                             autocommit=True) as conn:  # fmt: skip
                if role != "projector":
                    cur = await conn.execute("SELECT count(*) FROM games WHERE game_id = %s",
                                             (game_id,))  # fmt: skip
                    assert await cur.fetchone() == (1,)  # it reads
                for statement in statements:
                    with pytest.raises(psycopg.errors.InsufficientPrivilege):
                        await conn.execute(statement.encode())
        assert await tables(postgres) == before
    finally:
        await unproject(postgres, game_id)
        await forget(redis, game_id)


async def test_the_lobby_lists_the_projected_games(
    stack: Settings, postgres: Postgres, role_settings: Callable[[str], Settings],
) -> None:  # fmt: skip
    """A gateway with the read model (its role's DATABASE_URL): Ann and Bob's game, once
    projected, is in Ann's games and the recent games with its ruleset, who sits where by
    name, and its result once it has ended, in words."""
    settings = dataclasses.replace(role_settings("gateway"),
                                   database_url=postgres.url("gateway"))  # fmt: skip
    sock = listen("127.0.0.1", 0)
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    ann, bob = Person(base), Person(base)
    async with (projector_service(postgres, role_settings),
                serving(settings, sock, Limits(100_000, 100_000, 1_000))):  # fmt: skip
        try:
            me = await ann.sign_in("Ann")
            bob_id = (await bob.sign_in("Bob"))["id"]
            opened = await ann.post("/api/challenges", {"ruleset": "chess3d"})
            assert opened.status_code == 201, opened.text
            accepted = await bob.post(f"/api/challenges/{opened.json()['challenge']['id']}/accept")
            assert accepted.status_code == 200, accepted.text
            game_id = accepted.json()["game_id"]
            resigned = await bob.post(f"/api/games/{game_id}/actions",
                                      {"action": "resign", "command_id": "r"})  # fmt: skip
            assert resigned.status_code == 200, resigned.text
            listed: dict[str, Any] = {}

            async def ended() -> bool:
                lobby = (await ann.get("/api/lobby")).json()
                mine = [g for g in lobby["mine"] if g["game_id"] == game_id]
                recent = [g for g in lobby["games"] if g["game_id"] == game_id]
                listed.update(mine=mine, recent=recent)
                return bool(mine and recent and mine[0]["result"])

            await until(f"{game_id} listed, ended, in Ann's lobby", ended)
            (game,) = listed["mine"]
            assert (game["ruleset"], game["result"], game["reason"], game["seat"]) == (
                "chess3d",
                "1-0",
                "resignation",
                0,
            )
            assert [(s["seat"], s["player"], s["name"]) for s in game["seated"]] == [
                (0, me["id"], "Ann"),
                (1, bob_id, "Bob"),
            ]
            assert listed["recent"][0]["seat"] is None
            assert listed["recent"][0]["seated"] == game["seated"]
            # In words (issue 23): Ann's own, and anyone's
            assert game["words"] == "Won by resignation"
            assert listed["recent"][0]["words"] == "Ann won by resignation"
        finally:
            await ann.close()
            await bob.close()
