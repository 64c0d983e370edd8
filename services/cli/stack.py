"""`tabula up`: the embedded default under one supervisor.

Starts nats-server, Valkey and PostgreSQL from their wheels (unless NATS_URL / REDIS_URL /
DATABASE_URL point at running ones), closed to all but a user per role (services.runtime.access),
applies PostgreSQL's migrations, then every service as its own process under its role. The
servers keep their ports from one `tabula up` to the next on the same data directory
(`ports.json`), so clients of the last run find them again. It restarts a service that exits and
a server that exits or stops answering its health check (on the same port, with the same files).
Every process it starts has a session of its own, so a terminal's Ctrl-C reaches it alone; on
Ctrl-C (or SIGTERM) it stops them in order (STOP_ORDER): intake first, each service draining
while what it calls is still up, then nats-server, then Valkey, then PostgreSQL. It holds a lock
on its data directory, and everything it starts dies with it.
"""

import asyncio
import contextlib
import fcntl
import os
import re
import shutil
import signal
import socket
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import msgspec
import nats
from rich.console import Console

from contracts import subjects
from services.runtime import access, bus, migrations
from services.runtime.cluster import start_nats_cluster, start_valkey_cluster
from services.runtime.config import StackFile, StackPointer, stack_path, user_pointer
from services.runtime.embedded import (
    EmbeddedError,
    Postgres,
    Server,
    die_with_parent,
    free_port,
    port_free,
    start_nats,
    start_postgres,
    start_valkey,
)
from services.runtime.service import DRAIN_S

console = Console(stderr=True)
SERVICES = (
    ("rules", subjects.RULES_SERVICE),
    ("randomness", subjects.RANDOM_SERVICE),
    ("matchmaking", subjects.MATCH_SERVICE),
    ("archiver", subjects.ARCHIVER_SERVICE),
    ("projector", subjects.PROJECTOR_SERVICE),
    ("bots", subjects.BOTS_SERVICE),
)


@dataclass
class Child:
    name: str
    module: str
    log: Path
    proc: asyncio.subprocess.Process | None = None
    restarts: int = 0
    env: dict[str, str] = field(default_factory=dict)

    async def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                self.module,
                env=self.env,
                stdout=out,
                stderr=out,
                start_new_session=True,
                preexec_fn=die_with_parent,
            )  # Ctrl-C goes to us only; our death goes to them


async def wait_for_services(nats_url: str, names: list[str], timeout: float = 30.0) -> None:
    """Until every named micro service answers $SRV.PING (a condition, polled)."""
    nc = await bus.connect(nats_url)
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        for name in names:
            while True:
                try:
                    await nc.request(f"$SRV.PING.{name}", b"", timeout=0.5)
                    break
                except (nats.errors.TimeoutError, nats.errors.NoRespondersError):
                    if loop.time() > deadline:
                        raise RuntimeError(
                            f"service {name} did not start; see .tabula/logs"
                        ) from None
                    await asyncio.sleep(0.1)  # poll interval while the process boots
    finally:
        await nc.close()


class Ports(msgspec.Struct):
    """The embedded servers' ports, kept in the data directory for the next `tabula up`."""

    nats: int = 0
    valkey: int = 0
    postgres: int = 0


def ports_path(home: Path) -> Path:
    return home / "ports.json"


def last_ports(home: Path) -> Ports:
    """The ports of the last run on `home` (none: 0, any free port)."""
    try:
        return msgspec.json.decode(ports_path(home).read_bytes(), type=Ports)
    except (OSError, msgspec.DecodeError):
        return Ports()


def start_kept(name: str, port: int, start: Callable[[int | None], Server]) -> Server:
    """`start(port)`, on the port of the last run; on a free one (None) when there was none,
    or with a line saying so when another process holds it or the server cannot take it: the
    clients of the last run keep asking the old one."""
    if port and port_free(port):
        try:
            return start(port)
        except EmbeddedError as exc:  # taken meanwhile, say
            why = f"unusable ({exc})"
    elif port:
        why = "taken by another process"
    else:
        return start(None)
    console.print(f"[yellow]{name}'s port {port}, from the last run on this directory, is "
                  f"{why}: it moves to a free one (clients of the last run need its new "
                  "URL)[/]")  # fmt: skip
    return start(None)


