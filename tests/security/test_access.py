"""`tabula access`: the files that close servers of one's own, private and stable."""

import subprocess
import sys
from pathlib import Path

import msgspec

from services.runtime.access import PG_LOGINS, ROLES, Credentials, postgres_roles_sql, valkey_acl

TABULA = str(Path(sys.executable).parent / "tabula")


def tabula(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TABULA, *args], capture_output=True, text=True, timeout=60,
                          check=False)  # fmt: skip


def test_access_writes_private_files_and_keeps_its_passwords(tmp_path: Path) -> None:
    folder = tmp_path / "etc"
    first = tabula("access", str(folder))
    assert first.returncode == 0, first.stderr
    creds = msgspec.json.decode((folder / "credentials.json").read_bytes(), type=Credentials)
    assert set(creds.passwords) == set(ROLES)
    assert set(creds.postgres) == set(PG_LOGINS)
    assert folder.stat().st_mode & 0o077 == 0
    for name in ("credentials.json", "nats-users.conf", "users.acl", "postgres-roles.sql"):
        assert (folder / name).stat().st_mode & 0o777 == 0o600, name
    assert tabula("access", str(folder)).returncode == 0
    again = msgspec.json.decode((folder / "credentials.json").read_bytes(), type=Credentials)
    assert again == creds  # reused: running it twice does not lock the services out
    acl = (folder / "users.acl").read_text()
    assert acl == valkey_acl(creds)
    assert not [p for p in creds.passwords.values() if p in acl]  # only their SHA-256
    roles = (folder / "postgres-roles.sql").read_text()
    assert roles == postgres_roles_sql(creds)
    assert roles.count("PASSWORD 'SCRAM-SHA-256$4096:") == len(PG_LOGINS) - 1  # not admin's
    assert not [p for p in creds.postgres.values() if p in roles]  # only their verifiers


def test_access_into_an_unwritable_place_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = tabula("access", str(blocker / "etc"))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
