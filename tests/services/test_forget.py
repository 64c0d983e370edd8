"""A finished game leaves Valkey (issue 21): once the archive holds it, the archiver asks the
rules service (Forget, on the bus) to remove its keys; the rules service compares the archive's
copy with the keys byte for byte and removes them (forget.lua), leaving a tombstone meta. Reads
fall through to the archive: the rules service's reads, views, past views, a late retry's
receipt and a retried create; the CLI's verify, audit, replay, log, export and games.

And the attacks: the archiver's credentials (Valkey, NATS, PostgreSQL) cannot remove a game in
play, nor one the archive does not hold exactly; nobody else may ask for a removal; forget.lua
itself refuses a game in play."""

import asyncio
import base64
import json
import os
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
import redis.asyncio as aioredis
from redis.exceptions import NoPermissionError

from contracts import subjects
from contracts.commands import (
    Created,
    CreateGame,
    Error,
    Forget,
    ForgetGames,
    ForgetSeed,
    Forgotten,
    ForgottenGames,
    SeatGrant,
)
from contracts.errors import ErrorCode
from services.archiver.archive import Archiver
from services.client.bot import play_seat
from services.client.client import Client
from services.runtime import archived, bus
from services.runtime.bus import Requester, TabulaError
from services.runtime.config import Settings
from services.runtime.eventstore import TOMBSTONE_S, EventStore, read_raw
from services.runtime.keys import (
    GAMES_INDEX,
    commands_key,
    drawn_key,
    log_key,
    meta_key,
    secret_key,
    seed_key,
)
from services.runtime.sealing import new_reply_key, open_sealed
from tests.conftest import Postgres, Servers, settings_for
from tests.e2e.test_cli import TABULA, imported
from tests.e2e.test_cli import forget as drop
from tests.security.conftest import connect_as
from tests.services.test_archiver import Recording, archived_row, poll, purge, put_row

TOMBSTONE = {b"version", b"head", b"chain", b"sealed", b"archived"}


# The attacks need servers closed per role (each its own user): every role, and the operator's
# store client, on `closed_servers` (the session's own, or a pair started for the attacks when
# NATS_URL / REDIS_URL are given from outside). The archive's fixtures follow.
@pytest.fixture(scope="module")
def role_settings(closed_servers: Servers, settings: Settings) -> Callable[[str], Settings]:
    return lambda role: settings_for(closed_servers, role, settings.home)


@pytest.fixture
async def redis(closed_servers: Servers) -> AsyncIterator["aioredis.Redis"]:
    client = aioredis.from_url(closed_servers.redis_for("admin"))
    yield client
    await client.aclose()


@pytest.fixture
async def store(closed_servers: Servers) -> AsyncIterator[EventStore]:
    s = EventStore.from_url(closed_servers.redis_for("admin"))
    yield s
    await s.close()


async def hot(redis: "aioredis.Redis", game_id: str) -> dict[str, Any]:
    """Every key of the game in Valkey, read as the operator, and its place in the index."""
    return {
        "log": await redis.xrange(log_key(game_id), "-", "+"),
        "meta": await redis.hgetall(meta_key(game_id)),
        "cmds": await redis.hgetall(commands_key(game_id)),
        "seed": await redis.get(seed_key(game_id)),
        "secret": await redis.hgetall(secret_key(game_id)),
        "drawn": await redis.hgetall(drawn_key(game_id)),
        "index": await redis.zscore(GAMES_INDEX, game_id),
    }


async def drop_all(redis: "aioredis.Redis", game_id: str) -> None:
    """The game's keys removed as the operator (a test's own cleanup)."""
    await drop(redis, game_id)
    await redis.delete(seed_key(game_id), secret_key(game_id), drawn_key(game_id))


async def sealed_in_valkey(redis: "aioredis.Redis", game_id: str) -> None:
    async def sealed() -> bool:
        return await redis.hget(meta_key(game_id), "sealed") == b"1"

    await poll(sealed, f"{game_id} sealed", 60.0)


