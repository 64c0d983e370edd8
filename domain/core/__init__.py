from domain.core.ruleset import (
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
