"""The `decker` ruleset through YAVOCH.decide/evolve (part 2): mines (Y-5.40 to Y-5.43, Y-R24,
Y-R25), energy (Y-5.50 to Y-5.55, Appendix A7, Y-R26), the HEP CAT (Y-5.60 to Y-5.64,
Appendix A8, Y-R18, Y-R22, Y-R23, Y-R68), the end of the game (section 8, Y-R19 to Y-R21,
Y-R27 to Y-R29) and legal-action counts derived by hand.
"""

import pytest

from contracts.errors import ErrorCode
from contracts.events import GameEnded
from domain.core import VariantError
from domain.yavoch.board import Ship
from domain.yavoch.notation import Kind, Shot, parse_position
from domain.yavoch.rules import YAVOCH
from domain.yavoch.state import State
from tests.domain.yavoch.helpers import act, game
from tests.domain.yavoch.test_rules_decker import began, ended, played, pos, rejected, ship


def result(state: State) -> tuple[str, str] | None:
    return None if state.outcome is None else (state.outcome.result, state.outcome.reason)


# --- Y-5.40 to Y-5.43: mines ---------------------------------------------------------------------


def test_laying_a_mine_costs_one_unit_even_the_last() -> None:
    # Y-5.40 / Y-R24: the unit is deducted as the ship departs; a 1-unit ship arrives with 0
    state = game("1C111:1 1S122:1 2C555:1 / 1")
    after, events = act(state, 0, "S122-133/M")
    assert played(events) == ["S122-133/M"]
    assert after.board.mines == {pos("122"): 1}
    assert ship(after, "133") == Ship(Kind.SQUAM, 1, 0)


def test_command_ship_lays_mines_too() -> None:
    # Y-5.40: a Command ship with units may lay a mine
    state = game("1C111:2 1T155 2C555:1 / 1")
    after, _ = act(state, 0, "C111-112/M")
    assert after.board.mines == {pos("111"): 1}
    assert ship(after, "112") == Ship(Kind.COMMAND, 1, 1)


def test_no_mine_from_a_gate_stasis_or_trych() -> None:
    # Y-5.40 / Y-R24: not on a gate's position; a Trych never lays one; Y-5.51 stasis
    state = game("1C111:1 1S122:2 1G122 1G155 1S133 1T144 2C555:1 / 1")
    rejected(state, 0, "S122-211/M", "Y-5.40")
    rejected(state, 0, "T144-145/M", "Y-5.40", ErrorCode.MALFORMED_ACTION)
    rejected(state, 0, "S133-142/M", "Y-5.51")


def test_own_mine_is_absorbed() -> None:
    # Y-5.41: the mine is removed and the ship gains 1 unit, none beyond capacity (Y-5.50)
    state = game("1C111:1 1S133:2 1M144 2C555:1 / 1")
    after, events = act(state, 0, "S133-144")
    assert played(events) == ["S133-144"]
    assert ship(after, "144") == Ship(Kind.SQUAM, 1, 3)
    assert pos("144") not in after.board.mines


def test_own_mine_absorbed_at_full_capacity() -> None:
    # Y-5.41 / Y-5.50: "you can still absorb the mine but no new rings are added"
    state = game("1C111:1 1A131:5 1M135 2C555:1 / 1")
    after, _ = act(state, 0, "A131-135")
    assert ship(after, "135") == Ship(Kind.ARCHID, 1, 5)
    assert after.board.mines == {}


def test_enemy_mine_sacrifices_the_ship() -> None:
    # Y-5.42: ship and mine both destroyed; no roll
    state = game("1C111:1 1S133:4 1T155 2M144 2C555:1 / 1")
    after, events = act(state, 0, "S133-144")
    assert played(events) == ["S133-144"]
    assert ship(after, "144") is None
    assert ship(after, "133") is None
    assert after.board.mines == {}