async def assert_tombstone(redis: "aioredis.Redis", game_id: str, head: tuple[int, str],
                           chain: bytes) -> None:  # fmt: skip
    """The game's keys are gone but its tombstone meta, which expires, and it left the index."""
    state = await hot(redis, game_id)
    assert state["meta"] == {b"version": str(head[0]).encode(), b"head": head[1].encode(),
                             b"chain": chain, b"sealed": b"1", b"archived": b"1"}  # fmt: skip
    assert set(state["meta"]) == TOMBSTONE
    assert 0 < await redis.ttl(meta_key(game_id)) <= TOMBSTONE_S
    assert state["log"] == []
    assert state["cmds"] == {}
    assert state["seed"] is None
    assert state["secret"] == {}
    assert state["drawn"] == {}
    assert state["index"] is None
    assert await redis.exists(log_key(game_id), commands_key(game_id), seed_key(game_id),
                              secret_key(game_id), drawn_key(game_id)) == 0  # fmt: skip


async def played_yavoch(client: Client, redis: "aioredis.Redis") -> str:
    """Bots play a Full Yavoch game (dice, shuffles, dealt cards) to its seal."""
    a, b = await asyncio.gather(
        client.find_match("yavoch", "full+turn_limit=40", player="p1"),
        client.find_match("yavoch", "full+turn_limit=40", player="p2"),
    )
    assert a.game_id == b.game_id
    await asyncio.gather(
        play_seat(client, a.game_id, a.seat, a.token, seed=11 + a.seat),
        play_seat(client, b.game_id, b.seat, b.token, seed=11 + b.seat),
    )
    await sealed_in_valkey(redis, a.game_id)
    return a.game_id


async def ask_forget(settings: Settings, game_id: str, version: int, digest: str
                     ) -> Forgotten | TabulaError:  # fmt: skip
    """A Forget of one game on the bus as `settings`' NATS user (the archiver's, in the
    attacks): its outcome, an error as TabulaError."""
    nc = await bus.connect(settings.nats_url)
    try:
        req = ForgetGames(games=[Forget(game_id=game_id, version=version, hash=digest)])
        reply = await Requester(nc, timeout=10, retries=0).request(
            subjects.RULES_FORGET, req, ForgottenGames
        )
    except TabulaError as exc:
        return exc
    finally:
        await nc.close()
    (outcome,) = reply.outcomes
    return TabulaError(outcome) if isinstance(outcome, Error) else outcome


# -- removal --------------------------------------------------------------------------------


async def test_an_archived_game_leaves_valkey_but_a_tombstone_its_seed_and_draws_too(
    archive_stack: Callable[[str], Settings], forgetting_archiver: Archiver,
    redis: "aioredis.Redis", postgres: Postgres,
) -> None:  # fmt: skip
    """A Full Yavoch game played to its seal has a log, meta, command ids, a seed, secret
    outcomes and draws in Valkey. Archived, all are removed but a tombstone meta (version,
    head, chain, sealed, archived) that expires, and the game leaves the games index; the
    archive holds the log and command ids read before, byte for byte. Asked again: "gone"."""
    client = await Client.connect(archive_stack("player").nats_url)
    game_id = ""
    try:
        game_id = await played_yavoch(client, redis)
        before = await hot(redis, game_id)
        assert before["seed"]
        assert before["secret"]
        assert before["drawn"]
        assert before["cmds"]
        assert before["index"] is not None
        entries, meta, commands = await read_raw(redis, game_id)
        head = (int(meta[b"version"]), meta[b"head"].decode())

        assert await forgetting_archiver.archive(game_id) == "archived"
        await assert_tombstone(redis, game_id, head, meta[b"chain"])
        row = await archived_row(postgres, game_id)
        assert row is not None
        assert archived.unpack_log(bytes(row["log"]), row["format"]) == entries
        assert archived.unpack_commands(bytes(row["commands"]), row["format"], entries) == commands
        assert (row["head_version"], row["head_hash"]) == head

        assert await forgetting_archiver.archive(game_id) == "gone"
        assert game_id not in await forgetting_archiver.pending()
        await assert_tombstone(redis, game_id, head, meta[b"chain"])
    finally:
        await client.close()
        if game_id:
            await drop_all(redis, game_id)


