"""Glicko-2 for two-sided games, one update per game, as Lichess (lila/scalachess) applies it.

The algorithm is Glickman's "Example of the Glicko-2 system" (2013), steps 1-8, with the
volatility found by the Illinois algorithm (step 5). `rate_period` is the paper's rating
period of any number of games; `rate` is Lichess's use of it (scalachess
`rating/glicko/impl/RatingCalculator.scala`, lila `modules/round/src/main/PerfsUpdater.scala`
and `modules/rating/src/main/Glicko.scala`):

- each game is its own rating period, computed with *no* elapsed period in step 6
  (`computeGame(..., skipDeviationIncrease = true)`): φ* = φ;
- instead, a player's deviation grows with the time since their last rated game, before the
  game (lila's `liveDeviation`): φ ← sqrt(φ² + σ²·t), t = idle ms × 0.21436 / day, both
  players' pre-game values are used for both updates;
- before and after each game Lichess caps a rating (`Glicko.cap`): deviation in [45, 500],
  volatility at most 0.1, rating at least 400; a game moves a rating by at most 700
  (`maxRatingDelta`), and an insane result (NaN, off-scale) resets to the default
  (`Perf.addOrReset`'s `sanityCheck`).

Everything is a pure function of its arguments: time arrives as ms from the game's log, so
`tabula ratings --verify` recomputes every stored float exactly by replaying the games in order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

# lila Glicko.scala / scalachess glicko/model.scala.
DEFAULT_RATING: Final = 1500.0
DEFAULT_VOLATILITY: Final = 0.09
MIN_DEVIATION: Final = 45.0
MAX_DEVIATION: Final = 500.0  # also a new player's deviation
MAX_VOLATILITY: Final = 0.1  # "past this, it might not stabilize ever again"
MIN_RATING: Final = 400.0
MAX_RATING: Final = 4000.0  # only in the sanity check, not a cap
PROVISIONAL_DEVIATION: Final = 110.0
MAX_RATING_DELTA: Final = 700.0
TAU: Final = 0.75
# "Chosen so a typical player's RD goes from 60 -> 110 in 1 year" (lila Glicko.scala).
RATING_PERIODS_PER_DAY: Final = 0.21436

# scalachess RatingCalculator.scala: the Glicko-2 scale factor 400/ln(10), as lila rounds it.
SCALE: Final = 173.7178
CONVERGENCE_TOLERANCE: Final = 0.000001
ITERATION_MAX: Final = 1000
# Computed as lila does, `ratingPeriodsPerDay * (1.0 / ms per day)`, so the floats agree.
RATING_PERIODS_PER_MS: Final = RATING_PERIODS_PER_DAY * (1.0 / (1000 * 60 * 60 * 24))


@dataclass(frozen=True, slots=True)
class Glicko:
    """A player's rating in one class: the defaults are a new player's."""

    rating: float = DEFAULT_RATING
    deviation: float = MAX_DEVIATION
    volatility: float = DEFAULT_VOLATILITY
    games: int = 0
    last_ms: int | None = None  # the end of the last rated game; None: never played

    @property
    def provisional(self) -> bool:
        return self.deviation >= PROVISIONAL_DEVIATION


def shown(g: Glicko) -> int:
    """The rating as displayed: truncated toward zero, as lila's `intRating` (`rating.toInt`)."""
    return int(g.rating)


def idle(g: Glicko, at_ms: int) -> Glicko:
    """The player's deviation at `at_ms`, grown by the rating periods since their last game
    (Glickman step 6 with fractional periods; lila's `liveDeviation`), within [45, 500]; the
    same player when no time has passed."""
    # A log replays games in order of their end, but two may end at the same ms or be
    # recorded a little out of order: never shrink a deviation for negative time.
    if g.last_ms is None or at_ms <= g.last_ms:
        return g
    periods = (at_ms - g.last_ms) * RATING_PERIODS_PER_MS
    phi = g.deviation / SCALE
    grown = math.sqrt(phi * phi + periods * g.volatility * g.volatility) * SCALE
    return replace(g, deviation=_clamp(grown, MIN_DEVIATION, MAX_DEVIATION))