def test_command_ship_and_trych_never_enter_an_enemy_mine() -> None:
    # Y-5.42 / Y-R25 / Y-5.10 / Y-R10
    state = game("1C111:1 1T123 2M122 2C555:1 / 1")
    rejected(state, 0, "C111-122", "Y-R25")
    rejected(state, 0, "T123-122", "Y-5.10")


def test_mines_block_and_own_mines_are_never_taken_by_a_trych() -> None:
    # Y-5.43: mines block slides like any occupied position; Y-5.10: a Trych not onto own mine
    state = game("1C111:1 1S133:1 1T143 1M144 2C555:1 / 1")
    rejected(state, 0, "S133-155", "Y-5.2")
    rejected(state, 0, "T143-144", "Y-5.10")


# --- Y-5.50 to Y-5.55: energy --------------------------------------------------------------------


def test_capacity_limits_positions_and_transfers() -> None:
    # Y-5.50: a Trych holds 1 unit (a record with 2 is refused); a full Trych takes no transfer
    with pytest.raises(VariantError):
        YAVOCH.create("decker", "1C111:1 1T112:2 2C555:1 / 1")
    with pytest.raises(VariantError):
        YAVOCH.create("decker", "1C111:6 1T112 2C555:1 / 1")
    state = game("1C111:1 1T112:1 1S121:2 1N155:1 2C555:1 / 1")
    state, _ = act(state, 0, "N155-233")
    rejected(state, 0, "E111>112", "Y-5.54")
    state, _ = act(state, 0, "E112>111")  # a Trych gives too (Y-5.54 1)
    assert ship(state, "111") == Ship(Kind.COMMAND, 1, 2)
    assert ship(state, "112").energy == 0


def test_stasis() -> None:
    # Y-5.51: 0 units: no move, no attack, no shot; still receives a transfer; can be attacked
    # without a roll (non-Command); a 0-unit Trych still moves and detonates
    state = game("1C111 1S122 1A115 1T155 2S133:1 2C555:1 / 1")
    rejected(state, 0, "S122x133", "Y-5.51")
    rejected(state, 0, "C111*133", "Y-5.61")
    rejected(state, 0, "A115-114", "Y-5.51")
    moved, _ = act(state, 0, "T155-154")
    assert ship(moved, "154") == Ship(Kind.TRYCH, 1, 0)
    _blown, events = act(state, 0, "T155!")
    assert played(events) == ["T155!"]
    state = game("1C111:1 1S122:3 1S133 1T155 2A143:1 2C555:1 / 2")
    after, events = act(state, 1, "A143x133")
    assert played(events) == ["A143x133{auto,W}"]
    assert ship(after, "133") == Ship(Kind.ARCHID, 2, 1)


A7 = "1C155:1 1S212:2 1S222 1S232:4 1T111 2C555:1 2T554 / 1"


def test_a7_relay_through_a_ship_with_no_energy() -> None:
    # A7 / Y-5.54 / Y-R26: X 2 -> Y 0 -> W 4 relays one unit: X 1, Y 0, W 5; then X may not
    # give again and Y may not receive again
    state, _ = act(game(A7), 0, "T111-112")
    state, events = act(state, 0, "E212>222")
    state, events = act(state, 0, "E222>232")
    assert played(events) == ["E222>232"]
    assert [ship(state, p).energy for p in ("212", "222", "232")] == [1, 0, 5]
    r = rejected(state, 0, "E212>222", "Y-5.54")
    assert "already" in r.reason


def test_a7_relay_refused_when_w_is_full() -> None:
    # A7: had W held 5 units, E222>232 would be illegal (W full)
    state, _ = act(game(A7.replace("1S232:4", "1S232:5")), 0, "T111-112")
    state, _ = act(state, 0, "E212>222")
    r = rejected(state, 0, "E222>232", "Y-5.54")
    assert "full" in r.reason


