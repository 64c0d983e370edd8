"""The matchmaking state in Valkey, shared by every matchmaker instance (the key layout is
services.runtime.keys' matchmaking section).

A queue's waiting tickets, their hashes, its tables and their records share one hash tag, so
pair.lua (enqueue and maybe pair, one step) and each MULTI here touch one slot. Two keys stand
apart, in slots of their own: the ticket -> queue hint Cancel needs (it names no queue), and the
registry of the queues recently used, which the periodic job reads to find their tables. Both
are hints, written before the step they point to: the truth is in the queue's keys.
"""

import contextlib
import hashlib
import hmac
import time
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

import redis.asyncio as aioredis
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from redis.exceptions import WatchError

from services.runtime import keys

TICKET_TTL_S: Final = 600  # a ticket nobody enqueues again for this long leaves its queue
# The hint outlives its ticket's hash (written just before it), so a waiting ticket is found.
WHERE_MARGIN_S: Final = 60
# A queue nobody has enqueued in (nor retried a table of) for this long is no longer looked
# through for tables left behind; its next enqueue makes it looked through again.
ACTIVE_S: Final = 3600
CANCEL_TRIES: Final = 5  # a cancel racing with enqueues of the same ticket tries this often


def now_ms() -> int:
    return int(time.time() * 1000)


def digest(owner: str) -> str:
    """What the store keeps of an owner secret: its SHA-256 (hex), never the secret."""
    return hashlib.sha256(owner.encode()).hexdigest()


def same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


@dataclass(frozen=True)
class Spot:
    """Where a ticket queues: a ruleset and its variant (as the enqueue named it)."""

    ruleset: str
    variant: str

    @property
    def queue(self) -> str:
        return keys.match_queue(self.ruleset, self.variant)

    def encode(self) -> str:
        return f"{self.ruleset} {self.variant}"  # a ruleset name has no space

    @classmethod
    def decode(cls, raw: bytes) -> "Spot":
        ruleset, _, variant = raw.decode().partition(" ")
        return cls(ruleset, variant)


@dataclass(frozen=True)
class Ticket:
    ticket: str
    player: str
    reply_key: str
    owner: str  # its digest


@dataclass(frozen=True)
class Paired:
    """pair.lua's answer: "forbidden", "absent", "queued" (with `waiting`), "seated" or "table"
    (with `table`)."""

    kind: str
    waiting: int = 0
    table: str = ""


@dataclass(frozen=True)
class Seat:
    ticket: str
    player: str
    reply_key: str
    since_ms: int  # its ticket's first enqueue


@dataclass(frozen=True)
class Table:
    """A table formed and not yet completed, as recorded."""

    queue: str
    id: str
    ruleset: str
    variant: str
    command_id: str
    private: X25519PrivateKey
    seats: list[Seat]
    created_ms: int


