"""`tabula export`, `import`, `audit` and `replay --file` against the session's real Redis.

A whole race game (tests/rulesets) is written through the event store as the services would
write it (one append per command; the seed reveal and the seal in one append after the end),
then exported, audited offline, imported into a fresh key space (database 1 of the same
server) and audited there. The CLI runs in-process (typer's CliRunner, in a worker thread: it
runs its own event loop) so the test ruleset registered here is known to it.
"""

import asyncio
import base64
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import msgspec
import pytest
import redis.asyncio as aioredis
from typer.testing import CliRunner, Result

from contracts.events import Event, SeedRevealed
from domain import fairplay
from services.cli.main import app
from services.runtime.config import Settings
from services.runtime.eventstore import Appended, EventStore, NewEvent
from services.runtime.keys import GAMES_INDEX, commands_key, log_key, meta_key
from tests.rulesets import register
from tests.rulesets.driver import play_locally

SERVER_SEED = "5e" * 32


def other_db(url: str) -> str:
    """The same server, database 1: a key space where no game exists yet."""
    return urlsplit(url)._replace(path="/1").geturl()


async def tabula(settings: Settings, *args: str, redis_url: str | None = None) -> Result:
    env = {"REDIS_URL": redis_url or settings.redis_url, "NATS_URL": settings.nats_url}
    runner = CliRunner()
    return await asyncio.to_thread(runner.invoke, app, list(args), env=env)


def tag(event: Event) -> str:
    return str(type(event).__struct_config__.tag)


async def write_game(store: EventStore, game_id: str, seed: int = 3) -> list[Event]:
    """Append a locally played race game as the services do (one append per command, the
    seal in the seed reveal's append); return its events."""
    register()
    events = play_locally(seed, SERVER_SEED, game_id)
    version, head = 0, fairplay.genesis_hash(game_id)
    await store.register_game(game_id, 1_700_000_000_000)
    for i, event in enumerate(events):
        result = await store.append(game_id, version, head, f"cmd-{i}",
                                    [NewEvent(tag(event), msgspec.json.encode(event))],
                                    seal=isinstance(event, SeedRevealed))  # fmt: skip
        assert isinstance(result, Appended)
        version, head = result.version, result.hash
    return events


@pytest.fixture
async def db1(settings: Settings) -> AsyncIterator["aioredis.Redis"]:
    client = aioredis.from_url(other_db(settings.redis_url))
    yield client
    await client.aclose()


async def forget(client: "aioredis.Redis", game_id: str) -> None:
    await client.delete(log_key(game_id), meta_key(game_id), commands_key(game_id))
    await client.zrem(GAMES_INDEX, game_id)


def gid() -> str:
    return f"x-{uuid.uuid4().hex[:12]}"


async def test_export_then_audit_and_replay_the_file(
    store: EventStore, settings: Settings, tmp_path: Path
) -> None:
    """An export holds one line per stored event with the exact bytes; `audit --file` passes
    offline, `replay --file` rebuilds the game, and the audit from Redis agrees."""
    game_id = gid()
    await write_game(store, game_id)
    stored = await store.read_all(game_id)
    path = tmp_path / "game.jsonl"
    exported = await tabula(settings, "export", game_id, "-o", str(path))
    assert exported.exit_code == 0, exported.output
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["version"] for line in lines] == [s.version for s in stored]
    for line, s in zip(lines, stored, strict=True):
        assert base64.b64decode(line["body_b64"]) == bytes(s.body)
        assert (line["game_id"], line["type"], line["hash"]) == (game_id, s.type, s.hash)
        assert (line["time_ms"], line["command_id"]) == (s.time_ms, s.command_id)
        assert line["event"]["type"] == s.type

    offline = await tabula(settings, "audit", "--file", str(path))
    assert offline.exit_code == 0, offline.output
    assert "OK: all checks passed" in offline.output
    assert "dice:" in offline.output
    assert "rolls recomputed" in offline.output
    online = await tabula(settings, "audit", game_id)
    assert online.exit_code == 0, online.output
    replayed = await tabula(settings, "replay", "--file", str(path))
    assert replayed.exit_code == 0, replayed.output
    assert f"version {stored[-1].version}," in replayed.output


