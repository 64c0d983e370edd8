"""The bus: connecting to NATS, and typed request/reply over it.

Every connection's replies come under its user's own inbox prefix: the server lets a user
subscribe to its own prefix only (services.runtime.access), so no other client can read its
replies; an open server (no user in the URL) keeps NATS's default prefix.

`Requester` sends a typed request and decodes the typed reply or error, retrying what is safe
to retry: a timeout or no responder (the same request is applied once: commands carry their
command id) and the errors that say the outcome is unknown or the store was away.
"""

import asyncio
import uuid
from typing import Any, TypeVar

import msgspec
import nats
from nats.aio.client import Client as NATS
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NATSTimeout

from contracts.commands import Error, Reply, Request
from contracts.errors import ErrorCode
from services.runtime.access import inbox_prefix, url_user

T = TypeVar("T", bound=Reply)
_encode = msgspec.json.Encoder().encode
_decoders: dict[type, msgspec.json.Decoder[Any]] = {}
# Retried with the same request: the store did not answer (the command may be applied, and a
# retry returns its receipt), or was unreachable before anything was written.
RETRIED = frozenset({ErrorCode.UNKNOWN_OUTCOME, ErrorCode.UNAVAILABLE})


async def connect(url: str, **options: Any) -> NATS:
    user = url_user(url)
    if user:
        options.setdefault("inbox_prefix", inbox_prefix(user))
    return await nats.connect(url, **options)


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
    """Typed requests on one connection, each retried up to `retries` times."""

    def __init__(self, nc: NATS, timeout: float = 5.0, retries: int = 3) -> None:
        self.nc = nc
        self.timeout = timeout
        self.retries = retries

    async def request(self, subject: str, req: Request, reply: type[T]) -> T:
        """Send `req`; the reply of type `reply`, or TabulaError for an error reply."""
        dec = _decoders.get(reply)
        if dec is None:
            dec = _decoders[reply] = msgspec.json.Decoder(reply | Error)
        data = _encode(req)
        for attempt in range(self.retries + 1):
            try:
                msg = await self.nc.request(subject, data, timeout=self.timeout)
            except (NATSTimeout, NoRespondersError):
                if attempt == self.retries:
                    raise
                await asyncio.sleep(min(0.05 * 2**attempt, 1.0))  # back off before a retry
                continue
            if msg.headers and msg.headers.get("Nats-Service-Error-Code"):
                raise TabulaError(
                    Error(code=ErrorCode.INTERNAL, reason=msg.headers.get("Nats-Service-Error", ""))
                )
            out = dec.decode(msg.data)
            if isinstance(out, Error):
                if out.code in RETRIED and attempt < self.retries:
                    await asyncio.sleep(min(0.1 * 2**attempt, 2.0))  # the store recovers
                    continue
                raise TabulaError(out)
            return out  # type: ignore[no-any-return]
        raise AssertionError("unreachable")
