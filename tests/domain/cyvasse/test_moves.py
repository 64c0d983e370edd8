"""Movement and capture geometry (CY-1.1, CY-1.3.3, CY-5.1-5.4, CY-R08, R09, R13, R14, R37,
R42, R43, R56), identical in versions A and B."""

import pytest

from contracts.errors import ErrorCode
from domain.cyvasse import CYVASSE
from tests.domain.cyvasse.helpers import actions_from, new, play, refuse

KINGS = ("Kh1", "Ka8")  # out of every line through d4
HEAVY_HORSE_D4 = ("e5", "f6", "g7", "e3", "f2", "g1", "c5", "c3", "b2", "a1")


@pytest.mark.parametrize(
    ("man", "count"),
    [("K", 8), ("D", 27), ("T", 8), ("E", 12), ("H", 12), ("C", 8), ("L", 8), ("S", 8), ("R", 4)],
)
@pytest.mark.parametrize("variant", ["A", "B"])
def test_move_sets_on_an_open_board(man: str, count: int, variant: str) -> None:
    """Each man's directions and range from d4 on an otherwise open board (the King's moves
    counted for a King on d4)."""
    # CY-5.1.1, CY-5.2.1, CY-1.1.3
    white = f"{man}d4" if man == "K" else f"{man}d4 {KINGS[0]}"
    state = new(white, KINGS[1], variant)
    assert len(actions_from(state, "d4")) == count


def test_exact_squares_of_the_horses_and_trebuchet() -> None:
    """Heavy Horse: diagonal up to 3; Trebuchet: orthogonal up to 2."""
    # CY-5.1.1
    state = new("Hd4 Tb6 Kh1", "Ka8")
    assert actions_from(state, "d4") == {f"d4-{s}" for s in HEAVY_HORSE_D4}
    assert actions_from(state, "b6") == {
        f"b6-{s}" for s in ["b7", "b8", "b5", "b4", "a6", "c6", "d6"]
    }


def test_lines_are_blocked_by_men() -> None:
    """A man stops before an own man and may take the first enemy man; nothing beyond."""
    # CY-5.2.1, CY-5.2.2, CY-5.4.1
    state = new("Ed4 Rd6 Kh1", "Sb4 Ra4 Ka8")
    assert actions_from(state, "d4") == {
        "d4-d5", "d4-d3", "d4-d2", "d4-d1", "d4-c4", "d4xb4", "d4-e4", "d4-f4", "d4-g4"
    }  # fmt: skip
    assert refuse(state, "d4-d7").clause == "CY-5.2.2"
    assert "cannot pass the man on d6" in refuse(state, "d4-d7").reason
    assert refuse(state, "d4xa4").clause == "CY-5.2.2"


def test_diagonal_steps_are_not_blocked_by_the_squares_beside_them() -> None:
    """A diagonal step passes between two occupied squares."""
    # CY-1.1.4, CY-R14
    state = new("Ld4 Rd5 Re4 Kh1", "Ka8")
    assert {"d4-e5", "d4-f6"} <= actions_from(state, "d4")


def test_dragon_flies_over_mountains_but_not_men() -> None:
    """The Dragon passes Mountains of either side but never ends on one; men block it."""
    # CY-5.2.2, CY-R07
    state = new("Dd4 Md5 Re4 Kh1", "Mf6 Ka8")
    moves = actions_from(state, "d4")
    assert {"d4-d6", "d4-d7", "d4-d8", "d4-g7", "d4-h8", "d4-e5"} <= moves
    assert not {"d4-d5", "d4-f6", "d4-f4"} & moves
    assert refuse(state, "d4-d5").clause == "CY-5.2.1"


def test_dragon_captures_across_mountains_by_default() -> None:
    """dragon_capture_over_mountains=true (default): the Dragon takes beyond a Mountain;
    with false it cannot, though it still moves over."""
    # CY-5.4.2, CY-R13
    white, black = "Dd4 Md5 Kh1", "Sd7 Ka8"
    assert "d4xd7" in actions_from(new(white, black, "B"), "d4")
    state = new(white, black, "B+dragon_capture_over_mountains=false")
    assert actions_from(state, "d4") >= {"d4-d6"}
    assert "d4xd7" not in actions_from(state, "d4")
    assert refuse(state, "d4xd7").clause == "CY-5.4.2"


@pytest.mark.parametrize("variant", ["A", "B"])
def test_trebuchet_reference_example(variant: str) -> None:
    """The ruling's Trebuchet example: d3, xc4, xd2 (clear line, moves in), *d6 (over the own
    Rabble), *f4 (over a Mountain); 5 actions, identical in A and B."""
    # CY-9.1, CY-5.4.3, CY-R08, CY-R09
    state = new("Td4 Rd5 Me4 Ka1", "Ld6 Sf4 Ed2 Rc4 Kh8 Mb4", variant)
    assert actions_from(state, "d4") == {"d4-d3", "d4xc4", "d4xd2", "d4*d6", "d4*f4"}
    problem = refuse(state, "d4xd6")
    assert problem.clause == "CY-5.2.2"
    assert problem.reason.endswith("it captures over it without moving: d4*d6")
    after = play(state, "d4*d6")
    assert "Td4" in CYVASSE.position(after)
    assert "Ld6" not in CYVASSE.position(after)
    after = play(state, "d4xd2")
    assert "Td2" in CYVASSE.position(after)


