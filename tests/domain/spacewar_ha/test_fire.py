"""Firing (HA-5.10–HA-5.12, HA-R6–HA-R9, HA-R25)."""

from tests.domain.spacewar_ha.helpers import act, at, clause, field, legal, legal_from, pieces


def test_fire_spends_the_chosen_amount() -> None:
    """HA-5.10, HA-1.4: the firer spends k Ammo (its player's choice), the target loses k."""
    state, _ = act(at("Rd1:9/6,rd5:9/6"), "Rd1*d5(3)")
    assert pieces(state) == "Rd1:9/3,rd5:6/6"


def test_amounts_out_of_range() -> None:
    """HA-5.10: 1 <= k <= Ammo."""
    state = at("Rd1:9/6,rd5:9/6")
    assert clause(state, "Rd1*d5(0)") == "HA-5.10"
    assert clause(state, "Rd1*d5(7)") == "HA-5.10"
    assert legal_from(state, "d1") >= {f"Rd1*d5({k})" for k in range(1, 7)}


def test_overkill_floors_at_zero_and_captures() -> None:
    """HA-R9, HA-5.10: more than the Health may be spent; at 0 the piece is captured."""
    state, _ = act(at("Rd1:9/6,nd5:3/3"), "Rd1*d5(6)")
    assert pieces(state) == "Rd1:9/0"


def test_first_piece_only_any_distance() -> None:
    """HA-5.11, HA-R6: along its lines at any distance, the first piece only."""
    state = at("Rd1:9/6,Rd3:9/0,rd6:9/6,rh1:9/6,ka4:9/18/6")
    assert clause(state, "Rd1*d6(1)") == "HA-R6"
    assert {t for t in legal_from(state, "d1") if "*" in t} == {
        f"Rd1*h1({k})" for k in range(1, 7)}  # fmt: skip


def test_shooter_fires_on_diagonals() -> None:
    """HA-5.11: a Shooter's lines are its 4 diagonals."""
    state = at("Bc1:6/2,rh6:9/6,ra3:9/6,rc5:9/6")
    assert {t for t in legal_from(state, "c1") if "*" in t} == {
        "Bc1*h6(1)", "Bc1*h6(2)", "Bc1*a3(1)", "Bc1*a3(2)"}  # fmt: skip
    assert clause(state, "Bc1*c5(1)") == "HA-R6"


def test_scout_fires_at_its_knight_squares() -> None:
    """HA-R7, HA-5.11: the Scout's knight squares, nothing blocks."""
    state = at("Nb1:3/1,Rb2:9/0,rc3:9/6,ra3:9/6,rb4:9/6")
    assert {t for t in legal_from(state, "b1") if "*" in t} == {"Nb1*a3(1)", "Nb1*c3(1)"}
    assert clause(state, "Nb1*b4(1)") == "HA-R7"


def test_only_enemies_are_targets() -> None:
    """HA-R8, HA-5.11: friendly pieces and own Bases are never targets."""
    state = at("Rd1:9/6,Rd3:9/6,ka8:9/18/6")
    assert clause(state, "Rd1*d3(1)") == "HA-R8"
    assert clause(state, "Rd3*d2(1)") == "HA-5.11"  # its own Base
    assert clause(state, "Rd3*b3(1)") == "HA-5.11"  # nothing there


def test_each_empty_enemy_base_before_the_first_piece_is_a_target() -> None:
    """HA-R25, HA-5.11: Bases d3 and d2 on the file, each a target, then the piece on d1; a
    captured Base never is."""
    bases = "Wd2:36/72,Wd3:36/72,Be7:36/72"
    state = at("Rd1:9/6,rd8:9/2", bases=bases, side="b")
    assert {t for t in legal(state) if "*" in t} == {
        "Rd8*d3(1)", "Rd8*d3(2)", "Rd8*d2(1)", "Rd8*d2(2)", "Rd8*d1(1)", "Rd8*d1(2)"}  # fmt: skip
    captured = at("Rd1:9/6,rd8:9/1", bases="Wd2:36/72,Wd3:x,Be7:36/72", side="b")
    assert {t for t in legal(captured) if "*" in t} == {"Rd8*d2(1)", "Rd8*d1(1)"}
    assert clause(captured, "Rd8*d3(1)") == "HA-R25"


def test_a_base_hit_by_one_is_captured() -> None:
    """HA-5.12, HA-5.50(b), HA-R16: any k >= 1 captures an empty Base, permanently."""
    state, _ = act(at("Rd1:9/6,Re1:9/6", bases="Wd2:36/72,Bd7:36/72,Be7:36/72"), "Re1*e7(1)")
    assert field(state, 4) == "Wd2:36/72,Bd7:36/72,Be7:x"
    assert pieces(state) == "Rd1:9/6,Re1:9/5"


def test_a_base_with_a_piece_on_it_is_not_a_target() -> None:
    """HA-5.11: an enemy Base with a piece on it: the piece is the target."""
    state = at("Rd1:9/6,nd7:3/3")
    assert {t for t in legal_from(state, "d1") if "*" in t} == {
        f"Rd1*d7({k})" for k in range(1, 7)}  # fmt: skip
    after, _ = act(state, "Rd1*d7(3)")
    assert "Bd7:36/72" in field(after, 4)  # fired upon, but not empty


def test_tractor_and_medic_do_not_fire() -> None:
    """HA-2.2: the Tractor cannot fire, the Medic has no Ammo."""
    state = at("Qd1:3/9,Ke1:9/18/6,rd5:9/6,re5:9/6")
    assert clause(state, "Qd1*d5(1)") == "HA-2.2"
    assert clause(state, "Ke1*e5(1)") == "HA-2.2"
    assert clause(state, "Rd1*d5(1)") == "HA-2.1"  # the piece on d1 is no Defender
