"""The randomness service: a per-game server seed, committed first, and draws from it.

The seed lives only under its own Redis key: never in an event before the game has ended, never
in a log line, never on NATS until the reveal. A draw is a pure function of (seed, mix, nonce),
so a retried or repeated request gets the same outcome (protocol section 2). Public outcomes
(die, uniform) are answered; secret ones (a shuffle, which would show every future card, and a
card salt) are written under the game's secret key in Redis for the rules service and never
cross NATS.
"""

import secrets
from typing import Any

import msgspec
import redis.asyncio as aioredis

from contracts.commands import (
    CreateSeed,
    Draw,
    Drawn,
    Error,
    Reply,
    RevealSeed,
    SeedCommitted,
    SeedRevealedReply,
)
from contracts.errors import ErrorCode
from domain import fairplay
from services.runtime.eventstore import meta_key

MAX_SHUFFLE = 1024
SECRET_KINDS = frozenset({"shuffle", "salt"})


def seed_key(game_id: str) -> str:
    return f"tabula:game:{{{game_id}}}:seed"


def secret_key(game_id: str) -> str:
    """Hash of secret outcomes: field "shuffle:<nonce>" (JSON order) or "salt:<position>"."""
    return f"tabula:game:{{{game_id}}}:secret"


def secret_field(kind: str, nonce: int, n: int) -> str:
    return f"salt:{n}" if kind == "salt" else f"{kind}:{nonce}"


def _error(code: ErrorCode, reason: str) -> Error:
    return Error(code=code, reason=reason)


class Randomness:
    def __init__(self, redis: "aioredis.Redis") -> None:
        self.redis: Any = redis  # bytes-mode client (redis-py types replies as bytes | str)

    async def seed(self, req: CreateSeed) -> Reply:
        """Create the game's seed once (idempotent) and answer with its commitment only."""
        if not fairplay.is_valid_game_id(req.game_id):
            return _error(ErrorCode.MALFORMED, f"game id {req.game_id!r} must match [a-z0-9-]+")
        await self.redis.set(seed_key(req.game_id), secrets.token_hex(32), nx=True)
        seed = await self.redis.get(seed_key(req.game_id))
        return SeedCommitted(game_id=req.game_id,
                             commitment=fairplay.seed_commitment(seed.decode()))  # fmt: skip

    async def draw(self, req: Draw) -> Reply:
        seed = await self.redis.get(seed_key(req.game_id))
        if seed is None:
            return _error(ErrorCode.UNKNOWN_GAME, f"no seed for game {req.game_id}")
        server_seed = seed.decode()
        try:
            if req.kind == "salt":
                salt = fairplay.card_salt(server_seed, req.game_id, req.n)
                await self.redis.hset(secret_key(req.game_id), f"salt:{req.n}", salt)
                return Drawn(game_id=req.game_id, nonce=req.nonce, kind=req.kind, n=req.n,
                             stored=True)  # fmt: skip
            args = (server_seed, req.game_id, req.mix, req.nonce)
            if req.kind == "die":
                values = [fairplay.die(*args, req.n)]
            elif req.kind == "uniform":
                values = [fairplay.uniform(*args, req.n)]
            elif req.kind == "shuffle":
                if not 1 <= req.n <= MAX_SHUFFLE:
                    raise ValueError(f"a shuffle takes 1 to {MAX_SHUFFLE} cards")
                order = fairplay.shuffle(*args, req.n)
                field = secret_field("shuffle", req.nonce, req.n)
                await self.redis.hset(secret_key(req.game_id), field, msgspec.json.encode(order))
                return Drawn(game_id=req.game_id, nonce=req.nonce, kind=req.kind, n=req.n,
                             stored=True)  # fmt: skip
            else:
                raise ValueError(f"unknown draw kind {req.kind!r} (die, uniform, shuffle, salt)")
        except ValueError as exc:
            return _error(ErrorCode.MALFORMED, str(exc))
        return Drawn(game_id=req.game_id, nonce=req.nonce, kind=req.kind, n=req.n, values=values)

    async def reveal(self, req: RevealSeed) -> Reply:
        """The seed, once the log says the game has ended (the rules service marks it)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.get(seed_key(req.game_id))
        pipe.hexists(meta_key(req.game_id), "result")
        seed, ended = await pipe.execute()
        if seed is None:
            return _error(ErrorCode.UNKNOWN_GAME, f"no seed for game {req.game_id}")
        if not ended:
            return _error(ErrorCode.ILLEGAL_ACTION,
                          "the seed is revealed only after the game has ended")  # fmt: skip
        return SeedRevealedReply(game_id=req.game_id, server_seed=seed.decode())
