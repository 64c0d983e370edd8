"""Legal-action lists derived by hand for positions of each phase kind (and the listing's
rules: a movement phase lists the next single action, SW-1.5)."""

from tests.domain.spacewar.helpers import at, legal


def test_movement_lone_mothership_in_the_corner() -> None:
    # SW-5.10, SW-R46: from a1, 3 one-step paths, 4 + 4 + 7 two-step paths
    state = at("Ka1", "Kp12")
    assert legal(state) == {
        "Ka1-a2", "Ka1-b1", "Ka1-b2",
        "Ka1-a2-a3", "Ka1-a2-b3", "Ka1-a2-b2", "Ka1-a2-b1",
        "Ka1-b1-a2", "Ka1-b1-b2", "Ka1-b1-c2", "Ka1-b1-c1",
        "Ka1-b2-a2", "Ka1-b2-a3", "Ka1-b2-b3", "Ka1-b2-c3", "Ka1-b2-c2", "Ka1-b2-c1",
        "Ka1-b2-b1",
    }  # fmt: skip


def test_movement_gunboat_by_an_immobilizer_field() -> None:
    # SW-5.14, SW-5.35: h8 and g8 and i8 lie in the field of h6 (range 2): stop, never pass
    state = at("Ka1,Nh6", "Kp12,Rh9", p=5, a="b")
    gunboat = {m for m in legal(state) if m.startswith("R")}
    assert gunboat == {
        "Rh9-h10", "Rh9-h11", "Rh9-h12", "Rh9-h8",
        "Rh9-g9", "Rh9-f9", "Rh9-e9", "Rh9-i9", "Rh9-j9", "Rh9-k9",
        "Rh9-g10", "Rh9-f11", "Rh9-e12", "Rh9-i10", "Rh9-j11", "Rh9-k12",
        "Rh9-g8", "Rh9-i8",
    }  # fmt: skip
    assert len(legal(state)) == 18 + 18


def test_movement_after_a_move_lists_end() -> None:
    # SW-5.4: after one move, END joins the list; the moved ship is gone from it
    from tests.domain.spacewar.helpers import play

    state = play(at("Ka1,Rc3", "Kp12"), "Rc3-c4")
    assert "END" in legal(state)
    assert not any(m.startswith("R") for m in legal(state))
    assert len(legal(state)) == 18 + 1


def test_movement_minimal_anchor_sets() -> None:
    # SW-5.33, SW-5.34: a move needing a neutralizer is listed with each smallest anchor set
    state = at("Ka1,Ne5", "Kp12,Re9,Nc9,Ng9", p=5, a="b")
    e6 = {m for m in legal(state) if m.startswith("Re9-e6")}
    assert e6 == {"Re9-e6;A:c9", "Re9-e6;A:g9"}


def test_force_combat_list() -> None:
    # SW-5.41, SW-5.44, SW-5.46: one beam, three pulls, pass
    state = at("Ka1,De5", "Kp12,Ng6", p=4, s="combat")
    assert legal(state) == {"B e5>g6", "F e5>g6>f5", "F e5>g6>f6", "F e5>g6>g5", "pass"}


def test_force_combat_list_with_a_hit_and_a_window() -> None:
    # SW-5.42, SW-5.45: Black's f6 bears h1 and was pulled from g6. The Immobilizer f6 (range
    # 2) beams e5 or counters; the Pressor i7 (range 3) is 4 from e5 (no beam, no push) but 3
    # from f6 (a counter) and 2 from g6 (the response)
    state = at("Ka1,De5s", "Kp12,Nf6,Ei7", p=4, s="combat", a="b", hit=2,
               hits="h1:De5>f6", window="pull:f6:g6:e5")  # fmt: skip
    assert legal(state) == {"B f6>e5", "C f6:h1", "C i7:h1", "FR i7", "pass"}


def test_launch_list() -> None:
    # SW-5.62: the Gunboat on a2 fires to a3 or b3
    state = at("Kb2,Ra2,Pb1", "Kp12,Pa10", p=3, s="launch")
    assert legal(state) == {"L b2,a2,b1>a3", "L b2,a2,b1>b3", "pass"}


def test_replacement_list() -> None:
    # SW-5.77: the empty squares of the back rank
    rank = ",".join(f"P{f}1" for f in "abdefghijklmno")
    state = at("Kb2," + rank, "Kp12", p=3, s="replace", pending="1,0")
    assert legal(state) == {"P@c1", "P@p1"}
