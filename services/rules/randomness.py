"""The rules service's client of the randomness service: a game's seed commitment, its draws
(public outcomes from the reply; secret ones, a shuffle or a card salt, from the store, never
from the bus), once the game has ended, its seed, and once it has left Valkey for the archive,
the removal of the randomness service's keys of it.
"""

from collections.abc import Sequence
from typing import TypeVar

import msgspec
from nats.aio.client import Client as NATS
from nats.errors import Error as NATSError

from contracts import subjects
from contracts.commands import (
    CreateSeed,
    Draw,
    Drawn,
    ForgetSeed,
    Forgotten,
    Reply,
    Request,
    RevealSeed,
    SeedCommitted,
    SeedRevealedReply,
)
from domain.core import DrawRequest, DrawResult
from domain.core.table import Table
from services.runtime.bus import Requester, TabulaError
from services.runtime.eventstore import EventStore
from services.runtime.keys import secret_field, secret_key

R = TypeVar("R", bound=Reply)


class RandomnessUnavailable(Exception):
    """The randomness service did not answer, or its outcome is not in the store yet."""


class RandomnessClient:
    def __init__(self, nc: NATS, store: EventStore) -> None:
        self.bus = Requester(nc, timeout=2.0, retries=2)
        self.store = store

    async def _ask(self, subject: str, request: Request, reply: type[R]) -> R:
        try:
            return await self.bus.request(subject, request, reply)
        except (TabulaError, NATSError) as exc:
            raise RandomnessUnavailable(f"randomness service: {exc}") from exc

    async def commitment(self, game_id: str) -> str:
        """The commitment to the game's server seed (made once; protocol 1.1)."""
        seed = CreateSeed(game_id=game_id)
        return (await self._ask(subjects.RANDOM_SEED, seed, SeedCommitted)).commitment

    async def reveal(self, game_id: str) -> str:
        """The server seed of a game whose end is in its log."""
        reveal = RevealSeed(game_id=game_id)
        return (await self._ask(subjects.RANDOM_REVEAL, reveal, SeedRevealedReply)).server_seed

    async def forget(self, game_id: str) -> None:
        """Have the randomness service remove its keys of a game that left Valkey."""
        await self._ask(subjects.RANDOM_FORGET, ForgetSeed(game_id=game_id), Forgotten)

    async def draw(self, game_id: str, table: Table, requests: Sequence[DrawRequest]
                   ) -> list[DrawResult]:  # fmt: skip
        """Obtain the outcomes: public ones from the reply, secret ones from Redis."""
        assert table.fair is not None
        mix = table.fair.mix

        # One after another, in nonce order, as the randomness service requires (a nonce only
        # after the one before it).
        replies = [
            await self._ask(subjects.RANDOM_DRAW, Draw(game_id=game_id, nonce=r.nonce or 0,
                                                       kind=r.kind, n=r.n, mix=mix), Drawn)
            for r in requests
        ]  # fmt: skip
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
