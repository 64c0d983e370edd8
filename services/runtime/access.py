"""Who may do what on the bus, in the store and in the database: every role's NATS permissions,
Valkey ACL and PostgreSQL grants.

The bus and the store are private to the services. Each service has its own user, allowed the
subjects it serves and calls and the keys and commands it needs, nothing more; players and bots
get the `player` role, which can only do what a player may; `archiver` reads sealed games to
copy them into PostgreSQL; `projector` reads logs to keep PostgreSQL's read model; `auditor`
reads logs (the CLI's read-only commands); `gateway` is the public door's (services/gateway),
which asks what a player may ask on behalf of the people signed in to it; `admin` is the
operator's. Nobody but the operator may XDEL or XTRIM a game's
log; only the rules service removes a game's keys, and only an archived, sealed game's, at the
archiver's request (services.rules.handlers.Rules.forget); the gateway deletes only its own.

A user's replies arrive under its own inbox prefix (`_INBOX.<user>.`), which no other user may
subscribe to. Players share one role, so whatever a reply holds for one player alone (seat
tokens, a matchmaking assignment) is sealed to a key that player sent with the request
(services.runtime.sealing); the rest of a player's replies are public information anyway.

PostgreSQL (the archive of finished games and the read model) has a role per use, each with
its password: `owner` owns the database and runs the migrations (the only DDL); `archiver` may
add to the archive and read it, never change or remove a row; `projector` alone writes the read
model's tables (and reads the archive); `gateway`, `auditor` (the CLI's reads) and `rules`
read. Each table's grants are in the migration that creates it (services/runtime/sql/).
`admin` is the embedded server's superuser, the operator's.

`tabula up` writes the generated passwords under `.tabula/secrets/` (0600) and starts the
embedded servers with the files this module renders; deploy/ documents the same files for
servers of your own (`tabula access DIR` writes them, with `postgres-roles.sql`).
"""

import base64
import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import quote, urlsplit, urlunsplit

import msgspec

from contracts import subjects
from services.runtime import keys
from services.runtime.embedded import PG_SUPERUSER

SERVICES: Final = ("rules", "randomness", "matchmaking", "archiver", "projector", "bots")
# The servers' own users, no process's: `route` joins nats-servers into a cluster (a peer
# without it is refused: it would receive every message), `replica` is how a Valkey replica
# authenticates to its primary. Neither is a bus user (not in NATS_PERMISSIONS).
INTERNAL: Final = ("route", "replica")
# Every password generated (and added to an older credentials file that lacks one).
ROLES: Final = (*SERVICES, "gateway", "player", "auditor", "admin", *INTERNAL)
SRV: Final = "$SRV.>"  # NATS micro discovery (PING, INFO, STATS), served by every service


def inbox_prefix(user: str) -> str:
    return f"_INBOX.{user}"


def _inbox(user: str) -> str:
    return inbox_prefix(user) + ".>"


_P = subjects.PREFIX


def _as_a_player(user: str) -> dict[str, list[str]]:
    """What a player may do on the bus: ask the rules service and matchmaking, hear the games'
    notices, its seat's sealed events and assignments, and its own replies."""
    return {
        "publish": [
            subjects.RULES_CREATE,
            subjects.RULES_ACT,
            subjects.act_partition("*"),  # rules_act(game) as mapped: the bus checks that
            subjects.RULES_READ,
            subjects.RULES_VIEW,
            subjects.RULES_KEYS,
            subjects.MATCH_ENQUEUE,
            subjects.MATCH_CANCEL,
        ],
        "subscribe": [
            subjects.all_game_events(),
            subjects.all_seat_events(),
            subjects.all_match_assignments(),
            _inbox(user),
        ],
    }


def _with(perms: dict[str, list[str]], publish: list[str] = [],  # noqa: B006  # read only
          subscribe: list[str] = []) -> dict[str, list[str]]:  # noqa: B006  # fmt: skip
    return {"publish": perms["publish"] + publish, "subscribe": perms["subscribe"] + subscribe}