async def test_the_randomness_service_removes_a_seed_only_once_its_game_left_valkey(
    archive_stack: Callable[[str], Settings],
    redis: "aioredis.Redis",
) -> None:
    """ForgetSeed (the rules service's alone, after forget.lua) removes the seed, secret
    outcomes and draws only of a game whose meta is a tombstone: asked for a game in play, as
    the rules service itself, it answers `archive/not-archived` and the seed stays (nobody
    else may ask: tests/security/test_bus.py)."""
    client = await Client.connect(archive_stack("player").nats_url)
    nc = await bus.connect(archive_stack("rules").nats_url)
    made = await client.create_game("yavoch", "full")
    try:
        seed = await redis.get(seed_key(made.game_id))
        assert seed
        with pytest.raises(TabulaError) as refused:
            await Requester(nc, timeout=10, retries=0).request(
                subjects.RANDOM_FORGET, ForgetSeed(game_id=made.game_id), Forgotten
            )
        assert refused.value.code == ErrorCode.NOT_ARCHIVED
        assert await redis.get(seed_key(made.game_id)) == seed
    finally:
        await asyncio.gather(client.close(), nc.close())
        await drop_all(redis, made.game_id)


# -- reads fall through -----------------------------------------------------------------------


async def test_the_rules_service_reads_an_archived_game_from_the_archive(
    archive_stack: Callable[[str], Settings], forgetting_archiver: Archiver,
    redis: "aioredis.Redis", postgres: Postgres,
) -> None:  # fmt: skip
    """A 3-D Chess game played a few moves and resigned, then archived and removed: its events,
    its view now and every past view read the same as before; a late retry of its last command
    gets its original receipt (same version and hash, a duplicate) and appends nothing; a
    retried CreateGame (same command id and reply key) gets its receipt and the same seats;
    a CreateGame naming its id with another command id gets game/exists and creates nothing."""
    client = await Client.connect(archive_stack("player").nats_url)
    private, public = new_reply_key()
    create_req = CreateGame(command_id=bus.new_id(), reply_key=public, ruleset="chess3d")
    created = await client.request(subjects.RULES_CREATE, create_req, Created)
    game_id = created.game_id
    grants = open_sealed(private, f"seats:{game_id}", created.tokens)
    tokens = [g.token for g in msgspec.json.decode(grants, type=list[SeatGrant])]
    try:
        for _ in range(4):
            view = await client.view(game_id)
            seat = view.to_act[0]
            legal = (await client.view(game_id, seat, tokens[seat])).legal
            await client.act(game_id, seat, tokens[seat], legal[0])
        seat = (await client.view(game_id)).to_act[0]
        last_id = bus.new_id()
        last = await client.act(game_id, seat, tokens[seat], "resign", command_id=last_id)
        assert not last.duplicate
        await sealed_in_valkey(redis, game_id)
        head = await client.view(game_id)
        assert head.result
        events = await client.read(game_id)
        n = events[-1].version
        assert n == head.version
        assert n > 6
        past = [await client.view(game_id, at=k) for k in range(1, n)]

        entries, meta, _ = await read_raw(redis, game_id)
        assert await forgetting_archiver.archive(game_id) == "archived"
        await assert_tombstone(redis, game_id, (n, meta[b"head"].decode()), meta[b"chain"])
        tombstone = await hot(redis, game_id)

        assert await client.read(game_id) == events
        assert await client.read(game_id, after=3) == events[3:]
        assert await client.view(game_id) == head
        assert [await client.view(game_id, at=k) for k in range(1, n)] == past
        for own in (0, 1):  # a seat's own view, with its token
            assert (await client.view(game_id, own, tokens[own])).version == n

        again = await client.act(game_id, seat, tokens[seat], "resign", command_id=last_id)
        assert (again.game_id, again.first_version, again.version, again.hash) == (
            game_id, last.first_version, last.version, last.hash)  # fmt: skip
        assert again.duplicate
        assert await hot(redis, game_id) == tombstone  # nothing appended, nothing recreated

        retried = await client.request(subjects.RULES_CREATE, create_req, Created)
        assert (retried.game_id, retried.version, retried.hash, retried.seats) == (
            game_id, created.version, created.hash, created.seats)  # fmt: skip
        grants = open_sealed(private, f"seats:{game_id}", retried.tokens)
        assert [g.token for g in msgspec.json.decode(grants, type=list[SeatGrant])] == tokens
        _, stranger = new_reply_key()  # the same command id from another key: no seats
        with pytest.raises(TabulaError) as refused:
            await client.request(
                subjects.RULES_CREATE,
                msgspec.structs.replace(create_req, reply_key=stranger),
                Created,
            )
        assert refused.value.code == ErrorCode.FORBIDDEN
        with pytest.raises(TabulaError) as exists:
            await client.create_game("chess3d", game_id=game_id)
        assert exists.value.code == ErrorCode.GAME_EXISTS
        assert await hot(redis, game_id) == tombstone
        assert await client.read(game_id) == events
        row = await archived_row(postgres, game_id)
        assert row is not None
        assert archived.unpack_log(bytes(row["log"]), row["format"]) == entries

        # The tombstone expired (removed as the operator, as its TTL would): nothing of the
        # game is left in Valkey, and the same requests are answered from the archive alone
        # (a create under its id is refused by the archive's check, not by the tombstone).
        await redis.delete(meta_key(game_id))
        nothing = await hot(redis, game_id)
        assert not any(nothing.values())
        assert await client.read(game_id) == events
        assert await client.view(game_id) == head
        assert await client.view(game_id, at=n - 1) == past[-1]
        again = await client.act(game_id, seat, tokens[seat], "resign", command_id=last_id)
        assert (again.version, again.hash, again.duplicate) == (last.version, last.hash, True)
        retried = await client.request(subjects.RULES_CREATE, create_req, Created)
        assert (retried.game_id, retried.version, retried.hash) == (
            game_id, created.version, created.hash)  # fmt: skip
        with pytest.raises(TabulaError) as exists:
            await client.create_game("chess3d", game_id=game_id)
        assert exists.value.code == ErrorCode.GAME_EXISTS
        assert await hot(redis, game_id) == nothing
    finally:
        await client.close()
        await drop_all(redis, game_id)


