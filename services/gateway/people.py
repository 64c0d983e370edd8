"""Who is asking: guests, accounts, sessions and rate limits, kept in the store.

A session id is 32 random bytes, sent to the browser in an HttpOnly, SameSite=Strict cookie and
never shown to scripts; the store keeps only its SHA-256, so someone reading the store cannot
sign in as anyone. An account keeps only its password's Argon2id hash (RFC 9106's second
recommended parameters, in the PHC string, so stronger ones later still verify old hashes).
Rate limits count fixed windows in the store, so every gateway replica shares them.
"""

import asyncio
import functools
import hashlib
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any, Final

import msgspec
import redis.asyncio as aioredis
from cryptography.exceptions import InvalidKey
from cryptography.hazmat.primitives.kdf.argon2 import Argon2id

from contracts.commands import Error
from contracts.errors import ErrorCode
from services.runtime import keys
from services.runtime.bus import TabulaError

SESSION_TTL_S: Final = 30 * 86_400
# A display name: letters, digits, spaces and a little punctuation, 1-32 characters, no
# leading or trailing space.
NAME: Final = re.compile(r"^[\w.-](?:[\w .-]{0,30}[\w.-])?\Z")


PASSWORD_CHARS: Final = range(8, 1025)
# RFC 9106 section 4, the second recommended option: t=3, 64 MiB, 4 lanes (0.1 s here).
ARGON2: Final = {"length": 32, "iterations": 3, "lanes": 4, "memory_cost": 64 * 1024}


class Player(msgspec.Struct, frozen=True):
    id: str  # "g" + 16 hex for a guest ("a" + 16 hex for an account made without being one)
    name: str
    account: bool = False


def text(value: Any) -> str:
    """A store reply (bytes: the gateway's connection does not decode) as text."""
    return value.decode() if isinstance(value, bytes) else str(value)


