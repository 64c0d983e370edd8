"""Decoding a stored log: its ruleset (from GameCreated) and its events."""

import base64
from collections.abc import Sequence
from typing import Any

import msgspec

from contracts.envelope import StoredEvent
from contracts.events import Event, GameCreated
from domain.core import Ruleset
from domain.registry import event_decoder, find_ruleset

encode = msgspec.json.Encoder().encode


class LogError(ValueError):
    pass


def created(first: StoredEvent) -> GameCreated:
    if first.version != 1 or first.type != "GameCreated":
        raise LogError(f"{first.game_id}: the log does not start with GameCreated")
    return msgspec.json.decode(first.body, type=GameCreated)


def decode_log(stored: Sequence[StoredEvent]) -> tuple[Ruleset[Any, Any], list[Event]]:
    """The game's ruleset and its decoded events (version order)."""
    if not stored:
        raise LogError("empty log")
    name = created(stored[0]).ruleset
    dec = event_decoder(name)
    return find_ruleset(name), [dec.decode(s.body) for s in stored]


# -- exports: a game's log as a file (`tabula export`, the gateway) ---------------------------


class Exported(msgspec.Struct, frozen=True, kw_only=True):
    """One line of an export (JSON Lines): a stored event, its exact bytes in `body_b64`.

    `event` is the decoded body, for reading only: imports and audits trust `body_b64`."""

    game_id: str
    version: int
    type: str
    time_ms: int
    command_id: str
    hash: str
    body_b64: str
    event: Any = None
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
