"""Hex Cyvasse (`hex91`): geometry and notation (CY-1.2), the hex tables (CY-5.1.2), setup on
the hex board (CY-3, CY-R47, R50, R58), values and morale (CY-R51), the hex optional rules
(sea movement CY-6.5.2, Dragon in reserve CY-6.5.3, Dragonfyre CY-6.5.4) and the ruling's hex
examples (CY-9.6-9.10)."""

import random

import pytest

from contracts.errors import ErrorCode
from domain.core import VariantError
from domain.cyvasse import CYVASSE, State, geometry, parse_variant
from domain.cyvasse.setup import mountain_problem, sealed
from domain.cyvasse.terrain import attack, defence
from tests.domain.cyvasse.helpers import (
    act,
    actions_from,
    legal_texts,
    new,
    position,
    refuse,
    setup_bytes,
)

HEX = geometry("hex91")
ARMY = [*"KDTTEEHHCCLLSSSSRRRR"]  # CY-2.1 without the Mountains
W_MOUNTAINS = ["c1", "e1", "a3", "c3", "e3", "b5"]  # a White set that leaves a pass
B_MOUNTAINS = ["i11", "g11", "k9", "i9", "g9", "j7"]  # its point reflection for Black


def hex_men(seat: int, mountains: list[str], reserve: bool = False) -> dict[str, str]:
    """A full setup for `seat` on hex91: these Mountains, the other men on the first free
    cells of the own zone (White from a1 up, Black from k11 down)."""
    zone = sorted(HEX.halves[seat], reverse=bool(seat))
    free = [HEX.names[s] for s in zone if HEX.names[s] not in mountains]
    army = [k for k in ARMY if not (reserve and k == "D")]
    placed = dict(zip(free, army, strict=False))
    placed.update(dict.fromkeys(mountains, "M"))
    return placed


def check(setup: bytes, seat: int = 0, variant: str = "A+hex91") -> str | None:
    problem = CYVASSE.check_setup(CYVASSE.start(CYVASSE.create(variant)), seat, setup)
    return None if problem is None else f"{problem.clause}: {problem.reason}"


# Geometry and notation ----------------------------------------------------------------------


def test_hex_cells_names_zones_and_colours() -> None:
    """91 cells (a, b), |a - b| <= 5, named a..k + b+1; White's vertex a1, centre f6, Black's
    vertex k11; zones by band t = a + b: White t <= 8 (37), no-man's-land 9-11 (17), Black
    t >= 12 (37); the screen is band 10 (d8 e7 f6 g5 h4)."""
    # CY-1.2.1, CY-1.2.2, CY-1.2.3, CY-1.2.4, CY-R47
    assert HEX.size == 91
    assert (HEX.names[0], HEX.names[45], HEX.names[90]) == ("a1", "f6", "k11")
    assert {"a7", "g1", "l1", "k5", "a0"}.isdisjoint(HEX.square_of)
    assert {"a6", "f1", "k6", "f11", "k11"} <= set(HEX.square_of)
    white, black = HEX.halves
    assert (len(white), len(black)) == (37, 37)
    no_mans_land = set(range(91)) - white - black
    assert len(no_mans_land) == 17
    screen = sorted(HEX.names[s] for s in no_mans_land if sum(HEX.coords[s]) == 10)
    assert screen == ["d8", "e7", "f6", "g5", "h4"]
    assert HEX.square_of["c7"] in white  # band 8
    assert HEX.square_of["c8"] in no_mans_land  # band 9
    assert HEX.square_of["e9"] in black  # band 12
    for s in range(91):  # the point reflection maps White's zone onto Black's
        assert (s in white) == (90 - s in black)


