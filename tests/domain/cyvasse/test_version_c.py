"""Version C (Expert): terrain and movement, ranged attacks, values with terrain, Fortress and
morale, the Fortress ruin by the Dragon, the terrain setup (CY-2.3, 3.6, 5.3, 5.4.4, 5.4.8,
6.2, 6.3; CY-R10, R11, R23..R37, R57, R58)."""

import random

import pytest

from contracts.errors import ErrorCode
from domain.core import VariantError
from domain.cyvasse import CYVASSE, State, geometry
from domain.cyvasse.terrain import attack, defence
from tests.domain.cyvasse.helpers import actions_from, legal_texts, new, play, refuse, setup_bytes
from tests.domain.cyvasse.test_setup import men

T93 = "Fb3 Hc3 Fd2 Wf3 Fg5"
MEN93 = ("Eb2 He2 Lc3 Ka1", "Ce5 Hg5 Rb6 Sf3 Kh8")
T94 = "Fd4 Wh3 Xb4"
MEN94 = ("Cc3 Tf2 Kd2 Se3 Mf3 Rh3", "Le5 Ra5 Ef4 Sg1 Hb4 Rh4 Kh8")


def values(state: State, square: str) -> tuple[int, int]:
    """(attack, defence) of the man on `square` (CY-6.2)."""
    s = state.geo.square_of[square]
    board, terrain = state.pos.board, state.pos.terrain
    geo, cap = state.geo, state.config.fortress_cap
    return attack(geo, board, terrain, s), defence(geo, board, terrain, s, cap)


def test_terrain_movement_reference_example() -> None:
    """The ruling's terrain example: Elephant, Heavy Horse and Light Horse on hills, and the
    defence values of the Black men."""
    # CY-9.3, CY-5.3.1-5.3.4, CY-R24, CY-R25, CY-R30, CY-R31
    state = new(*MEN93, variant="C", terrain=T93)
    assert actions_from(state, "b2") == {"b2-a2", "b2-b1", "b2-b3", "b2-b4", "b2-c2", "b2-d2"}
    assert actions_from(state, "e2") == {"e2-d1", "e2-f1", "e2-d3", "e2-c4", "e2-b5", "e2xf3"}
    assert actions_from(state, "c3") == {"c3-a5", "c3-b4", "c3-d2", "c3-d4", "c3xe5"}
    assert values(state, "c3")[0] == 5  # Light Horse on Hills
    assert values(state, "e5")[1] == 5
    assert values(state, "g5")[1] == 7  # Heavy Horse on Forest
    assert values(state, "f3")[1] == 3  # Spears on Water
    problem = refuse(state, "b2-b5")
    assert problem.clause == "CY-5.3.3"


def test_ranged_morale_fortress_reference_example() -> None:
    """The ruling's ranged/morale/Fortress example, man by man."""
    # CY-9.4, CY-5.4.4, CY-5.4.8, CY-6.2, CY-R10, CY-R11, CY-R28, CY-R29, CY-R33
    state = new(*MEN94, variant="C", terrain=T94)
    assert values(state, "c3")[0] == 6  # Crossbowmen next to its King
    assert values(state, "b4")[1] == 9  # Black Heavy Horse on White's Fortress
    assert actions_from(state, "c3") == {"c3-a1", "c3-b2", "c3-d4", "c3*e5"}
    assert actions_from(state, "f2") == {"f2-e2", "f2-f1", "f2-g2", "f2*f4"}
    assert actions_from(state, "e3") == {"e3-d3", "e3-d4", "e3-e2", "e3-e4", "e3xf4"}
    assert actions_from(state, "d2") == {"d2-c1", "d2-c2", "d2-d1", "d2-d3", "d2-e1", "d2-e2"}
    assert actions_from(state, "h3") == {"h3-g3", "h3-h2"}
    assert refuse(state, "h3xh4").clause == "CY-5.4.8"
    problem = refuse(state, "c3*b4")
    assert problem.clause == "CY-5.6.2"
    assert "defence 9" in problem.reason


