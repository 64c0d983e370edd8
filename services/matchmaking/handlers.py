"""Matchmaking: a queue per ruleset+variant; a full table becomes a game through rules.

Each player is told its game, seat and token on its own ticket subject, the token sealed to the
key the player queued with (anyone may listen there); only the ticket's owner cancels it. The
queues live in this process: a restart empties them and waiting players simply enqueue again.
"""

import hmac
from collections import defaultdict

import msgspec
import nats
import structlog
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
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
from services.runtime.bus import Requester, TabulaError, new_id
from services.runtime.sealing import new_reply_key, open_sealed, seal_to

log = structlog.get_logger()


class Matchmaker:
    def __init__(self, nc: NATS) -> None:
        self.nc = nc
        self.rules = Requester(nc)
        self.queues: defaultdict[tuple[str, str], list[Enqueue]] = defaultdict(list)
        # A table's tickets -> its create and reply key, while the create is retried.
        self.retrying: dict[tuple[str, ...], tuple[CreateGame, X25519PrivateKey]] = {}

    async def enqueue(self, req: Enqueue) -> Reply:
        held = self._find(req.ticket)
        if held is not None and not _same(held.owner, req.owner):
            return Error(code=ErrorCode.FORBIDDEN, reason=f"ticket {req.ticket} is taken")
        req = held or req  # a retry: its table is tried again if full (its creation failed)
        try:
            seats = find_ruleset(req.ruleset).create(req.variant).seats
        except VariantError as exc:
            return Error(code=exc.code, reason=exc.reason)
        queue = self.queues[(req.ruleset, req.variant)]
        if held is None:
            queue.append(req)
        if len(queue) < seats:
            return Queued(ticket=req.ticket, waiting=len(queue))
        table, queue[:seats] = queue[:seats], []  # taken before any await: no double seating
        tickets = tuple(t.ticket for t in table)
        # A fresh, unguessable command id per table (tickets are the players' to choose and
        # reuse), kept with its reply key while its creation is retried, so a table becomes
        # one game at most and a retry of an applied create is answered.
        held_create = self.retrying.pop(tickets, None)
        create, private = held_create or self._create(table)
        try:
            created = await self.rules.request(subjects.RULES_CREATE, create, Created)
        except (TabulaError, nats.errors.Error) as exc:
            queue[:0] = table  # put them back at the front
            self.retrying[tickets] = (create, private)
            log.error("game creation failed", error=str(exc))
            code = exc.code if isinstance(exc, TabulaError) else ErrorCode.UNAVAILABLE
            return Error(code=code, reason=str(exc))
        grants = msgspec.json.decode(open_sealed(private, f"seats:{created.game_id}",
                                                 created.tokens), type=list[SeatGrant])  # fmt: skip
        for t, grant in zip(table, grants, strict=True):
            token = seal_to(t.reply_key, f"assignment:{t.ticket}:{created.game_id}:{grant.seat}",
                            grant.token.encode())  # fmt: skip
            note = Assignment(ticket=t.ticket, game_id=created.game_id, ruleset=req.ruleset,
                              variant=req.variant, seat=grant.seat, token=token)  # fmt: skip
            await self.nc.publish(subjects.match_assigned(t.ticket), msgspec.json.encode(note))
        log.info("paired", game_id=created.game_id, players=[t.player for t in table])
        return Queued(ticket=req.ticket, waiting=0)

    @staticmethod
    def _create(table: list[Enqueue]) -> tuple[CreateGame, X25519PrivateKey]:
        """The create of a table's game; its seat tokens come sealed to the matchmaker."""
        private, public = new_reply_key()
        first = table[0]
        create = CreateGame(command_id=f"match:{new_id()}", reply_key=public,
                            ruleset=first.ruleset, variant=first.variant,
                            players=[t.player for t in table])  # fmt: skip
        return create, private

    def _find(self, ticket: str) -> Enqueue | None:
        return next((t for q in self.queues.values() for t in q if t.ticket == ticket), None)

    async def cancel(self, req: Cancel) -> Reply:
        """Only the ticket's owner (the secret it queued with) takes it out of its queue."""
        held = self._find(req.ticket)
        if held is None:
            return Cancelled(ticket=req.ticket, found=False)
        if not _same(held.owner, req.owner):
            return Error(code=ErrorCode.FORBIDDEN, reason=f"ticket {req.ticket} is not yours")
        self.queues[(held.ruleset, held.variant)].remove(held)
        return Cancelled(ticket=req.ticket, found=True)


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())