async def test_a_game_the_rules_service_never_saw_is_read_from_the_archive(
    archive_stack: Callable[[str], Settings], forgetting_archiver: Archiver,
    store: EventStore, redis: "aioredis.Redis", postgres: Postgres,
) -> None:  # fmt: skip
    """An imported game (never in the rules service's cache) archived and removed: its events
    and its views, now and past, come from the archive and are those of the log."""
    stored = await imported(store, redis, "yiora-complex-teams-v2")
    game_id = stored[0].game_id
    await purge(postgres, game_id)
    client = await Client.connect(archive_stack("player").nats_url)
    try:
        assert await forgetting_archiver.archive(game_id) == "archived"
        assert await redis.hget(meta_key(game_id), "archived") == b"1"
        read = await client.read(game_id)
        assert [(e.version, e.hash, e.type) for e in read] == [
            (s.version, s.hash, s.type) for s in stored
        ]
        view = await client.view(game_id)
        assert (view.version, view.ruleset) == (len(stored), "yiora")
        assert view.result
        assert (await client.view(game_id, at=5)).version == 5
    finally:
        await client.close()
        await drop(redis, game_id)


# -- the CLI --------------------------------------------------------------------------------


def tabula_with_archive(home: Path, auditor: Settings, postgres_url: str,
                        *args: str) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """`tabula` as the CLI's read-only roles: Valkey's and PostgreSQL's `auditor` ("" for no
    archive)."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env |= {"TABULA_HOME": str(home), "NATS_URL": auditor.nats_url,
            "REDIS_URL": auditor.redis_url}  # fmt: skip
    if postgres_url:
        env["DATABASE_URL"] = postgres_url
    return subprocess.run([TABULA, *args], env=env, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip


async def test_the_cli_reads_an_archived_game_from_the_archive_and_says_so(
    archive_stack: Callable[[str], Settings], forgetting_archiver: Archiver,
    redis: "aioredis.Redis", postgres: Postgres, tmp_path: Path,
) -> None:  # fmt: skip
    """`tabula verify|audit|replay|log|export|games` of a Full Yavoch game that has left Valkey
    work from the archive, and verify and audit say so; without the archive the game is not
    found (so it is the archive they read)."""
    client = await Client.connect(archive_stack("player").nats_url)
    game_id = ""
    try:
        game_id = await played_yavoch(client, redis)
        stored = await EventStore(redis).read_all(game_id)
        position = (await client.view(game_id)).position
        assert await forgetting_archiver.archive(game_id) == "archived"
        assert await redis.exists(log_key(game_id)) == 0
        auditor, url = archive_stack("auditor"), postgres.url("auditor")
        n = len(stored)

        def cli(*args: str, archive: str = url) -> subprocess.CompletedProcess[str]:
            return tabula_with_archive(tmp_path, auditor, archive, *args)

        verify = await asyncio.to_thread(cli, "verify", game_id)
        assert verify.returncode == 0, verify.stdout + verify.stderr
        assert f"OK: {n} events" in verify.stdout
        assert "the head the archive recorded at the seal" in verify.stdout
        assert "read from: the archive (PostgreSQL)" in verify.stdout

        audit = await asyncio.to_thread(cli, "audit", game_id)
        assert audit.returncode == 0, audit.stdout + audit.stderr
        assert "from the archive (PostgreSQL)" in audit.stdout
        assert "OK: all checks passed" in audit.stdout

        replay = await asyncio.to_thread(cli, "replay", game_id)
        assert replay.returncode == 0, replay.stderr
        assert f"position: {position}" in replay.stdout
        assert f"version {n}," in replay.stdout
        replay_to = await asyncio.to_thread(cli, "replay", game_id, "--to", "3")
        assert replay_to.returncode == 0, replay_to.stderr
        assert "version 3," in replay_to.stdout

        log = await asyncio.to_thread(cli, "log", game_id)
        assert log.returncode == 0, log.stderr
        assert len(log.stdout.splitlines()) == n
        assert "read from the archive (PostgreSQL)" in log.stderr

        path = tmp_path / "game.jsonl"
        export = await asyncio.to_thread(cli, "export", game_id, "-o", str(path))
        assert export.returncode == 0, export.stderr
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        assert [(e["version"], e["hash"], base64.b64decode(e["body_b64"])) for e in lines] == [
            (s.version, s.hash, bytes(s.body)) for s in stored
        ]

        games = await asyncio.to_thread(cli, "games", "--limit", "100000")
        assert games.returncode == 0, games.stderr
        assert game_id in games.stdout

        # Its export imported again, as the operator: refused, the archive holds the game (a
        # second copy in Valkey would be read before the archive's).
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        env |= {"TABULA_HOME": str(tmp_path), "NATS_URL": auditor.nats_url,
                "REDIS_URL": auditor.redis_url, "DATABASE_URL": url,
                "TABULA_ADMIN_REDIS_URL": archive_stack("admin").redis_url}  # fmt: skip
        again = await asyncio.to_thread(subprocess.run, [TABULA, "import", str(path)], env=env,
                                         capture_output=True, text=True, timeout=120)  # fmt: skip
        assert again.returncode == 1, again.stdout
        assert f"REFUSED: game {game_id} is in the archive" in again.stderr
        assert await redis.exists(log_key(game_id)) == 0

        # Without the archive: not read, and said so (no "events 1..n are missing" from the
        # tombstone's head), so it is the archive the commands above read.
        for command in ("verify", "audit", "log", "replay", "export"):
            to = ("-o", str(tmp_path / "nowhere.jsonl")) if command == "export" else ()
            nowhere = await asyncio.to_thread(cli, command, game_id, *to, archive="")
            assert nowhere.returncode == 1, nowhere.stdout
            assert nowhere.stdout == ""
            assert nowhere.stderr.strip() == (
                f"game {game_id} has left Valkey for the archive (PostgreSQL), which this "
                "command does not read: set DATABASE_URL"
            )
        assert not (tmp_path / "nowhere.jsonl").exists()

        # The archive's row removed (as the operator): the tombstone says the game left Valkey
        # for an archive that does not hold it, a failure named as such.
        await purge(postgres, game_id)
        for command in ("verify", "audit", "log"):
            lost = await asyncio.to_thread(cli, command, game_id)
            assert lost.returncode == 1, lost.stdout
            assert lost.stderr.strip() == (
                f"FAILED: game {game_id} has left Valkey for the archive, which does not hold it"
            )
    finally:
        await client.close()
        if game_id:
            await drop_all(redis, game_id)


async def test_the_cli_reads_a_game_archived_but_still_in_valkey_from_valkey(
    store: EventStore, redis: "aioredis.Redis", postgres: Postgres,
    role_settings: Callable[[str], Settings], tmp_path: Path,
) -> None:  # fmt: skip
    """Between the archive's commit and the removal (or when the removal was refused), a game
    is in both places: verify reads Valkey, says so, and checks the archive's copy's head is
    the store's."""
    stored = await imported(store, redis, "chess3d-v1")
    game_id = stored[0].game_id
    await purge(postgres, game_id)
    try:
        await copied(postgres, redis, role_settings, game_id)
        assert await redis.exists(log_key(game_id)) == 1
        verify = await asyncio.to_thread(tabula_with_archive, tmp_path, role_settings("auditor"),
                                         postgres.url("auditor"), "verify", game_id)  # fmt: skip
        assert verify.returncode == 0, verify.stdout + verify.stderr
        assert "read from: Valkey (the hot store)" in verify.stdout
        assert f"archive: holds it too, its head (version {len(stored)}) the store's" in (
            verify.stdout
        )
    finally:
        await purge(postgres, game_id)
        await drop(redis, game_id)


