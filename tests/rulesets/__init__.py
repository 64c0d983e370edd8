"""Small rulesets that exist only to test the platform (the fair-play table, the audit)."""

from domain.registry import RULESETS
from tests.rulesets.race import RACE


def register() -> None:
    """Make the test rulesets known to `domain.registry` (idempotent)."""
    RULESETS.setdefault(RACE.name, RACE)


__all__ = ["RACE", "register"]
