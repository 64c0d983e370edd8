"""`python -m services.matchmaking` (one instance: its queues live in the process)."""

import redis.asyncio as aioredis
from nats.aio.client import Client as NATS

from contracts import subjects
from contracts.commands import Cancel, Enqueue
from services.matchmaking.handlers import Matchmaker
from services.runtime.config import Settings
from services.runtime.service import ServiceApp, main


async def build(nc: NATS, redis: "aioredis.Redis", settings: Settings) -> ServiceApp:
    mm = Matchmaker(nc)
    app = ServiceApp(nc, subjects.MATCH_SERVICE, "Pairs players into games")
    app.endpoint("enqueue", subjects.MATCH_ENQUEUE, Enqueue, mm.enqueue, subjects.MATCH_QUEUE)
    app.endpoint("cancel", subjects.MATCH_CANCEL, Cancel, mm.cancel, subjects.MATCH_QUEUE)
    return app


if __name__ == "__main__":
    main(build)
