"""PostgreSQL's schema: plain numbered SQL files (`services/runtime/sql/NNNN_name.sql`), applied
in order at start (`tabula up` as the `owner` role; the tests' session fixture).

Plain SQL rather than a tool: Alembic needs SQLAlchemy (a second way to the database beside
psycopg) and writes migrations in Python around it; yoyo-migrations applies plain SQL files too,
but what it would do here is this module: a table of what was applied, a lock, a checksum. The
schema stays in PostgreSQL's own language, reviewed as it runs, grants beside their tables.

- `schema_migrations(version, name, checksum, applied_at)` records each file applied.
- Each file runs in a transaction of its own, under `pg_advisory_xact_lock(LOCK)` taken in that
  transaction: processes starting at once apply each file once (the second waits for the
  first's commit, then finds the file applied), and a file fails whole or applies whole.
- A file is never edited once applied; a change is a new file. An applied file whose checksum
  (SHA-256 of its bytes) differs from the one recorded stops the start (MigrationError),
  before any later file is applied.
- Versions recorded but unknown to this code (a newer release migrated the database) are left
  alone.
"""

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

SQL_DIR: Final = Path(__file__).parent / "sql"
# The advisory lock's key: one 64-bit number of the application's own.
LOCK: Final = int.from_bytes(hashlib.sha256(b"tabula schema migrations").digest()[:8], "big",
                             signed=True)  # fmt: skip
_FILE = re.compile(r"(\d{4})_([a-z0-9_]+)\.sql")
_TABLE = b"""CREATE TABLE IF NOT EXISTS schema_migrations (
    version     integer PRIMARY KEY,
    name        text NOT NULL,
    checksum    text NOT NULL,
    applied_at  timestamptz NOT NULL DEFAULT now()
)"""


class MigrationError(RuntimeError):
    pass


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: bytes
    checksum: str  # SHA-256 of the file's bytes, hex


def migrations(folder: Path = SQL_DIR) -> list[Migration]:
    """The migration files in `folder`, by version; anything else there is an error."""
    found: dict[int, Migration] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix != ".sql":
            continue
        match = _FILE.fullmatch(path.name)
        if match is None:
            raise MigrationError(f"{path}: a migration is named NNNN_name.sql")
        version = int(match[1])
        if version in found:
            raise MigrationError(f"{path}: version {version} twice")
        sql = path.read_bytes()
        found[version] = Migration(version, match[2], sql, hashlib.sha256(sql).hexdigest())
    return [found[v] for v in sorted(found)]


def apply(url: str, folder: Path = SQL_DIR) -> list[int]:
    """Apply what is not yet applied of `folder`'s migrations to the database at `url` (as the
    role that will own what they create): the versions this call applied."""
    import psycopg

    applied: list[int] = []
    with psycopg.connect(url, autocommit=True) as conn:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK])
            conn.execute(_TABLE)
        for m in migrations(folder):
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK])
                row = conn.execute(
                    "SELECT checksum FROM schema_migrations WHERE version = %s", [m.version]
                ).fetchone()
                if row is not None:
                    if row[0] != m.checksum:
                        raise MigrationError(
                            f"migration {m.version:04d}_{m.name} was changed after it was "
                            f"applied (checksum {m.checksum}, applied {row[0]}): restore it "
                            "and put the change in a new file"
                        )
                    continue
                conn.execute(m.sql)
                conn.execute(
                    "INSERT INTO schema_migrations (version, name, checksum) VALUES (%s, %s, %s)",
                    [m.version, m.name, m.checksum],
                )
            applied.append(m.version)
    return applied