def start_servers(home: Path, logs: Path, servers: list[Server],
                  cluster: bool = False) -> access.Endpoints:  # fmt: skip
    """The embedded servers that NATS_URL / REDIS_URL / DATABASE_URL do not replace, closed to
    all but the users in `home/secrets` (generated once, 0600), on the ports of the last run
    when free; PostgreSQL's migrations applied (as its `owner`). With `cluster`, NATS and
    Valkey are clusters (services.runtime.cluster), made afresh in `home/cluster`."""
    nats_url = os.environ.get("NATS_URL")
    redis_url = os.environ.get("REDIS_URL")
    database_url = os.environ.get("DATABASE_URL")
    secrets = home / "secrets"
    creds = access.load_or_create(secrets)
    nats_conf, acl = access.write_server_files(secrets, creds)
    last = last_ports(home)
    if cluster:
        folder = home / "cluster"
        shutil.rmtree(folder, ignore_errors=True)  # its nodes' files name the last run's ports
    if cluster and not nats_url:
        nodes = start_nats_cluster(folder / "nats", creds).nodes
        servers += nodes
        nats_url = ",".join(node.url for node in nodes)
        console.print(f"NATS cluster (embedded, closed, {len(nodes)} nodes) on {nats_url}")
    if cluster and not redis_url:
        valkey = start_valkey_cluster(folder / "valkey", creds)
        servers += valkey.nodes
        redis_url = ",".join(valkey.seeds)
        console.print(f"Valkey cluster (embedded, closed, {valkey.primaries} primaries with a "
                      f"replica each, data in {folder / 'valkey'}) on {redis_url}")  # fmt: skip
    if not nats_url:
        servers.append(start_kept("nats-server", last.nats, partial(start_nats, logs, nats_conf)))
        nats_url = servers[-1].url
        last.nats = servers[-1].port
        console.print(f"nats-server (embedded, closed) on {nats_url}")
    if not redis_url:
        servers.append(
            start_kept("valkey", last.valkey, partial(start_valkey, home / "redis", acl=acl))
        )
        redis_url = servers[-1].url
        last.valkey = servers[-1].port
        console.print(f"valkey (embedded, closed, data in {home / 'redis'}) on {redis_url}")
    pg = None
    if not database_url:
        start_pg = partial(start_postgres, home / "postgres", hba=access.pg_hba())
        servers.append(pg := start_kept("postgres", last.postgres, start_pg))
        database_url = pg.url
        last.postgres = pg.port
        console.print(f"postgres (embedded, closed, data in {home / 'postgres'}) on {pg.url}")
    with contextlib.suppress(OSError):  # a read-only home only loses the convenience
        ports_path(home).write_bytes(msgspec.json.encode(last))
    urls = access.Endpoints(nats_url, redis_url, creds, nats_closed="NATS_URL" not in os.environ,
                            redis_closed="REDIS_URL" not in os.environ,
                            postgres_url=access.database_url(database_url),
                            # DATABASE_URL naming a user: used as given, by every role
                            postgres_closed=access.url_user(database_url) is None)  # fmt: skip
    migrate(urls, pg)
    return urls


def migrate(urls: access.Endpoints, pg: Server | None) -> None:
    """The embedded server's roles and database made (again: a password changed in the secrets
    is the one that works), then the migrations applied as the database's owner; a failure is
    one line (EmbeddedError)."""
    import psycopg

    try:
        if isinstance(pg, Postgres):
            access.provision_postgres(pg.local(), urls.creds, embedded=True)
        migrations.apply(urls.postgres_for(access.PG_OWNER))
    except (psycopg.Error, migrations.MigrationError) as exc:
        raise EmbeddedError(f"PostgreSQL: {exc}") from None


class StackRunning(RuntimeError):
    """Another `tabula up` holds this data directory."""


