"""`python -m services.matchmaking` (as many instances as you like: the queues live in Valkey,
and each instance completes the tables another left behind)."""

import redis.asyncio as aioredis
from nats.aio.client import Client as NATS

from contracts import subjects
from contracts.commands import Cancel, Enqueue
from services.matchmaking.handlers import SWEEP_S, Matchmaker
from services.runtime.config import Settings
from services.runtime.service import ServiceApp, main


async def build(nc: NATS, redis: "aioredis.Redis", settings: Settings) -> ServiceApp:
    mm = Matchmaker(nc, redis)
    app = ServiceApp(nc, subjects.MATCH_SERVICE, "Pairs players into games")
    app.endpoint("enqueue", subjects.MATCH_ENQUEUE, Enqueue, mm.enqueue, subjects.MATCH_QUEUE)
    app.endpoint("cancel", subjects.MATCH_CANCEL, Cancel, mm.cancel, subjects.MATCH_QUEUE)
    app.every(SWEEP_S, mm.sweep)
    return app


if __name__ == "__main__":
    main(build)
