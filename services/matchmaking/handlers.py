"""Matchmaking: a queue per ruleset+variant; a full table becomes a game through rules.

Each player is told its game, seat and token on its own ticket subject, the token sealed to the
key the player queued with (anyone may listen there); only the ticket's owner cancels it. The
queues live in Valkey (services.matchmaking.store), so any number of matchmakers serve them
(they share a NATS queue group) and any of them may die. A table is formed in one step
(pair.lua) and recorded with its create's command id and the key its seat tokens come sealed
to; the matchmaker that formed it makes the game and tells each seat, then removes the record,
and a table left recorded (its creation failed, or its matchmaker died) is completed by any
matchmaker's periodic sweep. A table completed twice at once makes one game (the same command
id: the rules service answers a repeat with the same game and tokens), and its assignments,
told twice, name the same game and seat: a player keeps the first (the gateway's recording of
a seat is idempotent; a bot listens for one message).
"""

from typing import Final

import msgspec
import nats
import redis.asyncio as aioredis
import structlog
from nats.aio.client import Client as NATS

from contracts import subjects
from contracts.commands import (
    Assignment,
    Cancel,
    Cancelled,
    Created,
    CreateGame,
    Enqueue,
    Error,
    Queued,
    Reply,
    SeatGrant,
)
from contracts.errors import ErrorCode
from domain.core import VariantError
from domain.registry import find_ruleset
from services.matchmaking.store import (
    TICKET_TTL_S,
    MatchStore,
    Paired,
    Spot,
    Table,
    Ticket,
    digest,
    now_ms,
)
from services.runtime import metrics
from services.runtime.bus import Requester, TabulaError, new_id
from services.runtime.sealing import new_reply_key, open_sealed, seal_to

log = structlog.get_logger()
SWEEP_S: Final = 2.0  # how often every matchmaker looks for tables left behind
STALE_S: Final = 5.0  # a table recorded this long is left behind (its maker is done or dead)
# A creation refused with one of these may succeed later: its table waits for a retry. Any
# other refusal is for good (a bug): its table is abandoned and its players may queue again.
RETRIED: Final = frozenset({ErrorCode.UNAVAILABLE, ErrorCode.UNKNOWN_OUTCOME,
                            ErrorCode.NO_DRAW, ErrorCode.INTERNAL, ErrorCode.CONFLICT})  # fmt: skip


