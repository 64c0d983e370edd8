from domain.core.outcome import Outcome, Sides
from domain.core.ruleset import (
    Capability,
    Decided,
    Decision,
    DrawRequest,
    DrawResult,
    HiddenSetup,
    NeedDraws,
    Rejection,
    Ruleset,
    VariantError,
    fold,
)
from domain.core.variant import Parameter, ParamType, Variant, VariantSpec

__all__ = [
    "Capability",
    "Decided",
    "Decision",
    "DrawRequest",
    "DrawResult",
    "HiddenSetup",
    "NeedDraws",
    "Outcome",
    "ParamType",
    "Parameter",
    "Rejection",
    "Ruleset",
    "Sides",
    "Variant",
    "VariantError",
    "VariantSpec",
    "fold",
]
