"""Bad input, as a player (or the rules service, for the randomness service) would send it: every
request gets a typed error with a machine-readable code, never `internal`, and nothing is
appended or created (issue 10: limits everywhere input enters)."""

import asyncio
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts import subjects
from contracts.commands import (
    Act,
    Cancel,
    CreateGame,
    CreateSeed,
    Draw,
    Enqueue,
    GetView,
    ReadEvents,
    RevealSeed,
)
from contracts.errors import ErrorCode
from services.client.client import Client
from services.client.sealing import new_reply_key
from services.runtime.config import Settings
from services.runtime.eventstore import GAMES_INDEX, EventStore

KEY = new_reply_key()[1]


async def ask(client: Client, subject: str, payload: bytes) -> dict[str, Any]:
    """The reply as plain JSON: whatever kind it is, its `reply` tag and an error's `code`."""
    msg = await client.nc.request(subject, payload, timeout=10)
    reply: dict[str, Any] = msgspec.json.decode(msg.data)
    return reply


async def footprint(store: EventStore) -> tuple[int, int]:
    """Games and keys in the store: a refused request changes neither."""
    return await store.redis.zcard(GAMES_INDEX), await store.redis.dbsize()


def refused(reply: dict[str, Any], code: ErrorCode) -> None:
    assert (reply["reply"], reply.get("code")) == ("error", code), reply


@pytest.fixture
async def player(closed_stack: Callable[[str], Settings]) -> Client:
    client = await Client.connect(closed_stack("player").nats_url)
    yield client  # type: ignore[misc]
    await client.close()


@pytest.mark.parametrize(
    ("subject", "request_", "code"),
    [
        # a 900 KB command id: refused whole before decoding
        (
            subjects.RULES_CREATE,
            {"command_id": "x" * 900_000, "reply_key": KEY, "ruleset": "chess3d"},
            ErrorCode.TOO_LARGE,
        ),
        (
            subjects.RULES_CREATE,
            {"command_id": "x" * 200, "reply_key": KEY, "ruleset": "chess3d"},
            ErrorCode.MALFORMED,
        ),
        (
            subjects.RULES_CREATE,
            {"command_id": "zug-ü", "reply_key": KEY, "ruleset": "chess3d"},
            ErrorCode.MALFORMED,
        ),
        (
            subjects.RULES_CREATE,
            {"command_id": "c", "reply_key": "not hex", "ruleset": "chess3d"},
            ErrorCode.MALFORMED,
        ),
        (
            subjects.RULES_CREATE,
            {"command_id": "c", "reply_key": KEY, "ruleset": "chess3d", "players": ["p"] * 65},
            ErrorCode.MALFORMED,
        ),
        (
            subjects.RULES_CREATE,
            {"command_id": "c", "reply_key": KEY, "ruleset": "chess3d", "reveal_deadline_ms": -1},
            ErrorCode.MALFORMED,
        ),
        (
            subjects.RULES_ACT,
            {"game_id": "g-1", "seat": 0, "token": "tökén", "command_id": "c", "action": "IE2-IE4"},
            ErrorCode.MALFORMED,
        ),
        (
            subjects.RULES_ACT,
            {"game_id": "g-1", "seat": 10**9, "token": "", "command_id": "c", "action": "IE2-IE4"},
            ErrorCode.MALFORMED,
        ),
        (
            subjects.RULES_ACT,
            {"game_id": "g-1", "seat": 0, "token": "", "command_id": "c", "action": "x" * 9000},
            ErrorCode.MALFORMED,
        ),
        (subjects.RULES_READ, {"game_id": "g-1", "after": -1}, ErrorCode.MALFORMED),
        (subjects.RULES_READ, {"game_id": "G 1"}, ErrorCode.MALFORMED),
        (subjects.RULES_VIEW, {"game_id": "g-1", "seat": -1}, ErrorCode.MALFORMED),
        (
            subjects.MATCH_ENQUEUE,
            {"ticket": "a b", "ruleset": "chess3d", "reply_key": KEY, "owner": "o" * 16},
            ErrorCode.MALFORMED,
        ),
        (
            subjects.MATCH_ENQUEUE,
            {"ticket": "t" * 5000, "ruleset": "chess3d", "reply_key": KEY, "owner": "o" * 16},
            ErrorCode.MALFORMED,
        ),
        (
            subjects.MATCH_ENQUEUE,
            {"ticket": "t.>", "ruleset": "chess3d", "reply_key": KEY, "owner": "o" * 16},
            ErrorCode.MALFORMED,
        ),
        (subjects.MATCH_CANCEL, {"ticket": "t", "owner": "short"}, ErrorCode.MALFORMED),
        (subjects.RULES_CREATE, b"\xff\xfe not json", ErrorCode.MALFORMED),
    ],
)
async def test_bad_input_is_refused_typed_and_changes_nothing(
    player: Client, store: EventStore, subject: str, request_: Any, code: ErrorCode
) -> None:
    before = await footprint(store)
    payload = request_ if isinstance(request_, bytes) else msgspec.json.encode(request_)
    refused(await ask(player, subject, payload), code)
    assert await footprint(store) == before