def test_hex_directions_adjacency_distance_and_ports() -> None:
    """6 orthogonal neighbours across a side, 6 diagonal ones along an edge (same colour),
    12 adjacent cells; hex distance; the six corner ports in coast order."""
    # CY-1.2.5, CY-1.2.6, CY-1.2.7, CY-1.2.8, CY-R48, CY-R51
    f6 = HEX.square_of["f6"]
    names = HEX.names
    assert sorted(names[s] for s in HEX.orthogonal[f6]) == ["e5", "e6", "f5", "f7", "g6", "g7"]
    diagonal = sorted(names[s] for s in HEX.adjacent[f6] - set(HEX.orthogonal[f6]))
    assert diagonal == ["d5", "e4", "e7", "g5", "g8", "h7"]
    for s in HEX.adjacent[f6] - set(HEX.orthogonal[f6]):  # diagonal: the same colour
        assert sum(HEX.coords[s]) % 3 == sum(HEX.coords[f6]) % 3
    for s in HEX.orthogonal[f6]:
        assert sum(HEX.coords[s]) % 3 != sum(HEX.coords[f6]) % 3
    assert len(HEX.adjacent[HEX.square_of["a1"]]) == 5  # a corner: 3 orthogonal, 2 diagonal
    assert HEX.distance(HEX.square_of["a1"], HEX.square_of["k11"]) == 10
    assert HEX.distance(HEX.square_of["f6"], HEX.square_of["h7"]) == 2  # one diagonal step
    ports = {names[p]: sorted(names[q] for q in HEX.sea[p]) for p in range(91) if HEX.sea[p]}
    assert ports == {"a1": ["a6", "f1"], "f1": ["a1", "k6"], "k6": ["f1", "k11"],
                     "k11": ["f11", "k6"], "f11": ["a6", "k11"], "a6": ["a1", "f11"]}  # fmt: skip


def test_hex_variants_and_position_records() -> None:
    """hex91 in every version; sea-movement only with hex91; the record uses hex names and
    refuses tiles in no-man's-land (all Grassland); render draws bands with the screen."""
    # CY-0.1, CY-1.2.2, CY-1.3.5, CY-2.3, CY-R59
    assert parse_variant("sea-movement+hex91+C").variant == "C+hex91+sea-movement"
    assert CYVASSE.create("B+hex91+dragon-reserve").variant == "B+hex91+dragon-reserve"
    with pytest.raises(VariantError) as err:
        CYVASSE.create("A+sea-movement")
    assert err.value.code is ErrorCode.BAD_VARIANT
    assert "needs the hex91 board" in err.value.reason
    state = new("Ka1 Tc3", "Kk11 Rf11", "A+hex91")
    assert CYVASSE.position(state) == (
        "side=w; white=Ka1 Tc3; black=Rf11 Kk11; terrain=; reserve=-; storm=-; "
        "plies_since_progress=0"
    )
    assert CYVASSE.start(CYVASSE.create("A+hex91", CYVASSE.position(state))) == state
    lines = CYVASSE.render(state).splitlines()
    assert lines[0].split() == ["k11", "k"]
    assert lines[10].endswith("<- screen")
    assert lines[20].split() == ["a1", "K"]
    with pytest.raises(VariantError) as err:
        CYVASSE.create("C+hex91", position("Ka1", "Kk11", terrain="Ff6"))
    assert "no-man's-land is Grassland" in err.value.reason
    with pytest.raises(VariantError):
        CYVASSE.create("A+hex91", position("Ka1 Ra7", "Kk11"))  # a7 is off the board
    assert refuse(state, "a1-a7").clause == "CY-1.2.2"


# The hex tables (CY-5.1.2) and the ruling's examples -----------------------------------------


@pytest.mark.parametrize(
    ("white", "black", "square", "expected"),
    [
        ("Df6 Ka3", "Kk8", "f6", 30),
        ("Kf6", "Kk8", "f6", 12),
        ("Lf6 Ka3", "Kk8", "f6", 12),
        ("Hf6 Ka3", "Kk8", "f6", 12),
        ("Hc3 Ka6", "Kk11",  "c3", "a2 a5 b1 b4 d2 d5 e1 e4 e7 f9 g5 i6"),
        ("Ea1 Ke7", "Ma3 Kk11", "a1", "a2 b1 c1 d1 b2 c3 d4"),
        ("Da1 Rb2 Md4 Ke7", "Ma3 Sf1 Kk11", "a1", "a2 a4 a5 a6 b1 c1 d1 e1 xf1"),
        ("Cf6 Ka3", "Kk8", "f6", "e5 d4 e6 d6 f5 f4 f7 f8 g6 h6 g7 h8"),
        ("Rf6 Ka3", "Kk8", "f6", "e5 e6 f5 f7 g6 g7"),
        ("Sf6 Ka3", "Kk8", "f6", 12),
        ("Tf6 Ka3", "Kk8", "f6", 12),
        ("Ef6 Ka3", "Kk8", "f6", 18),
    ],
)  # fmt: skip
def test_hex_men_on_an_empty_board(white: str, black: str, square: str, expected: object) -> None:
    """CY-9.7: the hex tables on an otherwise empty board (version A): Dragon 5 orthogonal,
    King/Light Horse/Heavy Horse 12 from the centre, the Heavy Horse's diagonal lines, an
    Elephant blocked by a Mountain, a Dragon flying over a Mountain and taking on f1;
    Crossbowmen 2 orthogonal (not diagonal), Rabble 1 orthogonal."""
    # CY-9.7, CY-5.1.2, CY-1.2.6, CY-R14, CY-R48, CY-R49
    actions = actions_from(new(white, black, "A+hex91"), square)
    if isinstance(expected, int):
        assert len(actions) == expected
    else:
        cells = str(expected).split()
        assert actions == {f"{square}{c if c[0] == 'x' else '-' + c}" for c in cells}


