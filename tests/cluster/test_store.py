"""The event store on a Valkey cluster (issue 22, "acknowledged means replicated"): appends of
games spread over every primary are group-committed, one pipeline a primary closed by WAITAOF;
an append no replica holds on disk is not acknowledged (its outcome is unknown) and its retry
is acknowledged, once, when a replica holds it; a killed primary's games go on on its promoted
replica with every acknowledged append there once. The services' own users, as on one node."""

import asyncio
import signal
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest
import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode
from redis.crc import key_slot

from services.runtime import access, eventstore
from services.runtime.cluster import ValkeyCluster, ValkeyNode
from services.runtime.eventstore import Appended, EventStore, NewEvent, NotReplicated
from services.runtime.keys import log_key, meta_key


@pytest.fixture
async def store(valkey_cluster: ValkeyCluster) -> AsyncIterator[EventStore]:
    url = ",".join(valkey_cluster.seeds)
    s = EventStore(
        eventstore.connect(access.with_user(url, "rules", valkey_cluster.creds.passwords["rules"]))
    )
    yield s
    await s.close()


def event(n: int) -> NewEvent:
    return NewEvent(type="Noted", body=msgspec.json.encode({"n": n}))


async def append(store: EventStore, game_id: str, version: int, head: str, n: int,
                 command_id: str | None = None) -> Appended:  # fmt: skip
    result = await store.append(game_id, version, head, command_id or f"{game_id}-{n}", [event(n)])
    assert isinstance(result, Appended), result
    return result


def primary_port(cluster: ValkeyCluster, game_id: str) -> int:
    node = cluster.primary_of(key_slot(log_key(game_id).encode()))
    assert node is not None
    return node.port


async def test_appends_on_every_primary_are_acknowledged_once_replicated(
    store: EventStore, valkey_cluster: ValkeyCluster
) -> None:
    games = [f"g-cluster-a{i}" for i in range(24)]
    assert len({primary_port(valkey_cluster, g) for g in games}) == 3  # every primary
    heads = dict.fromkeys(games, "0" * 64)
    for n in range(3):  # each round one batch across the primaries (appended concurrently)
        results = await asyncio.gather(*(append(store, g, n, heads[g], n) for g in games))
        heads = {g: r.hash for g, r in zip(games, results, strict=True)}
    for g in games:
        stored = await store.read_all(g)
        assert [s.version for s in stored] == [1, 2, 3]
        assert stored[-1].hash == heads[g]
    # A retry of an acknowledged command is its receipt, not a new append.
    again = await store.append(games[0], 0, "0" * 64, f"{games[0]}-0", [event(0)])
    assert isinstance(again, Appended)
    assert again.duplicate


def replica_of(cluster: ValkeyCluster, primary_port: int) -> ValkeyNode:
    """The running replica of the primary on `primary_port`, as the primary sees it."""
    primary = cluster.node_at(primary_port)
    assert primary is not None
    seen = cluster.view(primary)
    (me,) = [s for s in seen if s.port == primary_port]
    (replica,) = [s for s in seen if s.primary_id == me.node_id and "fail" not in s.flags]
    node = cluster.node_at(replica.port)
    assert node is not None
    return node


async def test_an_append_no_replica_holds_is_not_acknowledged_and_its_retry_is_once_it_does(
    store: EventStore, valkey_cluster: ValkeyCluster
) -> None:
    """The game's primary's replica is stopped (SIGSTOP): the append is applied on the primary
    but not acknowledged (NotReplicated: an unknown outcome, which the rules service answers as
    append/unknown-outcome). The replica resumes: the retry, with the same command id, is the
    same append acknowledged, and the log holds it once."""
    game_id = "g-cluster-stopped-replica"
    first = await append(store, game_id, 0, "0" * 64, 0)
    replica = replica_of(valkey_cluster, primary_port(valkey_cluster, game_id))
    replica.proc.send_signal(signal.SIGSTOP)
    try:
        with pytest.raises(NotReplicated):
            await store.append(game_id, 1, first.hash, "retried", [event(1)])
        assert isinstance(eventstore.NotReplicated("x"), eventstore.UNKNOWN_OUTCOME)
    finally:
        replica.proc.send_signal(signal.SIGCONT)
    again = await store.append(game_id, 1, first.hash, "retried", [event(1)])
    assert isinstance(again, Appended)
    assert (again.duplicate, again.version) == (True, 2)
    assert [s.command_id for s in await store.read_all(game_id)] == [f"{game_id}-0", "retried"]