class Matchmaker:
    def __init__(self, nc: NATS, redis: "aioredis.Redis", *, ticket_ttl_s: int = TICKET_TTL_S,
                 stale_s: float = STALE_S, rules: Requester | None = None) -> None:  # fmt: skip
        self.nc = nc
        self.rules = rules or Requester(nc)
        self.store = MatchStore(redis, ticket_ttl_s)
        self.stale_s = stale_s

    async def enqueue(self, req: Enqueue) -> Reply:
        spot = Spot(req.ruleset, req.variant)
        try:
            _seats(spot)  # an unknown ruleset or a bad variant is refused before anything
        except VariantError as exc:
            return Error(code=exc.code, reason=exc.reason)
        ticket = Ticket(req.ticket, req.player, req.reply_key, digest(req.owner))
        held = await self.store.claim(req.ticket, spot)
        if held is not None and held != spot:
            # Enqueued elsewhere before: a retry of that one is answered there (its table tried
            # again if it has one); a ticket no longer held there queues here.
            paired = await self._pair(held, ticket, add=False)
            if paired.kind != "absent":
                return await self._answer(held, req.ticket, paired)
            await self.store.point(req.ticket, spot)
        return await self._answer(spot, req.ticket, await self._pair(spot, ticket, add=True))

    async def _pair(self, spot: Spot, ticket: Ticket, *, add: bool) -> Paired:
        # A fresh, unguessable command id per table (tickets are the players' to choose and
        # reuse), recorded with its reply key in the step that forms the table, so the table
        # becomes one game at most, whoever completes it.
        table_id = new_id()
        private, _ = new_reply_key()
        return await self.store.pair(spot, ticket, _seats(spot), add=add, table_id=table_id,
                                     command_id=f"match:{table_id}", private=private)  # fmt: skip

    async def _answer(self, spot: Spot, ticket: str, paired: Paired) -> Reply:
        if paired.kind == "forbidden":
            return Error(code=ErrorCode.FORBIDDEN, reason=f"ticket {ticket} is taken")
        if paired.kind == "queued":
            await self.store.keep(ticket)
            return Queued(ticket=ticket, waiting=paired.waiting)
        # A table just formed, or (a retry) the one the ticket sits in: its game is made now.
        failed = await self._complete(spot.queue, paired.table)
        return failed or Queued(ticket=ticket, waiting=0)

    async def _complete(self, queue: str, table_id: str) -> Error | None:
        """Make the table's game, tell each seat, remove the record; the error when that
        failed (the table then stays recorded for a retry, unless refused for good)."""
        table = await self.store.table(queue, table_id)
        if table is None:
            return None  # completed meanwhile, by another matchmaker
        try:
            created = await self.rules.request(subjects.RULES_CREATE, _create(table), Created)
            await self._announce(table, created)
        except (TabulaError, nats.errors.Error) as exc:
            return await self._failed(table, exc)
        await self.store.done(table)
        waited = now_ms() - min(s.since_ms for s in table.seats)
        metrics.QUEUE_WAIT_SECONDS.labels(table.ruleset).observe(max(0, waited) / 1000)
        log.info("paired", game_id=created.game_id, players=[s.player for s in table.seats])
        return None

    async def _announce(self, table: Table, created: Created) -> None:
        grants = msgspec.json.decode(open_sealed(table.private, f"seats:{created.game_id}",
                                                 created.tokens), type=list[SeatGrant])  # fmt: skip
        for s, grant in zip(table.seats, grants, strict=True):
            token = seal_to(s.reply_key, f"assignment:{s.ticket}:{created.game_id}:{grant.seat}",
                            grant.token.encode())  # fmt: skip
            note = Assignment(ticket=s.ticket, game_id=created.game_id, ruleset=table.ruleset,
                              variant=table.variant, seat=grant.seat, token=token)  # fmt: skip
            await self.nc.publish(subjects.match_assigned(s.ticket), msgspec.json.encode(note))
        await self.nc.flush()  # sent before the record goes: a death after loses no seat

    async def _failed(self, table: Table, exc: Exception) -> Error:
        code = exc.code if isinstance(exc, TabulaError) else ErrorCode.UNAVAILABLE
        if code in RETRIED:
            await self.store.touch(table.queue, now_ms())  # the sweep keeps looking there
            log.error("game creation failed; the table waits", table=table.id, error=str(exc))
        else:
            await self.store.done(table)
            log.error("game creation refused; table abandoned", table=table.id, error=str(exc))
        return Error(code=code, reason=str(exc))

    async def sweep(self) -> None:
        """Complete the tables recorded over stale_s ago: their creation failed, or their
        matchmaker died (every matchmaker runs this every SWEEP_S)."""
        for queue, table_id in await self.store.stale(now_ms() - int(self.stale_s * 1000)):
            await self._complete(queue, table_id)
        for ruleset, waiting in (await self.store.waiting()).items():
            metrics.QUEUE_TICKETS.labels(ruleset).set(waiting)

    async def cancel(self, req: Cancel) -> Reply:
        """Only the ticket's owner (the secret it queued with, compared by digest) takes it out
        of its queue; a ticket already in a table is not found."""
        spot = await self.store.where(req.ticket)
        if spot is None:
            return Cancelled(ticket=req.ticket, found=False)
        found = await self.store.cancel(spot, req.ticket, digest(req.owner))
        if found is None:
            return Error(code=ErrorCode.FORBIDDEN, reason=f"ticket {req.ticket} is not yours")
        return Cancelled(ticket=req.ticket, found=found)


def _seats(spot: Spot) -> int:
    return find_ruleset(spot.ruleset).create(spot.variant).seats


def _create(table: Table) -> CreateGame:
    """The create of a table's game; its seat tokens come sealed to the table's key."""
    public = table.private.public_key().public_bytes_raw().hex()
    return CreateGame(command_id=table.command_id, reply_key=public, ruleset=table.ruleset,
                      variant=table.variant, players=[s.player for s in table.seats])  # fmt: skip
