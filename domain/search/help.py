"""Per-ruleset help for the search (issue 24), where random playouts say little: a cheap
evaluation of a position cut short, and how short (`playout`: the plies of a playout at every
level, where the evaluation says more after a few random plies than after many; None: the
level's), an ordering of actions, and a sampler of what a seat cannot see (`Determinize`).
Each lives in its ruleset's package; this table only names them, by ruleset name, so that the
search itself stays general."""

from dataclasses import dataclass
from typing import Any, Final

from domain.chess3d import evaluate as chess3d
from domain.core.ruleset import Ruleset
from domain.cyvasse import evaluate as cyvasse
from domain.search.mcts import Determinize, Evaluate, Order
from domain.spacewar import evaluate as spacewar
from domain.spacewar_ha import evaluate as spacewar_ha
from domain.yavoch.determinize import DETERMINIZE as YAVOCH_DETERMINIZE
from domain.yiora import evaluate as yiora


@dataclass(frozen=True, slots=True)
class Help:
    evaluate: Evaluate | None = None
    order: Order | None = None
    determinize: Determinize | None = None
    playout: int | None = None


NONE: Final = Help()
_HELP: Final[dict[str, Help]] = {
    "chess3d": Help(chess3d.evaluate, chess3d.order, playout=chess3d.PLAYOUT),
    "cyvasse": Help(cyvasse.evaluate, cyvasse.order, playout=cyvasse.PLAYOUT),
    "spacewar": Help(spacewar.evaluate, spacewar.order, playout=spacewar.PLAYOUT),
    "spacewar-ha": Help(spacewar_ha.evaluate, playout=spacewar_ha.PLAYOUT),
    "yiora": Help(yiora.evaluate, yiora.order, playout=yiora.PLAYOUT),
    "yavoch": Help(determinize=YAVOCH_DETERMINIZE),
}


def help_for(ruleset: Ruleset[Any, Any]) -> Help:
    """The help `ruleset`'s package gives the search (none: plain random playouts)."""
    return _HELP.get(ruleset.name, NONE)


__all__ = ["NONE", "Help", "help_for"]
