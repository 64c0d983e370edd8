"""Clauses that the other rules tests use without naming: coordinates, supplies, the command
names, the battle table, Decker's open information, gates taking their ships with them, and
the setup's form."""

import random

import msgspec
import pytest

from contracts.events import CardDealt, DeckShuffled
from contracts.yavoch import FleetPlaced
from domain.yavoch.actions import Armed, ChooseLevels, Discard, PlaceFleet, parse
from domain.yavoch.board import Ship, attacker_wins
from domain.yavoch.notation import Kind, parse_position
from domain.yavoch.rules import YAVOCH
from domain.yavoch.variant import Config, parse_variant
from tests.domain.yavoch.helpers import act, game, with_hands


def test_x_is_the_second_digit_and_y_the_third() -> None:
    # Y-1.2 / Y-1.12: `243` is level 2, x = 4, y = 3; a Squam's long step changes both
    p = parse_position("243")
    assert (p.level, p.x, p.y) == (2, 4, 3)
    s, _ = act(game("1C111:1 1A211:1 2C555:1 2T554 / 1"), 0, "A211-241")  # along x
    assert parse_position("241") in s.board.ships


def test_energy_has_no_supply_limit() -> None:
    # Y-2.4: units come from an unlimited supply: with every other ship at capacity, a ship
    # absorbing its own mine still gains one (Y-5.41)
    full = " ".join(f"1S1{x}{y}:5" for x in range(1, 5) for y in range(1, 3))
    s = game(f"1C155:5 {full} 1A133:1 1M134 2C555:5 2T554 / 1")
    s, _ = act(s, 0, "A133-134")
    assert s.board.ships[parse_position("134")].energy == 2
    assert sum(ship.energy for ship in s.board.ships.values()) == 5 + 8 * 5 + 2 + 5


def test_figures_have_no_supply_limit() -> None:
    # Y-2.5 / Y-R32: a clone is made even when every Squam of the fleet is on the field
    squams = " ".join(f"1S1{x}1:1" for x in (2, 3, 4))
    s = with_hands(game(f"1C111:1 {squams} 1S155:3 2C555:1 2T554 / 1", "full"),
                   ["C-AMI-S", "C-MET-S", "C-BET-S"])  # fmt: skip
    s, _ = act(s, 0, "W:CL:S155:144=1")
    squams_now = [sh for sh in s.board.ships.values() if sh.kind is Kind.SQUAM and sh.owner == 1]
    assert len(squams_now) == 5 > Config().fleet.squam


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("levels 12", ChooseLevels),
        ("place C111", PlaceFleet),
        ("S112-134", "Move"),
        ("T232!", "Detonation"),
        ("G125-135", "Move"),
        ("C111*155", "Shot"),
        ("E112>122", "Transfer"),
        ("END", "EndTurn"),
        ("W:HD:S112:345", Armed),
        ("R:DF:S112", Armed),
        ("R:none", "NoResponse"),
        ("discard 7", Discard),
        ("resign", str),
        ("offer-draw", str),
        ("accept-draw", str),
    ],
)
def test_every_command_of_the_engine_has_a_written_form(text: str, kind: object) -> None:
    # Y-4.7: ChooseLevels, PlaceFleet, MoveShip, Detonate, MoveGate, FireHepCat, Transfer,
    # EndTurn, UseWeapon, Respond, Discard, Resign, OfferDraw, AcceptDraw
    action = parse(text)
    if isinstance(kind, str):
        assert type(action).__name__ == kind
    else:
        assert isinstance(action, kind)  # type: ignore[arg-type]


@pytest.mark.parametrize(("energy", "wins"), [(1, range(1, 10)), (2, range(2, 10)),
                                              (3, range(3, 10)), (4, range(4, 10)),
                                              (5, range(5, 10))])  # fmt: skip
def test_the_battle_roll_table(energy: int, wins: range) -> None:
    # Y-6.2 / Y-R5: the attacker wins on a roll of E or more
    cfg, attacker = Config(), Ship(Kind.ARCHID, 1, 1)
    defender = Ship(Kind.SQUAM, 2, energy)
    assert [r for r in range(10) if attacker_wins(cfg, attacker, defender, r)] == list(wins)


