"""A NATS micro service with typed endpoints, one error-to-reply mapping and a clean drain.

nats-py runs a subscription's callback one message at a time, so each request is handled in its
own task: concurrent requests then overlap, and the event store can group-commit their appends.
"""

import asyncio
import contextlib
import signal
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import msgspec
import redis.asyncio as aioredis
import structlog
import uvloop
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.errors import Error as NATSError
from nats.micro import add_service
from nats.micro.request import Request as MicroRequest
from nats.micro.service import EndpointConfig, Service, ServiceConfig

from contracts.commands import MAX_REQUEST_BYTES, Error, Reply, Request
from contracts.errors import ErrorCode
from services.runtime import bus, config, eventstore, logging, metrics
from services.runtime.config import Settings

R = TypeVar("R", bound=Request)
M = TypeVar("M")
log = structlog.get_logger()
_encoder = msgspec.json.Encoder()
DRAIN_S = 10.0  # in-flight requests finish within this, then the service exits regardless


class ServiceApp:
    def __init__(self, nc: NATS, name: str, description: str, version: str = "0.1.0") -> None:
        self.nc = nc
        self.config = ServiceConfig(name=name, version=version, description=description)
        self.service: Service | None = None
        self.inflight: set[asyncio.Task[None]] = set()
        self.on_close: list[Callable[[], Awaitable[None]]] = []  # run after the drain
        self.on_drain: list[Callable[[], None]] = []  # told first when the drain begins
        # Run once the intake has stopped, before in-flight requests are waited for: what
        # another instance should take over at once (a rules replica's partitions).
        self.on_intake_stopped: list[Callable[[], Awaitable[None]]] = []
        self._endpoints: list[EndpointConfig] = []
        self._micro: dict[str, Any] = {}  # endpoint name -> nats.micro's Endpoint (its stats)
        self._follows: list[tuple[str, Callable[[Msg], Awaitable[None]]]] = []
        self._subscriptions: list[Subscription] = []
        self._jobs: list[tuple[float, Callable[[], Awaitable[None]]]] = []
        self._running_jobs: list[asyncio.Task[None]] = []
        self._handlers: dict[str, Callable[[Msg], Awaitable[None]]] = {}  # endpoint -> intake

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
            except eventstore.UNKNOWN_OUTCOME as exc:  # an append's is answered by the handler
                log.warning("store unavailable", error=repr(exc))
                return Error(code=ErrorCode.UNAVAILABLE,
                             reason="the store is unavailable; retry the same request")  # fmt: skip
            except Exception:
                log.exception("handler failed")
                return Error(code=ErrorCode.INTERNAL, reason="internal error; see logs")

        service = self.config.name
        in_flight = metrics.IN_FLIGHT.labels(service)
        seconds = metrics.REQUEST_SECONDS.labels(service, name)

        async def handle(msg: MicroRequest | Msg) -> None:
            started = time.perf_counter()
            # Each request runs in its own task, whose context starts empty: bind, never clear.
            structlog.contextvars.bind_contextvars(endpoint=name)
            with in_flight.track_inprogress():
                reply = await answer(msg.data)
                with contextlib.suppress(Exception):  # no reply subject, or requester gone
                    await msg.respond(_encoder.encode(reply))
            elapsed = time.perf_counter() - started
            seconds.observe(elapsed)
            self._count(name, reply, elapsed)
            ms = round(elapsed * 1000, 3)
            if isinstance(reply, Error):
                log.warning(
                    "rejected", code=reply.code, reason=reply.reason, clause=reply.clause, ms=ms
                )
            else:
                log.info("handled", reply=type(reply).__name__, ms=ms)

        async def spawn(request: MicroRequest | Msg) -> None:
            self.spawn(handle(request))

        self._handlers[name] = spawn
        self._endpoints.append(
            EndpointConfig(name=name, subject=subject, handler=spawn, queue_group=queue_group)
        )

    def _count(self, name: str, reply: Reply, elapsed: float) -> None:
        """A request's outcome, in the metrics and in $SRV.STATS. nats.micro counts a request
        as an error only when its handler raises, and times only the handler, which here
        hands the request to a task at once: its figures are set here instead (it keeps them
        in private fields), so STATS counts every refusal and error, with the time taken."""
        code = reply.code if isinstance(reply, Error) else metrics.OK
        metrics.REQUESTS.labels(self.config.name, name, code).inc()
        if (endpoint := self._micro.get(name)) is None:
            return
        if isinstance(reply, Error):
            endpoint._num_errors += 1
            endpoint._last_error = f"{reply.code}: {reply.reason}"
        endpoint._processing_time += int(elapsed * 1e9)
        endpoint._average_processing_time = endpoint._processing_time // max(
            1, endpoint._num_requests
        )

    async def attach(self, name: str, subject: str, queue_group: str) -> Subscription:
        """Also serve endpoint `name` on `subject`, from now until detach (or the drain): a
        subscription taken and given back while the service runs (a rules replica's
        partitions), counted in the endpoint's metrics and $SRV.STATS as its own requests."""
        intake = self._handlers[name]

        async def on_msg(msg: Msg) -> None:
            if (endpoint := self._micro.get(name)) is not None:
                endpoint._num_requests += 1  # nats.micro counts only its own subscription's
            await intake(msg)

        sub = await self.nc.subscribe(subject, queue=queue_group, cb=on_msg)
        self._subscriptions.append(sub)
        return sub

    async def detach(self, sub: Subscription) -> None:
        """Stop serving what `attach` subscribed (requests already taken are answered)."""
        if sub in self._subscriptions:
            self._subscriptions.remove(sub)
        with contextlib.suppress(NATSError):
            await sub.unsubscribe()

    def follow(self, subject: str, message_type: type[M], handler: Callable[[M], None]) -> None:
        """Also consume notifications (every instance gets each; not part of micro stats)."""
        decoder = msgspec.json.Decoder(message_type)

        async def on_msg(msg: Msg) -> None:
            try:
                handler(decoder.decode(msg.data))
            except Exception:
                log.exception("notification handler failed", subject=msg.subject)

        self._follows.append((subject, on_msg))

    def spawn(self, work: "Coroutine[Any, Any, None]") -> "asyncio.Task[None]":
        """Run `work` in a task the drain waits for (within its time), as a request's."""
        task = asyncio.create_task(work)
        self.inflight.add(task)
        task.add_done_callback(self.inflight.discard)
        return task

    def every(self, seconds: float, job: Callable[[], Awaitable[None]]) -> None:
        """Also run `job` at start and then every `seconds`, until the drain (a failure is
        logged, and the job runs again next time)."""
        self._jobs.append((seconds, job))

    async def _repeat(self, seconds: float, job: Callable[[], Awaitable[None]]) -> None:
        while True:
            try:
                await job()
            except Exception:
                log.exception("periodic job failed", job=getattr(job, "__name__", "?"))
            await asyncio.sleep(seconds)  # the job's period

    async def start(self) -> None:
        self.service = await add_service(self.nc, self.config)
        for endpoint in self._endpoints:
            await self.service.add_endpoint(endpoint)
            self._micro[endpoint.name] = self.service._endpoints[-1]  # the one just added
        for subject, cb in self._follows:
            self._subscriptions.append(await self.nc.subscribe(subject, cb=cb))
        await self.nc.flush()
        self._running_jobs = [asyncio.create_task(self._repeat(*job)) for job in self._jobs]
        log.info("service started", service=self.config.name, id=self.service.id)

    async def drain(self, timeout: float = DRAIN_S) -> None:
        """Stop intake, finish in-flight requests under a timeout, cancel stragglers."""
        for begin in self.on_drain:
            begin()
        for task in self._running_jobs:
            task.cancel()
        if self._running_jobs:  # a job that does not end on its cancel is left, and named
            _, stuck = await asyncio.wait(self._running_jobs, timeout=timeout / 2)
            if stuck:
                log.error("periodic jobs still running at drain", count=len(stuck),
                          jobs=[repr(t.get_coro()) for t in stuck])  # fmt: skip
        if self.nc.is_connected:  # else nothing arrives, and unsubscribing waits on the bus
            with contextlib.suppress(TimeoutError):  # the bus went away meanwhile
                async with asyncio.timeout(timeout / 2):
                    if self.service is not None:
                        await self.service.stop()
                    for sub in self._subscriptions:
                        await sub.unsubscribe()
        for handover in self.on_intake_stopped:
            await _bounded(handover(), "hand over")
        if self.inflight:
            _done, pending = await asyncio.wait(set(self.inflight), timeout=timeout)
            for task in pending:
                task.cancel()
            if pending:
                log.warning("cancelled requests still running at drain", count=len(pending))


