"""The `decker` ruleset through YAVOCH.decide/evolve (part 1): setup (Y-0.2, section 3), turn
structure (section 4), moving ships and gates through the rules (Y-5.1 to Y-5.9, Y-R66,
Y-R67, Y-R70), battles (Y-5.20 to Y-5.25, Appendix A6, Y-R15, Y-R16, Y-R64) and Trych
detonation (Y-5.30 to Y-5.36, Y-R9, Y-R13). Part 2 is test_rules_decker_end.py.

Every refused action is checked for the clause it names and for leaving the state unchanged.
"""

import random
import re

import msgspec
import pytest

from contracts.errors import ErrorCode
from contracts.events import Event, GameEnded
from contracts.yavoch import FleetPlaced, LevelsChosen, Played, TurnBegan
from domain.core import NeedDraws, Rejection
from domain.yavoch.board import Ship
from domain.yavoch.notation import Kind, parse_position
from domain.yavoch.record import format_record
from domain.yavoch.rules import YAVOCH
from domain.yavoch.state import State
from tests.domain.yavoch.helpers import act, decide, game, refused


def pos(text: str) -> object:
    return parse_position(text)


def ship(state: State, at: str) -> Ship | None:
    return state.board.ships.get(parse_position(at))


def played(events: tuple[Event, ...]) -> list[str]:
    return [e.action for e in events if isinstance(e, Played)]


def ended(events: tuple[Event, ...]) -> GameEnded | None:
    return next((e for e in events if isinstance(e, GameEnded)), None)


def began(events: tuple[Event, ...]) -> list[int]:
    return [e.seat for e in events if isinstance(e, TurnBegan)]


def rejected(
    state: State, seat: int, text: str, clause: str, code: ErrorCode | None = None
) -> Rejection:
    """`text` is refused citing `clause`, and nothing is applied."""
    before = (format_record(state), state.turn, state.outcome)
    rejection = refused(state, seat, text)
    assert rejection.clause == clause, rejection
    if code is not None:
        assert rejection.code == code, rejection
    assert (format_record(state), state.turn, state.outcome) == before
    return rejection


def fresh() -> State:
    created = YAVOCH.create("decker")
    return YAVOCH.start(msgspec.structs.replace(created, game_id="g"))


def placement(state: State, seat: int, seed: int = 1) -> str:
    return YAVOCH.random_placement(state, seat, random.Random(seed).randrange)


# --- Y-0.2 and section 3: setup ------------------------------------------------------------------


def test_only_two_seats_play() -> None:
    # Y-0.2: P1 is seat 0 and P2 is seat 1; there is no third seat
    state = game("1C111:1 1T112 2C555:1 2T554 / 1")
    r = rejected(state, 2, "T112-113", "Y-0.2")
    assert r.code == ErrorCode.UNKNOWN_SEAT


def test_player_one_chooses_home_levels_first() -> None:
    # Y-3.1 / Y-0.2: only seat 0 (P1) chooses, and only 12 or 45
    state = fresh()
    assert YAVOCH.to_act(state) == frozenset({0})
    rejected(state, 1, "levels 45", "Y-3.1", ErrorCode.NOT_YOUR_TURN)
    rejected(state, 0, "levels 34", "Y-3.1", ErrorCode.MALFORMED_ACTION)
    rejected(state, 0, placement(game("1C111:1 1T112 2C555:1 / 1"), 0), "Y-3.1")
    state, events = act(state, 0, "levels 45")
    assert [e for e in events if isinstance(e, LevelsChosen)] == [
        LevelsChosen(seat=0, levels=[4, 5])
    ]
    assert state.home(0) == (4, 5)
    assert state.home(1) == (1, 2)


def test_each_fleet_goes_on_its_home_levels_and_level_three_stays_empty() -> None:
    # Y-3.1 / Y-3.2 / Y-3.3: P1 places on its levels, then P2 on the other pair
    state, _ = act(fresh(), 0, "levels 45")
    text = placement(state, 0)
    # P2 cannot place before P1 (Y-3.3)
    rejected(state, 1, placement(state, 1), "Y-3.3", ErrorCode.NOT_YOUR_TURN)
    # a piece on level 3 is off the home levels (Y-3.1)
    words = text.split()
    rejected(state, 0, " ".join([words[0], words[1][0] + "3" + words[1][2:], *words[2:]]), "Y-3.1")
    p1_levels_text = placement(state, 0, seed=3)
    state, events = act(state, 0, text)
    # P2 may not place on P1's levels (Y-3.1)
    rejected(state, 1, p1_levels_text, "Y-3.1")
    placed = [e for e in events if isinstance(e, FleetPlaced)]
    assert [p.seat for p in placed] == [0]
    assert {p.level for p in state.board.ships} <= {4, 5}
    # Y-3.3: P1's whole arrangement is on the board before P2 places; P2 is to act
    assert len(state.board.ships) == 20
    assert len(state.board.gates) == 2
    assert YAVOCH.to_act(state) == frozenset({1})
    state, events = act(state, 1, placement(state, 1, seed=2))
    assert {p.level for p, s in state.board.ships.items() if s.owner == 2} <= {1, 2}
    assert all(p.level != 3 for p in (*state.board.ships, *state.board.gates))
    # Y-3.7: P1 takes the first turn
    assert began(events) == [0]
    assert state.mover == 0


