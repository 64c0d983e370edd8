"""Configuration, read once from the environment, failing fast with a clear message.

NATS_URL / REDIS_URL win when set; otherwise a running embedded stack (`tabula up`) is found
through the stack file it writes into TABULA_HOME.
"""

import os
import re
from dataclasses import dataclass
from pathlib import Path

import msgspec

DEFAULT_HOME = ".tabula"


class ConfigError(RuntimeError):
    pass


class StackFile(msgspec.Struct, frozen=True):
    """What a running `tabula up` tells the CLI (0600: it holds credentials). The CLI gets the
    player's NATS credential and a read-only store user; `tabula import` the store's admin."""

    nats_url: str
    redis_url: str
    pid: int
    admin_redis_url: str = ""
    # PostgreSQL's Tabula database, as the read-only `auditor`: the CLI's reads of the archive.
    postgres_url: str = ""
    # The same database as the `projector` role, for `tabula projections rebuild`.
    projector_url: str = ""
    # Where each process serves its Prometheus metrics: process name -> URL.
    metrics: dict[str, str] = {}


class StackPointer(msgspec.Struct, frozen=True):
    """The per-user note of the last stack started: where it is, never its credentials."""

    home: str
    pid: int


@dataclass(frozen=True, slots=True)
class Settings:
    nats_url: str
    redis_url: str
    home: Path
    # Secret from which seat tokens are derived (HMAC); every replica must share it. When unset,
    # the store keeps one (created once, see services.rules.tokens).
    secret: str | None
    log_level: str
    json_logs: bool
    # The store's admin (`tabula import`): TABULA_ADMIN_REDIS_URL, else the stack's, else
    # redis_url.
    admin_redis_url: str = ""
    # The rules service's Ed25519 seed (64 hex), TABULA_SIGNING_KEY; None: kept in the store.
    signing_key: str | None = None
    # The stack's folder when it was found elsewhere than ./.tabula or TABULA_HOME: the CLI says
    # which stack it uses rather than silently using another directory's.
    found_at: Path | None = None
    # How often the rules service looks for games whose end is in the log but which are not
    # yet sealed (TABULA_SWEEP_S), and finishes them without waiting for a visitor.
    sweep_s: float = 15.0
    # PostgreSQL as this process's role (DATABASE_URL; `tabula up` gives each its own): the
    # archiver's, where it copies sealed games. "" when unset.
    database_url: str = ""
    # How often the archiver looks through the games index for sealed games not yet archived
    # (TABULA_ARCHIVE_S), besides archiving each as its GameSealed notice arrives.
    archive_s: float = 10.0
    # The archiver's niceness (TABULA_ARCHIVER_NICE, 0-19; os.nice): copying finished games is
    # background work, so on a busy machine the processes that answer players go first.
    archiver_nice: int = 10
    # How often the projector looks for games whose log is ahead of their projection
    # (TABULA_PROJECT_S), besides catching up each game as its notices arrive.
    project_s: float = 10.0
    # Where this process serves its Prometheus metrics (TABULA_METRICS_PORT, TABULA_METRICS_HOST:
    # http://host:port/metrics); 0: not served. `tabula up` gives each process a port of its
    # own; the gateway serves them at its /metrics as well.
    metrics_port: int = 0
    metrics_host: str = "127.0.0.1"


def home() -> Path:
    """Where `tabula up` keeps its data: TABULA_HOME, else ./.tabula."""
    return Path(os.environ.get("TABULA_HOME", DEFAULT_HOME)).resolve()


def stack_path(root: Path | None = None) -> Path:
    return (root or home()) / "stack.json"


def user_pointer() -> Path:
    """A per-user note of the last stack started, so commands find it from any directory."""
    return Path.home() / ".cache" / "tabula" / "stack.json"


def read_stack(root: Path | None = None) -> StackFile | None:
    path = stack_path(root)
    try:
        return msgspec.json.decode(path.read_bytes(), type=StackFile)
    except FileNotFoundError:
        return None
    except msgspec.DecodeError as exc:
        raise ConfigError(f"{path} is not a Tabula stack file: {exc}") from None


