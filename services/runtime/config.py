"""Configuration, read once from the environment, failing fast with a clear message.

NATS_URL / REDIS_URL win when set; otherwise a running embedded stack (`tabula up`) is found
through the stack file it writes into TABULA_HOME.
"""

import os
from dataclasses import dataclass
from pathlib import Path

import msgspec

DEFAULT_HOME = ".tabula"


class ConfigError(RuntimeError):
    pass


class StackFile(msgspec.Struct, frozen=True):
    nats_url: str
    redis_url: str
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


def find_stack() -> StackFile | None:
    """The running embedded stack: TABULA_HOME's when set; else the nearest .tabula/ in this
    directory or a parent; else the last one this user started, if its process still runs."""
    if "TABULA_HOME" in os.environ:
        return read_stack()
    for folder in (Path.cwd(), *Path.cwd().parents):
        if (stack := read_stack(folder / DEFAULT_HOME)) is not None:
            return stack
    try:
        stack = msgspec.json.decode(user_pointer().read_bytes(), type=StackFile)
    except (FileNotFoundError, msgspec.DecodeError):
        return None
    return stack if Path(f"/proc/{stack.pid}").exists() else None


def load() -> Settings:
    nats_url = os.environ.get("NATS_URL")
    redis_url = os.environ.get("REDIS_URL")
    if not (nats_url and redis_url):
        stack = find_stack()
        if stack is None and not (nats_url or redis_url):
            raise ConfigError(
                "no Tabula stack found: start one with `tabula up` (or `make run`), "
                "or set NATS_URL and REDIS_URL"
            )
        if stack is None:
            raise ConfigError("set both NATS_URL and REDIS_URL, or neither")
        nats_url = nats_url or stack.nats_url
        redis_url = redis_url or stack.redis_url
    level = os.environ.get("TABULA_LOG_LEVEL", "info").lower()
    if level not in {"debug", "info", "warning", "error"}:
        raise ConfigError(f"TABULA_LOG_LEVEL must be debug|info|warning|error, not {level!r}")
    json_env = os.environ.get("TABULA_JSON_LOGS", "")
    return Settings(
        nats_url=nats_url,
        redis_url=redis_url,
        home=home(),
        secret=os.environ.get("TABULA_SECRET") or None,
        log_level=level,
        json_logs=json_env != "0",
    )