TREBUCHET = ("Tc3 Mc4 Rb3 Md5 Kh3", "Sc5 Rd4 Ea3 He5 Kk11")


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        ("B+hex91", "c3-a1 c3-b2 c3-c1 c3-c2 c3-d3 c3-e3 c3xd4 c3*a3 c3*c5"),
        ("A+hex91", "c3-a1 c3-b2 c3-c1 c3-c2 c3-d3 c3-e3 c3xd4 c3*a3 c3*c5"),
        ("B+hex91+super-trebuchet",
         "c3-a1 c3-b2 c3-c1 c3-c2 c3-d3 c3-e3 c3xd4 c3*a3 c3*c5 c3*e5"),
        ("C+hex91", "c3-b2 c3-c2 c3-d3 c3xd4 c3*d4 c3*a3 c3*c5"),
    ],
)  # fmt: skip
def test_hex_trebuchet(variant: str, expected: str) -> None:
    """CY-9.8: the hex Trebuchet captures over its own Rabble and Mountain, not over the enemy
    Rabble unless Super Trebuchets; in C it moves 1 and shoots 1-2."""
    # CY-9.8, CY-5.4.3, CY-5.4.4, CY-6.4.3, CY-R08, CY-R09, CY-R42, CY-R49
    assert actions_from(new(*TREBUCHET, variant), "c3") == set(expected.split())


def test_hex_super_trebuchet_reaches_three() -> None:
    """With Super Trebuchets the hex range R is 3 (A/B obstacle capture and C ranged attack),
    over anything; without the option a target 3 away is out of reach."""
    # CY-6.4.3, CY-R42, CY-5.4.3, CY-5.4.4
    for version in "ABC":
        plain = new("Tc3 Ka6", "Rf3 Kk11", f"{version}+hex91")
        assert "c3*f3" not in actions_from(plain, "c3")
        state = new("Tc3 Rd3 Ka6", "Se3 Rf3 Kk11", f"{version}+hex91+super-trebuchet")
        assert "c3*f3" in actions_from(state, "c3")
        assert "c3*e3" in actions_from(state, "c3")


def test_hex_dragonfyre() -> None:
    """CY-9.9: hex Dragonfyre is orthogonal, range 2, over own men but not Mountains; the
    Dragon (8) cannot take the Trebuchet (9) across the Mountain."""
    # CY-9.9, CY-6.5.4, CY-5.4.5, CY-R43
    state = new("Df6 Rf7 Me6 Ka3", "Sf8 Lg6 Td6 Eh8 Kk11", "B+hex91+dragonfyre")
    lines = ["f1", "f2", "f3", "f4", "f5", "a1", "b2", "c3", "d4", "e5", "g7"]
    expected = {f"f6-{c}" for c in lines}
    expected |= {"f6xg6", "f6*g6", "f6xh8", "f6*h8", "f6*f8"}
    assert actions_from(state, "f6") == expected
    diagonal = new("Df6 Ka3", "Sh7 Kk11", "B+hex91+dragonfyre")  # h7 is a diagonal neighbour
    assert not {a for a in actions_from(diagonal, "f6") if a.endswith("h7")}


