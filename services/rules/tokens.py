"""Seat tokens: derived, never stored. token = HMAC(secret, game id and seat).

Deriving them lets a retried CreateGame return the same tokens, keeps them out of the public
log, and lets any replica check them with nothing but the shared secret.
"""

import hashlib
import hmac
import secrets

import redis.asyncio as aioredis

from services.runtime.keys import TOKEN_SECRET


async def shared_secret(redis: "aioredis.Redis", configured: str | None) -> bytes:
    """The configured secret, else the store's (created once by whichever replica is first)."""
    if configured:
        return configured.encode()
    await redis.set(TOKEN_SECRET, secrets.token_hex(32), nx=True)
    value = await redis.get(TOKEN_SECRET)
    assert isinstance(value, bytes)
    return value


def seat_token(secret: bytes, game_id: str, seat: int) -> str:
    msg = f"seat-token:v1:{game_id}:{seat}".encode()
    return hmac.new(secret, msg, hashlib.sha256).hexdigest()[:32]
