"""The clusters themselves (issue 22): three nats-servers routed to one another with the single
server's users, permissions and mappings on every node, and routes closed to a peer without
the route password; Valkey with three primaries and their replicas, closed and durable on
every node, failing a killed primary over to its replica, which it rejoins as a replica."""

import asyncio
import contextlib
import re
import socket
import time
import urllib.request
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import msgspec
import nats
import pytest
import redis
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.crc import key_slot

from contracts import subjects
from services.runtime import access
from services.runtime.cluster import NatsCluster, ValkeyCluster, ValkeyNode
from services.runtime.embedded import Server, free_port, start_nats

# --- NATS ---------------------------------------------------------------------------------


class Listener:
    """A connection's messages and the server's refusals, as they arrive."""

    def __init__(self) -> None:
        self.heard: list[Msg] = []
        self.refused: list[str] = []
        self.changed = asyncio.Event()

    async def on_message(self, msg: Msg) -> None:
        self.heard.append(msg)
        self.changed.set()

    async def on_error(self, exc: Exception) -> None:
        self.refused.append(str(exc).lower())
        self.changed.set()

    async def until(self, condition: Callable[[], bool], timeout: float = 5.0) -> None:
        """Wait for the next messages or refusals until `condition` holds."""
        async with asyncio.timeout(timeout):
            while not condition():
                self.changed.clear()
                await self.changed.wait()


@contextlib.asynccontextmanager
async def connected(url: str, listener: Listener) -> AsyncIterator[NATS]:
    nc = await nats.connect(url, error_cb=listener.on_error, allow_reconnect=False,
                            connect_timeout=2)  # fmt: skip
    try:
        yield nc
    finally:
        await nc.close()


async def answer_to_connect(node: Server, user: str, password: str) -> bytes:
    """The server's answer to a CONNECT by hand (nats-py leaves a refused socket open)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", node.port)
    try:
        assert (await reader.readline()).startswith(b"INFO ")
        options = msgspec.json.encode({"user": user, "pass": password, "verbose": False})
        writer.write(b"CONNECT " + options + b"\r\nPING\r\n")
        await writer.drain()
        return await reader.readline()
    finally:
        writer.close()
        await writer.wait_closed()


async def publish_until_heard(nc: NATS, subject: str, listener: Listener) -> None:
    """Publish until `listener` hears it: a subscription's interest reaches the other nodes
    over their routes a moment after the subscriber's own node has it."""
    async with asyncio.timeout(5):
        while not listener.heard:
            await nc.publish(subject, b"hello")
            await nc.flush()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(listener.changed.wait(), 0.1)


async def test_a_message_crosses_the_cluster_mapped_as_on_one_server(
    nats_cluster: NatsCluster,
) -> None:
    """A player's act on node 1 reaches the rules service's subscription on node 3, mapped to
    its partition by node 1 (each node has the single server's mappings)."""
    first, third = nats_cluster.urls_for("player")[0], nats_cluster.urls_for("rules")[2]
    rules = Listener()
    async with connected(third, rules) as service, connected(first, Listener()) as player:
        await service.subscribe(subjects.act_partition("*"), cb=rules.on_message)
        await service.flush()
        await publish_until_heard(player, subjects.rules_act("game-1"), rules)
    partition = re.fullmatch(rf"{re.escape(subjects.RULES_ACT)}\.(\d+)\.game-1",
                             rules.heard[0].subject)  # fmt: skip
    assert partition is not None, rules.heard[0].subject
    assert int(partition[1]) < subjects.ACT_PARTITIONS


@pytest.mark.parametrize("node", [0, 1, 2])
async def test_every_node_has_the_users_and_their_permissions(
    nats_cluster: NatsCluster, node: int
) -> None:
    """On each node: the player may not publish a game's events nor listen to requests, and a
    wrong password is refused."""
    player = Listener()
    async with connected(nats_cluster.urls_for("player")[node], player) as nc:
        await nc.publish(subjects.game_events("game-1"), b"forged")
        await nc.subscribe(f"{subjects.PREFIX}.rules.>")
        await nc.flush()
        await player.until(lambda: len(player.refused) >= 2)
    assert any("permissions violation for publish" in r for r in player.refused), player.refused
    assert any("permissions violation for subscription" in r for r in player.refused)
    assert await answer_to_connect(nats_cluster.nodes[node], "player", "wrong") == (
        b"-ERR 'Authorization Violation'\r\n"
    )


