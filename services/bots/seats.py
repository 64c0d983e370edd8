"""The bot seats: every one a record in the store, played by whichever instance holds its lease.

A seat is handed over once (`play`, the gateway's request): its token, its level and a secret
made here are recorded (`keys.bot_seat_key`) and the seat joins the set of unfinished seats.
From the secret the bot derives its client seed, its setup and nonce, its command ids and
each move's seed (services.client.bot.Seat): any instance that takes the seat up recomputes
exactly what it committed to and sends the same commands, applied once.

An instance plays a seat while it holds the seat's lease (SET NX with a TTL, renewed every
third of it); every third of a lease it looks for unfinished seats nobody holds (an instance
that died lets its leases lapse; one that stops lets them go at once) and takes them up, up to
LIMIT at a time. A seat is finished, and its record removed, when its game is sealed.

A bot acts through the same door as a player: the rules service, with its seat's token, from
its seat's view (the events the token opens); it never holds more.
"""

import asyncio
import contextlib
import secrets
import time
from typing import Final, cast

import redis.asyncio as aioredis
import structlog

from contracts.commands import BotSeated, PlaySeat, Reply
from contracts.errors import ErrorCode
from domain.core import table as tables
from services.bots.thinking import Thinkers
from services.client.bot import Seat, play_seat
from services.client.client import Client, TabulaError
from services.runtime import keys, metrics

log = structlog.get_logger()
LIMIT: Final = 500  # seats one instance plays at once (a seat waiting on a person costs little)
# Refusals that say the seat is not what was handed over (no such game, seat or token): for good.
NOT_ITS_SEAT: Final = frozenset({ErrorCode.UNKNOWN_GAME, ErrorCode.UNKNOWN_SEAT,
                                 ErrorCode.BAD_TOKEN})  # fmt: skip


def text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


