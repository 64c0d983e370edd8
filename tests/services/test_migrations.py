"""Schema migrations (services/runtime/migrations.py) on the session's PostgreSQL, each test in a
database of its own: every file applied once even when two processes start at once, a file
changed after it was applied stops the start, a new file is applied, a failing file leaves
nothing of itself."""

import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from services.runtime import migrations
from services.runtime.migrations import MigrationError
from tests.conftest import Postgres

GATE = 4242  # an advisory lock the first migration waits for, held by the test


@pytest.fixture
def database(postgres: Postgres) -> Iterator[str]:
    """A fresh database (a libpq connection string to it), dropped after."""
    name = f"migrations_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres.superuser, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}".encode())
    yield make_conninfo(postgres.superuser, dbname=name)
    with psycopg.connect(postgres.superuser, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)".encode())


def write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(exist_ok=True)
    for name, sql in files.items():
        (folder / name).write_text(sql)
    return folder


FIRST = {
    "0001_first.sql": f"SELECT pg_advisory_xact_lock({GATE});\n"
    "CREATE TABLE ran (n int);\nINSERT INTO ran VALUES (1);\n",
    "0002_second.sql": "INSERT INTO ran VALUES (2);\n",
}


def rows(database: str, query: str) -> list[tuple[object, ...]]:
    with psycopg.connect(database) as conn:
        return conn.execute(query.encode()).fetchall()


def waiting(conn: psycopg.Connection) -> list[tuple[int, int]]:
    """The advisory locks sessions wait for, by (classid, objid)."""
    return conn.execute(
        "SELECT classid::int8, objid::int8 FROM pg_locks"
        " WHERE locktype = 'advisory' AND NOT granted ORDER BY 1, 2"
    ).fetchall()


def test_two_starting_at_once_apply_each_file_once(database: str, tmp_path: Path) -> None:
    """The test holds the lock the first file waits for; two runners start. Under the
    migrations' lock one of them runs the first file (and waits on the test's lock) while the
    other waits for it: never both inside the file. Released, each file ran once in all."""
    folder = write(tmp_path / "sql", FIRST)
    # The gate closes (its lock released) before the pool waits for the runners, even on a failure.
    with ThreadPoolExecutor(2) as pool, psycopg.connect(database) as gate:
        gate.execute("SELECT pg_advisory_xact_lock(%s)", [GATE])
        runs = [pool.submit(migrations.apply, database, folder) for _ in range(2)]
        deadline = time.monotonic() + 30
        with psycopg.connect(database, autocommit=True) as look:
            while len(waits := waiting(look)) < 2:
                assert time.monotonic() < deadline, waits
                assert not any(r.done() for r in runs), [r.exception() for r in runs if r.done()]
                time.sleep(0.01)  # poll interval while both runners reach their locks
        gate.rollback()  # releases GATE
        assert (0, GATE) in waits  # one is inside the first file
        assert waits.count((0, GATE)) == 1, waits  # and only one
        applied = [r.result(timeout=30) for r in runs]
    assert sorted(applied[0] + applied[1]) == [1, 2]
    assert rows(database, "SELECT n FROM ran ORDER BY n") == [(1,), (2,)]
    assert rows(database, "SELECT version, name FROM schema_migrations ORDER BY 1") == [
        (1, "first"),
        (2, "second"),
    ]


def test_a_new_file_is_applied_and_the_applied_ones_are_not_again(
    database: str, tmp_path: Path
) -> None:
    folder = write(tmp_path / "sql", {"0001_first.sql": FIRST["0001_first.sql"]})
    assert migrations.apply(database, folder) == [1]
    assert migrations.apply(database, folder) == []
    write(folder, {"0002_second.sql": FIRST["0002_second.sql"]})
    assert migrations.apply(database, folder) == [2]
    assert rows(database, "SELECT n FROM ran ORDER BY n") == [(1,), (2,)]


def test_a_file_changed_after_it_was_applied_stops_the_start(database: str, tmp_path: Path) -> None:
    """Named, and nothing after it is applied."""
    folder = write(tmp_path / "sql", {"0001_first.sql": FIRST["0001_first.sql"]})
    assert migrations.apply(database, folder) == [1]
    edited = {"0001_first.sql": FIRST["0001_first.sql"] + "-- edited\n"}
    write(folder, {**edited, "0002_second.sql": FIRST["0002_second.sql"]})
    with pytest.raises(MigrationError, match="0001_first was changed after it was applied"):
        migrations.apply(database, folder)
    assert rows(database, "SELECT version FROM schema_migrations") == [(1,)]
    assert rows(database, "SELECT n FROM ran") == [(1,)]


def test_a_failing_file_leaves_nothing_of_itself(database: str, tmp_path: Path) -> None:
    folder = write(tmp_path / "sql", {"0001_first.sql": FIRST["0001_first.sql"],
                                      "0002_bad.sql": "INSERT INTO ran VALUES (2);\n"
                                      "SELECT 1 / 0;\n"})  # fmt: skip
    with pytest.raises(psycopg.errors.DivisionByZero):
        migrations.apply(database, folder)
    assert rows(database, "SELECT version FROM schema_migrations") == [(1,)]
    assert rows(database, "SELECT n FROM ran") == [(1,)]


def test_the_shipped_files_are_well_named_and_applied_in_the_session(postgres: Postgres) -> None:
    """services/runtime/sql/ holds only NNNN_name.sql files, versions from 1 without a gap, and
    the session's database has each applied with its checksum."""
    shipped = migrations.migrations()
    assert [m.version for m in shipped] == list(range(1, len(shipped) + 1))
    with psycopg.connect(postgres.url("owner")) as conn:
        recorded = conn.execute("SELECT version, checksum FROM schema_migrations ORDER BY 1")
        assert recorded.fetchall() == [(m.version, m.checksum) for m in shipped]
