"""Moving onto enemy pieces: ramming and capture (SW-5.20–SW-5.22)."""

from tests.domain.spacewar.helpers import act, at, legal, piece, refuse

BK = "Kb11,Ko11"


def test_mothership_captures_a_ship_and_places_it() -> None:
    # SW-5.21, SW-R10, SW-R45: the captured ship changes owner, placed next to the Mothership
    state = at("Kd4,Ko2", BK + ",Rd5", moved="-")
    assert refuse(state, "Kd4xd5").clause == "SW-5.21"
    assert "Kd4xd5=d4" in legal(state)  # SW-R45: the square it started from included
    state, _ = act(state, "Kd4xd5=e6")
    captured = piece(state, "e6")
    assert captured
    assert captured.owner == 0
    assert captured.kind == "R"
    assert not captured.moved
    # SW-5.21: it may be moved later in the phase, subject to the group rule (G4 after K)
    assert "Re6-e7" in legal(state)


def test_capture_placement_must_be_empty_and_adjacent() -> None:
    # SW-R45
    state = at("Kd4,Ko2,Re6", BK + ",Rd5")
    assert refuse(state, "Kd4xd5=e6").clause == "SW-R45"
    assert refuse(state, "Kd4xd5=d8").clause == "SW-R45"
    assert refuse(state, "Kd4-d3=d2").clause == "SW-5.21"


def test_mothership_onto_mothership_both_destroyed() -> None:
    # SW-5.20, SW-R39, SW-8.2: both lose their last Mothership at once: drawn
    state = at("Kd4", "Kd5")
    state, _events = act(state, "Kd4xd5")
    assert piece(state, "d5") is None
    assert piece(state, "d4") is None
    assert state.outcome
    assert state.outcome.result == "1/2-1/2"


def test_mothership_onto_missile_both_destroyed_not_replaced() -> None:
    # SW-5.20, SW-R10: a missile is not a ship; rammed missiles are not replaced
    state = at("Kd4,Ko2", BK + ",Pd5f")
    state, _ = act(state, "Kd4xd5")
    assert piece(state, "d5") is None
    assert state.pending == (0, 0)


def test_gunboat_destroys_and_stays() -> None:
    # SW-5.20: Gunboat onto a non-Gunboat ship or a missile: occupant destroyed, Gunboat stays
    state = at("Kb2,Rd4,Rh4", BK + ",Kd6,Ph6f")
    state, _ = act(state, "Rd4xd6")
    survivor = piece(state, "d6")
    assert survivor
    assert survivor.owner == 0
    assert survivor.kind == "R"
    state, _ = act(state, "Rh4xh6")
    assert piece(state, "h6")
    assert state.pending == (0, 0)


def test_gunboat_onto_gunboat_both_destroyed() -> None:
    # SW-5.20
    state = at("Kb2,Rd4", BK + ",Rd6")
    state, _ = act(state, "Rd4xd6")
    assert piece(state, "d6") is None
    assert piece(state, "d4") is None


def test_generators_ram_and_both_die() -> None:
    # SW-5.20, SW-5.22: destroyed pieces are removed at once
    state = at("Kb2,De4", BK + ",Pe6")
    state, _ = act(state, "De4xe6")
    assert piece(state, "e6") is None
    assert piece(state, "e4") is None


def test_x_marks_every_enemy_destination() -> None:
    # SW-R56: `x` exactly when the destination holds an enemy piece
    state = at("Kb2,De4", BK + ",Pe6")
    assert refuse(state, "De4-e6").clause == "SW-R56"
    assert refuse(state, "De4xe5").clause == "SW-R56"


def test_capture_with_no_empty_neighbour_removes_the_ship() -> None:
    # SW-R11 (hand-set positions only): a Mothership capturing with no placement is removed
    from domain.spacewar.actions import MoveShip
    from domain.spacewar.movement import apply_move
    from tests.domain.spacewar.helpers import sq

    state = at("Kd4,Ko2", BK + ",Rd5")
    after = apply_move(state, 0, MoveShip((sq("d4"), sq("d5"))))
    mover = piece(after, "d5")
    assert mover is not None
    assert mover.owner == 0
    assert sum(1 for p in after.board if p and p.kind == "R") == 0
