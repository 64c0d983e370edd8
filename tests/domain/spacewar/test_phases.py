"""The turn structure (SW-4), the automatic steps (SW-R53) and the end of the game (SW-8)."""

import pytest

from contracts.events import GameCreated, GameEnded
from contracts.spacewar import AutoPassed, StepBegan
from domain.core import VariantError
from domain.core.outcome import win
from domain.spacewar import SPACEWAR
from domain.spacewar.state import FIRST, phase_kind
from tests.domain.spacewar.helpers import act, at, new, play, refuse

WK = "Kb2,Ko2"
BK = "Kb11,Ko11"


def test_phase_table() -> None:
    # SW-4.1: 8 phases in order; who acts first
    kinds = [phase_kind(p) for p in range(1, 9)]
    assert kinds == ["movement", "force combat", "missile", "force combat"] * 2
    assert [FIRST[p] for p in range(1, 9)] == [0, 1, 0, 0, 1, 0, 1, 1]


def test_a_whole_turn_follows_the_table() -> None:
    # SW-4.1, SW-4.4, SW-R53: the engine records the phase ends in the same append
    state = new()
    state, events = act(state, "Rh2-h4")
    state, events = act(state, "END")
    began = [(e.phase, e.step) for e in events if isinstance(e, StepBegan)]
    assert began[0] == (2, "combat")
    assert any(isinstance(e, AutoPassed) for e in events)  # SW-4.5
    assert (state.phase, state.step) == (3, "launch")


def test_start_of_half_turn_refreshes_ships() -> None:
    # SW-4.2: at the start of phases 1 and 5 every ship turns large and flags clear
    state = at(WK + ",Dd4s,Ne3sa", BK + ",Ng6", "auto_pass=false", p=4, s="combat", a="w")
    state = play(state, "pass", "pass")
    assert state.phase == 5
    assert all(not p.small and not p.anchored for p in state.board if p)


def test_alternation_and_not_your_turn() -> None:
    # SW-4.3: strictly alternating, first actor first
    state = at(WK + ",De5", BK + ",Ng6", "auto_pass=false", p=2, s="combat", a="b")
    rejection = refuse(state, "B e5>g6", seat=0)
    assert rejection.clause == "SW-4.1"
    assert rejection.code.value == "action/not-your-turn"


def test_auto_pass_off_asks_the_player() -> None:
    # SW-4.5, SW-0.3 auto_pass
    state = at(WK + ",De5", BK + ",Ng6", "auto_pass=false", p=4, s="combat", a="w")
    state, events = act(state, "B e5>g6")
    assert state.actor == 1
    assert not any(isinstance(e, AutoPassed) for e in events)


def test_last_mothership_lost_ends_the_game() -> None:
    # SW-8.1, SW-4.6: checked after every action, capture or launch
    state = at("Kb2,Rd4", "Kd6")
    state, events = act(state, "Rd4xd6")
    assert state.outcome
    assert state.outcome.result == "1-0"
    assert isinstance(events[-1], GameEnded)
    assert refuse(state, "Kb2-b3", seat=0).code.value == "game/ended"


def test_beam_destroying_a_mothership() -> None:
    # SW-8.1: a Mothership may be destroyed by beams too
    state = at("Kb2,De5,Ne4", "Kg6,Ng9", "auto_pass=false", p=4, s="combat")
    state = play(state, "B e5>g6", "pass", "B e4>g6")
    assert state.outcome
    assert state.outcome.winners == (0,)


def test_simultaneous_loss_in_a_missile_substep_is_a_draw() -> None:
    # SW-8.2, SW-R39: both in one sub-step
    state = at("Kb2,Pe5f", "Ke6,Pb3f", "auto_pass=false", p=3, s="launch")
    state = play(state, "pass", "pass")
    assert state.outcome
    assert state.outcome.result == "1/2-1/2"
    # SW-4.6: checked after every sub-step: Black's loss in sub-step 1 comes first
    first = at("Kb2,Pe5f", "Ke6,Pb4f", "auto_pass=false", p=3, s="launch")
    first = play(first, "pass", "pass")
    assert first.outcome
    assert first.outcome.result == "1-0"


