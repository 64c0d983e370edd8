"""Decoding stored events: one typed decoder per ruleset (its events plus the platform's)."""

import functools
from collections.abc import Sequence
from typing import Any, Union

import msgspec

from contracts.envelope import StoredEvent
from contracts.events import PLATFORM_EVENTS, Event, GameCreated
from domain.core import Ruleset
from domain.registry import find_ruleset

encode = msgspec.json.Encoder().encode


@functools.cache
def decoder(ruleset_name: str) -> msgspec.json.Decoder[Event]:
    types = (*PLATFORM_EVENTS, *find_ruleset(ruleset_name).events)
    return msgspec.json.Decoder(Union[types])  # noqa: UP007


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
    dec = decoder(name)
    return find_ruleset(name), [dec.decode(s.body) for s in stored]
