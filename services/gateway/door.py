"""The door: how the gateway meets a connection before any route.

Who may say where a request comes from (TABULA_GATEWAY_TRUSTED_PROXIES), the Host names it
answers to (TABULA_GATEWAY_ALLOWED_HOSTS), how long a request's head may take to arrive
(TABULA_GATEWAY_HEADER_TIMEOUT), the headers every response carries, the count of responses
(services.runtime.metrics.HTTP_RESPONSES), and how many WebSockets a player and an address hold
at once (counted in the store, shared by every replica).
"""

import asyncio
import base64
import contextlib
import hashlib
import ipaddress
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import h11
import msgspec
import nats.errors
import redis.asyncio as aioredis
import redis.exceptions
import structlog
from uvicorn.protocols.http.h11_impl import H11Protocol

from contracts.errors import ErrorCode
from services.runtime.metrics import HTTP_RESPONSES

log = structlog.get_logger()


def error_body(code: ErrorCode, reason: str, clause: str = "") -> dict[str, Any]:
    """Every refusal's body, the door's and the routes'."""
    return {"error": {"code": code, "reason": reason, "clause": clause}}


# The store or the bus away (a Valkey restarting, loading its data, or a NATS reconnect): the
# request may be retried as it is, so it is a 503 the page retries, never a 500.
OUTAGES: Final = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
                  nats.errors.NoRespondersError, nats.errors.TimeoutError,
                  nats.errors.ConnectionReconnectingError)  # fmt: skip


# The rules pages' one inline stylesheet (services.gateway.app), the only one CSP allows (by hash).
RULES_STYLE: Final = """body{font:16px/1.5 system-ui,sans-serif;max-width:50rem;margin:auto;
padding:1rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .4rem}
:target{background:#ffa}code{background:#f4f4f4}"""


@dataclass(frozen=True)
class Door:
    """How the gateway meets a connection, before any route."""

    # Addresses or networks of the proxies in front, whose X-Forwarded-For (and -Proto) is
    # believed; none: every client is the address it connects from. A header believed from
    # anyone would let each client choose its address, and so escape every per-address limit.
    trusted_proxies: tuple[str, ...] = ()
    allowed_hosts: frozenset[str] | None = None  # None: default_hosts(the listening address)
    header_timeout_s: float = 10.0  # for a request's line and headers, from its first byte

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> "Door":
        """From the environment, failing fast (ValueError) on what is not understood."""
        proxies = tuple(_listed(env.get("TABULA_GATEWAY_TRUSTED_PROXIES", "")))
        for proxy in proxies:
            ipaddress.ip_network(proxy, strict=False)  # uvicorn would take a typo as a name
        hosts = _listed(env.get("TABULA_GATEWAY_ALLOWED_HOSTS", "").lower())
        timeout = float(env.get("TABULA_GATEWAY_HEADER_TIMEOUT", "10"))
        if not 0 < timeout <= 300:
            raise ValueError(f"TABULA_GATEWAY_HEADER_TIMEOUT is 0 to 300 s, not {timeout}")
        return cls(proxies, frozenset(hosts) if hosts else None, timeout)

    def hosts(self, sock: socket.socket) -> frozenset[str]:
        return self.allowed_hosts or default_hosts(sock.getsockname()[0])