async def test_matchmaking_survives_a_ticket_that_cannot_be_a_subject(player: Client) -> None:
    """Once, a 5,000-character ticket became a subject at pairing and nats-server dropped the
    matchmaker's connection for good. Now it is refused, and pairing goes on."""
    for ticket in ("t" * 5000, "a b", "x.*"):
        bad = {"ticket": ticket, "ruleset": "chess3d", "reply_key": KEY, "owner": "o" * 16}
        refused(await ask(player, subjects.MATCH_ENQUEUE, msgspec.json.encode(bad)),
                ErrorCode.MALFORMED)  # fmt: skip
    a, b = await asyncio.gather(player.find_match("chess3d", player="a"),
                                player.find_match("chess3d", player="b"))  # fmt: skip
    assert a.game_id == b.game_id


# -- fuzz: hostile messages over every request subject ------------------------------------------

SUBJECTS: dict[str, type[Any]] = {
    subjects.RULES_CREATE: CreateGame,
    subjects.RULES_ACT: Act,
    subjects.RULES_READ: ReadEvents,
    subjects.RULES_VIEW: GetView,
    subjects.MATCH_ENQUEUE: Enqueue,
    subjects.MATCH_CANCEL: Cancel,
}
RANDOMNESS: dict[str, type[Any]] = {
    subjects.RANDOM_SEED: CreateSeed,
    subjects.RANDOM_DRAW: Draw,
    subjects.RANDOM_REVEAL: RevealSeed,
}
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40)
    | st.sampled_from(["chess3d", "yavoch", "g-1", KEY, "0" * 64, "IE2-IE4", "resign", ""]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=8,
)  # fmt: skip


def hostile(types: dict[str, type[Any]]) -> st.SearchStrategy[tuple[str, bytes]]:
    """(subject, payload): objects with the message's own field names and random values, or
    raw bytes."""

    def message(subject: str) -> st.SearchStrategy[tuple[str, bytes]]:
        fields = list(types[subject].__struct_fields__)
        body = st.dictionaries(st.sampled_from(fields) | st.text(max_size=8), values, max_size=8)
        payload = body.map(msgspec.json.encode) | st.binary(max_size=64)
        return payload.map(lambda p: (subject, p))

    return st.sampled_from(sorted(types)).flatmap(message)


@pytest.mark.parametrize(("role", "types"), [("player", SUBJECTS), ("rules", RANDOMNESS)])
async def test_hostile_messages_get_typed_errors_and_append_nothing(
    closed_stack: Callable[[str], Settings], store: EventStore, role: str,
    types: dict[str, type[Any]],
) -> None:  # fmt: skip
    """The reduced fuzz run of `make test`: no reply is `internal`, and no game is created (a
    random request is never a valid create); the randomness service is fuzzed as the rules
    service, its only caller."""
    client = await Client.connect(closed_stack(role).nats_url)
    loop = asyncio.get_running_loop()
    before = (await footprint(store))[0]
    codes: list[str] = []

    @settings(max_examples=250, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(hostile(types))
    def send(case: tuple[str, bytes]) -> None:
        reply = asyncio.run_coroutine_threadsafe(ask(client, *case), loop).result(timeout=30)
        assert reply.get("code") != ErrorCode.INTERNAL, (case, reply)
        codes.append(str(reply.get("code", reply["reply"])))

    try:
        await asyncio.to_thread(send)
    finally:
        await client.close()
    assert len(codes) >= 250
    assert (await footprint(store))[0] == before
