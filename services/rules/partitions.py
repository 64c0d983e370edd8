"""Game affinity: each game's actions reach one rules replica at a time.

A game's actions are sent to subjects.rules_act(game_id); the bus maps that to the game's
partition (subjects.ACT_MAPPING: a hash of the game id the NATS server computes, the same on
every node). Each partition is leased in Valkey to one replica (a key holding its id, expiring
LEASE_MS after its last renewal), which alone subscribes to it. So replicas do not race on a
game, and each keeps a hot cache of its own games.

Every PERIOD_S each replica renews its leases and takes its share, ceil(partitions / live
replicas), live meaning seen in the registry within LEASE_MS (by the store's clock, one for
all). What is beyond its share it offers (the lease's value marked so) and goes on serving
until another replica takes it, so no partition is without a replica while they rebalance: for
up to a period both serve it, in one queue group, so each request still reaches one. It takes
free and offered partitions up to its share, so a replica that joins gets some, and a dead
replica's are taken within LEASE_MS and a period. A draining replica gives its leases back at
once.

A lease is for speed, not safety: two replicas serving one game meet at the store's
expected-version check, as before (a typed conflict, never a fork), and a request sent while a
partition has no replica (a dead one's, until its leases lapse) finds no responder, which the
requester retries.
"""

import zlib
from collections.abc import Awaitable, Callable
from typing import Any, Final

import redis.asyncio as aioredis
import structlog

from contracts import subjects
from services.runtime import keys, metrics

log = structlog.get_logger()

LEASE_MS: Final = 3000
PERIOD_S: Final = 1.0
Serve = Callable[[int], Awaitable[None]]  # starts or stops serving a partition

# Only the holder renews, offers or gives back a lease (another may hold it once it lapsed);
# an offered lease's value is "~" and its holder's.
_RENEW = """
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] or v == '~' .. ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_OFFER = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('SET', KEYS[1], '~' .. ARGV[1], 'KEEPTTL') and 1
end
return 0
"""
# A free or offered lease (its own offer too: taken back) becomes the taker's.
_TAKE = """
local v = redis.call('GET', KEYS[1])
if not v or string.sub(v, 1, 1) == '~' then
  return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) and 1
end
return 0
"""
_RELEASE = """
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] or v == '~' .. ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class Partitions:
    """One replica's leases. `gain(p)` starts serving partition p, `lose(p)` stops."""

    def __init__(
        self,
        redis: "aioredis.Redis",
        replica: str,
        gain: Serve,
        lose: Serve,
        connected: Callable[[], bool] = lambda: True,
        count: int = subjects.ACT_PARTITIONS,
        lease_ms: int = LEASE_MS,
    ) -> None:
        # Any: redis-py types every reply as bytes | str | ...; this client is bytes-mode.
        self.redis: Any = redis
        self.replica = replica
        self.gain, self.lose = gain, lose
        self.connected = connected  # its bus: a replica cut off from it serves nothing
        self.count = count
        self.lease_ms = lease_ms
        self.owned: set[int] = set()  # served: held or offered
        self.offered: set[int] = set()
        self._renew = redis.register_script(_RENEW)
        self._offer = redis.register_script(_OFFER)
        self._take = redis.register_script(_TAKE)
        self._release = redis.register_script(_RELEASE)
        # Where this replica starts looking: replicas spread over the partitions.
        start = zlib.crc32(replica.encode()) % count
        self.order = [(start + i) % count for i in range(count)]

    async def live(self) -> int:
        """The replicas seen within a lease (this one included), recording this one."""
        seconds, micros = await self.redis.time()
        now = seconds * 1000 + micros // 1000
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(keys.RULES_REPLICAS, {self.replica: now})
        pipe.zremrangebyscore(keys.RULES_REPLICAS, "-inf", now - self.lease_ms)
        pipe.zcard(keys.RULES_REPLICAS)
        *_, count = await pipe.execute()
        return max(1, int(count))

    async def tick(self) -> None:
        try:
            await self._tick()
        finally:
            self._report()

    async def _tick(self) -> None:
        if not self.connected():  # nor counts in the others' shares, which take its partitions
            if self.owned:
                log.warning("bus away: partitions given back", partitions=len(self.owned))
            await self.release()
            return
        share = -(-self.count // await self.live())
        me, ms = self.replica, self.lease_ms
        for p in sorted(self.owned):
            if not await self._renew(keys=[keys.act_lease_key(p)], args=[me, ms]):
                if p in self.offered:
                    log.info("partition handed over", partition=p)
                else:
                    log.warning("partition lease lost", partition=p)
                await self._drop(p)
        held = sorted(self.owned - self.offered, key=self.order.index)
        for p in held[share:]:
            if await self._offer(keys=[keys.act_lease_key(p)], args=[me]):
                self.offered.add(p)
                log.info("partition offered", partition=p)
        for p in self.order:
            if len(self.owned) - len(self.offered) >= share:
                break
            if p in self.owned and p not in self.offered:
                continue
            if not await self._take(keys=[keys.act_lease_key(p)], args=[me, ms]):
                continue
            if p in self.offered:  # its own offer, not yet taken: held again, still served
                self.offered.discard(p)
                continue
            try:
                await self.gain(p)
            except BaseException:  # not served: leave it to another replica
                await self._release(keys=[keys.act_lease_key(p)], args=[self.replica])
                raise
            self.owned.add(p)
            log.info("partition taken", partition=p, share=share)

    async def release(self) -> None:
        """Give every lease back (the drain): another replica takes them on its next tick."""
        for p in sorted(self.owned):
            await self._give_back(p)
        self._report()
        await self.redis.zrem(keys.RULES_REPLICAS, self.replica)

    def _report(self) -> None:
        partitions = metrics.RULES_PARTITIONS
        partitions.labels(self.replica, "held").set(len(self.owned - self.offered))
        partitions.labels(self.replica, "offered").set(len(self.offered))

    async def _give_back(self, p: int) -> None:
        await self._drop(p)
        await self._release(keys=[keys.act_lease_key(p)], args=[self.replica])
        log.info("partition given back", partition=p)

    async def _drop(self, p: int) -> None:
        self.owned.discard(p)
        self.offered.discard(p)
        await self.lose(p)
