"""Force combat (SW-5.40–SW-5.47): beams, counter beams, field attacks and responses."""

from typing import Any

from domain.spacewar import SPACEWAR, State
from domain.spacewar.combat import field_destinations
from tests.domain.spacewar.helpers import act, at, legal, piece, play, refuse, sq

WK = "Kb2,Ko2"
BK = "Kb11,Ko11"


def combat(white: str, black: str, a: str = "w", variant: str = "", **kw: Any) -> State:
    return at(WK + "," + white, BK + "," + black, variant, p=4, s="combat", a=a, **kw)


def test_a2_field_destinations() -> None:
    # SW-A A2, SW-5.44, SW-R24: closer and farther squares
    state = at(WK + ",De5,Ec3", BK + ",Rg6,Re8,Ra5")

    def names(squares: list[int | None]) -> list[str]:
        return sorted(
            "off" if s is None else f"{'abcdefghijklmnop'[s % 16]}{s // 16 + 1}" for s in squares
        )

    assert names(field_destinations(state.board, sq("e5"), sq("g6"))) == ["f5", "f6", "g5"]
    assert names(field_destinations(state.board, sq("e5"), sq("e8"))) == ["d7", "e7", "f7"]
    push = at(WK + ",Ee5,Eb5", BK + ",Rg6,Re8,Ra5")
    assert names(field_destinations(push.board, sq("e5"), sq("g6"))) == ["g7", "h6", "h7"]
    assert names(field_destinations(push.board, sq("e5"), sq("e8"))) == ["d9", "e9", "f9"]
    # SW-R48: every farther square is off the board: the push destroys the target
    assert field_destinations(push.board, sq("b5"), sq("a5")) == [None]


def test_beam_hits_and_two_types_destroy() -> None:
    # SW-5.41, SW-R20, SW-R47: a hit gets the next id; two different uncancelled types destroy
    state = combat("De5,Ne4", "Rg6,Ng8", variant="auto_pass=false")
    state, _ = act(state, "B e5>g6")
    assert [(h.id, h.kind) for h in state.hits] == [(1, "D")]
    assert piece(state, "e5").small  # type: ignore[union-attr]  # SW-4.2: power used
    state = play(state, "pass")
    state, _ = act(state, "B e4>g6")
    assert piece(state, "g6") is None
    assert state.hits == ()


def test_same_type_twice_does_not_destroy() -> None:
    # SW-R47: a beam may hit a piece that bears a hit of the same type
    state = combat("De5,Dd4", "Rg6,Ng8", variant="auto_pass=false")
    state = play(state, "B e5>g6", "pass", "B d4>g6")
    assert piece(state, "g6")
    assert [h.id for h in state.hits] == [1, 2]


def test_beam_range_and_targets() -> None:
    # SW-5.41: within the firer's range; an enemy piece only; SW-5.40: generators only
    state = combat("Ne5,Ra4", "Rh5,Rg7,Ng9")
    assert refuse(state, "B e5>h5").clause == "SW-5.41"
    assert refuse(state, "B e5>b2").clause == "SW-5.41"
    assert refuse(state, "B a4>a5").clause == "SW-5.40"
    assert "B e5>g7" in legal(state)


def test_small_ships_have_no_power() -> None:
    # SW-4.2, SW-5.40
    state = combat("De5,Nd4s", "Rg6,Ng8")
    assert refuse(state, "B d4>e6").clause == "SW-4.2"


def test_counter_beam_cancels_a_standing_hit() -> None:
    # SW-5.42, SW-R21, SW-R55: a counter within range of the firer or of the hit piece
    state = combat("Ee5,Dc3", "Ng6,Dg8", a="b")
    state = play(state, "B g6>e5")
    assert "C c3:h1" in legal(state)
    state, _ = act(state, "C c3:h1")
    assert state.hits[0].cancelled
    state = play(state, "B g8>e5")  # SW-5.41: only uncancelled types count
    assert piece(state, "e5")


def test_counter_beam_must_reach_and_hit_must_stand() -> None:
    # SW-5.42
    state = combat("Ee5,Dc1", "Ng6,Dg8", a="b")
    state = play(state, "B g6>e5")
    assert refuse(state, "C c1:h1").clause == "SW-5.42"
    assert refuse(state, "C c1:h7").clause == "SW-5.42"


def test_field_attack_moves_the_target_and_opens_the_window() -> None:
    # SW-5.44, SW-5.45, SW-R26: the response puts the piece back, hits stay
    state = combat("De5", "Rg6,Eh8,Ng9", a="w")
    state, _ = act(state, "F e5>g6>f5")
    assert piece(state, "f5")
    assert piece(state, "g6") is None
    assert state.window
    assert state.window.origin == sq("g6")
    assert "FR h8" in legal(state)
    state, _ = act(state, "FR h8")
    assert piece(state, "g6")
    assert piece(state, "f5") is None
    assert state.window is None