def test_setup_starts_with_no_mines_or_tokens_and_one_unit_per_non_trych_ship() -> None:
    # Y-3.4 / Y-3.5: no mines, no tokens; C, N, S, A carry 1 unit, Trych and gates none
    state, _ = act(fresh(), 0, "levels 12")
    state, _ = act(state, 0, placement(state, 0))
    state, _ = act(state, 1, placement(state, 1))
    board = state.board
    assert board.mines == {}
    assert board.tokens == {}
    counts: dict[Kind, int] = {}
    for s in board.ships.values():
        counts[s.kind] = counts.get(s.kind, 0) + 1
        assert s.energy == (0 if s.kind is Kind.TRYCH else 1), s
    assert counts == {
        Kind.COMMAND: 2,
        Kind.NEORNITH: 6,
        Kind.SQUAM: 8,
        Kind.ARCHID: 4,
        Kind.TRYCH: 20,
    }


def test_placement_must_be_whole_and_one_piece_per_position() -> None:
    # Y-3.2: every piece placed, no two on one position
    state, _ = act(fresh(), 0, "levels 12")
    words = placement(state, 0).split()
    missing = " ".join(words[:-1])
    rejected(state, 0, missing, "Y-3.2")
    doubled = " ".join([*words[:-1], words[-1][0] + words[-2][1:]])
    rejected(state, 0, doubled, "Y-3.2")


def test_play_waits_for_the_setup() -> None:
    # Y-3.2 / Y-3.7: no ship moves during setup; the turn's MOVE comes after both placements
    state, _ = act(fresh(), 0, "levels 12")
    rejected(state, 0, "T111-112", "Y-3.2")


# --- section 4: turn structure -------------------------------------------------------------------


def test_turns_alternate_and_belong_to_the_mover() -> None:
    # Y-4.1: the mover acts alone; after END the other player moves
    state = game("1C111:1 1T112 2C555:1 2T554 / 1")
    rejected(state, 1, "T554-553", "Y-4.1", ErrorCode.NOT_YOUR_TURN)
    state, _ = act(state, 0, "T112-113")
    rejected(state, 1, "T554-553", "Y-4.1", ErrorCode.NOT_YOUR_TURN)
    state, events = act(state, 0, "END")
    assert began(events) == [1]
    assert state.mover == 1
    rejected(state, 0, "T113-114", "Y-4.1", ErrorCode.NOT_YOUR_TURN)
    state, events = act(state, 1, "T554-553")
    state, events = act(state, 1, "END")
    assert began(events) == [0]


def test_exactly_one_move_per_turn_and_no_pass() -> None:
    # Y-4.2 / Y-4.3 / Y-R27: END needs the MOVE; a second MOVE is refused
    state = game("1C111:1 1T112 1S133:1 1G125 1G135 2C555:1 2T554 / 1")
    rejected(state, 0, "END", "Y-4.3")
    state, _ = act(state, 0, "T112-113")
    rejected(state, 0, "S133-144", "Y-4.3")
    rejected(state, 0, "T113!", "Y-4.3")
    rejected(state, 0, "G125-124", "Y-4.3")
    assert state.turn.moved
    assert not state.turn.over


def test_grammar_fire_move_transfer_fire_end() -> None:
    # Y-4.2 step 2 and 3 / Y-R18: shot before the MOVE, transfers only after it
    state = game("1C111:3 1S123:1 1S112:1 1T155 2C555:1 2S515:1 / 1")
    rejected(state, 0, "E111>112", "Y-5.54")
    state, events = act(state, 0, "C111*155")  # own Trych, to clear a space (Y-R22)
    assert played(events) == ["C111*155"]
    assert state.turn.fired
    assert not state.turn.moved
    state, _ = act(state, 0, "S123-134")
    state, _ = act(state, 0, "E111>112")
    assert ship(state, "112") == Ship(Kind.SQUAM, 1, 2)
    rejected(state, 0, "C111*133", "Y-5.60")
    state, events = act(state, 0, "END")
    assert began(events) == [1]


def test_shot_may_follow_the_transfers() -> None:
    # Y-4.2 step 3 / Y-R18: after the MOVE, transfers and the one shot in any order
    state = game("1C111:1 1S112:3 1T122 2C555:1 2S511:1 / 1")
    state, _ = act(state, 0, "T122-123")
    state, _ = act(state, 0, "E112>111")
    assert ship(state, "111") == Ship(Kind.COMMAND, 1, 2)
    state, events = act(state, 0, "C111*511")  # along SU: 211 311 411 511
    assert played(events) == ["C111*511"]
    assert ship(state, "511") is None
    assert ship(state, "111") == Ship(Kind.COMMAND, 1, 1)


