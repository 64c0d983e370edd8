"""The randomness service: a per-game server seed, committed first, and draws from it.

The seed lives only under its own Redis key: never in an event before the game has ended, never
in a log line, never on NATS until the reveal. A draw is a pure function of (seed, mix, nonce),
so a retried request gets the same outcome (protocol section 2). Public outcomes (die, uniform)
are answered; secret ones (a shuffle, which would show every future card, and a card salt) are
written under the game's secret key in Redis for the rules service and never cross NATS.

Only the rules service may ask (the bus's permissions, services.runtime.access), and each
outcome is bound to the game's progress:
- write-once: the game's mix is fixed by its first draw, and a nonce's parameters (kind, n)
  once the log records it; asking again with others gets `random/drawn` and changes nothing;
- no peeking ahead: a new nonce must follow the last one drawn, and lie within `AHEAD` of the
  next nonce the game's log is waiting for; a card salt's deck position within `AHEAD` of the
  next position the log deals (the log is read incrementally, from where the last draw left
  it). So the secrets kept for a game grow with its log, never faster.
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
    ForgetSeed,
    Forgotten,
    Reply,
    RevealSeed,
    SeedCommitted,
    SeedRevealedReply,
)
from contracts.errors import ErrorCode
from domain import fairplay
from services.runtime.codec import CorruptEntry
from services.runtime.keys import (
    drawn_key,
    log_key,
    meta_key,
    secret_field,
    secret_key,
    seed_key,
)

MAX_SHUFFLE = 1024
SECRET_KINDS = frozenset({"shuffle", "salt"})
NONCED = frozenset({"die", "uniform", "shuffle"})
# How far past the log's next nonce one decision may draw before its events are appended (a
# turn's dice and shuffles); a bound, not a window anyone can slide, since nonces are drawn in
# order and each once.
AHEAD = 64
_DRAW_EVENTS = frozenset({b"RandomDrawn", b"DeckShuffled"})


class _Nonce(msgspec.Struct):
    nonce: int


class _Position(msgspec.Struct):
    position: int


_nonce = msgspec.json.Decoder(_Nonce)
_position = msgspec.json.Decoder(_Position)


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
        try:
            return await self._draw(req)
        except CorruptEntry as exc:  # the log it paces draws by: named, never "internal"
            return _error(ErrorCode.STORE_CORRUPT, str(exc))

    async def _draw(self, req: Draw) -> Reply:
        seed = await self.redis.get(seed_key(req.game_id))
        if seed is None:
            return _error(ErrorCode.UNKNOWN_GAME, f"no seed for game {req.game_id}")
        server_seed = seed.decode()
        try:
            if req.kind == "salt":  # a function of the seed and the deck position alone
                _nonce_next, dealt = await self._log_progress(req.game_id)
                if not req.n < dealt + AHEAD:  # secrets kept grow with the game, no faster
                    return _error(ErrorCode.DRAW_AHEAD,
                                  f"deck position {req.n}: the log has dealt {dealt}")  # fmt: skip
                salt = fairplay.card_salt(server_seed, req.game_id, req.n)
                await self.redis.hsetnx(secret_key(req.game_id), f"salt:{req.n}", salt)
                return Drawn(game_id=req.game_id, nonce=req.nonce, kind=req.kind, n=req.n,
                             stored=True)  # fmt: skip
            if req.kind not in NONCED:
                raise ValueError(f"unknown draw kind {req.kind!r} (die, uniform, shuffle, salt)")
            if req.kind == "shuffle" and not 1 <= req.n <= MAX_SHUFFLE:
                raise ValueError(f"a shuffle takes 1 to {MAX_SHUFFLE} cards")
            args = (server_seed, req.game_id, req.mix, req.nonce, req.n)
            # Compute before recording: a request the protocol refuses records nothing.
            if req.kind == "die":
                values = [fairplay.die(*args)]
            elif req.kind == "uniform":
                values = [fairplay.uniform(*args)]
            else:
                values = fairplay.shuffle(*args)
        except CorruptEntry:
            raise  # a ValueError too, but the store's fault, not the request's
        except ValueError as exc:
            return _error(ErrorCode.MALFORMED, str(exc))
        if (refused := await self._record(req)) is not None:
            return refused
        if req.kind == "shuffle":
            field = secret_field("shuffle", req.nonce, req.n)
            # The order is a function of the bound mix and the nonce: storing it again stores
            # the same order, or the one a re-drawn (abandoned, unlogged) nonce now has.
            await self.redis.hset(secret_key(req.game_id), field, msgspec.json.encode(values))
            return Drawn(game_id=req.game_id, nonce=req.nonce, kind=req.kind, n=req.n,
                         stored=True)  # fmt: skip
        return Drawn(game_id=req.game_id, nonce=req.nonce, kind=req.kind, n=req.n, values=values)

    async def _record(self, req: Draw) -> Error | None:
        """Bind the game to its mix once, and the nonce to (kind, n) once the log records it;
        refuse anything else. A nonce not yet in the log may be drawn again with other
        parameters: the decision that drew it was abandoned (refused, or beaten by another
        replica), and only the rules service ever saw the outcome."""
        key = drawn_key(req.game_id)
        fields = ["mix", f"n:{req.nonce}", f"n:{req.nonce - 1}"]
        mix, done, before = await self.redis.hmget(key, fields)
        if mix is None:  # the game's first draw binds its mix (or a concurrent one did)
            await self.redis.hsetnx(key, "mix", req.mix)
            mix, done, before = await self.redis.hmget(key, fields)
        if mix.decode() != req.mix:
            return _error(ErrorCode.DRAWN, "this game's draws are bound to another mix")
        what = f"{req.kind} {req.n}"
        if done is not None and done.decode() == what:
            return None  # a retry: the same outcome
        if req.nonce > 0 and before is None:
            return _error(ErrorCode.DRAW_AHEAD,
                          f"nonce {req.nonce} before nonce {req.nonce - 1}")  # fmt: skip
        waiting, _dealt = await self._log_progress(req.game_id)
        if done is not None and req.nonce < waiting:
            return _error(ErrorCode.DRAWN,
                          f"nonce {req.nonce} is in the log as {done.decode()}")  # fmt: skip
        if not waiting <= req.nonce < waiting + AHEAD:
            return _error(ErrorCode.DRAW_AHEAD,
                          f"nonce {req.nonce}: the log is waiting for nonce {waiting}")  # fmt: skip
        await self.redis.hset(key, f"n:{req.nonce}", what)
        return None

    async def _log_progress(self, game_id: str) -> tuple[int, int]:
        """What the game's log waits for: the nonce one past its last draw, and the deck
        position one past its last card dealt."""
        key = drawn_key(game_id)
        version, nxt, dealt = await self.redis.hmget(key, ["log:version", "log:next", "log:dealt"])
        version, nxt, dealt = int(version or 0), int(nxt or 0), int(dealt or 0)
        while entries := await self.redis.xrange(log_key(game_id), f"(0-{version}", "+",
                                                 count=500):  # fmt: skip
            for entry_id, fields in entries:
                try:
                    if fields[b"type"] in _DRAW_EVENTS:
                        nxt = max(nxt, _nonce.decode(fields[b"body"]).nonce + 1)
                    elif fields[b"type"] == b"CardDealt":
                        dealt = max(dealt, _position.decode(fields[b"body"]).position + 1)
                    version = int(entry_id.split(b"-")[1])
                except (KeyError, ValueError, msgspec.DecodeError) as exc:
                    missing = isinstance(exc, KeyError)
                    problem = f"it has no field {exc.args[0].decode()}" if missing else str(exc)
                    raise CorruptEntry(game_id, problem, entry=entry_id.decode()) from None
            await self.redis.hset(key, mapping={"log:version": version, "log:next": nxt,
                                                "log:dealt": dealt})  # fmt: skip
        return nxt, dealt

    async def forget(self, req: ForgetSeed) -> Reply:
        """Remove the game's seed, secret outcomes and draws once it has left Valkey for the
        archive (its meta a tombstone, which only the rules service's forget.lua writes): the
        seed is in the log by then (SeedRevealed), and nothing draws again."""
        version, archived = await self.redis.hmget(meta_key(req.game_id), ["version", "archived"])
        if archived is None:
            reason = f"game {req.game_id} is not archived and removed: its seed stays"
            return _error(ErrorCode.NOT_ARCHIVED, reason)
        await self.redis.delete(seed_key(req.game_id), secret_key(req.game_id),
                                drawn_key(req.game_id))  # fmt: skip
        return Forgotten(game_id=req.game_id, version=int(version))

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