def test_field_response_rules() -> None:
    # SW-5.45, SW-R26, SW-R54: the right type, within range, only immediately
    state = combat("De5,Ne3", "Rg6,Dh8,Ek12,Ng7", a="w")
    state, _ = act(state, "F e5>g6>f5")
    assert refuse(state, "FR h8").clause == "SW-5.45"  # a Tractor cannot answer a pull
    assert refuse(state, "FR k12").clause == "SW-R26"  # out of range
    state = play(state, "B g7>e5")  # SW-R54: any action closes the window
    state = play(state, "pass")
    assert refuse(state, "FR k12").clause == "SW-5.45"


def test_a_ship_answering_the_attack_on_itself_turns_small() -> None:
    """The moved piece may be the one that answers (SW-5.45 excludes nothing); like every
    responder it is then small side up (SW-4.2) and has no power left this phase."""
    # SW-5.45, SW-4.2, SW-R14
    manual = "auto_pass=false"  # the phase stays open to be looked at
    pulled = at("Ka1,Ee5", "Kp12,Dh5", manual, p=2, s="combat", a="b")
    pulled = play(pulled, "F h5>e5>f5", "FR f5")
    moved_back = piece(pulled, "e5")
    assert moved_back is not None
    assert (moved_back.kind, moved_back.small) == ("E", True)
    assert piece(pulled, "f5") is None
    assert not any(a.startswith(("B e5>", "F e5>")) for a in legal(pulled))
    pushed = at("Ka1,De5", "Kp12,Eh8", manual, p=2, s="combat", a="b")
    pushed = play(pushed, "F h8>e5>d4", "FR d4")
    moved_back = piece(pushed, "e5")
    assert moved_back is not None
    assert (moved_back.kind, moved_back.small) == ("D", True)
    assert not any(a.startswith(("B e5>", "F e5>")) for a in legal(pushed))


def test_push_off_the_board_destroys() -> None:
    # SW-R48, SW-5.44: a push off the board destroys the piece; a missile so removed is replaced
    state = combat("Eb5,Ed10", "Ra5,Pc12f,Ng11", variant="auto_pass=false")
    state, _ = act(state, "F b5>a5>off")
    assert piece(state, "a5") is None
    assert state.window is None
    state = play(state, "pass")
    state, _events = act(state, "F d10>c12>off")
    assert state.pending == (0, 1)  # SW-R34, SW-R51: placed at the end of the phase


def test_pull_never_leaves_the_board_and_needs_a_destination() -> None:
    # SW-R25, SW-5.44: empty squares only; no destination: illegal
    state = combat("Dc5", "Ra5,Pb4,Pb5,Pb6,Ng9")
    assert refuse(state, "F c5>a5>b5").clause == "SW-5.44"
    assert refuse(state, "F c5>a5>off").clause == "SW-5.44"


def test_field_attack_wrong_type() -> None:
    # SW-5.40, SW-R23: Tractors pull, Pressors push; an Immobilizer has no field attack
    state = combat("Ne5,De4", "Rg6,Ng9")
    assert refuse(state, "F e5>g6>f5").clause == "SW-5.40"
    assert refuse(state, "F e4>g6>h7").clause == "SW-R25"


def test_several_attacks_on_one_piece() -> None:
    # SW-5.47: a piece may be hit and moved any number of times
    state = combat("De5,Df4", "Rh6,Ng9,Nn11", variant="auto_pass=false")
    state = play(state, "F e5>h6>g6", "pass", "F f4>g6>g5")
    assert piece(state, "g5")


def test_two_passes_end_force_combat() -> None:
    # SW-4.3, SW-R28, SW-5.46: strict alternation, a pass is an action, two in a row end it
    state = combat("De5", "Ng6", variant="auto_pass=false")
    state = play(state, "pass")
    assert state.actor == 1
    assert state.phase == 4
    state = play(state, "B g6>e5")
    assert state.passes == 0
    state, events = act(state, "pass")
    assert state.phase == 4
    state, events = act(state, "pass")
    assert state.phase == 5
    assert any(type(e).__name__ == "StepBegan" for e in events)


def test_hits_clear_at_the_end_of_a_combat_phase() -> None:
    # SW-5.43, SW-R22: beam_hits_reset = phase
    state = combat("De5", "Ng6", variant="auto_pass=false")
    state = play(state, "B e5>g6", "pass", "pass")
    assert state.hits == ()
    assert state.phase == 5


def test_hits_last_the_half_turn_with_half_turn_reset() -> None:
    # SW-5.43: with half_turn they last until the start of phase 1 or 5
    state = at(
        WK + ",De5",
        BK + ",Ng6",
        "auto_pass=false+beam_hits_reset=half_turn",
        p=2,
        s="combat",
        a="b",
    )
    state = play(state, "pass", "B e5>g6", "pass", "pass")
    assert state.phase == 3
    assert len(state.hits) == 1


