"""`python -m services.gateway`: the public door on TABULA_GATEWAY_HOST:TABULA_GATEWAY_PORT
(default 127.0.0.1:8000), as the bus's and the store's `gateway` user.

The door's settings (services.gateway.door: trusted proxies, allowed hosts, the header
timeout) are read once here; a setting not understood stops the gateway at start.

SIGTERM (or Ctrl-C) stops intake; uvicorn lets requests in flight finish and closes each
WebSocket (1012, service restart: the page reconnects and resumes from its last version); then
the bus and the store are closed.
"""

import asyncio
import contextlib
import os
import socket
import sys
from collections.abc import AsyncIterator

import structlog
import uvicorn
import uvloop

from services.client.client import Client
from services.gateway.app import Gateway, build_app
from services.gateway.door import Door, default_hosts, door, head_timeout
from services.gateway.lobby import Lobby
from services.gateway.people import Accounts, Limits, RateLimits, Sessions
from services.gateway.play import BotDesk, Play
from services.gateway.queue import BOT_AFTER_S, Queue
from services.runtime import bus, config, eventstore, logging
from services.runtime.config import Settings

log = structlog.get_logger()


@contextlib.asynccontextmanager
async def serving(
    settings: Settings,
    sock: socket.socket,
    limits: Limits | None = None,
    door_config: Door | None = None,
    queue_bot_after_s: float | None = None,
) -> AsyncIterator[tuple[uvicorn.Server, asyncio.Task[None]]]:
    """The gateway on a listening socket, serving once entered (connections wait in the
    socket's backlog until uvicorn takes them): the server and its task, which ends on SIGTERM
    or Ctrl-C; stopped and closed on exit. `queue_bot_after_s` (default
    TABULA_GATEWAY_QUEUE_BOT_AFTER_S, else queue.BOT_AFTER_S): how long a person waits in the
    queue before bots join it (0: never)."""
    door_config = door_config or Door.from_env(os.environ)
    hosts = door_config.hosts(sock)  # before connecting: a ValueError says what to configure
    nc = await bus.connect(settings.nats_url, name="tabula-gateway", max_reconnect_attempts=-1,
                           error_cb=bus.log_bus_error)  # fmt: skip
    redis = eventstore.connect(settings.redis_url)
    client = Client(nc, remember=False, retries=3)  # a person's request: answered soon
    lobby = Lobby(redis, client, database_url=settings.database_url)
    started = asyncio.Event()
    limits = limits or Limits.parse(os.environ.get("TABULA_GATEWAY_LIMITS", "600,10,50"))
    bots = BotDesk(client, lobby)
    if queue_bot_after_s is None:
        queue_bot_after_s = float(os.environ.get("TABULA_GATEWAY_QUEUE_BOT_AFTER_S", BOT_AFTER_S))
    queue = Queue(client, lobby, bot_after_s=queue_bot_after_s, hand_over=bots.hand)
    gateway = Gateway(Sessions(redis), Accounts(redis), RateLimits(redis), limits, lobby,
                      Play(client, lobby), bots, queue)  # fmt: skip
    app = build_app(gateway)
    app.on_startup.append(started.set)
    proxies = list(door_config.trusted_proxies)
    config = uvicorn.Config(door(app, hosts), log_config=None, lifespan="on",
                            ws="websockets-sansio", http=head_timeout(door_config.header_timeout_s),
                            proxy_headers=bool(proxies),
                            forwarded_allow_ips=proxies or None)  # fmt: skip
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve([sock]))
    waiter = asyncio.create_task(started.wait())
    await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    waiter.cancel()
    try:
        if task.done():
            task.result()  # raises what stopped it from starting
        bots.begin()  # hand over the bot seats a gateway that died could not
        await queue.begin()  # seat its share of the assignments, cancel unseen places
        yield server, task
    finally:
        server.should_exit = True
        await task
        await bots.stop()
        await queue.close()
        await lobby.close()
        await redis.aclose()
        await nc.drain()


def listen(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    return sock


def main() -> None:
    async def _main() -> int:
        settings = config.load()
        logging.configure(settings.log_level, settings.json_logs)
        host = os.environ.get("TABULA_GATEWAY_HOST", "127.0.0.1")
        port = int(os.environ.get("TABULA_GATEWAY_PORT", "8000"))
        try:
            door_config = Door.from_env(os.environ)
            if door_config.allowed_hosts is None:
                default_hosts(host)
        except ValueError as exc:
            log.error("cannot start", error=str(exc))
            return 2
        try:
            sock = listen(host, port)
        except OSError as exc:
            log.error("cannot listen", host=host, port=port, error=exc.strerror)
            return 2
        async with serving(settings, sock, door_config=door_config) as (_, task):
            log.info("serving", url=f"http://{host}:{port}/")
            await task
        log.info("stopped", service="gateway")
        return 0

    sys.exit(uvloop.run(_main()))


if __name__ == "__main__":
    main()
