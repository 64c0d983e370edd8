"""The samplers of hidden information for the search (domain/yavoch/determinize.py, ISMCTS).

Full Yavoch games are played at a table (services.cli.duel.DuelGame: draws answered from the
fair-play seeds, each seat's table folded from the events as `tables.visible` shows them to it),
by random legal actions that end most turns at once so that cards pile up in the hands. At a few
positions, each seat's view is sampled many times: a sample keeps all the seat sees, fills every
hidden face with a valid card, and samples differ where the seat cannot see.

The other rulesets hide nothing in play, so they need no sampler (`visible` returns every event
whole in each, and none deals a CardDealt or shuffles a deck): Cyvasse's setups are hidden only
by the table's commitments (fair-play 3), and play begins once both are revealed (the table's
"setup" phase lasts until every reveal, the ruleset's `to_act` is empty until both setups are
placed, and SetupRevealed is public); Spacewar (SW-7.1) and Spacewar HA (HA-7.1) say so and
draw nothing at random; Yiora and 3-D Chess are games of perfect information.
"""

from collections import Counter
from dataclasses import replace
from functools import cache

import pytest

from domain.core import Rejection
from domain.core import table as tables
from domain.search.help import help_for
from domain.search.levels import level
from domain.search.mcts import SplitMix, search
from domain.yavoch.actions import YAction
from domain.yavoch.cards import Cards, is_impact
from domain.yavoch.determinize import DETERMINIZE
from domain.yavoch.notation import EndTurn
from domain.yavoch.rules import YAVOCH
from domain.yavoch.state import State
from services.cli.duel import DuelGame

SAMPLES = 60
# Turns begun: hands filling, full hands, face-down discards in the pile; "d": then on to the
# next discard down to the hand limit (Y-6.13), the card just drawn in hand.
POSITIONS = ("6", "16", "30", "30d")


@cache
def _played(position: str) -> DuelGame:
    """A Full Yavoch game played to `position` (see POSITIONS; seeded: the same game each time)."""
    turns, discarding = int(position.rstrip("d")), position.endswith("d")
    game = DuelGame(YAVOCH, "full", 3, 2, [level(1), level(1)])
    rng = SplitMix(turns)
    while game.table.game.number < turns or (discarding and game.table.game.phase != "discard"):
        assert tables.outcome(game.table) is None
        if tables.phase(game.table) != "play":
            assert game.step()
            continue
        seat = min(tables.to_act(game.table))
        state = game.views[seat].game
        ends = [a for a in YAVOCH.legal_actions(state, seat) if isinstance(a, EndTurn)]
        if ends and rng.randrange(4):  # most turns end at once: cards pile up in the hands
            action: YAction | None = ends[0]
        else:
            action = YAVOCH.bot_action(state, seat, rng.randrange)
        assert action is not None
        game.act(seat, YAVOCH.format_action(state, action))
    return game


def _faces(cards: Cards) -> list[str]:
    return [*cards.pile, *cards.found, *cards.discard,
            *(h.card for hand in cards.hands for h in hand)]  # fmt: skip


def _samples(view: State, seat: int) -> list[State]:
    rng = SplitMix(seat)
    return [DETERMINIZE.sample(view, seat, rng) for _ in range(SAMPLES)]


def test_a_seat_s_view_has_holes_where_the_rules_hide_cards() -> None:
    # Y-7.2 / Y-7.3: sizes public; the other hand's faces, the pile's order and the other
    # player's face-down discards hidden; the seat's own hand seen
    game = _played("30")
    truth = game.table.game.cards
    for seat in (0, 1):
        view = game.views[seat].game
        cards = view.cards
        assert replace(view, cards=truth) == replace(game.table.game, cards=truth)
        assert cards.hands[seat] == truth.hands[seat]
        assert [h.position for h in cards.hands[seat ^ 1]] == [
            h.position for h in truth.hands[seat ^ 1]
        ]
        assert cards.hands[seat ^ 1]
        assert not any(h.card for h in cards.hands[seat ^ 1])
        assert len(cards.pile) == len(truth.pile)
        assert not any(cards.pile)
        assert len(cards.discard) == len(truth.discard)
        assert "" in cards.discard  # Y-6.13: the other player's discards, face down
        assert all(c in ("", t) for c, t in zip(cards.discard, truth.discard, strict=True))
        assert all(_faces(truth))