def find_stack() -> tuple[StackFile, Path] | None:
    """The running embedded stack and its folder: TABULA_HOME's when set; else the nearest
    .tabula/ in this directory or a parent; else the last one this user started, if its
    process still runs."""
    if "TABULA_HOME" in os.environ:
        stack = read_stack()
        return (stack, home()) if stack else None
    for folder in (Path.cwd(), *Path.cwd().parents):
        if (stack := read_stack(folder / DEFAULT_HOME)) is not None:
            return stack, folder / DEFAULT_HOME
    try:
        pointer = msgspec.json.decode(user_pointer().read_bytes(), type=StackPointer)
    except (FileNotFoundError, msgspec.DecodeError):
        return None
    if not Path(f"/proc/{pointer.pid}").exists():
        return None
    stack = read_stack(Path(pointer.home))
    return (stack, Path(pointer.home)) if stack else None


def seconds_from_env(name: str, default: float) -> float:
    """The environment variable `name`, a positive number of seconds, else `default`;
    ConfigError naming it when it is anything else."""
    raw = os.environ.get(name, "")
    try:
        value = float(raw) if raw else default
    except ValueError:
        value = 0.0
    if not value > 0:
        raise ConfigError(f"{name} must be a positive number of seconds, not {raw!r}")
    return value


def load() -> Settings:
    nats_url = os.environ.get("NATS_URL")
    redis_url = os.environ.get("REDIS_URL")
    admin_redis_url = os.environ.get("TABULA_ADMIN_REDIS_URL", "")
    found_at = None
    if not (nats_url and redis_url):
        found = find_stack()
        if found is None and not (nats_url or redis_url):
            raise ConfigError(
                "no Tabula stack found: start one with `tabula up` (or `make run`), "
                "or set NATS_URL and REDIS_URL"
            )
        if found is None:
            raise ConfigError("set both NATS_URL and REDIS_URL, or neither")
        stack, folder = found
        nats_url = nats_url or stack.nats_url
        redis_url = redis_url or stack.redis_url
        admin_redis_url = admin_redis_url or stack.admin_redis_url
        if "TABULA_HOME" not in os.environ and folder != Path.cwd() / DEFAULT_HOME:
            found_at = folder
    level = os.environ.get("TABULA_LOG_LEVEL", "info").lower()
    if level not in {"debug", "info", "warning", "error"}:
        raise ConfigError(f"TABULA_LOG_LEVEL must be debug|info|warning|error, not {level!r}")
    json_env = os.environ.get("TABULA_JSON_LOGS", "")
    signing_key = os.environ.get("TABULA_SIGNING_KEY") or None
    if signing_key is not None and not re.fullmatch(r"[0-9a-f]{64}", signing_key):
        raise ConfigError("TABULA_SIGNING_KEY must be 64 lowercase hex (an Ed25519 seed)")
    sweep_s = seconds_from_env("TABULA_SWEEP_S", 15.0)
    archive_s = seconds_from_env("TABULA_ARCHIVE_S", 10.0)
    project_s = seconds_from_env("TABULA_PROJECT_S", 10.0)
    nice = os.environ.get("TABULA_ARCHIVER_NICE", "10")
    if not (nice.isdigit() and int(nice) <= 19):
        raise ConfigError(f"TABULA_ARCHIVER_NICE must be 0-19, not {nice!r}")
    metrics_port = os.environ.get("TABULA_METRICS_PORT", "0")
    if not (metrics_port.isdigit() and int(metrics_port) < 65536):
        raise ConfigError(f"TABULA_METRICS_PORT must be a port number (0: none), not "
                          f"{metrics_port!r}")  # fmt: skip
    return Settings(
        nats_url=nats_url,
        redis_url=redis_url,
        home=home(),
        secret=os.environ.get("TABULA_SECRET") or None,
        log_level=level,
        json_logs=json_env != "0",
        admin_redis_url=admin_redis_url or redis_url,
        signing_key=signing_key,
        found_at=found_at,
        sweep_s=sweep_s,
        database_url=os.environ.get("DATABASE_URL", ""),
        archive_s=archive_s,
        archiver_nice=int(nice),
        project_s=project_s,
        metrics_port=int(metrics_port),
        metrics_host=os.environ.get("TABULA_METRICS_HOST", "127.0.0.1"),
    )
