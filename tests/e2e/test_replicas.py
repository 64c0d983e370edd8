"""Two rules replicas as real processes; one is SIGKILLed while 200 games are in play."""

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from collections import Counter
from pathlib import Path

import msgspec
import nats
import pytest

from contracts.commands import Receipt
from domain import fairplay
from domain.audit import chain_entries
from services.client.bot import NON_MOVES
from services.client.client import Client
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore
from tests.recorded import record_games

GAMES = 200
PLIES = 30


def start_replica(settings: Settings, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "NATS_URL": settings.nats_url,
        "REDIS_URL": settings.redis_url,
        "TABULA_SECRET": "e2e-secret",
        "TABULA_LOG_LEVEL": "info",
    }
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "services.rules"], env=env, stdout=out, stderr=out
        )


async def wait_for_replicas(nats_url: str, count: int, timeout: float = 30) -> None:
    """Until `count` distinct rules instances answer $SRV.PING (polled, bounded)."""
    nc = await nats.connect(nats_url)
    seen: set[str] = set()
    inbox = nc.new_inbox()

    async def on_pong(msg) -> None:  # type: ignore[no-untyped-def]
        if msg.data:  # an empty message is the server's "no responders" status
            seen.add(msgspec.json.decode(msg.data)["id"])

    sub = await nc.subscribe(inbox, cb=on_pong)
    try:
        async with asyncio.timeout(timeout):
            while len(seen) < count:
                await nc.publish("$SRV.PING.tabula-rules", b"", reply=inbox)
                await asyncio.sleep(0.1)  # poll interval; the exit condition is the count
    finally:
        await sub.unsubscribe()
        await nc.close()


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
async def test_losing_a_replica_mid_run_loses_and_duplicates_nothing(
    settings: Settings, store: EventStore, tmp_path: Path, sig: signal.Signals
) -> None:
    """200 games on two replicas; one is killed (or drained) a third of the way in. Clients
    retry with the same command ids; the survivor carries on. SIGTERM must drain cleanly."""
    recorded = record_games(8, PLIES, seed=7)
    run = uuid.uuid4().hex[:8]  # fresh game ids even against a long-lived server
    replicas = [start_replica(settings, tmp_path / f"rules-{i}.log") for i in range(2)]
    try:
        await wait_for_replicas(settings.nats_url, 2)
        # Retrying until the client's deadline (30 s), as clients do: a killed replica's
        # partitions are served again once its leases lapse (3 s) and the survivor's next tick.
        client = await Client.connect(settings.nats_url, timeout=2.0)
        acked: dict[str, tuple[int, list[Receipt]]] = {}
        progress = Counter[str]()
        half = asyncio.Event()

        async def play(i: int) -> None:
            created = await client.create_game("chess3d", command_id=f"e2e-{run}-{i}")
            game_id = created.game_id
            tokens = [g.token for g in created.seats]
            acked[game_id] = (i, [])
            for ply, (seat, move) in enumerate(recorded[i % len(recorded)]):
                receipt = await client.act(
                    game_id, seat, tokens[seat], move, command_id=f"{game_id}:{ply}"
                )
                acked[game_id][1].append(receipt)
                progress["moves"] += 1
                if progress["moves"] >= GAMES * PLIES // 3:
                    half.set()

        players = asyncio.gather(*(play(i) for i in range(GAMES)))
        await half.wait()
        replicas[0].send_signal(sig)
        await players
        if sig == signal.SIGTERM:
            assert await asyncio.to_thread(replicas[0].wait, 30) == 0
            log = (tmp_path / "rules-0.log").read_text()
            assert '"draining"' in log
            assert '"stopped"' in log
        await client.close()
    finally:
        for r in replicas:
            r.kill()
            r.wait()

    assert progress["moves"] == sum(len(recorded[i % len(recorded)]) for i in range(GAMES))
    assert len(acked) == GAMES
    for game_id, (i, receipts) in acked.items():
        stored = await store.read_all(game_id)
        entries = chain_entries(stored)
        assert fairplay.verify_chain(game_id, entries) is None, game_id
        assert fairplay.chain_version(game_id, entries) == fairplay.CHAIN_V2
        expected = recorded[i % len(recorded)]
        # Every acknowledged command is in the log exactly once, in order, as one contiguous
        # append: the command ids, collapsed over runs, are exactly the plies.
        runs = [
            c
            for j, c in enumerate(s.command_id for s in stored)
            if j == 0 or stored[j - 1].command_id != c
        ]
        assert runs == [f"e2e-{run}-{i}"] + [f"{game_id}:{p}" for p in range(len(expected))]
        moves = [msgspec.json.decode(s.body)["move"] for s in stored if s.type == "MovePlayed"]
        assert moves == [m for _, m in expected if m not in {*NON_MOVES, "demand-mate"}]
        by_version = {s.version: s for s in stored}
        for ply, receipt in enumerate(receipts):
            assert by_version[receipt.version].hash == receipt.hash
            assert by_version[receipt.first_version].command_id == f"{game_id}:{ply}"
