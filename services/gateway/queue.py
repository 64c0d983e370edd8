"""The matchmaking queue, for people: the gateway queues a player with the matchmaking service
(as any bot would, with a ticket of its own), opens the seat token sealed to it when the game
is made, and records the seat in the player's table like a challenge's.

A player holds at most one ticket. Its place lives in the store (services.runtime.keys, the
queue's keys), never in a gateway: any gateway shows it, seats it, leaves it or cancels it, and
a gateway's death loses none. Every gateway hears the assignments in one NATS queue group, so
one of them seats each; a request waiting for its game also hears its own ticket's, and seats
it if it hears first (seating is idempotent: both record the same). A page that stops asking
after its place (closed, gone offline) has its ticket cancelled after UNSEEN_S by the gateway
that claims it first, so nobody is paired with someone who has left.

Nobody waits for ever: a person who has waited `bot_after_s` (TABULA_GATEWAY_QUEUE_BOT_AFTER_S,
default BOT_AFTER_S) is given bots of the level it chose (0: none), queued like anyone with
tickets of their own (Queue.fill), derived from the person's place so that a gateway that
fills it again (the first died mid-way) queues the same tickets. A bot's assignment is seated
as a house bot's seat and handed to the bots service (BotDesk), which plays it. Bots are
queued until a table forms; one queued just as its person is seated with others, or leaves,
counts as seen when its person last was, so the reaper cancels it UNSEEN_S after that (and
whoever queues meanwhile plays it).
"""

import asyncio
import contextlib
import hashlib
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final

import msgspec
import nats.errors
import structlog
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from contracts import subjects
from contracts.commands import Assignment, Cancel, Cancelled, Enqueue, Queued
from contracts.errors import ErrorCode
from domain.registry import find_ruleset
from services.client.client import Client, TabulaError
from services.gateway.lobby import BOT_LEVEL, Lobby, Seated, bot_name, bot_player
from services.gateway.people import Player, refuse, text
from services.runtime import keys
from services.runtime.bus import new_id
from services.runtime.sealing import new_reply_key, open_sealed

log = structlog.get_logger()
UNSEEN_S: Final = 30.0  # a ticket its page has not asked after for this long is cancelled
# The matchmaker forgets a ticket nobody enqueues again after its TICKET_TTL_S (600 s,
# services.matchmaking.store) and the gateway never enqueues one again: a place outliving it by
# a margin is of no use, and goes.
PLACE_TTL_S: Final = 600 + 60
GROUP: Final = "gateway"  # the NATS queue group in which one gateway seats each assignment
BOT_AFTER_S: Final = 30.0  # a person waiting this long is given bots
FILL_S: Final = 1.0  # how often a gateway looks for places due their bots
FILL_LEASE_MS: Final = 10_000  # a gateway dying while it fills a place leaves it for this long


class Waiting(msgspec.Struct, frozen=True, kw_only=True):
    """A player's place in the queue, as its page sees it: `game_id` once seated."""

    ruleset: str
    variant: str
    waiting: int = 0  # players in that queue when last told (the player included)
    game_id: str = ""
    bot_level: int = 0  # the level of the bots it is given if nobody comes (0: none)
    bot_at_ms: int = 0  # when (0: never)


def _ms() -> int:
    return int(time.time() * 1000)


def _shown(place: dict[str, str]) -> Waiting:
    game_id = place.get("game_id", "")
    at = int(place.get("bot_at", "0"))
    return Waiting(ruleset=place["ruleset"], variant=place["variant"], game_id=game_id,
                   waiting=0 if game_id else int(place.get("waiting", "0")),
                   bot_level=int(place.get("bot_level", "0")) if at else 0,
                   bot_at_ms=at)  # fmt: skip


def _derived(secret: str, ticket: str, n: int) -> bytes:
    """A secret of the person's n-th bot, derived from one of the person's place."""
    return hashlib.sha256(f"{secret}:bot:{ticket}:{n}".encode()).digest()