class Bots:
    def __init__(self, client: Client, redis: "aioredis.Redis", thinkers: Thinkers,
                 lease_s: float = 30.0) -> None:  # fmt: skip
        self.client = client
        self.redis = redis
        self.thinkers = thinkers
        self.lease_s = lease_s
        self.owner = secrets.token_hex(8)  # this instance, as its leases name it
        self.playing: dict[tuple[str, int], asyncio.Task[None]] = {}
        self.stopping = False

    async def play(self, req: PlaySeat) -> Reply:
        """Record the seat (again: a retry changes nothing) and start playing it here."""
        key = keys.bot_seat_key(req.game_id, req.seat)
        await self.redis.hsetnx(key, "secret", secrets.token_hex(32))
        await self.redis.hset(key, mapping={"token": req.token, "level": str(req.level)})
        member = f"{req.game_id} {req.seat}"
        await self.redis.zadd(keys.BOT_SEATS, {member: int(time.time() * 1000)}, nx=True)
        if len(self.playing) < LIMIT and not self.stopping:
            await self._take(req.game_id, req.seat)
        return BotSeated(game_id=req.game_id, seat=req.seat, level=req.level)

    async def sweep(self) -> None:
        """Take up every unfinished seat nobody plays (up to LIMIT), oldest first."""
        members = cast(list[bytes], await self.redis.zrange(keys.BOT_SEATS, 0, -1))
        for raw in members:
            if len(self.playing) >= LIMIT:
                return
            game_id, _, seat = text(raw).partition(" ")
            if (game_id, int(seat)) not in self.playing:
                try:
                    await self._take(game_id, int(seat))
                except Exception as exc:  # noqa: BLE001  # one bad record stops no other seat
                    log.error("bot seat not resumed", game_id=game_id, seat=seat,
                              error=repr(exc))  # fmt: skip

    async def _take(self, game_id: str, seat: int) -> None:
        lease = keys.bot_lease_key(game_id, seat)
        if not await self.redis.set(lease, self.owner, nx=True, ex=self._ttl()):
            return  # another instance plays it
        record = {text(k): text(v) for k, v in
                  (await self.redis.hgetall(keys.bot_seat_key(game_id, seat))).items()}  # fmt: skip
        if not {"token", "level", "secret"} <= record.keys():
            log.error("bot seat without its record", game_id=game_id, seat=seat)
            await self._done(game_id, seat)
            await self._release(game_id, seat)
            return
        me = Seat(game_id, seat, bytes.fromhex(record["secret"]))
        task = asyncio.create_task(self._play(me, record["token"], int(record["level"])))
        self.playing[(game_id, seat)] = task
        metrics.BOT_SEATS.inc()

        def ended(_: asyncio.Task[None]) -> None:
            # However the task ends (its game over, the lease lost, cancelled at stop).
            self.playing.pop((game_id, seat), None)
            metrics.BOT_SEATS.dec()

        task.add_done_callback(ended)

    def _ttl(self) -> int:
        return max(1, round(self.lease_s))

    async def _play(self, me: Seat, token: str, level: int) -> None:
        game_id, seat = me.game_id, me.seat

        async def think(table: tables.Table, at_seat: int, version: int) -> str | None:
            started = time.perf_counter()
            seed = me.move_seed(version)
            log.info("thinking", game_id=game_id, seat=at_seat, bot_level=level, version=version)
            cpu_s = self.thinkers.budget_s(table, at_seat, int(time.time() * 1000))
            move = await self.thinkers.move(table.ruleset, table.game, at_seat, level, seed,
                                            cpu_s)  # fmt: skip
            elapsed = time.perf_counter() - started
            metrics.BOT_MOVES.labels(str(level), move.how).inc()
            metrics.BOT_THINK_SECONDS.labels(str(level)).observe(elapsed)
            metrics.BOT_THINK_CPU_SECONDS.labels(str(level)).observe(move.cpu_ms / 1000)
            # The budget and seed beside the action, here and not in the game's record: they
            # are the bot's business, as a person's reasons are theirs.
            log.info("bot chose", game_id=game_id, seat=at_seat, version=version, bot_level=level,
                     action=move.text, seed=move.seed, iterations=move.iterations,
                     how=move.how, cpu_ms=move.cpu_ms, ms=round(elapsed * 1000))  # fmt: skip
            return move.text

        play = asyncio.create_task(play_seat(self.client, game_id, seat, token,
                                             secret=me.secret, think=think))  # fmt: skip
        keep = asyncio.create_task(self._keep_lease(game_id, seat))
        try:
            await asyncio.wait({play, keep}, return_when=asyncio.FIRST_COMPLETED)
            if play.done():
                result = play.result()
                log.info("bot seat finished", game_id=game_id, seat=seat,
                         result=result.outcome.result, moves=result.moves)  # fmt: skip
                await self._done(game_id, seat)
            else:
                log.warning("bot lease lost", game_id=game_id, seat=seat)
        except TabulaError as exc:
            if exc.code in NOT_ITS_SEAT:  # handed over wrong: no sweep would ever play it
                log.error("bot seat given up", game_id=game_id, seat=seat, code=exc.code)
                await self._done(game_id, seat)
            else:  # the next sweep (here or elsewhere) resumes it
                log.error("bot stopped", game_id=game_id, seat=seat, error=repr(exc))
        except Exception as exc:  # noqa: BLE001  # one bot's failure is logged, never the service's
            # The seat stays unfinished: the next sweep (here or elsewhere) resumes it.
            log.error("bot stopped", game_id=game_id, seat=seat, error=repr(exc))
        finally:
            for task in (play, keep):
                task.cancel()
            await asyncio.gather(play, keep, return_exceptions=True)
            await self._release(game_id, seat)

    async def _done(self, game_id: str, seat: int) -> None:
        await self.redis.zrem(keys.BOT_SEATS, f"{game_id} {seat}")
        await self.redis.delete(keys.bot_seat_key(game_id, seat))

    async def _keep_lease(self, game_id: str, seat: int) -> None:
        """Renew the seat's lease while it is ours; return when it is not (this instance was
        too slow to renew it, and another may be playing the seat)."""
        lease = keys.bot_lease_key(game_id, seat)
        while True:
            await asyncio.sleep(self.lease_s / 3)  # the renewal period
            if text(await self.redis.get(lease) or b"") != self.owner:
                return
            await self.redis.expire(lease, self._ttl())

    async def _release(self, game_id: str, seat: int) -> None:
        """Let the seat go at once (not at the lease's end): an instance stopping hands its
        seats to the next sweep of another."""
        lease = keys.bot_lease_key(game_id, seat)
        with contextlib.suppress(Exception):  # the store away: the lease lapses by itself
            if text(await self.redis.get(lease) or b"") == self.owner:
                await self.redis.delete(lease)

    async def stop(self) -> None:
        self.stopping = True
        tasks = list(self.playing.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.thinkers.close()
