"""The matchmaking queue through the gateway: people queue from the lobby and are seated
together, or with a bot that queued over the bus; a player who leaves, or whose page stops
asking, is never paired."""

import contextlib
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from contracts.errors import ErrorCode
from services.client.client import Client
from services.gateway.__main__ import listen, serving
from services.gateway.lobby import Lobby
from services.gateway.people import Limits, Player
from services.gateway.queue import UNSEEN_S, Queue
from services.runtime import eventstore
from services.runtime.config import Settings
from tests.gateway.conftest import Person
from tests.rulesets import register

register()  # the in-process services and the gateway share this registry


def ms_after(seconds: float) -> int:
    """The wall clock `seconds` from now, in ms: the reaper's time, passed instead of waited."""
    return int((time.time() + seconds) * 1000)


@contextlib.asynccontextmanager
async def another_gateway(role_settings: Callable[[str], Settings]) -> AsyncIterator[str]:
    """A second gateway on the same stack and store (the `gateway` fixture's way), closed on
    exit: its process state is gone then."""
    sock = listen("127.0.0.1", 0)
    async with serving(role_settings("gateway"), sock, Limits(100_000, 100_000, 1_000)):
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


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
    async with another_gateway(role_settings) as a:
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
    async with another_gateway(role_settings) as a:
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
