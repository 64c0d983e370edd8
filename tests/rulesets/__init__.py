"""Small rulesets that exist only to test the platform (the fair-play table, the audit)."""

from domain import registry
from tests.rulesets.race import RACE


def register() -> None:
    """Make the test rulesets known to `domain.registry` (idempotent)."""
    registry.register(RACE)


__all__ = ["RACE", "register"]