@pytest.mark.parametrize(
    ("terrain", "white", "allowed", "refused"),
    [
        # CY-5.3.4: Hills then one Grassland = 3; not Hills as the third square
        ("Hc3", "Hb2 Ka1", {"b2-c3", "b2-d4"}, {"b2-e5"}),
        ("He3", "Eb3 Ka1", {"b3-c3", "b3-d3"}, {"b3-e3"}),
        # two Forest squares cannot be crossed by a range-3 man
        ("Fc3 Fd3", "Eb3 Ka1", {"b3-c3"}, {"b3-d3", "b3-e3"}),
        # Water: the Heavy Horse may end there at any step, then halts
        ("Wd4", "Hb2 Ka1", {"b2-c3", "b2-d4"}, {"b2-e5"}),
        # Elephants treat Water as Grassland (CY-R30)
        ("Wc3 Wd3", "Eb3 Ka1", {"b3-c3", "b3-d3", "b3-e3"}, set()),
        # the Fortress halts every man but the Dragon (CY-R57), also the own Fortress
        ("Xc3", "Eb3 Ka1", {"b3-c3"}, {"b3-d3"}),
        # a range-2 man halts on Hills or Forest at any step (CY-R25)
        ("Fe3", "Lc1 Ka1", {"c1-d2", "c1-e3"}, set()),
        ("Fd2", "Lc1 Ka1", {"c1-d2"}, {"c1-e3"}),
        # the Dragon ignores every movement effect of terrain (CY-R26)
        ("Wb3 Hc3 Xd3 Fe3", "Da3 Ka1", {"a3-b3", "a3-c3", "a3-d3", "a3-e3"}, set()),
    ],
)
def test_entry_costs_and_halts(
    terrain: str, white: str, allowed: set[str], refused: set[str]
) -> None:
    """Entry costs, the two "can enter but must halt" allowances and the halting squares."""
    # CY-5.3.1-5.3.5, CY-R24..R26, CY-R30, CY-R57
    state = new(white, "Kh8", "C", terrain=terrain)
    texts = legal_texts(state)
    assert allowed <= texts
    assert not refused & texts


def test_terrain_applies_to_displacement_captures() -> None:
    """A displacement capture follows the move line: a Heavy Horse cannot take beyond Hills
    entered as its second square, the Trebuchet captures by moving 1."""
    # CY-5.2.4, CY-5.4.1, CY-5.1.1
    state = new("Hb2 Ka1", "Re5 Kh8", "C", terrain="Hd4")
    assert "b2xe5" not in legal_texts(state)  # 1 + 2 + 1 = 4 > 3
    state = new("Hb2 Ka1", "Re5 Kh8", "C", terrain="Hc3")
    assert "b2xe5" not in legal_texts(state)  # 2 + 1 + 1 = 4 > 3
    state = new("Hb2 Ka1", "Rd4 Kh8", "C", terrain="Hc3")
    assert "b2xd4" in legal_texts(state)  # 2 + 1 = 3
    state = new("Td4 Ka1", "Rd5 Rd6 Kh8", "C")
    assert actions_from(state, "d4") == {"d4-c4", "d4-e4", "d4-d3", "d4xd5", "d4*d5"}


def test_trebuchet_and_crossbowmen_ranged_attacks() -> None:
    """Ranged attacks reach 1-2 squares without moving, at any target also reachable by
    moving (the player chooses x or *); Trebuchets fire over Mountains and own men, not enemy
    men; Crossbowmen need a clear line; terrain never blocks a ranged line."""
    # CY-5.4.4, CY-5.4.6, CY-5.3.6, CY-R10, CY-R11, CY-R37, CY-R08
    state = new("Cc3 Ka1", "Re5 Rd4 Kh8", "C")
    assert {"c3xd4", "c3*d4"} <= legal_texts(state)
    assert "c3*e5" not in legal_texts(state)  # d4 is occupied
    state = new("Cc3 Ka1", "Re5 Kh8", "C", terrain="Fd4")
    assert "c3*e5" in legal_texts(state)
    assert "c3xe5" not in legal_texts(state)
    state = new("Td4 Md5 Ka1", "Rd6 Kh8", "C")
    assert "d4*d6" in legal_texts(state)
    state = new("Td4 Ka1", "Sd5 Rd6 Kh8", "C")
    assert "d4*d6" not in legal_texts(state)
    assert refuse(state, "d4*d6").clause == "CY-5.4.4"
    assert "d4*d6" in legal_texts(new("Td4 Ka1", "Sd5 Rd6 Kh8", "C+super-trebuchet"))
    state = new("Td4 Ka1", "Re5 Kh8", "C")
    assert refuse(state, "d4-d6").clause == "CY-5.1.1"  # moves 1 in version C
    assert refuse(state, "d4*e5").clause == "CY-5.4.4"