# -- attacks ---------------------------------------------------------------------------------


async def copied(postgres: Postgres, redis: "aioredis.Redis", role_settings: Callable[[str],
                 Settings], game_id: str) -> None:  # fmt: skip
    """The game's copy committed to the archive by an archiver whose Forget does nothing."""
    archiver_redis = aioredis.from_url(role_settings("archiver").redis_url)
    recording = Recording()
    archiver = Archiver(archiver_redis, postgres.url("archiver"), recording)
    try:
        assert await archiver.archive(game_id) == "archived"
        assert recording.asked == [game_id]
    finally:
        await archiver.close()
        await archiver_redis.aclose()


async def test_the_archivers_store_user_cannot_remove_or_change_a_game(
    store: EventStore, redis: "aioredis.Redis", postgres: Postgres,
    role_settings: Callable[[str], Settings],
) -> None:  # fmt: skip
    """A sealed game the archive holds, attacked with the archiver's Valkey credentials: every
    command that would remove, trim or change its keys, or run a script (forget.lua itself
    among them), is refused with NOPERM, and the game is unchanged."""
    stored = await imported(store, redis, "chess3d-v1")
    game_id = stored[0].game_id
    await purge(postgres, game_id)
    await copied(postgres, redis, role_settings, game_id)
    log, meta, cmds = log_key(game_id), meta_key(game_id), commands_key(game_id)
    forget_lua = (Path(archived.__file__).parent / "forget.lua").read_text()
    head = stored[-1]
    attacks: list[tuple[Any, ...]] = [
        ("DEL", log), ("DEL", meta), ("DEL", cmds), ("DEL", log, meta, cmds),
        ("UNLINK", log), ("UNLINK", meta), ("XTRIM", log, "MAXLEN", "0"), ("XDEL", log, "0-1"),
        ("HSET", meta, "sealed", "1"), ("HSET", meta, "archived", "1"), ("HDEL", meta, "head"),
        ("HSET", cmds, "x", "1 1 0"), ("EXPIRE", meta, "1"), ("RENAME", log, log + ":x"),
        ("ZREM", GAMES_INDEX, game_id),
        ("EVAL", "return redis.call('DEL', KEYS[1])", "1", log),
        ("EVAL", forget_lua, "3", log, meta, cmds, str(head.version), head.hash, "60"),
        ("SCRIPT", "LOAD", forget_lua),
        ("FUNCTION", "FLUSH"),
    ]  # fmt: skip
    attacker: Any = aioredis.from_url(role_settings("archiver").redis_url)
    try:
        before = await hot(redis, game_id)
        assert before["log"]
        assert before["index"] is not None
        assert await attacker.hgetall(meta)  # its own work: reading the keys
        for command in attacks:
            with pytest.raises(NoPermissionError):
                await attacker.execute_command(*command)
        assert await hot(redis, game_id) == before
    finally:
        await attacker.aclose()
        await drop(redis, game_id)


