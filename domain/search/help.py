"""Per-ruleset help for the search (issue 24), where random playouts say little: a cheap
evaluation of a position cut short, an ordering of actions, and a sampler of what a seat
cannot see (`Determinize`). Each lives in its ruleset's package; this table only names them,
by ruleset name, so that the search itself stays general."""

from dataclasses import dataclass
from typing import Any, Final

from domain.core.ruleset import Ruleset
from domain.search.mcts import Determinize, Evaluate, Order
from domain.yavoch.determinize import DETERMINIZE as YAVOCH_DETERMINIZE


@dataclass(frozen=True, slots=True)
class Help:
    evaluate: Evaluate | None = None
    order: Order | None = None
    determinize: Determinize | None = None


NONE: Final = Help()
_HELP: Final[dict[str, Help]] = {
    "yavoch": Help(determinize=YAVOCH_DETERMINIZE),
}


def help_for(ruleset: Ruleset[Any, Any]) -> Help:
    """The help `ruleset`'s package gives the search (none: plain random playouts)."""
    return _HELP.get(ruleset.name, NONE)


__all__ = ["NONE", "Help", "help_for"]
