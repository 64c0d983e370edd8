"""Every illegal action is refused with a typed Rejection naming the clause it breaks."""

import pytest

from contracts.errors import ErrorCode
from tests.domain.spacewar.helpers import act, at, new, play, refuse

WK = "Kb2,Ko2"
BK = "Kb11,Ko11"
MANUAL = "auto_pass=false"


def test_out_of_step_actions() -> None:
    # SW-5.61, SW-5.77, SW-5.40, SW-5.4: each action has its phase and step
    movement = new()
    assert refuse(movement, "L b2,a2,b1>b3").clause == "SW-5.61"
    assert refuse(movement, "P@c1").clause == "SW-5.77"
    assert refuse(movement, "pass").clause == "SW-5.4"
    assert refuse(movement, "FR d4").clause == "SW-5.40"
    replace = at(WK, BK, p=3, s="replace", pending="1,0")
    assert refuse(replace, "pass").clause == "SW-5.77"
    assert refuse(replace, "END").clause == "SW-4.1"


@pytest.mark.parametrize(
    ("text", "clause"),
    [
        ("B e5>d4", "SW-5.41"),  # own piece
        ("B g6>e5", "SW-5.40"),  # not yours
        ("C e5:h1", "SW-5.42"),  # no such hit
        ("F e5>d4>c3", "SW-5.44"),  # own piece
        ("F e5>g6>h7", "SW-R25"),  # a pull goes closer
        ("FR d4", "SW-5.45"),  # no window
        ("L b2,a2,b1>b3", "SW-5.61"),
        ("Dd4-d5", "SW-4.1"),
    ],
)
def test_force_combat_rejections(text: str, clause: str) -> None:
    # SW-5.40 to SW-5.45: the clause of each refusal
    state = at(WK + ",De5,Nd4", BK + ",Ng6", MANUAL, p=4, s="combat")
    rejection = refuse(state, text)
    assert rejection.clause == clause
    assert rejection.code is ErrorCode.ILLEGAL_ACTION


def test_launch_twice_and_far_gunboat() -> None:
    # SW-5.62
    state = at(WK + ",Ra2,Pb1,Rd3,Ra1", BK + ",Ko10,Pa10", MANUAL, p=3, s="launch")
    assert refuse(state, "L b2,d3,b1>d4").clause == "SW-5.62"
    state = play(state, "L b2,a2,b1>a3")
    assert refuse(state, "L b2,a1,b3>b2", seat=0).code is ErrorCode.NOT_YOUR_TURN


def test_replacement_rejections() -> None:
    # SW-5.77: an empty square of your own back rank
    state = at(WK + ",Pa1", BK, p=3, s="replace", pending="1,0")
    assert refuse(state, "P@a1").clause == "SW-5.77"
    assert refuse(state, "P@a12").clause == "SW-5.77"
    assert refuse(state, "P@a2").clause == "SW-5.77"


def test_move_rejections() -> None:
    # SW-5.1, SW-1.5, SW-5.33: no ship, an anchor named twice, anchoring an enemy
    state = at(WK + ",Ne5,Nc4", BK + ",Ng6")
    assert refuse(state, "Rh2-h4").clause == "SW-5.1"
    assert refuse(state, "Ne5-f7;A:c4,c4").clause == "SW-1.5"
    assert refuse(state, "Ne5-f7;A:g6").clause == "SW-5.33"
    assert refuse(state, "Kb2-b3=b4").clause == "SW-5.21"


def test_acting_declines_a_standing_draw_offer() -> None:
    # SW-8.3: a draw offer is answered or declined by acting
    state = at(WK + ",De5", BK + ",Ng6", MANUAL, p=4, s="combat", a="b")
    state, _ = act(state, "offer-draw", seat=1)
    assert refuse(state, "offer-draw", seat=0).clause == "SW-8.3"
    state, events = act(state, "pass", seat=1)
    state, events = act(state, "B e5>g6", seat=0)
    assert type(events[0]).__name__ == "DrawDeclined"
    assert state.agreement.offer == -1
