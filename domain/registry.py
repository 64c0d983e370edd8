"""Ruleset lookup by name. Variants are parsed by each ruleset from the variant string."""

import functools
from typing import Any, Union

import msgspec

from contracts.errors import ErrorCode
from contracts.events import PLATFORM_EVENTS, Event
from domain.chess3d import CHESS3D
from domain.core import Ruleset, VariantError
from domain.core.ruleset import check_capabilities
from domain.cyvasse import CYVASSE
from domain.spacewar import SPACEWAR
from domain.spacewar_ha import SPACEWAR_HA
from domain.yavoch import YAVOCH
from domain.yiora import YIORA

RULESETS: dict[str, Ruleset[Any, Any]] = {}


def register(ruleset: Ruleset[Any, Any]) -> None:
    """Make a ruleset known by its name, once its declared capabilities are checked against
    what it implements (domain.core.ruleset.check_capabilities)."""
    check_capabilities(ruleset)
    known = RULESETS.setdefault(ruleset.name, ruleset)
    if known is not ruleset:
        raise ValueError(f"another ruleset is registered as {ruleset.name!r}")


for _ruleset in (CHESS3D, CYVASSE, YAVOCH, YIORA, SPACEWAR, SPACEWAR_HA):
    register(_ruleset)


def find_ruleset(name: str) -> Ruleset[Any, Any]:
    try:
        return RULESETS[name]
    except KeyError:
        known = ", ".join(sorted(RULESETS))
        raise VariantError(
            ErrorCode.UNKNOWN_RULESET, f"unknown ruleset {name!r} (known: {known})"
        ) from None


@functools.cache
def event_decoder(name: str) -> msgspec.json.Decoder[Event]:
    """One typed decoder for a ruleset's games: its events and the platform's, as a union."""
    types = (*PLATFORM_EVENTS, *find_ruleset(name).events)
    union: Any = Union.__getitem__(types)
    return msgspec.json.Decoder(union)
