"""Matchmaking state in Valkey (issue 22): tickets and tables outlive the matchmaker that took
them, matchmakers racing seat each ticket once, a table left behind is completed by another
matchmaker into one game, only a ticket's owner cancels it, an expired ticket is never seated,
and the matchmaking store user reaches no key but its own. Real nats-server, Valkey and rules
service; each matchmaker connects as the `matchmaking` user."""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import msgspec
import pytest
import redis.asyncio as aioredis
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from nats.aio.client import Client as NATS
from prometheus_client import REGISTRY
from redis.exceptions import NoPermissionError

from contracts import subjects
from contracts.commands import Assignment, Cancel, Cancelled, Enqueue, Error, Queued
from contracts.errors import ErrorCode
from services.client.client import Client
from services.matchmaking.__main__ import build as matchmaking_build
from services.matchmaking.handlers import Matchmaker
from services.matchmaking.store import Spot, Ticket, digest
from services.rules.__main__ import build as rules_build
from services.runtime import bus, eventstore, keys
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore
from services.runtime.sealing import new_reply_key, open_sealed
from tests.conftest import Servers, running

RULESET = "chess3d"  # two seats, no randomness: only the rules service is needed


@dataclass(frozen=True)
class Player:
    enqueue: Enqueue
    private: X25519PrivateKey  # opens its assignment's token

    @property
    def ticket(self) -> str:
        return self.enqueue.ticket


def player(name: str) -> Player:
    private, public = new_reply_key()
    return Player(Enqueue(ticket=bus.new_id(), ruleset=RULESET, player=name, reply_key=public,
                          owner=bus.new_id()), private)  # fmt: skip


class Assignments:
    """Every assignment published, as a player listening on all tickets hears them."""

    def __init__(self, nc: NATS) -> None:
        self.nc = nc
        self.notes: asyncio.Queue[Assignment] = asyncio.Queue()

    async def listen(self) -> None:
        async def heard(msg) -> None:  # type: ignore[no-untyped-def]
            self.notes.put_nowait(msgspec.json.decode(msg.data, type=Assignment))

        await self.nc.subscribe(subjects.all_match_assignments(), cb=heard)
        await self.nc.flush()

    async def take(self, n: int) -> list[Assignment]:
        return [await asyncio.wait_for(self.notes.get(), 15) for _ in range(n)]

    async def rest(self) -> list[Assignment]:
        """What else has been told by now: the matchmakers flushed their notes before they
        answered, so the server has routed them to us before it answers our PING."""
        await self.nc.flush()
        await asyncio.sleep(0)  # let the callbacks of what arrived run
        return [self.notes.get_nowait() for _ in range(self.notes.qsize())]


def opened(note: Assignment, p: Player) -> str:
    """The seat token, which only the ticket's key opens (InvalidTag otherwise)."""
    purpose = f"assignment:{note.ticket}:{note.game_id}:{note.seat}"
    return open_sealed(p.private, purpose, note.token).decode()


async def clear(redis: "aioredis.Redis") -> None:
    async for key in redis.scan_iter(match=keys.MATCH_KEYS):
        await redis.delete(key)


@pytest.fixture(autouse=True)
async def no_leftovers(redis: "aioredis.Redis") -> AsyncIterator[None]:
    """Queues are shared state now: each test starts and leaves them empty."""
    await clear(redis)
    yield
    await clear(redis)


@pytest.fixture
async def rules(role_settings: Callable[[str], Settings]) -> AsyncIterator[None]:
    async with running(rules_build, role_settings("rules")):
        yield


@pytest.fixture
async def heard(role_settings: Callable[[str], Settings]) -> AsyncIterator[Assignments]:
    nc = await bus.connect(role_settings("player").nats_url)
    listener = Assignments(nc)
    await listener.listen()
    yield listener
    await nc.close()


