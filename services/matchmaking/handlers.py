"""Matchmaking: a queue per ruleset+variant; a full table becomes a game through rules.

Each player is told its game, seat and token on its own ticket subject. The queues live in this
process: a restart empties them and waiting players simply enqueue again.
"""

from collections import defaultdict

import msgspec
import nats
import structlog
from nats.aio.client import Client as NATS

from contracts import subjects
from contracts.commands import Assignment, Cancel, Cancelled, Enqueue, Error, Queued, Reply
from contracts.errors import ErrorCode
from domain.core import VariantError
from domain.registry import find_ruleset
from services.client.client import Client, TabulaError

log = structlog.get_logger()


class Matchmaker:
    def __init__(self, nc: NATS) -> None:
        self.nc = nc
        self.rules = Client(nc)
        self.queues: defaultdict[tuple[str, str], list[Enqueue]] = defaultdict(list)

    async def enqueue(self, req: Enqueue) -> Reply:
        try:
            seats = find_ruleset(req.ruleset).create(req.variant).seats
        except VariantError as exc:
            return Error(code=exc.code, reason=exc.reason)
        queue = self.queues[(req.ruleset, req.variant)]
        if any(t.ticket == req.ticket for t in queue):
            return Queued(ticket=req.ticket, waiting=len(queue))
        queue.append(req)
        if len(queue) < seats:
            return Queued(ticket=req.ticket, waiting=len(queue))
        table, queue[:seats] = queue[:seats], []  # taken before any await: no double seating
        try:
            created = await self.rules.create_game(
                req.ruleset,
                req.variant,
                players=[t.player for t in table],
                command_id="match:" + ":".join(t.ticket for t in table),
            )
        except (TabulaError, nats.errors.Error) as exc:
            queue[:0] = table  # put them back at the front
            log.error("game creation failed", error=str(exc))
            code = exc.code if isinstance(exc, TabulaError) else ErrorCode.UNAVAILABLE
            return Error(code=code, reason=str(exc))
        for t, grant in zip(table, created.seats, strict=True):
            note = Assignment(
                ticket=t.ticket,
                game_id=created.game_id,
                ruleset=req.ruleset,
                variant=req.variant,
                seat=grant.seat,
                token=grant.token,
            )
            await self.nc.publish(subjects.match_assigned(t.ticket), msgspec.json.encode(note))
        log.info("paired", game_id=created.game_id, players=[t.player for t in table])
        return Queued(ticket=req.ticket, waiting=0)

    async def cancel(self, req: Cancel) -> Reply:
        for queue in self.queues.values():
            for i, t in enumerate(queue):
                if t.ticket == req.ticket:
                    del queue[i]
                    return Cancelled(ticket=req.ticket, found=True)
        return Cancelled(ticket=req.ticket, found=False)
