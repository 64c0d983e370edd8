"""The rules service's client of the randomness service: a game's seed commitment, its draws
(public outcomes from the reply; secret ones, a shuffle or a card salt, from the store, never
from the bus) and, once the game has ended, its seed.
"""

from collections.abc import Awaitable, Sequence

import msgspec
from nats.aio.client import Client as NATS
from nats.errors import Error as NATSError

from contracts import subjects
from contracts.commands import CreateSeed, Draw, Drawn, RevealSeed, SeedCommitted, SeedRevealedReply
from domain.core import DrawRequest, DrawResult
from domain.core.table import Table
from services.runtime.bus import Requester, TabulaError
from services.runtime.eventstore import EventStore
from services.runtime.keys import secret_field, secret_key


class RandomnessUnavailable(Exception):
    """The randomness service did not answer, or its outcome is not in the store yet."""


class RandomnessClient:
    def __init__(self, nc: NATS, store: EventStore) -> None:
        self.bus = Requester(nc, timeout=2.0, retries=2)
        self.store = store

    async def commitment(self, game_id: str) -> str:
        """The commitment to the game's server seed (made once; protocol 1.1)."""
        try:
            reply = await self.bus.request(subjects.RANDOM_SEED, CreateSeed(game_id=game_id),
                                           SeedCommitted)  # fmt: skip
        except (TabulaError, NATSError) as exc:
            raise RandomnessUnavailable(f"randomness service: {exc}") from exc
        return reply.commitment

    async def reveal(self, game_id: str) -> str:
        """The server seed of a game whose end is in its log."""
        try:
            reply = await self.bus.request(subjects.RANDOM_REVEAL, RevealSeed(game_id=game_id),
                                           SeedRevealedReply)  # fmt: skip
        except (TabulaError, NATSError) as exc:
            raise RandomnessUnavailable(f"randomness service: {exc}") from exc
        return reply.server_seed

    async def draw(self, game_id: str, table: Table, requests: Sequence[DrawRequest]
                   ) -> list[DrawResult]:  # fmt: skip
        """Obtain the outcomes: public ones from the reply, secret ones from Redis."""
        assert table.fair is not None
        mix = table.fair.mix

        def ask(r: DrawRequest) -> Awaitable[Drawn]:
            req = Draw(game_id=game_id, nonce=r.nonce or 0, kind=r.kind, n=r.n, mix=mix)
            return self.bus.request(subjects.RANDOM_DRAW, req, Drawn)

        try:
            # One after another, in nonce order, as the randomness service requires (a nonce
            # only after the one before it).
            replies = [await ask(r) for r in requests]
        except (TabulaError, NATSError) as exc:
            raise RandomnessUnavailable(f"randomness service: {exc}") from exc
        secret = [secret_field(r.kind, r.nonce or 0, r.n) for r in requests]
        stored = await self.store.redis.hmget(secret_key(game_id), secret)
        results = []
        for request, reply, value in zip(requests, replies, stored, strict=True):
            values, salt = tuple(reply.values), ""
            if reply.stored:
                if value is None:
                    raise RandomnessUnavailable(f"{request.kind} outcome missing from the store")
                if request.kind == "salt":
                    salt = value.decode()
                else:
                    values = tuple(msgspec.json.decode(value, type=list[int]))
            results.append(
                DrawResult(
                    nonce=request.nonce,
                    kind=request.kind,
                    n=request.n,
                    purpose=request.purpose,
                    values=values,
                    salt=salt,
                )
            )
        return results
