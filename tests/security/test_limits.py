"""Bad input, as a player (or the rules service, for the randomness service) would send it: every
request gets a typed error with a machine-readable code, never `internal`, and nothing is
appended or created (issue 10: limits everywhere input enters); and valid input mixed in, which
may create what valid input creates, and nothing else."""

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts import subjects
from contracts.errors import ErrorCode
from services.client.client import Client
from services.runtime import keys
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore
from services.runtime.keys import GAMES_INDEX
from tests.faults.hostile import (
    KEY,
    RANDOMNESS,
    SUBJECTS,
    Legit,
    ask,
    decodes,
    hostile,
    typed,
)


async def footprint(store: EventStore) -> tuple[int, dict[bytes, int]]:
    """Games in the store, and every key with its time to live (ms; -1: none). The rules
    replicas' keys are left out (their leases and the clocks' index come and go with the
    replicas, not with requests), and the gateways' (earlier tests' gateways still play their
    house bots: rate windows, leases), which no request on the bus reaches."""
    names = [k async for k in store.redis.scan_iter() if not k.startswith(NOT_REQUESTS)]
    async with store.redis.pipeline(transaction=False) as pipe:
        for name in names:
            pipe.pttl(name)
        ttls = await pipe.execute()
    return await store.redis.zcard(GAMES_INDEX), dict(zip(names, ttls, strict=True))


def unchanged(before: tuple[int, dict[bytes, int]], after: tuple[int, dict[bytes, int]]) -> None:
    """No game and no key more, and none gone but those that expired by themselves (a rate
    window, a lease of an earlier test's stack): a refused request changed nothing."""
    assert after[0] == before[0]
    assert set(after[1]) - set(before[1]) == set()
    assert [k for k in set(before[1]) - set(after[1]) if before[1][k] < 0] == []


NOT_REQUESTS = (keys.RULES_KEYS.removesuffix("*").encode(), f"{keys.PREFIX}:gw:".encode())


def refused(reply: dict[str, Any], code: ErrorCode) -> None:
    assert (reply["reply"], reply.get("code")) == ("error", code), reply


@pytest.fixture
async def player(closed_stack: Callable[[str], Settings]) -> AsyncIterator[Client]:
    client = await Client.connect(closed_stack("player").nats_url)
    yield client
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
        # `$` would let a final newline through (Python's re); the contracts anchor with \Z
        (
            subjects.RULES_CREATE,
            {"command_id": "c", "reply_key": KEY, "ruleset": "chess3d", "game_id": "g-1\n"},
            ErrorCode.MALFORMED,
        ),
        (subjects.RULES_READ, {"game_id": "g-1\n"}, ErrorCode.MALFORMED),
        (
            subjects.MATCH_ENQUEUE,
            {"ticket": "t\n", "ruleset": "chess3d", "reply_key": KEY, "owner": "o" * 16},
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
    unchanged(before, await footprint(store))


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


def test_typed_messages_decode_as_their_subjects_types() -> None:
    """At least 90% of `typed` messages decode (by construction all should: each field is drawn
    within its declared bounds), so the fuzz below reaches the handlers."""
    game = Legit("g-typed", "yavoch", 3, ("a" * 64, "b" * 64))
    types = {**SUBJECTS, **RANDOMNESS}
    sent: list[bool] = []

    @settings(max_examples=500, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(typed(types, [game]))
    def check(case: tuple[str, bytes]) -> None:
        sent.append(decodes(types, case))

    check()
    assert sent.count(True) >= 0.9 * len(sent), f"{sent.count(True)} of {len(sent)} decode"


@pytest.mark.parametrize(("role", "types"), [("player", SUBJECTS), ("rules", RANDOMNESS)])
async def test_hostile_and_typed_messages_get_typed_errors_and_create_only_valid_games(
    closed_stack: Callable[[str], Settings], store: EventStore, role: str,
    types: dict[str, type[Any]],
) -> None:  # fmt: skip
    """The reduced fuzz run of `make test`: 250 messages per role, half `typed` (valid by the
    contracts' types, aimed at a game the player created first, with its real and wrong seat
    tokens) and half `hostile`; the randomness service is fuzzed as the rules service, its only
    caller. No reply is `internal`. A hostile request never creates a game, but a typed create
    or enqueue may, legitimately: so every game the run adds to the index must be one a
    `created` reply named, or one that matchmaking made, and there are exactly as many of those
    as `queued` replies with `waiting` 0 (a table filled). (Events a typed action appends to
    the game created first, answered with a receipt, are valid too; `tests.faults.fuzz` checks
    each appended event against its reply.)"""
    player = await Client.connect(closed_stack("player").nats_url)
    new = await player.create_game("yavoch")
    tokens = tuple(g.token for g in sorted(new.seats, key=lambda g: g.seat))
    games = [Legit(new.game_id, "yavoch", new.version, tokens)]
    client = player if role == "player" else await Client.connect(closed_stack(role).nats_url)
    loop = asyncio.get_running_loop()
    before = set(await store.redis.zrange(GAMES_INDEX, 0, -1))
    codes: list[str] = []
    created: set[bytes] = set()  # game ids named by `created` replies

    def send_all(strategy: st.SearchStrategy[tuple[str, bytes]], count: int) -> None:
        @settings(max_examples=count, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))  # fmt: skip
        @given(strategy)
        def send(case: tuple[str, bytes]) -> None:
            reply = asyncio.run_coroutine_threadsafe(ask(client, *case), loop).result(timeout=30)
            assert reply.get("code") != ErrorCode.INTERNAL, (case, reply)
            code = str(reply.get("code", reply["reply"]))
            if code == "created":
                created.add(str(reply["game_id"]).encode())
            codes.append("paired" if code == "queued" and reply["waiting"] == 0 else code)

        send()

    try:
        await asyncio.to_thread(send_all, typed(types, games), 125)
        await asyncio.to_thread(send_all, hostile(types), 125)
    finally:
        await player.close()
        if client is not player:
            await client.close()
    assert len(codes) >= 250
    added = set(await store.redis.zrange(GAMES_INDEX, 0, -1)) - before
    assert created <= added | before, created - added - before
    assert len(added - created) == codes.count("paired"), (added, created, codes)
