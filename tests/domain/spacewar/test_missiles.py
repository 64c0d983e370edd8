"""Missile phases (SW-5.60–SW-5.66) and replacement (SW-5.75–SW-5.77)."""

from typing import Any

from contracts.spacewar import StepBegan
from domain.spacewar import State
from tests.domain.spacewar.helpers import act, at, legal, new, piece, play, refuse

WK = "Kb2,Ko2"
BK = "Kb11,Ko11"
MANUAL = "auto_pass=false"


def launch_step(white: str, black: str, variant: str = MANUAL, **kw: Any) -> State:
    return at(WK + "," + white, BK + "," + black, variant, p=3, s="launch", **kw)


def test_a4_launch_from_the_start_position() -> None:
    # SW-A A4, SW-5.62, SW-R31: the missile goes to b3 then b4; both ships turn small
    state = play(new(), "Rh2-h4", "END")
    assert (state.phase, state.step, state.actor) == (3, "launch", 0)  # SW-R29
    assert "L b2,a2,b1>b3" in legal(state)
    state, _ = act(state, "L b2,a2,b1>b3")
    missile = piece(state, "b4")
    assert missile
    assert missile.fired
    assert missile.launched
    assert missile.owner == 0
    assert all(getattr(piece(state, s), "small", False) for s in ("b2", "a2"))
    assert piece(state, "b1") is None


def test_a4_missile_moves_in_phase_7() -> None:
    # SW-A A4, SW-5.65: in phase 7 that missile moves b4 to b6
    state = at(WK + ",Pb4f", BK + ",Ra11", MANUAL, p=7, s="launch", a="b")
    state = play(state, "pass", "pass")
    assert piece(state, "b6")
    assert piece(state, "b4") is None


def test_launched_missile_does_not_move_again() -> None:
    # SW-5.63, SW-R50: never frozen, no movement in its launch phase
    state = play(new(), "Rh2-h4", "END", "L b2,a2,b1>b3")
    state, _ = act(state, "pass")
    assert (state.phase, state.step, state.actor) == (3, "launch", 0)  # one pass: it goes on
    state, events = act(state, "pass")
    # SW-R53: the second pass ends the launch step; the engine records the missile movement
    # step, phase 4's forced passes and the start of phase 5
    names = [type(e).__name__ for e in events]
    assert names == ["ActionPlayed", "MissilesMoved", "StepBegan", "AutoPassed", "AutoPassed",
                     "StepBegan"]  # fmt: skip
    assert piece(state, "b4")  # the missile launched this phase did not move again
    assert piece(state, "b6") is None


def test_a5_head_on_both_destroyed_and_replaced() -> None:
    # SW-A A5, SW-5.65(4), SW-R9, SW-R32: head-on in sub-step 2
    state = launch_step("Pe5f", "Pe8f")
    state = play(state, "pass", "pass")
    assert piece(state, "e6") is None
    assert piece(state, "e7") is None
    assert state.step == "replace"
    assert state.pending == (1, 1)
    # SW-5.77: the half-turn owner places first, on an empty back-rank square
    assert state.actor == 0
    assert "P@e1" in legal(state)
    assert refuse(state, "P@e2").clause == "SW-5.77"
    state = play(state, "P@e1")
    assert state.actor == 1
    state = play(state, "P@e12")
    assert state.phase == 4
    assert piece(state, "e1")
    assert piece(state, "e12")


def test_a5_same_target_both_destroyed() -> None:
    # SW-A A5, SW-5.65(5): both target e6 in sub-step 1
    state = launch_step("Pe5f", "Pe7f")
    state = play(state, "pass", "pass")
    assert piece(state, "e6") is None
    assert state.pending == (1, 1)


def test_a5_missile_meets_friendly_ship() -> None:
    # SW-A A5, SW-5.66, SW-R33: both destroyed, no replacement
    state = launch_step("Pe5f,Re7", "Pn9f")
    state = play(state, "pass", "pass")
    assert piece(state, "e7") is None
    assert state.pending == (0, 0)


def test_missile_hits_enemy_ship_replaced() -> None:
    # SW-5.75(b), SW-5.76, SW-R52: an enemy ship in the collision, no friendly piece
    state = launch_step("Pe5f", "Re6")
    state = play(state, "pass", "pass")
    assert piece(state, "e6") is None
    assert state.pending == (1, 0)


def test_missile_leaves_the_board_replaced() -> None:
    # SW-5.65 (3) and SW-5.75 (a): off the board, replaced
    state = launch_step("Pe12f", "Pa10")
    state = play(state, "pass", "pass")
    assert piece(state, "e12") is None
    assert state.pending == (1, 0)


def test_missiles_follow_in_one_file() -> None:
    # SW-5.65(5): every mover leaves its square
    state = launch_step("Pe5f,Pe6f", "Pa10")
    state = play(state, "pass", "pass")
    assert piece(state, "e7")
    assert piece(state, "e8")


def test_fields_freeze_and_stop_missiles() -> None:
    # SW-5.65(1), SW-5.35(a): a missile in an enemy Immobilizer field is frozen
    state = launch_step("Pe5f", "Ne7")
    state = play(state, "pass", "pass")
    assert piece(state, "e5")
    # SW-5.65(6), SW-R50: a missile entering an uncleared square stops there
    stopped = launch_step("Pe3f", "Dh6")
    stopped = play(stopped, "pass", "pass")
    assert piece(stopped, "e4")
    assert piece(stopped, "e5") is None


def test_friendly_fields_neutralize_for_missiles() -> None:
    # SW-R19, SW-5.33: every ship of the missile's owner neutralizes, no anchoring
    state = launch_step("Pe3f,Ec4", "Dh6")
    state = play(state, "pass", "pass")
    assert piece(state, "e5")