def test_the_command_ship_row_of_the_battle_table() -> None:
    # Y-6.2: against a Command ship (value 7) the attacker wins on 7, 8 or 9: P = 0.3
    cfg, attacker = Config(), Ship(Kind.NEORNITH, 1, 1)
    defender = Ship(Kind.COMMAND, 2, 1)
    assert [r for r in range(10) if attacker_wins(cfg, attacker, defender, r)] == [7, 8, 9]


def test_decker_is_played_in_the_open() -> None:
    # Y-7.1: no cards, no commitments; the setup is sequential and public: player two's
    # placement comes after player one's, which is in the log it can read
    state = YAVOCH.start(msgspec.structs.replace(YAVOCH.create("decker"), game_id="open"))
    rng = random.Random(4)
    events = []
    for seat, text in ((0, "levels 45"),):
        state, new = act(state, seat, text)
        events += new
    for seat in (0, 1):
        state, new = act(state, seat, YAVOCH.random_placement(state, seat, rng.randrange))
        events += new
    assert [e.seat for e in events if isinstance(e, FleetPlaced)] == [0, 1]
    assert not [e for e in events if isinstance(e, CardDealt | DeckShuffled)]
    for seat in (0, 1, None):
        assert YAVOCH.visible(events[-1], seat) is events[-1]


def test_a_fleet_is_placed_whole_in_one_action() -> None:
    # Y-R30: one action places every piece; a partial fleet is refused
    state = YAVOCH.start(msgspec.structs.replace(YAVOCH.create("decker"), game_id="form"))
    state, _ = act(state, 0, "levels 12")
    whole = YAVOCH.random_placement(state, 0, random.Random(5).randrange)
    partial = " ".join(whole.split()[:-1])
    rejected = YAVOCH.decide(state, 0, parse(partial))
    assert getattr(rejected, "clause", None) == "Y-3.2"
    state, events = act(state, 0, whole)
    assert len(events) == 1
    assert state.placed == (True, False)


def test_a_blast_takes_the_enemy_command_ship_gates_and_mines_but_no_own_piece() -> None:
    # Y-5.32: every enemy ship (the Command ship too), gate and mine in the zone goes; the
    # detonator's own ships, gates and mines stay; energy tokens stay
    s = game("1C155:2 1T233 1S222:1 1M244 1G232 1G111 2C234:1 2M243 2G223 2G511 "
             "E242:2 2T555 / 1")  # fmt: skip
    s, _ = act(s, 0, "T233!")
    board = s.board
    assert parse_position("234") not in board.ships  # the enemy Command ship
    assert parse_position("223") not in board.gates
    assert parse_position("243") not in board.mines
    assert parse_position("222") in board.ships
    assert parse_position("244") in board.mines
    assert parse_position("232") in board.gates
    assert board.tokens[parse_position("242")] == 2
    assert s.outcome is not None
    assert s.outcome.winners == (0,)


def test_a_ship_goes_with_its_gate_when_an_event_destroys_the_gate() -> None:
    # Y-R14 / Y-5.36 / Y-6.25: an asteroid impact that destroys a gate destroys the ship on it
    s = with_hands(game("1C111:3 1S112:2 1G231 1G555 2C545:1 2T554 2N331:1 2G331 2G512 / 1",
                        "full"), [], pile=["C-AMI-T", "I-UAI", "C-DEC-T"])  # fmt: skip
    s, _ = act(s, 0, "S112-123")
    s, _events = act(s, 0, "END", rolls=[1])  # roll 1: coordinate line 1 of level 3
    assert parse_position("331") not in s.board.ships
    assert parse_position("331") not in s.board.gates


def test_every_parameter_round_trips_through_the_canonical_variant() -> None:
    # Y-0.4: each parameter, set away from its default, survives `variant` -> `parse_variant`
    text = ("full+capacity.trych=2+capacity.ship=6+start_energy=2+command_ship_defence=6"
            "+turn_limit=9+hand_limit=4+deck.copies=2+quadrants=4321"
            "+core_definition=physical_lines+neornith_intermediate_on_field=false"
            "+defence_window_always=false+fleet.trych=8+deck.impacts=EF/CD"
            "+recipe.TB=AMI/DEC/MET")  # fmt: skip
    cfg = parse_variant(text)
    assert parse_variant(cfg.variant) == cfg
    assert sorted(cfg.variant.split("+")[1:]) == sorted(text.split("+")[1:])
    assert cfg != Config(ruleset="full")