def _listed(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


class HeadTimeoutH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request's head. uvicorn times only the
    idle wait between keep-alive requests: a client that sends half a header line, or a byte a
    minute, would otherwise hold its connection forever (slowloris)."""

    header_timeout_s = 10.0
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch_head()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        super().connection_lost(exc)

    def _watch_head(self) -> None:
        """A timer while a request's head is awaited and has begun (or the connection is new;
        between keep-alive requests uvicorn's own timer runs)."""
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            if self._head_timer is None:
                self._head_timer = self.loop.call_later(self.header_timeout_s, self._too_slow)
        else:
            self._stop_head_timer()

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _too_slow(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            log.info("request head too slow: connection closed", client=self.client)
            self.transport.close()


def head_timeout(seconds: float) -> type[H11Protocol]:
    return type("HeadTimeoutH11", (HeadTimeoutH11,), {"header_timeout_s": seconds})


# No inline script (a script injected into a page does not run), no framing (clickjacking),
# nothing fetched or connected to but the gateway itself ('self' covers same-origin ws: in
# CSP3). The rules pages' one inline <style> is allowed by its hash; style attributes are
# allowed because the boards size SVG text with them, and an attribute selects nothing.
CSP: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'sha256-"
    + base64.b64encode(hashlib.sha256(RULES_STYLE.encode()).digest()).decode()
    + "'; style-src-attr 'unsafe-inline'; img-src 'self'; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: Final = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
]


def _split_host(host: str) -> tuple[str, str]:
    """A Host header's name and port ("" if none); an IPv6 name keeps its brackets."""
    host = host.strip().lower()
    if host.startswith("["):
        name, _, rest = host.partition("]")
        return name + "]", rest.removeprefix(":")
    name, _, port = host.partition(":")
    return name, port


def default_hosts(host: str) -> frozenset[str]:
    """The Host names a gateway answers to when none are configured: the name it listens on
    (on any port: a proxy in front may use another), and localhost's names when that is
    loopback. Listening on every address, it cannot tell its names: they must be configured."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:  # a name
        return frozenset({host.lower()} | ({"localhost", "127.0.0.1", "[::1]"}
                                            if host.lower() == "localhost" else set()))  # fmt: skip
    if ip.is_unspecified:
        raise ValueError(f"listening on {host} (every address), the gateway cannot tell its "
                         "names: list them in TABULA_GATEWAY_ALLOWED_HOSTS")  # fmt: skip
    names = {f"[{ip}]" if ip.version == 6 else str(ip)}
    if ip.is_loopback:
        names |= {"localhost", "127.0.0.1", "[::1]"}
    return frozenset(names)


def host_allowed(host: str, allowed: frozenset[str]) -> bool:
    """Whether a Host header names the gateway: its name is listed without a port (any port),
    or name and port are listed together."""
    name, port = _split_host(host)
    return name in allowed or (bool(port) and f"{name}:{port}" in allowed)


Message = dict[str, Any]  # plain ASGI, lifespan included: Litestar's own types leave it out
ASGI = Callable[[Message, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
                Awaitable[None]]  # fmt: skip


class _Code(msgspec.Struct, frozen=True):
    code: str = ""


class _Refusal(msgspec.Struct, frozen=True):
    """What the count needs of an error's body (error_body)."""

    error: _Code


CODES: Final = frozenset(ErrorCode)
COUNTED_BODY: Final = 4096  # an error's body is a few hundred bytes; more is not one of ours


def error_code(body: bytes) -> str:
    """The code of an error's JSON body; "" for any other body, or a code that is not ours (a
    label takes few values: never one a client could choose)."""
    try:
        code = msgspec.json.decode(body, type=_Refusal).error.code
    except (msgspec.DecodeError, msgspec.ValidationError):
        return ""
    return code if code in CODES else ""


def counted(send: Callable[[Message], Awaitable[None]]) -> Callable[[Message], Awaitable[None]]:
    """`send`, counting the HTTP response it carries in HTTP_RESPONSES (by status, and by its
    code for an error), as its last part goes out. Counted here, where every response passes
    (the routes', the exception handlers' and the door's own), each is counted once."""
    status = 0
    body = bytearray()

    async def counting(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body" and status:
            if status >= 400 and len(body) < COUNTED_BODY:
                body.extend(message.get("body", b""))
            if not message.get("more_body", False):
                code = error_code(bytes(body)) if status >= 400 else ""
                HTTP_RESPONSES.labels(status=str(status), code=code).inc()
                status = 0
        await send(message)

    return counting


def door(app: Any, hosts: frozenset[str]) -> ASGI:
    """The app behind the door: a request for another Host is refused before any route (a page
    of another site whose name resolves here, DNS rebinding, would otherwise be same-origin to
    itself), every response carries SECURITY_HEADERS and is counted (HTTP_RESPONSES)."""

    async def admit(scope: Message, receive: Callable[[], Awaitable[Message]],
                    send: Callable[[Message], Awaitable[None]]) -> None:  # fmt: skip
        if scope["type"] == "lifespan":
            await app(scope, receive, send)
            return
        if scope["type"] == "http":
            send = counted(send)
        host = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), "")
        if not host_allowed(host, hosts):
            if scope["type"] == "websocket":
                await receive()  # the connect, before the refusal
                await send({"type": "websocket.close", "code": 1008, "reason": "unknown host"})
                return
            body = msgspec.json.encode(
                error_body(ErrorCode.UNKNOWN_HOST, f"this server does not answer to {host!r}")
            )
            await send({"type": "http.response.start", "status": 400,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"content-length", str(len(body)).encode()),
                                    *SECURITY_HEADERS]})  # fmt: skip
            await send({"type": "http.response.body", "body": body})
            return
        if scope["type"] != "http":
            await app(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *SECURITY_HEADERS]
            await send(message)

        await app(scope, receive, send_secured)

    return admit