async def _bounded(step: Awaitable[Any], what: str) -> None:
    try:
        await asyncio.wait_for(step, DRAIN_S / 2)
    except TimeoutError:
        log.error("stopping: a step did not finish; going on", step=what)


def install_signal_handlers(stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)


Build = Callable[[NATS, "aioredis.Redis", Settings], Awaitable[ServiceApp]]


async def serve(
    build: Build, settings: Settings, stop: asyncio.Event, ready: asyncio.Event | None = None
) -> int:
    """Connect, build the service, serve until `stop`, then drain and close in order.

    Returns the exit status: 1 when the bus connection closed for good (a protocol error ends
    it whatever the reconnect policy), so the supervisor starts the service again, else 0.
    """
    lost = False

    async def on_closed() -> None:
        nonlocal lost
        if not stop.is_set():
            log.error("bus connection closed for good", error=repr(nc.last_error))
            lost = True
            stop.set()

    # no_echo: a service never hears its own publishes (the rules service follows committed
    # events to keep its cache current; its own are applied already). No service needs them.
    exporter = metrics.serve(settings.metrics_port, settings.metrics_host) \
        if settings.metrics_port else None  # fmt: skip
    nc = await bus.connect(settings.nats_url, max_reconnect_attempts=-1, no_echo=True,
                           closed_cb=on_closed, error_cb=bus.log_bus_error)  # fmt: skip
    redis = eventstore.connect(settings.redis_url)
    app: ServiceApp | None = None
    try:
        await eventstore.wait_ready(redis)
        app = await build(nc, redis, settings)
        await app.start()
        if ready is not None:
            ready.set()
        await stop.wait()
        log.info("draining", service=app.config.name, connected=nc.is_connected)
        await app.drain()
        if nc.is_connected:  # flush what the drained handlers answered
            with contextlib.suppress(TimeoutError, NATSError):
                await asyncio.wait_for(nc.drain(), DRAIN_S / 2)
    finally:
        # Each step bounded: a service told to stop exits, and its log names a step that hung.
        if app is not None:
            for close in app.on_close:
                await _bounded(close(), "close")
        await _bounded(redis.aclose(), "store connections")
        if not nc.is_closed:
            await _bounded(nc.close(), "bus connection")
        if exporter is not None:
            exporter[0].shutdown()
        log.info("stopped", service=app.config.name if app else "?", lost_bus=lost)
    return 1 if lost else 0


def main(build: Build) -> None:
    """The composition root every service shares: settings, logging, signals, uvloop."""

    async def _main() -> int:
        settings = config.load()
        logging.configure(settings.log_level, settings.json_logs)
        stop = asyncio.Event()
        install_signal_handlers(stop)
        return await serve(build, settings, stop)

    sys.exit(uvloop.run(_main()))
