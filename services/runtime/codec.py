"""Decoding a stored log: its ruleset (from GameCreated) and its events.

The registry (every ruleset) is imported where a log is decoded: the event store imports this
module for `CorruptEntry`, and a command that only reads the store should not load them all.
"""

import base64
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import msgspec

from contracts.envelope import StoredEvent
from contracts.events import Event, GameCreated
from domain.core import Ruleset

encode = msgspec.json.Encoder().encode
_created = msgspec.json.Decoder(GameCreated)


class LogError(ValueError):
    pass


class CorruptEntry(LogError):
    """An entry of a game's stream that the store's writers (append.lua, `import_log`) cannot
    have written: a field missing or unreadable, or a body that is not the game's event. Only a
    credential to the store puts one there; reading it names it (contracts: `store/corrupt`)
    rather than failing somewhere further on."""

    def __init__(self, game_id: str, problem: str, *, version: int | None = None,
                 entry: str = "") -> None:  # fmt: skip
        where = f"version {version}" if version is not None else ""
        if entry:
            where = f"{where} (stream id {entry})" if where else f"stream id {entry}"
        super().__init__(f"game {game_id}: the stored entry at {where} is malformed: {problem}")
        self.game_id, self.version, self.entry, self.problem = game_id, version, entry, problem


def created(first: StoredEvent) -> GameCreated:
    if first.version != 1 or first.type != "GameCreated":
        raise LogError(f"{first.game_id}: the log does not start with GameCreated")
    return _decode(first, _created.decode, "GameCreated")


def decode_log(stored: Sequence[StoredEvent]) -> tuple[Ruleset[Any, Any], list[Event]]:
    """The game's ruleset and its decoded events (version order); CorruptEntry naming the first
    event whose body does not decode."""
    from domain.registry import event_decoder, find_ruleset

    if not stored:
        raise LogError("empty log")
    name = created(stored[0]).ruleset
    ruleset = find_ruleset(name)
    dec = event_decoder(name).decode
    return ruleset, [_decode(s, dec, f"{name} event") for s in stored]


def decode_event(s: StoredEvent, ruleset: str) -> Event:
    """One stored event of a game of `ruleset`, decoded; CorruptEntry naming it if it does not
    decode."""
    from domain.registry import event_decoder

    return _decode(s, event_decoder(ruleset).decode, f"{ruleset} event")


T = TypeVar("T")


def _decode(s: StoredEvent, decode: Callable[[msgspec.Raw], T], what: str) -> T:
    try:
        return decode(s.body)
    # RecursionError: msgspec's refusal of a value nested too deep
    except (msgspec.DecodeError, RecursionError) as exc:
        raise CorruptEntry(s.game_id, f"its body ({s.type}) does not decode as a {what}: {exc}",
                           version=s.version) from None  # fmt: skip


# -- exports: a game's log as a file (`tabula export`, the gateway) ---------------------------


class Exported(msgspec.Struct, frozen=True, kw_only=True):
    """One line of an export (JSON Lines): a stored event, its exact bytes in `body_b64`.

    `event` is the decoded body, for reading only: imports and audits trust `body_b64`, and an
    audit fails at a line whose `event` is not its body decoded (domain/audit/readable.py).
    UNSET when a line has none (null stands for a body that is not JSON)."""

    game_id: str
    version: int
    type: str
    time_ms: int
    command_id: str
    hash: str
    body_b64: str
    event: Any | msgspec.UnsetType = msgspec.UNSET
    action: str = ""  # the command that produced it (chain v2); absent in older exports


def export_line(s: StoredEvent) -> bytes:
    body = bytes(s.body)
    try:
        event: Any = msgspec.json.decode(body)
    except msgspec.DecodeError:
        event = None  # not JSON (a damaged store): body_b64 still holds the bytes
    line = Exported(game_id=s.game_id, version=s.version, type=s.type, time_ms=s.time_ms,
                    command_id=s.command_id, hash=s.hash, action=s.action,
                    body_b64=base64.b64encode(body).decode(), event=event)  # fmt: skip
    return msgspec.json.encode(line) + b"\n"
