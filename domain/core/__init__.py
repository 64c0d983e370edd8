from domain.core.ruleset import (
    Capability,
    Decision,
    DrawRequest,
    DrawResult,
    HiddenSetup,
    NeedDraws,
    Outcome,
    Rejection,
    Ruleset,
    VariantError,
    fold,
)

__all__ = [
    "Capability",
    "Decision",
    "DrawRequest",
    "DrawResult",
    "HiddenSetup",
    "NeedDraws",
    "Outcome",
    "Rejection",
    "Ruleset",
    "VariantError",
    "fold",
]