def _digest(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


class Sessions:
    """Sessions in the store; each one found is kept here for SEEN_S, so a page's requests do
    not each cost a round trip (signing out elsewhere takes effect within SEEN_S)."""

    SEEN_S: Final = 10.0

    def __init__(self, redis: "aioredis.Redis") -> None:
        self.redis = redis
        self.seen: dict[str, tuple[float, Player]] = {}

    async def sign_in_guest(self, name: str) -> tuple[str, Player]:
        """A new guest and its session id (the caller checked the name against NAME)."""
        player = Player("g" + secrets.token_hex(8), name)
        return await self.open(player), player

    async def open(self, player: Player) -> str:
        """A new session for the player: its id, for the cookie."""
        session_id = secrets.token_urlsafe(32)
        key = keys.session_key(_digest(session_id))
        await self.redis.hset(key, mapping={"player": player.id, "name": player.name,
                                            "account": int(player.account)})  # fmt: skip
        await self.redis.expire(key, SESSION_TTL_S)
        return session_id

    async def find(self, session_id: str) -> Player | None:
        if not session_id or len(session_id) > 128:
            return None
        digest = _digest(session_id)
        now = time.monotonic()
        if (kept := self.seen.get(digest)) is not None and kept[0] > now:
            return kept[1]
        found = await self.redis.hmget(keys.session_key(digest), ["player", "name", "account"])
        if found[0] is None:
            return None
        if len(self.seen) > 100_000:  # only the live ones are kept
            self.seen = {d: k for d, k in self.seen.items() if k[0] > now}
        player = Player(text(found[0]), text(found[1]), text(found[2]) == "1")
        self.seen[digest] = (now + self.SEEN_S, player)
        return player

    async def sign_out(self, session_id: str) -> None:
        digest = _digest(session_id)
        self.seen.pop(digest, None)
        await self.redis.delete(keys.session_key(digest))


def _hashed(password: str) -> str:
    kdf = Argon2id(salt=secrets.token_bytes(16), **ARGON2)  # type: ignore[arg-type]
    return kdf.derive_phc_encoded(password.encode())


@functools.cache
def _unknown() -> str:
    """Checked when the name is unknown, so the time taken does not say which names exist
    (made on the first such sign-in, not when the gateway starts)."""
    return _hashed("-")


class Accounts:
    """Named accounts with passwords; a name is one account, whatever its case."""

    def __init__(self, redis: "aioredis.Redis") -> None:
        self.redis = redis
        # Each hash takes 64 MiB and a core for 0.1 s: a few at a time, in threads, so a burst
        # of sign-ins neither stalls the event loop nor exhausts memory.
        self.hashing = asyncio.Semaphore(2)

    async def exists(self, name: str) -> bool:
        return bool(await self.redis.exists(keys.account_key(name.casefold())))

    async def register(self, name: str, password: str, guest: Player | None) -> Player:
        """A new account (a guest registering keeps its player id, and so its games)."""
        if len(password) not in PASSWORD_CHARS:
            raise refuse(ErrorCode.MALFORMED, "a password is 8 to 1024 characters")
        keep = guest is not None and not guest.account
        player = Player(guest.id if keep and guest else "a" + secrets.token_hex(8), name, True)
        phc = await self._run(lambda: _hashed(password))
        key = keys.account_key(name.casefold())
        if not await self.redis.hsetnx(key, "player", player.id):
            raise refuse(ErrorCode.CONFLICT, f"the name {name!r} is taken: choose another")
        await self.redis.hset(key, mapping={"name": name, "hash": phc})
        return player

    async def sign_in(self, name: str, password: str) -> Player:
        key = keys.account_key(name.casefold())
        found = await self.redis.hmget(key, ["player", "name", "hash"])
        phc = text(found[2]) if found[2] is not None else ""
        if (len(password) not in PASSWORD_CHARS
                or not await self._run(lambda: _matches(password, phc or _unknown()))
                or not phc):  # fmt: skip
            raise refuse(ErrorCode.SIGN_IN, "wrong name or password")
        return Player(text(found[0]), text(found[1]), True)

    async def _run(self, work: Any) -> Any:
        async with self.hashing:
            return await asyncio.to_thread(work)


def _matches(password: str, phc: str) -> bool:
    try:
        Argon2id.verify_phc_encoded(password.encode(), phc)
    except InvalidKey:
        return False
    return True


def refuse(code: ErrorCode, reason: str) -> TabulaError:
    return TabulaError(Error(code=code, reason=reason))


@dataclass(frozen=True)
class Limits:
    """How much one client may ask (TABULA_GATEWAY_LIMITS: `requests,sign_ins,actions`)."""

    requests_per_minute: int = 600  # per client address, every API request and feed
    sign_ins_per_minute: int = 10  # per client address: each makes a session
    actions_per_10s: int = 50  # per player

    @classmethod
    def parse(cls, text: str) -> "Limits":
        requests, sign_ins, actions = (int(n) for n in text.split(","))
        return cls(requests, sign_ins, actions)


class RateLimited(TabulaError):
    def __init__(self, what: str, retry_after: int) -> None:
        reason = f"too many {what}: retry in {retry_after} s"
        super().__init__(Error(code=ErrorCode.RATE_LIMITED, reason=reason))
        self.retry_after = retry_after


class RateLimits:
    """At most `limit` requests per `window_s` seconds for each (scope, who)."""

    def __init__(self, redis: "aioredis.Redis") -> None:
        self.redis = redis

    async def check(self, what: str, scope: str, who: str, limit: int, window_s: int) -> None:
        """Raise RateLimited (naming `what` and when to retry) past the limit."""
        now = int(time.time())
        window = now // window_s
        key = keys.rate_key(scope, who, window)
        count = await self.redis.incr(key)
        if count == 1:
            await self.redis.expire(key, window_s + 1)
        if count > limit:
            raise RateLimited(what, (window + 1) * window_s - now)
