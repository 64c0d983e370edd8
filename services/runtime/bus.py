"""The bus: connecting to NATS, and typed request/reply over it.

Every connection's replies come under its user's own inbox prefix: the server lets a user
subscribe to its own prefix only (services.runtime.access), so no other client can read its
replies; an open server (no user in the URL) keeps NATS's default prefix.

`Requester` sends a typed request and decodes the typed reply or error, retrying what is safe
to retry: a timeout or no responder (the same request is applied once: commands carry their
command id) and the errors that say the outcome is unknown or the store was away. It retries
the same bytes, with jittered, capped backoff, until a deadline (and, for a service asking
another, a count): a client rides out a service or store restart rather than failing on it.
"""

import asyncio
import random
import time
import uuid
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

import msgspec
import nats
import structlog
from nats.aio.client import Client as NATS
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NATSTimeout

from contracts.commands import Error, Reply, Request
from contracts.errors import ErrorCode
from services.runtime.access import inbox_prefix
from services.runtime.config import seconds_from_env

T = TypeVar("T", bound=Reply)
_encode = msgspec.json.Encoder().encode
_decoders: dict[type, msgspec.json.Decoder[Any]] = {}
# Retried with the same request: the store did not answer (the command may be applied, and a
# retry returns its receipt), or was unreachable before anything was written.
RETRIED = frozenset({ErrorCode.UNKNOWN_OUTCOME, ErrorCode.UNAVAILABLE})
RETRY_DEADLINE_S = 30.0  # a client's default: longer than a service or store restart takes
BACKOFF_CAP_S = 2.0


def retry_deadline_from_env() -> float:
    """TABULA_RETRY_DEADLINE_S (seconds, > 0), else RETRY_DEADLINE_S; read once, at connect."""
    return seconds_from_env("TABULA_RETRY_DEADLINE_S", RETRY_DEADLINE_S)


def backoff(attempt: int, base: float) -> float:
    """Full jitter over an exponential, capped: retrying clients spread out rather than
    arriving together as a service comes back."""
    return random.uniform(0, min(base * 2**attempt, BACKOFF_CAP_S))


async def log_bus_error(exc: Exception) -> None:
    """A service's nats-py errors (a node gone, a reconnect refused) as one log line each: its
    default prints a traceback for every reconnect attempt while the bus is away."""
    structlog.get_logger().warning("bus error", error=repr(exc))


async def connect(url: str, **options: Any) -> NATS:
    """Connect to the bus at `url`, or to any node of a cluster whose URLs are comma-separated
    (the client moves to another node when one fails: the same users are on every node)."""
    urls = [u.strip() for u in url.split(",")]
    parts = urlsplit(urls[0])
    if parts.username:
        options.setdefault("inbox_prefix", inbox_prefix(parts.username))
        # Also for the nodes the cluster announces, whose URLs carry no credentials.
        options.setdefault("user", unquote(parts.username))
        options.setdefault("password", unquote(parts.password or ""))
    return await nats.connect(urls if len(urls) > 1 else urls[0], **options)


def new_id() -> str:
    """A fresh command id (or ticket, or owner secret)."""
    return uuid.uuid4().hex


class TabulaError(Exception):
    """A typed error reply from a service."""

    def __init__(self, err: Error) -> None:
        super().__init__(f"{err.code}: {err.reason}" + (f" [{err.clause}]" if err.clause else ""))
        self.code = err.code
        self.reason = err.reason
        self.clause = err.clause


class Requester:
    """Typed requests on one connection, each retried while `retry_deadline` seconds have not
    passed since its first attempt and, when `retries` is set, at most that many times (a
    service asking another answers its own caller in time rather than waiting on)."""

    def __init__(self, nc: NATS, timeout: float = 5.0, retries: int | None = 3,
                 retry_deadline: float = RETRY_DEADLINE_S) -> None:  # fmt: skip
        self.nc = nc
        self.timeout = timeout
        self.retries = retries
        self.retry_deadline = retry_deadline

    async def request(self, subject: str, req: Request, reply: type[T]) -> T:
        """Send `req`; the reply of type `reply`, or TabulaError for an error reply."""
        dec = _decoders.get(reply)
        if dec is None:
            dec = _decoders[reply] = msgspec.json.Decoder(reply | Error)
        data = _encode(req)  # every attempt sends these bytes: the same command id
        give_up = time.monotonic() + self.retry_deadline
        attempt = 0
        while True:
            try:
                msg = await self.nc.request(subject, data, timeout=self.timeout)
            except (NATSTimeout, NoRespondersError) as exc:
                try:
                    await self._back_off(attempt, 0.05, give_up)
                except _GiveUp:
                    raise exc from None
                attempt += 1
                continue
            if msg.headers and msg.headers.get("Nats-Service-Error-Code"):
                raise TabulaError(
                    Error(code=ErrorCode.INTERNAL, reason=msg.headers.get("Nats-Service-Error", ""))
                )
            out = dec.decode(msg.data)
            if isinstance(out, Error):
                if out.code not in RETRIED:
                    raise TabulaError(out)
                try:
                    await self._back_off(attempt, 0.1, give_up)  # the store recovers
                except _GiveUp:
                    raise TabulaError(out) from None
                attempt += 1
                continue
            return out  # type: ignore[no-any-return]

    async def _back_off(self, attempt: int, base: float, give_up: float) -> None:
        """Wait before retry `attempt + 1`; _GiveUp when that retry is not to be made: the
        count is spent, or the deadline has passed. The last retry is made at the deadline."""
        left = give_up - time.monotonic()
        if (self.retries is not None and attempt >= self.retries) or left <= 0:
            raise _GiveUp
        await asyncio.sleep(min(backoff(attempt, base), left))


class _GiveUp(Exception):
    """No more retries: the caller raises what the last attempt got."""