def test_auto_pass_records_forced_passes() -> None:
    # SW-4.5, SW-R53: the engine passes for a player whose only legal action is a pass
    # Black's Gunboat takes no part (SW-5.40): Black can only pass, and so can White once its
    # Tractor has fired; two passes end the phase, and the engine records it all.
    state, events = act(combat("De5", "Rg6"), "B e5>g6")
    assert [(type(e).__name__, getattr(e, "seat", None)) for e in events] == [
        ("ActionPlayed", 0),
        ("AutoPassed", 1),
        ("AutoPassed", 0),
        ("StepBegan", None),
    ]
    assert (state.phase, state.step, state.actor) == (5, "move", 1)
    # with auto_pass off the engine asks instead (SW-0.3)
    state, events = act(combat("De5", "Rg6", variant="auto_pass=false"), "B e5>g6")
    assert len(events) == 1
    assert (state.actor, legal(state)) == (1, {"pass"})


def test_motherships_and_gunboats_take_no_part() -> None:
    # SW-5.40
    state = combat("De5", "Ng6")
    assert refuse(state, "B b2>b11").clause == "SW-5.40"


def test_force_combat_actions_only_in_combat() -> None:
    # SW-5.40, SW-R36, SW-R37: play is by the alternation of SW-4.3, not real time
    state = at(WK + ",De5", BK + ",Ng6")
    assert refuse(state, "B e5>g6").clause == "SW-5.40"


def test_every_power_turns_the_ship_small() -> None:
    # SW-R14: beam, counter beam, field attack, field response and launch are powers
    state = combat("De5,Ec3,Dd2", "Ng6,Eh8,Nf6", variant="auto_pass=false")
    state = play(state, "F e5>g6>f5")  # field attack
    assert piece(state, "e5").small  # type: ignore[union-attr]
    state = play(state, "FR h8")  # field response
    assert piece(state, "h8").small  # type: ignore[union-attr]
    state = play(state, "B c3>f6")  # beam
    state = play(state, "B f6>e5")
    state = play(state, "C d2:h2")  # counter beam
    assert all(piece(state, s).small for s in ("c3", "f6", "d2"))  # type: ignore[union-attr]


def test_an_unprotected_piece_is_moved_one_square() -> None:
    # SW-R27: protection means only a field response; without one the piece stays moved
    state = combat("De5", "Rg6,Ng9", variant="auto_pass=false")
    state = play(state, "F e5>g6>f5", "pass")
    assert piece(state, "f5")
    assert state.window is None


def test_a_destroying_beam_takes_a_hit_id() -> None:
    # SW-R47, SW-5.41: after h1-h3 the destroying beam takes h4; the next id is 5
    state = combat("De5,Dd4,Df4,Ee4", "Rg6,Ng8", variant="auto_pass=false")
    state = play(state, "B e5>g6", "pass", "B d4>g6", "pass", "B f4>g6", "pass")
    assert [(h.id, h.kind) for h in state.hits] == [(1, "D"), (2, "D"), (3, "D")]
    assert state.next_hit == 4
    state, _ = act(state, "B e4>g6")
    assert piece(state, "g6") is None
    assert state.hits == ()
    assert state.next_hit == 5
    assert "hit=5" in SPACEWAR.position(state).split()


def test_push_off_the_board_beside_an_on_board_farther_square() -> None:
    # SW-R48, SW-5.44, SW-R24: some farther squares are off the board: `off` is one action
    state = combat("Eb6", "Ra5,Ng9")
    assert {m for m in legal(state) if m.startswith("F b6>a5")} == {
        "F b6>a5>a4",
        "F b6>a5>off",
    }
    # SW-R25: with the on-board farther square occupied only `off` remains
    occupied = combat("Eb6", "Ra5,Ra4,Ng9")
    assert {m for m in legal(occupied) if m.startswith("F b6>a5")} == {"F b6>a5>off"}
    assert refuse(occupied, "F b6>a5>a4").clause == "SW-R25"
    state, _ = act(occupied, "F b6>a5>off")
    assert piece(state, "a5") is None


def test_a_pull_never_goes_off_the_board() -> None:
    # SW-R25, SW-R48, SW-5.44: `off` is for pushes only
    state = combat("Db6", "Ra5,Ng9")
    assert {m for m in legal(state) if m.startswith("F b6>a5")} == {"F b6>a5>a6", "F b6>a5>b5"}
    assert refuse(state, "F b6>a5>off").clause == "SW-R25"
    edge = combat("Dc5", "Ra5,Ng9")
    assert not any(m.endswith(">off") for m in legal(edge))
    assert refuse(edge, "F c5>a5>off").clause == "SW-R25"


def test_an_older_hit_can_still_be_countered() -> None:
    # SW-R55, SW-5.42: any standing hit on the player's pieces, at any of its actions
    state = combat("Ee5,Dc3", "Ng6,Ng7,Nf7", a="b", variant="auto_pass=false")
    state = play(state, "B g6>e5", "pass", "B g7>e5", "pass", "B f7>e5")
    assert [h.id for h in state.hits] == [1, 2, 3]
    assert "C c3:h1" in legal(state)
    state, _ = act(state, "C c3:h1")
    assert [(h.id, h.cancelled) for h in state.hits] == [(1, True), (2, False), (3, False)]
    assert piece(state, "e5")
