"""Attacks on PostgreSQL, as psql would make them with each role's credentials: the archiver adds
to the archive and reads it but never changes, removes or reshapes a row or a table; the read
roles write nothing; nobody else gets in (a wrong password, an unknown role, a role to another
database, the superuser without the private socket); and the server listens on loopback alone.
Each refusal is PostgreSQL's own (permission denied, authentication failed, no pg_hba entry) and
the archive is unchanged."""

import os
import stat
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from services.runtime.access import PG_DATABASE, PG_ROLES, with_user, write_server_files
from services.runtime.embedded import postgres_binary
from tests.conftest import Postgres

ARCHIVE = ("archived_games", "archived_events", "archived_commands")
READERS = ("projector", "gateway", "auditor", "rules")


def changes(game: str) -> list[str]:
    """What a role without the owner's rights tries on the archive and the schema."""
    return [
        f"UPDATE archived_games SET result = '0-1' WHERE game_id = '{game}'",
        f"UPDATE archived_events SET body = 'x' WHERE game_id = '{game}'",
        f"DELETE FROM archived_events WHERE game_id = '{game}'",
        f"DELETE FROM archived_commands WHERE game_id = '{game}'",
        f"DELETE FROM archived_games WHERE game_id = '{game}'",
        "TRUNCATE archived_events",
        "DROP TABLE archived_events",
        "ALTER TABLE archived_games ADD COLUMN forged text",
        "ALTER TABLE archived_events DROP CONSTRAINT archived_events_pkey",
        "CREATE TABLE mine (x int)",
        "CREATE INDEX ON archived_games (result)",
        "SELECT * FROM schema_migrations",  # the owner's
        "DELETE FROM schema_migrations",
        "CREATE ROLE mallory LOGIN",
        "CREATE DATABASE mine",
        "ALTER ROLE rules SUPERUSER",
        "COPY archived_games TO '/tmp/archived_games'",  # the server's files
        "SELECT pg_read_file('postgresql.conf')",
    ]


def insert_game(conn: psycopg.Connection, game: str) -> None:
    """A game as the archiver will add it: its row, one event and one command."""
    conn.execute(
        "INSERT INTO archived_games (game_id, ruleset, chain, head_version, head_hash, result,"
        " reason, created_at, sealed_at) VALUES (%s, 'chess3d', '2', 1, 'ab', '1-0', 'mate',"
        " now(), now())",
        [game],
    )
    conn.execute(
        "INSERT INTO archived_events (game_id, version, stream_id, g, v, type, body, cmd, ts, h)"
        " VALUES (%s, 1, '0-1', %s, '1', 'GameCreated', '{}', 'c1', '1', 'ab')",
        [game, game.encode()],
    )
    conn.execute(
        "INSERT INTO archived_commands (game_id, command_id, value, first_version, last_version,"
        " hash) VALUES (%s, 'c1', '1 1 ab', 1, 1, 'ab')",
        [game],
    )


def snapshot(pg: Postgres, game: str) -> list[object]:
    with psycopg.connect(make_conninfo(pg.superuser, dbname=PG_DATABASE)) as conn:
        return [
            conn.execute(f"SELECT * FROM {table} WHERE game_id = %s", [game]).fetchall()
            for table in ARCHIVE
        ]


@pytest.fixture
def archived(closed_postgres: Postgres) -> Iterator[str]:
    """A game in the archive, put there by the archiver's own credentials (its INSERT is the
    other side of every refusal below); removed afterwards by the superuser."""
    game = f"attack-{uuid.uuid4().hex[:12]}"
    with psycopg.connect(closed_postgres.url("archiver")) as conn:
        insert_game(conn, game)
    yield game
    with psycopg.connect(make_conninfo(closed_postgres.superuser, dbname=PG_DATABASE)) as conn:
        for table in reversed(ARCHIVE):
            conn.execute(f"DELETE FROM {table} WHERE game_id = %s", [game])


def refused_all(url: str, statements: list[str]) -> None:
    """Each statement is refused by PostgreSQL's privilege checks (the ones not: named)."""
    done = []
    with psycopg.connect(url, autocommit=True) as conn:
        for statement in statements:
            try:
                conn.execute(statement.encode())
            except psycopg.errors.InsufficientPrivilege:
                continue
            done.append(statement)
    assert not done


def test_the_archiver_adds_and_reads_but_never_changes_or_removes(
    closed_postgres: Postgres, archived: str
) -> None:
    before = snapshot(closed_postgres, archived)
    assert all(before)  # the archiver's rows are there, in every table
    with psycopg.connect(closed_postgres.url("archiver")) as conn:
        for table in ARCHIVE:  # reads what it wrote: to check the copy against the seal
            assert conn.execute(f"SELECT count(*) FROM {table} WHERE game_id = %s",
                                [archived]).fetchone() == (1,)  # fmt: skip
        again = conn.execute(  # archiving twice is harmless: INSERT ... ON CONFLICT DO NOTHING
            "INSERT INTO archived_games (game_id, ruleset, chain, head_version, head_hash,"
            " created_at, sealed_at) VALUES (%s, 'x', '2', 9, 'ff', now(), now())"
            " ON CONFLICT DO NOTHING",
            [archived],
        )
        assert again.rowcount == 0
        # A grant by a role that holds no grant option is no error, only a warning, and gives
        # nothing: its DELETE below is still refused.
        conn.execute("GRANT DELETE ON archived_events TO archiver")
        conn.commit()
    refused_all(closed_postgres.url("archiver"), changes(archived))
    assert snapshot(closed_postgres, archived) == before


