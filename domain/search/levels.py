"""Bot levels (issue 24): what a person picks, 1 (random play) to 5 (the largest search budget).

Level 1 plays a uniformly random legal action; levels 2 to 5 search with `domain.search.mcts`
over budgets 2.4 to 4 times larger each step (UCT's strength grows roughly with the log of
its iterations). The budgets are iterations, not seconds: the domain reads no clock, and the
same seed then gives the same move on any machine. On a small machine (two cores) level 3
takes 0.07 to 0.16 s a move and level 5 0.5 to 1.1 s (Spacewar's by a smaller budget,
COSTLY).

Pure, like the rest of the domain: randomness comes from the integer seed through `SplitMix`.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from domain.core.ruleset import Ruleset, bot_policy_of
from domain.search.help import help_for
from domain.search.mcts import SplitMix, is_agreement, search


@dataclass(frozen=True, slots=True)
class Level:
    """A bot's strength: `iterations` of search a move (0: random play, no search), each
    playout cut after `playout_limit` plies."""

    number: int
    name: str
    iterations: int
    playout_limit: int


# Playouts are cut short (scored by the ruleset's evaluation, domain.search.help, else as a
# draw) so a budget buys many of them: a random playout to a game's natural end runs to
# thousands of plies in most of these games. Some rulesets' help cuts them far shorter
# (domain.search.help, `playout`).
LEVELS: Final[tuple[Level, ...]] = (
    Level(1, "random", 0, 0),
    Level(2, "novice", 25, 40),
    Level(3, "club", 100, 40),
    Level(4, "strong", 250, 50),
    Level(5, "master", 600, 60),
)

# Rulesets whose playouts cost far more than the others', and how many times fewer iterations
# their levels search: Spacewar's moves cost several times the others' to list (its field
# checks). Its level 3 at a quarter of the budget takes about as long as the others' at the
# full one; against random play it scored 92% over 20 games (an eighth: 85% over 10).
COSTLY: Final[dict[str, int]] = {"spacewar": 4}


def iterations(at: Level, ruleset: Ruleset[Any, Any]) -> int:
    """The iterations level `at` searches a move of `ruleset` (0: no search)."""
    if at.iterations == 0:
        return 0
    return max(1, at.iterations // COSTLY.get(ruleset.name, 1))


def level(number: int) -> Level:
    """The level numbered `number`; ValueError for any other number."""
    for known in LEVELS:
        if known.number == number:
            return known
    raise ValueError(f"no bot level {number} (levels: 1 to {len(LEVELS)})")


def random_action(ruleset: Ruleset[Any, Any], state: Any, seat: int, rng: SplitMix) -> Any:
    """A uniformly random legal action of `seat` that is not a resignation or draw agreement
    (random play should play, not give up); when it has none, the ruleset's own bot's choice
    (a placement, which `legal_actions` does not list); None: nothing to do."""
    actions: Sequence[Any] = ruleset.legal_actions(state, seat)
    moves = [a for a in actions if not is_agreement(ruleset.format_action(state, a))]
    if moves:
        return moves[rng.randrange(len(moves))]
    return _own_bot(ruleset, state, seat, rng)


def _own_bot(ruleset: Ruleset[Any, Any], state: Any, seat: int, rng: SplitMix) -> Any:
    own = bot_policy_of(ruleset)
    return None if own is None else own.bot_action(state, seat, rng.randrange)


@dataclass(frozen=True, slots=True)
class Thought:
    """A level's choice and what to log beside it: the action (None: nothing to do now), the
    seed, the iterations searched (0: none) and how it was chosen ("random", "own-bot",
    "search", "wins-at-once", "only-action")."""

    action: Any
    seed: int
    iterations: int = 0
    how: str = "random"


def think(
    ruleset: Ruleset[Any, Any],
    state: Any,
    seat: int,
    at: Level,
    seed: int,
    should_stop: Callable[[], bool] | None = None,
) -> Thought:
    """`seat`'s action in `state` (the ruleset's own state, as the seat sees it) at level `at`,
    drawn from `seed`: the same arguments give the same action. `should_stop` (the caller's
    deadline, asked between iterations) may end a search early.

    Where the search has nothing to search (a placement phase: Yavoch's ships are placed by
    the ruleset's own bot), the ruleset's own bot chooses, else a random legal action. The
    ruleset's help (domain.search.help: evaluation, ordering, determinization) is used."""
    rng = SplitMix(seed)
    budget = iterations(at, ruleset)
    if budget == 0:
        return Thought(random_action(ruleset, state, seat, rng), seed)
    aid = help_for(ruleset)
    plies = at.playout_limit if aid.playout is None else min(at.playout_limit, aid.playout)
    try:
        found = search(ruleset, state, seat, iterations=budget, seed=seed,
                       playout_limit=plies, evaluate=aid.evaluate, order=aid.order,
                       determinize=aid.determinize, should_stop=should_stop)  # fmt: skip
    except ValueError:
        own = _own_bot(ruleset, state, seat, rng)
        if own is not None:
            return Thought(own, seed, how="own-bot")
        return Thought(random_action(ruleset, state, seat, rng), seed)
    return Thought(found.action, seed, found.iterations, found.reason)


def choose(ruleset: Ruleset[Any, Any], state: Any, seat: int, at: Level, seed: int) -> Any:
    """`think`'s action alone. None: the seat has nothing to do now."""
    return think(ruleset, state, seat, at, seed).action


__all__ = [
    "COSTLY",
    "LEVELS",
    "Level",
    "Thought",
    "choose",
    "iterations",
    "level",
    "random_action",
    "think",
]
