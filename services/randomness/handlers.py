"""The randomness service: a per-game server seed, committed first, and draws from it.

The seed lives only under its own Redis key, never in an event, log line or reply. A draw is a
pure function of (seed, mix, nonce), so a retried request gets the same outcome. Client seeds
(the mix) and the reveal at game end come with the full fair-play protocol; until then the mix
is that of an empty client-seed list.
"""

import hashlib
import secrets
from typing import Any

import redis.asyncio as aioredis

from contracts.commands import CreateSeed, Draw, Drawn, Error, Reply, SeedCommitted
from contracts.errors import ErrorCode
from domain import fairplay

# The protocol's mix formula over an empty client-seed list: SHA256 of the empty string.
NO_CLIENT_SEEDS_MIX = hashlib.sha256(b"").hexdigest()
MAX_SHUFFLE = 1024


def seed_key(game_id: str) -> str:
    return f"tabula:game:{{{game_id}}}:seed"


class Randomness:
    def __init__(self, redis: "aioredis.Redis") -> None:
        self.redis: Any = redis  # bytes-mode client (redis-py types replies as bytes | str)

    async def seed(self, req: CreateSeed) -> Reply:
        """Create the game's seed once (idempotent) and answer with its commitment only."""
        if not fairplay.is_valid_game_id(req.game_id):
            return Error(
                code=ErrorCode.MALFORMED,
                reason=f"game id {req.game_id!r} must match [a-z0-9-]{{1,64}}",
            )
        await self.redis.set(seed_key(req.game_id), secrets.token_hex(32), nx=True)
        seed = await self.redis.get(seed_key(req.game_id))
        assert seed is not None
        return SeedCommitted(
            game_id=req.game_id, commitment=fairplay.seed_commitment(seed.decode())
        )

    async def draw(self, req: Draw) -> Reply:
        seed = await self.redis.get(seed_key(req.game_id))
        if seed is None:
            return Error(code=ErrorCode.UNKNOWN_GAME, reason=f"no seed for game {req.game_id}")
        args = (seed.decode(), req.game_id, NO_CLIENT_SEEDS_MIX, req.nonce)
        try:
            if req.nonce < 0:
                raise ValueError("nonce must be >= 0")
            if req.kind == "die":
                values = [fairplay.die(*args, req.n)]
            elif req.kind == "uniform":
                values = [fairplay.uniform(*args, req.n)]
            elif req.kind == "shuffle":
                if not 1 <= req.n <= MAX_SHUFFLE:
                    raise ValueError(f"a shuffle takes 1 to {MAX_SHUFFLE} cards")
                values = fairplay.shuffle(*args, req.n)
            else:
                raise ValueError(f"unknown draw kind {req.kind!r} (die, uniform, shuffle)")
        except ValueError as exc:
            return Error(code=ErrorCode.MALFORMED, reason=str(exc))
        return Drawn(game_id=req.game_id, nonce=req.nonce, kind=req.kind, n=req.n, values=values)
