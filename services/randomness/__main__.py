"""`python -m services.randomness`."""

import redis.asyncio as aioredis
from nats.aio.client import Client as NATS

from contracts import subjects
from contracts.commands import CreateSeed, Draw, ForgetSeed, RevealSeed
from services.randomness.handlers import Randomness
from services.runtime.config import Settings
from services.runtime.service import ServiceApp, main


async def build(nc: NATS, redis: "aioredis.Redis", settings: Settings) -> ServiceApp:
    service = Randomness(redis)
    app = ServiceApp(nc, subjects.RANDOM_SERVICE, "Committed per-game seeds; dice and shuffles")
    app.endpoint("seed", subjects.RANDOM_SEED, CreateSeed, service.seed, subjects.RANDOM_QUEUE)
    app.endpoint("draw", subjects.RANDOM_DRAW, Draw, service.draw, subjects.RANDOM_QUEUE)
    app.endpoint("reveal", subjects.RANDOM_REVEAL, RevealSeed, service.reveal,
                 subjects.RANDOM_QUEUE)  # fmt: skip
    app.endpoint("forget", subjects.RANDOM_FORGET, ForgetSeed, service.forget,
                 subjects.RANDOM_QUEUE)  # fmt: skip
    return app


if __name__ == "__main__":
    main(build)
