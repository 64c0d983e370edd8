"""`python -m services.projector` (DATABASE_URL: PostgreSQL as the `projector` role)."""

import redis.asyncio as aioredis
from nats.aio.client import Client as NATS

from contracts import subjects
from services.projector.projections import Notice, Projector
from services.projector.ratings import RATINGS_S, RatingsPass
from services.runtime.archived import ArchiveReader
from services.runtime.config import ConfigError, Settings
from services.runtime.eventstore import EventStore
from services.runtime.service import ServiceApp, main


async def build(nc: NATS, redis: "aioredis.Redis", settings: Settings) -> ServiceApp:
    if not settings.database_url:
        raise ConfigError("the projector needs DATABASE_URL (PostgreSQL as the projector role)")
    # Logs are read hot, or from the archive once their game has left Valkey.
    archive = ArchiveReader(settings.database_url)
    projector = Projector(EventStore(redis, archive=archive), redis, settings.database_url)
    await projector.connection()  # fail fast on a wrong URL or password
    app = ServiceApp(nc, subjects.PROJECTOR_SERVICE, "Projects the logs into the read model")
    wire(app, projector, settings.project_s)
    wire_ratings(app, RatingsPass(projector.store, settings.database_url))
    app.on_close.append(archive.close)
    return app


def wire(app: ServiceApp, projector: Projector, project_s: float) -> None:
    """A notice marks its game to catch up; one worker drains the marked games, so a burst of
    notices of one game is one transaction. The sweep (at start, then every `project_s`) finds
    what notices missed. The worker runs in a task the drain waits for: a SIGTERM finishes the
    games marked (within the drain's time) and takes no notice more."""

    projector.spawn = app.spawn
    app.follow(subjects.all_game_events(), Notice, projector.noticed)
    app.every(project_s, projector.sweep)
    app.on_close.append(projector.close)


def wire_ratings(app: ServiceApp, ratings: RatingsPass, ratings_s: float = RATINGS_S) -> None:
    """The ratings pass (at start, then every `ratings_s`): the games ended more than SETTLE_S
    ago, past its position, applied in order on a connection of its own."""
    app.every(ratings_s, ratings.run)
    app.on_close.append(ratings.close)


if __name__ == "__main__":
    main(build)
