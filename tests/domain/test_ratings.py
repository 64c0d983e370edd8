"""Ratings (domain/ratings, issue 23): Glicko-2 as Lichess applies it, Weng–Lin for more sides,
and Lichess's time-control classes. Each test names the source its numbers come from."""

from dataclasses import replace

import pytest

from domain.ratings import Glicko, Skill, idle, rate, rate_period, rate_sides, shown, speed
from domain.ratings.glicko2 import (
    MAX_DEVIATION,
    MAX_RATING_DELTA,
    MAX_VOLATILITY,
    MIN_DEVIATION,
    MIN_RATING,
    SCALE,
)
from domain.ratings.multi import ranks

DAY_MS = 86_400_000


# --- Glicko-2 -------------------------------------------------------------------------------


def test_glickmans_worked_example() -> None:
    # Glickman 2013, "Example of the Glicko-2 system", section "Example calculation": τ = 0.5,
    # a player 1500/200/0.06 beats 1400/30, loses to 1550/100 and to 1700/300 in one period.
    player = Glicko(1500, 200, 0.06)
    games = [(Glicko(1400, 30), 1.0), (Glicko(1550, 100), 0.0), (Glicko(1700, 300), 0.0)]
    new = rate_period(player, games, tau=0.5)
    # The paper's step 8 values on the Glicko-2 scale, to its printed 4 places: μ' = -0.2069,
    # φ' = 0.8722; and σ' = 0.05999.
    assert round((new.rating - 1500) / SCALE, 4) == -0.2069
    assert round(new.deviation / SCALE, 4) == 0.8722
    assert new.volatility == pytest.approx(0.05999, abs=0.00001)
    # r' = 1464.06 and RD' = 151.52 in the paper, which converts its rounded μ' (-0.2069):
    # unrounded, r' is 1464.05.
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert round(new.deviation, 2) == 151.52
    assert new.games == 3


@pytest.mark.parametrize(
    ("score", "rating", "volatility"),
    [(1.0, 1741, 0.0899983), (0.0, 1258, 0.0899983), (0.5, 1500, 0.0899954)],
)
def test_two_new_players(score: float, rating: float, volatility: float) -> None:
    # scalachess test-kit rating/glicko/impl/RatingCalculatorTest.scala, "default deviation":
    # lila's new player 1500/500/0.09, one game with skipDeviationIncrease.
    new = rate(Glicko(), Glicko(), score, 0)
    assert new.rating == pytest.approx(rating, abs=1)
    assert new.deviation == pytest.approx(396, abs=1)
    assert new.volatility == pytest.approx(volatility, abs=0.0000001)
    assert (new.games, new.last_ms) == (1, 0)


@pytest.mark.parametrize(
    ("white", "black", "score", "expected"),
    [
        # scalachess test-kit rating/glicko/GlickoCalculatorTest.scala (no colour advantage):
        # (rating, deviation, volatility) after the game, white's then black's.
        ((1500, 350, 0.06), (1500, 350, 0.06), 1.0,
         ((1662.21, 290.2305, 0.0599993), (1337.79, 290.2305, 0.0599993))),
        ((1400, 79, 0.06), (1550, 110, 0.065), 1.0,
         ((1422.63, 77.4956, 0.06), (1506.32, 105.8706, 0.065))),
        ((1400, 79, 0.06), (1550, 110, 0.065), 0.5,
         ((1406.31, 77.4956, 0.06), (1537.61, 105.8706, 0.065))),
        ((1200, 60, 0.053), (1850, 200, 0.062), 1.0,
         ((1216.73, 59.9006, 0.053013), (1635.99, 196.9873, 0.062028))),
        ((1200, 60, 0.053), (1850, 200, 0.062), 0.0,
         ((1199.29, 59.9006, 0.052999), (1855.42, 196.9873, 0.061999))),
    ],
)  # fmt: skip
def test_lichess_reference_games(
    white: tuple[float, float, float],
    black: tuple[float, float, float],
    score: float,
    expected: tuple[tuple[float, float, float], tuple[float, float, float]],
) -> None:
    w, b = Glicko(*white), Glicko(*black)
    for new, (rating, deviation, volatility) in zip(
        (rate(w, b, score, 0), rate(b, w, 1 - score, 0)), expected, strict=True
    ):
        assert new.rating == pytest.approx(rating, abs=0.005)
        assert new.deviation == pytest.approx(deviation, abs=0.00005)
        assert new.volatility == pytest.approx(volatility, abs=0.00001)


