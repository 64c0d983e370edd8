"""The matchmaking queue through the gateway: people queue from the lobby and are seated
together, or with a bot that queued over the bus; a player who leaves, or whose page stops
asking, is never paired."""

import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from contracts.errors import ErrorCode
from services.client.client import Client
from services.gateway.lobby import Lobby
from services.gateway.people import Player
from services.gateway.queue import UNSEEN_S, Queue
from services.runtime import eventstore
from services.runtime.config import Settings
from tests.gateway.conftest import Person
from tests.rulesets import register

register()  # the in-process services and the gateway share this registry


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
                            "waiting": 1, "game_id": ""}  # fmt: skip
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
    await queue.reap(time.monotonic() + UNSEEN_S / 2)  # not yet
    assert (await queue.show(gone)) is not None
    await queue.reap(time.monotonic() + UNSEEN_S + 1)
    assert await queue.show(gone) is None
    assert (await queue.join(here, "chess3d", "")).waiting == 1  # nobody to be paired with