# publish / subscribe allow-lists; `allow_responses` lets a service answer the requests it gets.
# The auditor has no bus user: it only reads the store.
NATS_PERMISSIONS: Final[dict[str, dict[str, list[str]]]] = {
    "rules": {
        "publish": [
            subjects.RANDOM_SEED,
            subjects.RANDOM_DRAW,
            subjects.RANDOM_REVEAL,
            subjects.RANDOM_FORGET,
            f"{_P}.game.>",
        ],
        "subscribe": [f"{_P}.rules.>", subjects.all_game_events(), SRV, _inbox("rules")],
    },
    # Answers the rules service only: nobody else may publish on its subjects.
    "randomness": {"publish": [], "subscribe": [f"{_P}.random.>", SRV]},
    # Hears the games' seals (its cue to archive), answers $SRV, and asks the rules service
    # (alone) to remove a game it has archived.
    "archiver": {
        "publish": [subjects.RULES_FORGET],
        "subscribe": [subjects.all_games_sealed(), SRV, _inbox("archiver")],
    },
    # Hears the games' notices (each a cue to catch its game up) and answers $SRV only.
    "projector": {"publish": [], "subscribe": [subjects.all_game_events(), SRV]},
    "matchmaking": {
        "publish": [subjects.RULES_CREATE, subjects.all_match_assignments()],
        "subscribe": [subjects.MATCH_ENQUEUE, subjects.MATCH_CANCEL, SRV, _inbox("matchmaking")],
    },
    # The public door (services/gateway) asks what a player may ask, on behalf of the people
    # signed in to it, whose seat tokens it keeps, and hands the bots service the seats of
    # bots; it answers no request on the bus.
    "gateway": _with(_as_a_player("gateway"), publish=[subjects.BOTS_PLAY]),
    "player": _as_a_player("player"),
    # Plays its seats as a player does, and answers the gateway's hand-overs (nobody else may
    # publish there: a seat's token travels in them).
    "bots": _with(_as_a_player("bots"), subscribe=[subjects.BOTS_PLAY, SRV]),
    "admin": {"publish": [">"], "subscribe": [">"]},
}

_GAME = keys.GAME_KEYS
# Valkey ACL rules per role, after `on #<sha256 of the password>`. Key patterns: `~` read and
# write, `%R~` read only, `%W~` write only. Players have no user here. No role but admin gets
# XDEL, XTRIM, UNLINK, FLUSH* or CONFIG; only rules DEL on a game's keys (forget.lua).
VALKEY_RULES: Final[dict[str, str]] = {
    # Appends (one Lua script), reads logs, keeps meta and command ids, reads secret outcomes
    # (a shuffle, a card salt) but never the seed. Removes an archived game's log, meta and
    # command ids (forget.lua, after comparing them with the archive's copy): DEL and EXPIRE
    # are for that script. Keeps its leases on the partitions of the games' actions, and the
    # replicas' registry (services.rules.partitions).
    "rules": (
        f"~{_GAME}:log ~{_GAME}:meta ~{_GAME}:cmds %R~{_GAME}:secret ~{keys.GAMES_INDEX} "
        f"~{keys.TOKEN_SECRET} ~{keys.SIGNING_KEY} ~{keys.RULES_KEYS} +@connection +@read "
        "-keys -scan +evalsha +eval +script|load +xadd +hset +hsetnx +zadd +zrem "
        "+zremrangebyscore +set +del +expire +pexpire +time +multi +exec +discard +wait +waitaof"
    ),
    # The only reader of seeds; writes secret outcomes once; reads the log to bind each draw
    # to the game's progress and the meta to know a game has ended, or left for the archive
    # (then it deletes its keys of the game).
    "randomness": (
        f"~{_GAME}:seed ~{_GAME}:secret ~{_GAME}:drawn %R~{_GAME}:meta %R~{_GAME}:log "
        "+@connection +get +set +hget +hmget +hset +hsetnx +hexists +xrange +del"
    ),
    # Its queues, tickets and tables (tabula:match:*: every one of its keys, nothing of a game's
    # or the gateway's), with the commands it and pair.lua run there, each named: the script
    # by EVALSHA (SCRIPT LOAD when the store lacks it), a cancel by WATCH/MULTI, a completed
    # table removed in one MULTI.
    "matchmaking": (
        f"~{keys.MATCH_KEYS} +@connection +evalsha +script|load +get +set +expire +persist "
        "+exists +hgetall +hmget +hset +del +zadd +zrem +zrange +zcard +zremrangebyscore +watch "
        "+unwatch +multi +exec +discard"
    ),
    # Sessions, challenges, seats and the seat tokens it holds: its own keys and nothing else
    # (DEL there touches no game).
    "gateway": (
        f"~{keys.GATEWAY_KEYS} +@connection +get +set +del +exists +expire +incrby +hget +hset "
        "+hsetnx +hgetall +hmget +hdel +zadd +zrem +zrange +zrevrange +zscore"
    ),
    # Its seats (tabula:bots:*: their tokens, levels, secrets and leases), nothing else.
    "bots": (
        f"~{keys.BOTS_KEYS} +@connection +get +set +del +expire +hget +hset +hsetnx +hgetall "
        "+zadd +zrem +zrange"
    ),
    "auditor": (
        f"%R~{_GAME}:log %R~{_GAME}:meta %R~{_GAME}:cmds %R~{keys.GAMES_INDEX} "
        "+@connection +@read -keys -scan"
    ),
    # Copies sealed games into PostgreSQL: reads a game's three keys and the index, each
    # with a named read command, nothing else (no write at all: it asks the rules service to
    # remove an archived game's keys, on the bus).
    "archiver": (
        f"%R~{_GAME}:log %R~{_GAME}:meta %R~{_GAME}:cmds %R~{keys.GAMES_INDEX} "
        "+@connection +xrange +hget +hmget +hgetall +zrange +zcard +multi +exec +discard"
    ),
    # Keeps the read model: reads logs, meta (a game's version), command ids and the index,
    # each with a named read command; writes nothing.
    "projector": (
        f"%R~{_GAME}:log %R~{_GAME}:meta %R~{_GAME}:cmds %R~{keys.GAMES_INDEX} "
        "+@connection +xrange +hget +hmget +hgetall +exists +zrange +zcard +zscore"
    ),
    # A replica's side of replication (services.runtime.cluster): AUTH/HELLO (@connection),
    # then PING, REPLCONF and PSYNC; the primary streams its writes on that connection. No
    # key, no other command: its password opens nothing else.
    "replica": "+@connection +psync +replconf +ping",
    "admin": "~* &* +@all",
}


