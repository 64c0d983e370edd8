"""The matchmaking queue through the gateway: people queue from the lobby and are seated
together, or with a bot that queued over the bus, or with the house's bots once nobody has come
in time; a player who leaves, or whose page stops asking, is never paired.

Gateways here give no bots to the queue unless a test asks (tests/conftest.py)."""

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from contracts.errors import ErrorCode
from services.client.client import Client
from services.gateway.lobby import BOT_GAMES_PER_PLAYER, Lobby
from services.gateway.people import Player
from services.gateway.queue import BOT_AFTER_S, UNSEEN_S, Queue
from services.runtime import eventstore, keys
from services.runtime.config import Settings
from tests.gateway.conftest import Person, a_gateway, until_event
from tests.rulesets import register

register()  # the in-process services and the gateway share this registry


def ms_after(seconds: float) -> int:
    """The wall clock `seconds` from now, in ms: the reaper's time, passed instead of waited."""
    return int((time.time() + seconds) * 1000)


async def seated(person: Person) -> dict[str, Any]:
    """The person's place in the queue, once its game is made (the gateway waits for it)."""
    reply = await person.get("/api/queue?wait=20")
    assert reply.status_code == 200, reply.text
    place: dict[str, Any] = reply.json()
    assert place["game_id"], place
    return place


async def test_two_people_queue_and_are_seated_in_one_game(people: Callable[[], Person]) -> None:
    ann, bob = people(), people()
    await ann.sign_in("Ann")
    await bob.sign_in("Bob")
    first = await ann.post("/api/queue", {"ruleset": "chess3d"})
    assert first.json() == {"queued": True, "ruleset": "chess3d", "variant": "",
                            "waiting": 1, "game_id": "", "bot_level": 0,
                            "bot_at_ms": 0}  # fmt: skip
    await bob.post("/api/queue", {"ruleset": "chess3d"})
    game_id = (await seated(ann))["game_id"]
    assert (await seated(bob))["game_id"] == game_id
    # told once: the queue has let them go, and the game is theirs in the lobby
    assert (await ann.get("/api/queue")).json() == {"queued": False}
    assert game_id in [g["game_id"] for g in (await bob.get("/api/lobby")).json()["mine"]]
    seats = {(await p.get(f"/api/games/{game_id}")).json()["you"] for p in (ann, bob)}
    assert seats == {0, 1}
    mover = ann if (await ann.get(f"/api/games/{game_id}")).json()["you"] == 0 else bob
    moved = await mover.post(f"/api/games/{game_id}/actions",
                             {"action": "IE2-IE4", "command_id": "first"})  # fmt: skip
    assert moved.status_code == 200, moved.text


async def test_a_person_is_paired_with_a_bot_that_queued_over_the_bus(
    people: Callable[[], Person], client: Client
) -> None:
    ann = people()
    await ann.sign_in("Ann")
    await ann.post("/api/queue", {"ruleset": "race"})
    bot = await client.find_match("race", player="Bot", timeout=20)
    place = await seated(ann)
    assert place["game_id"] == bot.game_id
    game = (await ann.get(f"/api/games/{bot.game_id}")).json()
    assert game["you"] == 1 - bot.seat
    assert [s["name"] for s in game["seated"]] == ["Ann"]  # the bot sits outside the gateway


async def test_who_leaves_the_queue_is_not_paired_and_bad_requests_are_typed(
    people: Callable[[], Person],
) -> None:
    ann, bob, eve = people(), people(), people()
    for p, name in ((ann, "Ann"), (bob, "Bob"), (eve, "Eve")):
        await p.sign_in(name)
    await ann.post("/api/queue", {"ruleset": "cyvasse"})
    assert (await ann.http.delete("/api/queue")).json() == {"left": True}
    assert (await bob.post("/api/queue", {"ruleset": "cyvasse"})).json()["waiting"] == 1
    # another variant is another queue
    other = await eve.post("/api/queue", {"ruleset": "cyvasse", "variant": "B"})
    assert other.json()["waiting"] == 1, other.text
    unknown = await eve.post("/api/queue", {"ruleset": "nonesuch"})
    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == ErrorCode.UNKNOWN_RULESET
    # a refused join leaves the player where it was
    assert (await eve.get("/api/queue")).json()["variant"] == "B"
    stranger = Person(ann.base)
    try:
        assert (await stranger.post("/api/queue", {"ruleset": "race"})).status_code == 401
    finally:
        await stranger.close()