def test_turn_limit_draws() -> None:
    # SW-8.4, SW-0.3 turn_limit
    state = at(WK + ",De5", BK + ",Ng6", "auto_pass=false+turn_limit=1", p=8, s="combat", a="b")
    state = play(state, "pass", "pass")
    assert state.outcome
    assert state.outcome.reason == "turn limit"


def test_resign_and_draw_by_agreement() -> None:
    # SW-8.3
    state = new()
    resigned, _events = act(state, "resign", seat=1)
    assert resigned.outcome
    assert resigned.outcome.winners == (0,)
    offered, _ = act(state, "offer-draw", seat=0)
    drawn, _ = act(offered, "accept-draw", seat=1)
    assert drawn.outcome
    assert drawn.outcome.result == "1/2-1/2"


def test_no_other_ending() -> None:
    # SW-8.5: running out of moves or missiles is not a loss; SW-6.1: no randomness
    state = at("Kb2", "Kp12", "auto_pass=false", p=2, s="combat", a="b")
    state = play(state, "pass", "pass")
    assert state.outcome is None


def test_steps_that_only_go_round_end_as_a_dead_position() -> None:
    """Once no player can ever act again, the engine's own steps (SW-R53) would go round for
    ever: the game is drawn instead (SW-R58, v1.2, confirms the engine's decision). Here
    Black's Pressor pushes White's last generator off the board; nothing can move, fire or
    launch."""
    # SW-R58, SW-R53, SW-8.5
    state = new("t=1 p=4 s=combat a=w passes=0 moved=- hit=1 W=Ka1,Pa2,Pb1,Pb2,Da10 "
                "B=Kp12,Po12,Po11,Pp11,Ea12,Pb11 hits=- window=- pending=0,0")  # fmt: skip
    state = play(state, "pass")
    assert state.outcome is None
    state, events = act(state, "F a12>a10>off", seat=1)
    assert state.outcome
    assert (state.outcome.result, state.outcome.reason) == ("1/2-1/2", "dead position")
    assert isinstance(events[-1], GameEnded)
    assert any(isinstance(e, StepBegan) for e in events)  # the steps it took are recorded


def test_no_hidden_information() -> None:
    # SW-7.1: everyone sees everything
    from domain.spacewar import SPACEWAR

    state = new()
    assert SPACEWAR.view(state, 0) == SPACEWAR.view(state, None)
    event = StepBegan(turn=1, phase=2, step="combat")
    assert SPACEWAR.visible(event, 1) is event


def test_command_names() -> None:
    # SW-4.7: the commands exist as actions
    from domain.spacewar import actions

    for name in ("MoveShip", "EndMovement", "Beam", "Counter", "Field", "FieldResponse",
                 "Launch", "PlaceReplacement", "Pass"):  # fmt: skip
        assert hasattr(actions, name)


def test_a_finished_position_loads_for_analysis_but_starts_no_game() -> None:
    """`create` refuses a position without a Mothership (it is already over); `start` loads it
    as chess tools load a mate, with its result and nothing to act."""
    # SW-8.1
    text = ("t=1 p=4 s=combat a=w passes=0 moved=- hit=1 W=Ka1,Pa2 B=Pb11 hits=- window=- "
            "pending=0,0")  # fmt: skip
    with pytest.raises(VariantError, match="already over"):
        SPACEWAR.create("", text)
    state = SPACEWAR.start(GameCreated(ruleset="spacewar", seats=2, position=text))
    assert SPACEWAR.outcome(state) == win(0, "motherships")
    assert SPACEWAR.to_act(state) == frozenset()
    assert SPACEWAR.legal_actions(state, 0) == []