def test_lost_battle_ends_the_turn_at_once() -> None:
    # Y-4.4 (a) / Y-R19: no shot, no transfer after a lost attack; the opponent moves
    state = game("1C111:2 1A311:1 1S321:2 2S315:3 2C555:1 / 1")
    after, events = act(state, 0, "A311x315", rolls=[2])
    assert played(events) == ["A311x315{d=2,L}"]
    assert began(events) == [1]
    assert after.mover == 1
    rejected(after, 0, "E321>311", "Y-4.1", ErrorCode.NOT_YOUR_TURN)
    rejected(after, 0, "C111*211", "Y-4.1", ErrorCode.NOT_YOUR_TURN)


def test_nothing_happens_after_the_game_ends() -> None:
    # Y-4.5: once a result is reached no action is accepted
    state = game("1C111:1 1A151:1 2C155:1 2S554:1 / 1")
    state, events = act(state, 0, "A151x155", rolls=[7])
    end = ended(events)
    assert end is not None
    assert end.result == "1-0"
    assert played(events) == ["A151x155{d=7,W}"]
    assert began(events) == []
    for seat, text in ((0, "END"), (1, "S554-543"), (0, "offer-draw")):
        r = rejected(state, seat, text, "Y-4.5")
        assert r.code == ErrorCode.GAME_ENDED


# --- Y-5.1 to Y-5.9: moving ships through the rules ----------------------------------------------


def test_moving_needs_a_unit_and_spends_none() -> None:
    # Y-5.1 / Y-5.51: a 0-unit Squam cannot move; moving costs nothing; a Trych needs none
    state = game("1C111:1 1S133 1A315:3 1T155 2C555:1 / 1")
    rejected(state, 0, "S133-144", "Y-5.51")
    after, _ = act(state, 0, "A315-311")
    assert ship(after, "311") == Ship(Kind.ARCHID, 1, 3)
    after, _ = act(state, 0, "T155-144")
    assert ship(after, "144") == Ship(Kind.TRYCH, 1, 0)


def test_sliding_is_blocked_by_ships_gates_and_mines() -> None:
    # Y-5.2: every position strictly between must be unoccupied
    state = game("1C555:1 1S111:1 1A131:1 1A315:1 2T122 2G134 2G554 2M325 2C511:1 / 1")
    rejected(state, 0, "S111-133", "Y-5.2")  # enemy Trych at 122
    rejected(state, 0, "A131-135", "Y-5.2")  # enemy gate at 134
    rejected(state, 0, "A315-335", "Y-5.2")  # enemy mine at 325
    _after, events = act(state, 0, "S111x122")  # the first occupant itself may be taken
    assert played(events) == ["S111x122{auto,W}"]


def test_destination_table_illegal_landings() -> None:
    # Y-5.3: Trych never on a ship (Y-5.10); no attack on the own Command ship (Y-R15);
    # Command ship never on an enemy mine (Y-R25); a move the shape forbids (Y-5.11)
    state = game("1C222:1 1T223 1S233:1 1A211:1 2M221 2S224:1 2C555:1 / 1")
    rejected(state, 0, "T223-224", "Y-5.10")
    rejected(state, 0, "T223-222", "Y-5.10")
    rejected(state, 0, "A211-222", "Y-5.12")  # not a short vector
    rejected(state, 0, "S233x222", "Y-R15")
    rejected(state, 0, "C222-221", "Y-R25")
    rejected(state, 0, "S233-243", "Y-5.11")
    rejected(state, 0, "S233-233", "Y-5.11")  # Y-5.3: different from the origin


def test_resting_ship_picks_up_tokens() -> None:
    # Y-5.4 / Y-5.53: a ship coming to rest on tokens takes them up to capacity
    state = game("1C111:1 1S112:4 2C555:1 E134:2 / 1")
    after, _ = act(state, 0, "S112-134")
    assert ship(after, "134") == Ship(Kind.SQUAM, 1, 5)
    assert after.board.tokens == {}


def test_teleport_through_own_gate() -> None:
    # Y-5.5 / Y-R69: a ship landing on its own empty gate exits at once at the partner
    state = game("1C111:1 1S112:2 1G134 1G455 2C555:1 / 1")
    after, events = act(state, 0, "S112-134")
    assert played(events) == ["S112-134>455"]
    assert ship(after, "455") == Ship(Kind.SQUAM, 1, 2)
    assert ship(after, "134") is None
    assert set(after.board.gates) == {pos("134"), pos("455")}
    # naming the wrong exit is refused
    rejected(state, 0, "S112-134>111", "Y-5.5")
    # with /M the mine is the last suffix (Y-R69)
    after, events = act(state, 0, "S112-134/M")
    assert played(events) == ["S112-134>455/M"]
    assert pos("112") in after.board.mines


def test_teleport_blocked_when_partner_is_occupied_or_gate_singular() -> None:
    # Y-5.5: partner occupied -> the ship stays on the gate; Y-5.36 / Y-R61 singular: no exit
    state = game("1C111:1 1S112:1 1T455 1G134 1G455 2C555:1 / 1")
    after, events = act(state, 0, "S112-134")
    assert played(events) == ["S112-134"]
    assert ship(after, "134") == Ship(Kind.SQUAM, 1, 1)
    state = game("1C111:1 1S112:1 1G134 2C555:1 / 1")
    after, events = act(state, 0, "S112-134")
    assert played(events) == ["S112-134"]
    assert ship(after, "134") is not None


