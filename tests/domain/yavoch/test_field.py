"""The field of section 1 (Y-1.1 to Y-1.11, Y-R1 to Y-R4) and the field's worked examples."""

import itertools
from collections import Counter

import pytest

from domain.yavoch.field import (
    IN_LEVEL_DIRECTIONS,
    LEVELS,
    LINE_DIRECTIONS,
    LONG_VECTORS,
    PD,
    PERPENDICULAR_COLUMNS,
    POSITIONS,
    PU,
    SD,
    SHORT_VECTORS,
    SLANT_COLUMNS,
    SU,
    Direction,
    Position,
    Quadrant,
    above,
    adjacent_positions,
    below,
    coordinate_line,
    core_positions,
    is_adjacent,
    is_core,
    level_offset,
    level_positions,
    line,
    on_field,
    perpendicular_column,
    physical_xy,
    quadrant_of_roll,
    quadrant_positions,
    slant_column,
    step,
)
from domain.yavoch.notation import format_position, parse_position


def pos(text: str) -> Position:
    return parse_position(text)


def names(positions: tuple[Position, ...] | list[Position]) -> list[str]:
    return [format_position(p) for p in positions]


def test_field_has_125_positions_on_five_levels() -> None:
    """Y-1.1: 5 levels of 5 x 5, 125 distinct positions, level 1 bottom to 5 top."""
    # Y-1.1
    assert len(POSITIONS) == 125
    assert len(set(POSITIONS)) == 125
    assert LEVELS == (1, 2, 3, 4, 5)
    assert all(len(level_positions(lv)) == 25 for lv in LEVELS)
    assert all(on_field(*p) for p in POSITIONS)
    assert POSITIONS[0] == Position(1, 1, 1)
    assert POSITIONS[-1] == Position(5, 5, 5)
    assert list(POSITIONS) == sorted(POSITIONS)
    for bad in [(0, 1, 1), (6, 1, 1), (1, 0, 1), (1, 6, 1), (1, 1, 0), (1, 1, 6)]:
        assert not on_field(*bad)
    with pytest.raises(ValueError, match=r"Y-1\.1"):
        level_positions(6)


def test_directions() -> None:
    """Y-1.3: 4 short, 4 long, PU/PD, SU/SD; 8 in-level and 12 line directions."""
    # Y-1.3
    assert set(SHORT_VECTORS) == {(0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)}
    assert set(LONG_VECTORS) == {(0, 1, 1), (0, 1, -1), (0, -1, 1), (0, -1, -1)}
    assert (PU, PD, SU, SD) == ((1, -1, -1), (-1, 1, 1), (1, 0, 0), (-1, 0, 0))
    assert len(set(IN_LEVEL_DIRECTIONS)) == 8
    assert all(d.dlevel == 0 for d in IN_LEVEL_DIRECTIONS)
    assert len(set(LINE_DIRECTIONS)) == 12
    # every line direction has its opposite among the line directions
    assert {Direction(-d.dlevel, -d.dx, -d.dy) for d in LINE_DIRECTIONS} == set(LINE_DIRECTIONS)


def test_y_5_13_example_long_vector_plus_pu_is_su() -> None:
    """Y-1.3 (as used by Y-5.13): (0,+1,+1) + PU = SU."""
    # Y-1.3, Y-5.13
    d = Direction(0, 1, 1)
    assert Direction(d.dlevel + PU.dlevel, d.dx + PU.dx, d.dy + PU.dy) == SU


def test_offset_one_long_step_per_level() -> None:
    """Y-1.4 / Y-R1: straight above (L,x,y) is (L+1,x-1,y-1); levels shift one long step."""
    # Y-1.4, Y-R1
    assert above(pos("333")) == pos("422")
    assert below(pos("333")) == pos("244")
    assert above(pos("511")) is None  # top level
    assert above(pos("311")) is None  # x-1 = 0: nothing of level 4 is straight above
    assert below(pos("155")) is None
    assert [level_offset(lv) for lv in LEVELS] == [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)]
    for p in POSITIONS:
        q = above(p)
        assert q is None or (physical_xy(q) == physical_xy(p) and q.level == p.level + 1)
        assert q is None or below(q) == p


def test_slant_columns() -> None:
    """Y-1.5: for fixed (x, y) the 5 positions (1..5, x, y): 25 slant columns of 5."""
    # Y-1.5
    assert len(SLANT_COLUMNS) == 25
    assert all(len(c) == 5 for c in SLANT_COLUMNS)
    assert sorted(p for c in SLANT_COLUMNS for p in c) == list(POSITIONS)
    # Y-1.5 worked example: "at position 4, 3 on one level ... land on position 4, 3"
    assert names(slant_column(pos("243"))) == ["143", "243", "343", "443", "543"]
    assert line(pos("143"), SU) == slant_column(pos("143"))[1:]


