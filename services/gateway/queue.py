"""The matchmaking queue, for people: the gateway queues a player with the matchmaking service
(as any bot would, with a ticket of its own), opens the seat token sealed to it when the game
is made, and records the seat in the player's table like a challenge's.

A player holds at most one ticket. Tickets live in this process (the matchmaker's queues live
in the store; these places do not yet): a page that stops asking after its ticket (closed,
gone offline) has it cancelled after UNSEEN_S, so nobody is paired with someone who has left;
a gateway restart forgets its tickets and their players queue again.
"""

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
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
from services.gateway.lobby import Lobby, Seated
from services.gateway.people import Player, refuse
from services.runtime.bus import new_id
from services.runtime.sealing import new_reply_key, open_sealed

log = structlog.get_logger()
UNSEEN_S: Final = 30.0  # a ticket its page has not asked after for this long is cancelled


class Waiting(msgspec.Struct, frozen=True, kw_only=True):
    """A player's place in the queue, as its page sees it: `game_id` once seated."""

    ruleset: str
    variant: str
    waiting: int = 0  # players in that queue when last told (the player included)
    game_id: str = ""


@dataclass
class Ticket:
    player: Player
    ticket: str
    owner: str  # the secret that alone cancels the ticket
    private: X25519PrivateKey
    seats: int
    shown: Waiting
    seen: float = field(default_factory=time.monotonic)
    sub: Subscription | None = None
    seated: asyncio.Event = field(default_factory=asyncio.Event)


class Queue:
    def __init__(self, client: Client, lobby: Lobby) -> None:
        self.client = client
        self.lobby = lobby
        self.tickets: dict[str, Ticket] = {}  # by player id
        self.reaper: asyncio.Task[None] | None = None

    async def join(self, player: Player, ruleset: str, variant: str) -> Waiting:
        """Queue the player for a game of ruleset+variant (leaving any queue it was in)."""
        created = find_ruleset(ruleset).create(variant)  # VariantError: typed
        await self.leave(player)
        private, public = new_reply_key()
        ticket = Ticket(player=player, ticket=new_id(), owner=new_id(), private=private,
                        seats=created.seats,
                        shown=Waiting(ruleset=ruleset, variant=created.variant))  # fmt: skip
        enqueue = Enqueue(ticket=ticket.ticket, ruleset=ruleset, variant=created.variant,
                          player=player.id, reply_key=public, owner=ticket.owner)  # fmt: skip

        async def assigned(msg: Msg) -> None:
            await self._assigned(ticket, msg)

        ticket.sub = await self.client.nc.subscribe(subjects.match_assigned(ticket.ticket),
                                                    cb=assigned)  # fmt: skip
        self.tickets[player.id] = ticket
        try:
            queued = await self.client.request(subjects.MATCH_ENQUEUE, enqueue, Queued)
        except (TabulaError, nats.errors.Error) as exc:
            await self._drop(ticket)
            if isinstance(exc, TabulaError):
                raise
            raise refuse(ErrorCode.UNAVAILABLE, "matchmaking did not answer: try again") from None
        if not ticket.shown.game_id:  # the assignment may have come first
            ticket.shown = msgspec.structs.replace(ticket.shown, waiting=queued.waiting)
        self._reap_later()
        return ticket.shown

    async def show(self, player: Player, wait_s: float = 0.0) -> Waiting | None:
        """The player's place (it is still there: its page asked), after waiting up to wait_s
        for its game; once seated, told once."""
        ticket = self.tickets.get(player.id)
        if ticket is None:
            return None
        ticket.seen = time.monotonic()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(ticket.seated.wait(), wait_s)
        if self.tickets.get(player.id) is not ticket:  # told by another request meanwhile
            return None
        if ticket.shown.game_id:
            del self.tickets[player.id]
        return ticket.shown

    async def leave(self, player: Player) -> bool:
        """Take the player out of its queue; whether it was waiting there."""
        ticket = self.tickets.get(player.id)
        if ticket is None or ticket.shown.game_id:
            return False
        await self._drop(ticket)
        with contextlib.suppress(TabulaError, nats.errors.Error):  # the reaper or a retry ends it
            found = await self.client.request(subjects.MATCH_CANCEL,
                                              Cancel(ticket=ticket.ticket, owner=ticket.owner),
                                              Cancelled)  # fmt: skip
            return found.found
        return True

    async def reap(self, now: float) -> None:
        """Cancel the tickets whose pages have not asked after them for UNSEEN_S."""
        for ticket in list(self.tickets.values()):
            if now - ticket.seen > UNSEEN_S:
                log.info("queue ticket unseen: cancelled", player=ticket.player.id)
                await self.leave(ticket.player)
                self.tickets.pop(ticket.player.id, None)  # seated meanwhile, never asked after

    async def close(self) -> None:
        if self.reaper is not None:
            self.reaper.cancel()
        for ticket in list(self.tickets.values()):
            await self.leave(ticket.player)

    async def _assigned(self, ticket: Ticket, msg: Msg) -> None:
        try:
            a = msgspec.json.decode(msg.data, type=Assignment)
            purpose = f"assignment:{ticket.ticket}:{a.game_id}:{a.seat}"
            token = open_sealed(ticket.private, purpose, a.token)
        except (msgspec.DecodeError, ValueError, InvalidTag) as exc:  # only a sealed token counts
            log.warning("bad assignment ignored", ticket=ticket.ticket, error=repr(exc))
            return
        player = ticket.player
        try:
            await self.lobby.seat(a.game_id, ticket.seats,
                                  [Seated(a.seat, player.id, player.name)],
                                  {a.seat: token.decode()}, [player])  # fmt: skip
        except Exception as exc:  # noqa: BLE001  # the store failed: the page sees it unqueued
            log.error("seat not recorded", game_id=a.game_id, player=player.id, error=repr(exc))
            await self._drop(ticket)
            return
        ticket.shown = msgspec.structs.replace(ticket.shown, game_id=a.game_id, waiting=0)
        ticket.seated.set()
        if ticket.sub is not None:
            with contextlib.suppress(nats.errors.Error):
                await ticket.sub.unsubscribe()
        log.info("seated from the queue", game_id=a.game_id, player=player.id, seat=a.seat)

    async def _drop(self, ticket: Ticket) -> None:
        if self.tickets.get(ticket.player.id) is ticket:
            del self.tickets[ticket.player.id]
        if ticket.sub is not None:
            with contextlib.suppress(nats.errors.Error):
                await ticket.sub.unsubscribe()

    def _reap_later(self) -> None:
        if self.reaper is None or self.reaper.done():
            self.reaper = asyncio.create_task(self._reaping())

    async def _reaping(self) -> None:
        while self.tickets:
            await asyncio.sleep(UNSEEN_S / 3)  # a period, not a synchronisation
            await self.reap(time.monotonic())


def shown(waiting: Waiting | None) -> dict[str, Any]:
    return {"queued": waiting is not None, **(msgspec.to_builtins(waiting) if waiting else {})}
