# ruff: noqa: INP001  (a script, run by path)
"""Per-process settings files for deploy/compose and deploy/k8s, from `tabula access DIR`.

    tabula access DIR                                     # credentials.json and the server files
    python deploy/render_env.py DIR --target compose      # or --target k8s

`tabula access` writes the passwords (credentials.json) and the servers' users (nats-users.conf,
users.acl, postgres-roles.sql). A cluster needs a few more files holding passwords, written here
into the same folder, 0600, never in the repo:

- env/<role>.env: each Tabula role's NATS_URL and REDIS_URL naming every node of the cluster
  with the role's user and password, DATABASE_URL for the roles that read PostgreSQL (as
  `tabula up` gives them: services/cli/stack.py), and for `rules` the TABULA_SECRET and
  TABULA_SIGNING_KEY every replica must share (docs/operations.md);
- env/postgres.env (the server's superuser), env/postgres-admin.env (psql as it, for the roles
  step), env/migrate.env (the migrations, as `owner`), env/valkey-admin.env (valkey-cli as
  `admin`, to form the cluster);
- nats-cluster.conf: nats-server's `cluster` block, the routes accepted and given with the
  `route` password (as services.runtime.cluster.nats_node_config does on loopback);
- valkey-replica.conf: `masteruser replica` / `masterauth` (services.runtime.cluster
  .valkey_node_config).

The token secret and signing key are generated once and kept in DIR/shared-keys.json: a second
run writes the same files (the replicas keep verifying the tokens and receipts already given).
"""

import argparse
import json
import secrets
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from services.runtime import access  # noqa: E402
from services.runtime.embedded import PG_SUPERUSER  # noqa: E402

# Where the servers are, per target: every node's host, the client ports.
TARGETS = {
    "compose": {
        "nats": [f"nats-{i}" for i in (1, 2, 3)],
        "valkey": [f"valkey-{i}" for i in range(1, 7)],
        "postgres": "postgres",
    },
    "k8s": {
        "nats": [f"nats-{i}.nats.tabula.svc.cluster.local" for i in range(3)],
        "valkey": [f"valkey-{i}.valkey.tabula.svc.cluster.local" for i in range(6)],
        "postgres": "postgres-0.postgres.tabula.svc.cluster.local",
    },
}
NATS_PORT, ROUTE_PORT, VALKEY_PORT, PG_PORT = 4222, 6222, 6379, 5432
# The services and the gateway; those `tabula up` gives a DATABASE_URL (their own role's).
ROLES = ("rules", "randomness", "matchmaking", "archiver", "projector", "bots", "gateway")
DATABASE_ROLES = ("rules", "archiver", "projector", "gateway")


def nats_url(hosts: list[str], role: str, creds: access.Credentials) -> str:
    return ",".join(access.with_user(f"nats://{h}:{NATS_PORT}", role, creds.passwords[role])
                    for h in hosts)  # fmt: skip


def redis_url(hosts: list[str], role: str, creds: access.Credentials) -> str:
    return ",".join(access.with_user(f"redis://{h}:{VALKEY_PORT}", role, creds.passwords[role])
                    for h in hosts)  # fmt: skip


def database_url(host: str, role: str, creds: access.Credentials) -> str:
    base = f"postgresql://{host}:{PG_PORT}/{access.PG_DATABASE}"
    return access.with_user(base, role, creds.postgres[role])


def shared_keys(folder: Path) -> dict[str, str]:
    """TABULA_SECRET and TABULA_SIGNING_KEY (64 lowercase hex, an Ed25519 seed), made once."""
    path = folder / "shared-keys.json"
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        keys = {"TABULA_SECRET": secrets.token_hex(32), "TABULA_SIGNING_KEY": secrets.token_hex(32)}
        access.write_private(path, json.dumps(keys).encode())
        return keys


def role_env(target: str, role: str, creds: access.Credentials, keys: dict[str, str]) -> dict:
    where = TARGETS[target]
    env = {"NATS_URL": nats_url(where["nats"], role, creds),
           "REDIS_URL": redis_url(where["valkey"], role, creds)}  # fmt: skip
    if role in DATABASE_ROLES:
        env["DATABASE_URL"] = database_url(where["postgres"], role, creds)
    if role == "rules":
        env.update(keys)
    return env


def nats_cluster(target: str, creds: access.Credentials) -> str:
    """The `cluster` block every node includes: a node listed among its own routes ignores
    that one, so all nodes share the file."""
    password = creds.passwords["route"]
    block = {
        "name": "tabula",
        "listen": f"0.0.0.0:{ROUTE_PORT}",
        "authorization": {"user": "route", "password": password},
        "routes": [f"nats://route:{password}@{h}:{ROUTE_PORT}" for h in TARGETS[target]["nats"]],
    }
    return f"cluster: {json.dumps(block)}\n"


def env_text(env: dict[str, str]) -> str:
    return "".join(f"{name}={value}\n" for name, value in env.items())


def render(folder: Path, target: str) -> dict[str, dict[str, str]]:
    """Write every file into `folder`; returns each env file's settings, by file name."""
    creds = access.load_or_create(folder)
    access.write_server_files(folder, creds)
    keys = shared_keys(folder)
    where = TARGETS[target]
    files = {f"{role}.env": role_env(target, role, creds, keys) for role in ROLES}
    files["postgres.env"] = {"POSTGRES_USER": PG_SUPERUSER,
                             "POSTGRES_PASSWORD": creds.postgres[PG_SUPERUSER]}  # fmt: skip
    files["postgres-admin.env"] = {"PGHOST": where["postgres"], "PGUSER": PG_SUPERUSER,
                                   "PGPASSWORD": creds.postgres[PG_SUPERUSER],
                                   "PGDATABASE": "postgres"}  # fmt: skip
    files["migrate.env"] = {"DATABASE_URL": database_url(where["postgres"], access.PG_OWNER,
                                                         creds)}  # fmt: skip
    files["valkey-admin.env"] = {"VALKEYCLI_AUTH": creds.passwords["admin"],
                                 "REDISCLI_AUTH": creds.passwords["admin"]}  # fmt: skip
    for name, env in files.items():
        access.write_private(folder / "env" / name, env_text(env).encode())
    access.write_private(folder / "nats-cluster.conf", nats_cluster(target, creds).encode())
    replica = f"masteruser replica\nmasterauth {creds.passwords['replica']}\n"
    access.write_private(folder / "valkey-replica.conf", replica.encode())
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="the folder `tabula access` wrote")
    parser.add_argument("--target", choices=sorted(TARGETS), default="compose")
    args = parser.parse_args()
    files = render(args.folder, args.target)
    sys.stdout.write(
        f"wrote {len(files)} env files in {args.folder / 'env'}, nats-cluster.conf "
        f"and valkey-replica.conf in {args.folder} (all 0600)\n"
    )


if __name__ == "__main__":
    main()
