"""A service started before its store answers waits for it (a restarted Valkey refuses commands
while it loads its data) instead of dying at start."""

import asyncio

import pytest
import redis.exceptions

from services.runtime import eventstore
from services.runtime.embedded import free_port, start_valkey


async def test_a_store_that_comes_up_later_is_waited_for() -> None:
    port = free_port()
    store = eventstore.connect(f"redis://127.0.0.1:{port}")
    try:
        with pytest.raises(redis.exceptions.ConnectionError):  # what killed a service before
            await store.ping()
        waiting = asyncio.create_task(eventstore.wait_ready(store, timeout=120))
        server = start_valkey(port=port)
        try:
            await asyncio.wait_for(waiting, 120)
            assert await store.ping()
        finally:
            server.stop()
    finally:
        await store.aclose()