class MatchStore:
    def __init__(self, redis: "aioredis.Redis", ticket_ttl_s: int = TICKET_TTL_S) -> None:
        self.redis: Any = redis  # bytes replies (redis-py types them loosely)
        self.ticket_ttl_s = ticket_ttl_s
        text = resources.files("services.matchmaking").joinpath("pair.lua").read_text()
        self._pair = self.redis.register_script(text)  # EVALSHA, SCRIPT LOAD when missing

    # -- where a ticket is -----------------------------------------------------------------

    async def claim(self, ticket: str, spot: Spot) -> Spot | None:
        """Point the ticket at `spot` unless it points elsewhere already: the spot it held
        before, if any (one command: SET NX GET)."""
        held = await self.redis.set(keys.match_where_key(ticket), spot.encode(), nx=True,
                                    get=True, ex=self._where_ttl())  # fmt: skip
        return None if held is None else Spot.decode(held)

    async def point(self, ticket: str, spot: Spot) -> None:
        """Point the ticket at `spot` (its hint named a queue that no longer holds it)."""
        await self.redis.set(keys.match_where_key(ticket), spot.encode(), ex=self._where_ttl())

    async def keep(self, ticket: str) -> None:
        """The ticket was enqueued again: its hint lives on with it."""
        await self.redis.expire(keys.match_where_key(ticket), self._where_ttl())

    async def where(self, ticket: str) -> Spot | None:
        raw = await self.redis.get(keys.match_where_key(ticket))
        return None if raw is None else Spot.decode(raw)

    def _where_ttl(self) -> int:
        return self.ticket_ttl_s + WHERE_MARGIN_S

    # -- enqueue and pair ------------------------------------------------------------------

    async def pair(self, spot: Spot, ticket: Ticket, seats: int, *, add: bool, table_id: str,
                   command_id: str, private: X25519PrivateKey) -> Paired:  # fmt: skip
        """pair.lua: add or refresh the ticket, and form a table if the queue is full (its
        record holds `command_id` and `private`, which opens the seat tokens)."""
        q, now = spot.queue, now_ms()
        await self.touch(q, now)  # before the step: a table it forms is found by the job
        reply = await self._pair(
            keys=[keys.match_waiting_key(q), keys.match_tables_key(q),
                  keys.match_ticket_key(q, ticket.ticket), keys.match_table_key(q, table_id)],
            args=[ticket.ticket, ticket.owner, ticket.player, ticket.reply_key, now,
                  self.ticket_ttl_s, seats, "1" if add else "0", table_id, command_id,
                  private.private_bytes_raw().hex(), spot.ruleset, spot.variant,
                  keys.match_prefix(q)],
        )  # fmt: skip
        kind = reply[0].decode()
        if kind == "queued":
            return Paired(kind, waiting=int(reply[1]))
        if kind in ("seated", "table"):
            return Paired(kind, table=reply[1].decode())
        return Paired(kind)

    async def touch(self, queue: str, now: int) -> None:
        """Mark the queue as used now (never earlier than it was)."""
        await self.redis.zadd(keys.MATCH_QUEUES, {queue: now}, gt=True)

    # -- cancel ----------------------------------------------------------------------------

    async def cancel(self, spot: Spot, ticket: str, owner: str) -> bool | None:
        """Take a waiting ticket out of its queue if `owner` (a digest) is its owner's: True,
        False (not waiting there: gone, or seated), None (another owner's). Atomic against
        pair.lua: the removal is made only if the ticket's hash has not changed since read."""
        q = spot.queue
        key = keys.match_ticket_key(q, ticket)
        for _ in range(CANCEL_TRIES):
            with contextlib.suppress(WatchError):
                return await self._cancel_once(q, key, ticket, owner)
        return False  # always changing under us: it is being enqueued again; say not found

    async def _cancel_once(self, q: str, key: str, ticket: str, owner: str) -> bool | None:
        async with self.redis.pipeline(transaction=True) as pipe:
            await pipe.watch(key)
            held, table = await pipe.hmget(key, ["owner", "table"])
            if held is None:
                return False
            if not same(held.decode(), owner):
                return None
            if table is not None:
                return False  # in a table already: its game is being made
            pipe.multi()
            pipe.zrem(keys.match_waiting_key(q), ticket)
            pipe.delete(key)
            await pipe.execute()  # WatchError when pair.lua touched it meanwhile
            return True

    # -- tables ----------------------------------------------------------------------------

    async def table(self, queue: str, table_id: str) -> Table | None:
        """The table's record, None once completed (by any instance)."""
        raw = await self.redis.hgetall(keys.match_table_key(queue, table_id))
        if not raw:
            return None
        f = {k.decode(): v.decode() for k, v in raw.items()}
        tickets = f["tickets"].split(" ")
        seats = [Seat(t, f[f"player:{i}"], f[f"reply_key:{i}"], int(f.get(f"since:{i}", "0")))
                 for i, t in enumerate(tickets)]  # fmt: skip
        return Table(queue=queue, id=table_id, ruleset=f["ruleset"], variant=f["variant"],
                     command_id=f["command"],
                     private=X25519PrivateKey.from_private_bytes(bytes.fromhex(f["key"])),
                     seats=seats, created_ms=int(f["created"]))  # fmt: skip

    async def done(self, table: Table) -> None:
        """Remove a completed (or abandoned) table and its tickets, at once: its tickets may
        then queue again, for another game."""
        q = table.queue
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(
                keys.match_table_key(q, table.id),
                *(keys.match_ticket_key(q, s.ticket) for s in table.seats),
            )
            pipe.zrem(keys.match_tables_key(q), table.id)
            await pipe.execute()

    async def waiting(self) -> dict[str, int]:
        """Tickets waiting per ruleset, over the queues used within ACTIVE_S (a metric)."""
        since = now_ms() - ACTIVE_S * 1000
        used = await self.redis.zrange(keys.MATCH_QUEUES, since, "+inf", byscore=True)
        queues = [q.decode() for q in used]
        async with self.redis.pipeline(transaction=False) as pipe:
            for q in queues:
                pipe.zcard(keys.match_waiting_key(q))
            counts = await pipe.execute()
        out: dict[str, int] = {}
        for q, n in zip(queues, counts, strict=True):
            ruleset = q.rsplit(":", 1)[0]  # match_queue's name: "<ruleset>:<digest>"
            out[ruleset] = out.get(ruleset, 0) + n
        return out

    async def stale(self, formed_before_ms: int) -> list[tuple[str, str]]:
        """(queue, table id) of the tables formed before `formed_before_ms` and not completed,
        in the queues used within ACTIVE_S (the registry forgets the others)."""
        now = now_ms()
        since = now - ACTIVE_S * 1000
        await self.redis.zremrangebyscore(keys.MATCH_QUEUES, "-inf", f"({since}")
        used = await self.redis.zrange(keys.MATCH_QUEUES, since, "+inf", byscore=True)
        queues = [q.decode() for q in used]
        async with self.redis.pipeline(transaction=False) as pipe:
            for q in queues:
                pipe.zrange(keys.match_tables_key(q), "-inf", formed_before_ms, byscore=True)
            found = await pipe.execute()
        return [(q, t.decode()) for q, ids in zip(queues, found, strict=True) for t in ids]