def test_command_ship_on_own_gate_does_not_teleport() -> None:
    # Y-5.5 / Y-5.7 / Y-R11: the Command ship never teleports
    state = game("1C111:1 1G112 1G455 2C555:1 / 1")
    after, events = act(state, 0, "C111-112")
    assert played(events) == ["C111-112"]
    assert ship(after, "112") == Ship(Kind.COMMAND, 1, 1)


def test_enemy_gate_destroys_the_lander() -> None:
    # Y-5.6 / Y-R10: an empty enemy gate destroys a Squam or a Trych; the gate stays
    state = game("1C111:1 1S112:3 1T124 2G134 2G455 2C555:1 / 1")
    after, events = act(state, 0, "S112-134")
    assert played(events) == ["S112-134"]
    assert ship(after, "134") is None
    assert ship(after, "112") is None
    assert after.board.gates[pos("134")].owner == 2
    after, _ = act(state, 0, "T124-134")
    assert ship(after, "134") is None
    assert ship(after, "124") is None


def test_singular_enemy_gate_still_destroys() -> None:
    # Y-5.6 / Y-R61: a gate whose partner is gone still destroys enemy landers
    state = game("1C111:1 1A131:1 2G135 2C555:1 / 1")
    after, _ = act(state, 0, "A131-135")
    assert ship(after, "135") is None
    assert pos("135") in after.board.gates


def test_command_ship_on_enemy_gate() -> None:
    # Y-5.7 / Y-R11: nothing happens to a Command ship on an empty enemy gate; on an occupied
    # one it beats the ship there without a roll and gains nothing (Y-5.52)
    state = game("1C144:2 2G145 2G455 2S155:3 2G155 2G551 2C555:1 / 1")
    after, events = act(state, 0, "C144-145")
    assert played(events) == ["C144-145"]
    assert ship(after, "145") == Ship(Kind.COMMAND, 1, 2)
    after, events = act(state, 0, "C144x155")  # no roll given: none is drawn
    assert played(events) == ["C144x155{auto,W}"]
    assert ship(after, "155") == Ship(Kind.COMMAND, 1, 2)
    assert after.board.gates[pos("155")].owner == 2


def test_occupied_enemy_gate_destroys_both_without_a_roll() -> None:
    # Y-5.8 / Y-R66: no battle, both ships destroyed, gate stays, written as a move;
    # the turn goes on (Y-4.4 does not apply)
    state = game("1C111:1 1S133:2 1S121:1 2S155:3 2G155 2G551 2C535:1 / 1")
    after, events = act(state, 0, "S133-155")
    assert played(events) == ["S133-155"]
    assert ship(after, "155") is None
    assert ship(after, "133") is None
    assert after.board.gates[pos("155")].owner == 2
    assert not after.turn.over
    assert after.mover == 0
    after, _ = act(after, 0, "E121>111")
    assert ship(after, "111") == Ship(Kind.COMMAND, 1, 2)


def test_occupied_enemy_gate_with_command_ship_wins_on_roll() -> None:
    # Y-5.8 / Y-R12 / Y-R66: against the enemy Command ship the die is rolled (7 wins);
    # written as a battle; the Command ship dies and the game ends (Y-8.1)
    state = game("1C111:1 1S133:2 1S121:1 2C155:1 2G155 2G551 2S535:1 / 1")
    after, events = act(state, 0, "S133x155", rolls=[7])
    assert played(events) == ["S133x155{d=7,W}"]
    assert ship(after, "155") is None
    assert ship(after, "133") is None
    end = ended(events)
    assert end is not None
    assert end.result == "1-0"
    assert end.winners == [0]


def test_occupied_enemy_gate_with_command_ship_loses_on_roll() -> None:
    # Y-5.8 / Y-R12: roll 6 < 7: the lander dies, the Command ship stays; not a lost battle,
    # so the mover may still transfer (Y-4.4 does not apply)
    state = game("1C111:1 1S133:2 1S121:1 2C155:1 2G155 2G551 2S535:1 / 1")
    after, events = act(state, 0, "S133x155", rolls=[6])
    assert played(events) == ["S133x155{d=6,L}"]
    assert ended(events) is None
    assert ship(after, "133") is None
    assert ship(after, "155") == Ship(Kind.COMMAND, 2, 1)
    assert not after.turn.over
    assert after.mover == 0
    after, _ = act(after, 0, "E121>111")
    assert ship(after, "111") == Ship(Kind.COMMAND, 1, 2)


def test_leaving_a_gate_is_a_normal_move() -> None:
    # Y-5.9: the ship steps off; nothing teleports; the gate stays
    state = game("1C111:1 1S455:2 1G134 1G455 2C555:1 / 1")
    after, events = act(state, 0, "S455-444")
    assert played(events) == ["S455-444"]
    assert ship(after, "444") == Ship(Kind.SQUAM, 1, 2)
    assert ship(after, "134") is None
    assert {pos("134"), pos("455")} == set(after.board.gates)