def rate(player: Glicko, opponent: Glicko, score: float, at_ms: int) -> Glicko:
    """The player's rating after one game against `opponent` ended at `at_ms`, scoring 1, 0.5
    or 0. Call it for each player with both pre-game ratings."""
    me = _cap(idle(player, at_ms))
    them = _cap(idle(opponent, at_ms))
    new = rate_period(me, [(them, score)], periods=0.0)  # lila: skipDeviationIncrease
    new = replace(
        new,
        rating=_clamp(new.rating, me.rating - MAX_RATING_DELTA, me.rating + MAX_RATING_DELTA),
        last_ms=at_ms,
    )
    if not _sane(new):
        new = Glicko(games=new.games, last_ms=at_ms)  # lila resets a "Crazy Glicko2" result
    return _cap(new)


def rate_period(
    player: Glicko,
    results: Sequence[tuple[Glicko, float]],
    *,
    tau: float = TAU,
    periods: float = 1.0,
) -> Glicko:
    """Glickman's steps 2-8 for one rating period of `results` (opponent, score): uncapped.
    `periods` is the elapsed rating periods in step 6 (the paper: 1; Lichess's games: 0)."""
    if not results:
        raise ValueError("a rating period without games only grows the deviation: see idle()")
    # Step 2: to the Glicko-2 scale.
    mu = (player.rating - DEFAULT_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    # Steps 3-4: the estimated variance v and improvement Δ (lila's vOf, outcomeBasedRating).
    inv_v = 0.0
    outcome = 0.0
    for opponent, score in results:
        g = _g(opponent.deviation / SCALE)
        e = _e(mu, (opponent.rating - DEFAULT_RATING) / SCALE, g)
        inv_v += g * g * e * (1.0 - e)
        outcome += g * (score - e)
    v = 1.0 / inv_v
    delta = v * outcome
    # Step 5: the new volatility.
    sigma_new = _volatility(delta, phi, v, sigma, tau)
    # Steps 6-7: the pre-period deviation, then the new deviation and rating.
    phi_star = math.sqrt(phi * phi + periods * sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * outcome
    # Step 8: back to the Glicko scale.
    return replace(
        player,
        rating=mu_new * SCALE + DEFAULT_RATING,
        deviation=phi_new * SCALE,
        volatility=sigma_new,
        games=player.games + len(results),
    )


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, g: float) -> float:
    return 1.0 / (1.0 + math.exp(-g * (mu - mu_j)))


def _volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Step 5: σ' = exp(A/2), A the root of f by the Illinois algorithm (regula falsi that
    halves the retained end's value), from the brackets of step 5.2 as Glickman and lila."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        d = phi * phi + v + ex
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        big_b = a - k * abs(tau)
        while f(big_b) < 0:
            k += 1
            big_b = a - k * abs(tau)
    f_a, f_b = f(big_a), f(big_b)
    iterations = 0
    while abs(big_b - big_a) > CONVERGENCE_TOLERANCE and iterations < ITERATION_MAX:
        iterations += 1
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    if iterations == ITERATION_MAX:  # lila throws, and the game is left unrated
        raise ArithmeticError(f"Glicko-2 volatility did not converge in {ITERATION_MAX} steps")
    return math.exp(big_a / 2.0)


def _clamp(x: float, low: float, high: float) -> float:
    return min(max(x, low), high)


def _cap(g: Glicko) -> Glicko:
    """lila's `Glicko.cap`, applied to a rating before a game and after it."""
    return replace(
        g,
        rating=max(g.rating, MIN_RATING),
        deviation=_clamp(g.deviation, MIN_DEVIATION, MAX_DEVIATION),
        volatility=min(g.volatility, MAX_VOLATILITY),
    )


def _sane(g: Glicko) -> bool:
    """lila's `Glicko.sanityCheck` (false for NaN, too)."""
    return (
        0 < g.rating < MAX_RATING
        and 0 < g.deviation < 1000
        and 0 < g.volatility < MAX_VOLATILITY * 2
    )