def test_perpendicular_columns_are_61() -> None:
    """Y-1.6: 61 columns of equal (x+L, y+L): 1 of length 5, 6 of 4, 12 of 3, 18 of 2, 24 of 1."""
    # Y-1.6
    assert len(PERPENDICULAR_COLUMNS) == 61
    assert Counter(len(c) for c in PERPENDICULAR_COLUMNS) == {5: 1, 4: 6, 3: 12, 2: 18, 1: 24}
    assert sorted(p for c in PERPENDICULAR_COLUMNS for p in c) == list(POSITIONS)
    for c in PERPENDICULAR_COLUMNS:
        assert len({(p.x + p.level, p.y + p.level) for p in c}) == 1
        # bottom to top, consecutive positions one PU apart
        assert all(step(a, PU) == b for a, b in itertools.pairwise(c))
    # Y-1.6 worked example: the one column of length 5
    (longest,) = [c for c in PERPENDICULAR_COLUMNS if len(c) == 5]
    assert names(longest) == ["155", "244", "333", "422", "511"]
    assert perpendicular_column(pos("333")) == longest
    assert perpendicular_column(pos("111")) == (pos("111"),)


def _column_count(dx: int, dy: int) -> int:
    """Columns when the level above is offset by (dx, dy) per level."""
    return len({(p.x - dx * p.level, p.y - dy * p.level) for p in POSITIONS})


def test_offset_conformance_check() -> None:
    """Y-1.4 / Y-1.6 / Y-R1: every one-long-step offset gives 61 columns, one short step 45."""
    # Y-1.4, Y-1.6, Y-R1
    assert _column_count(-1, -1) == len(PERPENDICULAR_COLUMNS) == 61
    assert {_column_count(dx, dy) for dx in (1, -1) for dy in (1, -1)} == {61}
    assert {_column_count(1, 0), _column_count(0, 1), _column_count(-1, 0)} == {45}


def test_adjacency() -> None:
    """Y-1.7: same level, max(|dx|,|dy|) = 1, at most 8 neighbours; never across levels."""
    # Y-1.7
    assert names(adjacent_positions(pos("333"))) == [
        "343", "323", "334", "332", "344", "342", "324", "322",
    ]  # fmt: skip
    assert sorted(names(adjacent_positions(pos("111")))) == ["112", "121", "122"]
    assert Counter(len(adjacent_positions(p)) for p in level_positions(1)) == {8: 9, 5: 12, 3: 4}
    for p in POSITIONS:
        for q in POSITIONS:
            assert is_adjacent(p, q) == (q in adjacent_positions(p))
    assert not is_adjacent(pos("333"), pos("333"))
    assert not is_adjacent(pos("333"), pos("433"))  # a column step is not adjacency
    assert not is_adjacent(pos("333"), pos("422"))


def test_worked_example_a4_blast_zone_is_the_adjacent_positions() -> None:
    """Y-1.7 with Appendix A4: the positions adjacent to 333."""
    # Y-1.7, A4
    expected = ["322", "323", "324", "332", "334", "342", "343", "344"]
    assert sorted(names(adjacent_positions(pos("333")))) == expected


def test_lines() -> None:
    """Y-1.8: p+d, p+2d, ... while on the field."""
    # Y-1.8 with Appendix A8: HEP CAT line from 111 along (0,+1,+1)
    assert names(line(pos("111"), Direction(0, 1, 1))) == ["122", "133", "144", "155"]
    # Appendix A1: the long-vector lines and the perpendicular column from 333
    reached = {
        q for d in (*LONG_VECTORS, PU, PD) for q in line(pos("333"), d)
    }  # fmt: skip
    assert sorted(names(list(reached))) == sorted(
        ["311", "315", "322", "324", "342", "344", "351", "355", "422", "511", "244", "155"]
    )
    # Appendix A2: the short-vector lines and the slant column from 333
    reached = {q for d in (*SHORT_VECTORS, SU, SD) for q in line(pos("333"), d)}
    assert sorted(names(list(reached))) == sorted(
        ["313", "323", "331", "332", "334", "335", "343", "353", "433", "533", "233", "133"]
    )
    # Appendix A2: 12 such positions from every position of an empty field
    for p in POSITIONS:
        assert sum(len(line(p, d)) for d in (*SHORT_VECTORS, SU, SD)) == 12
    assert line(pos("555"), Direction(0, 1, 1)) == ()