def test_no_move_from_own_gate_onto_its_partner() -> None:
    # Y-R67: from an own gate onto its partner would teleport straight back
    state = game("1C111:1 1S122:1 1G122 1G144 2C555:1 / 1")
    rejected(state, 0, "S122-144", "Y-R67")
    assert not any(
        getattr(a, "destination", None) == pos("144") for a in YAVOCH.legal_actions(state, 0)
    )


@pytest.mark.parametrize("mover", ["1T254", "1A254:2"])
def test_plain_move_onto_the_partner_still_refused_for_trych_and_archid(mover: str) -> None:
    # Y-R67 / Y-R70: a ship other than the Command ship making a plain move (no battle) onto
    # the partner of the own gate it stands on would teleport straight back: refused
    state = game(f"1C111:1 {mover} 1G254 1G255 2C535:1 / 1")
    letter = mover[1]
    rejected(state, 0, f"{letter}254-255", "Y-R67")
    assert not any(
        getattr(a, "destination", None) == pos("255") for a in YAVOCH.legal_actions(state, 0)
    )


def test_command_ship_may_move_onto_the_partner_gate() -> None:
    # Y-R70 / Y-5.7: a Command ship never teleports, so the move changes something: it ends
    # on the partner gate and stays there; both gates stay where they are
    state = game("1C254:2 1G254 1G255 2C535:1 / 1")
    after, events = act(state, 0, "C254-255")
    assert played(events) == ["C254-255"]
    assert ship(after, "255") == Ship(Kind.COMMAND, 1, 2)
    assert ship(after, "254") is None
    assert set(after.board.gates) == {pos("254"), pos("255")}
    assert not after.turn.over
    assert after.mover == 0


def test_attack_on_enemy_ship_on_the_partner_gate() -> None:
    # Y-R70 / Y-5.20 / Y-5.22: a battle onto the partner gate is legal; won (roll 2 >= 2), the
    # Archid takes the gate and does not teleport back (Y-R17, Y-5.5), and the defender's
    # energy on a gate is lost, nothing captured (Y-5.24, Y-5.52)
    state = game("1C111:1 1A254:1 1T121 1G254 1G255 2S255:2 2C535:1 / 1")
    after, events = act(state, 0, "A254x255", rolls=[2])
    assert played(events) == ["A254x255{d=2,W}"]
    assert ship(after, "255") == Ship(Kind.ARCHID, 1, 1)
    assert ship(after, "254") is None
    assert set(after.board.gates) == {pos("254"), pos("255")}
    assert not after.turn.over
    # Y-5.25 / Y-4.4: lost (roll 1 < 2), the Archid is removed and the turn ends
    after, events = act(state, 0, "A254x255", rolls=[1])
    assert played(events) == ["A254x255{d=1,L}"]
    assert ship(after, "254") is None
    assert ship(after, "255") == Ship(Kind.SQUAM, 2, 2)
    assert began(events) == [1]


def test_command_ship_attack_on_the_partner_gate() -> None:
    # Y-R70 / Y-5.22 case 2: the Command ship beats the ship on its partner gate without a
    # roll, gains nothing there (Y-R17) and stays on the gate
    state = game("1C254:2 1G254 1G255 2S255:3 2C535:1 / 1")
    after, events = act(state, 0, "C254x255")
    assert played(events) == ["C254x255{auto,W}"]
    assert ship(after, "255") == Ship(Kind.COMMAND, 1, 2)
    assert ship(after, "254") is None


def test_attack_on_enemy_command_ship_on_the_partner_gate() -> None:
    # Y-R70: on the enemy Command ship too; Y-5.22: a roll of 7 (command_ship_defence) wins,
    # the enemy Command ship is destroyed and the game ends (Y-8.1); no teleport (Y-R17)
    state = game("1C111:1 1A254:1 1T121 1G254 1G255 2C255:1 2S535:1 / 1")
    after, events = act(state, 0, "A254x255", rolls=[7])
    assert played(events) == ["A254x255{d=7,W}"]
    assert ship(after, "255") == Ship(Kind.ARCHID, 1, 1)
    assert ship(after, "254") is None
    end = ended(events)
    assert end is not None
    assert end.result == "1-0"
    assert end.winners == [0]
    # roll 6 < 7: the attacker is removed, the enemy Command ship stays
    after, events = act(state, 0, "A254x255", rolls=[6])
    assert played(events) == ["A254x255{d=6,L}"]
    assert ended(events) is None
    assert ship(after, "255") == Ship(Kind.COMMAND, 2, 1)
    # Y-R70 / Y-5.22 case 2: the own Command ship wins it without a roll
    state = game("1C254:1 1G254 1G255 2C255:1 2S535:1 / 1")
    after, events = act(state, 0, "C254x255")
    assert played(events) == ["C254x255{auto,W}"]
    assert ship(after, "255") == Ship(Kind.COMMAND, 1, 1)
    assert ended(events) is not None