class Queue:
    def __init__(self, client: Client, lobby: Lobby, *, bot_after_s: float = BOT_AFTER_S,
                 hand_over: Callable[[str, int], Awaitable[None]] | None = None,
                 ) -> None:  # fmt: skip
        """`bot_after_s`: how long a person waits before bots join (0: never); `hand_over`:
        hands a bot seat just recorded to the bots service (BotDesk.hand)."""
        self.client = client
        self.lobby = lobby
        self.redis = lobby.redis
        self.bot_after_s = bot_after_s
        self.hand_over = hand_over
        # This gateway's requests waiting for a ticket's game, woken when it seats it: a
        # wake-up only, the place itself is in the store.
        self.waiters: dict[str, set[asyncio.Event]] = {}
        self.sub: Subscription | None = None
        self.reaper: asyncio.Task[None] | None = None
        self.filler: asyncio.Task[None] | None = None

    async def begin(self) -> None:
        """Seat this gateway's share of the assignments, and cancel unseen places from time to
        time."""
        self.sub = await self.client.nc.subscribe(subjects.all_match_assignments(), queue=GROUP,
                                                  cb=self._heard)  # fmt: skip
        self.reaper = asyncio.create_task(self._reaping())
        if self.bot_after_s > 0:
            self.filler = asyncio.create_task(self._filling())

    async def join(self, player: Player, ruleset: str, variant: str,
                   bot_level: int = BOT_LEVEL) -> Waiting:  # fmt: skip
        """Queue the player for a game of ruleset+variant (leaving any queue it was in), with
        bots of `bot_level` (0: none) if nobody comes within bot_after_s."""
        created = find_ruleset(ruleset).create(variant)  # VariantError: typed
        await self.leave(player)
        private, public = new_reply_key()
        ticket, owner, now = new_id(), new_id(), _ms()
        bot_at = now + int(self.bot_after_s * 1000) if bot_level and self.bot_after_s > 0 else 0
        place = {"player": player.id, "name": player.name, "owner": owner,
                 "key": private.private_bytes_raw().hex(), "ruleset": ruleset,
                 "variant": created.variant, "seats": created.seats, "waiting": 0,
                 "bot_level": bot_level, "bot_at": bot_at}  # fmt: skip
        # Written before the enqueue: its assignment may come before its answer.
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(keys.queue_place_key(ticket), mapping=place)  # type: ignore[arg-type]
            pipe.expire(keys.queue_place_key(ticket), PLACE_TTL_S)
            pipe.set(keys.queue_player_key(player.id), ticket, ex=PLACE_TTL_S)
            if bot_at:
                pipe.zadd(keys.QUEUE_BOTS_DUE, {ticket: bot_at})
            await pipe.execute()
        await self._seen(ticket)
        enqueue = Enqueue(ticket=ticket, ruleset=ruleset, variant=created.variant,
                          player=player.id, reply_key=public, owner=owner)  # fmt: skip
        try:
            queued = await self.client.request(subjects.MATCH_ENQUEUE, enqueue, Queued)
        except (TabulaError, nats.errors.Error) as exc:
            await self._drop(ticket)
            if isinstance(exc, TabulaError):
                raise
            raise refuse(ErrorCode.UNAVAILABLE, "matchmaking did not answer: try again") from None
        stored = await self._record(ticket)
        if stored is None:  # told or left already, through another of its pages
            return Waiting(ruleset=ruleset, variant=created.variant, waiting=queued.waiting)
        if not stored.get("game_id"):  # the assignment may have come first
            await self._write(ticket, {"waiting": queued.waiting})
            stored["waiting"] = str(queued.waiting)
        return _shown(stored)

    async def show(self, player: Player, wait_s: float = 0.0) -> Waiting | None:
        """The player's place (it is still there: its page asked), after waiting up to wait_s
        for its game; once seated, told once."""
        ticket = await self._ticket(player)
        place = await self._place(ticket) if ticket else None
        if ticket is None or place is None:
            return None
        await self._seen(ticket)
        if not place.game_id and wait_s > 0:
            place = await self._wait(ticket, wait_s)
        if place is not None and place.game_id:
            await self._drop(ticket)  # told: two requests at once both tell it, none loses it
        return place

    async def leave(self, player: Player) -> bool:
        """Take the player out of its queue; whether it was waiting there."""
        ticket = await self._ticket(player)
        place = await self._record(ticket) if ticket else None
        if ticket is None or place is None or place.get("game_id"):
            return False
        return await self._cancel(ticket, place["owner"])

    async def fill(self, now_ms: int) -> None:
        """Give bots to the places due them by `now_ms` that are still waiting (the reaper has
        not cancelled them: their pages ask). Every gateway does this: a place is filled by the
        gateway holding its lease, and let go once filled (a gateway dying mid-way leaves it to
        another when the lease lapses)."""
        for member in await self.redis.zrange(keys.QUEUE_BOTS_DUE, 0, now_ms, byscore=True):
            ticket = text(member)
            if not await self.redis.set(keys.queue_fill_key(ticket), "1", nx=True,
                                        px=FILL_LEASE_MS):  # fmt: skip
                continue  # another gateway is filling it
            place = await self._record(ticket)
            if place is not None and not place.get("game_id"):
                await self._fill(ticket, place)
            await self.redis.zrem(keys.QUEUE_BOTS_DUE, ticket)

    async def _fill(self, ticket: str, place: dict[str, str]) -> None:
        """Queue bots for the person's game, one at a time until a table forms (the queue may
        hold other people by then), within the person's cap of games against the house."""
        player = place["player"]
        if not await self.lobby.may_play_bots(keys.player_bot_games_key(player)):
            log.info("no bots for a player at its cap", player=player)
            return
        level, seats = int(place["bot_level"]), int(place["seats"])
        bots = [f"{ticket[:56]}-bot{n}" for n in range(1, seats)]
        seen = await self.redis.zscore(keys.QUEUE_SEEN, ticket)
        await self._seen(ticket, bots, int(seen or _ms()))  # reaped with their person
        for n, bot in enumerate(bots, 1):
            private = X25519PrivateKey.from_private_bytes(_derived(place["key"], ticket, n))
            owner = _derived(place["owner"], ticket, n).hex()
            await self._write(bot, {"player": bot_player(level), "name": bot_name(level),
                                    "owner": owner, "key": private.private_bytes_raw().hex(),
                                    "ruleset": place["ruleset"], "variant": place["variant"],
                                    "seats": seats, "bot": level, "for": player})  # fmt: skip
            public = private.public_key().public_bytes_raw().hex()
            enqueue = Enqueue(ticket=bot, ruleset=place["ruleset"], variant=place["variant"],
                              player=bot_player(level), reply_key=public, owner=owner)  # fmt: skip
            queued = await self.client.request(subjects.MATCH_ENQUEUE, enqueue, Queued)
            log.info("bot queued for a player", player=player, bot_level=level, ticket=bot)
            if queued.waiting == 0:  # a table formed
                return

    async def reap(self, now_ms: int) -> None:
        """Cancel the tickets whose pages have not asked after them for UNSEEN_S. Every gateway
        does this: each ticket is handled by the one whose ZREM took it."""
        cutoff = now_ms - int(UNSEEN_S * 1000)
        for member in await self.redis.zrange(keys.QUEUE_SEEN, 0, cutoff, byscore=True):
            ticket = text(member)
            if not await self.redis.zrem(keys.QUEUE_SEEN, ticket):
                continue
            place = await self._record(ticket)
            if place is None:
                continue
            if place.get("game_id"):  # seated, never asked after: its game is in its lobby
                await self._drop(ticket)
                continue
            log.info("queue ticket unseen: cancelled", player=place["player"])
            await self._cancel(ticket, place["owner"])

    async def close(self) -> None:
        """Stop seating and reaping here; the places stay, for the other gateways."""
        for task in (self.reaper, self.filler):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if self.sub is not None:
            with contextlib.suppress(nats.errors.Error):
                await self.sub.unsubscribe()

    async def _wait(self, ticket: str, wait_s: float) -> Waiting | None:
        """The place once seated, or after wait_s. Woken by its assignment: heard on its own
        ticket's subject by this request (seated here if heard here first), or seated by this
        gateway's share of the queue group. One seated by another gateway just as this request
        starts listening is told when the wait ends."""
        woken = asyncio.Event()
        self.waiters.setdefault(ticket, set()).add(woken)
        sub = await self.client.nc.subscribe(subjects.match_assigned(ticket), cb=self._heard)
        try:
            await self.client.nc.flush()  # listening from here on: the store has what came before
            place = await self._place(ticket)
            if place is not None and not place.game_id:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(woken.wait(), wait_s)
                place = await self._place(ticket)
            return place
        finally:
            with contextlib.suppress(nats.errors.Error):
                await sub.unsubscribe()
            waiters = self.waiters[ticket]
            waiters.discard(woken)
            if not waiters:
                del self.waiters[ticket]

    async def _heard(self, msg: Msg) -> None:
        try:
            ticket = await self._seat(msg.data)
        except Exception as exc:  # noqa: BLE001  # the store failed: another hearer may seat it
            log.error("seat not recorded", subject=msg.subject, error=repr(exc))
            return
        for woken in self.waiters.get(ticket, ()):
            woken.set()

    async def _seat(self, data: bytes) -> str:
        """Record the seat an assignment brings, in the player's table and its place; the
        ticket seated, or "" (not a person's here: a bot's; or its place has gone)."""
        try:
            a = msgspec.json.decode(data, type=Assignment)
        except msgspec.DecodeError as exc:
            log.warning("bad assignment ignored", error=repr(exc))
            return ""
        place = await self._record(a.ticket)
        if place is None:
            return ""
        try:
            private = X25519PrivateKey.from_private_bytes(bytes.fromhex(place["key"]))
            purpose = f"assignment:{a.ticket}:{a.game_id}:{a.seat}"
            token = open_sealed(private, purpose, a.token)
        except (ValueError, InvalidTag) as exc:  # only a sealed token counts
            log.warning("bad assignment ignored", ticket=a.ticket, error=repr(exc))
            return ""
        player = Player(place["player"], place["name"])
        people = [] if "bot" in place else [player]
        await self.lobby.seat(a.game_id, int(place["seats"]),
                              [Seated(a.seat, player.id, player.name)],
                              {a.seat: token.decode()}, people)  # fmt: skip
        if "bot" in place:
            await self._seat_bot(a, place)
            return a.ticket
        await self._write(a.ticket, {"game_id": a.game_id, "seat": a.seat, "waiting": 0})
        log.info("seated from the queue", game_id=a.game_id, player=player.id, seat=a.seat)
        return a.ticket

    async def _seat_bot(self, a: Assignment, place: dict[str, str]) -> None:
        """A bot's seat: recorded as a house bot's, counted in its person's games against the
        house, and handed to the bots service (by BotDesk's sweep if not now)."""
        await self.lobby.bots_to_hand(a.game_id, {a.seat: int(place["bot"])})
        await self.redis.zadd(keys.player_bot_games_key(place["for"]), {a.game_id: _ms()})
        await self._drop(a.ticket)
        log.info("bot seated from the queue", game_id=a.game_id, seat=a.seat,
                 bot_level=place["bot"])  # fmt: skip
        if self.hand_over is not None:
            await self.hand_over(a.game_id, a.seat)

    async def _ticket(self, player: Player) -> str | None:
        ticket = await self.redis.get(keys.queue_player_key(player.id))
        return text(ticket) if ticket is not None else None

    async def _record(self, ticket: str) -> dict[str, str] | None:
        """The place's fields; None once it has gone (fields without an owner are what a late
        write left of a place gone meanwhile: no place)."""
        raw = await self.redis.hgetall(keys.queue_place_key(ticket))
        place = {text(k): text(v) for k, v in raw.items()}
        return place if "owner" in place else None

    async def _place(self, ticket: str) -> Waiting | None:
        place = await self._record(ticket)
        return _shown(place) if place is not None else None

    async def _write(self, ticket: str, fields: dict[str, Any]) -> None:
        key = keys.queue_place_key(ticket)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(key, mapping=fields)  # type: ignore[arg-type]
            pipe.expire(key, PLACE_TTL_S, nx=True)  # what a late write leaves goes too
            await pipe.execute()

    async def _seen(self, ticket: str, bots: Sequence[str] = (), at_ms: int = 0) -> None:
        """The place's page asked (at `at_ms`, default now); `bots`: its person's, seen when
        it was."""
        at = at_ms or _ms()
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(keys.QUEUE_SEEN, dict.fromkeys([ticket, *bots], at))
            pipe.expire(keys.QUEUE_SEEN, PLACE_TTL_S)  # gone once nobody queues here
            await pipe.execute()

    async def _drop(self, ticket: str) -> None:
        # The player's pointer to it stays until it expires: a pointer to no place is none,
        # and deleting it could delete a newer one.
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.delete(keys.queue_place_key(ticket))
            pipe.zrem(keys.QUEUE_SEEN, ticket)
            pipe.zrem(keys.QUEUE_BOTS_DUE, ticket)
            await pipe.execute()

    async def _cancel(self, ticket: str, owner: str) -> bool:
        """Drop the place, then cancel its ticket: whether the matchmaker still held it (say
        so if it did not answer: the ticket then leaves its queue with its TTL)."""
        await self._drop(ticket)
        with contextlib.suppress(TabulaError, nats.errors.Error):
            cancel = Cancel(ticket=ticket, owner=owner)
            found = await self.client.request(subjects.MATCH_CANCEL, cancel, Cancelled)
            return found.found
        return True

    async def _reaping(self) -> None:
        while True:
            await asyncio.sleep(UNSEEN_S / 3)  # a period, not a synchronisation
            try:
                await self.reap(_ms())
            except Exception as exc:  # noqa: BLE001  # the store away: the next round retries
                log.warning("unseen queue places not reaped", error=repr(exc))

    async def _filling(self) -> None:
        while True:
            await asyncio.sleep(FILL_S)  # a period, not a synchronisation
            try:
                await self.fill(_ms())
            except Exception as exc:  # noqa: BLE001  # the store or the bus away: next round
                log.warning("queue places not given bots", error=repr(exc))


def shown(waiting: Waiting | None) -> dict[str, Any]:
    return {"queued": waiting is not None, **(msgspec.to_builtins(waiting) if waiting else {})}
