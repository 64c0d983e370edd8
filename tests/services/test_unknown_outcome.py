"""An append whose outcome is unknown (the store stopped answering mid-append) is never
reported as a failure: the reply says `append/unknown-outcome`, the client retries with the
same command id, and the command is applied exactly once (issue 10)."""

import asyncio
import dataclasses
import signal
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from contracts import subjects
from contracts.commands import Act, Error, Receipt
from contracts.errors import ErrorCode
from services.client.client import Client
from services.rules.__main__ import build as rules_build
from services.runtime import eventstore
from services.runtime.config import Settings
from services.runtime.embedded import start_valkey
from services.runtime.eventstore import EventStore
from tests.conftest import running


async def test_an_unknown_append_is_retried_and_applied_once(
    role_settings: Callable[[str], Settings], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(eventstore, "BATCH_TIMEOUT", 1.0)  # give up on the store sooner
    valkey = start_valkey(tmp_path / "redis")  # a store of its own, to stop and resume
    rules = dataclasses.replace(role_settings("rules"), redis_url=valkey.url)
    store = EventStore.from_url(valkey.url)
    try:
        async with running(rules_build, rules):
            client = await Client.connect(role_settings("player").nats_url)
            try:
                created = await client.create_game("chess3d")
                g, tokens = created.game_id, [s.token for s in created.seats]

                # The service's own answer while the store is stopped mid-append.
                move = Act(game_id=g, seat=0, token=tokens[0], command_id="m1", action="IE2-IE4")
                valkey.proc.send_signal(signal.SIGSTOP)
                msg = await client.nc.request(subjects.RULES_ACT, msgspec.json.encode(move),
                                              timeout=10)  # fmt: skip
                reply = msgspec.json.decode(msg.data, type=Error)
                assert reply.code == ErrorCode.UNKNOWN_OUTCOME
                valkey.proc.send_signal(signal.SIGCONT)
                receipt = await client.request(subjects.RULES_ACT, move, Receipt)
                assert receipt.version == 2

                # The client retries by itself while the store is away for a while.
                valkey.proc.send_signal(signal.SIGSTOP)
                loop = asyncio.get_running_loop()
                loop.call_later(1.5, valkey.proc.send_signal, signal.SIGCONT)  # the outage
                answer = await client.act(g, 1, tokens[1], "IIIE7-IIIE5", command_id="m2")
                assert answer.version == 3
            finally:
                await client.close()
        log = await store.read_all(g)
        assert [(e.type, e.command_id) for e in log] == [
            ("GameCreated", log[0].command_id), ("MovePlayed", "m1"), ("MovePlayed", "m2"),
        ]  # fmt: skip
    finally:
        valkey.proc.send_signal(signal.SIGCONT)
        await store.close()
        valkey.stop()