def test_trebuchet_does_not_fire_over_enemy_men_nor_along_a_clear_line() -> None:
    """No obstacle capture over an enemy man (without option c); a clear line within 2 is a
    displacement capture, so `*` is refused there."""
    # CY-R08, CY-R09, CY-5.4.3
    state = new("Td4 Kh1", "Rd5 Sd6 Ed2 Ka8")
    assert actions_from(state, "d4") == {"d4xd5", "d4-d3", "d4xd2", "d4-c4", "d4-b4",
                                         "d4-e4", "d4-f4"}  # fmt: skip
    assert refuse(state, "d4*d6").clause == "CY-5.4.3"
    assert refuse(state, "d4*d2").clause == "CY-5.4.3"


def test_super_trebuchet_fires_over_any_man() -> None:
    """Option c: the obstacle capture may pass over enemy men too (range stays 2 on squares)."""
    # CY-6.4.3, CY-R42
    state = new("Td4 Kh1", "Rd5 Sd6 Ka8", "A+super-trebuchet")
    assert actions_from(state, "d4") >= {"d4xd5", "d4*d6"}
    assert "d4*d7" not in set(actions_from(state, "d4"))


def test_dragonfyre() -> None:
    """Option d: a stationary capture at 1-2 in any direction, over an empty square or an own
    man, never over a Mountain or an enemy man; at distance 1 both x and * are offered."""
    # CY-5.4.5, CY-5.4.6, CY-R43, CY-6.4.4
    white, black = "Dd4 Rd5 Mc4 Kh1", "Sd6 Le5 Tb4 Re4 Ef4 Hf6 Ka8"
    state = new(white, black, "A+dragonfyre")
    captures = {t for t in actions_from(state, "d4") if t[2] in "x*"}
    assert captures == {"d4xe5", "d4*e5", "d4*d6", "d4xb4", "d4xe4", "d4*e4"}
    assert refuse(state, "d4*b4").clause == "CY-5.4.5"  # over the Mountain
    assert refuse(state, "d4*f4").clause == "CY-5.4.5"  # over the enemy Rabble
    assert refuse(new(white, black, "A"), "d4*e5").clause == "CY-5.4"  # no option d
    after = play(state, "d4*e5")
    assert "Dd4" in CYVASSE.position(after)
    assert "Le5" not in CYVASSE.position(after)


def test_dragonfyre_is_subject_to_values_in_b() -> None:
    """Option d in version B: the Dragon (8) cannot burn a Trebuchet (9) alone."""
    # CY-R43, CY-5.6.2
    state = new("Dd4 Kh1", "Td6 Ka8", "B+dragonfyre")
    assert not {"d4*d6", "d4xd6"} & actions_from(state, "d4")
    assert refuse(state, "d4*d6").clause == "CY-5.6.2"


def test_mountains_and_own_men_are_never_captured() -> None:
    """Mountains are no target for anything, Trebuchets included; no man takes its own side."""
    # CY-5.4.9, CY-R56, CY-2.2
    state = new("Sd4 Td2 Re4 Kh1", "Md5 Md3 Ka8", "A+dragonfyre")
    assert not {t for t in actions_from(state, "d4") if t[2] in "x*"}
    assert refuse(state, "d4xd5").clause == "CY-R56"
    assert refuse(state, "d2*d4").clause == "CY-5.4.9"
    assert refuse(state, "d4xe4").clause == "CY-5.4.9"


def test_rejection_reasons_cite_the_clause() -> None:
    """Wrong direction, a move onto a man, a Mountain moved, a foreign man, turn order."""
    # CY-4.1, CY-5.1.1, CY-5.2.1, CY-2.2
    state = new("Rd4 Md2 Kh1", "Sd5 Ka8")
    assert refuse(state, "d4-e5").clause == "CY-5.1.1"
    assert refuse(state, "d4-d5").clause == "CY-5.2.1"
    assert "d4xd5" in refuse(state, "d4-d5").reason
    assert refuse(state, "d2-d1").clause == "CY-2.2"
    assert refuse(state, "d5-d6").clause == "CY-4.1"
    wrong = refuse(state, "d5-d6", seat=1)
    assert (wrong.code, wrong.clause) == (ErrorCode.NOT_YOUR_TURN, "CY-4.1")


@pytest.mark.parametrize(
    ("text", "clause"),
    [("e2e4", "CY-1.3.3"), ("i1-a1", "CY-1.1.1"), ("k1-a1", "CY-1.3.3"), ("a9-a1", "CY-1.1.1"),
     ("a1-a1", "CY-1.3.3"), ("D@a9", "CY-1.1.1"), ("Q@a1", "CY-1.3.3"), ("", "CY-1.3.3"),
     ("j10-j9", "CY-1.1.1")],
)  # fmt: skip
def test_malformed_actions(text: str, clause: str) -> None:
    """Texts that are not actions on this board are malformed."""
    # CY-1.1.1, CY-1.3.3
    state = new("Kh1", "Ka8")
    problem = refuse(state, text)
    assert (problem.code, problem.clause) == (ErrorCode.MALFORMED_ACTION, clause)


def test_notation_round_trip_on_square10() -> None:
    """Every legal action formats to text that parses back to it (10x10: rank 10)."""
    # CY-1.3.3, CY-1.1.1
    state = new("Dd4 Tj9 Kh1", "Sj10 Ka10", "B+square10+dragonfyre")
    for action in CYVASSE.legal_actions(state, 0):
        text = CYVASSE.format_action(state, action)
        assert CYVASSE.parse_action(state, 0, text) == action
    assert "j9xj10" in actions_from(state, "j9")
