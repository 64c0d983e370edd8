"""How the men move and capture (YI-5), with the reference data of YI-10.1, YI-10.3, YI-10.4."""

import pytest

from domain.yiora import YIORA, Move
from domain.yiora.geometry import NAMES, PAWN, kind_of
from tests.domain.yiora import reference
from tests.domain.yiora.helpers import START, WSQ_START, act, legal_texts, moves_from, new

ALONE = "w W:OA1,{} B:OA19 0 1"  # a White man with only the two Overlords


def dests(text: str) -> set[str]:
    """The ruling's destination list (hyphenated names) in compact form."""
    return {name.replace("-", "") for name in text.split()}


# YI-10.1: the man, its square, its count and destinations.
FIRST_MOVES = [
    ("P", "O3", 12, "Y-1 Y-5 I-2 I-4 I-6 I-8 I-36 O-7 R-4 R-6 R-8 A-5"),
    ("P", "O5", 14, "Y-3 Y-7 I-2 I-4 I-6 I-8 I-10 O-1 O-9 R-4 R-6 R-8 R-10 A-7"),
    ("P", "O33", 14, "Y-31 Y-35 I-28 I-30 I-32 I-34 I-36 O-1 O-29 R-28 R-30 R-32 R-34 A-31"),
    ("P", "O35", 12, "Y-1 Y-33 I-2 I-30 I-32 I-34 I-36 O-31 R-30 R-32 R-34 A-33"),
    ("M", "R2", 7, "I-2 O-1 R-4 R-6 R-8 R-10 R-12"),
    ("M", "R36", 7, "I-36 O-1 R-26 R-28 R-30 R-32 R-34"),
    ("M", "A3", 6, "R-4 A-5 A-7 A-9 A-11 A-13"),
    ("M", "A35", 6, "R-34 A-25 A-27 A-29 A-31 A-33"),
]


@pytest.mark.parametrize(("kind", "square", "count", "destinations"), FIRST_MOVES)
def test_first_move_destinations_of_each_man(
    kind: str, square: str, count: int, destinations: str
) -> None:
    """Each man's destinations on White's first move are exactly the ruling's."""
    # YI-10.1, YI-5.2, YI-5.3, YI-5.3.5
    state = new()
    found = moves_from(state, square)
    assert len(found) == count
    assert found == dests(destinations)


def test_first_move_count_78() -> None:
    """78 moves: Pawns 52, Mages 26, the Overlord 0 (R-36 and R-2 hold its Mages); the same
    for Black moving first and for Gold in the white-square game. The naive reference agrees."""
    # YI-10.1, YI-5.1
    state = new()
    moves = [a for a in YIORA.legal_actions(state, 0) if isinstance(a, Move)]
    board = state.games[0].pos.board
    by_kind = {k: sum(1 for m in moves if kind_of(board[m.from_square]) == k) for k in (1, 2, 3)}
    assert len(moves) == 78
    assert by_kind == {1: 0, 2: 26, 3: 52}
    assert moves_from(state, "A1") == set()
    assert len(legal_texts(new(START.replace("w W:", "b W:", 1)))) == 78
    basic = new(variant="secondary_basic")
    assert len(legal_texts(basic, seat=2)) == 78  # Gold, game wsq
    wsq = reference.parse(WSQ_START)
    assert len(reference.legal_moves(wsq)) == 78
    assert {t.replace("x", "-") for t in legal_texts(new())} == reference.move_names(
        reference.parse(START)
    )


def test_the_hand_check_of_pawn_o5() -> None:
    """The ruling's hand check: O-9 is reached by two paths and counted once."""
    # YI-10.1, YI-5.3.5, YI-R13
    assert "O9" in moves_from(new(), "O5")
    assert len(moves_from(new(), "O5")) == 14


def test_pawn_in_the_open() -> None:
    """A Pawn on I-10 alone: 18 destinations from 20 path end points (R-6 and R-14 twice)."""
    # YI-10.3, YI-5.3.1, YI-5.3.2, YI-5.3.4, YI-5.3.5, YI-R09, YI-R13
    state = new(ALONE.format("PI10"))
    assert moves_from(state, "I10") == dests(
        "Y-9 Y-11 I-8 I-12 O-5 O-7 O-9 O-11 O-13 O-15 R-6 R-8 R-12 R-14 A-5 A-7 A-13 A-15"
    )


def test_mage_in_the_open_and_among_men() -> None:
    """A Mage on O-11: 16 destinations alone; 13 with a Black Pawn on O-17 (captured, not
    passed) and a White Pawn on Y-11 (blocks the column inwards)."""
    # YI-10.4, YI-5.2.1, YI-5.2.2, YI-5.2.3, YI-R14
    state = new(ALONE.format("MO11"))
    assert moves_from(state, "O11") == dests(
        "O-1 O-3 O-5 O-7 O-9 O-13 O-15 O-17 O-19 O-21 Y-11 A-11 I-10 I-12 R-10 R-12"
    )
    state = new("w W:OA1,MO11,PY11 B:OA19,PO17 0 1")
    assert moves_from(state, "O11") == dests(
        "O-1 O-3 O-5 O-7 O-9 O-13 O-15 O-17 A-11 I-10 I-12 R-10 R-12"
    )
    assert "O11xO17" in legal_texts(state)


