"""A NATS micro service with typed endpoints, one error-to-reply mapping and a clean drain.

nats-py runs a subscription's callback one message at a time, so each request is handled in its
own task: concurrent requests then overlap, and the event store can group-commit their appends.
"""

import asyncio
import contextlib
import signal
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import msgspec
import redis.asyncio as aioredis
import structlog
import uvloop
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.micro import add_service
from nats.micro.request import Request as MicroRequest
from nats.micro.service import EndpointConfig, Service, ServiceConfig

from contracts.commands import MAX_REQUEST_BYTES, Error, Reply, Request
from contracts.errors import ErrorCode
from services.runtime import bus, config, eventstore, logging
from services.runtime.config import Settings

R = TypeVar("R", bound=Request)
M = TypeVar("M")
log = structlog.get_logger()
_encoder = msgspec.json.Encoder()


class ServiceApp:
    def __init__(self, nc: NATS, name: str, description: str, version: str = "0.1.0") -> None:
        self.nc = nc
        self.config = ServiceConfig(name=name, version=version, description=description)
        self.service: Service | None = None
        self.inflight: set[asyncio.Task[None]] = set()
        self.on_close: list[Callable[[], Awaitable[None]]] = []  # run after the drain
        self._endpoints: list[EndpointConfig] = []
        self._follows: list[tuple[str, Callable[[Msg], Awaitable[None]]]] = []
        self._subscriptions: list[Subscription] = []

    def endpoint(
        self,
        name: str,
        subject: str,
        request_type: type[R],
        handler: Callable[[R], Awaitable[Reply]],
        queue_group: str,
    ) -> None:
        decoder = msgspec.json.Decoder(request_type)

        async def answer(data: bytes) -> Reply:
            if len(data) > MAX_REQUEST_BYTES:  # refused whole, before decoding
                return Error(code=ErrorCode.TOO_LARGE,
                             reason=f"a request is at most {MAX_REQUEST_BYTES} bytes")  # fmt: skip
            try:
                request = decoder.decode(data)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                return Error(code=ErrorCode.MALFORMED, reason=str(exc))
            for key in ("game_id", "command_id"):
                if (value := getattr(request, key, None)) is not None:
                    structlog.contextvars.bind_contextvars(**{key: value})
            try:
                return await handler(request)
            except Exception:
                log.exception("handler failed")
                return Error(code=ErrorCode.INTERNAL, reason="internal error; see logs")

        async def handle(msg: MicroRequest) -> None:
            started = time.perf_counter()
            # Each request runs in its own task, whose context starts empty: bind, never clear.
            structlog.contextvars.bind_contextvars(endpoint=name)
            reply = await answer(msg.data)
            with contextlib.suppress(Exception):  # no reply subject, or requester gone
                await msg.respond(_encoder.encode(reply))
            ms = round((time.perf_counter() - started) * 1000, 3)
            if isinstance(reply, Error):
                log.warning(
                    "rejected", code=reply.code, reason=reply.reason, clause=reply.clause, ms=ms
                )
            else:
                log.info("handled", reply=type(reply).__name__, ms=ms)

        async def spawn(request: MicroRequest) -> None:
            task = asyncio.create_task(handle(request))
            self.inflight.add(task)
            task.add_done_callback(self.inflight.discard)

        self._endpoints.append(
            EndpointConfig(name=name, subject=subject, handler=spawn, queue_group=queue_group)
        )

    def follow(self, subject: str, message_type: type[M], handler: Callable[[M], None]) -> None:
        """Also consume notifications (every instance gets each; not part of micro stats)."""
        decoder = msgspec.json.Decoder(message_type)

        async def on_msg(msg: Msg) -> None:
            try:
                handler(decoder.decode(msg.data))
            except Exception:
                log.exception("notification handler failed", subject=msg.subject)

        self._follows.append((subject, on_msg))

    async def start(self) -> None:
        self.service = await add_service(self.nc, self.config)
        for endpoint in self._endpoints:
            await self.service.add_endpoint(endpoint)
        for subject, cb in self._follows:
            self._subscriptions.append(await self.nc.subscribe(subject, cb=cb))
        await self.nc.flush()
        log.info("service started", service=self.config.name, id=self.service.id)

    async def drain(self, timeout: float = 10.0) -> None:
        """Stop intake, finish in-flight requests under a timeout, cancel stragglers."""
        if self.service is not None:
            await self.service.stop()
        for sub in self._subscriptions:
            await sub.unsubscribe()
        if self.inflight:
            _done, pending = await asyncio.wait(set(self.inflight), timeout=timeout)
            for task in pending:
                task.cancel()
            if pending:
                log.warning("cancelled requests still running at drain", count=len(pending))


def install_signal_handlers(stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)


Build = Callable[[NATS, "aioredis.Redis", Settings], Awaitable[ServiceApp]]


async def serve(
    build: Build, settings: Settings, stop: asyncio.Event, ready: asyncio.Event | None = None
) -> None:
    """Connect, build the service, serve until `stop`, then drain and close in order."""
    # no_echo: a service never hears its own publishes (the rules service follows committed
    # events to keep its cache current; its own are applied already). No service needs them.
    nc = await bus.connect(settings.nats_url, max_reconnect_attempts=-1, no_echo=True)
    redis = eventstore.connect(settings.redis_url)
    app: ServiceApp | None = None
    try:
        app = await build(nc, redis, settings)
        await app.start()
        if ready is not None:
            ready.set()
        await stop.wait()
        log.info("draining", service=app.config.name)
        await app.drain()
        await nc.drain()
    finally:
        if app is not None:
            for close in app.on_close:
                await close()
        await redis.aclose()
        if not nc.is_closed:
            await nc.close()
        log.info("stopped", service=app.config.name if app else "?")


def main(build: Build) -> None:
    """The composition root every service shares: settings, logging, signals, uvloop."""

    async def _main() -> None:
        settings = config.load()
        logging.configure(settings.log_level, settings.json_logs)
        stop = asyncio.Event()
        install_signal_handlers(stop)
        await serve(build, settings, stop)

    uvloop.run(_main())
