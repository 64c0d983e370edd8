"""`tabula up` stopped as a terminal stops it, and started again on the same data directory
(issue 20, item 11): Ctrl-C reaches the supervisor alone, which drains the services in order
while the servers still run; the servers keep their ports from one run to the next (PostgreSQL's
too: it stops last, after Valkey)."""

import asyncio
import json
import os
import signal
import socket
import subprocess
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
from prometheus_client.parser import text_string_to_metric_families

from contracts.commands import Receipt
from domain.registry import find_ruleset
from services.client.client import Client
from services.runtime.config import StackFile, read_stack
from services.runtime.eventstore import EventStore
from tests.e2e.test_cli import TABULA, children_of, read_until

GAMES = 12  # commands in flight when Ctrl-C comes: one first move in each of these games
STOPPED = ["gateway", "bots", "matchmaking", "rules-0", "rules-1", "randomness", "archiver",
           "projector", "nats-server", "valkey", "postgres"]  # fmt: skip


def start_up(home: Path) -> subprocess.Popen[str]:
    """`tabula up` as a shell runs a foreground job: the leader of a process group of its own,
    which a terminal's Ctrl-C signals as a whole."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("NATS_URL", "REDIS_URL", "DATABASE_URL")}  # fmt: skip
    return subprocess.Popen([TABULA, "up", "--port", "0"], env={**env, "TABULA_HOME": str(home)},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)  # fmt: skip


def ctrl_c(up: subprocess.Popen[str]) -> str:
    """SIGINT to `tabula up`'s whole process group, as a terminal sends it; its output to the
    end, once it exited 0."""
    os.killpg(up.pid, signal.SIGINT)
    out, _ = up.communicate(timeout=120)
    assert up.returncode == 0, out
    return out


def addresses(stack: StackFile) -> tuple[str, str, str]:
    """The NATS, Valkey and PostgreSQL host:port a client of the stack is given."""
    nats, redis = urlsplit(stack.nats_url), urlsplit(stack.redis_url)
    pg = urlsplit(stack.postgres_url)
    return (
        f"{nats.hostname}:{nats.port}",
        f"{redis.hostname}:{redis.port}",
        f"{pg.hostname}:{pg.port}",
    )


def server_pid(up: subprocess.Popen[str], word: str) -> int:
    (pid,) = [p for p in children_of(up.pid) if word in Path(f"/proc/{p}/cmdline").read_text()]
    return pid


def scraped(url: str, name: str, **labels: str) -> float:
    """A sample's value on a process's metrics page (0 when absent)."""
    with urllib.request.urlopen(url, timeout=10) as page:
        text = page.read().decode()
    return sum(sample.value for family in text_string_to_metric_families(text)
               for sample in family.samples
               if sample.name == name and sample.labels == labels)  # fmt: skip


def log_lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.startswith("{")]


async def test_ctrl_c_drains_every_command_in_flight_then_the_servers_keep_their_ports(
    tmp_path: Path,
) -> None:
    """Ctrl-C while first moves of 12 games are in flight (Valkey is frozen under them, so none
    can be answered before the signal): every one is answered with its receipt and is in the
    store; the services stop in order (gateway, matchmaking, rules, randomness), each draining
    on a live bus, then nats-server, then Valkey. A second `tabula up` on the same directory
    listens on the same NATS and Valkey ports; a third, whose NATS port someone else holds,
    says so and takes another one. PostgreSQL stops last, cleanly (its own log says so), and
    comes back on its port, migrated, to its read-only user."""
    home = tmp_path / "home"
    rs = find_ruleset("chess3d")
    start = rs.start(rs.create(""))
    move = rs.format_action(start, rs.legal_actions(start, 0)[0])

    up = start_up(home)
    try:
        shown = await asyncio.to_thread(read_until, up, "Serving")
        first = read_stack(home)
        assert first is not None
        assert set(first.metrics) == set(STOPPED[:8])  # every process: where its metrics are
        said = " ".join(shown.split())  # as wrapped to the terminal's width
        assert all(f"{name} {url}" in said for name, url in first.metrics.items()), shown
        # One attempt each, answered within 30 s or failed: an unanswered command shows.
        client = await Client.connect(first.nats_url, timeout=30.0, retries=0)
        try:
            games = [await client.create_game("chess3d") for _ in range(GAMES)]
            # Each replica counts the creates it made: together, every one
            creates = {"ruleset": "chess3d", "command": "create", "outcome": "ok"}
            made = sum(scraped(first.metrics[r], "tabula_commands_total", **creates)
                       for r in ("rules-0", "rules-1"))  # fmt: skip
            assert made == GAMES
            valkey = server_pid(up, "valkey")
            os.kill(valkey, signal.SIGSTOP)
            try:
                sent = [asyncio.create_task(client.act(g.game_id, 0, g.seats[0].token, move,
                                                       command_id=f"in-flight-{i}"))
                        for i, g in enumerate(games)]  # fmt: skip
                await client.nc.flush()  # nats-server has them all, routed to the replicas
                os.killpg(up.pid, signal.SIGINT)
            finally:
                os.kill(valkey, signal.SIGCONT)
            answers = await asyncio.gather(*sent, return_exceptions=True)
        finally:
            await client.nc.close()  # not drained: the bus is gone by now
        said = await asyncio.to_thread(ctrl_c, up)
    finally:
        if up.returncode is None:
            up.kill()
            up.communicate(timeout=30)
    assert all(isinstance(a, Receipt) for a in answers), answers
    stopped = [line.split()[0] for line in said.splitlines() if line.endswith(" stopped")]
    assert stopped == STOPPED, said
    assert "database system is shut down" in (home / "postgres" / "postgres.log").read_text()
    drains = {}  # each service's drain on a live bus: (began, ended), from its own log
    for name in (
        "bots",
        "matchmaking",
        "rules-0",
        "rules-1",
        "randomness",
        "archiver",
        "projector",
    ):
        lines = log_lines(home / "logs" / f"{name}.log")
        (began,) = [line for line in lines if line["event"] == "draining"]
        assert began["connected"] is True, (name, began)
        (ended,) = [line for line in lines if line["event"] == "stopped"]
        assert ended["lost_bus"] is False, (name, ended)
        assert not [line for line in lines if "cancelled" in str(line["event"])], name
        drains[name] = (str(began["timestamp"]), str(ended["timestamp"]))
    replicas = (drains["rules-0"], drains["rules-1"])
    assert drains["bots"][1] <= drains["matchmaking"][0], drains
    assert drains["matchmaking"][1] <= min(began for began, _ in replicas), drains
    assert max(ended for _, ended in replicas) <= drains["randomness"][0], drains
    assert drains["randomness"][1] <= drains["archiver"][0], drains
    assert drains["archiver"][1] <= drains["projector"][0], drains

    up = start_up(home)
    try:
        await asyncio.to_thread(read_until, up, "Serving")
        second = read_stack(home)
        assert second is not None
        assert addresses(second) == addresses(first)
        with psycopg.connect(second.postgres_url) as pg:
            assert pg.execute("SELECT current_user, count(*) FROM archived_games").fetchone() == (
                "auditor",
                0,
            )
        store = EventStore.from_url(second.admin_redis_url)
        try:
            for receipt, i in zip(answers, range(GAMES), strict=True):
                assert isinstance(receipt, Receipt)
                logged = await store.read_all(receipt.game_id)
                mine = [s.version for s in logged if s.command_id == f"in-flight-{i}"]
                assert mine == list(range(receipt.first_version, receipt.version + 1))
                assert logged[receipt.version - 1].hash == receipt.hash
        finally:
            await store.close()
        await asyncio.to_thread(ctrl_c, up)
    finally:
        if up.returncode is None:
            up.kill()
            up.communicate(timeout=30)

    nats_port = int(addresses(first)[0].rsplit(":", 1)[1])
    with socket.socket() as squatter:  # someone else on the NATS port now
        squatter.bind(("127.0.0.1", nats_port))
        squatter.listen()
        up = start_up(home)
        try:
            shown = " ".join((await asyncio.to_thread(read_until, up, "Serving")).split())
            third = read_stack(home)
            assert third is not None
            assert addresses(third)[0] != addresses(first)[0]
            assert addresses(third)[1:] == addresses(first)[1:]
            assert f"nats-server's port {nats_port}" in shown
            assert "taken by another process" in shown
            await asyncio.to_thread(ctrl_c, up)
        finally:
            if up.returncode is None:
                up.kill()
                up.communicate(timeout=30)