def test_hex_crossbowmen_shoot_orthogonally_in_c() -> None:
    """Hex Crossbowmen move and capture 2 orthogonally; their ranged attack is orthogonal
    over an empty cell, never diagonal."""
    # CY-5.1.2, CY-5.4.4, CY-R49
    state = new("Cf6 Ka3", "Rf8 Rh7 Sg7 Kk11", "C+hex91")
    actions = actions_from(state, "f6")
    assert {"f6*f8", "f6xf8", "f6*g7", "f6xg7"} <= actions
    assert not {a for a in actions if a.endswith("h7")}
    assert refuse(state, "f6*h7").clause == "CY-5.4.4"


# Values and morale on hex -------------------------------------------------------------------


def test_hex_morale_counts_the_twelve_adjacent_cells() -> None:
    """Morale on hex: a man one diagonal step from its King (same colour, along an edge) is
    adjacent and gets +1; two steps away it does not."""
    # CY-R51, CY-R33, CY-6.2.1, CY-6.2.2, CY-6.5.1
    state = new("Kf6 Sh7 Sf8", "Kk11", "C+hex91")
    geo, board, terrain = state.geo, state.pos.board, state.pos.terrain
    h7, f8 = geo.square_of["h7"], geo.square_of["f8"]
    assert attack(geo, board, terrain, h7) == 4  # diagonal neighbour of f6
    assert defence(geo, board, terrain, h7, False) == 4
    assert attack(geo, board, terrain, f8) == 3  # two orthogonal steps away


def test_hex_flanking_version_b() -> None:
    """Flanking on hex: two Rabbles threatening a Light Horse sum to 4."""
    # CY-5.6.2, CY-R20, CY-R21
    state = new("Re4 Rd5 Ka1", "Le5 Kk11", "B+hex91")
    assert {"e4xe5", "d5xe5"} <= legal_texts(state)
    alone = new("Re4 Ka1", "Le5 Kk11", "B+hex91")
    assert refuse(alone, "e4xe5").clause == "CY-5.6.2"


def test_hex_check_in_version_a() -> None:
    """Version A on hex: the King may not step next to an enemy Spears' 12 cells."""
    # CY-6.1.1, CY-6.1.2, CY-R15
    state = new("Kf6", "Sh8 Kk11", "A+hex91")
    assert "f6-g7" not in legal_texts(state)  # g7 is orthogonally next to h8
    assert "f6-e6" in legal_texts(state)
    assert refuse(state, "f6-g7").clause == "CY-6.1.2"


# Sea movement (Hex Optional Rule a) ---------------------------------------------------------


def test_sea_movement_reference_example() -> None:
    """CY-9.10: a Rabble on port a1 moves a2, b1, b2 or by sea to a6; a1-f1 is refused (2 < 3);
    against a Black Rabble on f1 the sea capture a1xf1 is legal."""
    # CY-9.10, CY-6.5.2, CY-R52, CY-1.3.3
    state = new("Ra1 Ke7", "Sf1 Kk11", "B+hex91+sea-movement")
    assert actions_from(state, "a1") == {"a1-a2", "a1-b1", "a1-b2", "a1-a6"}
    assert refuse(state, "a1xf1").clause == "CY-5.6.2"
    state = new("Ra1 Ke7", "Rf1 Kk11", "B+hex91+sea-movement")
    assert "a1xf1" in actions_from(state, "a1")
    after, _ = act(state, "a1xf1")
    assert "Rf1" in CYVASSE.position(after).split("black=")[0]
    plain = new("Ra1 Ke7", "Rf1 Kk11", "B+hex91")
    assert actions_from(plain, "a1") == {"a1-a2", "a1-b1", "a1-b2"}


def test_the_dragon_cannot_move_by_sea_and_sea_threats_give_check() -> None:
    """The Dragon has no sea move; in version A a man on a neighbouring port checks a King
    on a port, and the King may not move onto a port an enemy threatens by sea."""
    # CY-6.5.2, CY-R52, CY-R54, CY-6.1.1
    state = new("Da1 Ra3 Kc3", "Kk11", "A+hex91+sea-movement")
    assert "a1-a6" not in actions_from(state, "a1")  # a3 blocks the land line, no sea move
    assert "a1-f1" in actions_from(state, "a1")  # by land: 5 orthogonal
    check = new("Ka1 Rb1", "Rf1 Kk11", "A+hex91+sea-movement")
    assert CYVASSE.view(check, 0)["in_check"] is True
    # the King steps away (12 cells) or, on its port, leaves or captures by sea itself
    assert legal_texts(check) == {"a1-a2", "a1-b2", "a1-c2", "a1-b3", "a1-a6", "a1xf1"}
    no_sea = new("Ka1 Rb1", "Rf1 Kk11", "A+hex91")
    assert CYVASSE.view(no_sea, 0)["in_check"] is False
    king = new("Kb1", "Rf1 Kk11", "A+hex91+sea-movement")
    assert "b1-a1" not in legal_texts(king)


