"""Results for any number of seats (domain/core/outcome.py): a score per seat, the winners,
teams; two-seat games keep the notation their logs have always had."""

from fractions import Fraction

import msgspec
import pytest

from contracts.events import GameEnded
from domain.core.outcome import Sides, draw, ended, lose, of, scored, win

FOUR_TEAMS = Sides(4, ((0, 2), (1, 3)))


def test_two_seat_results_keep_their_notation() -> None:
    assert ended(win(0, "checkmate")) == GameEnded(result="1-0", reason="checkmate", winners=[0])
    assert ended(win(1, "checkmate")) == GameEnded(result="0-1", reason="checkmate", winners=[1])
    assert ended(draw("stalemate")) == GameEnded(result="1/2-1/2", reason="stalemate")
    assert lose((0,), "timeout") == win(1, "timeout")


def test_a_team_wins_and_loses_together() -> None:
    won = win(2, "finish", FOUR_TEAMS)
    assert (won.result, won.winners) == ("1-0-1-0", (0, 2))
    lost = lose((3,), "timeout", FOUR_TEAMS)
    assert (lost.scores, lost.winners) == (won.scores, won.winners)


def test_seats_out_of_several_lose_and_the_rest_win() -> None:
    three = Sides(3)
    out = lose((0, 2), "timeout", three)
    assert (out.result, out.winners) == ("0-1-0", (1,))
    assert draw("agreement", three).result == "1/2-1/2-1/2"


def test_a_match_scores_its_games_and_the_highest_score_wins() -> None:
    # YI-8.4.3: a win and a draw against a loss and a draw is 3/2 to 1/2
    match = scored((Fraction(3, 2), Fraction(1, 2)), "games")
    assert (match.result, match.winners) == ("3/2-1/2", (0,))
    level = scored((Fraction(1), Fraction(1)), "games")
    assert (level.result, level.winners) == ("1-1", ())
    # Secondary Basic: each seat has its own game's score; both winners win
    four = scored((Fraction(1), Fraction(0), Fraction(1), Fraction(0)), "games")
    assert four.winners == (0, 2)


@pytest.mark.parametrize("result", ["1-0", "0-1", "1/2-1/2", "1-0-1/2-1/2", "3/2-1/2"])
def test_a_recorded_result_reads_back_as_the_outcome_that_wrote_it(result: str) -> None:
    event = GameEnded(result=result, reason="r", winners=[0])
    outcome = of(event)
    assert outcome.result == result
    assert ended(outcome) == event


@pytest.mark.parametrize("result", ["1", "1-0\n", "win-loss", "1.5-0", "1/0-1", "01-0", ""])
def test_the_contract_refuses_a_result_that_is_not_scores(result: str) -> None:
    raw = msgspec.json.encode({"type": "GameEnded", "result": result, "reason": "r"})
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(raw, type=GameEnded)
