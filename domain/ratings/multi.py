"""Ratings for games of more than two sides, or of teams: Weng–Lin, by openskill.

Glicko-2 is defined for pairs of players; a four-seat free-for-all or a game of two teams of
two (Yiora Secondary) has no pairwise result to feed it, and splitting it into pairs counts one
game several times. Weng and Lin's Bayesian approximation ("A Bayesian Approximation Method for
Online Ranking", JMLR 12, 2011) was made for this: any number of teams of any size, ranked with
ties, one update per game, in closed form (no iteration, no randomness), so replaying the logs
recomputes the same floats. openskill implements the paper; we use its Plackett–Luce model
(the paper's Algorithm 4) with its defaults: μ 25, σ 25/3, β 25/6, κ 0.0001, τ 25/300 (σ grows
by τ before each game, so a rating keeps moving), σ not limited.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from openskill.models import PlackettLuce

MU: Final = 25.0
SIGMA: Final = 25.0 / 3.0

# Stateless between calls (`rate` copies its input), so one model serves every game.
_MODEL: Final = PlackettLuce(mu=MU, sigma=SIGMA)


@dataclass(frozen=True, slots=True)
class Skill:
    """A player's skill: the defaults are a new player's."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0

    @property
    def ordinal(self) -> float:
        """A conservative estimate, μ − 3σ: what a leaderboard sorts by."""
        return self.mu - 3.0 * self.sigma


def ranks(scores: Sequence[float]) -> list[float]:
    """Each side's rank from the scores (higher is better): 0 for the best, equal scores share
    a rank ("1224" ranking), as openskill reads `ranks` (lower wins)."""
    return [float(sum(1 for other in scores if other > score)) for score in scores]


def rate_sides(sides: Sequence[Sequence[Skill]], scores: Sequence[float]) -> list[list[Skill]]:
    """The players' skills after one game of `sides` (teams; a side of one in a free-for-all),
    side i scoring scores[i]; the result has the shape of `sides`."""
    if len(sides) != len(scores):
        raise ValueError(f"{len(sides)} sides but {len(scores)} scores")
    if len(sides) < 2 or any(not side for side in sides):
        raise ValueError("a rated game needs two sides or more, each of one player or more")
    teams = [[_MODEL.rating(mu=s.mu, sigma=s.sigma) for s in side] for side in sides]
    # Ranks rather than openskill's `scores`: they mean the same to its model when its margin is
    # 0, and ranks keep the scores' magnitudes out of it (only their order counts).
    new = _MODEL.rate(teams, ranks=ranks(scores))
    return [
        [Skill(r.mu, r.sigma, s.games + 1) for r, s in zip(side_new, side, strict=True)]
        for side_new, side in zip(new, sides, strict=True)
    ]
