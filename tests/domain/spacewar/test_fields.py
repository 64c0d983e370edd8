"""Force fields and movement (SW-5.30–SW-5.36): blocking, immobilizing, neutralizing."""

from domain.spacewar.fields import clear, hostile
from tests.domain.spacewar.helpers import act, at, legal, piece, refuse, sq

BK = "Kb11,Ko11"
WK = "Kb2,Ko2"


def test_a3_blocking_by_an_immobilizer() -> None:
    # SW-A A3, SW-5.35(b), SW-R17: a piece may stop in a field but not pass through it
    state = at(WK + ",Ne5", BK + ",Re9,Nc9", p=5, a="b")
    assert "Re9-e7" in legal(state)
    assert refuse(state, "Re9-e6").clause == "SW-5.35"
    # SW-5.33, SW-R18: an anchored Immobilizer neutralizes it
    assert "Re9-e6;A:c9" in legal(state)
    state, _ = act(state, "Re9-e6;A:c9")
    anchored = piece(state, "c9")
    assert anchored
    assert anchored.anchored
    # SW-5.33: an anchored ship cannot move in this phase, nor count for the group rule
    assert refuse(state, "Nc9-d7").clause == "SW-5.3"


def test_a3_immobilized_start() -> None:
    # SW-A A3, SW-5.35(a): a ship starting in an Immobilizer field cannot move without an anchor
    state = at(WK + ",Ne5", BK + ",Re6,Nc8", p=5, a="b")
    assert refuse(state, "Re6-f6").clause == "SW-5.35"
    assert "Re6-f6;A:c8" in legal(state)


def test_destination_may_be_in_any_field() -> None:
    # SW-5.35 (c): the destination may lie in any field
    state = at(WK + ",De5", BK + ",Re9", p=5, a="b")
    assert "Re9-e8" in legal(state)
    assert refuse(state, "Re9-e7").clause == "SW-5.35"


def test_fields_cover_their_range_and_affect_enemies_only() -> None:
    # SW-5.30, SW-5.31, SW-R15: always on, whichever side is up; only enemies
    state = at(WK + ",De5s,Ni5", BK)
    assert hostile(state.board, state.config, sq("e8"), 1) == [sq("e5")]
    assert hostile(state.board, state.config, sq("k7"), 1) == [sq("i5")]
    assert hostile(state.board, state.config, sq("e8"), 0) == []


def test_matching_types_neutralize() -> None:
    # SW-5.32: Pressor neutralizes Tractor, Tractor neutralizes Pressor, Immobilizer Immobilizer
    state = at(WK + ",De5", BK + ",Ec9,Dj9,Re9", p=5, a="b")
    assert "Re9-e6;A:c9" in legal(state)
    assert not any(m.startswith("Re9-e6;A:j9") for m in legal(state))


def test_distinct_neutralizers_for_distinct_generators() -> None:
    # SW-5.34: each hostile generator needs its own neutralizer
    state = at(WK + ",Dd5,Df5", BK + ",Ec9,Re9,Eg9", p=5, a="b")
    moves = legal(state)
    assert "Re9-e6;A:c9,g9" in moves
    assert refuse(state, "Re9-e6;A:c9").clause == "SW-5.35"
    board, config = state.board, state.config
    assert not clear(board, config, sq("e7"), 1, [sq("c9")])
    assert clear(board, config, sq("e7"), 1, [sq("c9"), sq("g9")])


def test_neutralizer_reaches_the_square_or_the_generator() -> None:
    # SW-5.34: within range of the square or of the generator
    state = at(WK + ",Ne5", BK + ",Nh5,Re9", p=5, a="b")  # h5 is 3 from e5... out of range 2
    assert refuse(state, "Re9-e6;A:h5").clause == "SW-5.35"
    near = at(WK + ",Ne5", BK + ",Ng4,Re9", p=5, a="b")  # g4 is 2 from e5
    assert "Re9-e6;A:g4" in legal(near)


