"""A client rides out a short outage: a request is retried with the same command id, with
jittered backoff, until the client's retry deadline (issue 20, item 9); a bot never gives up
its seat on a transient error."""

import asyncio
import contextlib
import time
import uuid
from collections import Counter
from collections.abc import Callable

import msgspec
import pytest
from nats.aio.msg import Msg
from nats.errors import NoRespondersError

from contracts import subjects
from contracts.commands import Act, Error, Keys
from contracts.errors import ErrorCode
from services.client.bot import BotResult, play_seat
from services.client.client import Client, NewGame, TabulaError
from services.randomness.__main__ import build as randomness_build
from services.rules.__main__ import build as rules_build
from services.runtime import bus
from services.runtime.config import ConfigError, Settings
from services.runtime.eventstore import EventStore
from tests.conftest import running
from tests.rulesets import register

register()  # the race, in the in-process rules service and the bots alike


def both_bots(client: Client, made: NewGame,
              seen: Callable[[], None]) -> "asyncio.Future[list[BotResult]]":  # fmt: skip
    """A bot at each seat of the game, playing it to its end."""
    return asyncio.gather(*(play_seat(client, made.game_id, g.seat, g.token, seed=g.seat,
                                      on_event=seen) for g in made.seats))  # fmt: skip


async def test_a_request_is_retried_with_the_same_bytes_until_it_succeeds(
    settings: Settings,
) -> None:
    """A responder answers service/unavailable six times, then a reply: a client with its
    default deadline keeps asking (more often than the old three retries) with the very same
    request, command id included, and gets the reply."""
    subject = f"tabula.test.retries.{uuid.uuid4().hex}"
    nc = await bus.connect(settings.nats_url)
    seen: list[bytes] = []

    async def answer(msg: Msg) -> None:
        seen.append(msg.data)
        if len(seen) <= 6:
            away = Error(code=ErrorCode.UNAVAILABLE, reason="the store is away")
            await msg.respond(msgspec.json.encode(away))
        else:
            await msg.respond(msgspec.json.encode(Keys(signing=["k"])))

    sub = await nc.subscribe(subject, cb=answer)
    try:
        client = Client(nc)
        act = Act(game_id="g", seat=0, token="ab", command_id="cmd-1", action="roll")
        assert await client.request(subject, act, Keys) == Keys(signing=["k"])
    finally:
        await sub.unsubscribe()
        await nc.drain()
    assert len(seen) == 7
    assert {msgspec.json.decode(d, type=Act).command_id for d in seen} == {"cmd-1"}
    assert len(set(seen)) == 1


async def test_retries_stop_at_the_deadline_with_the_last_error(settings: Settings) -> None:
    """A service that stays away: the client retries until its deadline (not before, and not
    much after), then raises what the last attempt got; with no responder at all, likewise."""
    subject = f"tabula.test.retries.{uuid.uuid4().hex}"
    nc = await bus.connect(settings.nats_url)
    count = Counter[str]()

    async def unknown(msg: Msg) -> None:
        count["asked"] += 1
        await msg.respond(msgspec.json.encode(Error(code=ErrorCode.UNKNOWN_OUTCOME, reason="?")))

    sub = await nc.subscribe(subject, cb=unknown)
    try:
        client = Client(nc, retry_deadline=1.5)
        started = time.monotonic()
        with pytest.raises(TabulaError) as exc:
            await client.request(subject, Act(game_id="g", seat=0, token="ab", command_id="c",
                                              action="roll"), Keys)  # fmt: skip
        assert exc.value.code == ErrorCode.UNKNOWN_OUTCOME
        assert 1.5 <= time.monotonic() - started < 4
        assert count["asked"] > 4  # more than the old three retries
        await sub.unsubscribe()
        started = time.monotonic()
        with pytest.raises(NoRespondersError):
            await client.request(subject, Act(game_id="g", seat=0, token="ab", command_id="c",
                                              action="roll"), Keys)  # fmt: skip
        assert 1.5 <= time.monotonic() - started < 4
    finally:
        await nc.drain()