@pytest.mark.parametrize("role", READERS)
def test_the_read_roles_read_the_archive_and_write_nothing(
    closed_postgres: Postgres, archived: str, role: str
) -> None:
    before = snapshot(closed_postgres, archived)
    with psycopg.connect(closed_postgres.url(role)) as conn:
        for table in ARCHIVE:
            assert conn.execute(f"SELECT count(*) FROM {table} WHERE game_id = %s",
                                [archived]).fetchone() == (1,)  # fmt: skip
    forge = f"forged-{archived}"
    inserts = [
        (
            "INSERT INTO archived_games (game_id, ruleset, chain, head_version, head_hash,"
            f" created_at, sealed_at) VALUES ('{forge}', 'x', '2', 1, 'ff', now(), now())"
        ),
        (
            "INSERT INTO archived_events (game_id, version, stream_id, g, v, type, body, cmd,"
            f" ts, h) VALUES ('{archived}', 2, '0-2', 'g', '2', 't', 'b', 'c', '1', 'h')"
        ),
        (
            "INSERT INTO archived_commands (game_id, command_id, value, first_version,"
            f" last_version, hash) VALUES ('{archived}', 'c2', '2 2 h', 2, 2, 'h')"
        ),
    ]
    refused_all(closed_postgres.url(role), inserts + changes(archived))
    assert snapshot(closed_postgres, archived) == before


def refused(url: str) -> str:
    with pytest.raises(psycopg.OperationalError) as caught:
        psycopg.connect(url, connect_timeout=10).close()
    return str(caught.value)


def test_nobody_else_gets_in(closed_postgres: Postgres) -> None:
    """A wrong password, an unknown role, a role to a database not Tabula's, the superuser
    over TCP without its password, and no password at all: each refused. The same server takes
    the right password (so the refusals are not a server closed to everyone)."""
    archiver = closed_postgres.url("archiver")
    with psycopg.connect(archiver) as conn:
        assert conn.execute("SELECT current_user").fetchone() == ("archiver",)
    parts = urlsplit(archiver)
    assert "password authentication failed" in refused(with_user(archiver, "archiver", "wrong"))
    password = parts.password or ""
    assert "no pg_hba.conf entry" in refused(with_user(archiver, "mallory", password))
    assert "no pg_hba.conf entry" in refused(archiver.replace("/tabula", "/postgres"))
    assert "password authentication failed" in refused(with_user(archiver, "admin", password))
    assert "no password supplied" in refused(f"postgresql://archiver@{parts.netloc.split('@')[1]}"
                                             "/tabula")  # fmt: skip


def test_it_listens_on_loopback_alone_and_its_socket_is_private(closed_postgres: Postgres) -> None:
    """Every listening TCP socket on its port is 127.0.0.1's (none on another address or on
    IPv6), and its unix socket is in a folder only the server's user enters."""
    server = closed_postgres.server
    assert server is not None
    listening = set()
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, port = local.rsplit(":", 1)
            if state == "0A" and int(port, 16) == server.port:  # TCP_LISTEN
                listening.add((table, address))
    assert listening == {("tcp", "0100007F")}  # 127.0.0.1, little-endian
    run = Path(server.run_dir)  # type: ignore[attr-defined]
    assert stat.S_IMODE(run.stat().st_mode) == 0o700
    data = run.parent / "data"
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    if os.geteuid() == 0:  # PostgreSQL refuses root: it runs as a user of its own
        assert data.stat().st_uid != 0
        assert Path(f"/proc/{server.proc.pid}").stat().st_uid == data.stat().st_uid


def test_the_roles_file_closes_a_server_of_ones_own(
    closed_postgres: Postgres, tmp_path: Path
) -> None:
    """postgres-roles.sql (`tabula access`), run with psql as a superuser, makes the roles (again:
    it may run twice) with the passwords of credentials.json, and each logs in with its own."""
    write_server_files(tmp_path, closed_postgres.servers.creds)
    for _ in range(2):
        script = str(tmp_path / "postgres-roles.sql")
        ran = subprocess.run([postgres_binary("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d",
                              closed_postgres.superuser, "-f", script],
                             capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
        assert ran.returncode == 0, ran.stderr
    for role in PG_ROLES:
        with psycopg.connect(closed_postgres.url(role)) as conn:
            assert conn.execute("SELECT current_user").fetchone() == (role,)
