"""`tabula up`: the embedded default under one supervisor.

Starts nats-server and Valkey from their wheels (unless NATS_URL / REDIS_URL point at running
ones), then every service as its own process, restarts a service that dies, and on Ctrl-C (or
SIGTERM) stops the services first (each drains), then the servers.
"""

import asyncio
import contextlib
import os
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
import nats
from rich.console import Console

from contracts import subjects
from services.runtime.config import StackFile, stack_path, user_pointer
from services.runtime.embedded import Server, start_nats, start_valkey

console = Console(stderr=True)
SERVICES = (
    ("rules", subjects.RULES_SERVICE),
    ("randomness", subjects.RANDOM_SERVICE),
    ("matchmaking", subjects.MATCH_SERVICE),
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
            )  # Ctrl-C goes to us only


async def wait_for_services(nats_url: str, names: list[str], timeout: float = 30.0) -> None:
    """Until every named micro service answers $SRV.PING (a condition, polled)."""
    nc = await nats.connect(nats_url)
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


async def up(home: Path, rules_replicas: int, demo_games: int) -> None:
    logs = home / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    servers: list[Server] = []
    nats_url = os.environ.get("NATS_URL")
    redis_url = os.environ.get("REDIS_URL")
    if not nats_url:
        servers.append(start_nats(logs))
        nats_url = servers[-1].url
        console.print(f"nats-server (embedded) on {nats_url}")
    if not redis_url:
        servers.append(start_valkey(home / "redis"))
        redis_url = servers[-1].url
        console.print(f"valkey (embedded, data in {home / 'redis'}) on {redis_url}")
    env = {**os.environ, "NATS_URL": nats_url, "REDIS_URL": redis_url, "TABULA_HOME": str(home)}
    children = [
        Child(f"rules-{i}", "services.rules", logs / f"rules-{i}.log", env=env)
        for i in range(rules_replicas)
    ]
    children += [
        Child(n, f"services.{n}", logs / f"{n}.log", env=env) for n in ("randomness", "matchmaking")
    ]
    stack_file = stack_path(home)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        for child in children:
            await child.start()
        await wait_for_services(nats_url, [s for _, s in SERVICES])
        found = msgspec.json.encode(
            StackFile(nats_url=nats_url, redis_url=redis_url, pid=os.getpid())
        )
        stack_file.write_bytes(found)
        with contextlib.suppress(OSError):  # a read-only home only loses the convenience
            user_pointer().parent.mkdir(parents=True, exist_ok=True)
            user_pointer().write_bytes(found)
        console.print(
            f"[green]Tabula is up[/]: {len(children)} services "
            f"({rules_replicas} rules replicas); logs in {logs}"
        )
        if demo_games:
            from services.cli.demo import run_demo

            await run_demo(nats_url, redis_url, demo_games, "chess3d", "", console, show=True)
        console.print(
            "Serving. Other terminals find this stack by itself "
            f"(TABULA_HOME={home}). Ctrl-C stops it."
        )
        await supervise(children, stop)
    finally:
        stack_file.unlink(missing_ok=True)
        with contextlib.suppress(OSError, msgspec.DecodeError):
            if msgspec.json.decode(user_pointer().read_bytes(), type=StackFile).pid == os.getpid():
                user_pointer().unlink()
        for child in children:
            if child.proc and child.proc.returncode is None:
                child.proc.send_signal(signal.SIGTERM)
        for child in children:
            if child.proc:
                try:
                    await asyncio.wait_for(child.proc.wait(), 15)
                except TimeoutError:
                    child.proc.kill()
        for server in reversed(servers):
            server.stop()
        console.print("Tabula stopped.")


async def supervise(children: list[Child], stop: asyncio.Event) -> None:
    """Restart a service that exits unexpectedly, until `stop`."""
    stopper = asyncio.create_task(stop.wait())
    while not stop.is_set():
        waits = {asyncio.create_task(c.proc.wait()): c for c in children if c.proc}
        done, _ = await asyncio.wait({stopper, *waits}, return_when=asyncio.FIRST_COMPLETED)
        for task in waits:
            if task not in done:
                task.cancel()
        if stop.is_set():
            return
        for task in done:
            if task in waits:
                child = waits[task]
                child.restarts += 1
                console.print(f"[red]{child.name} exited ({task.result()}); restarting[/]")
                await asyncio.sleep(min(0.5 * child.restarts, 5))  # back off a crash loop
                await child.start()
