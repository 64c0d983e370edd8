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

from services.runtime import archived
from services.runtime.access import PG_DATABASE, PG_ROLES, with_user, write_server_files
from services.runtime.embedded import postgres_binary
from tests.conftest import Postgres

ARCHIVE = ("archived_games",)  # 0002: one row per game, its log and command ids packed
READERS = ("projector", "gateway", "auditor", "rules")


def changes(game: str) -> list[str]:
    """What a role without the owner's rights tries on the archive and the schema."""
    return [
        f"UPDATE archived_games SET result = '0-1' WHERE game_id = '{game}'",
        f"UPDATE archived_games SET log = 'x'::bytea WHERE game_id = '{game}'",
        f"UPDATE archived_games SET head_hash = 'ff', head_version = 9 WHERE game_id = '{game}'",
        (  # an upsert that would replace the copy: needs UPDATE too
            "INSERT INTO archived_games (game_id, ruleset, chain, head_version, head_hash,"
            " created_at, sealed_at, format, log, commands) VALUES"
            f" ('{game}', 'x', '2', 9, 'ff', now(), now(), 1, 'x'::bytea, 'x'::bytea)"
            " ON CONFLICT (game_id) DO UPDATE SET log = excluded.log"
        ),
        f"SELECT * FROM archived_games WHERE game_id = '{game}' FOR UPDATE",
        f"DELETE FROM archived_games WHERE game_id = '{game}'",
        "DELETE FROM archived_games",
        "TRUNCATE archived_games",
        "DROP TABLE archived_games",
        "ALTER TABLE archived_games ADD COLUMN forged text",
        "ALTER TABLE archived_games ALTER COLUMN log SET STORAGE MAIN",
        "ALTER TABLE archived_games DROP CONSTRAINT archived_games_pkey",
        "DROP INDEX archived_games_created_at",
        "CREATE TABLE mine (x int)",
        "CREATE INDEX ON archived_games (result)",
        (
            "CREATE TRIGGER t BEFORE INSERT ON archived_games FOR EACH ROW"
            " EXECUTE FUNCTION suppress_redundant_updates_trigger()"
        ),
        "SELECT * FROM schema_migrations",  # the owner's
        "DELETE FROM schema_migrations",
        "CREATE ROLE mallory LOGIN",
        "CREATE DATABASE mine",
        "ALTER ROLE rules SUPERUSER",
        "COPY archived_games TO '/tmp/archived_games'",  # the server's files
        "SELECT pg_read_file('postgresql.conf')",
    ]


def insert_game(conn: psycopg.Connection, game: str) -> None:
    """A game as the archiver adds it: one row, its log and command ids packed."""
    entries = [(b"0-1", {b"g": game.encode(), b"v": b"1", b"type": b"GameCreated",
                         b"body": b"{}", b"cmd": b"c1", b"ts": b"1", b"h": b"ab"})]  # fmt: skip
    conn.execute(
        "INSERT INTO archived_games (game_id, ruleset, chain, head_version, head_hash, result,"
        " reason, created_at, sealed_at, format, log, commands) VALUES (%s, 'chess3d', '2', 2,"
        " 'ab', '1-0', 'mate', now(), now(), %s, %s, %s)",
        [
            game,
            archived.FORMAT,
            archived.pack_log(entries),
            archived.pack_commands({b"c1": b"1 1 ab"}),
        ],
    )


def snapshot(pg: Postgres, game: str) -> list[object]:
    with psycopg.connect(make_conninfo(pg.superuser, dbname=PG_DATABASE)) as conn:
        return [
            conn.execute(f"SELECT * FROM {table} WHERE game_id = %s", [game]).fetchall()
            for table in ARCHIVE
        ]


@pytest.fixture
def archived_game(closed_postgres: Postgres) -> Iterator[str]:
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
    closed_postgres: Postgres, archived_game: str
) -> None:
    before = snapshot(closed_postgres, archived_game)
    assert all(before)  # the archiver's row is there
    with psycopg.connect(closed_postgres.url("archiver")) as conn:
        row = conn.execute("SELECT head_version, format, log, commands FROM archived_games "
                           "WHERE game_id = %s", [archived_game]).fetchone()  # fmt: skip
        assert row is not None  # reads what it wrote: to check the copy against the seal
        assert archived.unpack_log(bytes(row[2]), row[1])[0][1][b"type"] == b"GameCreated"
        again = conn.execute(  # archiving twice is harmless: INSERT ... ON CONFLICT DO NOTHING
            "INSERT INTO archived_games (game_id, ruleset, chain, head_version, head_hash,"
            " created_at, sealed_at, format, log, commands) VALUES (%s, 'x', '2', 9, 'ff',"
            " now(), now(), 1, 'x'::bytea, 'x'::bytea) ON CONFLICT DO NOTHING",
            [archived_game],
        )
        assert again.rowcount == 0
        # A grant by a role that holds no grant option is no error, only a warning, and gives
        # nothing: its DELETE and UPDATE below are still refused.
        conn.execute("GRANT DELETE, UPDATE, TRUNCATE ON archived_games TO archiver")
        conn.commit()
    refused_all(closed_postgres.url("archiver"), changes(archived_game))
    assert snapshot(closed_postgres, archived_game) == before


@pytest.mark.parametrize("role", READERS)
def test_the_read_roles_read_the_archive_and_write_nothing(
    closed_postgres: Postgres, archived_game: str, role: str
) -> None:
    before = snapshot(closed_postgres, archived_game)
    with psycopg.connect(closed_postgres.url(role)) as conn:
        for table in ARCHIVE:
            assert conn.execute(f"SELECT count(*) FROM {table} WHERE game_id = %s",
                                [archived_game]).fetchone() == (1,)  # fmt: skip
    forge = f"forged-{archived_game}"
    inserts = [
        (
            "INSERT INTO archived_games (game_id, ruleset, chain, head_version, head_hash,"
            " created_at, sealed_at, format, log, commands) VALUES"
            f" ('{forge}', 'x', '2', 2, 'ff', now(), now(), 1, 'x'::bytea, 'x'::bytea)"
        ),
        (
            "INSERT INTO archived_games (game_id, ruleset, chain, head_version, head_hash,"
            " created_at, sealed_at, format, log, commands) VALUES"
            f" ('{forge}', 'x', '2', 2, 'ff', now(), now(), 1, 'x'::bytea, 'x'::bytea)"
            " ON CONFLICT DO NOTHING"
        ),
    ]
    refused_all(closed_postgres.url(role), inserts + changes(archived_game))
    assert snapshot(closed_postgres, archived_game) == before
    with psycopg.connect(make_conninfo(closed_postgres.superuser, dbname=PG_DATABASE)) as conn:
        assert conn.execute("SELECT count(*) FROM archived_games WHERE game_id = %s",
                            [forge]).fetchone() == (0,)  # fmt: skip


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