async def test_export_default_file_name(
    store: EventStore, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without -o the export goes to <game>.tabula.jsonl in the current directory."""
    game_id = gid()
    await write_game(store, game_id)
    monkeypatch.chdir(tmp_path)
    result = await tabula(settings, "export", game_id)
    assert result.exit_code == 0, result.output
    assert (tmp_path / f"{game_id}.tabula.jsonl").exists()


async def test_import_into_a_fresh_key_space_is_exact_and_audits(
    store: EventStore, redis: "aioredis.Redis", db1: "aioredis.Redis", settings: Settings,
    tmp_path: Path,
) -> None:  # fmt: skip
    """Import writes the same stream entries, meta, command ids and index entry the appends
    wrote; the imported game audits from the store; a second import, or an import where the
    game exists, is refused."""
    game_id = gid()
    await write_game(store, game_id)
    path = tmp_path / "game.jsonl"
    assert (await tabula(settings, "export", game_id, "-o", str(path))).exit_code == 0
    url1 = other_db(settings.redis_url)
    try:
        imported = await tabula(settings, "import", str(path), redis_url=url1)
        assert imported.exit_code == 0, imported.output
        assert await db1.xrange(log_key(game_id)) == await redis.xrange(log_key(game_id))
        assert await db1.hgetall(meta_key(game_id)) == await redis.hgetall(meta_key(game_id))
        assert await db1.hgetall(commands_key(game_id)) == await redis.hgetall(
            commands_key(game_id)
        )
        assert await db1.zscore(GAMES_INDEX, game_id) is not None

        audited = await tabula(settings, "audit", game_id, redis_url=url1)
        assert audited.exit_code == 0, audited.output
        assert "OK: all checks passed" in audited.output

        again = await tabula(settings, "import", str(path), redis_url=url1)
        assert again.exit_code == 1
        assert "exists" in again.output
        where_it_was = await tabula(settings, "import", str(path))
        assert where_it_was.exit_code == 1
        assert "exists" in where_it_was.output
    finally:
        await forget(db1, game_id)


async def test_tampered_body_is_refused_by_import_and_fails_the_audit(
    store: EventStore, db1: "aioredis.Redis", settings: Settings, tmp_path: Path
) -> None:
    """One roll changed in body_b64 (the readable `event` left as it was): import refuses it
    naming the event and writes nothing; `audit --file` fails naming the same event."""
    game_id = gid()
    await write_game(store, game_id)
    path = tmp_path / "game.jsonl"
    assert (await tabula(settings, "export", game_id, "-o", str(path))).exit_code == 0
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    roll = next(line for line in lines if line["type"] == "RandomDrawn")
    body = json.loads(base64.b64decode(roll["body_b64"]))
    body["value"] = (body["value"] + 1) % body["n"]
    roll["body_b64"] = base64.b64encode(json.dumps(body, separators=(",", ":")).encode()).decode()
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    url1 = other_db(settings.redis_url)
    try:
        refused = await tabula(settings, "import", str(path), redis_url=url1)
        assert refused.exit_code == 1
        assert f"chain breaks at event {roll['version']} " in refused.output
        assert await db1.exists(log_key(game_id), meta_key(game_id)) == 0

        audited = await tabula(settings, "audit", "--file", str(path))
        assert audited.exit_code == 1
        assert f"event {roll['version']} (RandomDrawn)" in audited.output
        assert "hash chain" in audited.output
    finally:
        await forget(db1, game_id)


async def test_audit_needs_a_game_or_a_file_and_reads_only_exports(
    settings: Settings, tmp_path: Path
) -> None:
    """`audit` with neither a game nor --file, or with a file that is not an export, exits 2."""
    assert (await tabula(settings, "audit")).exit_code == 2
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"hello": 1}\n')
    result = await tabula(settings, "audit", "--file", str(junk))
    assert result.exit_code == 2
    assert "junk.jsonl:1" in result.output