# PostgreSQL's roles (PG_SUPERUSER is the embedded server's superuser, the operator's).
PG_OWNER: Final = "owner"
PG_DATABASE: Final = "tabula"
PG_ROLES: Final = (PG_OWNER, "archiver", "projector", "gateway", "auditor", "rules")
PG_LOGINS: Final = (PG_SUPERUSER, *PG_ROLES)


class Credentials(msgspec.Struct, frozen=True):
    """A password per role on the bus and the store, and per PostgreSQL role (generated; kept
    0600, never in the repo)."""

    passwords: dict[str, str]
    postgres: dict[str, str] = {}

    @classmethod
    def generate(cls) -> "Credentials":
        return cls({role: secrets.token_hex(24) for role in ROLES},
                   {role: secrets.token_hex(24) for role in PG_LOGINS})  # fmt: skip


def write_private(path: Path, data: bytes) -> None:
    """Create or replace `path` readable by its owner only (never briefly world-readable)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def load_or_create(folder: Path) -> Credentials:
    """The credentials kept in `folder` (created once, then reused across restarts)."""
    path = folder / "credentials.json"
    try:
        creds = msgspec.json.decode(path.read_bytes(), type=Credentials)
    except FileNotFoundError:
        creds = Credentials.generate()
    else:
        missing = [role for role in ROLES if role not in creds.passwords]
        missing_pg = [role for role in PG_LOGINS if role not in creds.postgres]
        if not missing and not missing_pg:
            return creds
        # A role added since the stack was first started (the gateway, PostgreSQL's) gets its
        # password now.
        fresh = {role: secrets.token_hex(24) for role in missing}
        fresh_pg = {role: secrets.token_hex(24) for role in missing_pg}
        creds = Credentials({**creds.passwords, **fresh}, {**creds.postgres, **fresh_pg})
    write_private(path, msgspec.json.encode(creds))
    return creds


# nats-server's largest message, set rather than left to its default: requests are far smaller
# (contracts.commands.MAX_REQUEST_BYTES) and a read's reply is cut to fit (READ_REPLY_BYTES).
MAX_PAYLOAD: Final = 1024 * 1024


def nats_config(creds: Credentials) -> str:
    """nats-server configuration: the message size limit and the `authorization` block with
    every user and its permissions (a JSON value, which NATS config accepts), and the mapping of
    a game's actions to its partition, to run with `-c` or `include`."""
    users = []
    for role, perms in NATS_PERMISSIONS.items():
        permissions: dict[str, object] = {
            "publish": {"allow": perms["publish"]} if perms["publish"] else {"deny": [">"]},
            "subscribe": {"allow": perms["subscribe"]},
        }
        if role in SERVICES:
            permissions["allow_responses"] = True
        users.append({"user": role, "password": creds.passwords[role], "permissions": permissions})
    users_json = msgspec.json.format(msgspec.json.encode({"users": users})).decode()
    mappings = msgspec.json.encode(subjects.ACT_MAPPING).decode()
    return f"max_payload: {MAX_PAYLOAD}\nauthorization: {users_json}\nmappings: {mappings}"


