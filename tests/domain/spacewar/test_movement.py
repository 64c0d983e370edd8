"""Movement phases and ship movement (SW-5.1–SW-5.15)."""

from contracts.spacewar import StepBegan
from domain.spacewar import SPACEWAR
from tests.domain.spacewar.helpers import act, at, legal, new, piece, play, refuse

KINGS = "Kb2,Ko2"
BKINGS = "Kb11,Ko11"


def test_group_rule_one_of_each_group() -> None:
    # SW-A A1, SW-5.2, SW-R6: N c2, D e2, E d2, K b2 is legal (one of each group)
    state = play(new(), "Nc2-d4", "De2-e4", "Ed2-c3")
    state, _ = act(state, "Kb2-b3")
    assert state.phase >= 2  # SW-5.4: the 4th move ends the phase


def test_group_rule_all_of_one_group() -> None:
    # SW-A A1: R a2, K b2, R h2, K o2 is legal (all G4); SW-R38: up to 4
    state = play(new(), "Ra2-a4", "Kb2-b3", "Rh2-h4", "Ko2-o3")
    assert state.phase >= 2


def test_group_rule_rejects_a_mix() -> None:
    # SW-A A1, SW-5.2: N c2, N g2, D e2 is illegal
    state = play(new(), "Nc2-d4", "Ng2-f4")
    rejection = refuse(state, "De2-e4")
    assert rejection.clause == "SW-5.2"


def test_end_after_a_move_and_not_before() -> None:
    # SW-5.4, SW-1.5: END after at least one move ends the phase
    state = new()
    assert refuse(state, "END").clause == "SW-5.4"
    assert "END" not in legal(state)
    state = play(state, "Rh2-h4")
    assert "END" in legal(state)
    state, events = act(state, "END")
    assert next((e.phase, e.step) for e in events if isinstance(e, StepBegan)) == (
        2,
        "combat",
    )


def test_no_ship_moves_twice() -> None:
    # SW-5.1, SW-5.3
    state = play(new(), "Rh2-h4")
    assert refuse(state, "Rh4-h5").clause == "SW-5.3"


def test_missiles_never_move_in_a_movement_phase() -> None:
    # SW-5.1
    state = at("Kb2,Pc3f", BKINGS)
    assert refuse(state, "Rc3-c4").clause == "SW-5.1"


def test_mothership_one_or_two_steps() -> None:
    # SW-5.10, SW-R12, SW-R46: one or two king steps, intermediate empty, no null move
    state = at("Kd4", BKINGS)
    moves = {m for m in legal(state) if m.startswith("Kd4")}
    assert "Kd4-d5" in moves
    assert "Kd4-d5-e6" in moves
    assert "Kd4-e5-e6" in moves
    assert "Kd4-d5-d4" not in moves
    assert refuse(state, "Kd4-d5-d4").clause == "SW-5.10"
    assert refuse(state, "Kd4-d6").clause == "SW-5.10"
    blocked = at("Kd4,Rd5", BKINGS)
    assert refuse(blocked, "Kd4-d5-d6").clause == "SW-5.15"


def test_tractor_pressor_immobilizer_gunboat_geometry() -> None:
    # SW-5.11, SW-5.12, SW-5.13, SW-5.14
    state = at("Kb2,De5,Eh5,Nk5,Rn5", BKINGS)
    assert refuse(state, "De5-f6").clause == "SW-5.11"
    assert refuse(state, "Eh5-h6").clause == "SW-5.12"
    assert refuse(state, "Nk5-k6").clause == "SW-5.13"
    assert refuse(state, "Rn5-n9").clause == "SW-5.14"
    for text in ("De5-e8", "Eh5-k8", "Nk5-l7", "Rn5-k8"):
        assert text in legal(state)


def test_sliders_do_not_pass_occupied_squares_nor_end_on_friends() -> None:
    # SW-5.15, SW-R8
    state = at("Kb2,De5,Pe6", "Kb11,Ko11,Pe9")
    assert refuse(state, "De5-e7").clause == "SW-5.15"
    assert refuse(state, "De5-e6").clause == "SW-5.15"


def test_immobilizer_leaps_over_pieces() -> None:
    # SW-5.13: intervening squares are ignored
    state = at("Kb2,Nd4,Pd5,Pe5,Pe4", BKINGS)
    assert "Nd4-e6" in legal(state)


def test_four_moves_at_most_and_losses_reduce_it() -> None:
    # SW-R5: the limit is 4, reduced only by availability; SW-5.4: no further legal move ends it
    state = at("Kb2,Ra2", BKINGS)
    state = play(state, "Ra2-a3")
    assert state.phase == 1
    assert "END" in legal(state)
    state = play(state, "Kb2-c3")
    assert state.phase >= 2  # SW-R57: no ship left to move


def test_no_legal_move_passes_the_phase() -> None:
    # SW-R7, SW-5.4: a player with no legal move at the start of the phase has none;
    # SW-R53: the engine records the end of the phase
    state = at(
        "Kb2,Pb3,Pa3,Pc3,Pa2,Pc2,Pa1,Pb1,Pc1,Rh4", BKINGS + ",Nh6,Ng6", a="b", p=4, s="combat"
    )
    state, events = act(state, "pass")
    kinds = [type(e).__name__ for e in events]
    assert "StepBegan" in kinds
    assert state.phase == 5
    # White is not asked: phases 5-8 are Black's half-turn
    assert state.actor == 1


def test_not_in_movement_phase() -> None:
    # SW-4.1: ships move only in their owner's movement phase
    state = at(KINGS, BKINGS, "auto_pass=false", p=2, s="combat", a="b")
    assert refuse(state, "Kb11-b10").clause == "SW-4.1"


def test_letter_must_match() -> None:
    # SW-1.5: the letter names the ship
    assert refuse(new(), "Dh2-h4").clause == "SW-1.5"
    assert refuse(new(), "Zh2-h4").code.value == "action/malformed"


def test_moves_set_the_moved_flag() -> None:
    # SW-2.2
    state = play(new(), "Rh2-h4")
    moved = piece(state, "h4")
    assert moved
    assert moved.moved
    assert SPACEWAR.position(state).split()[5] == "moved=4"