@contextlib.contextmanager
def hold(home: Path) -> Iterator[None]:
    """An exclusive lock on the data directory for as long as the stack runs: two stacks on one
    directory would both write the same append-only file. The kernel drops it with the
    process, however it ends."""
    home.mkdir(parents=True, exist_ok=True)
    with (home / "lock").open("a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StackRunning(f"a Tabula stack is already running on {home}") from None
        yield


async def up(home: Path, rules_replicas: int, demo_games: int, host: str = "127.0.0.1",
             port: int = 8000, cluster: bool = False) -> None:  # fmt: skip
    with hold(home):
        await _up(home, rules_replicas, demo_games, host, port, cluster)


def gateway_port(host: str, port: int) -> int:
    """The gateway's port, checked free now (0: one that is), so a taken port is one clear
    line rather than a gateway restarting for ever; restarts keep it."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            raise EmbeddedError(f"the gateway cannot listen on {host}:{port} ({exc.strerror}): "
                                "choose another with --port") from None  # fmt: skip
        return int(s.getsockname()[1])


async def wait_for_gateway(child: "Child", host: str, port: int, timeout: float = 30.0) -> None:
    """Until the gateway answers HTTP (a condition polled while it starts, not a fixed wait)."""
    deadline = asyncio.get_running_loop().time() + timeout
    # The gateway refuses a request for a Host not its own (400): ask as the name it listens
    # on. Listening on every address it knows only its configured names: then any answer below
    # 500 says it is serving.
    where = f"[{host}]" if ":" in host else host
    probe = f"GET / HTTP/1.0\r\nHost: {where}:{port}\r\n\r\n".encode()
    while asyncio.get_running_loop().time() < deadline:
        if child.proc is not None and child.proc.returncode is not None:
            raise EmbeddedError(f"the gateway exited with code {child.proc.returncode}: "
                                f"see {child.log}")  # fmt: skip
        with contextlib.suppress(OSError):
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(probe)
            answered = await reader.readline()
            writer.close()
            if re.match(rb"HTTP/1\.[01] [234]\d\d ", answered):
                return
        await asyncio.sleep(0.05)  # poll interval while it starts
    raise EmbeddedError(f"the gateway did not answer on {host}:{port} within {timeout:.0f}s")


async def _up(home: Path, rules_replicas: int, demo_games: int, host: str, port: int,
              cluster: bool = False) -> None:  # fmt: skip
    logs = home / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    port = gateway_port(host, port)
    # On a cluster, two of every service and of the gateway (the second on a free port).
    copies = 2 if cluster else 1
    ports = [port] + [gateway_port(host, 0) for _ in range(copies - 1)]
    servers: list[Server] = []
    urls = start_servers(home, logs, servers, cluster)

    def env(role: str) -> dict[str, str]:
        return {**os.environ, "NATS_URL": urls.nats_for(role),
                "REDIS_URL": urls.redis_for(role), "TABULA_HOME": str(home),
                "TABULA_GATEWAY_HOST": host, "TABULA_GATEWAY_PORT": str(port)}  # fmt: skip

    def named(name: str, i: int) -> str:
        return f"{name}-{i}" if copies > 1 else name

    # The rules replicas read the archive (their reads fall through to it once a game has
    # left Valkey) as their own read-only role.
    rules_env = {**env("rules"), "DATABASE_URL": urls.postgres_for("rules")}
    children = [
        Child(f"rules-{i}", "services.rules", logs / f"rules-{i}.log", env=rules_env)
        for i in range(rules_replicas)
    ]
    # The archiver copies sealed games into PostgreSQL, and the projector keeps the read model
    # from the logs, each as its own role there.
    for n in ("randomness", "matchmaking", "archiver", "projector", "bots"):
        extra = {"DATABASE_URL": urls.postgres_for(n)} if n in ("archiver", "projector") else {}
        children += [Child(named(n, i), f"services.{n}", logs / f"{named(n, i)}.log",
                           env={**env(n), **extra}) for i in range(copies)]  # fmt: skip
    # The gateway's lobby reads the read model (SELECT only).
    gateway_env = {**env("gateway"), "DATABASE_URL": urls.postgres_for("gateway")}
    gateways = [Child(named("gateway", i), "services.gateway", logs / f"{named('gateway', i)}.log",
                      env={**gateway_env, "TABULA_GATEWAY_PORT": str(p)})
                for i, p in enumerate(ports)]  # fmt: skip
    # Each process serves its metrics on a port of its own, kept across its restarts; a
    # gateway at its own /metrics.
    where = f"[{host}]" if ":" in host else host
    metrics = {g.name: f"http://{where}:{p}/metrics" for g, p in zip(gateways, ports, strict=True)}
    for child in children:
        metrics_port = free_port()
        child.env = {**child.env, "TABULA_METRICS_PORT": str(metrics_port)}
        metrics[child.name] = f"http://127.0.0.1:{metrics_port}/metrics"
    stack_file = stack_path(home)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    children += gateways
    try:
        for child in children:
            await child.start()
        await wait_for_services(urls.nats_for("admin"), [s for _, s in SERVICES])
        for gateway, gateway_at in zip(gateways, ports, strict=True):
            await wait_for_gateway(gateway, host, gateway_at)
        stack = StackFile(nats_url=urls.nats_for("player"), redis_url=urls.redis_for("auditor"),
                          admin_redis_url=urls.redis_for("admin"), pid=os.getpid(),
                          postgres_url=urls.postgres_for("auditor"),
                          projector_url=urls.postgres_for("projector"),
                          metrics=metrics)  # fmt: skip
        access.write_private(stack_file, msgspec.json.encode(stack))
        with contextlib.suppress(OSError):  # a read-only home only loses the convenience
            pointer = StackPointer(home=str(home), pid=os.getpid())
            user_pointer().parent.mkdir(parents=True, exist_ok=True)
            user_pointer().write_bytes(msgspec.json.encode(pointer))
        console.print(
            f"[green]Tabula is up[/]: {len(children)} services "
            f"({rules_replicas} rules replicas, the archiver, the projector, the bots and the "
            "gateway"
            + (f"; {copies} of each but rules" if copies > 1 else "")
            + f"); logs in {logs}"
        )
        if demo_games:
            from services.cli.demo import run_demo

            await run_demo(stack.nats_url, demo_games, "chess3d", "", console, show=True)
        console.print("Metrics (Prometheus): " + ", ".join(f"{n} {u}" for n, u in metrics.items()))
        console.print(f"Open [bold]http://{where}:{port}/[/] (the gateway: sign-in, lobby, "
                      "games over HTTP and WebSocket, the rules)"
                      + "".join(f"; also http://{where}:{p}/" for p in ports[1:]))  # fmt: skip
        console.print(
            "Serving. Other terminals find this stack by itself "
            f"(TABULA_HOME={home}). Ctrl-C stops it."
        )
        await supervise(children, servers, stop)
    finally:
        stack_file.unlink(missing_ok=True)
        with contextlib.suppress(OSError, msgspec.DecodeError):
            if (
                msgspec.json.decode(user_pointer().read_bytes(), type=StackPointer).pid
                == os.getpid()
            ):
                user_pointer().unlink()
        for stage in STOP_ORDER:
            await stop_children([c for c in children if c.module == f"services.{stage}"])
        # then the bus, then the store the drained requests wrote to, then PostgreSQL
        for server in servers:
            await asyncio.to_thread(server.stop)
            console.print(f"{server.name} stopped", style="dim")
        console.print("Tabula stopped.")


# Who stops first: the intake (the gateway, the door from outside), then the bots (they act
# through the rules service; their seats are in the store for the next start), then
# matchmaking (it makes
# games through the rules service), then the rules replicas (their commands in flight draw from
# the randomness service), then randomness, then the archiver (it finishes the game in hand,
# sealed by a rules replica now stopped), then the projector (the last events of all are
# committed: it projects them). Each drains while everything it calls still runs;
# nats-server, Valkey and PostgreSQL stop after all of them, in that order.
STOP_ORDER = ("gateway", "bots", "matchmaking", "rules", "randomness", "archiver", "projector")


async def stop_children(stage: list[Child]) -> None:
    """SIGTERM to each: it stops intake, finishes its requests in flight (DRAIN_S) and exits;
    killed if it has not within DRAIN_S + 5 s."""
    for child in stage:
        if child.proc and child.proc.returncode is None:
            child.proc.send_signal(signal.SIGTERM)
    for child in stage:
        if child.proc:
            try:
                await asyncio.wait_for(child.proc.wait(), DRAIN_S + 5)
            except TimeoutError:
                child.proc.kill()
                await child.proc.wait()
            console.print(f"{child.name} stopped", style="dim")


HEALTH_S = 1.0  # how often each server is looked at
UNHEALTHY_AFTER = 3  # failed probes in a row before a live but silent server is replaced


async def healthy(server: Server) -> bool:
    """The server answers its probe on its port within HEALTH_S."""
    try:
        async with asyncio.timeout(HEALTH_S):
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            try:
                if server.probe:
                    writer.write(server.probe)
                return server.expect in await reader.read(4096)
            finally:
                writer.close()
    except (OSError, TimeoutError):
        return False


async def watch_server(server: Server) -> None:
    """Start a server again, on its port with its files and users, when it exits or stops
    answering (UNHEALTHY_AFTER probes in a row). The services reconnect by themselves."""
    failures = 0
    while True:
        await asyncio.sleep(HEALTH_S)  # the health check's period
        if server.proc.poll() is None:
            failures = 0 if await healthy(server) else failures + 1
            if failures < UNHEALTHY_AFTER:
                continue
            console.print(f"[red]{server.name} stopped answering; restarting it[/]")
            await asyncio.to_thread(server.kill)
        else:
            console.print(f"[red]{server.name} exited ({server.proc.returncode}); restarting[/]")
        failures = 0
        try:
            await asyncio.to_thread(server.start)
            console.print(f"{server.name} is back on port {server.port}")
        except EmbeddedError as exc:  # e.g. its port was taken meanwhile: try again
            console.print(f"[red]{exc}[/]")


async def watch_child(child: Child) -> None:
    """Start a service again when it exits: it exits by itself when its bus connection is
    closed for good, and crashes are crashes."""
    while True:
        assert child.proc is not None
        code = await child.proc.wait()
        child.restarts += 1
        console.print(f"[red]{child.name} exited ({code}); restarting[/]")
        await asyncio.sleep(min(0.5 * child.restarts, 5))  # back off a crash loop
        await child.start()


async def supervise(children: list[Child], servers: list[Server], stop: asyncio.Event) -> None:
    """Keep every server and service running until `stop`."""
    watchers = [asyncio.create_task(watch_server(s)) for s in servers]
    watchers += [asyncio.create_task(watch_child(c)) for c in children]
    try:
        await stop.wait()
    finally:
        for task in watchers:
            task.cancel()
        await asyncio.gather(*watchers, return_exceptions=True)