def test_hills_bonus_counts_for_ranged_attacks_and_is_no_defence() -> None:
    """The Hills +1 is taken from the square attacked from, also for stationary captures; a
    man on Hills defends with its base value."""
    # CY-6.2.1, CY-R31
    state = new("Cc3 Ka1", "Le5 Hd4 Kh8", "C", terrain="Hc3")
    assert values(state, "c3") == (6, 5)
    assert "c3*d4" in legal_texts(state)  # 6 >= 6
    state = new("Cc3 Ka1", "Hd4 Kh8", "C")
    assert "c3*d4" not in legal_texts(state)


def test_morale_and_the_cap_of_nine() -> None:
    """+1 attack and defence next to the own King (not for the King itself); every value is
    capped at 9."""
    # CY-6.2.1, CY-6.2.2, CY-R33, CY-R34
    state = new("Kd4 Td5 Ee5 Hc5 Rh1", "Ka8 Sb7", "C", terrain="He5 Xc5")
    assert values(state, "d4") == (1, 1)
    assert values(state, "d5") == (9, 9)
    assert values(state, "e5") == (9, 8)  # 7 + Hills + morale = 9; defence 7 + 1
    assert values(state, "c5") == (7, 9)  # 6 + morale; defence 6 + 3 + 1 = 10 -> 9
    assert values(state, "h1") == (2, 2)
    state = new("Ka1 Sb2", "Rc3 Kh8", "C")
    assert values(state, "b2") == (4, 4)


@pytest.mark.parametrize(
    ("variant", "defended"),
    [("C", 7), ("C+fortress_bonus_mode=cap", 9)],
)
def test_fortress_bonus_modes(variant: str, defended: int) -> None:
    """none_above_6: Elephants, Dragons and Trebuchets gain nothing on a Fortress; cap: +3 for
    every man, capped at 9. The bonus helps any man on any intact Fortress."""
    # CY-6.2.3, CY-0.2, CY-R27, CY-R28
    state = new("Eb2 Ka1", "Eb4 Kh8", variant, terrain="Xb4")  # Black stormed White's Fortress
    assert values(state, "b4")[1] == defended
    assert ("b2xb4" in legal_texts(state)) is (defended <= 7)
    state = new("Hb2 Ka1", "Hb4 Kh8", variant, terrain="Xb4")
    assert values(state, "b4")[1] == 9


def test_water_blocks_attacks_from_it_not_into_it() -> None:
    """Men on Water neither capture nor threaten (no flanking either), except the Dragon and
    Elephants; men on Water may be captured."""
    # CY-5.4.8, CY-R20, CY-R29, CY-R30
    state = new("Rd4 Ee4 Ka1", "Re5 Kh8", "C", terrain="Wd4 We4")
    assert "d4xd5" not in legal_texts(state)
    assert "e4xe5" in legal_texts(state)
    state = new("Sd4 Rc5 Ka1", "Ld5 Kh8", "C", terrain="Wc5")
    assert "d4xd5" not in legal_texts(state)  # the Rabble on Water does not flank: 3 < 4
    state = new("Sd4 Rc5 Ka1", "Ld5 Kh8", "C")
    assert "d4xd5" in legal_texts(state)  # 3 + 2 >= 4
    state = new("Dd4 Ka1", "Re6 Kh8", "C", terrain="Wd4")
    assert "d4xe6" not in legal_texts(state)  # not on a Dragon line
    assert "d4xd6" not in legal_texts(state)
    state = new("Dd4 Ka1", "Rd6 Kh8", "C", terrain="Wd4 Wd6")
    assert "d4xd6" in legal_texts(state)


