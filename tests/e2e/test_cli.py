"""The `tabula` command as a user runs it: up with a demo game, replay, verify, tamper, restart."""

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from services.client.client import Client
from services.runtime.config import read_stack
from services.runtime.eventstore import EventStore, log_key

TABULA = str(Path(sys.executable).parent / "tabula")


def tabula(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NATS_URL", "REDIS_URL")}
    return subprocess.run(
        [TABULA, *args],
        env={**env, "TABULA_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def start_up(home: Path, *args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NATS_URL", "REDIS_URL")}
    return subprocess.Popen(
        [TABULA, "up", *args],
        env={**env, "TABULA_HOME": str(home)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def read_until(proc: subprocess.Popen[str], marker: str) -> str:
    """Read the process's output until a line contains `marker` (or it exits)."""
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if marker in line:
            return "".join(seen)
    raise AssertionError(f"`tabula up` exited before {marker!r}:\n{''.join(seen)}")


def stop(proc: subprocess.Popen[str]) -> str:
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    return out


def test_up_demo_replay_verify_tamper_and_restart(tmp_path: Path) -> None:
    home = tmp_path / "home"
    up = start_up(home, "--demo", "1")
    try:
        shown = read_until(up, "Serving")
        game = re.search(r"tabula replay (g-[0-9a-f]+)", shown)  # .venv/bin/tabula off PATH
        assert game, shown
        game_id = game.group(1)
        stack = read_stack(home)
        assert stack is not None

        replay = tabula(home, "replay", game_id)
        assert replay.returncode == 0, replay.stderr
        position = re.search(r"position: (.+)", replay.stdout)
        assert position

        async def service_view() -> tuple[str, int]:
            client = await Client.connect(stack.nats_url)
            try:
                view = await client.view(game_id)
                return view.position, view.version
            finally:
                await client.close()

        served_position, served_version = asyncio.run(service_view())
        assert position.group(1) == served_position  # replay == the state rules held
        assert f"version {served_version}," in replay.stdout
        assert tabula(home, "verify", game_id).returncode == 0

        async def tamper() -> int:
            """Rewrite the stream with one body byte changed (ids and hashes kept)."""
            store = EventStore.from_url(stack.redis_url)
            try:
                entries = await store.redis.xrange(log_key(game_id))
                victim = len(entries) // 2
                await store.redis.delete(log_key(game_id))
                for i, (entry_id, fields) in enumerate(entries):
                    if i == victim:
                        fields[b"body"] = fields[b"body"].replace(b'"seat":', b'"seat": ', 1)
                    await store.redis.xadd(log_key(game_id), fields, id=entry_id)
                return int(entries[victim][1][b"v"])
            finally:
                await store.close()

        bad_version = asyncio.run(tamper())
        verify = tabula(home, "verify", game_id)
        assert verify.returncode == 1
        assert f"event {bad_version} " in verify.stderr
    finally:
        if up.poll() is None:
            stop(up)
    assert read_stack(home) is None  # the stack file goes with the stack

    # The embedded Valkey kept its data: a restarted stack still has the game.
    up = start_up(home)
    try:
        read_until(up, "Serving")
        games = tabula(home, "games")
        assert game_id in games.stdout
    finally:
        stop(up)


def test_commands_without_a_stack_say_how_to_start_one(tmp_path: Path) -> None:
    result = tabula(tmp_path, "games")
    assert result.returncode == 2
    assert "tabula up" in result.stderr


def test_perft_prints_the_leaf_count(tmp_path: Path) -> None:
    assert tabula(tmp_path, "perft", "chess3d", "--depth", "2").stdout.strip() == "5768"
    bad = tabula(tmp_path, "perft", "chess3d", "--position", "nonsense")
    assert bad.returncode == 2
    assert "ruleset/bad-position" in bad.stderr
    dice = tabula(tmp_path, "perft", "yavoch")
    assert dice.returncode == 2
    assert "yavoch has no perft" in dice.stderr


def test_demo_yavoch_audits_every_game_and_replay_draws_the_levels(tmp_path: Path) -> None:
    """`tabula demo --ruleset yavoch --audit`: bots play, then every game passes the audit;
    `tabula replay` draws the five levels side by side."""
    home = tmp_path / "home"
    up = start_up(home)
    try:
        read_until(up, "Serving")
        demo = tabula(home, "demo", "--ruleset", "yavoch", "--variant", "full+turn_limit=30",
                      "--games", "2", "--audit")  # fmt: skip
        assert demo.returncode == 0, demo.stderr
        assert "audit: 2 of 2 games pass" in demo.stderr
        game = re.search(r"Game (g-[0-9a-f]+)", demo.stderr)
        assert game, demo.stderr
        replay = tabula(home, "replay", game.group(1))
        assert replay.returncode == 0, replay.stderr
        assert re.search(r"level 1 +level 2 +level 3 +level 4 +level 5", replay.stdout)
    finally:
        stop(up)
