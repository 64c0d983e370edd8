"""Moving and crashing (HA-1.2, HA-1.4, HA-5.1–HA-5.6, HA-5.30, HA-5.31, HA-R10, HA-R11,
HA-R14), with legal-action lists derived by hand."""

from contracts.spacewar_ha import ActionPlayed
from tests.domain.spacewar_ha.helpers import act, at, clause, field, legal, legal_from, pieces


def test_tractor_and_defender_moves_by_hand() -> None:
    """HA-5.2, HA-5.3, HA-1.2, HA-5.1: the Tractor on d4 (no Ammo) steps 1 or 2 in 8
    directions, not through or onto its Defender on d5, and crashes into the Scout on f6; the
    Defender moves orthogonally, onto the empty Black Base d7 too (a Base never blocks)."""
    state = at("Qd4:3/0,Rd5:9/0,nf6:3/3")
    assert legal_from(state, "d4") == {
        "Qd4-d3", "Qd4-d2", "Qd4-e4", "Qd4-f4", "Qd4-c4", "Qd4-b4", "Qd4-e5", "Qd4xf6",
        "Qd4-c5", "Qd4-b6", "Qd4-e3", "Qd4-f2", "Qd4-c3", "Qd4-b2"}  # fmt: skip
    assert legal_from(state, "d5") == {"Rd5-d6", "Rd5-d7", "Rd5-e5", "Rd5-f5", "Rd5-c5",
                                       "Rd5-b5"}  # fmt: skip
    assert len(legal(state)) == 20


def test_scout_leaps() -> None:
    """HA-5.4, HA-R7: a knight's leap over anything, never onto a friend (HA-R11)."""
    state = at("Nb1:3/0,Rb2:9/0,Rc2:9/0,Rd2:9/0")
    assert legal_from(state, "b1") == {"Nb1-a3", "Nb1-c3"}
    assert clause(state, "Nb1-d2") == "HA-R11"
    assert clause(state, "Nb1-b3") == "HA-5.4"


def test_shooter_moves_diagonally_without_jumping() -> None:
    """HA-5.5, HA-5.1: 1 or 2 squares diagonally, not past a piece."""
    state = at("Bc1:6/0,Nd2:3/0")
    assert legal_from(state, "c1") == {"Bc1-b2", "Bc1-a3"}
    assert clause(state, "Bc1-e3") == "HA-5.5"
    assert clause(state, "Bc1-c3") == "HA-5.5"


def test_medic_does_not_jump_unless_configured() -> None:
    """HA-5.6, HA-R14, HA-0.3 `medic_can_jump`."""
    pieces_text = "Ke1:9/18/6,Re2:9/0"
    state = at(pieces_text)
    moves = {t for t in legal_from(state, "e1") if "-" in t}
    assert moves == {"Ke1-d1", "Ke1-c1", "Ke1-f1", "Ke1-g1", "Ke1-d2", "Ke1-c3", "Ke1-f2",
                     "Ke1-g3"}  # fmt: skip
    assert clause(state, "Ke1-e3") == "HA-R14"
    jumping = at(pieces_text, variant="medic_can_jump=true")
    assert "Ke1-e3" in legal(jumping)


def test_immobilised_piece_cannot_move() -> None:
    """HA-5.21: a held piece has no moves, but may still fire."""
    state = at("Rd4:9/6,qd5:3/9", side="b", holds="d5#d4")
    assert clause(state, "Rd4-c4", 0) == "HA-4.1"  # Black to act
    white = at("Rd4:9/6,qe5:3/9", holds="e5#d4")
    assert clause(white, "Rd4-c4") == "HA-5.21"
    assert not any("-" in t or "x" in t for t in legal_from(white, "d4"))
    assert "Rd4*d7(1)" in legal(white)


def test_crash_mover_stronger() -> None:
    """HA-5.30, HA-1.4: hM > hT: T captured, M loses hT and takes the square."""
    state, events = act(at("Rd4:9/0,nd6:3/3"), "Rd4xd6")
    assert events[0] == ActionPlayed(seat=0, action="Rd4xd6")
    assert pieces(state) == "Rd6:6/0"


def test_crash_mover_weaker() -> None:
    """HA-5.30: hM < hT: M captured, T loses hM and stays."""
    state, _ = act(at("Nb1:3/0,rc3:9/6"), "Nb1xc3")
    assert pieces(state) == "rc3:6/6"


def test_crash_equal_health_both_captured() -> None:
    """HA-5.30, HA-R10: equal Health: both captured, the square empty. The Shooter passes the
    empty Base d2, which never blocks (HA-5.50)."""
    state, _ = act(at("Bc1:6/0,be3:6/9,ka8:9/18/6"), "Bc1xe3")
    assert pieces(state) == "ka8:9/18/6"


def test_bases_are_never_crashed_into() -> None:
    """HA-5.31, HA-1.4: entering a Base is a move; x needs a piece; - onto an enemy is wrong."""
    state = at("Rd5:9/0,rf5:9/0")
    assert clause(state, "Rd5xd7") == "HA-5.31"
    assert clause(state, "Rd5-f5") == "HA-1.4"
    after, _ = act(state, "Rd5-d7")
    assert field(after, 4) == "Wd2:36/72,We2:36/72,Bd7:x,Be7:36/72"


def test_a_piece_on_a_base_can_be_crashed_into() -> None:
    """HA-5.31, HA-5.50: crashing into a piece on its own Base and winning captures the Base."""
    state, _ = act(at("Rd5:9/0,nd7:3/3"), "Rd5xd7")
    assert pieces(state) == "Rd7:6/0"
    assert "Bd7:x" in field(state, 4)


def test_no_voluntary_move_onto_a_friend() -> None:
    """HA-5.1, HA-R11: a friendly square is never chosen."""
    state = at("Qd4:3/0,Rd5:9/0")
    assert clause(state, "Qd4-d5") == "HA-R11"
    assert clause(state, "Qd4xd5") == "HA-R11"
    assert clause(state, "Qd4-d8") == "HA-5.2"  # 4 squares
    assert clause(state, "Rd5-e6") == "HA-5.3"