async def test_a_person_nobody_comes_for_plays_a_bot_that_queued_for_the_seat(
    stack: Settings, role_settings: Callable[[str], Settings]
) -> None:
    """A gateway giving bots after 1 s: Ann, alone in the queue, is told when a bot of the
    level she chose will come; its own round queues the bot, both are seated, and the bots
    service plays the bot's seat."""
    async with a_gateway(role_settings, queue_bot_after_s=1) as base:
        ann = Person(base)
        try:
            await ann.sign_in("Ann")
            before = int(time.time() * 1000)
            joined = (await ann.post("/api/queue", {"ruleset": "chess3d", "bot_level": 1})).json()
            assert (joined["waiting"], joined["bot_level"]) == (1, 1), joined
            assert before + 1000 <= joined["bot_at_ms"] <= int(time.time() * 1000) + 1000
            game_id = (await seated(ann))["game_id"]
            game = (await ann.get(f"/api/games/{game_id}")).json()
            bot = 1 - game["you"]
            assert {s["seat"]: s["name"] for s in game["seated"]} == {
                game["you"]: "Ann",
                bot: "Bot, level 1 (random)",
            }
            async with ann.feed(game_id) as ws:
                if bot == 1:
                    opened = await ann.post(f"/api/games/{game_id}/actions",
                                            {"action": "IE2-IE4", "command_id": "a1"})  # fmt: skip
                    assert opened.status_code == 200, opened.text
                await asyncio.wait_for(until_event(ws, lambda e: e["action"].startswith(
                    f"{bot} ")), 30)  # fmt: skip
            assert (await ann.get("/api/queue")).json() == {"queued": False}
        finally:
            await ann.close()


@pytest.fixture
async def queue(role_settings: Callable[[str], Settings], stack: Settings) -> AsyncIterator[Queue]:
    """A gateway's queue on the gateway's own users, driven directly."""
    settings = role_settings("gateway")
    client = await Client.connect(settings.nats_url)
    redis = eventstore.connect(settings.redis_url)
    made = Queue(client, Lobby(redis, client))
    yield made
    await made.close()
    await redis.aclose()
    await client.close()


async def test_a_ticket_whose_page_stopped_asking_is_cancelled(queue: Queue) -> None:
    gone, here = Player("g" + "1" * 16, "Gone"), Player("g" + "2" * 16, "Here")
    assert (await queue.join(gone, "chess3d", "")).waiting == 1
    await queue.reap(ms_after(UNSEEN_S / 2))  # not yet
    assert (await queue.show(gone)) is not None
    await queue.reap(ms_after(UNSEEN_S + 1))
    assert await queue.show(gone) is None
    assert (await queue.join(here, "chess3d", "")).waiting == 1  # nobody to be paired with


async def test_a_place_outlives_its_gateway_and_is_seated_through_another(
    gateway: str, people: Callable[[], Person], role_settings: Callable[[str], Settings]
) -> None:
    """A place taken through gateway A stays queued once A has closed: the partner queues,
    the player's page asks gateway B, is told its game once, and its seat token plays."""
    ann, bob = people(), people()  # on B, the `gateway` fixture's
    await bob.sign_in("Bob")
    async with a_gateway(role_settings) as a:
        ann_on_a = Person(a)
        try:
            await ann_on_a.sign_in("Ann")
            joined = await ann_on_a.post("/api/queue", {"ruleset": "chess3d"})
            assert joined.json()["waiting"] == 1, joined.text
            ann.http.cookies = ann_on_a.http.cookies  # one session, whichever gateway asks
        finally:
            await ann_on_a.close()
    await bob.post("/api/queue", {"ruleset": "chess3d"})
    game_id = (await seated(ann))["game_id"]
    assert (await seated(bob))["game_id"] == game_id
    assert (await ann.get("/api/queue")).json() == {"queued": False}  # told once
    you = (await ann.get(f"/api/games/{game_id}")).json()["you"]
    if you == 1:  # the partner opens
        opened = await bob.post(f"/api/games/{game_id}/actions",
                                {"action": "IE2-IE4", "command_id": "w1"})  # fmt: skip
        assert opened.status_code == 200, opened.text
    action = "IE2-IE4" if you == 0 else "IIIE7-IIIE5"
    moved = await ann.post(f"/api/games/{game_id}/actions",
                           {"action": action, "command_id": "ann1"})  # fmt: skip
    assert moved.status_code == 200, moved.text