@pytest.mark.parametrize("position", POSITIONS)
def test_samples_keep_what_the_seat_sees_and_deal_the_rest_validly(position: str) -> None:
    game = _played(position)
    deck = Counter(game.table.game.cfg.deck)
    for seat in (0, 1):
        view = game.views[seat].game
        cards = view.cards
        for sample in _samples(view, seat):
            got = sample.cards
            # everything but the hidden faces is the view's
            assert replace(sample, cards=cards) == view
            assert got.hands[seat] == cards.hands[seat]
            assert (got.shuffled, got.dealt, got.found) == (cards.shuffled, cards.dealt,
                                                            cards.found)  # fmt: skip
            assert len(got.pile) == len(cards.pile)
            assert [h.position for h in got.hands[seat ^ 1]] == [
                h.position for h in cards.hands[seat ^ 1]
            ]
            assert all(c == s for c, s in zip(cards.discard, got.discard, strict=True) if c)
            # Y-2.7: every card of the deck once, each hidden face a card
            assert Counter(_faces(got)) == deck
            # Y-6.13: hands (hence face-down discards) never hold impact cards
            assert not any(is_impact(h.card) for hand in got.hands for h in hand)
            hidden = [s for c, s in zip(cards.discard, got.discard, strict=True) if not c]
            assert not any(is_impact(c) for c in hidden)
            # Y-6.14 / Y-6.15: while a turn is played, the pile's top card is a component card
            assert view.phase != "play" or not is_impact(got.pile[0])


@pytest.mark.parametrize("position", POSITIONS)
def test_samples_differ_where_the_seat_cannot_see(position: str) -> None:
    game = _played(position)
    truth = game.table.game.cards
    for seat in (0, 1):
        samples = _samples(game.views[seat].game, seat)
        other = {tuple(h.card for h in s.cards.hands[seat ^ 1]) for s in samples}
        piles = {s.cards.pile for s in samples}
        assert len(other) > SAMPLES // 2
        assert len(piles) == SAMPLES
        assert other - {tuple(h.card for h in truth.hands[seat ^ 1])}
        assert truth.pile not in piles


def test_while_the_mover_discards_the_top_card_is_not_fixed() -> None:
    # Y-6.14: after the draw the top card's back is public, but the seat's state does not keep
    # it: samples put an impact card on top as often as the hidden cards allow
    game = _played("30d")
    assert game.table.game.phase == "discard"
    for seat in (0, 1):
        assert any(is_impact(s.cards.pile[0]) for s in _samples(game.views[seat].game, seat))


def test_a_sample_is_a_function_of_the_generator() -> None:
    view = _played("16").views[0].game
    assert DETERMINIZE.sample(view, 0, SplitMix(5)) == DETERMINIZE.sample(view, 0, SplitMix(5))
    assert DETERMINIZE.sample(view, 0, SplitMix(5)) != DETERMINIZE.sample(view, 0, SplitMix(6))


def test_nothing_hidden_comes_back_as_it_is() -> None:
    # Y-6.3 / Y-7.1: Decker's game hides nothing; nor does a whole state, nor one before the
    # first shuffle (Y-3.6)
    decker = DuelGame(YAVOCH, "decker", 1, 0, [level(1), level(1)])
    while decker.plies < 12 and tables.outcome(decker.table) is None:
        assert decker.step()
    assert all(view.game == decker.table.game for view in decker.views)
    for state in (decker.table.game, _played("16").table.game, YAVOCH.start(YAVOCH.create("full"))):
        assert DETERMINIZE.sample(state, 0, SplitMix(1)) is state
    assert help_for(YAVOCH).determinize is DETERMINIZE


@pytest.mark.parametrize("position", POSITIONS)
def test_samples_are_played_by_the_rules_for_both_seats(position: str) -> None:
    """Legal actions, decisions and their events, for either seat (a short search plays them
    out from each of a few samples, its own chance sampled)."""
    game = _played(position)
    mover = min(tables.to_act(game.table))
    for seat in (0, 1):
        for sample in _samples(game.views[seat].game, seat)[:4]:
            choice = search(YAVOCH, sample, mover, iterations=20, seed=seat, playout_limit=60)
            assert choice.text in {YAVOCH.format_action(sample, a)
                                   for a in YAVOCH.legal_actions(sample, mover)}  # fmt: skip


@pytest.mark.parametrize("position", POSITIONS)
def test_a_search_from_the_view_plays_a_legal_action_of_the_true_game(position: str) -> None:
    game = _played(position)
    seat = min(tables.to_act(game.table))
    truth = game.table.game
    legal = {YAVOCH.format_action(truth, a) for a in YAVOCH.legal_actions(truth, seat)}
    for seed in range(3):
        choice = search(YAVOCH, game.views[seat].game, seat, iterations=40, seed=seed,
                        playout_limit=60, determinize=DETERMINIZE)  # fmt: skip
        assert choice.text in legal
        assert not isinstance(tables.decide(game.table, seat, choice.text), Rejection)