async def test_a_round_trip_broken_under_its_write_is_an_unknown_outcome_on_its_primary_alone(
    store: EventStore, valkey_cluster: ValkeyCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A primary's round trip that breaks, whatever the exception (here the AttributeError a
    write on a connection closed under it raised in redis-py), leaves the outcome of that
    primary's share unknown (never "internal"); the batch's other primaries' appends are
    acknowledged, and each retry, with the same command id, is applied once."""
    games = [f"g-cluster-broken{i}" for i in range(24)]
    victim = primary_port(valkey_cluster, games[0])
    assert len({primary_port(valkey_cluster, g) for g in games}) == 3  # every primary
    heads = {g: (await append(store, g, 0, "0" * 64, 0)).hash for g in games}
    real = ClusterNode.execute_pipeline

    async def closed_under_the_write(node: ClusterNode, commands: list[Any]) -> bool:
        if node.port == victim:
            raise AttributeError("'NoneType' object has no attribute 'writelines'")
        return await real(node, commands)

    monkeypatch.setattr(ClusterNode, "execute_pipeline", closed_under_the_write)
    outcomes = await asyncio.gather(
        *(store.append(g, 1, heads[g], f"{g}-1", [event(1)]) for g in games),
        return_exceptions=True,
    )
    for g, outcome in zip(games, outcomes, strict=True):
        if primary_port(valkey_cluster, g) == victim:
            assert isinstance(outcome, eventstore.UNKNOWN_OUTCOME), outcome
        else:
            assert isinstance(outcome, Appended), outcome
    monkeypatch.undo()
    for g in games:
        assert (await append(store, g, 1, heads[g], 1, f"{g}-1")).version == 2
        assert [s.command_id for s in await store.read_all(g)] == [f"{g}-0", f"{g}-1"]


async def test_a_write_on_a_connection_closed_under_it_is_a_connection_error(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every node's connections are the store's own (RedisCluster takes no connection class),
    whose write on a connection a concurrent disconnect closed under it is a ConnectionError
    (redis-py's retries take it: the command goes through), not AttributeError."""
    cluster = store.redis
    assert await cluster.hget(meta_key("g-cluster-closed"), "version") is None
    nodes = [*cluster.nodes_manager.nodes_cache.values(),
             *cluster.nodes_manager.startup_nodes.values()]  # fmt: skip
    assert {n.connection_class for n in nodes} == {eventstore._ClusterConnection}
    real = aioredis.Connection._send_packed_command
    closed: list[aioredis.Connection] = []

    async def closed_once(conn: aioredis.Connection, command: Any) -> None:
        if not closed:
            closed.append(conn)
            await conn.disconnect()  # another task's, between the check and the write
        await real(conn, command)

    monkeypatch.setattr(aioredis.Connection, "_send_packed_command", closed_once)
    assert await cluster.hget(meta_key("g-cluster-closed"), "version") is None
    assert closed


async def test_a_killed_primarys_games_go_on_with_every_acknowledged_append_once(
    store: EventStore, valkey_cluster: ValkeyCluster
) -> None:
    """Games on one primary take appends; the primary is SIGKILLed. Its replica is promoted;
    until a replica is back (the killed node, restarted, rejoins as one), appends there are not
    acknowledged; then they are. Every acknowledged append is in the log, once, in order."""
    games = [f"g-cluster-k{i}" for i in range(40)]
    victim_port = primary_port(valkey_cluster, games[0])
    games = [g for g in games if primary_port(valkey_cluster, g) == victim_port]
    assert games
    heads = {g: (await append(store, g, 0, "0" * 64, 0)).hash for g in games}
    victim = valkey_cluster.node_at(victim_port)
    assert victim is not None
    valkey_cluster.kill(victim)
    promoted = await asyncio.to_thread(
        valkey_cluster.await_failover, key_slot(log_key(games[0]).encode())
    )
    assert promoted.port != victim_port
    await asyncio.to_thread(valkey_cluster.restart, victim)  # back, as the promoted's replica
    for g in games:  # the client finds the new primary (MOVED), retrying with the same id
        async with asyncio.timeout(30):
            while True:
                try:
                    result = await store.append(g, 1, heads[g], f"{g}-1", [event(1)])
                    break
                except eventstore.UNKNOWN_OUTCOME:
                    await asyncio.sleep(0.2)  # a retry's pause, as a client's: not a wait for state
        assert isinstance(result, Appended)
        assert result.version == 2
    for g in games:
        assert [s.command_id for s in await store.read_all(g)] == [f"{g}-0", f"{g}-1"]
