"""Ruleset lookup by name. Variants are parsed by each ruleset from the variant string."""

from typing import Any

from contracts.errors import ErrorCode
from domain.chess3d import CHESS3D
from domain.core import Ruleset, VariantError

RULESETS: dict[str, Ruleset[Any, Any]] = {CHESS3D.name: CHESS3D}


def find_ruleset(name: str) -> Ruleset[Any, Any]:
    try:
        return RULESETS[name]
    except KeyError:
        known = ", ".join(sorted(RULESETS))
        raise VariantError(
            ErrorCode.UNKNOWN_RULESET, f"unknown ruleset {name!r} (known: {known})"
        ) from None