FEED_LEASE_S: Final = 60.0


class Feeds:
    """The WebSockets open at once per player and per address, counted in the store so that
    every replica shares the count. An open feed is a member of a sorted set scored by when its
    lease ends; the gateway renews its feeds' leases every third of a lease, so the feeds of a
    gateway that died stop counting within FEED_LEASE_S. Admission adds, then counts: replicas
    racing for the last place may both be refused, never both let in."""

    def __init__(self, redis: "aioredis.Redis", lease_s: float = FEED_LEASE_S) -> None:
        self.redis = redis
        self.lease_s = lease_s
        self.held: dict[str, list[str]] = {}  # lease -> the keys it counts in
        self.renewing: asyncio.Task[None] | None = None

    async def open(self, counted: list[tuple[str, int]]) -> str | None:
        """A lease on a place in each (key, cap); None, holding nothing, when one is full."""
        lease = secrets.token_hex(8)
        now = time.time()
        pipe = self.redis.pipeline(transaction=False)
        for key, _ in counted:
            pipe.zadd(key, {lease: now + self.lease_s})
            pipe.expire(key, int(self.lease_s) + 1)
            pipe.zrange(key, "-inf", now, byscore=True)  # lapsed: a dead gateway's
            pipe.zrange(key, now, "+inf", byscore=True)
        replies = await pipe.execute()
        self.held[lease] = [key for key, _ in counted]
        lapsed = [(key, replies[i * 4 + 2]) for i, (key, _) in enumerate(counted)]
        if any(members for _, members in lapsed):
            pipe = self.redis.pipeline(transaction=False)
            for key, members in lapsed:
                if members:
                    pipe.zrem(key, *members)
            await pipe.execute()
        if any(len(replies[i * 4 + 3]) > cap for i, (_, cap) in enumerate(counted)):
            await self.close(lease)
            return None
        if self.renewing is None or self.renewing.done():
            self.renewing = asyncio.create_task(self._renew())
        return lease

    async def close(self, lease: str) -> None:
        held = self.held.pop(lease, [])
        pipe = self.redis.pipeline(transaction=False)
        for key in held:
            pipe.zrem(key, lease)
        await pipe.execute()

    async def _renew(self) -> None:
        while self.held:
            await asyncio.sleep(self.lease_s / 3)
            until = time.time() + self.lease_s
            pipe = self.redis.pipeline(transaction=False)
            for lease, held in list(self.held.items()):
                for key in held:
                    pipe.zadd(key, {lease: until}, xx=True)  # xx: not one closed meanwhile
                    pipe.expire(key, int(self.lease_s) + 1)
            try:
                await pipe.execute()
            except OUTAGES as exc:  # the leases lapse unless the next round gets through
                log.warning("feed leases not renewed", error=repr(exc))

    async def stop(self) -> None:
        if self.renewing is not None:
            self.renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.renewing