def attacker_config(route_ports: list[int], listen: int, monitor: int) -> str:
    """A nats-server of the attacker's own, without users, routed to node 1 without
    credentials and to node 2 with a wrong password."""
    cluster = {
        "name": "tabula",
        "listen": f"127.0.0.1:{listen}",
        "routes": [
            f"nats://127.0.0.1:{route_ports[0]}",
            f"nats://route:wrong@127.0.0.1:{route_ports[1]}",
        ],
    }
    return f"http: 127.0.0.1:{monitor}\ncluster: {msgspec.json.encode(cluster).decode()}\n"


# The intruder's own log line for a route the cluster's node refused.
REFUSED_ROUTE = re.compile(r"127\.0\.0\.1:(\d+) - rid:\d+ - Route Error 'Authorization Violation'")


def refused_routes(log: Path) -> set[int]:
    """The route ports whose server refused the intruder's route, as its log says."""
    try:
        text = log.read_text()
    except FileNotFoundError:
        return set()
    return {int(port) for port in REFUSED_ROUTE.findall(text)}


def routes_of(monitor: int) -> int:
    """The routes the intruder's own server has (its monitoring page)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{monitor}/routez", timeout=2) as page:
        return int(msgspec.json.decode(page.read())["num_routes"])


async def test_a_peer_without_the_route_password_is_refused(
    nats_cluster: NatsCluster, tmp_path: Path
) -> None:
    """A 4th server routing to the cluster without the route password gets no route: what is
    published on node 1 reaches node 3, never the intruder."""
    monitor = free_port()
    config = tmp_path / "attacker.conf"
    config.write_text(attacker_config(nats_cluster.route_ports, free_port(), monitor))
    intruder = start_nats(tmp_path, config)
    try:
        deadline = time.monotonic() + 10
        tried = set(nats_cluster.route_ports[:2])
        while not tried <= refused_routes(tmp_path / "nats-server.log"):
            assert time.monotonic() < deadline, (tmp_path / "nats-server.log").read_text()
            await asyncio.sleep(0.05)  # poll interval
        assert routes_of(monitor) == 0
        spy, insider = Listener(), Listener()
        async with (
            connected(intruder.url, spy) as spying,
            connected(nats_cluster.urls_for("admin")[2], insider) as third,
            connected(nats_cluster.urls_for("admin")[0], Listener()) as first,
        ):
            await spying.subscribe(">", cb=spy.on_message)
            await third.subscribe("secret.>", cb=insider.on_message)
            await spying.flush()
            await third.flush()
            await publish_until_heard(first, "secret.outcome", insider)
            await spying.flush()
        assert spy.heard == []
        assert routes_of(monitor) == 0
    finally:
        intruder.stop()


# --- Valkey -------------------------------------------------------------------------------


def answer_without_credentials(node: Server) -> bytes:
    with socket.create_connection(("127.0.0.1", node.port), timeout=2) as s:
        s.sendall(b"GET anything\r\n")
        return s.recv(4096)


def test_valkey_cluster_is_whole_closed_and_durable(valkey_cluster: ValkeyCluster) -> None:
    """cluster_state ok on every node; three primaries each with its replica's link up; every
    node closed to a connection without credentials, durable (AOF, fsync always, no
    eviction) in a private folder; the replica user replicates and reads nothing."""
    assert valkey_cluster.healthy()
    roles = {node.port: valkey_cluster.role(node) for node in valkey_cluster.nodes}
    primaries = {port for port, r in roles.items() if r["role"] == "master"}
    replicas = [r for r in roles.values() if r["role"] == "slave"]
    assert len(primaries) == 3
    assert {roles[port]["connected_slaves"] for port in primaries} == {"1"}
    assert sorted(int(r["master_port"]) for r in replicas) == sorted(primaries)
    assert {r["master_link_status"] for r in replicas} == {"up"}
    for node in valkey_cluster.nodes:
        assert valkey_cluster.info(node)["cluster_state"] == "ok"
        assert answer_without_credentials(node).startswith(b"-NOAUTH"), node.url
        with valkey_cluster.admin(node) as client:
            assert client.execute_command("ACL", "LOG") == []  # nothing refused to anyone
            if node.port in primaries:  # its replica is connected as the replica user
                links = client.execute_command("CLIENT", "LIST", "TYPE", "replica")
                assert re.findall(r"user=(\S+)", links) == ["replica"], links
            for name, value in [("appendonly", "yes"), ("appendfsync", "always"),
                                ("maxmemory-policy", "noeviction")]:  # fmt: skip
                assert client.config_get(name) == {name: value}, (node.url, name)
        assert node.data_dir.stat().st_mode & 0o777 == 0o700
        assert (node.data_dir / "valkey.conf").stat().st_mode & 0o777 == 0o600
        replica_user = redis.Redis(port=node.port, username="replica",
                                   password=valkey_cluster.creds.passwords["replica"])  # fmt: skip
        with replica_user, pytest.raises(redis.exceptions.NoPermissionError):
            replica_user.get("anything")


def key_in(cluster: ValkeyCluster, node: ValkeyNode) -> tuple[str, int]:
    """A key whose slot `node` serves, and that slot."""
    mine = next(s for s in cluster.view(node) if "myself" in s.flags)
    for n in range(10_000):
        key = f"tabula:cluster:{n}"
        if mine.owns(slot := key_slot(key.encode())):
            return key, slot
    raise AssertionError("no key found in the node's slots")


def replica_has(cluster: ValkeyCluster, replica: ValkeyNode, key: str, value: str) -> bool:
    with cluster.admin(replica) as client:
        client.execute_command("READONLY")  # a replica answers reads of its primary's slots
        return bool(client.get(key) == value)


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)  # poll interval


async def test_a_killed_primary_is_failed_over_then_rejoins_as_a_replica(
    valkey_cluster: ValkeyCluster, record_property: Callable[[str, object], None]
) -> None:
    """SIGKILL a primary: its replica takes its slots; the key written there before is read
    and written again through the same cluster client; the killed node started again becomes
    the replica of the one promoted in its place."""
    cluster = valkey_cluster
    victim, its_replica = cluster.nodes[0], cluster.nodes[3]
    assert cluster.role(its_replica)["master_port"] == str(victim.port)
    key, slot = key_in(cluster, victim)
    client = RedisCluster(
        startup_nodes=[ClusterNode("127.0.0.1", node.port) for node in cluster.nodes],
        username="admin", password=cluster.creds.passwords["admin"], decode_responses=True,
    )  # fmt: skip
    try:
        await client.set(key, "before")
        # Replication is asynchronous: a write not yet on the replica would be lost with its
        # primary. Wait until it is there, so the kill tests failover, not that window.
        wait_for(lambda: replica_has(cluster, its_replica, key, "before"))
        started = time.monotonic()
        cluster.kill(victim)
        promoted = cluster.await_failover(slot)
        record_property("failover_seconds", round(time.monotonic() - started, 2))
        assert promoted is its_replica
        assert cluster.role(promoted)["role"] == "master"
        assert await client.get(key) == "before"
        await client.set(key, "after")
        assert await client.get(key) == "after"

        started = time.monotonic()
        cluster.restart(victim)
        record_property("rejoin_seconds", round(time.monotonic() - started, 2))
        role = cluster.role(victim)
        assert role["role"] == "slave"
        assert role["master_port"] == str(promoted.port)
        assert role["master_link_status"] == "up"
        assert cluster.primary_of(slot) is promoted
        wait_for(lambda: replica_has(cluster, victim, key, "after"))
    finally:
        await client.aclose()


def test_an_older_credentials_file_gets_the_cluster_passwords(tmp_path: Path) -> None:
    """A credentials file written before the clusters keeps its passwords and gains the route
    and replica ones, kept for the next start."""
    older = access.Credentials.generate()
    kept = {role: p for role, p in older.passwords.items() if role not in access.INTERNAL}
    access.write_private(tmp_path / "credentials.json",
                         msgspec.json.encode(access.Credentials(kept, older.postgres)))  # fmt: skip
    loaded = access.load_or_create(tmp_path)
    assert {role: loaded.passwords[role] for role in kept} == kept
    assert set(access.INTERNAL) <= set(loaded.passwords)
    assert access.load_or_create(tmp_path) == loaded
