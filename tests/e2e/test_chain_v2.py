"""Hash chain v2 through the services: each entry's `ts` and `cmd` are in the chain.

A race game (tests/rulesets) played by two bots through matchmaking, rules and randomness is
stored under chain v2. The operator (the store's admin) rewrites one entry's `ts`, then
another's `cmd`, keeping every hash: `tabula verify` and `tabula audit` name that event. The
export of the game audits offline as v2, and an export with an edited `time_ms` fails there.
The CLI runs in-process (tests/services/test_export_import.py) so it knows the race ruleset.
"""

import json
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from domain import fairplay
from domain.audit import chain_entries
from services.client.client import Client
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore
from services.runtime.keys import log_key
from tests.e2e.test_fair_play import play_race
from tests.services.test_export_import import tabula


async def rewrite(admin: Any, game_id: str, version: int, field: bytes, value: bytes) -> bytes:
    """Rewrite the game's stream with one field of one entry replaced (every hash kept), as only
    the store's admin can: entries cannot be edited in place. Returns the old value."""
    entries = await admin.xrange(log_key(game_id))
    await admin.delete(log_key(game_id))
    old = b""
    for entry_id, fields in entries:
        if int(fields[b"v"]) == version:
            old, fields[field] = fields[field], value
        await admin.xadd(log_key(game_id), fields, id=entry_id)
    return bytes(old)


async def test_a_game_played_through_the_services_is_v2_and_covers_ts_and_cmd(
    client: Client, store: EventStore, redis: "aioredis.Redis", settings: Settings,
    tmp_path: Path,
) -> None:  # fmt: skip
    game_id = await play_race(client)
    stored = await store.read_all(game_id)
    entries = chain_entries(stored)
    assert fairplay.verify_chain(game_id, entries) is None
    assert fairplay.chain_version(game_id, entries) == fairplay.CHAIN_V2
    assert await redis.hget(f"tabula:game:{{{game_id}}}:meta", "chain") == b"2"
    assert len({s.command_id for s in stored}) > 2  # many commands, each its own cmd

    verified = await tabula(settings, "verify", game_id)
    assert verified.exit_code == 0, verified.output
    assert "hash chain v2" in verified.output
    audited = await tabula(settings, "audit", game_id)
    assert audited.exit_code == 0, audited.output
    assert "(hash chain v2, times, command ids and actions included)" in audited.output

    # The export audits offline, as v2; an edited time_ms in it fails at that event.
    path = tmp_path / "game.jsonl"
    assert (await tabula(settings, "export", game_id, "-o", str(path))).exit_code == 0
    offline = await tabula(settings, "audit", "--file", str(path))
    assert offline.exit_code == 0, offline.output
    assert "(hash chain v2, times, command ids and actions included)" in offline.output
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    victim = lines[len(lines) // 2]
    victim["time_ms"] += 1
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    edited = await tabula(settings, "audit", "--file", str(path))
    assert edited.exit_code == 1, edited.output
    assert f"event {victim['version']} ({victim['type']})" in edited.output
    assert "hash chain" in edited.output

    # In the store: one entry's ts, then another's cmd, rewritten with the hashes kept.
    for version, field, value in ((len(stored) // 2, b"ts", b"1700000000000"),
                                  (3, b"cmd", b"someone-else")):  # fmt: skip
        kind = stored[version - 1].type
        old = await rewrite(redis, game_id, version, field, value)
        assert old != value
        verify = await tabula(settings, "verify", game_id)
        assert verify.exit_code == 1, verify.output
        assert f"the chain breaks at event {version} of {game_id}" in verify.output
        audit = await tabula(settings, "audit", game_id)
        assert audit.exit_code == 1, audit.output
        assert f"FAILED: the first discrepancy is at event {version} ({kind})" in audit.output
        assert "its time (ts), its command id (cmd)" in audit.output
        await rewrite(redis, game_id, version, field, old)
        restored = await tabula(settings, "verify", game_id)
        assert restored.exit_code == 0, restored.output