def test_transfer_rules() -> None:
    # Y-5.54: own ships only, adjacent on one level, giver has a unit, each ship gives once and
    # receives once; never before the MOVE (Y-R18) and never in the opponent's turn
    state = game("1C111:2 1S112:1 1S211:1 1S133:2 1T155 2S121:1 2C555:1 2T554 / 1")
    rejected(state, 0, "E111>112", "Y-5.54")  # before the MOVE
    state, _ = act(state, 0, "T155-154")
    rejected(state, 0, "E111>121", "Y-5.54")  # enemy ship
    rejected(state, 0, "E111>133", "Y-5.54")  # not adjacent
    rejected(state, 0, "E111>211", "Y-5.54")  # another level (Y-5.55)
    state, _ = act(state, 0, "E111>112")
    rejected(state, 0, "E111>112", "Y-5.54")  # 111 gave already
    state, _ = act(state, 0, "E112>111")  # 112 gives, 111 receives: each once
    assert ship(state, "111").energy == 2
    assert ship(state, "112").energy == 1
    rejected(state, 0, "E112>111", "Y-5.54")
    state, _ = act(state, 0, "END")
    rejected(state, 0, "E111>112", "Y-4.1", ErrorCode.NOT_YOUR_TURN)


def test_energy_never_crosses_levels() -> None:
    # Y-5.55: ships stacked on the slant or perpendicular column are not adjacent
    state = game("1C111:2 1S211:1 1S322:1 1T155 2C555:1 2T554 / 1")
    state, _ = act(state, 0, "T155-154")
    rejected(state, 0, "E211>322", "Y-5.54")
    rejected(state, 0, "E111>211", "Y-5.54")
    assert not any(
        getattr(a, "origin", None) == pos("111") and getattr(a, "destination", None) == pos("211")
        for a in YAVOCH.legal_actions(state, 0)
    )


# --- Y-5.60 to Y-5.64: HEP CAT -------------------------------------------------------------------


def test_a8_empty_gate_blocks_the_shot() -> None:
    # A8 / Y-5.63 / Y-R22: line 122 133 144 155 from 111; an empty gate at 133 stops it
    state = game("1C111:2 1T115 2G133 2G455 2S155:1 2C555:1 / 1")
    rejected(state, 0, "C111*155", "Y-5.63")
    rejected(state, 0, "C111*133", "Y-5.63")  # "It cannot destroy a teleport gate"
    shots = {a.target for a in YAVOCH.legal_actions(state, 0) if isinstance(a, Shot)}
    assert shots == {pos("115")}  # only the own Trych on line (0,0,+1)


def test_shot_destroys_the_first_occupant_at_any_range() -> None:
    # Y-5.62 / Y-5.64 / Y-5.61 / Y-R23: one unit spent, target and its energy gone, no capture
    state = game("1C111:2 1T115 2S155:4 2S154:1 2C555:1 / 1")
    after, events = act(state, 0, "C111*155")
    assert played(events) == ["C111*155"]
    assert ship(after, "155") is None
    assert ship(after, "111") == Ship(Kind.COMMAND, 1, 1)
    assert after.turn.fired
    assert not after.turn.moved
    rejected(state, 0, "C111*154", "Y-5.63")  # not on a line from 111


def test_shot_hits_a_ship_on_a_gate_and_own_pieces() -> None:
    # Y-5.63 / Y-R22: a ship on a gate is the target (gate unharmed); own ships and mines too
    state = game("1C111:3 1T115 1M151 2G133 2G455 2S133:1 2C555:1 / 1")
    after, _ = act(state, 0, "C111*133")
    assert ship(after, "133") is None
    assert pos("133") in after.board.gates
    after, _ = act(state, 0, "C111*115")
    assert ship(after, "115") is None
    after, _ = act(state, 0, "C111*151")
    assert after.board.mines == {}


def test_shot_clears_an_enemy_mine() -> None:
    # Y-5.43 / Y-5.63: an enemy mine may be shot
    state = game("1C111:1 1T115 2M141 2C555:1 / 1")
    after, _ = act(state, 0, "C111*141")
    assert after.board.mines == {}
    assert ship(after, "111").energy == 0


