"""The archive's whole flow (issue 21): a rules service that reads the archive as its own
PostgreSQL role (and so answers Forget), beside randomness and matchmaking; and an archiver
whose Forget goes over the bus, each service as its own user."""

import dataclasses
from collections.abc import AsyncIterator, Callable

import pytest
import redis.asyncio as aioredis

from services.archiver.archive import Archiver, bus_forget
from services.runtime import bus
from services.runtime.config import Settings
from tests.conftest import Postgres, running


@pytest.fixture
async def archive_stack(
    postgres: Postgres, role_settings: Callable[[str], Settings]
) -> AsyncIterator[Callable[[str], Settings]]:
    """Rules (DATABASE_URL: PostgreSQL as `rules`), randomness and matchmaking, in-process;
    yields settings per role. Not beside `stack`: a rules replica without the archive in the
    same queue group would answer some of the requests."""
    from services.matchmaking.__main__ import build as matchmaking
    from services.randomness.__main__ import build as randomness
    from services.rules.__main__ import build as rules

    with_archive = dataclasses.replace(role_settings("rules"), database_url=postgres.url("rules"))
    async with (
        running(rules, with_archive),
        running(randomness, role_settings("randomness")),
        running(matchmaking, role_settings("matchmaking")),
    ):
        yield role_settings


@pytest.fixture
async def forgetting_archiver(
    archive_stack: Callable[[str], Settings], postgres: Postgres
) -> AsyncIterator[Archiver]:
    """An archiver as its own users (Valkey, PostgreSQL, NATS) whose Forget goes over the bus to
    the rules service of `archive_stack`."""
    settings = archive_stack("archiver")
    redis = aioredis.from_url(settings.redis_url)
    nc = await bus.connect(settings.nats_url)
    a = Archiver(redis, postgres.url("archiver"), bus_forget(nc, timeout=10.0))
    yield a
    await a.close()
    await nc.close()
    await redis.aclose()