def test_anchors_are_eligible_ships_only() -> None:
    # SW-5.33, SW-R44: anchors are unmoved generators of the mover, not the mover
    state = at(WK + ",Ne5", BK + ",Rc9,Re9,Nh9", p=5, a="b", moved="-")
    assert refuse(state, "Re9-e6;A:c9").clause == "SW-5.33"
    assert refuse(state, "Nh9-g7;A:h9").clause == "SW-5.33"
    state, _ = act(state, "Nh9-f8")
    assert refuse(state, "Re9-e6;A:f8").clause in ("SW-5.33", "SW-5.2")


def test_anchors_do_not_count_for_the_group_rule() -> None:
    # SW-5.2, SW-5.33: anchored ships do not count
    state = at(WK + ",Ne5", BK + ",Re9,Nc9,Ra9", p=5, a="b")
    state, _ = act(state, "Re9-e6;A:c9")
    assert "Ra9-a8" in legal(state)


def test_no_further_move_allowing_anchors() -> None:
    # SW-R57: judged allowing every anchor the player could still name
    state = at(WK + ",Ne5", BK + ",Re6,Nc8,Rp9", p=5, a="b")
    state, _ = act(state, "Rp9-p8")
    assert state.phase == 5
    assert "Re6-f6;A:c8" in legal(state)


def test_fields_do_not_restrict_force_combat_or_placement() -> None:
    # SW-5.36: field attacks, capture placement, missile pick-up, replacements ignore fields
    state = at(WK + ",Ne4", BK + ",Rd6,Ne8", moved="-")
    state, _ = act(state, "Kb2-c3")
    assert piece(state, "c3")
    capture = at("Kd4,Ko2", BK + ",Rd5,Nd7")
    assert "Kd4xd5=d6" in legal(capture)


def test_anchors_are_named_only_with_a_ship_move() -> None:
    # SW-R44, SW-5.33: never with END
    state = at(WK + ",Ne5", BK + ",Re9,Nc9", p=5, a="b")
    state, _ = act(state, "Re9-e7")
    rejection = refuse(state, "END;A:c9")
    assert rejection.code.value == "action/malformed"
    assert rejection.clause == "SW-1.5"


def test_a_move_may_name_more_anchors_than_it_needs() -> None:
    # SW-R44, SW-5.33: any set of eligible new anchors, needed or not
    state = at(WK + ",Dc5", BK)
    state, _ = act(state, "Kb2-b3;A:c5")
    assert piece(state, "b3")
    assert piece(state, "c5").anchored  # type: ignore[union-attr]
    # one Immobilizer field needs only the anchor at c9; g9 is accepted as well
    state = at(WK + ",Ne5", BK + ",Re9,Nc9,Eg9", p=5, a="b")
    state, _ = act(state, "Re9-e6;A:c9,g9")
    assert piece(state, "e6")
    assert piece(state, "c9").anchored  # type: ignore[union-attr]
    assert piece(state, "g9").anchored  # type: ignore[union-attr]


def test_a_ship_captured_by_the_move_is_not_its_anchor() -> None:
    # SW-R44, SW-5.33, SW-5.21: the captured ship cannot anchor the move that captures it
    state = at("Kd4,Ko2", BK + ",Rd5,Nd7")
    assert refuse(state, "Kd4xd5=d6;A:d5").clause == "SW-5.33"
    tractor = at("Kd4,Ko2", BK + ",Dd5")
    assert refuse(tractor, "Kd4xd5=d6;A:d5").clause == "SW-5.33"
    assert refuse(tractor, "Kd4xd5=d6;A:d6").clause == "SW-5.33"
    tractor, _ = act(tractor, "Kd4xd5=d6")
    captured = piece(tractor, "d6")
    assert captured
    assert (captured.owner, captured.kind, captured.anchored) == (0, "D", False)