def test_flanking_sums_modified_values() -> None:
    """Flanking in C sums the attack values with terrain and morale."""
    # CY-5.6.2, CY-R23
    state = new("Rd4 Rc5 Kh1", "Hd5 Ka8", "C", terrain="Hd4 Hc5")
    assert "d4xd5" in legal_texts(state)  # 3 + 3 >= 6
    state = new("Rd4 Rc5 Kh1", "Hd5 Ka8", "C", terrain="Hd4")
    assert "d4xd5" not in legal_texts(state)  # 3 + 2 < 6


def test_no_check_in_version_c() -> None:
    """Version C has no check: the King may stand on a threatened square."""
    # CY-6.1.5, CY-R17
    state = new("Kd4 Ra1", "Ed6 Kh8", "C")
    assert "d4-d5" in legal_texts(state)


def test_dragon_ruins_the_enemy_fortress() -> None:
    """The Dragon ruins the enemy Fortress by ending on it empty or capturing a man on it
    (the defence counts the Fortress); passing over does not ruin; its own Fortress never."""
    # CY-6.3, CY-R35, CY-R32
    state = new("Dd2 Ka1", "Kh8", "C", terrain="Xd5 Xc1")
    state = play(state, "d2-d5")
    assert CYVASSE.position(state).split("; ")[3] == "terrain=Xc1 Fd5"
    assert state.pos.quiet == 0
    state = play(new("Dd2 Ka1", "Kh8", "C", terrain="Xd5"), "d2-d6")
    assert "Xd5" in CYVASSE.position(state)
    state = play(new("Dd2 Ka1", "Kh8", "C", terrain="Xc1"), "d2-c1")
    assert "Xc1" in CYVASSE.position(state)
    state = new("Dd2 Ka1", "Hd5 Kh8", "C", terrain="Xd5")  # 6 + 3 = 9 > 8
    assert "d2xd5" not in legal_texts(state)
    state = new("Dd2 Ka1", "Ld5 Kh8", "C", terrain="Xd5")  # 4 + 3 = 7
    state = play(state, "d2xd5")
    assert "Fd5" in CYVASSE.position(state)
    state = play(new("Dd3 Ka1", "Ld5 Kh8", "C+dragonfyre", terrain="Xd5"), "d3*d5")
    assert "Fd5" in CYVASSE.position(state)
    assert values(play(state, "h8-h7"), "d3")[0] == 8
    state = new("Ka1 Sd4", "Rd5 Kh8", "C", terrain="Fd5")
    assert values(state, "d5")[1] == 3  # a ruin is Forest: +1


def test_c_position_record_round_trip_and_refusals() -> None:
    """The position record carries the terrain; bad terrain is refused."""
    # CY-1.3.5, CY-1.3.2
    state = new(*MEN94, variant="C", terrain=T94)
    record = CYVASSE.position(state)
    assert "terrain=Wh3 Xb4 Fd4;" in record
    assert CYVASSE.start(CYVASSE.create("C", record)) == state
    for terrain, words in [("Ga1", "not <H|W|F|X|B>"), ("Fa1 Wa1", "two tiles"),
                           ("Xa1 Xb1", "more than one Fortress"), ("Fz9", "not <H")]:  # fmt: skip
        with pytest.raises(VariantError) as err:
            new("Ka1", "Kh8", "C", terrain=terrain)
        assert err.value.code is ErrorCode.BAD_POSITION
        assert words in err.value.reason


def test_render_shows_the_terrain() -> None:
    """render draws the tile beside each man."""
    # CY-1.3.2
    text = CYVASSE.render(new(*MEN94, variant="C", terrain=T94))
    assert " 4 .. hX .. .F .. e. .. r." in text
    assert " 3 .. .. C. .. S. M. .. RW" in text


# The setup with terrain (CY-2.3, CY-3.6, CY-R36, CY-R58) ----------------------------------

SAFE = ["a4", "c4", "e4", "g4", "b3", "h2"]


