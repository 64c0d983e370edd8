"""The gateway on a free port of this machine, over the session's real servers and the services
in-process; people are httpx clients (each with its own cookie jar) and websockets clients."""

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import msgspec
import pytest
import websockets
from websockets.typing import Origin

from services.gateway.__main__ import listen, serving
from services.gateway.people import Limits
from services.runtime.config import Settings


class Person:
    """Someone with a browser: a cookie jar, JSON requests from the gateway's own origin."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.http = httpx.AsyncClient(base_url=base, headers={"Origin": base}, timeout=30)

    async def sign_in(self, name: str) -> dict[str, Any]:
        reply = await self.http.post("/api/session", json={"name": name})
        assert reply.status_code == 200, reply.text
        body: dict[str, Any] = reply.json()
        return body

    async def post(self, path: str, body: Any = None) -> httpx.Response:
        return await self.http.post(path, json={} if body is None else body)

    async def get(self, path: str) -> httpx.Response:
        return await self.http.get(path)

    @contextlib.asynccontextmanager
    async def feed(self, game_id: str, after: int = 0) -> AsyncIterator[Any]:
        """The game's WebSocket, with this person's session cookie and the gateway's origin."""
        url = self.base.replace("http", "ws", 1) + f"/api/games/{game_id}/ws?after={after}"
        cookies = "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())
        headers = {"Cookie": cookies} if cookies else {}
        async with websockets.connect(
            url, origin=Origin(self.base), additional_headers=headers
        ) as ws:
            yield ws

    async def close(self) -> None:
        await self.http.aclose()


async def next_frame(ws: Any) -> dict[str, Any]:
    frame: dict[str, Any] = msgspec.json.decode(await ws.recv())
    return frame


async def until_event(ws: Any, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The first event of the feed that is `wanted` (the caller bounds the wait)."""
    while True:
        frame = await next_frame(ws)
        for event in frame.get("events", []):
            if wanted(event):
                found: dict[str, Any] = event
                return found


@contextlib.asynccontextmanager
async def a_gateway(role_settings: Callable[[str], Settings],
                    queue_bot_after_s: float = 0) -> AsyncIterator[str]:  # fmt: skip
    """A gateway's base URL, serving over the in-process services as its own users until exit
    (its process state is gone then). Every test signs people in from 127.0.0.1: the
    per-address limits would stop them (test_limits.py checks them on a gateway of its own).
    No bots join its queue unless asked (`queue_bot_after_s`)."""
    sock = listen("127.0.0.1", 0)
    async with serving(role_settings("gateway"), sock, Limits(100_000, 100_000, 1_000),
                       queue_bot_after_s=queue_bot_after_s):  # fmt: skip
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


@pytest.fixture
async def gateway(stack: Settings, role_settings: Callable[[str], Settings]) -> AsyncIterator[str]:
    """The gateway's base URL (a_gateway's)."""
    async with a_gateway(role_settings) as base:
        yield base


@pytest.fixture
async def people(gateway: str) -> AsyncIterator[Callable[[], Person]]:
    made: list[Person] = []

    def person() -> Person:
        made.append(Person(gateway))
        return made[-1]

    yield person
    for p in made:
        await p.close()
