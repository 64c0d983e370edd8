"""The Medic and the Bases: repair, supply, resupply (HA-5.40–HA-5.42, HA-5.50, HA-5.60,
HA-R15, HA-R17, HA-R19, HA-R25, HA-R27)."""

from contracts.spacewar_ha import ActionPlayed, Resupplied
from tests.domain.spacewar_ha.helpers import act, at, clause, field, legal_from, pieces


def test_repair_by_chosen_amounts_up_to_the_missing() -> None:
    """HA-5.40, HA-5.42, HA-R19, HA-R25: each amount its own action, at most the missing
    Health with `cap_at_start`; self-repair is written Ke1+e1(h2)."""
    state = at("Ke1:7/18/6,Rd1:6/6,Rf1:9/6,ka8:9/18/6")
    repairs = {t for t in legal_from(state, "e1") if "+" in t}
    assert repairs == {"Ke1+e1(h1)", "Ke1+e1(h2)", "Ke1+d1(h1)", "Ke1+d1(h2)", "Ke1+d1(h3)"}
    after, _ = act(state, "Ke1+d1(h3)")
    assert pieces(after).startswith("Rd1:9/6,Ke1:7/15/6")
    healed, _ = act(state, "Ke1+e1(h2)")
    assert "Ke1:9/16/6" in pieces(healed)
    assert clause(state, "Ke1+d1(h4)") == "HA-5.40"
    assert clause(state, "Ke1+f1(h1)") == "HA-5.40"  # full: no repair
    assert clause(state, "Ke1+e1(h0)") == "HA-5.40"


def test_no_cap_lets_values_exceed_their_start() -> None:
    """HA-0.3 `cap_at_start`, HA-5.40, HA-5.41: without it any amount up to the pool."""
    state = at("Ke1:9/3/2,Rd1:9/6", variant="cap_at_start=false")
    assert {t for t in legal_from(state, "e1") if "+" in t} == {
        "Ke1+e1(h1)", "Ke1+e1(h2)", "Ke1+e1(h3)", "Ke1+d1(h1)", "Ke1+d1(h2)", "Ke1+d1(h3)",
        "Ke1+d1(a1)", "Ke1+d1(a2)"}  # fmt: skip
    after, _ = act(state, "Ke1+d1(a2)")
    assert pieces(after).startswith("Rd1:9/8")


def test_supply() -> None:
    """HA-5.41, HA-1.4: Supply raises an adjacent friendly firer's or Tractor's Ammo; a Medic
    has no Ammo; capped at the start."""
    state = at("Ke1:9/18/6,Rd1:9/2,Kf1:9/0/0,Qe2:3/9")
    after, _ = act(state, "Ke1+d1(a4)")
    assert pieces(after).startswith("Rd1:9/6,Ke1:9/18/2")
    assert clause(state, "Ke1+d1(a5)") == "HA-5.41"
    assert clause(state, "Ke1+f1(a1)") == "HA-5.41"
    assert clause(state, "Ke1+e2(a1)") == "HA-5.41"  # full Ammo
    assert clause(state, "Ke1+e1(a1)") == "HA-5.41"  # itself: no Ammo


def test_targets_are_self_or_adjacent_friends() -> None:
    """HA-R15: not a distant piece, not an enemy; only the Medic repairs (HA-5.40)."""
    state = at("Ke1:9/18/6,Rc1:5/2,rf1:5/6,Rd1:9/0")
    assert clause(state, "Ke1+c1(h1)") == "HA-R15"
    assert clause(state, "Ke1+f1(h1)") == "HA-R15"
    assert clause(state, "Rd1+c1(h1)") == "HA-5.40"
    assert clause(state, "Rd1+c1(a1)") == "HA-5.41"


def test_resupply_at_the_start_of_the_owners_turn() -> None:
    """HA-5.60, HA-R17, HA-R27, HA-5.50: Black moves; White's turn starts with its Medic on its
    own Base d2 topped up to 18 and 6 from the Base's pools, recorded as an event before White
    decides."""
    state = at("Kd2:9/10/1,ra8:9/6", side="b")
    after, events = act(state, "Ra8-a7")
    assert events == (ActionPlayed(seat=1, action="Ra8-a7"),
                      Resupplied(seat=0, medic="d2", repair=8, supply=5))  # fmt: skip
    assert pieces(after).startswith("Kd2:9/18/6")
    assert field(after, 4) == "Wd2:28/67,We2:36/72,Bd7:36/72,Be7:36/72"


def test_resupply_as_far_as_the_pools_last() -> None:
    """HA-5.60: a Base gives what it has left; a captured Base gives nothing."""
    state = at("Kd2:9/10/1,ra8:9/6", bases="Wd2:3/0,We2:36/72,Bd7:36/72", side="b")
    after, _ = act(state, "Ra8-a7")
    assert pieces(after).startswith("Kd2:9/13/1")
    assert field(after, 4).startswith("Wd2:0/0")
    empty = at("Ke2:9/10/1,ra8:9/6", bases="Wd2:36/72,We2:x,Bd7:36/72", side="b")
    _, events = act(empty, "Ra8-a7")
    assert len(events) == 1


def test_no_resupply_on_an_enemy_base_or_for_the_other_side() -> None:
    """HA-5.60: only the owner's Medic, only at the start of its own turn."""
    state = at("Kd7:9/10/1,ra8:9/6", bases="Wd2:36/72,Bd7:x,Be7:36/72", side="b")
    _, events = act(state, "Ra8-a7")
    assert len(events) == 1
    mine = at("Kd2:9/10/1,ra8:9/6")
    _, events = act(mine, "Kd2-c2")
    assert len(events) == 1