def test_one_shot_per_turn_before_or_after_the_move() -> None:
    # Y-5.60 / Y-R18: never fire, move, fire again; only in the owner's turn
    state = game("1C111:3 1T115 1S133:1 2S155:1 2S151:1 2C555:1 / 1")
    fired, _ = act(state, 0, "C111*151")
    moved, _ = act(fired, 0, "S133-144")
    rejected(moved, 0, "C111*155", "Y-5.60")
    rejected(fired, 0, "C111*155", "Y-5.60")
    moved, _ = act(state, 0, "T115-114")
    fired, _ = act(moved, 0, "C111*151")
    rejected(fired, 0, "C111*144", "Y-5.60")
    other = game("1C111:3 1T115 2S155:1 2C555:1 / 2")
    rejected(other, 0, "C111*155", "Y-4.1", ErrorCode.NOT_YOUR_TURN)


def test_shot_before_the_move_must_leave_a_move() -> None:
    # Y-R68: the last unit spent and the only other ship shot: no MOVE would remain
    state = game("1C111:1 1S122 2S155:1 2C555:1 / 1")
    rejected(state, 0, "C111*122", "Y-R68")
    assert not any(isinstance(a, Shot) for a in YAVOCH.legal_actions(state, 0))
    # the same shot after the MOVE is legal (it then kills the mover: see Y-8.3)
    moved, _ = act(state, 0, "C111-112")
    fired, events = act(moved, 0, "C112*122")
    assert played(events)[0] == "C112*122"
    assert ship(fired, "112") == Ship(Kind.COMMAND, 1, 0)


def test_shot_before_the_move_counting_a_gate_move() -> None:
    # Y-R68: a gate move is a MOVE, so the shot is legal when only a gate could move after it
    state = game("1C111:1 1S131 1G145 1G455 2S155:1 2C555:1 2T554 / 1")
    after, events = act(state, 0, "C111*155")
    assert played(events) == ["C111*155"]
    after, _ = act(after, 0, "G145-144")
    assert pos("144") in after.board.gates


def test_shot_at_the_enemy_command_ship_ends_the_game() -> None:
    # Y-5.64 / Y-8.1: the enemy Command ship shot: P1 wins
    state = game("1C111:2 1T115 2C155:5 2S554:1 / 1")
    _after, events = act(state, 0, "C111*155")
    end = ended(events)
    assert end is not None
    assert (end.result, end.reason) == ("1-0", "command_ship_destroyed")


def test_last_unit_shot_at_the_enemy_command_ship_is_a_draw() -> None:
    # Y-8.2 / Y-R21: "Using your last energy unit ... also kills you, resulting in a tie game";
    # Y-R68 allows the shot before the MOVE since it destroys the enemy Command ship
    state = game("1C111:1 1T115 2C155:5 2S554:1 / 1")
    after, events = act(state, 0, "C111*155")
    end = ended(events)
    assert end is not None
    assert end.result == "1/2-1/2"
    assert end.winners == []
    assert result(after) == ("1/2-1/2", "surviving_command_ship_without_energy")


# --- section 8: the end of the game --------------------------------------------------------------


def test_battle_destroying_the_command_ship_ends_the_game_at_once() -> None:
    # Y-8.1 / Y-4.5: the game ends in the middle of the turn; P2 wins here
    state = game("1C155:3 1S554:1 2C111:1 2A151:1 2T115 / 2")
    _after, events = act(state, 1, "A151x155", rolls=[9])
    assert ended(events) == GameEnded(result="0-1", reason="command_ship_destroyed", winners=[1])
    assert began(events) == []


def test_command_ship_killed_while_the_winner_is_at_zero_is_a_draw() -> None:
    # Y-8.2 / Y-R21 (generalised): the surviving Command ship carries 0 at that moment
    state = game("1C111 1A151:1 2C155:2 2S554:1 / 1")
    after, _events = act(state, 0, "A151x155", rolls=[8])
    assert result(after) == ("1/2-1/2", "surviving_command_ship_without_energy")


