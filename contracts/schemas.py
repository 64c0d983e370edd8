"""JSON Schema for every message (`tabula schema` writes them into docs/schemas/)."""

from typing import Any, Union

import msgspec

from contracts import chess3d, commands, cyvasse, spacewar, spacewar_ha, yavoch, yiora
from contracts.envelope import SealedEvent, StoredEvent
from contracts.events import PLATFORM_EVENTS

REQUESTS = (
    commands.CreateGame,
    commands.Act,
    commands.ReadEvents,
    commands.GetView,
    commands.CreateSeed,
    commands.Draw,
    commands.RevealSeed,
    commands.Enqueue,
    commands.Cancel,
    commands.PlaySeat,
)
REPLIES = tuple(commands.Reply.__subclasses__())
RULESET_EVENTS = {
    "chess3d": chess3d.EVENTS,
    "cyvasse": cyvasse.EVENTS,
    "yavoch": yavoch.EVENTS,
    "yiora": yiora.EVENTS,
    "spacewar": spacewar.EVENTS,
    "spacewar-ha": spacewar_ha.EVENTS,
}


def _ecma(schema: Any) -> Any:
    """Patterns as JSON Schema reads them (ECMA-262): Python's end anchor `\\Z` is `$` there."""
    if isinstance(schema, dict):
        return {k: (v.replace("\\Z", "$") if k == "pattern" else _ecma(v))
                for k, v in schema.items()}  # fmt: skip
    if isinstance(schema, list):
        return [_ecma(v) for v in schema]
    return schema


def all_schemas() -> dict[str, Any]:
    return {name: _ecma(doc) for name, doc in _schemas().items()}


def _schemas() -> dict[str, Any]:
    out: dict[str, Any] = {t.__name__: msgspec.json.schema(t) for t in REQUESTS}
    out["Reply"] = msgspec.json.schema(Union[REPLIES])  # noqa: UP007
    out["StoredEvent"] = msgspec.json.schema(StoredEvent)
    out["SealedEvent"] = msgspec.json.schema(SealedEvent)
    out["events.platform"] = msgspec.json.schema(Union[PLATFORM_EVENTS])  # noqa: UP007
    for name, events in RULESET_EVENTS.items():
        out[f"events.{name}"] = msgspec.json.schema(Union[(*PLATFORM_EVENTS, *events)])
    return out