def test_mage_along_the_column_from_each_ring() -> None:
    """From Y or A two squares one way; from O one each way; from I or R only one square."""
    # YI-5.2.2, YI-R04, YI-R05
    column = {"Y": {"O", "A"}, "I": {"R"}, "O": {"Y", "A"}, "R": {"I"}}
    for ring, expected in column.items():
        c = 11 if ring in "YO" else 10
        found = {d[0] for d in moves_from(new(ALONE.format(f"M{ring}{c}")), f"{ring}{c}")
                 if d[1:] == str(c)}  # fmt: skip
        assert found == expected, ring
    a_mage = new("w W:OA1,MA7,PO7 B:OA19 0 1")  # the first square blocks the second
    assert not {d for d in moves_from(a_mage, "A7") if d[1:] == "7"}


def test_mage_along_the_ring_at_most_five_squares_across_the_seam() -> None:
    """Offsets ±2 … ±10 along the ring, also across column 36|1; a man ends the line."""
    # YI-5.2.1, YI-R03, YI-R05, YI-R12
    state = new("w W:OA1,MR34 B:OA19 0 1")
    ring = {d for d in moves_from(state, "R34") if d[0] == "R"}
    assert ring == dests("R-36 R-2 R-4 R-6 R-8 R-32 R-30 R-28 R-26 R-24")
    state = new("w W:OA1,MR34,PR4 B:OA19,PR30 0 1")
    ring = {d for d in moves_from(state, "R34") if d[0] == "R"}
    assert ring == dests("R-36 R-2 R-32 R-30")


def test_overlord_steps_diagonally_and_may_capture() -> None:
    """Two destinations from ring A or Y, four elsewhere; an Overlord captures like any man."""
    # YI-5.1, YI-R15
    assert moves_from(new("w W:OA1 B:OA19,PO25 0 1"), "A1") == {"R2", "R36"}
    assert moves_from(new("w W:OO11 B:OA19,PO25 0 1"), "O11") == dests("R-12 R-10 I-12 I-10")
    state = new("w W:OO11 B:OA19,PR12 0 1")
    assert "O11xR12" in legal_texts(state)


def test_nothing_jumps_and_capture_ends_the_move() -> None:
    """A Pawn stops at the first man of a path: an enemy is captured there and the path ends;
    an own man ends it before."""
    # YI-5.0, YI-5.3.3, YI-R12
    state = new("w W:OA1,PI10,PO13 B:OA19,PI12 0 1")
    found = moves_from(state, "I10")
    assert "I12" in found  # the capture after the reflection at Y-11
    assert "O13" not in found  # the own Pawn there
    assert "A15" not in found  # the fifth step of the path through I-12
    assert "R14" in found  # reached by the other path, out through A-13 (YI-5.3.5)


def test_pawn_reflects_and_stops_on_any_step() -> None:
    """A Pawn may stop on the reflecting ring itself and after it; direction dc is kept."""
    # YI-5.3.2, YI-5.3.4, YI-R09, YI-R10
    state = new(ALONE.format("PR8"))
    found = moves_from(state, "R8")
    assert {"A9", "R10", "O11", "I12", "Y13"} <= found  # out to A-9, reflect, back in
    assert {"A7", "R6", "O5", "I4", "Y3"} <= found
    assert "R8" not in found


def test_pawn_on_the_outer_ring_cannot_reflect_at_once() -> None:
    """From A the first step goes inwards; the Pawn reflects only at ring Y, four steps on."""
    # YI-5.3.1, YI-R11, YI-5.3.6, YI-R08
    state = new("w W:OA1,PA9 B:OA19 0 1")
    assert moves_from(state, "A9") == dests("R-10 O-11 I-12 Y-13 I-14 R-8 O-7 I-6 Y-5 I-4")


def test_two_paths_one_move() -> None:
    """From O-c both (+1,+1) and (−1,+1) reach O-(c ⊕ 4): legal if either path is clear, listed
    once, played the same way whichever is clear."""
    # YI-5.3.5, YI-R13
    state = new("w W:OA1,PO11 B:OA19,PR12 0 1")  # (+1,+1) is blocked at R-12 (captured there)
    assert "O15" in moves_from(state, "O11")
    texts = [t for t in legal_texts(state) if t.endswith("O15")]
    assert texts == ["O11-O15"]
    after, events = act(state, "O11-O15")
    assert after.games[0].pos.board[NAMES.index("O15")] & 3 == PAWN
    assert len(events) == 1


def test_a_pawn_has_no_forward_direction() -> None:
    """Both sides' Pawns move the same way in all four directions."""
    # YI-5.3.6, YI-R08
    white = moves_from(new("w W:OA1,PO11 B:OA19 0 1"), "O11")
    black = moves_from(new("b W:OA1 B:OA19,PO11 0 1"), "O11")
    assert white == black
    assert {d for d in white if d[0] in "YI"}
    assert {d for d in white if d[0] in "RA"}