def test_sea_movement_in_version_c() -> None:
    """Version C: no terrain costs for a sea move; a man on a Water port moves by sea but
    does not capture by sea; never onto a burning port; a sea move into the enemy Fortress
    storms it."""
    # CY-6.5.2, CY-6.4.5, CY-6.4.6, CY-5.4.8
    wet = new("Ra1 Kc3", "Ra6 Kk11", "C+hex91+sea-movement", terrain="Wa1 Wf1")
    assert "a1-f1" in actions_from(wet, "a1")
    assert "a1xa6" not in actions_from(wet, "a1")
    dry = new("Ra1 Kc3", "Ra6 Kk11", "C+hex91+sea-movement", terrain="Wf1")
    assert {"a1-f1", "a1xa6"} <= actions_from(dry, "a1")
    burning = new("Ra1 Kc3", "Kk11", "C+hex91+sea-movement+wildfyre", terrain="Bf1")
    assert "a1-f1" not in actions_from(burning, "a1")
    storm = new("Sf1 Kc3", "Kh9", "C+hex91+fortress-storming+sea-movement", terrain="Xk6")
    after, _ = act(storm, "f1-k6")
    assert after.pos.storm == ((HEX.square_of["k6"], 0, 0),)


# Dragon in Reserve (Hex Optional Rule b) ----------------------------------------------------


def test_hex_dragon_reserve_zone_in_a_and_b() -> None:
    """A/B: the reserve Dragon comes in on any empty cell of the own placement zone."""
    # CY-6.5.3, CY-R53
    state = new("Ka1", "Kk11", "B+hex91+dragon-reserve", reserve="w")
    drops = {t for t in legal_texts(state) if t.startswith("D@")}
    assert len(drops) == 36  # 37 cells of White's zone, a1 occupied
    assert refuse(state, "D@f6").clause == "CY-R53"


def test_hex_dragon_reserve_near_the_fortress_in_c() -> None:
    """C: within hex distance 2 of the own Fortress cell (19 cells), also after the
    Fortress is ruined; not elsewhere in the zone."""
    # CY-6.5.3, CY-R53, CY-6.3.1
    state = new("Kc3", "Ki8 Dc8", "C+hex91+dragon-reserve", reserve="w", side="b",
                terrain="Xc4 Xi8")  # fmt: skip
    ruined, _ = act(state, "c8-c4")  # a Black Dragon ends on White's empty Fortress
    assert "Fc4" in CYVASSE.position(ruined)
    drops = {t[2:] for t in legal_texts(ruined) if t.startswith("D@")}
    c4 = HEX.square_of["c4"]
    expected = {HEX.names[t] for t in range(91) if HEX.distance(c4, t) <= 2} - {"c3", "c4"}
    assert drops == expected
    assert refuse(ruined, "D@a1").clause == "CY-R53"


# Setup on the hex board ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mountains", "sealed_cells"),
    [("b1 a2 b2", "a1"), ("e1 f2 g2", "f1"), ("c3 d4 d3 b2 c2", "")],
)
def test_hex_mountain_rule_examples(mountains: str, sealed_cells: str) -> None:
    """CY-9.6 (hex): the pass test with the 6 orthogonal hex directions over all 91 cells."""
    # CY-9.6, CY-3.4, CY-R04
    cut = sealed(HEX, {HEX.square_of[m] for m in mountains.split()})
    assert " ".join(HEX.names[s] for s in cut) == sealed_cells
    problem = mountain_problem(HEX, {HEX.square_of[m] for m in mountains.split()})
    assert (problem is None) == (not sealed_cells)


