"""A service ends when it should and as it should (issue 10): it exits non-zero when its bus
connection is closed for good, so its supervisor starts it again; and SIGTERM ends it promptly
and cleanly, also while nats-server is unreachable."""

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import redis.asyncio as aioredis
from nats.aio.client import Client as NATS

from services.runtime.config import Settings
from services.runtime.embedded import start_nats
from services.runtime.service import DRAIN_S, ServiceApp, serve


async def test_a_service_whose_bus_connection_closes_for_good_exits_non_zero(
    settings: Settings,
) -> None:
    """A message nats-server cannot take (a 5,000-character subject is over its control line,
    as a ticket once was at pairing) makes the server end the connection, and the client does
    not reconnect after a protocol error: the process must not stay alive without its bus."""
    connections: list[NATS] = []

    async def build(nc: NATS, _redis: "aioredis.Redis", _settings: Settings) -> ServiceApp:
        connections.append(nc)
        return ServiceApp(nc, "probe", "a service that only connects")

    stop, ready = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(build, settings, stop, ready))
    await ready.wait()
    await connections[0].publish("t" * 5000, b"")
    async with asyncio.timeout(30):  # a bound on a hang, not a timing check
        assert await task == 1
    assert stop.is_set()


def test_sigterm_ends_a_service_promptly_while_the_bus_is_unreachable(
    settings: Settings, tmp_path: Path
) -> None:
    """Before, a draining service waited on a bus that was gone (the client's 30 s drain
    timeout, then more); now it skips what needs the bus, finishes what is in flight, and
    exits 0 within its drain bound."""
    nats = start_nats(tmp_path)  # a bus of its own, to take away
    log = tmp_path / "matchmaking.log"
    env = {**os.environ, "NATS_URL": nats.url, "REDIS_URL": settings.redis_url,
           "TABULA_LOG_LEVEL": "info"}  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "services.matchmaking"], env=env,
                                stdout=out, stderr=out)  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while b"service started" not in log.read_bytes():  # its readiness, polled
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        nats.kill()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=DRAIN_S) == 0, log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        nats.stop()
    text = log.read_text()
    assert '"connected": false' in text, text
    assert '"lost_bus": false' in text, text
    assert "Traceback" not in text, text