async def test_a_forget_for_a_game_in_play_removes_nothing(
    archive_stack: Callable[[str], Settings], redis: "aioredis.Redis",
    postgres: Postgres,
) -> None:  # fmt: skip
    """As the archiver on NATS: a Forget for a game in play that the archive does not hold is
    archive/not-archived; with the archiver's PostgreSQL credentials the attacker then puts the
    game in play into the archive, its current keys exactly at its current head, and asks
    again: game/in-play. Nothing is removed either time."""
    client = await Client.connect(archive_stack("player").nats_url)
    created = await client.create_game("chess3d")
    game_id = created.game_id
    try:
        legal = (await client.view(game_id, 0, created.seats[0].token)).legal
        await client.act(game_id, 0, created.seats[0].token, legal[0])
        entries, meta, commands = await read_raw(redis, game_id)
        head = (int(meta[b"version"]), meta[b"head"].decode())
        before = await hot(redis, game_id)
        archiver = archive_stack("archiver")

        refused = await ask_forget(archiver, game_id, *head)
        assert isinstance(refused, TabulaError)
        assert refused.code == ErrorCode.NOT_ARCHIVED
        assert await hot(redis, game_id) == before

        import psycopg

        async with await psycopg.AsyncConnection.connect(postgres.url("archiver")) as conn:
            await conn.execute(
                "INSERT INTO archived_games (game_id, ruleset, chain, head_version, head_hash, "
                "created_at, sealed_at, format, log, commands) "
                "VALUES (%s, 'chess3d', '2', %s, %s, now(), now(), %s, %s, %s)",
                (
                    game_id,
                    *head,
                    archived.FORMAT,
                    archived.pack_log(entries),
                    archived.pack_commands(commands),
                ),
            )
        refused = await ask_forget(archiver, game_id, *head)
        assert isinstance(refused, TabulaError)
        assert refused.code == ErrorCode.IN_PLAY
        assert await hot(redis, game_id) == before
        view = await client.view(game_id)
        assert view.version == head[0]
        assert not view.result
    finally:
        await client.close()
        await purge(postgres, game_id)
        await drop_all(redis, game_id)