# What a cluster client asks of any node, besides its role's commands: the layout of the slots
# (redis-py's cluster client, at start and after a slot moved) and the commands' key positions.
# No key in them; on one node they are asked of nobody.
CLUSTER_CLIENT: Final = "+cluster|slots +cluster|shards +cluster|nodes +command"


def valkey_acl(creds: Credentials) -> str:
    """A Valkey ACL file: the default user off, every role with its password's SHA-256."""
    lines = ["user default off"]
    for role, rules in VALKEY_RULES.items():  # players never touch the store
        digest = hashlib.sha256(creds.passwords[role].encode()).hexdigest()
        extra = "" if role in ("admin", "replica") else f" {CLUSTER_CLIENT}"
        lines.append(f"user {role} on #{digest} resetchannels {rules}{extra}")
    return "\n".join(lines) + "\n"


SCRAM_ITERATIONS: Final = 4096  # PostgreSQL's own default (scram_iterations)


def scram_verifier(role: str, password: str) -> str:
    """The SCRAM-SHA-256 verifier PostgreSQL keeps for `password` (RFC 5802/7677), made here so
    the password itself is never in a file or a statement, as Valkey's ACL holds only a
    SHA-256. Its salt is derived from the role and the password: the same credentials give the
    same file (`tabula access` run twice), and no two roles share a salt."""
    salt = hashlib.sha256(f"tabula scram salt\0{role}\0{password}".encode()).digest()[:16]
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, SCRAM_ITERATIONS)
    client_key = hmac.digest(salted, b"Client Key", "sha256")
    stored_key = hashlib.sha256(client_key).digest()
    server_key = hmac.digest(salted, b"Server Key", "sha256")
    b64 = base64.b64encode
    return (f"SCRAM-SHA-256${SCRAM_ITERATIONS}:{b64(salt).decode()}$"
            f"{b64(stored_key).decode()}:{b64(server_key).decode()}")  # fmt: skip


def pg_hba() -> str:
    """The embedded server's pg_hba.conf: its superuser trusted on the private unix socket
    only (a folder only the server's user and root can enter); every role, and the superuser,
    by SCRAM over loopback; the roles to the Tabula database alone. Nothing else matches, so
    everything else (another user, a database, a network) is refused."""
    roles = ",".join(PG_ROLES)
    return (
        "# written by tabula up (services/runtime/access.py)\n"
        "# TYPE  DATABASE  USER  ADDRESS  METHOD\n"
        f"local   all  {PG_SUPERUSER}  trust\n"
        f"host    all  {PG_SUPERUSER}  127.0.0.1/32  scram-sha-256\n"
        f"host    {PG_DATABASE}  {roles}  127.0.0.1/32  scram-sha-256\n"
    )


def postgres_roles(creds: Credentials) -> list[str]:
    """Statements, run by a superuser, that make every role (if absent) able to log in with its
    password and nothing more: no superuser, no CREATEDB or CREATEROLE, no replication, no
    inheritance; safe to run again (each password is set anew)."""
    statements = []
    for role in PG_ROLES:
        statements.append(
            f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{role}') "
            f"THEN CREATE ROLE {role}; END IF; END $$"
        )
        statements.append(
            f"ALTER ROLE {role} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT "
            f"NOREPLICATION NOBYPASSRLS PASSWORD '{scram_verifier(role, creds.postgres[role])}'"
        )
    return statements


def postgres_database() -> list[str]:
    """Statements, run by a superuser connected to the Tabula database, that close it: only
    Tabula's roles connect; nobody but its owner creates anything in it. The tables' grants
    come with the migrations that make them."""
    others = ", ".join(role for role in PG_ROLES if role != PG_OWNER)
    return [
        f"REVOKE ALL ON DATABASE {PG_DATABASE} FROM PUBLIC",
        f"GRANT CONNECT ON DATABASE {PG_DATABASE} TO {', '.join(PG_ROLES)}",
        f"ALTER SCHEMA public OWNER TO {PG_OWNER}",
        "REVOKE ALL ON SCHEMA public FROM PUBLIC",
        f"GRANT USAGE ON SCHEMA public TO {others}",
    ]


