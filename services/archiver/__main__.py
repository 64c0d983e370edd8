"""`python -m services.archiver` (DATABASE_URL: PostgreSQL as the `archiver` role)."""

import os

import redis.asyncio as aioredis
from nats.aio.client import Client as NATS

from contracts import subjects
from services.archiver.archive import Archiver, Notice, bus_forget
from services.runtime import config
from services.runtime.config import ConfigError, Settings
from services.runtime.service import ServiceApp, main


async def build(nc: NATS, redis: "aioredis.Redis", settings: Settings) -> ServiceApp:
    if not settings.database_url:
        raise ConfigError("the archiver needs DATABASE_URL (PostgreSQL as the archiver role)")
    archiver = Archiver(redis, settings.database_url, bus_forget(nc))
    await archiver.connection()  # fail fast on a wrong URL or password
    app = ServiceApp(nc, subjects.ARCHIVER_SERVICE, "Copies sealed games into PostgreSQL")
    wire(app, archiver, settings.archive_s)
    return app


def wire(app: ServiceApp, archiver: Archiver, archive_s: float) -> None:
    """A GameSealed notice marks its game to archive; one worker archives the marked games a
    batch at a time. The sweep (at start, then every `archive_s`) finds what a notice missed:
    sealed while the archiver was down, or lost, or not removed. The worker runs in a task the
    drain waits for: a SIGTERM finishes the batch in hand and starts no other."""

    archiver.spawn = app.spawn
    app.on_drain.append(archiver.stop)
    app.follow(subjects.all_games_sealed(), Notice, archiver.noticed)
    app.every(archive_s, archiver.sweep)
    app.on_close.append(archiver.close)


if __name__ == "__main__":
    # Its own process only (not a test's that builds it): under a full CPU, the services that
    # answer players go first, and the backlog drains when the load falls (make bench-archive).
    os.nice(config.load().archiver_nice)
    main(build)