async def test_a_place_taken_through_one_gateway_is_left_through_another(
    gateway: str, people: Callable[[], Person], role_settings: Callable[[str], Settings]
) -> None:
    """Leaving through gateway B takes out the place taken through A (still serving): A no
    longer shows it and the matchmaker no longer holds it (the next player waits alone)."""
    ann, bob = people(), people()
    await bob.sign_in("Bob")
    async with a_gateway(role_settings) as a:
        ann_on_a = Person(a)
        try:
            await ann_on_a.sign_in("Ann")
            joined = await ann_on_a.post("/api/queue", {"ruleset": "cyvasse"})
            assert joined.json()["waiting"] == 1, joined.text
            ann.http.cookies = ann_on_a.http.cookies
            assert (await ann.http.delete("/api/queue")).json() == {"left": True}
            assert (await ann_on_a.get("/api/queue")).json() == {"queued": False}
            alone = await bob.post("/api/queue", {"ruleset": "cyvasse"})
            assert alone.json()["waiting"] == 1, alone.text
        finally:
            await ann_on_a.close()


async def test_another_gateways_reaper_cancels_a_place_whose_page_stopped_asking(
    people: Callable[[], Person], queue: Queue
) -> None:
    """The `queue` fixture is gateway B's queue, on the store and the bus the `gateway`
    fixture's A uses: B's reaper cancels, with the matchmaker, a place taken through A."""
    ann, bob = people(), people()
    await ann.sign_in("Ann")
    await bob.sign_in("Bob")
    assert (await ann.post("/api/queue", {"ruleset": "race"})).json()["waiting"] == 1
    await queue.reap(ms_after(UNSEEN_S / 2))  # not yet
    assert (await ann.get("/api/queue")).json()["queued"] is True
    await queue.reap(ms_after(UNSEEN_S + 1))
    assert (await ann.get("/api/queue")).json() == {"queued": False}
    alone = await bob.post("/api/queue", {"ruleset": "race"})
    assert alone.json()["waiting"] == 1, alone.text


async def test_bots_come_once_due_at_the_level_asked_and_within_the_cap(
    gateway: str, people: Callable[[], Person], queue: Queue, redis: Any
) -> None:
    """Driven with the time passed in: a place is given bots once due, not before, of the
    level asked and counted as a game against the house; none when asked for none, or for a
    player at its cap of such games (the `gateway` fixture's seats the assignments)."""
    ann = people()
    ann_id = (await ann.sign_in("Ann"))["id"]
    none = Player("g" + "4" * 16, "None")
    joined = await queue.join(none, "chess3d", "", bot_level=0)
    assert (joined.bot_level, joined.bot_at_ms) == (0, 0)
    await queue.fill(ms_after(BOT_AFTER_S + 1))
    assert (await queue.show(none)).waiting == 1  # type: ignore[union-attr]
    assert await queue.leave(none)

    you = Player(ann_id, "Ann")
    joined = await queue.join(you, "race", "", bot_level=2)
    assert joined.bot_level == 2
    assert joined.bot_at_ms > 0
    await queue.fill(ms_after(BOT_AFTER_S / 2))  # not yet
    place = await queue.show(you)
    assert place is not None
    assert (place.waiting, place.game_id) == (1, "")
    await queue.fill(ms_after(BOT_AFTER_S + 1))
    place = await queue.show(you, wait_s=20)
    assert place is not None
    assert place.game_id, place
    table = await queue.lobby.table(place.game_id)
    assert table is not None
    assert sorted(s.player for s in table.seated) == sorted([ann_id, "bot2"])
    held = await redis.zrange(keys.player_bot_games_key(ann_id), 0, -1)
    assert place.game_id.encode() in held

    for _ in range(BOT_GAMES_PER_PLAYER - 1):  # to the cap of games against the house
        assert (await ann.post("/api/bots", {"ruleset": "chess3d"})).status_code == 201
    await queue.join(you, "race", "", bot_level=2)
    await queue.fill(ms_after(BOT_AFTER_S + 1))
    place = await queue.show(you)
    assert place is not None
    assert (place.waiting, place.game_id) == (1, "")
    assert not await redis.zrange(keys.QUEUE_BOTS_DUE, 0, -1)  # looked at, and let go
    assert await queue.leave(you)