def c_setup(seat: int = 0, n: int = 8, **change: str) -> tuple[dict[str, str], dict[str, str]]:
    """A legal version-C setup: the men of test_setup.men and tiles filling the own half."""
    placed = men(seat, SAFE if seat == 0 else ["a5", "c5", "e5", "g5", "b6", "h7"], n)
    king = next(sq for sq, letter in placed.items() if letter == "K")
    mountains = {sq for sq, letter in placed.items() if letter == "M"}
    geo = geometry(n)
    rest = [geo.names[s] for s in sorted(geo.halves[seat]) if geo.names[s] != king]
    counts = {8: (4, 4, 7), 10: (5, 5, 9)}[n]
    wet = [sq for sq in rest if sq not in mountains][: counts[1]]
    others = [sq for sq in rest if sq not in wet]
    tiles = {king: "X"} | dict.fromkeys(wet, "W")
    tiles |= dict.fromkeys(others[: counts[0]], "H")
    tiles |= dict.fromkeys(others[counts[0] : counts[0] + counts[2]], "F")
    tiles.update(change)
    return placed, tiles


def check(data: bytes, seat: int = 0, variant: str = "C") -> str | None:
    problem = CYVASSE.check_setup(CYVASSE.start(CYVASSE.create(variant)), seat, data)
    return None if problem is None else f"{problem.clause}: {problem.reason}"


def test_a_legal_c_setup_is_accepted() -> None:
    """Men plus tiles filling the own half, King on the Fortress: accepted on both boards and
    for both seats."""
    # CY-2.3, CY-3.6.1, CY-R36
    assert check(setup_bytes(*c_setup())) is None
    assert check(setup_bytes(*c_setup(1)), seat=1) is None
    assert check(setup_bytes(*c_setup(0, 10)), variant="C+square10") is None


def _moved(tiles: dict[str, str], old: str, new_square: str) -> dict[str, str]:
    out = {sq: t for sq, t in tiles.items() if sq != old}
    out[new_square] = tiles[old]
    return out


def test_c_setup_refusals_cite_the_clauses() -> None:
    """Missing terrain, tiles outside the own half, unknown letters, wrong counts, the King
    off its Fortress and Mountains on Water are refused; A/B setups carry no terrain."""
    # CY-1.3.4, CY-1.3.2, CY-3.2, CY-3.6.1-3.6.3, CY-R58
    placed, tiles = c_setup()
    assert str(check(setup_bytes(placed))).startswith("CY-1.3.4: a version-C setup")
    assert str(check(setup_bytes(placed, tiles), variant="B")).startswith("CY-1.3.4")
    assert str(check(setup_bytes(placed, tiles | {"a5": "H"}))).startswith("CY-3.2: a5 is out")
    assert str(check(setup_bytes(placed, tiles | {"h4": "Q"}))).startswith("CY-1.3.2")
    assert str(check(setup_bytes(placed, tiles | {"h4": "G"}))).startswith("CY-1.3.2")
    forest = next(sq for sq, t in tiles.items() if t == "F")
    without = {sq: t for sq, t in tiles.items() if sq != forest}
    assert check(setup_bytes(placed, without)) == (
        "CY-3.6.1: 6 Forest tiles placed; the 8x8 board needs exactly 7 per side (CY-2.3)"
    )
    king = next(sq for sq, letter in placed.items() if letter == "K")
    assert str(check(setup_bytes(placed, _moved(tiles, king, forest) | {king: "F"}))).startswith(
        "CY-3.6.2: the King must stand on its own Fortress"
    )
    wet = next(sq for sq, t in tiles.items() if t == "W")
    swapped = {sq: t for sq, t in tiles.items() if sq not in (wet, "a4")} | {"a4": "W"}
    if "a4" in tiles:  # a4 holds a Mountain
        swapped[wet] = tiles["a4"]
    assert check(setup_bytes(placed, swapped)) == (
        "CY-3.6.3: no Mountain may stand on Water (a4) [CY-R58]"
    )
    cut = men(0, ["a2", "b1", "d4", "e4", "f4", "h4"])
    assert str(check(setup_bytes(cut, tiles))).startswith("CY-3.4")  # the rule is unchanged


@pytest.mark.parametrize("variant", ["C", "C+square10", "C+dragon-reserve"])
def test_random_c_setups_are_legal(variant: str) -> None:
    """random_setup places men and tiles legally for both seats."""
    # CY-3.3, CY-3.4, CY-3.6
    state = CYVASSE.start(CYVASSE.create(variant))
    for seed in range(20):
        for seat in (0, 1):
            data = CYVASSE.random_setup(state, seat, random.Random(seed).randrange)
            assert CYVASSE.check_setup(state, seat, data) is None, data