def test_launch_rules() -> None:
    # SW-5.62: a large Mothership, an adjacent large Gunboat, an adjacent missile, a next-rank
    # square next to the Gunboat
    state = launch_step("Ra2,Pb1,Pc3", "Pa10")
    assert refuse(state, "L b2,a2,b1>a4").clause == "SW-5.62"
    assert refuse(state, "L b2,a2,d1>a3").clause == "SW-5.62"
    assert refuse(state, "L o2,a2,b1>a3").clause == "SW-5.62"
    small = launch_step("Ra2s,Pb1", "Pa10")
    assert refuse(small, "L b2,a2,b1>a3").clause == "SW-4.2"
    # SW-R30: an enemy missile may be launched and changes owner
    enemy = launch_step("Ra2", "Pc1f")
    enemy, _ = act(enemy, "L b2,a2,c1>b3")
    moved = piece(enemy, "b4")
    assert moved
    assert moved.owner == 0
    assert moved.fired


def test_launch_first_square_may_hold_own_ship() -> None:
    # SW-R49: entering it is a collision (SW-5.66)
    state = launch_step("Ra2,Pb1,Ra3", "Pa10")
    state, _ = act(state, "L b2,a2,b1>a3")
    assert piece(state, "a3") is None
    assert state.pending == (0, 0)


def test_launch_flips_off() -> None:
    # SW-0.3 launch_flips
    state = launch_step("Ra2,Pb1", "Pa10", variant=MANUAL + "+launch_flips=false")
    state, _ = act(state, "L b2,a2,b1>b3")
    assert not piece(state, "b2").small  # type: ignore[union-attr]


def test_missile_step_one() -> None:
    # SW-0.3 missile_step, SW-R35
    state = launch_step("Pe5f", "Pa10", variant=MANUAL + "+missile_step=1")
    state = play(state, "pass", "pass")
    assert piece(state, "e6")


def test_capture_of_a_fired_missile_before_movement() -> None:
    # SW-5.62: an enemy fired missile next to the Mothership can be launched before it moves
    state = launch_step("Ra2", "Pc3f")
    assert "L b2,a2,c3>b3" in legal(state)


def test_replacement_lost_when_back_rank_full() -> None:
    # SW-5.77: a replacement that finds no empty back-rank square is lost
    rank = ",".join(f"P{f}1" for f in "abcdefghijklmnop")
    state = launch_step(rank + ",Pe12f", "Pa10")
    state, events = act(state, "pass")
    state, events = act(state, "pass")
    assert any(type(e).__name__ == "ReplacementLost" for e in events)
    assert state.phase == 4


def test_missile_phase_steps() -> None:
    # SW-5.60, SW-5.61: launch step, movement step, replacement step; White first in phase 3
    state = launch_step("Pe12f", "Pa10")
    state = play(state, "pass")
    state, events = act(state, "pass")
    # the second pass ends the launch step; the movement step follows, then the replacement
    # step begins (SW-5.60's order)
    assert [type(e).__name__ for e in events] == ["ActionPlayed", "MissilesMoved", "StepBegan"]
    assert isinstance(events[2], StepBegan)
    assert events[2].step == "replace"


def test_missile_rules_are_the_ruling_s() -> None:
    # SW-R40, SW-R41, SW-R43: the missile clauses, the rules in the document and the v1.1
    # clarifications bind as written: SW-R51's force-combat replacement is placed at the
    # phase's end (SW-R34: a missile pushed off the board is replaced)
    state = at(WK + ",Ed10", BK + ",Pc12f,Ng11", MANUAL, p=4, s="combat")
    state = play(state, "F d10>c12>off")
    assert state.pending == (0, 1)
    assert state.step == "combat"
    state = play(state, "pass", "pass")
    assert (state.step, state.actor) == ("replace", 1)  # Black's replacement, Black places
    state = play(state, "P@c12")
    assert state.phase == 5
    assert piece(state, "c12")


def test_clearness_after_the_sub_step_generator_destroyed() -> None:
    # SW-R50, SW-5.65(6): the Tractor at h6 is destroyed in sub-step 1 (rammed by the missile
    # from h5), so e4 is clear after that sub-step and the missile from e3 goes on to e5
    state = launch_step("Pe3f,Ph5f", "Dh6")
    state = play(state, "pass", "pass")
    assert piece(state, "h6") is None
    assert piece(state, "e4") is None
    assert piece(state, "e5")


def test_clearness_after_the_sub_step_neutralizer_destroyed() -> None:
    # SW-R50, SW-5.65(6), SW-R19: the friendly Pressor at c4 is destroyed in sub-step 1 by the
    # Black missile from c5, so e4 is no longer cleared of the Tractor's field: the missile stops
    state = launch_step("Pe3f,Ec4", "Dh6,Pc5f")
    state = play(state, "pass", "pass")
    assert piece(state, "c4") is None
    assert piece(state, "e4")
    assert piece(state, "e5") is None


def test_three_way_collision_white_missile_and_ship_with_black_missile() -> None:
    # SW-R52, SW-5.75(b), SW-R33: White's missile meets a friendly ship, not replaced; Black's
    # missile meets only enemy pieces, replaced
    state = launch_step("Pe5f,Re6", "Pe7f")
    state = play(state, "pass", "pass")
    assert piece(state, "e6") is None
    assert state.pending == (0, 1)


def test_three_way_collision_black_ship_and_missile_with_white_missile() -> None:
    # SW-R52, SW-5.75(b), SW-R33: the reverse ownership
    state = launch_step("Pe5f", "Pe7f,Re6")
    state = play(state, "pass", "pass")
    assert piece(state, "e6") is None
    assert state.pending == (1, 0)