async def test_one_forget_of_several_games_answers_each_and_removes_only_the_archived_one(
    archive_stack: Callable[[str], Settings], store: EventStore,
    redis: "aioredis.Redis", postgres: Postgres,
) -> None:  # fmt: skip
    """The archiver's Forget names a batch: a game the archive holds exactly is removed, one it
    does not hold is refused in its place in the reply, and its keys stay."""
    kept = await imported(store, redis, "chess3d-v1")
    removed = await imported(store, redis, "yavoch-full-v1")
    await purge(postgres, kept[0].game_id)
    await purge(postgres, removed[0].game_id)
    try:
        await copied(postgres, redis, archive_stack, removed[0].game_id)
        before = await hot(redis, kept[0].game_id)
        nc = await bus.connect(archive_stack("archiver").nats_url)
        try:
            req = ForgetGames(games=[Forget(game_id=s[0].game_id, version=s[-1].version,
                                            hash=s[-1].hash) for s in (kept, removed)])  # fmt: skip
            reply = await Requester(nc, timeout=10, retries=0).request(
                subjects.RULES_FORGET, req, ForgottenGames
            )
        finally:
            await nc.close()
        refusal, done = reply.outcomes
        assert isinstance(refusal, Error)
        assert refusal.code == ErrorCode.NOT_ARCHIVED
        assert done == Forgotten(game_id=removed[0].game_id, version=removed[-1].version)
        assert await hot(redis, kept[0].game_id) == before
        assert await redis.exists(log_key(removed[0].game_id)) == 0
    finally:
        await drop_all(redis, kept[0].game_id)
        await drop_all(redis, removed[0].game_id)


async def test_a_forget_for_a_sealed_game_the_archive_does_not_hold_removes_nothing(
    archive_stack: Callable[[str], Settings], store: EventStore,
    redis: "aioredis.Redis", postgres: Postgres,
) -> None:  # fmt: skip
    """As the archiver on NATS, a Forget for a sealed game not in the archive: not-archived,
    and its keys stay. (The archive then holding it, the same Forget removes them.)"""
    stored = await imported(store, redis, "yavoch-decker-v1")
    game_id, head = stored[0].game_id, stored[-1]
    await purge(postgres, game_id)
    try:
        before = await hot(redis, game_id)
        refused = await ask_forget(archive_stack("archiver"), game_id, head.version, head.hash)
        assert isinstance(refused, TabulaError)
        assert refused.code == ErrorCode.NOT_ARCHIVED
        assert await hot(redis, game_id) == before

        await copied(postgres, redis, archive_stack, game_id)
        done = await ask_forget(archive_stack("archiver"), game_id, head.version, head.hash)
        assert isinstance(done, Forgotten), done
        assert await redis.exists(log_key(game_id)) == 0
    finally:
        await drop(redis, game_id)