def test_deviation_never_leaves_45_to_500() -> None:
    # lila Glicko.scala: minDeviation 45, maxDeviation 500, applied by `cap` and `liveDeviation`.
    a, b = Glicko(), Glicko()
    seen = []
    for n in range(400):  # two players meeting every minute: deviations shrink to the floor
        a, b = rate(a, b, n % 2, n * 60_000), rate(b, a, 1 - n % 2, n * 60_000)
        seen += [a.deviation, b.deviation]
    assert min(seen) == MIN_DEVIATION == 45
    assert max(seen) <= MAX_DEVIATION == 500
    # Fifty idle years grow it to the ceiling, not past it, and a game there starts from it.
    later = 399 * 60_000 + 50 * 365 * DAY_MS
    assert idle(a, later).deviation == MAX_DEVIATION
    assert rate(a, b, 1.0, later).deviation <= MAX_DEVIATION
    # A deviation stored out of bounds is brought back in before it is used.
    assert rate(Glicko(deviation=20), Glicko(), 0.5, 0).deviation >= MIN_DEVIATION
    assert rate(Glicko(deviation=900), Glicko(), 0.5, 0).deviation <= MAX_DEVIATION


def test_provisional_while_deviation_is_at_least_110() -> None:
    # lila Glicko.scala: provisional = deviation >= provisionalDeviation (110).
    assert Glicko().provisional
    assert Glicko(deviation=110).provisional
    assert not Glicko(deviation=109.99).provisional


def test_idle_time_grows_the_deviation() -> None:
    # lila Glicko.scala: ratingPeriodsPerDay 0.21436, "chosen so a typical player's RD goes
    # from 60 -> 110 in 1 year".
    regular = Glicko(1500, 60, 0.06, games=100, last_ms=0)
    assert idle(regular, 365 * DAY_MS).deviation == pytest.approx(110, abs=0.01)
    assert idle(regular, 0).deviation == 60
    assert idle(regular, -DAY_MS).deviation == 60  # out-of-order log times never shrink it
    assert idle(Glicko(), 10**12) == Glicko()  # never played: nothing to grow from
    # The same game a year later moves the rating further (lila liveDeviation before a game).
    opponent = Glicko(1500, 60, 0.06, games=100, last_ms=365 * DAY_MS)
    soon = rate(regular, opponent, 1.0, DAY_MS)
    late = rate(regular, opponent, 1.0, 365 * DAY_MS)
    assert late.rating - regular.rating > soon.rating - regular.rating > 0
    assert late.last_ms == 365 * DAY_MS
    # The opponent's pre-game deviation grows as well: both updates use both idle values.
    rusty = Glicko(1500, 60, 0.06, games=100, last_ms=0)
    grown = replace(idle(rusty, 365 * DAY_MS), last_ms=None)  # grown once, not again
    assert rate(regular, rusty, 1.0, 365 * DAY_MS) == rate(regular, grown, 1.0, 365 * DAY_MS)
    assert rate(regular, rusty, 1.0, 365 * DAY_MS) != late


def test_a_win_moves_both_players_alike() -> None:
    # Glickman 2013, step 7: with equal deviations each side's change is φ'²·g·(s − E), the
    # same magnitude for both; exactly equal (bitwise) when the players are alike too.
    new = Glicko(games=3, last_ms=0)
    winner, loser = rate(new, new, 1.0, 0), rate(new, new, 0.0, 0)
    assert winner.rating - 1500 == 1500 - loser.rating
    assert winner.deviation == loser.deviation
    a, b = Glicko(1734.5, 80, 0.06), Glicko(1450, 80, 0.07)
    for score in (1.0, 0.5, 0.0):
        gain = rate(a, b, score, 0).rating - a.rating
        loss = b.rating - rate(b, a, 1 - score, 0).rating
        assert gain == pytest.approx(loss, abs=1e-9)  # float rounding of the scale changes
    # Unequal deviations: the less certain rating moves more.
    sure, unsure = Glicko(1500, 60), Glicko(1500, 300)
    assert rate(unsure, sure, 1.0, 0).rating - 1500 > 1500 - rate(sure, unsure, 0.0, 0).rating


def test_lichess_caps_a_game() -> None:
    # lila Glicko.scala `cap` (rating >= 400, volatility <= 0.1) and Perf.addOrReset
    # (maxRatingDelta 700).
    floor = rate(Glicko(420, 300), Glicko(450, 300), 0.0, 0)
    assert floor.rating == MIN_RATING
    upset = rate(Glicko(800, 500, 0.09), Glicko(2800, 45, 0.06), 1.0, 0)
    assert upset.rating - 800 == MAX_RATING_DELTA
    assert upset.volatility <= MAX_VOLATILITY


def test_the_same_games_give_the_same_floats() -> None:
    # Issue 23: `tabula ratings --verify` recomputes every stored rating from the logs.
    def replay() -> tuple[Glicko, Glicko]:
        a, b = Glicko(), Glicko()
        for n, score in enumerate([1.0, 0.5, 0.0, 1.0, 1.0, 0.0, 0.5] * 5):
            at = n * 7 * DAY_MS // 3
            a, b = rate(a, b, score, at), rate(b, a, 1 - score, at)
        return a, b

    first, second = replay(), replay()
    assert first == second
    assert [g.rating.hex() for g in first] == [g.rating.hex() for g in second]
    assert first[0].games == 35


