"""Decoding a stored log: its ruleset (from GameCreated) and its events."""

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