@pytest.mark.parametrize("forged", ["a body", "a command id"])
async def test_a_forget_against_a_different_copy_in_the_archive_removes_nothing(
    forged: str, archive_stack: Callable[[str], Settings],
    forgetting_archiver: Archiver, store: EventStore, redis: "aioredis.Redis",
    postgres: Postgres,
) -> None:  # fmt: skip
    """Someone with the operator's rights put a copy of a sealed game into the archive with the
    store's head but other bytes (one event's body, or a command's receipt). A Forget over the
    bus is refused; the archiver's own run reads the row back, sees it is not the store's and
    asks none ("failed"): the keys stay whole."""
    stored = await imported(store, redis, "yavoch-full-v1")
    game_id, head = stored[0].game_id, stored[-1]
    await purge(postgres, game_id)
    entries, _, commands = await read_raw(redis, game_id)
    if forged == "a body":
        entries = [(i, {**f, b"body": f[b"body"] + b" "} if i == b"0-5" else f)
                   for i, f in entries]  # fmt: skip
    else:
        first = next(iter(commands))
        commands = {**commands, first: b"1 1 " + b"0" * 64}
    try:
        await put_row(postgres, game_id, (head.version, head.hash), entries, commands)
        before = await hot(redis, game_id)
        refused = await ask_forget(archive_stack("archiver"), game_id, head.version, head.hash)
        assert isinstance(refused, TabulaError)
        assert refused.code == ErrorCode.NOT_ARCHIVED
        assert "not the store's" in refused.reason
        assert await forgetting_archiver.archive(game_id) == "failed"
        assert await hot(redis, game_id) == before
    finally:
        await purge(postgres, game_id)
        await drop(redis, game_id)


@pytest.mark.parametrize("role", ["gateway", "player"])
async def test_only_the_archiver_may_ask_for_a_removal(
    role: str, archive_stack: Callable[[str], Settings], store: EventStore,
    redis: "aioredis.Redis", postgres: Postgres,
) -> None:  # fmt: skip
    """The gateway's and a player's NATS users cannot publish a Forget (for a sealed game the
    archive holds, which the archiver's Forget then does remove): the server refuses it and
    the game stays whole."""
    stored = await imported(store, redis, "chess3d-v1")
    game_id, head = stored[0].game_id, stored[-1]
    await purge(postgres, game_id)
    try:
        await copied(postgres, redis, archive_stack, game_id)
        before = await hot(redis, game_id)
        attacker = await connect_as(archive_stack(role))
        try:
            one = Forget(game_id=game_id, version=head.version, hash=head.hash)
            req = ForgetGames(games=[one])
            await attacker.nc.publish(subjects.RULES_FORGET, msgspec.json.encode(req))
            await attacker.nc.flush()
            refusal = await attacker.refusal()
            assert f'permissions violation for publish to "{subjects.RULES_FORGET}"' in refusal
        finally:
            await attacker.nc.close()
        assert await hot(redis, game_id) == before
        done = await ask_forget(archive_stack("archiver"), game_id, head.version, head.hash)
        assert isinstance(done, Forgotten), done
        assert await redis.exists(log_key(game_id)) == 0
    finally:
        await drop(redis, game_id)


async def test_forget_lua_refuses_a_game_in_play_even_run_as_the_rules_service(
    store: EventStore, redis: "aioredis.Redis",
    role_settings: Callable[[str], Settings],
) -> None:  # fmt: skip
    """The script itself, run with the rules service's own credentials: a game in play is
    "in-play", a sealed game named at another head "moved", a game that is not there "gone"
    (nothing to remove, no tombstone made); nothing is removed. At its head, the sealed game is
    removed, leaving its tombstone; asked again, "gone"."""
    sealed = await imported(store, redis, "yiora-complex-teams-v2")
    in_play = sealed[:10]
    game_id = in_play[0].game_id
    await drop(redis, game_id)
    await store.import_log(in_play)
    rules = EventStore.from_url(role_settings("rules").redis_url)
    try:
        before = await hot(redis, game_id)
        head = in_play[-1]
        assert await rules.forget(game_id, head.version, head.hash) == "in-play"
        assert await hot(redis, game_id) == before

        await drop(redis, game_id)
        await store.import_log(sealed)
        before = await hot(redis, game_id)
        assert await rules.forget(game_id, head.version, head.hash) == "moved"
        assert await rules.forget(game_id, len(sealed), "0" * 64) == "moved"
        assert await hot(redis, game_id) == before
        assert await rules.forget("g-nosuchgame", 3, "0" * 64) == "gone"  # nothing to remove
        assert await redis.exists(meta_key("g-nosuchgame")) == 0  # and no tombstone made
        assert await rules.forget(game_id, len(sealed), sealed[-1].hash) == "forgotten"
        assert await redis.exists(log_key(game_id)) == 0
        tombstone = await hot(redis, game_id)
        assert set(tombstone["meta"]) == TOMBSTONE
        assert await rules.forget(game_id, len(sealed), sealed[-1].hash) == "gone"
        assert await hot(redis, game_id) == tombstone
    finally:
        await rules.close()
        await drop(redis, game_id)