def test_shown_truncates_like_lichess() -> None:
    # scalachess glicko/model.scala: intRating = IntRating(rating.toInt).
    assert shown(Glicko(1741.99)) == 1741
    assert shown(Glicko(1500.0)) == 1500


def test_a_period_needs_a_game() -> None:
    # Glickman 2013, step 1-2: a player who did not compete only has the deviation grow (idle).
    with pytest.raises(ValueError, match="idle"):
        rate_period(Glicko(), [])


# --- Weng–Lin (openskill) -------------------------------------------------------------------


def test_a_winning_team_rises_and_the_losers_fall() -> None:
    # Weng & Lin 2011 (openskill PlackettLuce): a team's members share its result.
    players = [[Skill(), Skill(26, 7)], [Skill(24, 8), Skill()]]
    after = rate_sides(players, [1.0, 0.0])
    for side, result, sign in zip(players, after, (1, -1), strict=True):
        for before, now in zip(side, result, strict=True):
            assert (now.mu - before.mu) * sign > 0
            assert (now.ordinal - before.ordinal) * sign > 0
            assert now.games == before.games + 1


def test_a_tie_leaves_equal_players_equal() -> None:
    # Weng & Lin 2011: tied ranks share the same update; equal priors stay equal.
    after = rate_sides([[Skill(), Skill()], [Skill(), Skill()]], [0.5, 0.5])
    assert len({(s.mu, s.sigma) for side in after for s in side}) == 1
    assert after[0][0].mu == 25.0
    ffa = rate_sides([[Skill()], [Skill()], [Skill()], [Skill()]], [2, 1, 1, 0])
    assert ffa[1] == ffa[2]


def test_four_seats_are_ordered_by_score() -> None:
    # Weng & Lin 2011, Plackett–Luce over 4 free-for-all seats (Yiora Secondary's 4 seats).
    scores = [1.0, 3.0, 0.0, 2.0]
    after = rate_sides([[Skill()] for _ in scores], scores)
    ordinals = [side[0].ordinal for side in after]
    assert sorted(range(4), key=lambda seat: ordinals[seat]) == [2, 0, 3, 1]
    assert ordinals[1] > Skill().ordinal > ordinals[2]


def test_scores_become_openskill_ranks() -> None:
    # openskill PlackettLuce.rate: `ranks`, lower wins; ties share a rank.
    assert ranks([1.0, 3.0, 0.0, 2.0]) == [2.0, 0.0, 3.0, 1.0]
    assert ranks([1.0, 0.0, 1.0, 0.0]) == [0.0, 2.0, 0.0, 2.0]
    assert ranks([0.5, 0.5]) == [0.0, 0.0]


def test_skill_updates_are_deterministic_and_checked() -> None:
    # Issue 23: replaying a log must reproduce the stored floats.
    game = ([[Skill(27, 6)], [Skill(22, 7.5)], [Skill()]], [0.0, 2.0, 1.0])
    assert rate_sides(*game) == rate_sides(*game)
    assert Skill().ordinal == pytest.approx(0.0)
    with pytest.raises(ValueError, match="scores"):
        rate_sides([[Skill()], [Skill()]], [1.0])
    with pytest.raises(ValueError, match="two sides"):
        rate_sides([[Skill()]], [1.0])


# --- Time-control classes -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("base_s", "increment_s", "expected"),
    [
        # scalachess Speed.scala ranges over Clock.Config.estimateTotalSeconds = base + 40·inc.
        (15, 0, "ultrabullet"),
        (29, 0, "ultrabullet"),
        (30, 0, "bullet"),
        (0, 1, "bullet"),  # 40 s
        (179, 0, "bullet"),
        (180, 0, "blitz"),
        (60, 3, "blitz"),  # 180 s
        (479, 0, "blitz"),
        (480, 0, "rapid"),
        (300, 5, "rapid"),  # 500 s
        (1499, 0, "rapid"),
        (1500, 0, "classical"),
        (900, 15, "classical"),  # 1500 s
        (10800, 180, "classical"),  # Lichess's longest clock, 18000 s
        (21599, 0, "classical"),
        (21600, 0, "correspondence"),  # Speed.byTime: 21600 to Int.MaxValue
    ],
)
def test_speed_classes_at_each_boundary(base_s: int, increment_s: int, expected: str) -> None:
    assert speed(base_s * 1000, increment_s * 1000) == expected


def test_speed_without_a_clock() -> None:
    # scalachess Speed.apply(None) = Correspondence (days per move); no limit at all is ours.
    assert speed(0, 0, 3 * DAY_MS) == "correspondence"
    assert speed(0, 0) == "unlimited"
    assert speed(29_999, 0) == "ultrabullet"  # ms, not whole seconds, compare exactly
    assert speed(20_000, 250) == "bullet"  # 30 s
