"""A malformed entry in a game's stream (issue 20, item 14). Only a credential to the store
writes one (the rules service's user may XADD: append.lua is not the only way in), but once
there, reading the game names it, by game, entry and what is wrong: the gateway answers the
typed `store/corrupt` error, not an internal one, and `tabula verify` and `tabula audit` fail
in one line (tests/e2e/test_cli.py)."""

from collections.abc import Callable
from typing import Any

import pytest
import redis.asyncio as aioredis

from contracts.errors import ErrorCode
from services.client.client import Client, TabulaError
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore
from services.runtime.keys import log_key
from tests.e2e.test_cli import forget, imported
from tests.gateway.conftest import Person, gateway  # noqa: F401  # the gateway asked

GOLDEN = "chess3d-v1"  # 44 events and no hidden information: exported whenever asked
MALFORMED = ("no fields", "elsewhere", "body", "cmd")


async def write_malformed(rules_url: str, game_id: str, n: int, case: str) -> str:
    """Append one malformed entry after the game's `n` events, as the rules service's own user
    can; return what a reader must say of it."""
    # Any: redis-py types every reply as bytes | str | None; this client is bytes-mode.
    rules: Any = aioredis.from_url(rules_url)
    key = log_key(game_id)
    v = n + 1
    fields = {
        "g": game_id, "v": v, "type": "MovePlayed", "ts": 1_795_318_300_000, "cmd": "forged",
        "h": "0" * 64, "body": b'{"type":"MovePlayed","seat":0,"move":"IA1-IA2"}',
    }  # fmt: skip
    try:
        if case == "no fields":  # as tests/security/test_store.py's forger tries it
            entry = await rules.xadd(key, {"type": "GameEnded", "body": "{}"}, id="*")
            return (f"the stored entry at stream id {entry.decode()} is malformed: it has no "
                    "field v, ts, cmd, h")  # fmt: skip
        if case == "elsewhere":  # whole, but not where the store puts version v: readers page by
            entry = await rules.xadd(key, fields, id="*")  # version, and would read it again
            return (f"the stored entry at version {v} (stream id {entry.decode()}) is malformed: "
                    f"the store puts version {v} at stream id 0-{v}")  # fmt: skip
        if case == "body":
            await rules.xadd(key, {**fields, "body": b'{"type":"MovePlayed","seat":'}, id=f"0-{v}")
            return (f"the stored entry at version {v} is malformed: its body (MovePlayed) does "
                    "not decode as a chess3d event: ")  # fmt: skip
        assert case == "cmd"
        await rules.xadd(key, {**fields, "cmd": b"\xff\xfe"}, id=f"0-{v}")
        return (
            f"the stored entry at version {v} (stream id 0-{v}) is malformed: its cmd is not UTF-8"
        )
    finally:
        await rules.aclose()


@pytest.mark.parametrize("case", MALFORMED)
async def test_the_gateway_names_a_malformed_entry_with_a_typed_error(
    case: str, store: EventStore, redis: "aioredis.Redis",
    role_settings: Callable[[str], Settings], gateway: str,  # noqa: F811
) -> None:  # fmt: skip
    """The game's events, its export and its view each answer 500 `store/corrupt`, naming the
    game, the entry and what is wrong (not 500 `internal`, which says nothing)."""
    stored = await imported(store, redis, GOLDEN)
    game_id = stored[0].game_id
    try:
        said = await write_malformed(role_settings("rules").redis_url, game_id, len(stored), case)
        someone = Person(gateway)
        try:
            for path in ("/events", "/export", ""):
                reply = await someone.get(f"/api/games/{game_id}{path}")
                assert reply.status_code == 500, (path, reply.text)
                error = reply.json()["error"]
                assert error["code"] == ErrorCode.STORE_CORRUPT, (path, error)
                assert error["reason"].startswith(f"game {game_id}: {said}"), (path, error)
        finally:
            await someone.close()
    finally:
        await forget(redis, game_id)


async def test_acting_on_a_game_past_a_malformed_entry_names_it(
    client: Client, role_settings: Callable[[str], Settings]
) -> None:
    """The rules service, holding the game in its cache, reads on from the log when the client
    saw a newer version: an entry there whose body does not decode is answered store/corrupt,
    naming it, and nothing is appended."""
    made = await client.create_game("chess3d")
    game_id, token = made.game_id, made.seats[0].token
    moved = await client.act(game_id, 0, token, "IE2-IE4")  # the game is cached now
    v = moved.version + 1
    fields = {"g": game_id, "v": v, "type": "MovePlayed", "ts": 1_795_318_300_000,
              "cmd": "forged", "h": "0" * 64, "body": b'{"type":"MovePlayed","seat":'}  # fmt: skip
    rules: Any = aioredis.from_url(role_settings("rules").redis_url)
    try:
        await rules.xadd(log_key(game_id), fields, id=f"0-{v}")
    finally:
        await rules.aclose()
    with pytest.raises(TabulaError) as refused:
        await client.act(game_id, 1, made.seats[1].token, "IIIE7-IIIE5", expected_version=v)
    assert refused.value.code == ErrorCode.STORE_CORRUPT
    said = f"game {game_id}: the stored entry at version {v} is malformed: its body (MovePlayed)"
    assert refused.value.reason.startswith(said + " does not decode")
