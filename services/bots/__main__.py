"""`python -m services.bots` (as many instances as you like: every seat lives in Valkey, and
each instance takes up the seats another left).

Settings: TABULA_BOTS_LEASE_S (default 30: how long a seat stays with an instance that has
stopped renewing it), TABULA_BOTS_THINKERS and TABULA_BOTS_MOVE_CPU_S
(services.bots.thinking). A setting not understood stops the service at start.
"""

import os

import redis.asyncio as aioredis
from nats.aio.client import Client as NATS

from contracts import subjects
from contracts.commands import PlaySeat
from services.bots import thinking
from services.bots.seats import Bots
from services.client.client import Client
from services.runtime import bus
from services.runtime.config import Settings
from services.runtime.service import ServiceApp, main


def lease_s() -> float:
    lease = float(os.environ.get("TABULA_BOTS_LEASE_S", "30"))
    if not 1 <= lease <= 3600:
        raise ValueError(f"TABULA_BOTS_LEASE_S is 1 to 3600 s, not {lease}")
    return lease


async def build(nc: NATS, redis: "aioredis.Redis", settings: Settings) -> ServiceApp:
    # A bot rides out an outage rather than failing its seat (TABULA_RETRY_DEADLINE_S).
    client = Client(nc, remember=False, retry_deadline=bus.retry_deadline_from_env())
    bots = Bots(client, redis, thinking.Thinkers(*thinking.settings(os.environ)), lease_s())
    app = ServiceApp(nc, subjects.BOTS_SERVICE, "Plays bot seats, at the level asked")
    app.endpoint("play", subjects.BOTS_PLAY, PlaySeat, bots.play, subjects.BOTS_QUEUE)
    app.every(bots.lease_s / 3, bots.sweep)
    app.on_intake_stopped.append(bots.stop)  # its seats go to another instance at once
    return app


if __name__ == "__main__":
    main(build)
