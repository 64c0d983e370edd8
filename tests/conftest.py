"""Real servers for the whole session: nats-server and Valkey from their wheels on free ports,
or NATS_URL / REDIS_URL when set. Never a fake, never a mock."""

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from services.client.client import Client
from services.runtime.config import Settings
from services.runtime.embedded import Server, start_nats, start_valkey
from services.runtime.eventstore import EventStore
from services.runtime.service import Build, serve


@dataclass
class Servers:
    nats_url: str
    redis_url: str


@pytest.fixture(scope="session")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    started: list[Server] = []
    nats_url = os.environ.get("NATS_URL")
    redis_url = os.environ.get("REDIS_URL")
    try:
        if not nats_url:
            started.append(start_nats(tmp_path_factory.mktemp("nats")))
            nats_url = started[-1].url
        if not redis_url:
            started.append(start_valkey())
            redis_url = started[-1].url
        yield Servers(nats_url, redis_url)
    finally:
        for s in started:
            s.stop()


@pytest.fixture(scope="session")
def settings(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings(
        nats_url=servers.nats_url,
        redis_url=servers.redis_url,
        home=Path(tmp_path_factory.mktemp("home")),
        secret="test-secret",
        log_level="warning",
        json_logs=True,
    )


@pytest.fixture
async def redis(servers: Servers) -> AsyncIterator["aioredis.Redis"]:
    client = aioredis.from_url(servers.redis_url)
    yield client
    await client.aclose()


@pytest.fixture
async def store(servers: Servers) -> AsyncIterator[EventStore]:
    s = EventStore.from_url(servers.redis_url)
    yield s
    await s.close()


@contextlib.asynccontextmanager
async def running(build: Build, settings: Settings) -> AsyncIterator[asyncio.Task[None]]:
    """A service in this process, ready when entered, drained on exit."""
    stop, ready = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(build, settings, stop, ready))
    waiter = asyncio.create_task(ready.wait())
    await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        waiter.cancel()
        task.result()  # raises the startup error
    try:
        yield task
    finally:
        stop.set()
        await task


@pytest.fixture
async def stack(settings: Settings) -> AsyncIterator[Settings]:
    """Rules, randomness and matchmaking, in-process, against the session's servers."""
    from services.matchmaking.__main__ import build as matchmaking
    from services.randomness.__main__ import build as randomness
    from services.rules.__main__ import build as rules

    async with (
        running(rules, settings),
        running(randomness, settings),
        running(matchmaking, settings),
    ):
        yield settings


@pytest.fixture
async def client(stack: Settings) -> AsyncIterator[Client]:
    c = await Client.connect(stack.nats_url)
    yield c
    await c.close()