def test_a_complete_hex_setup_is_accepted_for_both_seats() -> None:
    """26 men in the own zone (37 cells), Mountains leaving a pass: accepted."""
    # CY-3.2, CY-3.3, CY-R47
    assert check(setup_bytes(hex_men(0, W_MOUNTAINS))) is None
    assert check(setup_bytes(hex_men(1, B_MOUNTAINS)), seat=1) is None
    reserve = hex_men(0, W_MOUNTAINS, reserve=True)
    assert check(setup_bytes(reserve), variant="B+hex91+dragon-reserve") is None


def test_hex_setup_refusals() -> None:
    """No man in no-man's-land or the enemy zone; a sealed port; exact counts; with sea
    movement no Mountain on a port."""
    # CY-3.2, CY-3.3, CY-3.4, CY-3.6.4, CY-R47, CY-R58
    men = hex_men(0, W_MOUNTAINS)
    men["c8"] = men.pop("a1")  # band 9: no-man's-land
    assert check(setup_bytes(men)) == (
        "CY-3.2: c8 is outside White's placement zone (bands a+b <= 8; bands 9-11 are "
        "no-man's-land) [CY-R47]"
    )
    assert check(setup_bytes({"a7": "K"})) == "CY-1.2.2: 'a7' is not a square of the hex91 board"
    sealed_port = hex_men(0, ["b1", "a2", "b2", "e3", "c3", "b5"])
    assert "close a1 off" in str(check(setup_bytes(sealed_port)))
    ported = hex_men(0, ["a1", "e1", "a3", "c3", "e3", "b5"])
    assert check(setup_bytes(ported)) is None
    assert check(setup_bytes(ported), variant="A+hex91+sea-movement") == (
        "CY-3.6.4: with sea-movement no Mountain may stand on a port (a1) [CY-R58]"
    )
    short = hex_men(0, W_MOUNTAINS)
    del short["a1"]
    assert str(check(setup_bytes(short))).startswith("CY-3.3:")


def _hex_terrain(men: dict[str, str], seat: int = 0) -> dict[str, str]:
    king = next(c for c, k in men.items() if k == "K")
    zone = [HEX.names[s] for s in sorted(HEX.halves[seat]) if HEX.names[s] != king]
    dry = [c for c in zone if men.get(c) != "M"]
    tiles = {king: "X"} | dict.fromkeys(dry[:4], "W")
    rest = [c for c in zone if c not in tiles]
    tiles.update(zip(rest, [*"HHHH", *"FFFFFFF"], strict=False))
    return tiles


def test_hex_version_c_terrain_is_sixteen_tiles_in_the_own_zone() -> None:
    """C on hex: exactly 1 Fortress, 4 Hills, 4 Water, 7 Forest (16 tiles) in the own zone,
    the rest Grassland; King on the Fortress; no tile in no-man's-land."""
    # CY-2.3, CY-3.6.1, CY-3.6.2, CY-R50, CY-R58
    men = hex_men(0, W_MOUNTAINS)
    tiles = _hex_terrain(men)
    assert len(tiles) == 16
    assert check(setup_bytes(men, tiles), variant="C+hex91") is None
    few = dict(tiles)
    del few[next(c for c, t in tiles.items() if t == "F")]
    assert check(setup_bytes(men, few), variant="C+hex91") == (
        "CY-3.6.1: 6 Forest tiles placed; the hex91 board needs exactly 7 per side (CY-2.3)"
    )
    outside = dict(few) | {"c8": "F"}
    assert str(check(setup_bytes(men, outside), variant="C+hex91")).startswith("CY-3.2: c8")


@pytest.mark.parametrize(
    "variant",
    ["A+hex91", "B+hex91+dragon-reserve", "C+hex91", "C+hex91+dragon-reserve+sea-movement"],
)
def test_random_hex_setups_are_legal(variant: str) -> None:
    """random_setup on hex: valid for both seats (zone, counts, pass, 16 tiles, ports)."""
    # CY-3.2, CY-3.3, CY-3.4, CY-3.6, CY-R50
    state: State = CYVASSE.start(CYVASSE.create(variant))
    for seed in range(5):
        rng = random.Random(seed)
        for seat in (0, 1):
            setup = CYVASSE.random_setup(state, seat, rng.randrange)
            assert CYVASSE.check_setup(state, seat, setup) is None
