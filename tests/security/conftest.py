"""The attacker's tools: a NATS connection with the player credential (what every player and
bot holds) or none, and store connections as users other than admin."""

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from nats.aio.client import Client as NATS

from services.client.client import Client
from services.runtime import bus
from services.runtime.config import Settings
from tests.conftest import Servers, empty_queues, running, settings_for


@pytest.fixture
async def closed_stack(
    closed_servers: Servers, tmp_path: Path
) -> AsyncIterator[Callable[[str], Settings]]:
    """The three services on closed servers, each as its own user; yields settings per role."""
    from services.matchmaking.__main__ import build as matchmaking
    from services.randomness.__main__ import build as randomness
    from services.rules.__main__ import build as rules

    def as_role(role: str) -> Settings:
        return settings_for(closed_servers, role, tmp_path)

    await empty_queues(closed_servers.redis_for("admin"))
    async with (
        running(rules, as_role("rules")),
        running(randomness, as_role("randomness")),
        running(matchmaking, as_role("matchmaking")),
    ):
        yield as_role


@pytest.fixture
async def victim(closed_stack: Callable[[str], Settings]) -> AsyncIterator[Client]:
    """An honest player."""
    c = await Client.connect(closed_stack("player").nats_url)
    yield c
    await c.close()


@dataclass
class Attacker:
    """A player-credential connection that records the server's refusals."""

    nc: NATS
    refused: list[str] = field(default_factory=list)
    heard: list[bytes] = field(default_factory=list)
    _refusal: asyncio.Event = field(default_factory=asyncio.Event)

    async def listen(self, subject: str) -> None:
        async def record(msg: object) -> None:
            self.heard.append(msg.subject.encode() + b" " + msg.data)  # type: ignore[attr-defined]

        await self.nc.subscribe(subject, cb=record)
        await self.nc.flush()

    async def refusal(self) -> str:
        """The next permissions violation the server reports (waits for it: no timer)."""
        await asyncio.wait_for(self._refusal.wait(), 10)
        self._refusal.clear()
        return self.refused[-1]


async def connect_as(settings: Settings) -> Attacker:
    """A bus connection that records the server's refusals."""
    holder: list[Attacker] = []

    async def on_error(exc: Exception) -> None:
        holder[0].refused.append(str(exc))
        holder[0]._refusal.set()

    nc = await bus.connect(settings.nats_url, error_cb=on_error)
    holder.append(Attacker(nc))
    return holder[0]


@pytest.fixture
async def attacker(closed_stack: Callable[[str], Settings]) -> AsyncIterator[Attacker]:
    a = await connect_as(closed_stack("player"))
    yield a
    await a.nc.close()