@contextlib.asynccontextmanager
async def matchmaker(settings: Settings, **options: Any) -> AsyncIterator[Matchmaker]:
    """A matchmaker object on its own connections, as the `matchmaking` user."""
    nc = await bus.connect(settings.nats_url)
    redis = eventstore.connect(settings.redis_url)
    try:
        yield Matchmaker(nc, redis, **options)
    finally:
        await redis.aclose()
        await nc.close()


def seats_by_game(notes: list[Assignment]) -> dict[str, set[int]]:
    games: dict[str, set[int]] = {}
    for n in notes:
        games.setdefault(n.game_id, set()).add(n.seat)
    return games


async def test_two_tickets_are_paired_through_the_store(
    rules: None, heard: Assignments, role_settings: Callable[[str], Settings],
    redis: "aioredis.Redis",
) -> None:  # fmt: skip
    ann, bob = player("ann"), player("bob")
    waits = REGISTRY.get_sample_value("tabula_queue_wait_seconds_count", {"ruleset": RULESET})
    async with matchmaker(role_settings("matchmaking")) as mm:
        assert await mm.enqueue(ann.enqueue) == Queued(ticket=ann.ticket, waiting=1)
        kept = await redis.hgetall(keys.match_ticket_key(Spot(RULESET, "").queue, ann.ticket))
        # the owner's digest is kept, never its secret (a reader of the store cancels nothing)
        assert kept[b"owner"] == digest(ann.enqueue.owner).encode()
        assert ann.enqueue.owner.encode() not in b"".join(kept.values())
        await mm.sweep()  # the queues' lengths, as metrics
        assert REGISTRY.get_sample_value("tabula_queue_tickets", {"ruleset": RULESET}) == 1
        assert await mm.enqueue(bob.enqueue) == Queued(ticket=bob.ticket, waiting=0)
        await mm.sweep()
        assert REGISTRY.get_sample_value("tabula_queue_tickets", {"ruleset": RULESET}) == 0
    after = REGISTRY.get_sample_value("tabula_queue_wait_seconds_count", {"ruleset": RULESET})
    assert after == (waits or 0) + 1  # one table's wait
    notes = {n.ticket: n for n in await heard.take(2)}
    assert notes[ann.ticket].game_id == notes[bob.ticket].game_id
    assert {n.seat for n in notes.values()} == {0, 1}
    assert opened(notes[ann.ticket], ann) != opened(notes[bob.ticket], bob)
    # completed: no ticket waits, no table is left
    q = Spot(RULESET, "").queue
    assert await redis.zcard(keys.match_waiting_key(q)) == 0
    assert await redis.zcard(keys.match_tables_key(q)) == 0


async def test_a_ticket_outlives_its_matchmaker(
    rules: None, heard: Assignments, role_settings: Callable[[str], Settings]
) -> None:
    """Queued with one matchmaker service, which stops; a fresh one pairs it."""
    ann, bob = player("ann"), player("bob")
    client = await Client.connect(role_settings("player").nats_url)
    try:
        async with running(matchmaking_build, role_settings("matchmaking")):
            queued = await client.request(subjects.MATCH_ENQUEUE, ann.enqueue, Queued)
            assert queued.waiting == 1
        async with running(matchmaking_build, role_settings("matchmaking")):
            queued = await client.request(subjects.MATCH_ENQUEUE, bob.enqueue, Queued)
            assert queued.waiting == 0
            notes = {n.ticket: n for n in await heard.take(2)}
    finally:
        await client.close()
    assert notes[ann.ticket].game_id == notes[bob.ticket].game_id
    assert opened(notes[ann.ticket], ann)
    assert opened(notes[bob.ticket], bob)


async def test_two_matchmakers_racing_seat_each_ticket_once(
    rules: None, heard: Assignments, role_settings: Callable[[str], Settings]
) -> None:
    players = [player(f"p{i}") for i in range(24)]
    settings = role_settings("matchmaking")
    async with matchmaker(settings) as a, matchmaker(settings) as b:
        replies = await asyncio.gather(
            *((a, b)[i % 2].enqueue(p.enqueue) for i, p in enumerate(players))
        )
    assert all(isinstance(r, Queued) for r in replies), replies
    notes = await heard.take(len(players))
    assert sorted(n.ticket for n in notes) == sorted(p.ticket for p in players)  # each once
    games = seats_by_game(notes)
    assert len(games) == len(players) // 2
    assert all(seats == {0, 1} for seats in games.values())
    assert await heard.rest() == []  # nobody told twice


