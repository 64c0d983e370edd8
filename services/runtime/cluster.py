"""Clusters on loopback, started as the embedded stack is (services.runtime.embedded): three
nats-servers joined by routes, and Valkey in cluster mode, three primaries each with a replica.

Every node has the users of the single servers (services.runtime.access), and the links
between nodes are closed too: a NATS route must present the `route` password (a peer that
joins the routes receives every message), and a Valkey replica authenticates to its primary as
the `replica` user, which can replicate and do nothing else. Each node's settings, passwords
included, are in a file of its own (0600) rather than on its command line, which every user of
the machine can read in /proc.

Valkey's cluster bus (the gossip and failover port) has no authentication at all: here it is
bound to loopback; on a real network it must be firewalled to the cluster's own hosts.

Like embedded.py this is sync (subprocess, blocking sockets): every wait is a poll of the
servers' own state under a deadline, never a fixed sleep.
"""

import json
import secrets
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import redis

from services.runtime import access
from services.runtime.embedded import (
    EmbeddedError,
    Server,
    free_port,
    start_nats,
    valkey_binary,
)

CLUSTER_NAME: Final = "tabula"
SLOTS: Final = 16384  # Valkey's hash slots
NODE_TIMEOUT_MS: Final = 2000  # unreachable this long, a primary is failed over
POLL: Final = 0.05  # the interval of every wait below


