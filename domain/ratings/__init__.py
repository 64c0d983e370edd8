"""Ratings (issue 23): pure functions from finished games, in log order, to players' ratings.

Glicko-2 as Lichess applies it for two-sided games (`glicko2`), Weng–Lin (openskill) for games
of more sides or teams (`multi`), and Lichess's time-control classes that ratings are kept per
(`classes`). No clock, no randomness: a game's end time comes from its log, so replaying the
logs recomputes every stored rating exactly.
"""

from domain.ratings.classes import speed
from domain.ratings.glicko2 import Glicko, idle, rate, rate_period, shown
from domain.ratings.multi import Skill, rate_sides

__all__ = ["Glicko", "Skill", "idle", "rate", "rate_period", "rate_sides", "shown", "speed"]
