"""Turns and the end of the game (HA-4, HA-5.70, HA-6.1, HA-8, HA-R5, HA-R18, HA-R20)."""

import pytest

from contracts.errors import ErrorCode
from contracts.events import DrawDeclined, GameCreated, GameEnded
from domain.core import VariantError
from domain.core.outcome import win
from domain.spacewar_ha import SPACEWAR_HA
from tests.domain.spacewar_ha.helpers import act, at, clause, field, legal, new, refuse


def test_one_action_per_turn_compulsory() -> None:
    """HA-4.1, HA-R5, HA-0.1: White first, one action, then Black."""
    state, _ = act(new(), "Nb1-c3")
    assert SPACEWAR_HA.to_act(state) == {1}
    assert field(state, 0) == "b"
    state, _ = act(state, "Nb8-c6")
    assert SPACEWAR_HA.position(state).split()[:2] == ["w", "2"]
    wrong = refuse(state, "Nc6-b4", 1)
    assert (wrong.code, wrong.clause) == (ErrorCode.NOT_YOUR_TURN, "HA-4.1")


def test_pass_only_without_an_action() -> None:
    """HA-4.2, HA-5.70, HA-R24: pass is refused while an HA-5 action exists; a release is no
    such action."""
    assert clause(new(), "pass") == "HA-5.70"
    stuck = at("Qa1:3/0,Rb1:9/0,Rb2:9/0,Ra2:9/0,re3:9/6", holds="-")
    assert "pass" not in legal(stuck)


def test_forced_pass_and_double_pass_draw() -> None:
    """HA-4.2, HA-8.2, HA-R20, HA-8.5: a side with no piece passes (losing its pieces is not a
    loss); two passes in a row draw."""
    state = at("ka8:9/18/6", side="w")
    assert legal(state) == {"pass"}
    after, events = act(state, "pass")
    assert SPACEWAR_HA.outcome(after) is None
    assert field(after, 2) == "1"
    nobody = at("-", passed=1)
    _over, events = act(nobody, "pass")
    assert events[-1] == GameEnded(result="1/2-1/2", reason="double pass")


def test_tractor_with_only_a_release_passes() -> None:
    """HA-R24, HA-5.70, HA-R22: White's Tractor, held by the Black Tractor it holds, has no
    Ammo: no HA-5 action, so `pass` is legal beside the release. HA-R28: once released, it may
    not immobilise b2 again this turn (the release and re-hold would be an action that changes
    nothing), so it still passes, and the pass counts towards the double pass (HA-8.2)."""
    # HA-R28, HA-R24, HA-5.70, HA-R22, HA-R5, HA-8.2
    state = at("Qa1:3/0,qb2:3/0", holds="a1#b2,b2#a1")
    assert legal(state) == {"Qa1~", "pass"}
    released, _ = act(state, "Qa1~")
    assert legal(released) == {"pass"}
    assert clause(released, "Qa1#b2") == "HA-R28"
    passed, _ = act(released, "pass")
    assert field(passed, 2) == "1"


def test_win_by_capturing_every_enemy_base() -> None:
    """HA-8.1, HA-5.50, HA-R16: moving onto the last enemy Base wins at once."""
    state = at("Re6:9/6,ka1:9/18/6", bases="Wd2:36/72,Bd7:x,Be7:36/72")
    after, events = act(state, "Re6-e7")
    assert events[-1] == GameEnded(result="1-0", reason="bases", winners=[0])
    assert SPACEWAR_HA.to_act(after) == frozenset()
    assert refuse(after, "Re7-e6", 0).code is ErrorCode.GAME_ENDED


def test_the_opponent_wins_even_if_the_loser_captured() -> None:
    """HA-R18, HA-8.1: Black's Tractor pulls a White piece onto Black's last Base: White wins."""
    state = at("Rd6:9/6,qd8:3/9", bases="Wd2:36/72,Bd7:36/72,Be7:x", side="b")
    _after, events = act(state, "Qd8>d6<")
    assert events[-1] == GameEnded(result="1-0", reason="bases", winners=[0])


def test_turn_limit() -> None:
    """HA-8.4, HA-0.3 `turn_limit`: drawn once both players completed that many turns."""
    state = new(variant="turn_limit=1")
    state, events = act(state, "Nb1-c3")
    assert SPACEWAR_HA.outcome(state) is None
    state, events = act(state, "Nb8-c6")
    assert events[-1] == GameEnded(result="1/2-1/2", reason="turn limit")


def test_resign_and_agreed_draw() -> None:
    """HA-8.3: resignation loses; a draw may be agreed; acting declines an offer."""
    _state, events = act(new(), "resign", 1)
    assert events[-1] == GameEnded(result="1-0", reason="resignation", winners=[0])
    offered, _ = act(new(), "offer-draw")
    assert clause(offered, "offer-draw", 1) == "HA-4.1"  # on one's own turn only
    _drawn, events = act(offered, "accept-draw", 1)
    assert events[-1] == GameEnded(result="1/2-1/2", reason="agreement")
    moved, _ = act(offered, "Nb1-c3", 0)
    declined, events = act(moved, "Nb8-c6", 1)
    assert events[0] == DrawDeclined(seat=1)
    assert clause(declined, "accept-draw", 0) == "HA-8.3"


def test_no_randomness_no_hidden_information() -> None:
    """HA-6.1, HA-7.1: nothing is drawn; every event and value is visible to all."""
    assert not SPACEWAR_HA.create("").randomness
    state = new()
    _, events = act(state, "Nb1-c3")
    assert all(SPACEWAR_HA.visible(e, 1) == e for e in events)


def test_a_finished_position_loads_for_analysis_but_starts_no_game() -> None:
    """`create` refuses a position whose Bases are all captured (the game would be over); `start`
    loads it as chess tools load a mate, with its result and nothing to act."""
    # HA-8.1
    text = "b 3 0 ka1:9/18/6,Re7:9/6 Wd2:36/72,Bd7:x,Be7:x -"
    with pytest.raises(VariantError, match="Bases are all captured"):
        SPACEWAR_HA.create("", text)
    state = SPACEWAR_HA.start(GameCreated(ruleset="spacewar-ha", seats=2, position=text))
    assert SPACEWAR_HA.outcome(state) == win(0, "bases")
    assert SPACEWAR_HA.to_act(state) == frozenset()
    assert SPACEWAR_HA.legal_actions(state, 1) == []
    assert SPACEWAR_HA.position(state) == text