def postgres_roles_sql(creds: Credentials) -> str:
    """A psql script for a PostgreSQL of your own (run it as a superuser: `psql -f`): the roles
    with their passwords' SCRAM verifiers, the Tabula database owned by `owner`, closed."""
    lines = [
        "-- Tabula's PostgreSQL roles (tabula access): psql -v ON_ERROR_STOP=1 -f this file,",
        "-- as a superuser. Then every process connects as its role to the database tabula;",
        "-- `tabula up` (as owner) applies the migrations, which grant each table.",
        *(s + ";" for s in postgres_roles(creds)),
        (
            f"SELECT 'CREATE DATABASE {PG_DATABASE} OWNER {PG_OWNER}' WHERE NOT EXISTS "
            f"(SELECT FROM pg_database WHERE datname = '{PG_DATABASE}') \\gexec"
        ),
        f"\\connect {PG_DATABASE}",
        *(s + ";" for s in postgres_database()),
    ]
    return "\n".join(lines) + "\n"


def provision_postgres(superuser: str, creds: Credentials, *, embedded: bool = False) -> None:
    """Through `superuser` (a libpq connection string), make the roles, the Tabula database and
    its closure (the statements postgres-roles.sql holds), and on the `embedded` server set its
    superuser's own password: what `tabula up` does at each start, so a changed password in
    the secrets is the one that works."""
    import psycopg
    from psycopg.conninfo import make_conninfo

    with psycopg.connect(superuser, autocommit=True) as conn:
        for statement in postgres_roles(creds):
            conn.execute(statement.encode())
        if embedded:
            verifier = scram_verifier(PG_SUPERUSER, creds.postgres[PG_SUPERUSER])
            conn.execute(f"ALTER ROLE {PG_SUPERUSER} PASSWORD '{verifier}'".encode())
        exists = conn.execute("SELECT FROM pg_database WHERE datname = %s", [PG_DATABASE])
        if exists.fetchone() is None:
            conn.execute(f"CREATE DATABASE {PG_DATABASE} OWNER {PG_OWNER}".encode())
    with psycopg.connect(make_conninfo(superuser, dbname=PG_DATABASE), autocommit=True) as conn:
        for statement in postgres_database():
            conn.execute(statement.encode())


def write_server_files(folder: Path, creds: Credentials) -> tuple[Path, Path]:
    """(nats-server config, Valkey ACL file) in `folder`, both 0600, and PostgreSQL's roles
    (postgres-roles.sql, 0600: verifiers, not passwords, but nobody else's business)."""
    nats_conf, acl = folder / "nats-users.conf", folder / "users.acl"
    write_private(nats_conf, nats_config(creds).encode())
    write_private(acl, valkey_acl(creds).encode())
    write_private(folder / "postgres-roles.sql", postgres_roles_sql(creds).encode())
    return nats_conf, acl


def with_user(url: str, user: str, password: str) -> str:
    """`url` with its credentials replaced by user:password (each URL of a comma-separated
    list: a cluster's nodes)."""
    if "," in url:
        return ",".join(with_user(u.strip(), user, password) for u in url.split(","))
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    netloc = f"{quote(user)}:{quote(password)}@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def url_user(url: str) -> str | None:
    """The user a URL names, if any."""
    return urlsplit(url).username


@dataclass(frozen=True)
class Endpoints:
    """Where each role connects. Closed servers (the embedded ones) get each role's user in
    its URL; a server given from outside (NATS_URL / REDIS_URL) is used as given by every role
    (deploy/README.md shows how to close one of your own)."""

    nats_url: str
    redis_url: str
    creds: Credentials
    nats_closed: bool = True
    redis_closed: bool = True
    # PostgreSQL's base URL, no user (postgresql://127.0.0.1:N/tabula); closed: each role
    # connects as itself. A DATABASE_URL naming a user is used as given by every role.
    postgres_url: str = ""
    postgres_closed: bool = True

    def nats_for(self, role: str) -> str:
        if not self.nats_closed:
            return self.nats_url
        return with_user(self.nats_url, role, self.creds.passwords[role])

    def redis_for(self, role: str) -> str:
        if not self.redis_closed:
            return self.redis_url
        return with_user(self.redis_url, role, self.creds.passwords[role])

    def postgres_for(self, role: str) -> str:
        """`role`'s URL to the Tabula database (`admin`: the embedded server's superuser)."""
        if not self.postgres_closed:
            return self.postgres_url
        return with_user(self.postgres_url, role, self.creds.postgres[role])


def database_url(base: str) -> str:
    """`base` (a server, maybe with a database) naming the Tabula database when it names
    none."""
    parts = urlsplit(base)
    return urlunsplit(parts._replace(path=parts.path if parts.path.strip("/") else
                                     f"/{PG_DATABASE}"))  # fmt: skip