def test_the_retry_deadline_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """TABULA_RETRY_DEADLINE_S sets it (default 30 s); a bad value fails fast, by name."""
    monkeypatch.delenv("TABULA_RETRY_DEADLINE_S", raising=False)
    assert bus.retry_deadline_from_env() == 30.0
    monkeypatch.setenv("TABULA_RETRY_DEADLINE_S", "90")
    assert bus.retry_deadline_from_env() == 90.0
    for bad in ("0", "-1", "soon"):
        monkeypatch.setenv("TABULA_RETRY_DEADLINE_S", bad)
        with pytest.raises(ConfigError, match="TABULA_RETRY_DEADLINE_S"):
            bus.retry_deadline_from_env()


async def applied_once(store: EventStore, game_id: str) -> None:
    """No command appended twice: a command's events are one run of the log."""
    ids = [s.command_id for s in await store.read_all(game_id)]
    runs = [c for i, c in enumerate(ids) if i == 0 or ids[i - 1] != c]
    assert len(runs) == len(set(runs))


async def test_bots_play_through_a_rules_service_outage(
    settings: Settings, role_settings: Callable[[str], Settings], store: EventStore
) -> None:
    """Two bots race; the rules service stops mid-game. Each bot keeps sending its pending
    command with the same command id (an admin spy on the subject counts them: more attempts
    than the old client made before giving up), the rules service comes back, and the bots
    finish the game, agreeing on its outcome, with every command applied once."""
    spy = await bus.connect(settings.nats_url)
    asked = Counter[str]()
    outage = asyncio.Event()

    async def count(msg: Msg) -> None:
        command = msgspec.json.decode(msg.data, type=Act).command_id
        asked[command] += 1
        if asked[command] >= 6:
            outage.set()

    client = await Client.connect(role_settings("player").nats_url, timeout=0.5)
    half = asyncio.Event()
    events = Counter[str]()

    def seen() -> None:
        events["n"] += 1
        if events["n"] >= 12:
            half.set()

    try:
        async with running(randomness_build, role_settings("randomness")):
            async with contextlib.AsyncExitStack() as rules:  # closed: the outage begins
                await rules.enter_async_context(running(rules_build, role_settings("rules")))
                made = await client.create_game("race")
                bots = both_bots(client, made, seen)
                await asyncio.wait_for(half.wait(), 60)
            # Every request now waits for an answer that does not come: the spy makes the bus
            # see a subscriber, so each attempt times out rather than finding no responder.
            sub = await spy.subscribe(subjects.act_partition("*"), cb=count)  # every partition
            await asyncio.wait_for(outage.wait(), 30)
            await sub.unsubscribe()
            async with running(rules_build, role_settings("rules")):
                results = await asyncio.wait_for(bots, 120)
    finally:
        await client.close()
        await spy.drain()
    assert len({r.outcome for r in results}) == 1
    assert results[0].outcome.reason == "finish"
    await applied_once(store, made.game_id)


async def test_a_bot_retries_its_move_with_one_command_id_while_randomness_is_away(
    settings: Settings, role_settings: Callable[[str], Settings], store: EventStore
) -> None:
    """Mid-race the randomness service stops: the rules service answers the bot's roll with
    random/unavailable, and the bot sends that same command again (one command id, counted by
    an admin spy) until the service is back; then the bots finish, each command applied
    once."""
    spy = await bus.connect(settings.nats_url)
    asked = Counter[str]()
    retried = asyncio.Event()

    async def count(msg: Msg) -> None:
        command = msgspec.json.decode(msg.data, type=Act).command_id
        asked[command] += 1
        if asked[command] >= 3:
            retried.set()

    # A long request timeout: every attempt the spy sees is the bot's own, not the client's
    # retry of a request that went unanswered.
    client = await Client.connect(role_settings("player").nats_url, timeout=60)
    playing = asyncio.Event()

    def seen() -> None:
        playing.set()

    try:
        async with running(rules_build, role_settings("rules")):
            async with contextlib.AsyncExitStack() as randomness:  # closed: the outage begins
                service = running(randomness_build, role_settings("randomness"))
                await randomness.enter_async_context(service)
                made = await client.create_game("race")
                bots = both_bots(client, made, seen)
                await asyncio.wait_for(playing.wait(), 60)
                sub = await spy.subscribe(subjects.act_partition("*"), cb=count)  # every partition
            await asyncio.wait_for(retried.wait(), 60)
            await sub.unsubscribe()
            async with running(randomness_build, role_settings("randomness")):
                results = await asyncio.wait_for(bots, 120)
    finally:
        await client.close()
        await spy.drain()
    assert len({r.outcome for r in results}) == 1
    await applied_once(store, made.game_id)