def _private_dir(path: Path) -> Path:
    """A node's folder, its own and nobody else's (its config holds passwords, its AOF data)."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.chmod(0o700)
    return path


def _wait(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise EmbeddedError(f"{what} within {timeout:.0f}s")
        time.sleep(POLL)


def _running(server: Server) -> bool:
    return server.proc.poll() is None


def _stop_all(servers: Sequence[Server]) -> None:
    """Stop in reverse order of start (replicas before their primaries, which then have no
    replica to wait for)."""
    for server in reversed(servers):
        server.stop()


# --- NATS ---------------------------------------------------------------------------------


class _Wire:
    """Just enough of the NATS client protocol, on a blocking socket, to see a message cross a
    route: nats-py needs an event loop, and these functions are sync as embedded.py's are."""

    def __init__(self, port: int, user: str, password: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.buffer = b""
        options = {"user": user, "pass": password, "verbose": False, "pedantic": False}
        self.sock.sendall(b"CONNECT " + json.dumps(options).encode() + b"\r\n")
        self.flush()

    def close(self) -> None:
        self.sock.close()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def flush(self) -> None:
        """Returns once the server has handled everything sent before (its PONG)."""
        self.send(b"PING\r\n")
        deadline = time.monotonic() + 5
        while (line := self.line(deadline)) != b"PONG":
            if line is None:
                raise EmbeddedError("nats-server did not answer PING")

    def line(self, deadline: float) -> bytes | None:
        """The next protocol line, or None at the deadline."""
        while b"\r\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(4096)
            except TimeoutError:
                return None
            if not chunk:
                raise EmbeddedError("nats-server closed the connection")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\r\n")
        if line.startswith(b"-ERR"):
            raise EmbeddedError(f"nats-server: {line.decode(errors='replace')}")
        if line == b"PING":  # the server's keepalive
            self.send(b"PONG\r\n")
        return line

    def received(self, within: float) -> bool:
        """A message arrived on one of this connection's subscriptions within `within` s."""
        deadline = time.monotonic() + within
        while (line := self.line(deadline)) is not None:
            if line.startswith(b"MSG "):
                return True
        return False


@dataclass
class NatsCluster:
    """nats-servers joined by routes; `nodes` in the order of their names (tabula-1, ...)."""

    nodes: list[Server]
    route_ports: list[int]
    creds: access.Credentials

    @property
    def urls(self) -> list[str]:
        """Every node's client URL (no user: see access.with_user)."""
        return [node.url for node in self.nodes]

    def urls_for(self, role: str) -> list[str]:
        """Every node's URL with `role`'s user, for a client's server list."""
        password = self.creds.passwords[role]
        return [access.with_user(url, role, password) for url in self.urls]

    def kill(self, node: Server) -> None:
        node.kill()

    def restart(self, node: Server, timeout: float = 15.0) -> None:
        """Start a stopped or killed node again as it was, and wait for its routes."""
        node.start()
        self.wait_routes(timeout)

    def stop(self) -> None:
        _stop_all(self.nodes)

    def wait_routes(self, timeout: float = 15.0) -> None:
        """Until a message published on each running node reaches a subscriber on every other
        one. A message that came over a route is never sent on over another, so this holds
        only once every pair of nodes has its own route."""
        running = [node for node in self.nodes if _running(node)]
        deadline = time.monotonic() + timeout
        for source in running:
            for target in running:
                if source is not target:
                    self._wait_crossing(source, target, deadline)

    def _wait_crossing(self, source: Server, target: Server, deadline: float) -> None:
        password = self.creds.passwords["admin"]
        # A subject no service listens on: the probes disturb nothing.
        subject = f"_CLUSTER.probe.{secrets.token_hex(8)}".encode()
        listener = _Wire(target.port, "admin", password)
        sender = None
        try:
            listener.send(b"SUB " + subject + b" 1\r\n")
            listener.flush()
            sender = _Wire(source.port, "admin", password)
            while True:
                sender.send(b"PUB " + subject + b" 0\r\n\r\n")
                sender.flush()
                if listener.received(within=0.1):  # the interest may not have crossed yet
                    return
                if time.monotonic() > deadline:
                    raise EmbeddedError(
                        f"no route from {source.url} to {target.url}: see {target.log}"
                    )
        finally:
            listener.close()
            if sender:
                sender.close()


def nats_node_config(creds: access.Credentials, index: int, route_ports: list[int]) -> str:
    """Node `index`'s configuration: the single server's (users, permissions, mappings), its
    name, and its cluster block: routes accepted only with the `route` password, and given to
    every other node with it."""
    password = creds.passwords["route"]
    routes = [
        f"nats://route:{password}@127.0.0.1:{port}"
        for other, port in enumerate(route_ports)
        if other != index
    ]
    cluster = {
        "name": CLUSTER_NAME,
        "listen": f"127.0.0.1:{route_ports[index]}",
        "authorization": {"user": "route", "password": password},
        "routes": routes,
    }
    return (
        f"{access.nats_config(creds)}\n"
        f"server_name: {CLUSTER_NAME}-{index + 1}\n"
        f"cluster: {json.dumps(cluster)}\n"
    )


def start_nats_cluster(
    folder: Path, creds: access.Credentials, size: int = 3, timeout: float = 15.0
) -> NatsCluster:
    """`size` nats-servers on loopback, each with its config and log in `folder/nats-<n>`,
    routed to one another; returns once every pair of nodes has its route."""
    route_ports = [free_port() for _ in range(size)]
    nodes: list[Server] = []
    try:
        for index in range(size):
            node_dir = _private_dir(folder / f"nats-{index + 1}")
            config = node_dir / "nats.conf"
            access.write_private(config, nats_node_config(creds, index, route_ports).encode())
            nodes.append(start_nats(node_dir, config))
        cluster = NatsCluster(nodes, route_ports, creds)
        cluster.wait_routes(timeout)
    except BaseException:
        _stop_all(nodes)
        raise
    return cluster


# --- Valkey -------------------------------------------------------------------------------


@dataclass
class ValkeyNode(Server):
    """A Valkey cluster node: its cluster bus port and folder, and its id once started."""

    bus_port: int = 0
    data_dir: Path = field(default_factory=Path)
    node_id: str = ""


@dataclass(frozen=True)
class Seen:
    """A node as another sees it (one line of CLUSTER NODES)."""

    node_id: str
    port: int
    flags: frozenset[str]
    primary_id: str  # "-" for a primary
    slots: tuple[tuple[int, int], ...]

    @property
    def serving(self) -> bool:
        """A primary not flagged as failing (`fail?`: suspected by this node alone)."""
        return "master" in self.flags and not self.flags & {"fail", "fail?", "handshake"}

    def owns(self, slot: int) -> bool:
        return any(first <= slot <= last for first, last in self.slots)


def parse_cluster_nodes(text: str) -> list[Seen]:
    seen = []
    for line in text.splitlines():
        node_id, address, flags, primary_id, *rest = line.split()
        slots = []
        for item in rest[4:]:  # after ping-sent, pong-recv, config-epoch, link-state
            if item.startswith("["):  # a slot being migrated or imported
                continue
            first, _, last = item.partition("-")
            slots.append((int(first), int(last or first)))
        port = int(address.split("@")[0].rsplit(":", 1)[1])
        seen.append(Seen(node_id, port, frozenset(flags.split(",")), primary_id, tuple(slots)))
    return seen


def parse_info(text: str) -> dict[str, str]:
    """CLUSTER INFO's `name:value` lines."""
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def valkey_node_config(
    node_dir: Path, port: int, bus_port: int, acl: Path, creds: access.Credentials
) -> str:
    """A cluster node's valkey.conf: the embedded server's durability (AOF, fsync on every
    write, on the replicas too) and closure, cluster mode, and authenticated replication."""
    settings = {
        "bind": "127.0.0.1",
        "port": str(port),
        "dir": f'"{node_dir}"',
        "logfile": f'"{node_dir / "valkey.log"}"',
        "aclfile": f'"{acl}"',
        "maxmemory-policy": "noeviction",
        "save": '""',
        "appendonly": "yes",
        "appendfsync": "always",
        "cluster-enabled": "yes",
        "cluster-config-file": f'"{node_dir / "nodes.conf"}"',
        # Bound to loopback with `bind`: the bus has no authentication (module docstring).
        "cluster-port": str(bus_port),
        "cluster-node-timeout": str(NODE_TIMEOUT_MS),
        # The other primaries keep serving their slots while one is failed over.
        "cluster-require-full-coverage": "no",
        # A full sync starts at once: the default 5 s delay gathers several replicas for one
        # transfer, and a primary here has one.
        "repl-diskless-sync-delay": "0",
        "masteruser": "replica",
        "masterauth": creds.passwords["replica"],
    }
    return "".join(f"{name} {value}\n" for name, value in settings.items())


def start_valkey_node(
    node_dir: Path, acl: Path, creds: access.Credentials, port: int | None = None
) -> ValkeyNode:
    """One cluster-mode valkey-server, its config, data and log in `node_dir` (0700)."""
    port = port or free_port()
    bus_port = free_port()  # set, not port + 10000, which may be past 65535 or taken
    _private_dir(node_dir)
    config = node_dir / "valkey.conf"
    text = valkey_node_config(node_dir, port, bus_port, acl, creds)
    access.write_private(config, text.encode())
    # Without credentials a closed server answers NOAUTH: up all the same.
    node = ValkeyNode(node_dir.name, f"redis://127.0.0.1:{port}", [valkey_binary(), str(config)],
                      port, b"PING\r\n", b"-NOAUTH", node_dir / "valkey.log",
                      bus_port=bus_port, data_dir=node_dir)  # fmt: skip
    node.start()
    return node


@dataclass
class ValkeyCluster:
    """Valkey in cluster mode: `nodes` started as primaries (the first `primaries`, slots in
    even ranges) then their replicas, in the same order. Roles change with failovers: ask the
    cluster (`primary_of`, `role`) rather than the order."""

    nodes: list[ValkeyNode]
    primaries: int
    creds: access.Credentials

    @property
    def seeds(self) -> list[str]:
        """Every node's URL (no user), the start nodes of a cluster client."""
        return [node.url for node in self.nodes]

    def admin(self, node: ValkeyNode) -> redis.Redis:
        """A sync client to `node` alone, as the admin user (use it in a `with`: closed
        after)."""
        return redis.Redis(host="127.0.0.1", port=node.port, username="admin",
                           password=self.creds.passwords["admin"], decode_responses=True,
                           socket_timeout=2, socket_connect_timeout=2)  # fmt: skip

    def kill(self, node: ValkeyNode) -> None:
        """SIGKILL: no shutdown, no last fsync, as a crash would."""
        node.kill()

    def restart(self, node: ValkeyNode, timeout: float = 30.0) -> None:
        """Start a killed or stopped node again as it was (its nodes.conf and AOF): a primary
        failed over meanwhile rejoins as a replica of the one promoted in its place. Returns
        once the whole cluster is healthy again (every other node must be running)."""
        node.start()
        self.wait_healthy(timeout)

    def stop(self) -> None:
        _stop_all(self.nodes)

    def view(self, node: ValkeyNode) -> list[Seen]:
        """The cluster as `node` sees it."""
        with self.admin(node) as client:
            return parse_cluster_nodes(client.execute_command("CLUSTER", "NODES"))

    def info(self, node: ValkeyNode) -> dict[str, str]:
        """`node`'s CLUSTER INFO."""
        with self.admin(node) as client:
            return parse_info(client.execute_command("CLUSTER", "INFO"))

    def role(self, node: ValkeyNode) -> dict[str, str]:
        """`node`'s INFO replication (role, master_port, master_link_status, ...)."""
        with self.admin(node) as client:
            return {key: str(value) for key, value in client.info("replication").items()}

    def node_at(self, port: int) -> ValkeyNode | None:
        return next((node for node in self.nodes if node.port == port), None)

    def primary_of(self, slot: int, via: ValkeyNode | None = None) -> ValkeyNode | None:
        """The node serving `slot` as `via` (else the first running node) sees it; None when
        no node serves it there."""
        via = via or next(node for node in self.nodes if _running(node))
        owner = next((s for s in self.view(via) if s.serving and s.owns(slot)), None)
        return self.node_at(owner.port) if owner else None

    def await_failover(self, slot: int, timeout: float = 30.0) -> ValkeyNode:
        """After its primary was killed: wait until every running node sees `slot` served by
        one and the same running node, and serves every slot again; return that node."""
        found: list[ValkeyNode] = []

        def failed_over() -> bool:
            found.clear()
            try:
                for node in self.nodes:
                    if _running(node):
                        info = self.info(node)
                        if info.get("cluster_slots_ok") != str(SLOTS):
                            return False
                        primary = self.primary_of(slot, via=node)
                        if primary is None or not _running(primary):
                            return False
                        found.append(primary)
            except redis.RedisError:
                return False
            return len({id(node) for node in found}) == 1

        _wait(failed_over, timeout, f"slot {slot} was not failed over")
        return found[0]

    def healthy(self) -> bool:
        """Every node runs and says cluster_state:ok, knows every other and sees every slot
        served; there are `primaries` primaries, each with its replica's link up."""
        try:
            links: dict[int, int] = {}  # a replica's port -> its primary's
            masters: list[int] = []
            for node in self.nodes:
                if not _running(node):
                    return False
                info = self.info(node)
                if (info.get("cluster_state") != "ok"
                        or info.get("cluster_known_nodes") != str(len(self.nodes))
                        or info.get("cluster_slots_ok") != str(SLOTS)):  # fmt: skip
                    return False
                role = self.role(node)
                if role["role"] == "master" and int(role.get("connected_slaves", 0)) >= 1:
                    masters.append(node.port)
                elif role.get("master_link_status") == "up":
                    links[node.port] = int(role["master_port"])
                else:
                    return False
        except redis.RedisError:
            return False
        return len(masters) == self.primaries and sorted(links.values()) == sorted(masters)

    def wait_healthy(self, timeout: float = 30.0) -> None:
        _wait(self.healthy, timeout, "the Valkey cluster was not healthy")

    def form(self, timeout: float) -> None:
        """Join fresh nodes into a cluster: slots in even ranges on the primaries, then each
        replica to its primary (once it knows it), then wait until it is healthy."""
        primaries = self.nodes[: self.primaries]
        for node in self.nodes:
            with self.admin(node) as client:
                node.node_id = client.execute_command("CLUSTER", "MYID")
        for index, node in enumerate(primaries):
            first = index * SLOTS // len(primaries)
            last = (index + 1) * SLOTS // len(primaries) - 1
            with self.admin(node) as client:
                client.execute_command("CLUSTER", "ADDSLOTSRANGE", first, last)
                # Distinct epochs from the start, as valkey-cli sets them: no collision to
                # resolve by gossip before a failover can be decided.
                client.execute_command("CLUSTER", "SET-CONFIG-EPOCH", index + 1)
        with self.admin(self.nodes[0]) as client:
            for node in self.nodes[1:]:
                client.execute_command("CLUSTER", "MEET", "127.0.0.1", node.port, node.bus_port)

        def all_met() -> bool:
            ids = {node.node_id for node in self.nodes}
            for node in self.nodes:
                seen = self.view(node)
                if {s.node_id for s in seen} != ids or any("handshake" in s.flags for s in seen):
                    return False
            return True

        _wait(all_met, timeout, "the Valkey nodes did not all meet")
        for index, node in enumerate(self.nodes[self.primaries :]):
            with self.admin(node) as client:
                client.execute_command("CLUSTER", "REPLICATE", primaries[index].node_id)
        self.wait_healthy(timeout)


def start_valkey_cluster(
    folder: Path, creds: access.Credentials, primaries: int = 3, timeout: float = 30.0
) -> ValkeyCluster:
    """`primaries` Valkey primaries, each with one replica, on loopback: every node with the
    ACL of access.valkey_acl (the same file, `folder/users.acl`) and its own folder
    `folder/valkey-<n>`. Returns once the cluster is healthy."""
    _private_dir(folder)
    acl = folder / "users.acl"
    access.write_private(acl, access.valkey_acl(creds).encode())
    nodes: list[ValkeyNode] = []
    try:
        for index in range(2 * primaries):
            nodes.append(start_valkey_node(folder / f"valkey-{index + 1}", acl, creds))
        cluster = ValkeyCluster(nodes, primaries, creds)
        cluster.form(timeout)
    except BaseException:
        _stop_all(nodes)
        raise
    return cluster