def test_dead_command_ship_at_end_of_own_turn() -> None:
    # Y-8.3 / Y-R20: the mover's Command ship at 0 at END loses; a transfer first saves it
    state = game("1C111:1 1S112:2 1T155 2S511:1 2C555:1 2T554 / 1")
    fired, _ = act(state, 0, "C111*511")
    moved, _ = act(fired, 0, "T155-154")
    _lost, events = act(moved, 0, "END")
    assert ended(events) == GameEnded(result="0-1", reason="dead_command_ship", winners=[1])
    saved, _ = act(moved, 0, "E112>111")
    saved, events = act(saved, 0, "END")
    assert ended(events) is None
    assert began(events) == [1]


def test_command_ship_at_zero_in_opponents_turn_is_not_yet_dead() -> None:
    # Y-8.3 / Y-R20: only the end of its owner's turn counts
    state = game("1C111:1 1T155 2C555 2S554:2 2T511 / 1")
    state, _ = act(state, 0, "T155-154")
    state, events = act(state, 0, "END")
    assert ended(events) is None
    assert state.mover == 1
    state, _ = act(state, 1, "T511-512")
    state, _ = act(state, 1, "E554>555")
    state, events = act(state, 1, "END")
    assert ended(events) is None
    assert ship(state, "555") == Ship(Kind.COMMAND, 2, 1)


def test_lost_fleet_at_end_of_turn() -> None:
    # Y-8.4 / Y-R29 / Y-R7: P2's last ship other than its Command ship destroyed; its gates
    # and mines do not count; checked at the end of P1's turn, not at the battle
    state = game("1C111:1 1A311:1 1T155 2S315:1 2C555:1 2G545 2G455 2M443 / 1")
    after, events = act(state, 0, "A311x315", rolls=[1])
    assert ended(events) is None
    assert not after.turn.over
    after, events = act(after, 0, "END")
    assert ended(events) == GameEnded(result="1-0", reason="lost_fleet", winners=[0])


def test_mover_losing_its_own_fleet() -> None:
    # Y-8.4: the mover's own last ship lost in battle: the mover loses at the end check
    state = game("1C111:1 1A311:1 2S315:3 2C555:1 / 1")
    _after, events = act(state, 0, "A311x315", rolls=[0])
    assert ended(events) == GameEnded(result="0-1", reason="lost_fleet", winners=[1])


def test_both_losing_at_one_check_is_a_draw() -> None:
    # Y-8.7: Y-8.3 for the mover (Command ship at 0) and Y-8.4 for the opponent at once
    state = game("1C111:1 1T155 2S511:1 2C555:1 / 1")
    state, _ = act(state, 0, "C111*511")
    state, _ = act(state, 0, "T155-154")
    _after, events = act(state, 0, "END")
    assert ended(events) == GameEnded(result="1/2-1/2", reason="both_lost", winners=[])


def test_immobilized_at_the_start_of_the_turn() -> None:
    # Y-8.5 / Y-R28 / Y-R7: P2 has only ships in stasis and a gate that could move: at the start
    # of its turn it loses
    state = game("1C111:1 1T155 2C555 2S544 2G511 2G512 / 1")
    state, _ = act(state, 0, "T155-154")
    _after, events = act(state, 0, "END")
    assert began(events) == [1]
    assert ended(events) == GameEnded(result="1-0", reason="immobilized", winners=[0])


def test_a_trych_always_has_a_move() -> None:
    # Y-8.5: a Trych can always detonate, even when boxed in
    state = game("1C111:1 1T155 2C555 2T544 1M533 1M534 1M535 1M543 1M545 1M553 1M554 1M455 / 1")
    state, _ = act(state, 0, "T155-154")
    after, events = act(state, 0, "END")
    assert began(events) == [1]
    assert ended(events) is None
    assert after.mover == 1


