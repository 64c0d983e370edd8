"""The circular board: rings, columns, wrap-around, names, colours and the lattice (YI-1)."""

import pytest

from domain.yiora.geometry import (
    BLACK,
    COLOUR,
    COLUMN_RAYS,
    DIAGONAL,
    LATTICE,
    NAMES,
    PAWN_PATHS,
    RING_LETTERS,
    RING_RAYS,
    SQUARES,
    WHITE,
    column_of,
    display_name,
    parse_square,
    pawn_path,
    ring_of,
    square,
    wrap,
)
from tests.domain.yiora.helpers import sq


def names(squares: tuple[int, ...] | list[int] | set[int]) -> set[str]:
    return {NAMES[s] for s in squares}


def test_five_rings_innermost_first() -> None:
    """Rings Y, I, O, R, A are numbered 1 to 5 from the centre outwards."""
    # YI-1.1, YI-R01
    assert RING_LETTERS == "YIORA"
    assert [ring_of(sq(f"{letter}1")) for letter in "YIORA"] == [1, 2, 3, 4, 5]


def test_columns_wrap_round_the_seam() -> None:
    """Column arithmetic is cyclic: 36 ⊕ 1 = 1, 1 ⊕ −1 = 36, 35 ⊕ 2 = 1."""
    # YI-1.2, YI-R03
    assert wrap(36, 1) == 1
    assert wrap(1, -1) == 36
    assert wrap(35, 2) == 1
    assert wrap(19, 18) == 1
    assert wrap(1, 36) == 1


def test_180_squares_named_both_ways() -> None:
    """5 × 36 squares; `A-19` and `A19` name the same square; names print compact in moves and
    hyphenated in displays."""
    # YI-1.3
    assert len(SQUARES) == 180
    assert len(set(NAMES)) == 180
    a19 = square(5, 19)
    assert parse_square("A-19") == parse_square("A19") == parse_square("a19") == a19
    assert NAMES[a19] == "A19"
    assert display_name(a19) == "A-19"
    assert (ring_of(a19), column_of(a19)) == (5, 19)


@pytest.mark.parametrize("text", ["A0", "A37", "A-0", "B1", "A01", "A", "19", "A--19", "AA19"])
def test_names_outside_the_pattern_are_not_squares(text: str) -> None:
    # YI-1.3
    assert parse_square(text) is None


def test_colours_alternate_everywhere() -> None:
    """Black iff r + c is even: A-1 and A-19 black; colours alternate along rings and columns,
    across the 36|1 seam too; 18 of each colour per ring, 90 in all."""
    # YI-1.4, YI-R02
    assert COLOUR[sq("A1")] == COLOUR[sq("A19")] == BLACK
    assert COLOUR[sq("A2")] == WHITE
    for r in range(1, 6):
        ring = [COLOUR[square(r, c)] for c in range(1, 37)]
        assert ring.count(BLACK) == ring.count(WHITE) == 18
        assert all(ring[i] != ring[(i + 1) % 36] for i in range(36))  # across 36|1 as well
    for c in range(1, 37):
        assert all(COLOUR[square(r, c)] != COLOUR[square(r + 1, c)] for r in range(1, 5))
    assert len(LATTICE[BLACK]) == len(LATTICE[WHITE]) == 90


def test_the_centre_is_no_square_and_no_line_crosses_it() -> None:
    """No table leads off the rings; a column ends at ring Y (from Y it only goes outwards)."""
    # YI-1.5, YI-R04
    y5 = sq("Y5")
    assert names(DIAGONAL[y5]) == {"I4", "I6"}
    assert [names(ray) for ray in COLUMN_RAYS[y5]] == [{"O5", "A5"}]
    for s in SQUARES:
        for ray in COLUMN_RAYS[s]:
            assert all(column_of(t) == column_of(s) for t in ray)


def test_the_lattice_of_a_colour() -> None:
    """Diagonal neighbours (r ± 1, c ⊕ ±1), the next square along the ring (c ⊕ ±2) and along
    the column (r ± 2) all keep the colour: a game never sees the other colour."""
    # YI-1.6, YI-R05, YI-R24
    o11 = sq("O11")
    assert names(DIAGONAL[o11]) == {"R12", "R10", "I12", "I10"}
    assert [NAMES[ray[0]] for ray in RING_RAYS[o11]] == ["O13", "O9"]
    assert [names(ray) for ray in RING_RAYS[o11]] == [
        {"O13", "O15", "O17", "O19", "O21"},
        {"O9", "O7", "O5", "O3", "O1"},
    ]
    assert [names(ray) for ray in COLUMN_RAYS[o11]] == [{"A11"}, {"Y11"}]
    for s in SQUARES:
        reached = set(DIAGONAL[s]) | {t for ray in RING_RAYS[s] + COLUMN_RAYS[s]
                                              for t in ray}  # fmt: skip
        reached |= {t for path in PAWN_PATHS[s] for t in path}
        assert {COLOUR[t] for t in reached} == {COLOUR[s]}


def test_the_ring_lines_cross_the_seam() -> None:
    """From A-35 the ring goes on through A-1 (A-1, A-3, …) and back to A-25."""
    # YI-1.2, YI-1.6, YI-R03
    a35 = sq("A35")
    assert [NAMES[t] for t in RING_RAYS[a35][0]] == ["A1", "A3", "A5", "A7", "A9"]
    assert [NAMES[t] for t in RING_RAYS[a35][1]] == ["A33", "A31", "A29", "A27", "A25"]


def test_the_worked_pawn_path_reflects_at_ring_y() -> None:
    """From I-10 in direction (−1, +1): Y-11, reflect, I-12, O-13, R-14, A-15."""
    # YI-5.3.2, YI-R10
    assert [NAMES[t] for t in pawn_path(sq("I10"), -1, 1)] == ["Y11", "I12", "O13", "R14", "A15"]
    # at the outer ring, across the seam: out from, then back in
    assert [NAMES[t] for t in pawn_path(sq("R35"), 1, 1)] == ["A36", "R1", "O2", "I3", "Y4"]


def test_no_reflection_at_the_first_step() -> None:
    """A pawn on ring A or Y has only the directions that stay on the rings: two paths."""
    # YI-5.3.1, YI-R11
    assert pawn_path(sq("A1"), 1, 1) == ()
    assert len(PAWN_PATHS[sq("A1")]) == len(PAWN_PATHS[sq("Y1")]) == 2
    assert len(PAWN_PATHS[sq("O1")]) == 4
