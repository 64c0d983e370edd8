"""The Full Yavoch: deck setup, draws, discards, impact events and hidden information.

Sections 3.6, 6 (Y-6.10 to Y-6.27), 7 (Y-7.2 to Y-7.5) and 8.6 of the Yavoch rulings, with
rulings Y-R36 to Y-R46 and Y-R63; also `YAVOCH.card_at` against the cards actually dealt.
"""

import json
from dataclasses import replace

import pytest

from contracts.events import CardDealt, CardRevealed, DeckShuffled, Event
from contracts.yavoch import CardTaken, Discarded, ImpactResolved, TurnBegan
from domain.yavoch.board import impact_zone
from domain.yavoch.notation import parse_position
from domain.yavoch.rules import YAVOCH
from domain.yavoch.state import State, Turn
from domain.yavoch.variant import Config
from tests.domain.yavoch.helpers import act, game, refused, with_hands

FULL = "full"
BASE = "1C111:3 1S112:2 1T121 2C555:1 2T554"


def ship(state: State, at: str) -> tuple[str, int, int] | None:
    s = state.board.ships.get(parse_position(at))
    return None if s is None else (s.kind.value, s.owner, s.energy)


def moved(state: State) -> State:
    """The mover has made its MOVE: END is next (Y-4.2 step 3)."""
    return replace(state, turn=Turn(moved=True))


def ready(position: str, *hands: list[str], pile=(), discard=(), variant=FULL) -> State:
    s = with_hands(game(position, variant), *hands, pile=pile)
    if discard:
        s = replace(s, cards=replace(s.cards, discard=tuple(discard)))
    return moved(s)


