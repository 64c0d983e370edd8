"""Resignation and draws by agreement for any number of seats and teams
(domain/core/agreement.py), folded as a ruleset folds them."""

from dataclasses import dataclass, replace

from contracts.errors import ErrorCode
from contracts.events import DrawAccepted, DrawDeclined, DrawOffered, Event, GameEnded, Resigned
from domain.core import Outcome, Rejection, agreement
from domain.core.agreement import Agreement
from domain.core.outcome import Sides


@dataclass(frozen=True)
class Game:
    agreement: Agreement
    outcome: Outcome | None = None


def act(game: Game, seat: int, verb: str, turn: int = 0) -> tuple[Game, tuple[Event, ...]]:
    decision = agreement.decide(verb, seat, game.agreement, "T-1", may_offer=seat == turn)
    assert isinstance(decision, tuple), decision
    for event in decision:
        changed = agreement.changes(game.agreement, event)
        assert changed is not None, event
        game = replace(game, **changed)
    return game, decision


def refused(game: Game, seat: int, verb: str, turn: int = 0) -> Rejection:
    decision = agreement.decide(verb, seat, game.agreement, "T-1", may_offer=seat == turn)
    assert isinstance(decision, Rejection), decision
    assert decision.clause == "T-1"
    return decision


THREE = Game(Agreement(Sides(3)))
TEAMS = Game(Agreement(Sides(4, ((0, 2), (1, 3)))))


def test_a_draw_needs_every_seat_in_the_game() -> None:
    game, _ = act(THREE, 0, "offer-draw")
    game, events = act(game, 1, "accept-draw")
    assert events == (DrawAccepted(seat=1),)  # seat 2 has not agreed yet
    assert refused(game, 1, "accept-draw").code == ErrorCode.ILLEGAL_ACTION  # agreed already
    game, events = act(game, 2, "accept-draw")
    assert events == (DrawAccepted(seat=2), GameEnded(result="1/2-1/2-1/2", reason="agreement"))
    assert game.outcome is not None
    assert game.outcome.winners == ()


def test_one_decline_ends_the_offer() -> None:
    game, _ = act(THREE, 0, "offer-draw")
    game, _ = act(game, 1, "accept-draw")
    game, events = act(game, 2, "decline-draw")
    assert events == (DrawDeclined(seat=2),)
    assert refused(game, 1, "accept-draw").reason == "there is no draw offer for you to answer"


def test_an_offer_is_made_on_ones_turn_once_between_moves_and_not_over_another() -> None:
    assert refused(THREE, 1, "offer-draw").code == ErrorCode.NOT_YOUR_TURN
    game, events = act(THREE, 0, "offer-draw")
    assert events == (DrawOffered(seat=0),)
    assert refused(game, 0, "accept-draw").code == ErrorCode.ILLEGAL_ACTION  # one's own offer
    assert refused(game, 1, "offer-draw", turn=1).reason.startswith("seat 0's draw offer stands")
    game, _ = act(game, 1, "decline-draw")
    assert refused(game, 0, "offer-draw").reason.startswith("you may not offer a draw again")
    moved = replace(game, agreement=agreement.moved(game.agreement, 0))
    act(moved, 0, "offer-draw")


def test_a_move_instead_of_an_answer_declines_but_not_by_a_seat_that_agreed() -> None:
    game, _ = act(THREE, 0, "offer-draw")
    game, _ = act(game, 1, "accept-draw")
    assert agreement.moved(game.agreement, 1).offer == 0  # seat 1 agreed: the offer stands
    assert agreement.moved(game.agreement, 2).offer == -1  # seat 2 had not: declined
    assert agreement.pending(game.agreement, 2)
    assert not agreement.pending(game.agreement, 1)


def test_a_resignation_among_three_leaves_the_game_going_without_the_offer() -> None:
    game, _ = act(THREE, 0, "offer-draw")
    game, events = act(game, 1, "resign")
    assert events == (Resigned(seat=1),)
    assert game.outcome is None
    assert game.agreement.offer == -1  # the seats left agree afresh
    assert refused(game, 1, "offer-draw", turn=1).reason == "you have resigned"
    # a draw now needs seats 0 and 2 only; seat 1, out, scores nothing
    game, _ = act(game, 2, "offer-draw", turn=2)
    game, events = act(game, 0, "accept-draw")
    assert events[-1] == GameEnded(result="1/2-0-1/2", reason="agreement")


def test_the_last_side_left_wins() -> None:
    game, _ = act(THREE, 1, "resign")
    game, events = act(game, 0, "resign")
    assert events == (Resigned(seat=0), GameEnded(result="0-0-1", reason="resignation",
                                                  winners=[2]))  # fmt: skip


def test_a_team_resigns_together_when_the_ruleset_says_so() -> None:
    game, events = act(TEAMS, 2, "resign")
    assert events == (Resigned(seat=2), GameEnded(result="0-1-0-1", reason="resignation",
                                                  winners=[1, 3]))  # fmt: skip
    assert game.outcome is not None
    assert game.outcome.winners == (1, 3)


def test_a_team_plays_on_while_a_member_is_left_when_its_seats_resign_alone() -> None:
    alone = Game(replace(TEAMS.agreement, team_resigns=False))
    game, events = act(alone, 2, "resign")
    assert events == (Resigned(seat=2),)
    game, events = act(game, 0, "resign")
    assert events[-1] == GameEnded(result="0-1-0-1", reason="resignation", winners=[1, 3])


def test_two_seats_as_every_two_player_ruleset_has_them() -> None:
    two = Game(Agreement())
    game, events = act(two, 1, "resign")
    assert events == (Resigned(seat=1), GameEnded(result="1-0", reason="resignation",
                                                  winners=[0]))  # fmt: skip
    game, _ = act(two, 0, "offer-draw")
    assert refused(game, 1, "offer-draw", turn=1).reason.startswith("your opponent's draw offer")
    game, events = act(game, 1, "accept-draw")
    assert events == (DrawAccepted(seat=1), GameEnded(result="1/2-1/2", reason="agreement"))