def test_attack_on_own_command_ship_on_the_partner_is_refused_by_y_r15() -> None:
    # Y-R70 keeps only the attacks section 5 allows: never onto the own Command ship (Y-R15)
    state = game("1C144:1 1S122:1 1G122 1G144 2C555:1 / 1")
    rejected(state, 0, "S122x144", "Y-R15")


ON_THE_PARTNER = [
    # (position, moves from the gate at 254 onto its partner at 255 that are legal)
    ("1C111:1 1A254:1 1G254 1G255 2C535:1", set()),  # Y-R67 / Y-R70: plain move
    ("1C111:1 1T254 1G254 1G255 2C535:1", set()),  # Y-R67 / Y-R70: plain move
    ("1C111:1 1T254 1G254 1G255 2S255:1 2C535:1", set()),  # Y-5.10: a Trych never attacks
    ("1C254:1 1G254 1G255 2C535:1", {"C254-255"}),  # Y-R70 / Y-5.7
    ("1C111:1 1A254:1 1G254 1G255 2S255:2 2C535:1", {"A254x255"}),  # Y-R70 / Y-R17
    ("1C111:1 1A254:1 1G254 1G255 1S255:2 2C535:1", {"A254x255"}),  # Y-R70 / Y-5.3 own ship
    ("1C111:1 1A254:1 1G254 1G255 2C255:1 2S535:1", {"A254x255"}),  # Y-R70: enemy CS
    ("1C254:1 1G254 1G255 2S255:2 2C535:1", {"C254x255"}),  # Y-R70 / Y-5.22 case 2
    ("1C254:1 1G254 1G255 2C255:1 2S535:1", {"C254x255"}),  # Y-R70: enemy CS
]


@pytest.mark.parametrize(("position", "expected"), ON_THE_PARTNER)
def test_legal_moves_onto_the_partner_agree_with_decide(position: str, expected: set[str]) -> None:
    # Y-R67 / Y-R70 / Y-4.3: the legal list from the gate onto its partner is exactly the
    # expected actions, and decide accepts exactly those (in any writing) and nothing else
    state = game(f"{position} / 1")
    listed = {
        YAVOCH.format_action(state, a)
        for a in YAVOCH.legal_actions(state, 0)
        if getattr(a, "origin", None) == pos("254")
        and getattr(a, "destination", None) == pos("255")
    }
    assert listed == expected
    letter = state.board.ships[pos("254")].kind.value
    accepted = set()
    for text in (f"{letter}254-255", f"{letter}254x255", f"{letter}254-255/M"):
        action = YAVOCH.parse_action(state, 0, text)
        if isinstance(action, Rejection):
            continue
        decision = YAVOCH.decide(state, 0, action)
        if isinstance(decision, NeedDraws):  # a battle: accepted, the die still to come
            accepted.add(text.replace("-", "x"))
        elif not isinstance(decision, Rejection):
            (action_text,) = played(decision)
            accepted.add(re.sub(r"\{[^}]*\}", "", action_text))
    assert accepted == expected


# --- Y-5.20 to Y-5.25: battles -------------------------------------------------------------------

A6 = "1C111:1 1A311:1 1S321:2 2S315:3 2C555:1 / 1"


def test_a6_attacker_wins_on_roll_equal_to_energy() -> None:
    # A6 / Y-5.22 / Y-R5 / Y-5.24: roll 3 against 3 units wins; the Archid takes the position
    # and 1 unit; the other 2 are discarded
    state, events = act(game(A6), 0, "A311x315", rolls=[3])
    assert played(events) == ["A311x315{d=3,W}"]
    assert ship(state, "315") == Ship(Kind.ARCHID, 1, 2)
    assert ship(state, "311") is None
    assert sum(s.energy for s in state.board.ships.values()) == 1 + 2 + 2 + 1
    assert not state.turn.over
    assert state.mover == 0


def test_a6_attacker_loses_on_roll_below_energy() -> None:
    # A6 / Y-5.25 / Y-4.4 / Y-R19: roll 2 loses: the Archid is removed, the Squam keeps 3,
    # the turn is over and no transfer is allowed
    state, events = act(game(A6), 0, "A311x315", rolls=[2])
    assert played(events) == ["A311x315{d=2,L}"]
    assert ship(state, "311") is None
    assert ship(state, "315") == Ship(Kind.SQUAM, 2, 3)
    assert began(events) == [1]
    rejected(state, 0, "E321>311", "Y-4.1", ErrorCode.NOT_YOUR_TURN)


def test_attack_announced_by_the_move_itself() -> None:
    # Y-5.21 / Y-1.14: written with `-` or `x`, it is the same battle, recorded with `x`
    _state, events = act(game(A6), 0, "A311-315", rolls=[5])
    assert played(events) == ["A311x315{d=5,W}"]
    rejected(game(A6), 0, "A311x315{d=9,W}", "Y-1.14", ErrorCode.MALFORMED_ACTION)


def test_capture_is_capped_by_capacity() -> None:
    # Y-5.24 / Y-5.50: the gain is discarded when the attacker is full; own energy irrelevant
    state = game("1C111:1 1A311:5 2S315:1 2C555:1 / 1")
    after, events = act(state, 0, "A311x315", rolls=[1])
    assert played(events) == ["A311x315{d=1,W}"]
    assert ship(after, "315") == Ship(Kind.ARCHID, 1, 5)