async def test_a_failed_creation_is_completed_by_the_sweeps_into_one_game(
    heard: Assignments, role_settings: Callable[[str], Settings], store: EventStore
) -> None:
    """The rules service is away when the table fills: the table stays recorded; two
    matchmakers sweeping at once, once it is back, make one game of it."""
    ann, bob = player("ann"), player("bob")
    settings = role_settings("matchmaking")
    async with matchmaker(settings, stale_s=0) as a, matchmaker(settings, stale_s=0) as b:
        assert isinstance(await a.enqueue(ann.enqueue), Queued)
        refused = await a.enqueue(bob.enqueue)
        assert isinstance(refused, Error)
        assert refused.code == ErrorCode.UNAVAILABLE
        async with running(rules_build, role_settings("rules")):
            await asyncio.gather(a.sweep(), b.sweep())
            notes = await heard.take(2)
    assert len(seats_by_game(notes)) == 1
    game_id = notes[0].game_id
    assert {n.ticket for n in notes} == {ann.ticket, bob.ticket}
    created = (await store.read(game_id))[0]
    assert created.type == "GameCreated"
    # told twice at most, the same game and seat: harmless (the second is a duplicate)
    told = {(n.ticket, n.game_id, n.seat) for n in notes}
    assert all((n.ticket, n.game_id, n.seat) in told for n in await heard.rest())


async def test_a_table_whose_matchmaker_died_is_completed_by_another(
    rules: None, heard: Assignments, role_settings: Callable[[str], Settings],
    redis: "aioredis.Redis",
) -> None:  # fmt: skip
    """The table is formed (pair.lua) and its matchmaker dies before making the game: the
    other matchmaker's sweep makes it and tells both players."""
    ann, bob = player("ann"), player("bob")
    spot = Spot(RULESET, "")
    settings = role_settings("matchmaking")
    async with matchmaker(settings) as dead:
        for p in (ann, bob):
            private = new_reply_key()[0]
            ticket = Ticket(p.ticket, p.enqueue.player, p.enqueue.reply_key,
                            digest(p.enqueue.owner))  # fmt: skip
            paired = await dead.store.pair(spot, ticket, 2, add=True, private=private,
                                           table_id=f"t-{p.ticket}",
                                           command_id=f"match:{p.ticket}")  # fmt: skip
    assert paired.kind == "table"  # the second ticket filled it; nothing else happened
    assert await heard.rest() == []
    async with matchmaker(settings, stale_s=0) as other:
        await other.sweep()
    notes = await heard.take(2)
    assert len(seats_by_game(notes)) == 1
    assert await redis.zcard(keys.match_tables_key(spot.queue)) == 0


async def test_only_the_owner_cancels_a_waiting_ticket(
    rules: None, role_settings: Callable[[str], Settings]
) -> None:
    ann, eve = player("ann"), player("eve")
    settings = role_settings("matchmaking")
    async with matchmaker(settings) as a, matchmaker(settings) as b:
        await a.enqueue(ann.enqueue)
        theirs = Cancel(ticket=ann.ticket, owner=eve.enqueue.owner)
        refused = await b.cancel(theirs)
        assert isinstance(refused, Error)
        assert refused.code == ErrorCode.FORBIDDEN
        taken = msgspec.structs.replace(ann.enqueue, owner=eve.enqueue.owner)
        assert isinstance(await b.enqueue(taken), Error)  # nor queues under it
        mine = Cancel(ticket=ann.ticket, owner=ann.enqueue.owner)
        assert await b.cancel(mine) == Cancelled(ticket=ann.ticket, found=True)
        assert await a.cancel(mine) == Cancelled(ticket=ann.ticket, found=False)
        # gone from its queue: the next player waits alone
        assert await b.enqueue(eve.enqueue) == Queued(ticket=eve.ticket, waiting=1)