def test_worked_example_a3_one_step_in_every_line_direction() -> None:
    """Y-1.3 / Y-1.8 with Appendix A3: one step in each of the 12 line directions."""
    # Y-1.3, A3
    at_333 = [step(pos("333"), d) for d in LINE_DIRECTIONS]
    assert sorted(names([q for q in at_333 if q])) == sorted(
        ["322", "323", "324", "332", "334", "342", "343", "344", "422", "244", "433", "233"]
    )
    at_111 = [step(pos("111"), d) for d in LINE_DIRECTIONS]
    assert sorted(names([q for q in at_111 if q])) == ["112", "121", "122", "211"]


def test_core_positions_board_lines() -> None:
    """Y-1.9 / Y-R2: x = 3 or y = 3 on every level: 9 per level, 45 in all (default)."""
    # Y-1.9, Y-R2
    core = core_positions()
    assert len(core) == 45
    assert core == core_positions("board_lines")
    for lv in LEVELS:
        assert sum(1 for p in core if p.level == lv) == 9
    assert all((p.x == 3 or p.y == 3) == is_core(p) for p in POSITIONS)
    assert is_core(pos("333"))
    assert is_core(pos("531"))
    assert not is_core(pos("122"))


def test_core_positions_physical_lines() -> None:
    """Y-1.9: `physical_lines`: x = 6-L or y = 6-L, straight above level 3's centre lines."""
    # Y-1.9
    core = core_positions("physical_lines")
    assert len(core) == 45
    # the centre lines of level 3, as physical lines, extended over the whole field
    (line_x,) = {physical_xy(p)[0] for p in level_positions(3) if p.x == 3}
    (line_y,) = {physical_xy(p)[1] for p in level_positions(3) if p.y == 3}
    assert set(core) == {
        p for p in POSITIONS if line_x == physical_xy(p)[0] or line_y == physical_xy(p)[1]
    }
    assert all(sum(1 for p in core if p.level == lv) == 9 for lv in LEVELS)
    # Y-R2: on level 3 every reading agrees
    on_3 = [p for p in core if p.level == 3]
    assert on_3 == [p for p in core_positions() if p.level == 3]
    assert is_core(pos("151"), "physical_lines")
    assert not is_core(pos("133"), "physical_lines")
    with pytest.raises(ValueError, match=r"Y-1\.9"):
        is_core(pos("333"), "dotted")  # type: ignore[arg-type]


def test_quadrants() -> None:
    """Y-1.10 / Y-R3: rolls 6..9 name Alpha, Beta, Gamma, Delta: 3 x 3 blocks with boundary."""
    # Y-1.10, Y-R3
    assert [quadrant_of_roll(r) for r in (6, 7, 8, 9)] == [
        Quadrant.ALPHA, Quadrant.BETA, Quadrant.GAMMA, Quadrant.DELTA,
    ]  # fmt: skip
    assert [q.roll for q in Quadrant] == [6, 7, 8, 9]
    blocks = {q: set(quadrant_positions(q)) for q in Quadrant}
    assert all(len(b) == 9 and all(p.level == 3 for p in b) for b in blocks.values())
    assert blocks[Quadrant.ALPHA] == {p for p in level_positions(3) if p.x <= 3 and p.y <= 3}
    assert blocks[Quadrant.BETA] == {p for p in level_positions(3) if p.x >= 3 and p.y <= 3}
    assert blocks[Quadrant.GAMMA] == {p for p in level_positions(3) if p.x >= 3 and p.y >= 3}
    assert blocks[Quadrant.DELTA] == {p for p in level_positions(3) if p.x <= 3 and p.y >= 3}
    # together they cover level 3; they overlap exactly on the dotted (core) positions
    assert set.union(*blocks.values()) == set(level_positions(3))
    shared = {p for p in level_positions(3) if sum(p in b for b in blocks.values()) > 1}
    assert shared == {p for p in core_positions() if p.level == 3}
    assert set.intersection(*blocks.values()) == {pos("333")}
    assert names(quadrant_positions(Quadrant.ALPHA, level=1))[0] == "111"
    for bad in (0, 5, 10):
        with pytest.raises(ValueError, match=r"Y-1\.10"):
            quadrant_of_roll(bad)


def test_coordinate_lines() -> None:
    """Y-1.11 / Y-R4: line n of a level is x = n or y = n: 9 positions."""
    # Y-1.11, Y-R4
    for lv in LEVELS:
        for n in range(1, 6):
            positions = coordinate_line(n, lv)
            assert len(positions) == 9
            assert set(positions) == {p for p in level_positions(lv) if n in (p.x, p.y)}
    assert sorted(names(coordinate_line(1))) == sorted(
        ["311", "312", "313", "314", "315", "321", "331", "341", "351"]
    )
    # Y-R46: line 3 of level 3 is the core of level 3
    assert set(coordinate_line(3)) == {p for p in core_positions() if p.level == 3}
    for bad in (0, 6):
        with pytest.raises(ValueError, match=r"Y-1\.11"):
            coordinate_line(bad)