def test_attacker_energy_never_matters() -> None:
    # Y-5.22 case 3: a 1-unit attacker against 5 units needs a 5, like any other
    state = game("1C111:1 1A311:1 2S315:5 2C555:1 / 1")
    lost, _ = act(state, 0, "A311x315", rolls=[4])
    won, _ = act(state, 0, "A311x315", rolls=[5])
    assert ship(lost, "315") == Ship(Kind.SQUAM, 2, 5)
    assert ship(won, "315") == Ship(Kind.ARCHID, 1, 2)


def test_no_roll_against_a_trych() -> None:
    # Y-5.22 case 1 / Y-5.23 / Y-R16: a Trych always loses, even with a unit; no die;
    # the Trych's unit is captured (Y-5.24)
    state = game("1C111:1 1A311:1 2T315:1 2C555:1 / 1")
    after, events = act(state, 0, "A311x315")
    assert played(events) == ["A311x315{auto,W}"]
    assert ship(after, "315") == Ship(Kind.ARCHID, 1, 2)


def test_no_roll_when_the_command_ship_attacks() -> None:
    # Y-5.22 case 2 / Y-5.23 / Y-R16: the Command ship always wins, capturing 1 unit
    state = game("1C111:2 2S122:5 2C555:1 / 1")
    after, events = act(state, 0, "C111x122")
    assert played(events) == ["C111x122{auto,W}"]
    assert ship(after, "122") == Ship(Kind.COMMAND, 1, 3)


def test_no_roll_against_a_zero_energy_defender() -> None:
    # Y-5.22 case 3 with E = 0 / Y-5.23 / Y-5.51: no roll, attacker wins, nothing to capture
    state = game("1C111:1 1A311:1 2S315 2C555:1 / 1")
    after, events = act(state, 0, "A311x315")
    assert played(events) == ["A311x315{auto,W}"]
    assert ship(after, "315") == Ship(Kind.ARCHID, 1, 1)


def test_no_roll_against_own_ships_when_certain() -> None:
    # Y-5.23 / Y-R16 / Y-R64: own Trych, own 0-unit ship, or attacked by the own Command
    # ship: no die, for own ships too
    state = game("1C111:2 1S122:3 1A311:1 1T315:1 1N321 2C555:1 / 1")
    after, events = act(state, 0, "A311x315")
    assert played(events) == ["A311x315{auto,W}"]
    assert ship(after, "315") == Ship(Kind.ARCHID, 1, 2)
    after, events = act(state, 0, "A311x321")
    assert played(events) == ["A311x321{auto,W}"]
    assert ship(after, "321") == Ship(Kind.ARCHID, 1, 1)
    after, events = act(state, 0, "C111x122")
    assert played(events) == ["C111x122{auto,W}"]
    assert ship(after, "122") == Ship(Kind.COMMAND, 1, 3)


def test_self_attack_rolls_like_an_enemy_battle() -> None:
    # Y-5.20 / Y-R64: an uncertain self-attack rolls; win captures 1 unit, loss ends the turn
    state = game("1C111:1 1A311:1 1S315:2 1T155 2C555:1 2T554 / 1")
    won, events = act(state, 0, "A311x315", rolls=[2])
    assert played(events) == ["A311x315{d=2,W}"]
    assert ship(won, "315") == Ship(Kind.ARCHID, 1, 2)
    lost, events = act(state, 0, "A311x315", rolls=[1])
    assert played(events) == ["A311x315{d=1,L}"]
    assert ship(lost, "315") == Ship(Kind.SQUAM, 1, 2)
    assert ship(lost, "311") is None
    assert began(events) == [1]


def test_no_attack_on_own_command_ship() -> None:
    # Y-R15 / Y-5.3: own Command ship is never a destination
    state = game("1C315:1 1A311:1 1N214:1 2C555:1 / 1")
    rejected(state, 0, "A311x315", "Y-R15")
    assert all(
        getattr(a, "destination", None) != pos("315") for a in YAVOCH.legal_actions(state, 0)
    )


def test_command_ship_defends_as_seven() -> None:
    # Y-5.22 case 3: the enemy Command ship counts as 7, whatever its energy (even 0, Y-5.51)
    state = game("1C111:1 1A151:1 1T115 2C155 2S554:1 / 1")
    lost, events = act(state, 0, "A151x155", rolls=[6])
    assert played(events) == ["A151x155{d=6,L}"]
    assert ended(events) is None
    assert ship(lost, "155") == Ship(Kind.COMMAND, 2, 0)


def test_battle_won_on_a_gate_captures_nothing_and_does_not_teleport() -> None:
    # Y-5.24 / Y-R17 / Y-5.52 / Y-5.5: an enemy ship standing on the mover's own gate;
    # the winner gains nothing and stays on the gate
    state = game("1C111:1 1A151:1 1G155 1G511 2S155:3 2C555:1 / 1")
    after, events = act(state, 0, "A151x155", rolls=[3])
    assert played(events) == ["A151x155{d=3,W}"]
    assert ship(after, "155") == Ship(Kind.ARCHID, 1, 1)
    assert ship(after, "511") is None


