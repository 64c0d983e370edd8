"""The `tabula` command as a user runs it: up with a demo game, replay, verify, tamper, restart."""

import asyncio
import base64
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis

from contracts.envelope import StoredEvent
from services.client.client import Client
from services.runtime.config import Settings, read_stack
from services.runtime.eventstore import EventStore
from services.runtime.keys import GAMES_INDEX, commands_key, log_key, meta_key
from tests.contracts.test_golden import load

TABULA = str(Path(sys.executable).parent / "tabula")
GOLDEN = Path(__file__).parents[1] / "contracts" / "golden"
# Nothing listens on port 1: both connections are refused at once.
NOWHERE = ("nats://127.0.0.1:1", "redis://127.0.0.1:1")


def tabula(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("NATS_URL", "REDIS_URL", "DATABASE_URL")
    }
    return subprocess.run(
        [TABULA, *args],
        env={**env, "TABULA_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def tabula_at(home: Path, urls: tuple[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The command pointed at given servers (NATS_URL, REDIS_URL), as a user sets them."""
    env = {**os.environ, "TABULA_HOME": str(home), "NATS_URL": urls[0], "REDIS_URL": urls[1]}
    return subprocess.run([TABULA, *args], env=env, capture_output=True, text=True, timeout=120,
                          check=False)  # fmt: skip


def one_line_error(result: subprocess.CompletedProcess[str], code: int, *words: str) -> None:
    """Exit `code`, nothing on stdout, one line on stderr holding `words`, no traceback."""
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    assert result.returncode == code, (result.returncode, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0], lines[0]


def start_up(home: Path, *args: str) -> subprocess.Popen[str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("NATS_URL", "REDIS_URL", "DATABASE_URL")
    }
    return subprocess.Popen(
        [TABULA, "up", "--port", "0", *args],
        env={**env, "TABULA_HOME": str(home)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


async def store_head(admin_redis_url: str, game_id: str) -> tuple[int, str]:
    store = EventStore.from_url(admin_redis_url)
    try:
        head = await store.head(game_id)
        assert head is not None
        return head.version, head.hash
    finally:
        await store.close()


def archived_head(postgres_url: str, game_id: str, timeout: float = 30.0) -> tuple[int, str]:
    """The archived game's (head version, head hash), read as the auditor, once the archiver
    has copied it (a condition, polled within a bound)."""
    import psycopg

    deadline = time.monotonic() + timeout
    with psycopg.connect(postgres_url) as conn:
        while True:
            row = conn.execute("SELECT head_version, head_hash FROM archived_games "
                               "WHERE game_id = %s", (game_id,)).fetchone()  # fmt: skip
            conn.commit()
            if row is not None:
                return row[0], row[1]
            assert time.monotonic() < deadline, f"{game_id} was not archived in {timeout} s"
            time.sleep(0.1)  # poll interval


def left_valkey(admin_redis_url: str, game_id: str, timeout: float = 30.0) -> None:
    """Until the game's keys are removed from Valkey, its meta a tombstone (a condition, polled
    within a bound)."""

    async def poll() -> None:
        redis = aioredis.from_url(admin_redis_url)
        try:
            deadline = time.monotonic() + timeout
            while await redis.hget(meta_key(game_id), "archived") != b"1":
                assert time.monotonic() < deadline, f"{game_id} still in Valkey after {timeout} s"
                await asyncio.sleep(0.1)  # poll interval
        finally:
            await redis.aclose()

    asyncio.run(poll())


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
        # The gateway is up at the URL printed, and serves the game the demo played
        url = re.search(r"Open (http://\S+/)", shown)
        assert url, shown
        lobby = httpx.get(url.group(1) + "api/rulesets", timeout=30)
        assert "chess3d" in [r["name"] for r in lobby.json()]
        served = httpx.get(url.group(1) + f"api/games/{game_id}", timeout=30).json()
        assert served["view"]["result"]
        # Credentials stay the operator's: nothing under .tabula/ that holds one is readable
        # by other users.
        for secret in (home / "stack.json", home / "redis", *(home / "secrets").iterdir()):
            assert secret.stat().st_mode & 0o077 == 0, secret

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
        # The archiver copied the sealed demo game into PostgreSQL (its head the store's), then
        # had its keys removed from Valkey: verify, audit and replay read it from the archive
        # and say so, and the game page still shows it.
        head = asyncio.run(store_head(stack.admin_redis_url, game_id))
        assert archived_head(stack.postgres_url, game_id) == head
        left_valkey(stack.admin_redis_url, game_id)
        verified = tabula(home, "verify", game_id)
        assert verified.returncode == 0, verified.stderr
        assert f"OK: {head[0]} events" in verified.stdout
        assert "(the head the archive recorded at the seal)" in verified.stdout
        assert "read from: the archive (PostgreSQL)" in verified.stdout
        audited = tabula(home, "audit", game_id)
        assert audited.returncode == 0, audited.stdout + audited.stderr
        assert "from the archive (PostgreSQL)" in audited.stdout
        replayed = tabula(home, "replay", game_id)
        assert replayed.returncode == 0, replayed.stderr
        assert f"position: {served_position}" in replayed.stdout
        served = httpx.get(url.group(1) + f"api/games/{game_id}", timeout=30).json()
        assert served["view"]["result"]
        assert served["view"]["version"] == head[0]

        def tamper() -> int:
            """Rewrite the archived log with one body byte changed (its head kept): only the
            operator (PostgreSQL's superuser) can."""
            import psycopg

            from services.runtime import access, archived
            from services.runtime.embedded import PG_SUPERUSER

            creds = access.load_or_create(home / "secrets")
            url = access.with_user(stack.postgres_url, PG_SUPERUSER, creds.postgres[PG_SUPERUSER])
            with psycopg.connect(url) as conn:
                fmt, log = conn.execute("SELECT format, log FROM archived_games WHERE game_id = %s",
                                        (game_id,)).fetchone()  # fmt: skip
                entries = archived.unpack_log(bytes(log), fmt)
                victim = next(i for i, (_, f) in enumerate(entries[len(entries) // 2 :],
                                                           len(entries) // 2)
                              if b'"seat":' in f[b"body"])  # fmt: skip
                fields = entries[victim][1]
                fields[b"body"] = fields[b"body"].replace(b'"seat":', b'"seat": ', 1)
                conn.execute("UPDATE archived_games SET log = %s WHERE game_id = %s",
                             (archived.pack_log(entries), game_id))  # fmt: skip
            return int(entries[victim][1][b"v"])

        bad_version = tamper()
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
    assert "yavoch declares no perft" in dice.stderr


def test_legal_lists_every_legal_move_sorted_then_the_total(tmp_path: Path) -> None:
    """`tabula legal`: the moves of every seat to act, one a line, sorted, then `total N`
    (YI-10.1: 78 from Yiora's start; both games' first movers in Secondary Basic)."""
    shown = tabula(tmp_path, "legal", "yiora").stdout.splitlines()
    assert shown[-1] == "total 78"
    assert shown[:-1] == sorted(shown[:-1])
    assert "O5-R10" in shown
    assert "resign" not in shown
    basic = tabula(tmp_path, "legal", "yiora", "--variant", "secondary_basic").stdout
    assert basic.splitlines()[-1] == "total 156"
    assert "wsq:O6-R11" in basic.splitlines()
    secondary = tabula(tmp_path, "perft", "yiora", "--variant", "secondary_complex", "--depth", "2")
    assert secondary.stdout.strip() == "6084"
    bad = tabula(tmp_path, "legal", "yiora", "--position", "nonsense")
    assert bad.returncode == 2
    assert "ruleset/bad-position" in bad.stderr


def test_rulesets_lists_every_ruleset_with_its_variants_and_parameters(tmp_path: Path) -> None:
    """`tabula rulesets` (no stack needed): every ruleset, its named variants and parameters
    with their allowed values and defaults; --json the same for machines."""
    shown = tabula(tmp_path, "rulesets")
    assert shown.returncode == 0, shown.stderr
    for name, default in (("chess3d", "every default"), ("cyvasse", "A"), ("yavoch", "decker")):
        assert f'{name} (variant "" is {default})' in shown.stdout.splitlines()
    for line in (
        r"repetition_count +an integer of at least 2; default 3",
        r"hand_limit +an integer of at least 3; default 5; full ruleset only",
        r"board +square8, square10 or hex91; default square8",
    ):
        assert re.search(rf"^ +{line}$", shown.stdout, re.MULTILINE), line
    machine = tabula(tmp_path, "rulesets", "--json")
    assert machine.returncode == 0, machine.stderr
    rulesets = {r["name"]: r for r in json.loads(machine.stdout)}
    assert {"chess3d", "cyvasse", "yavoch"} <= set(rulesets)
    yavoch = rulesets["yavoch"]
    assert [v["name"] for v in yavoch["variants"]] == ["decker", "full"]
    hand_limit = next(p for p in yavoch["parameters"] if p["name"] == "hand_limit")
    assert (hand_limit["type"], hand_limit["default"], hand_limit["minimum"]) == ("int", 5, 3)
    assert hand_limit["only"] == ["full"]


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


# -- the store's head: a log cut short (issue 9, attack 6) -----------------------------------------


async def forget(redis: "aioredis.Redis", game_id: str) -> None:
    await redis.delete(log_key(game_id), meta_key(game_id), commands_key(game_id))
    await redis.zrem(GAMES_INDEX, game_id)


async def imported(store: EventStore, redis: "aioredis.Redis", name: str) -> list[StoredEvent]:
    """A golden game loaded into the session's store as `tabula import` loads it."""
    stored = load(GOLDEN / f"{name}.jsonl")
    await forget(redis, stored[0].game_id)
    await store.import_log(stored)
    return stored


async def test_a_log_cut_short_fails_verify_and_audit_naming_the_missing_events(
    store: EventStore, redis: "aioredis.Redis", role_settings: Callable[[str], Settings],
    tmp_path: Path,
) -> None:  # fmt: skip
    """The operator deletes a finished game's last event, then its last three (end, seed
    reveal, seal), with XDEL. What is left is a valid chain that looks like a game in play;
    the store's head (meta) names the cut. The untouched game still passes."""
    auditor = role_settings("auditor")  # the CLI's read-only user

    async def tabula_as_auditor(*args: str) -> subprocess.CompletedProcess[str]:
        urls = (auditor.nats_url, auditor.redis_url)
        return await asyncio.to_thread(tabula_at, tmp_path, urls, *args)

    cut = await imported(store, redis, "yavoch-decker-v1")
    kept = await imported(store, redis, "yavoch-full-v1")
    game, n = cut[0].game_id, len(cut)
    assert [s.type for s in cut[-3:]] == ["GameEnded", "SeedRevealed", "GameSealed"]
    try:
        for command in ("verify", "audit"):
            assert (await tabula_as_auditor(command, game)).returncode == 0

        for deleted, missing in (
            ([n], f"the log ends at {n - 1}: event {n} is missing"),
            ([n - 1, n - 2], f"the log ends at {n - 3}: events {n - 2}..{n} are missing"),
        ):
            assert await redis.xdel(log_key(game), *(f"0-{v}" for v in deleted)) == len(deleted)
            verify = await tabula_as_auditor("verify", game)
            one_line_error(verify, 1, "FAILED", f"store's head is at version {n}", missing)
            audit = await tabula_as_auditor("audit", game)
            assert audit.returncode == 1, audit.stdout
            assert "Traceback" not in audit.stdout + audit.stderr
            assert missing in audit.stdout
            assert f"FAILED: the first discrepancy is at event {min(deleted)} (missing)" in (
                audit.stdout
            )

        for command in ("verify", "audit"):
            untouched = await tabula_as_auditor(command, kept[0].game_id)
            assert untouched.returncode == 0, untouched.stdout + untouched.stderr
    finally:
        await forget(redis, game)
        await forget(redis, kept[0].game_id)


# -- errors are one line, never a traceback ------------------------------------------------------


CONNECTING = [("games",), ("log", "g-x"), ("verify", "g-x"), ("audit", "g-x"),
              ("replay", "g-x"), ("export", "g-x"), ("demo",)]  # fmt: skip


@pytest.mark.parametrize("args", CONNECTING, ids=lambda args: args[0])
def test_unreachable_servers_are_one_line(tmp_path: Path, args: tuple[str, ...]) -> None:
    """Servers that refuse the connection: one line naming what cannot be reached, exit 1."""
    one_line_error(tabula_at(tmp_path, NOWHERE, *args), 1, "cannot reach")


BAD_DEMOS = [(("--ruleset", "nosuch"), "unknown ruleset 'nosuch'"),
             (("--variant", "bogus"), "ruleset/bad-variant"),
             (("--ruleset", "cyvasse", "--variant", "Z"), "unknown variant item 'Z'")]  # fmt: skip


@pytest.mark.parametrize(("args", "says"), BAD_DEMOS)
def test_demo_with_a_bad_ruleset_or_variant_is_a_usage_error(
    tmp_path: Path, args: tuple[str, ...], says: str
) -> None:
    """Checked before anything connects: the servers are not even reachable here."""
    one_line_error(tabula_at(tmp_path, NOWHERE, "demo", *args), 2, says)


async def test_replay_and_export_refuse_bad_arguments_in_one_line(
    store: EventStore, redis: "aioredis.Redis", role_settings: Callable[[str], Settings],
    tmp_path: Path,
) -> None:  # fmt: skip
    """`replay --to` outside the log, `export -o` where no file can be written, and `replay
    --file` of an export whose event does not decode."""
    auditor = role_settings("auditor")
    stored = await imported(store, redis, "chess3d-v1")
    game, n = stored[0].game_id, len(stored)

    def tabula_as_auditor(*args: str) -> subprocess.CompletedProcess[str]:
        return tabula_at(tmp_path, (auditor.nats_url, auditor.redis_url), *args)

    try:
        for to in ("0", str(n + 1)):
            replay = await asyncio.to_thread(tabula_as_auditor, "replay", game, "--to", to)
            one_line_error(replay, 2, f"--to {to} is not a version of {game} (1..{n})")
        a_file = tmp_path / "a-file"
        a_file.write_text("")
        for path, why in ((tmp_path / "nonexistent" / "x.jsonl", "No such file or directory"),
                          (a_file / "x.jsonl", "Not a directory")):  # fmt: skip
            export = await asyncio.to_thread(tabula_as_auditor, "export", game, "-o", str(path))
            one_line_error(export, 2, f"cannot write {path}: {why}")
            assert not path.exists()

        path = tmp_path / "game.jsonl"
        exported = await asyncio.to_thread(tabula_as_auditor, "export", game, "-o", str(path))
        assert exported.returncode == 0, exported.stderr
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        lines[1]["body_b64"] = base64.b64encode(b'{"type":"Nope"}').decode()
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        replay = await asyncio.to_thread(tabula_as_auditor, "replay", "--file", str(path))
        one_line_error(replay, 1, f"cannot replay {path}", "tabula audit")
    finally:
        await forget(redis, game)


def children_of(pid: int) -> list[int]:
    return [int(p) for p in (Path(f"/proc/{pid}/task/{pid}/children").read_text().split())]


def test_one_stack_per_directory_and_nothing_outlives_a_killed_stack(tmp_path: Path) -> None:
    """A second `tabula up` on the same data directory is refused in one line (two would write
    one append-only file); and when `tabula up` is killed outright, every server and service
    it started goes with it (issue 10)."""
    home = tmp_path / "home"
    up = start_up(home)
    try:
        read_until(up, "Serving")
        second = tabula(home, "up")
        assert second.returncode == 1
        assert "already running" in second.stderr
        assert len(second.stderr.strip().splitlines()) == 1
        started = children_of(up.pid)
        # nats-server, valkey, postgres, 2 rules replicas, randomness, matchmaking, the
        # archiver, the projector, the bots, the gateway
        commands = [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in started]
        assert len(started) == 11, commands
    finally:
        up.kill()  # SIGKILL: no handler runs, no cleanup
        up.communicate(timeout=30)
    for _attempt in range(600):  # until the kernel has ended them all (polled, bounded)
        alive = [pid for pid in started if Path(f"/proc/{pid}").exists()
                 and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()]  # fmt: skip
        if not alive:
            break
        time.sleep(0.05)
    assert not alive, f"still running after their parent was killed: {alive}"


# What the CLI's entry must not import before a command needs it (issue 20, item 16): the
# rulesets and their registry, NATS and Redis take most of a second.
HEAVY = ("nats", "redis", "domain.registry", "domain.chess3d", "domain.cyvasse", "domain.yavoch",
         "domain.yiora", "domain.spacewar", "domain.spacewar_ha")  # fmt: skip
IMPORTED = """
import json, sys
heavy = sys.argv[1:]
def loaded():
    return sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy))
import services.cli.main
from typer.testing import CliRunner
entry = loaded()
shown = CliRunner().invoke(services.cli.main.app, ["keys", "--help"])
print(json.dumps({"entry": entry, "help": loaded(), "code": shown.exit_code,
                  "output": shown.output}))
"""


def test_the_cli_entry_and_a_commands_help_import_no_ruleset_nats_or_redis() -> None:
    """Importing the CLI's entry, then `tabula keys --help`, in a fresh interpreter: none of the
    rulesets, the registry, nats or redis is in sys.modules; the help is the command's own."""
    probe = subprocess.run([sys.executable, "-c", IMPORTED, *HEAVY], capture_output=True,
                           text=True, timeout=120, check=True)  # fmt: skip
    seen = json.loads(probe.stdout)
    assert seen["entry"] == [], seen["entry"]
    assert seen["help"] == [], seen["help"]
    assert seen["code"] == 0, seen["output"]
    assert "The public keys the rules service signs receipts" in seen["output"]


# Finished positions (issue 20, item 15): 3-D Chess after IIH1-IIA1 mates (C3-R25's example),
# and after IC2-IB3 stalemates; Yiora's bsq game mated (Black to move, no escape).
MATED_3D = "8/8/8/8/8/8/8/k7|8/8/8/8/8/8/8/Q7|8/8/8/8/8/8/8/K7 b - - - 0 1 -"
STALEMATED_3D = "8/8/8/8/8/1Q6/8/k7|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/K7 b - - - 0 1 -"
MATED_BSQ = "bsq:b W:OA1,MA9,PO15 B:OA19,MR20 0 1"
START_WSQ = ("wsq:g G:OA2,MA36,MA4,MR1,MR3,PO34,PO36,PO4,PO6 "
             "S:OA20,MA18,MA22,MR19,MR21,PO16,PO18,PO22,PO24 0 1")  # fmt: skip


def test_legal_and_perft_read_a_mate_and_a_stalemate_as_chess_tools_do(tmp_path: Path) -> None:
    """A 3-D Chess position whose game is over loads: its result first, no move, perft 0."""
    # C3-7.1, C3-7.2
    mate = tabula(tmp_path, "legal", "chess3d", "--position", MATED_3D)
    assert (mate.returncode, mate.stdout.splitlines()) == (0, ["game over: 1-0 (checkmate)",
                                                               "total 0"])  # fmt: skip
    counted = tabula(tmp_path, "perft", "chess3d", "--position", MATED_3D, "--depth", "2")
    assert counted.stdout.splitlines() == ["game over: 1-0 (checkmate)", "0"]
    stale = tabula(tmp_path, "legal", "chess3d", "--position", STALEMATED_3D)
    assert stale.stdout.splitlines() == ["game over: 1/2-1/2 (stalemate)", "total 0"]
    # Cyvasse version A: White's lone King is stalemated (CY-7.2)
    cyvasse = "side=w; white=Ka1; black=Ea5 Eb4 Ra3 Kh8; terrain=; reserve=-; storm=-"
    shown = tabula(tmp_path, "perft", "cyvasse", "--variant", "A", "--position", cyvasse)
    assert shown.stdout.splitlines() == ["game over: 1/2-1/2 (stalemate)", "0"]


def test_legal_reads_a_secondary_yiora_position_with_one_game_over(tmp_path: Path) -> None:
    """One game of a Secondary Yiora over: its result first, then only the other game's moves
    (the mated side has none); perft counts the other game alone."""
    # YI-8.2, YI-8.4.1, YI-8.3
    position = f"{MATED_BSQ} | {START_WSQ}"
    for variant in ("secondary_complex", "secondary_basic"):
        shown = tabula(tmp_path, "legal", "yiora", "--variant", variant, "--position", position)
        lines = shown.stdout.splitlines()
        assert lines[0] == "game bsq over: 1-0 (checkmate)", (variant, shown.stderr)
        assert lines[-1] == "total 78"  # YI-10.1: the white-square game's first moves
        assert all(line.startswith("wsq:") for line in lines[1:-1])
    counted = tabula(tmp_path, "perft", "yiora", "--variant", "secondary_complex", "--position",
                     position, "--depth", "2")  # fmt: skip
    # game wsq alone, its start the twin of Primary Basic's: 6052 two plies deep
    assert counted.stdout.splitlines() == ["game bsq over: 1-0 (checkmate)", "6052"]


def test_legal_reads_a_finished_spacewar_or_yavoch_position(tmp_path: Path) -> None:
    """Spacewar without a Black Mothership, Spacewar H/A without Black Bases, Yavoch without
    player two's Command ship: the result first, and no action."""
    # SW-8.1, HA-8.1, Y-8.1
    spacewar = ("t=1 p=4 s=combat a=w passes=0 moved=- hit=1 W=Ka1,Pa2 B=Pb11 hits=- window=- "
                "pending=0,0")  # fmt: skip
    ha = "b 3 0 Re7:9/6,ka1:9/18/6 Wd2:36/72,Bd7:x,Be7:x -"
    yavoch = "1C111:2 1T112 2T244 / 1"
    cases = (("spacewar", spacewar, "1-0 (motherships)"), ("spacewar-ha", ha, "1-0 (bases)"),
             ("yavoch", yavoch, "1-0 (command_ship_destroyed)"))  # fmt: skip
    for ruleset, position, result in cases:
        shown = tabula(tmp_path, "legal", ruleset, "--position", position)
        assert shown.stdout.splitlines() == [f"game over: {result}", "total 0"], shown.stderr


# -- an edited export, a malformed entry (issue 20, items 13 and 14) -----------------------------


def test_audit_of_an_export_whose_readable_copy_was_edited_names_the_line(tmp_path: Path) -> None:
    """`tabula audit --file`, offline: a line whose `event` (what a person reads) no longer is
    its body_b64 (what the chain covers and the audit checks) fails, naming the line and its
    event; the export as written passes, every readable copy counted."""
    from services.runtime.codec import export_line

    stored = load(GOLDEN / "chess3d-v1.jsonl")
    path = tmp_path / "game.jsonl"
    path.write_bytes(b"".join(export_line(s) for s in stored))
    passed = tabula_at(tmp_path, NOWHERE, "audit", "--file", str(path))
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert f"✓ export: {len(stored)} readable copies (event) match body_b64" in passed.stdout
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    victim = next(line for line in lines if line["type"] == "MovePlayed" and line["version"] > 5)
    v = victim["version"]
    victim["event"]["move"] = "IA1-IA8"  # body_b64 untouched: the chain still verifies
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    edited = tabula_at(tmp_path, NOWHERE, "audit", "--file", str(path))
    assert edited.returncode == 1, edited.stdout
    assert "Traceback" not in edited.stdout + edited.stderr
    assert (f"✗ event {v} (MovePlayed): line {v}: its readable copy (event) is not its body_b64 "
            "decoded: the export was edited, and what it shows a reader is not what was "
            "audited") in edited.stdout  # fmt: skip
    assert f"FAILED: the first discrepancy is at event {v} (MovePlayed)" in edited.stdout


# What reads a game from the store, with what a malformed entry in it must stop.
READERS = {"no fields": ("verify", "audit", "log", "replay", "export"), "cmd": ("verify", "audit")}


@pytest.mark.parametrize("case", READERS)
async def test_a_malformed_entry_fails_verify_and_audit_in_one_line_naming_it(
    case: str, store: EventStore, redis: "aioredis.Redis",
    role_settings: Callable[[str], Settings], tmp_path: Path,
) -> None:  # fmt: skip
    """An entry the rules service's user wrote with XADD rather than the append script (no
    version, time, command id or hash; a command id that is not UTF-8): every command that
    reads the game names the game, the entry and what is wrong, in one line, exit 1, no
    traceback."""
    from tests.services.test_corrupt_entry import write_malformed

    auditor = role_settings("auditor")
    urls = (auditor.nats_url, auditor.redis_url)
    stored = await imported(store, redis, "chess3d-v1")
    game = stored[0].game_id
    try:
        said = await write_malformed(role_settings("rules").redis_url, game, len(stored), case)
        for command in READERS[case]:
            to = ("-o", str(tmp_path / "x.jsonl")) if command == "export" else ()
            result = await asyncio.to_thread(tabula_at, tmp_path, urls, command, game, *to)
            one_line_error(result, 1, "FAILED", f"game {game}: {said}")
        assert not (tmp_path / "x.jsonl").exists()
    finally:
        await forget(redis, game)