def test_resign_and_agreed_draw() -> None:
    # Y-8.8: resign at any time (even in the opponent's turn); a draw by offer and acceptance
    state = game("1C111:1 1T155 2C555:1 2T554 / 1")
    after, events = act(state, 1, "resign")
    assert ended(events) == GameEnded(result="1-0", reason="resignation", winners=[0])
    offered, _ = act(state, 0, "offer-draw")
    declined, _ = act(offered, 1, "decline-draw")
    assert declined.outcome is None
    after, events = act(offered, 1, "accept-draw")
    assert result(after) is not None
    assert result(after)[0] == "1/2-1/2"


def test_turn_limit_draw() -> None:
    # Y-8.9: with turn_limit=2 the game is drawn when both players completed 2 turns
    state = game("1C111:1 1T155 2C555:1 2T511 / 1", variant="decker+turn_limit=2")
    for seat, move in ((0, "T155-154"), (1, "T511-512"), (0, "T154-153")):
        state, _ = act(state, seat, move)
        state, events = act(state, seat, "END")
        assert ended(events) is None
    state, _ = act(state, 1, "T512-513")
    state, events = act(state, 1, "END")
    assert ended(events) == GameEnded(result="1/2-1/2", reason="turn_limit", winners=[])


def test_no_turn_limit_by_default() -> None:
    # Y-8.9: default none; Y-R65: no repetition rule
    state = game("1C111:1 1T155 2C555:1 2T511 / 1")
    moves = {0: ("T155-154", "T154-155"), 1: ("T511-512", "T512-511")}
    for turn in range(8):
        seat = turn % 2
        state, _ = act(state, seat, moves[seat][(turn // 2) % 2])
        state, events = act(state, seat, "END")
        assert ended(events) is None
    assert state.outcome is None
    assert state.number == 9


def test_no_check() -> None:
    # Y-8.10: a move that leaves the own Command ship attackable is legal
    state = game("1C111:1 1T155 2C133:1 2A131:1 2T554 / 1")
    after, events = act(state, 0, "C111-121")
    assert played(events) == ["C111-121"]
    assert after.outcome is None
    after, _ = act(after, 0, "END")
    after, events = act(after, 1, "A131x121", rolls=[7])
    assert result(after) == ("0-1", "command_ship_destroyed")


# --- legal-action counts -------------------------------------------------------------------------


def moves_and_shots(state: State, seat: int) -> list[object]:
    return [a for a in YAVOCH.legal_actions(state, seat) if not isinstance(a, str)]


def test_count_command_ship_and_trych() -> None:
    """Y-5.14 / Y-5.40 / Y-5.10 / Y-5.30 / Y-R68: `1C111:1 1T155 2C555:1`.

    C111 (1 unit, not on a gate): 112 121 122 211 = 4 moves, each with and without /M: 8.
    T155: 144 145 154 in level 1, PU 244 (PD off the field): 4 moves, plus T155!: 5.
    HEP CAT: only line (0,+1,+1) has an occupant, the own T155; shooting it would spend the
    last unit and leave no ship that can move, so Y-R68 forbids it: 0. Total 13."""
    state = game("1C111:1 1T155 2C555:1 / 1")
    assert len(moves_and_shots(state, 0)) == 13


def test_count_squam_with_gates_mine_and_stasis() -> None:
    """Y-5.11 / Y-5.5 / Y-5.42 / Y-R15 / Y-5.16 / Y-5.51:
    `1C111 1S133:1 1G124 1G151 2M144 2C555:1`.

    C111 has 0 units: no move, no shot. S133 slides: (0,+1,+1) 144 (enemy mine, sacrifice;
    155 behind it blocked); (0,+1,-1) 142, 151 (own gate: teleports to 124); (0,-1,+1) 124
    (own gate: teleports to 151; 115 blocked); (0,-1,-1) 122 (111 is the own Command ship,
    Y-R15); PU 222, 311; PD off the field: 7 destinations, each with and without /M: 14.
    Gate 124: 113 114 115 123 125 134 135 (133 occupied), PU 213, SU 224: 9.
    Gate 151: 141 142 152, SU 251: 4. Total 27."""
    state = game("1C111 1S133:1 1G124 1G151 2M144 2C555:1 / 1")
    assert len(moves_and_shots(state, 0)) == 27


def test_count_attacks_and_shots() -> None:
    """Y-5.13 / Y-5.12 / Y-5.20 / Y-5.62 / Y-5.63:
    `1C511:1 1N111:2 1A115:1 2S211:3 2T125 2C555:1`.

    N111: only 211 (A5), an enemy Squam: an attack, with and without /M: 2.
    A115: (0,+1,0) 125 (enemy Trych, attack); (0,0,-1) 114 113 112 111 (own Neornith: a
    self-attack); SU 215 315 415 515; SD and the rest off the field: 9, times 2: 18.
    C511: 512 521 522 in level 5, PD 422, SD 411 (PU and SU off the field): 5, times 2: 10.
    Shots from 511: SD line 411 311 211 hits the Squam; (0,+1,+1) line 522 533 544 555 hits
    the enemy Command ship; every other line is empty: 2. Total 32."""
    state = game("1C511:1 1N111:2 1A115:1 2S211:3 2T125 2C555:1 / 1")
    assert len(moves_and_shots(state, 0)) == 32


def test_count_command_ship_among_gates_and_mines() -> None:
    """Y-5.14 / Y-5.7 / Y-R25 / Y-5.20 / Y-5.10 / Y-5.16 / Y-5.63:
    `1C333:2 1T334 1G332 1G111 2S343:1 2G343 2G455 2M323 2C555:1`.

    C333 (2 units): 322 324 342 344, 332 (own gate, no teleport), 334 (own Trych: battle),
    343 (enemy ship on enemy gate: battle, Y-5.7), PU 422, PD 244, SU 433, SD 233; not 323
    (enemy mine, Y-R25): 11, times 2 (/M): 22.
    Shots: 343 (ship on a gate), 323 (enemy mine), 334 (own Trych); 332 is an empty own gate
    (no shot); the other 8 lines are empty: 3.
    T334: 324 325 335 344 345 (not 323 mine, 333 ship, 343 ship), PU 423, PD 245: 7, and
    T334!: 8.
    Gate 332: 321 322 331 341 342 (323 333 343 occupied), PU 421, PD 243, SU 432, SD 232: 9.
    Gate 111: 112 121 122 211: 4. Total 22 + 3 + 8 + 13 = 46."""
    state = game("1C333:2 1T334 1G332 1G111 2S343:1 2G343 2G455 2M323 2C555:1 / 1")
    assert len(moves_and_shots(state, 0)) == 46


def test_counts_after_the_move() -> None:
    """Y-4.2 step 3 / Y-5.54 / Y-5.60: after the MOVE only transfers, the one shot and END.

    `1C111:2 1S112:1 1T121 1T155 2S515:1 2C555:1 2T554`, after T155-154: transfers
    111>112, 111>121 (Trych at 0 of capacity 1), 112>111, 112>121: 4 (the Trychs have no
    unit to give). Shots: (0,+1,0) hits the own Trych 121, (0,0,+1) the own Squam 112; the
    (0,+1,+1) line is empty now that T155 moved, SU 211..511 is empty, the rest leave the
    field: 2. END: 1. No ship move, gate move or detonation (the MOVE is made). Total 7."""
    state = game("1C111:2 1S112:1 1T121 1T155 2S515:1 2C555:1 2T554 / 1")
    state, _ = act(state, 0, "T155-154")
    assert len(moves_and_shots(state, 0)) == 7


def test_positions_parse() -> None:
    # Y-1.12 sanity for the helpers used above
    assert parse_position("243") == pos("243")