async def test_a_ticket_in_a_table_is_not_found_by_its_cancel(
    role_settings: Callable[[str], Settings],
) -> None:
    """Seated (its game being made: here, never, no rules service) is past cancelling."""
    ann, bob = player("ann"), player("bob")
    async with matchmaker(role_settings("matchmaking")) as mm:
        await mm.enqueue(ann.enqueue)
        assert isinstance(await mm.enqueue(bob.enqueue), Error)  # the table waits for rules
        cancel = Cancel(ticket=ann.ticket, owner=ann.enqueue.owner)
        assert await mm.cancel(cancel) == Cancelled(ticket=ann.ticket, found=False)


async def lapsed(redis: "aioredis.Redis", key: str, within_s: float = 10.0) -> None:
    """Until `key` has expired (a bounded wait for its TTL, polled)."""
    async with asyncio.timeout(within_s):
        while await redis.exists(key):  # noqa: ASYNC110  # no event tells an expiry
            await asyncio.sleep(0.1)  # polling for the TTL to lapse


async def test_an_expired_ticket_is_never_seated(
    rules: None, heard: Assignments, role_settings: Callable[[str], Settings],
    redis: "aioredis.Redis",
) -> None:  # fmt: skip
    gone, ann, bob = player("gone"), player("ann"), player("bob")
    q = Spot(RULESET, "").queue
    async with matchmaker(role_settings("matchmaking"), ticket_ttl_s=1) as mm:
        assert await mm.enqueue(gone.enqueue) == Queued(ticket=gone.ticket, waiting=1)
        await lapsed(redis, keys.match_ticket_key(q, gone.ticket))
        assert await mm.enqueue(ann.enqueue) == Queued(ticket=ann.ticket, waiting=1)
        assert await redis.zscore(keys.match_waiting_key(q), gone.ticket) is None  # dropped
        assert await mm.enqueue(bob.enqueue) == Queued(ticket=bob.ticket, waiting=0)
    notes = await heard.take(2)
    assert {n.ticket for n in notes} == {ann.ticket, bob.ticket}
    assert await heard.rest() == []  # the expired ticket was told nothing


def store_attacks() -> list[tuple[str, ...]]:
    """What the matchmaking user has no business doing: a game's keys, the games index, the
    secrets, the gateway's keys, scripts of its own, listing keys."""
    game = "g-victim"
    return [
        ("XRANGE", keys.log_key(game), "-", "+"),
        ("HGETALL", keys.meta_key(game)),
        ("HSET", keys.meta_key(game), "version", "1"),
        ("DEL", keys.log_key(game)),
        ("GET", keys.seed_key(game)),
        ("ZADD", keys.GAMES_INDEX, "1", game),
        ("GET", keys.TOKEN_SECRET),
        ("GET", keys.SIGNING_KEY),
        ("HGETALL", keys.session_key("0" * 64)),
        ("HGETALL", keys.table_key(game)),
        ("HSET", keys.table_key(game), "token:0", "x"),
        ("ZRANGE", keys.CHALLENGES, "0", "-1"),
        ("DEL", keys.account_key("ann")),
        ("EVAL", "return redis.call('DEL', KEYS[1])", "1", keys.log_key(game)),
        ("KEYS", "*"),
        ("FLUSHALL",),
    ]


async def test_the_matchmaking_store_user_reaches_only_its_own_keys(
    closed_servers: Servers,
) -> None:
    user = aioredis.from_url(closed_servers.redis_for("matchmaking"))
    try:
        for command in store_attacks():
            with pytest.raises(NoPermissionError):
                await user.execute_command(*command)
        # the other side: its own keys it writes, reads and removes
        own = keys.match_ticket_key(Spot(RULESET, "").queue, "probe")
        await user.hset(own, "player", "p")
        assert await user.hgetall(own) == {b"player": b"p"}
        assert await user.delete(own) == 1
    finally:
        await user.aclose()