def test_mine_of_a_losing_attacker_stays() -> None:
    # Y-5.25 / Y-R24: a lost attack leaves its mine at the origin
    state, events = act(game(A6), 0, "A311x315/M", rolls=[1])
    assert played(events) == ["A311x315{d=1,L}/M"]
    assert state.board.mines == {pos("311"): 1}
    assert ship(state, "311") is None


# --- Y-5.30 to Y-5.36: Trych detonation ----------------------------------------------------------

BLAST = (
    "1C111:1 1T233 1S224:1 1S243:1 1M234 "
    "2S222:2 2N244:1 2S333:1 2A355:1 2C555:1 "
    "2G222 2G455 2G243 2G451 2M232 E242:1 / 1"
)


def test_detonation_destroys_enemy_pieces_in_the_zone_only() -> None:
    # Y-5.30 to Y-5.33, Y-5.36, Y-R13: enemy ships, gates, mines in the 8 adjacent positions;
    # own ships and mines, the other levels and energy tokens unaffected; the Trych is removed
    state, events = act(game(BLAST), 0, "T233!")
    assert played(events) == ["T233!"]
    board = state.board
    assert ship(state, "233") is None
    assert ship(state, "222") is None  # enemy ship on an enemy gate, dies with it (Y-5.36)
    assert ship(state, "244") is None
    assert ship(state, "224") == Ship(Kind.SQUAM, 1, 1)
    assert ship(state, "243") == Ship(Kind.SQUAM, 1, 1)  # Y-R13: own ship on blasted gate
    assert ship(state, "333") == Ship(Kind.SQUAM, 2, 1)  # other level (Y-5.31)
    assert set(board.gates) == {pos("455"), pos("451")}  # partners unaffected (Y-5.36)
    assert board.mines == {pos("234"): 1}
    assert board.tokens == {pos("242"): 1}
    assert state.turn.moved
    assert ended(events) is None


def test_partner_of_blasted_gate_is_singular() -> None:
    # Y-5.36 / Y-R61: the surviving partner never teleports
    state, _ = act(game(BLAST), 0, "T233!")
    state, _ = act(state, 0, "END")
    state, events = act(state, 1, "A355-455")
    assert played(events) == ["A355-455"]
    assert ship(state, "455") == Ship(Kind.ARCHID, 2, 1)


def test_detonation_on_own_gate_spares_it_and_the_partner_side() -> None:
    # Y-5.31 / Y-5.33: the gate under the Trych is unaffected; nothing near its partner is hit
    state = game("1C111:1 1T233 1G233 1G511 2S512:1 2S222:1 2C555:1 / 1")
    after, _ = act(state, 0, "T233!")
    assert set(after.board.gates) == {pos("233"), pos("511")}
    assert ship(after, "512") == Ship(Kind.SQUAM, 2, 1)
    assert ship(after, "222") is None


def test_zero_energy_trych_detonates() -> None:
    # Y-5.30 / Y-5.51: no energy needed
    state = game("1C111:1 1T233 2S222:1 2C555:1 / 1")
    after, events = act(state, 0, "T233!")
    assert played(events) == ["T233!"]
    assert ship(after, "222") is None


def test_detonation_is_the_whole_move() -> None:
    # Y-R9 / Y-5.30 / Y-4.3: no detonation after moving the Trych, no move after detonating
    state = game("1C111:1 1T233 1T235 2S222:1 2C555:1 / 1")
    moved, _ = act(state, 0, "T233-232")
    rejected(moved, 0, "T232!", "Y-4.3")
    blown, _ = act(state, 0, "T233!")
    rejected(blown, 0, "T235-234", "Y-4.3")


def test_detonation_destroying_enemy_command_ship_ends_the_game() -> None:
    # Y-5.34 / Y-8.1: the enemy Command ship is destroyed in the zone
    state = game("1C111:1 1T344 2C345:5 2S555:1 / 1")
    after, events = act(state, 0, "T344!")
    end = ended(events)
    assert end is not None
    assert end.result == "1-0"
    assert end.reason == "command_ship_destroyed"
    assert after.outcome is not None
    assert after.outcome.winners == (0,)


@pytest.mark.parametrize("text", ["T112!", "S111!"])
def test_only_own_trych_detonates(text: str) -> None:
    # Y-5.30: a Trych that is not there, or not a Trych, cannot detonate
    state = game("1C555:1 1S111:1 1T113 2T112 2C155:1 / 1")
    r = refused(state, 0, text)
    assert r.clause in ("Y-5.15", "Y-5.30"), r
    assert ship(state, "112") is not None


def test_decide_is_pure() -> None:
    # decide() only proposes events; the state passed in is untouched (nothing applied)
    state = game(A6)
    before = format_record(state)
    events = decide(state, 0, "A311x315", rolls=[3])
    assert not isinstance(events, Rejection)
    assert format_record(state) == before