def of(events: tuple[Event, ...], kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


def checked_apply(state: State, events: tuple[Event, ...]) -> State:
    """Apply `events` in the table's order, checking before each new deal that
    `YAVOCH.card_at` names the card the deal shows (the audit's check)."""
    for e in events:
        if isinstance(e, CardDealt):
            assert YAVOCH.card_at(state, e.position) == e.card, e
        state = YAVOCH.evolve(state, e)
    return state


def end(state: State, rolls=(), shuffles=()) -> tuple[State, tuple[Event, ...]]:
    """END for the mover; the events are re-applied with the card_at check."""
    after, events = act(state, state.mover, "END", rolls=rolls, shuffles=shuffles)
    assert checked_apply(state, events) == after
    return after, events


# -- Y-3.6 / Y-R39: the initial shuffle ----------------------------------------------------------


def test_initial_shuffle_repeated_while_an_impact_card_is_on_top():
    # Y-3.6 / Y-R39 / Y-6.10 / Y-6.4 (shuffle_initial): shuffled again until a component tops
    s = game("", FULL)
    s, _ = act(s, 0, "levels 12")
    s, _ = act(s, 0, YAVOCH.random_placement(s, 0, lambda n: 0))
    impact_top = [53, *(i for i in range(56) if i != 53)]  # I-CD on top
    component_top = [7, *(i for i in range(56) if i != 7)]  # C-DEC-N on top
    placement = YAVOCH.random_placement(s, 1, lambda n: 0)
    s, events = act(s, 1, placement, shuffles=[impact_top, component_top])
    shuffled = of(events, DeckShuffled)
    assert [(e.purpose, e.n) for e in shuffled] == [("shuffle_initial", 56)] * 2
    assert s.cards.pile[0] == "C-DEC-N"
    assert len(s.cards.pile) == 56
    assert s.cards.hands == ((), ())
    assert s.cards.discard == ()
    assert not s.cards.found
    assert of(events, CardDealt) == []  # no cards are dealt
    assert of(events, TurnBegan)[-1].seat == 0
    assert YAVOCH.view(s, 0)["top_card"] == "component"


def test_initial_shuffle_once_with_a_component_on_top_and_none_in_decker():
    # Y-3.6 / Y-6.3
    for variant, count in ((FULL, 1), ("decker", 0)):
        s = game("", variant)
        s, _ = act(s, 0, "levels 45")
        s, _ = act(s, 0, YAVOCH.random_placement(s, 0, lambda n: n - 1))
        s, events = act(s, 1, YAVOCH.random_placement(s, 1, lambda n: n - 1))
        assert len(of(events, DeckShuffled)) == count
        assert s.mover == 0
        assert s.phase == "play"


# -- Y-6.10 to Y-6.15: draws, discards, found impact cards, reshuffles ----------------------------


def test_only_the_mover_draws():
    # Y-6.12 / Y-R36 / Y-4.2 step 5
    s = ready(f"{BASE} / 1", ["C-AMI-S"], ["C-DEC-N"], pile=["C-MET-A", "C-FEE-T", "C-GRP-X"])
    s, events = end(s)
    assert [(e.seat, e.position, e.card) for e in of(events, CardDealt)] == [(0, 2, "C-MET-A")]
    assert [h.card for h in s.cards.hand(1)] == ["C-DEC-N"]
    assert isinstance(events[-1], TurnBegan)
    assert events[-1].seat == 1
    s, events = end(moved(s))
    assert [(e.seat, e.card) for e in of(events, CardDealt)] == [(1, "C-FEE-T")]
    assert len(s.cards.hand(0)) == 2
    assert len(s.cards.hand(1)) == 2


def test_draw_at_five_then_discard():
    # Y-6.12 / Y-6.13 / Y-R37 / Y-R38: the sixth card is drawn, then one is discarded face down
    five = ["C-AMI-S", "C-DEC-N", "C-MET-A", "C-FEE-T", "C-GRP-X"]
    s = ready(f"{BASE} / 1", five, ["C-PBI-N"], pile=["C-WHI-A", "C-BET-T"])
    s, events = end(s)
    assert isinstance(events[-1], CardDealt)
    assert events[-1].card == "C-WHI-A"
    assert s.phase == "discard"
    assert YAVOCH.to_act(s) == {0}
    assert len(s.cards.hand(0)) == 6
    assert refused(s, 0, "T121-122").clause == "Y-6.13"
    assert refused(s, 0, "discard 5").clause == "Y-6.13"  # seat 1's card
    assert refused(s, 1, "T554-553").code.name == "NOT_YOUR_TURN"
    s, events = act(s, 0, "discard 6")  # the card just drawn
    assert of(events, Discarded) == [Discarded(seat=0, positions=[6], reason="hand_limit")]
    assert [h.card for h in s.cards.hand(0)] == five
    assert s.cards.discard == ("C-WHI-A",)
    assert isinstance(events[-1], TurnBegan)
    assert s.mover == 1


def test_hand_limit_parameter():
    # Y-0.4 hand_limit / Y-6.13
    four = ["C-AMI-S", "C-DEC-N", "C-MET-A", "C-FEE-T"]
    s = ready(f"{BASE} / 1", four, pile=["C-WHI-A"], variant="full+hand_limit=4")
    s, _ = end(s)
    assert s.phase == "discard"
    assert len(s.cards.hand(0)) == 5
    s = ready(f"{BASE} / 1", four, pile=["C-WHI-A"])
    s, _ = end(s)
    assert s.phase == "play"
    assert s.mover == 1
    assert len(s.cards.hand(0)) == 5


def test_impact_on_top_after_a_draw_is_found_resolved_and_discarded():
    # Y-6.14 / Y-6.15 / Y-R39 / Y-R40: revealed between turns, then the discard pile
    s = ready("1C111:3 1S133:2 1T121 2C555:1 2T554 / 1", [], pile=["C-AMI-T", "I-CA", "C-DEC-S"])
    assert YAVOCH.view(s, 0)["top_card"] == "component"
    s, events = end(s)
    names = [type(e).__name__ for e in events]
    i = names.index("ImpactResolved")
    assert names[i - 2 : i + 2] == ["CardDealt", "CardRevealed", "ImpactResolved", "TurnBegan"]
    assert of(events, CardRevealed)[0].card == "I-CA"
    assert of(events, ImpactResolved) == [ImpactResolved(card="I-CA", position=1, rolls=[])]
    assert ship(s, "133") == ("S", 1, 0)
    assert s.cards.discard == ("I-CA",)
    assert s.cards.pile == ("C-DEC-S",)
    assert [h.card for h in s.cards.hand(0)] == ["C-AMI-T"]  # no hand holds impact cards


def test_impacts_in_a_row_and_a_passed_over_impact():
    # Y-6.12 / Y-6.14 / Y-6.15: an impact above the card drawn is passed over and found; after
    # each event, an impact on top is found too; in the order found
    pile = ["I-CA", "C-AMI-T", "I-EF", "I-MAS", "C-DEC-S"]
    s = ready("1C111:3 1S133:2 1T121 2C555:1 2T554 / 1", [], pile=pile)
    s, events = end(s, rolls=[2, 4])
    assert [e.card for e in of(events, ImpactResolved)] == ["I-CA", "I-EF", "I-MAS"]
    assert next((e.seat, e.card) for e in of(events, CardDealt)) == (0, "C-AMI-T")
    assert s.cards.discard == ("I-CA", "I-EF", "I-MAS")
    assert s.cards.pile == ("C-DEC-S",)


def test_impact_found_after_the_discard_pause():
    # Y-6.13 / Y-6.15: the discard comes first, then the events between turns
    five = ["C-AMI-S", "C-DEC-N", "C-MET-A", "C-FEE-T", "C-GRP-X"]
    s = ready("1C111:3 1S133:2 1T121 2C555:1 2T554 / 1", five, pile=["C-WHI-A", "I-CA"])
    s, events = end(s)
    assert s.phase == "discard"
    assert not of(events, ImpactResolved)
    before = s
    s, events = act(s, 0, "discard 0")
    assert checked_apply(before, events) == s
    assert [e.card for e in of(events, ImpactResolved)] == ["I-CA"]
    assert ship(s, "133") == ("S", 1, 0)
    assert s.mover == 1


def test_reshuffle_when_the_pile_is_empty():
    # Y-6.11 / Y-6.10: the discard pile, sorted canonically, shuffled; DeckShuffled reshuffle
    discard = ["C-MET-S", "C-AMI-T", "C-FEE-X"]  # canonical: AMI-T, MET-S, FEE-X
    s = ready(f"{BASE} / 1", [], discard=discard)
    s, events = end(s, shuffles=[[1, 2, 0]])
    assert [(e.purpose, e.n) for e in of(events, DeckShuffled)] == [("reshuffle", 3)]
    assert of(events, CardDealt)[0].card == "C-MET-S"
    assert s.cards.pile == ("C-FEE-X", "C-AMI-T")
    assert s.cards.discard == ()


def test_reshuffle_finds_an_impact_above_the_card_drawn():
    # Y-6.11 / Y-6.12 / Y-R39 / Y-R40: only right after a reshuffle can an impact lie above
    discard = ["I-CA", "C-MET-S", "C-AMI-T"]  # canonical: AMI-T, MET-S, I-CA
    s = ready("1C111:3 1S133:2 1T121 2C555:1 2T554 / 1", [], discard=discard)
    s, events = end(s, shuffles=[[2, 1, 0]])
    assert of(events, CardDealt)[0].card == "C-MET-S"
    assert [e.card for e in of(events, ImpactResolved)] == ["I-CA"]
    assert s.cards.pile == ("C-AMI-T",)
    assert s.cards.discard == ("I-CA",)


def test_no_draw_when_both_piles_are_empty():
    # Y-6.11
    s = ready(f"{BASE} / 1", ["C-AMI-S"])
    s, events = end(s)
    assert not of(events, CardDealt)
    assert not of(events, DeckShuffled)
    assert s.mover == 1


def test_reshuffle_of_cards_discarded_in_the_same_decision():
    # Y-6.11 / Y-5.73 / Y-5.91: a Deflector's cards reach the discard pile and the attacker's
    # draw reshuffles them at once; the shuffle is recorded where it falls, after the cards it
    # takes, and replaying the events gives the same state
    df = ["C-FEE-S", "C-GRP-S", "C-PBI-X"]
    s = with_hands(game(f"{BASE} 2S134:2 / 1", FULL), [], df)
    s, _ = act(s, 0, "S112x134", rolls=[7])
    before = s
    s, events = act(s, 1, "R:DF:S134", shuffles=[[2, 0, 1]])
    assert checked_apply(before, events) == s
    shuffle = next(i for i, e in enumerate(events) if isinstance(e, DeckShuffled))
    assert events[shuffle].purpose == "reshuffle"
    assert shuffle > max(i for i, e in enumerate(events) if isinstance(e, CardRevealed))
    assert of(events, CardDealt)[0].card == "C-PBI-X"  # sorted: FEE-S GRP-S PBI-X; order 2,0,1
    assert s.cards.pile == ("C-FEE-S", "C-GRP-S")
    assert s.cards.discard == ()


# -- Y-6.21 to Y-6.27: impact events -----------------------------------------------------------


def impact(card: str, position: str = f"{BASE} / 1", hands=([], []), rolls=()):
    s = ready(position, *hands, pile=["C-BET-X", card])
    return end(s, rolls=rolls)


@pytest.mark.parametrize(("rolls", "emptied"), [([3, 4], [0]), ([4, 7], [1]), ([1, 9], [0, 1])])
def test_engineering_failure_odd_roll_discards_the_hand(rolls, emptied):
    # Y-6.21 / Y-R41: the mover rolls first; odd: the whole hand face down on the discard pile
    s, events = impact("I-EF", hands=(["C-AMI-S"], ["C-DEC-N", "C-MET-A"]), rolls=rolls)
    assert of(events, ImpactResolved)[0].rolls == rolls
    gone = of(events, Discarded)
    assert [d.seat for d in gone] == emptied
    assert all(d.reason == "engineering_failure" for d in gone)
    for seat in (0, 1):
        assert (len(s.cards.hand(seat)) == 0) == (seat in emptied)
    assert len(s.cards.discard) == sum(len(d.positions) for d in gone) + 1  # + the EF card


def test_engineering_failure_mover_first_when_player_two_moves():
    # Y-R41: "mover first" is the seat whose turn just ended
    s = ready("1C111:3 1T121 2C555:1 2T554 / 2", ["C-AMI-S"], ["C-DEC-N"], pile=["C-MET-A", "I-EF"])
    s, events = end(s, rolls=[5, 2])
    assert [d.seat for d in of(events, Discarded)] == [1]
    assert len(s.cards.hand(0)) == 1
    assert s.mover == 0


def test_enemy_defector_random_picks_from_the_pre_event_hands():
    # Y-6.22 / Y-R42 / Y-7.4: mover picks first (die(k) into the canonical order), then the
    # other from the mover's original hand
    s = ready(
        f"{BASE} / 1", ["C-MET-S"], ["C-DEC-N", "C-FEE-A", "C-AMI-X"], pile=["C-AMI-T", "I-ED"]
    )
    s, events = end(s, rolls=[2, 1])
    # seat 1 sorted: AMI-X(3) DEC-N(1) FEE-A(2) -> roll 2: FEE-A (position 2)
    # seat 0 (with the card drawn) sorted: AMI-T(4) MET-S(0) -> roll 1: MET-S (position 0)
    assert of(events, CardTaken) == [
        CardTaken(seat=0, from_seat=1, position=2),
        CardTaken(seat=1, from_seat=0, position=0),
    ]
    assert of(events, ImpactResolved)[0].rolls == [2, 1]
    assert sorted(h.card for h in s.cards.hand(0)) == ["C-AMI-T", "C-FEE-A"]
    assert sorted(h.card for h in s.cards.hand(1)) == ["C-AMI-X", "C-DEC-N", "C-MET-S"]
    after = events[[type(e) for e in events].index(ImpactResolved) :]
    redealt = [(e.seat, e.position, e.card) for e in of(after, CardDealt)]
    assert redealt == [(0, 2, "C-FEE-A"), (1, 0, "C-MET-S")]


def test_enemy_defector_one_card_hand_and_empty_hand():
    # Y-6.22: a one-card hand needs no roll; an empty hand gives nothing
    s, events = impact("I-ED", hands=(["C-MET-S"], ["C-DEC-N"]), rolls=[0])
    assert of(events, CardTaken) == [
        CardTaken(seat=0, from_seat=1, position=1),
        CardTaken(seat=1, from_seat=0, position=0),  # seat 0's sorted hand: MET-S(0) BET-X(2)
    ]
    assert [h.card for h in s.cards.hand(1)] == ["C-MET-S"]
    assert sorted(h.card for h in s.cards.hand(0)) == ["C-BET-X", "C-DEC-N"]
    s, events = impact("I-ED", hands=(["C-MET-S"], []), rolls=[1])
    assert of(events, CardTaken) == [CardTaken(seat=1, from_seat=0, position=1)]
    assert [h.card for h in s.cards.hand(0)] == ["C-MET-S"]


def test_core_anomaly_drains_ships_on_core_positions_every_level():
    # Y-6.23 / Y-R43: ships only, every level; mines, gates, tokens unaffected; no game end
    pos = (
        "1C111:3 1S133:2 1A232:3 1T123:1 1N222:2 1S131:2 1G131 1G515 1M113 E143:2 "
        "2C535:1 2N344:2 2S353:2 2T554 / 1"
    )
    s, _events = impact("I-CA", pos)
    for at in ("133", "232", "123", "131", "535", "353"):
        assert ship(s, at)[2] == 0, at
    assert ship(s, "111") == ("C", 1, 3)
    assert ship(s, "222") == ("N", 1, 2)
    assert ship(s, "344") == ("N", 2, 2)
    assert parse_position("131") in s.board.gates
    assert parse_position("113") in s.board.mines
    assert s.board.tokens == {parse_position("143"): 2}
    assert s.outcome is None
    assert s.mover == 1


def test_core_dump_removes_core_ships_and_gates_leaving_tokens():
    # Y-6.24 / Y-R44 / Y-R63: one token per removed piece; Trych do not detonate; mines stay
    pos = (
        "1C111:3 1S133:2 1T123 1S131:2 1G131 1G115 1M113 1T121 2A124:1 E133:1 "
        "2S353:2 2C555:1 2T554 / 1"
    )
    s, _events = impact("I-CD", pos)
    for at in ("133", "123", "131", "353"):
        assert ship(s, at) is None, at
    assert ship(s, "124") == ("A", 2, 1)  # next to the Trych at 123: no detonation
    tokens = {k.level * 100 + k.x * 10 + k.y: v for k, v in s.board.tokens.items()}
    assert tokens == {133: 2, 123: 1, 131: 2, 353: 1}
    assert parse_position("131") not in s.board.gates
    assert parse_position("115") in s.board.gates  # singular now
    assert parse_position("113") in s.board.mines
    assert s.outcome is None


def test_core_dump_destroys_a_command_ship_game_ends():
    # Y-6.24 / Y-6.16 / Y-8.1
    s, events = impact("I-CD", "1C111:3 1T121 2C535:1 2T554 / 1")
    assert s.outcome is not None
    assert s.outcome.winners == (0,)
    assert not of(events, TurnBegan)
    assert s.board.tokens == {parse_position("535"): 1}


def test_lost_fleet_checked_after_events_for_both():
    # Y-8.6 / Y-8.4: after the events, a player with only its Command ship loses
    s, _ = impact("I-CD", "1C111:3 1T121 2C555:1 2T553 / 1")
    assert s.outcome is not None
    assert s.outcome.winners == (0,)
    assert s.outcome.reason == "lost_fleet"
    s, _ = impact("I-CD", "1C111:3 1T131 2C555:1 2T553 / 1")
    assert s.outcome is not None
    assert s.outcome.winners == ()
    assert s.outcome.reason == "both_lost"


def test_massive_asteroid_swarm_level_three_only():
    # Y-6.26 / Y-6.25 / Y-R45 / Y-R47 / Y-R63
    pos = (
        "1C111:3 1T121 1S333:2 1T332 1T322:1 2A334:1 2N313:2 2G313 2G515 1M343 1S222:2 "
        "2C555:1 2T554 / 1"
    )
    s, _events = impact("I-MAS", pos)
    assert ship(s, "333") == ("S", 1, 1)
    assert ship(s, "332") is None  # a Trych at 0 is destroyed
    assert ship(s, "322") == ("T", 1, 0)
    assert ship(s, "334") == ("A", 2, 0)
    assert ship(s, "313") is None  # on a destroyed gate (Y-5.36)
    assert parse_position("313") not in s.board.gates
    assert parse_position("515") in s.board.gates
    assert parse_position("343") not in s.board.mines
    assert ship(s, "222") == ("S", 1, 2)
    assert s.outcome is None


def test_asteroid_events_destroy_command_ships_on_level_three():
    # Y-6.25 / Y-8.1: "regardless of its energy, location or the roll of the dice"
    s, _ = impact("I-MAS", "1C111:3 1T121 2C355:5 2T554 / 1")
    assert s.outcome is not None
    assert s.outcome.winners == (0,)
    s, events = impact("I-UAI", "1C111:3 1T121 2C355:5 2T554 / 1", rolls=[1])
    assert of(events, ImpactResolved)[0].rolls == [1]
    assert s.outcome is not None
    assert s.outcome.winners == (0,)


def test_unexpected_asteroid_impact_line_roll():
    # Y-6.27 / Y-1.11: roll n in 1-5 hits x = n or y = n on level 3
    pos = "1C111:3 1T121 1S322:2 1S333:2 2A324:1 2M352 1T343 1G325 1G515 2C555:1 2T554 / 1"
    s, _ = impact("I-UAI", pos, rolls=[2])
    assert ship(s, "322") is None
    assert ship(s, "324") is None
    assert parse_position("352") not in s.board.mines
    assert parse_position("325") not in s.board.gates
    assert ship(s, "333") == ("S", 1, 2)
    assert ship(s, "343") == ("T", 1, 0)


def test_unexpected_asteroid_impact_quadrant_roll():
    # Y-6.27 / Y-1.10: 6 = Alpha, x <= 3 and y <= 3 on level 3
    pos = "1C111:3 1T121 1S311:1 1S333:2 2A334:1 2S343:1 2C555:1 2T554 / 1"
    s, _ = impact("I-UAI", pos, rolls=[6])
    assert ship(s, "311") is None
    assert ship(s, "333") is None
    assert ship(s, "334") == ("A", 2, 1)
    assert ship(s, "343") == ("S", 2, 1)
    assert len(impact_zone(Config(), 6)) == 9


def test_unexpected_asteroid_impact_roll_zero_is_roll_three():
    # Y-6.27 / Y-R46: both hit x = 3 or y = 3 on level 3
    assert set(impact_zone(Config(), 0)) == set(impact_zone(Config(), 3))
    assert len(impact_zone(Config(), 0)) == 9
    pos = "1C111:3 1T121 1S331:1 1S311:1 2A353:1 2S322:1 2C555:1 2T554 / 1"
    s, _ = impact("I-UAI", pos, rolls=[0])
    assert ship(s, "331") is None
    assert ship(s, "353") is None
    assert ship(s, "311") == ("S", 1, 1)
    assert ship(s, "322") == ("S", 2, 1)


# -- Y-7.2 to Y-7.5, Y-7.7: views --------------------------------------------------------------


def test_views_hide_the_opponents_faces_and_the_pile():
    # Y-7.2 / Y-7.3 / Y-7.5: sizes and the top card's back are public; faces are private
    mine, theirs = ["C-AMI-S", "C-DEC-N"], ["C-MET-A", "C-FEE-T", "C-GRP-X"]
    pile = ["I-CA", "C-WHI-A", "C-BET-T"]
    s = ready(f"{BASE} / 1", mine, theirs, pile=pile, discard=["C-PBI-N"])
    v0 = YAVOCH.view(s, 0)
    assert v0["hands"][0] == [
        {"position": 0, "card": "C-AMI-S"},
        {"position": 1, "card": "C-DEC-N"},
    ]
    assert v0["hands"][1] == [{"position": 2}, {"position": 3}, {"position": 4}]
    assert (v0["draw_pile"], v0["discard_pile"], v0["top_card"]) == (3, 1, "impact")
    text = json.dumps(v0)
    for card in [*theirs, *pile, "C-PBI-N"]:
        assert card not in text, card
    v1 = YAVOCH.view(s, 1)
    assert [h["card"] for h in v1["hands"][1]] == theirs
    assert all("card" not in h for h in v1["hands"][0])
    spectator = json.dumps(YAVOCH.view(s, None))
    for card in [*mine, *theirs, *pile, "C-PBI-N"]:
        assert card not in spectator, card


def test_views_show_every_hand_after_the_end():
    # Y-7.7
    s = ready(f"{BASE} / 1", ["C-AMI-S"], ["C-MET-A"])
    s, _ = act(s, 1, "resign")
    assert s.outcome is not None
    for seat in (0, 1, None):
        hands = YAVOCH.view(s, seat)["hands"]
        assert [h["card"] for h in hands[0]] == ["C-AMI-S"]
        assert [h["card"] for h in hands[1]] == ["C-MET-A"]


def test_card_at_matches_a_plain_draw():
    # card_at names the card a deal must show (the audit's check), before the draw
    s = ready(f"{BASE} / 1", ["C-AMI-S"], pile=["C-WHI-A", "C-BET-T"])
    assert YAVOCH.card_at(s, 1) == "C-WHI-A"
    assert YAVOCH.card_at(s, 0) == "C-AMI-S"  # a card already dealt: its face
    assert YAVOCH.card_at(s, 2) is None  # not the next deal
    _, events = end(s)
    assert of(events, CardDealt)[0].card == "C-WHI-A"


def test_asteroids_destroying_both_command_ships_is_a_draw():
    # Y-6.25 / Y-8.2: both Command ships destroyed at the same moment
    s, events = impact("I-MAS", "1C311:3 1T121 2C355:5 2T554 / 1")
    assert s.outcome is not None
    assert s.outcome.winners == ()
    assert s.outcome.reason == "command_ships_destroyed"
    assert not of(events, TurnBegan)
