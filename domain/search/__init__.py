"""Game-tree search over the ruleset interface (issue 24): Monte Carlo tree search for bots."""

from domain.search.mcts import (
    DRAW_SCORE,
    UCT_C,
    Choice,
    Determinize,
    Evaluate,
    Order,
    Rng,
    SplitMix,
    search,
)

__all__ = [
    "DRAW_SCORE",
    "UCT_C",
    "Choice",
    "Determinize",
    "Evaluate",
    "Order",
    "Rng",
    "SplitMix",
    "search",
]
