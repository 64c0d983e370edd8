"""Geometry, cube names, move notation and 3D-FEN round trips (section 1)."""

from domain.chess3d import CHESS3D, STARTING_FEN, Command, Move, parse_square, square_name
from domain.chess3d.geometry import (
    BISHOP_VECTORS,
    DIAGONAL_VECTORS,
    KNIGHT_VECTORS,
    ROOK_VECTORS,
    SQUARES,
    TRIAGONAL_VECTORS,
    VECTORS,
    VERTICAL_DIAGONAL_VECTORS,
    is_dark,
)
from domain.core import Rejection
from tests.domain.chess3d.helpers import act, fen_of, new, play


def test_cube_names_round_trip_and_accept_lower_case() -> None:
    """C3-1.1 / C3-1.2: 192 cubes, names round-trip, lower case accepted, output upper."""
    # C3-1.1, C3-1.2
    assert len(SQUARES) == 192
    assert all(parse_square(square_name(sq)) == sq for sq in SQUARES)
    assert square_name(parse_square("iie4") or 0) == "IIE4"
    assert parse_square("IVE4") is None
    assert parse_square("IIE9") is None


def test_cube_colour_is_level_independent() -> None:
    """C3-1.3 / C3-R02: A1 dark, B1 light, on every level."""
    # C3-1.3, C3-R02
    for level in ("I", "II", "III"):
        assert is_dark(parse_square(f"{level}A1") or 0)
        assert not is_dark(parse_square(f"{level}B1") or 0)


def test_direction_classes() -> None:
    """C3-1.4: 26 directions: 6 rook-like (4+2), 4 diagonals, 8 vertical diagonals, 8 triagonals;
    C3-5.5: 24 knight vectors."""
    # C3-1.4, C3-5.5
    assert len(VECTORS) == 26
    assert (len(ROOK_VECTORS), len(DIAGONAL_VECTORS)) == (6, 4)
    assert (len(VERTICAL_DIAGONAL_VECTORS), len(TRIAGONAL_VECTORS)) == (8, 8)
    assert len(BISHOP_VECTORS) == 12
    assert len(KNIGHT_VECTORS) == 24


def test_starting_fen_round_trip() -> None:
    """C3-1.8: the starting position's 3D-FEN is exactly the ruling's string."""
    # C3-1.8, C3-3.1, C3-3.2
    state = new()
    assert CHESS3D.position(state) == STARTING_FEN
    assert CHESS3D.position(new(STARTING_FEN)) == STARTING_FEN


def test_fen_round_trips_after_moves() -> None:
    """C3-1.8: every field (ep cube, rights, clocks, demand clock) survives a round trip."""
    # C3-1.8
    state, _ = act(play(new(), "IE2-IE4", "IIIE7-IIE7"), "demand-mate")
    state = play(state, "IE4-IE5", "IIID7-IIID5")
    fen = CHESS3D.position(state)
    assert fen.split()[3:] == ["IIID6", "ABCDFGHabcfgh", "0", "3", "2"]
    assert CHESS3D.position(new(fen)) == fen


def test_parse_accepts_all_written_forms() -> None:
    """C3-1.7: `-`, `x` or no separator; lower case; `=` optional; check marks ignored."""
    # C3-1.7
    state = new(fen_of({"IA1": "K", "IIB7": "P", "IIIH8": "k", "IIIC8": "n"}))
    expected = CHESS3D.parse_action(state, 0, "IIB7xIIIC8=N")
    for text in ("iib7xiiic8=n", "IIB7-IIIC8N", "IIB7IIIC8n", "IIB7 x IIIC8 = N", "IIB7xIIIC8=N+"):
        assert CHESS3D.parse_action(state, 0, text) == expected, text
    assert expected == Move(parse_square("IIB7") or 0, parse_square("IIIC8") or 0, 2)
    assert CHESS3D.format_action(state, expected) == "IIB7xIIIC8=N"  # type: ignore[arg-type]
    assert CHESS3D.parse_action(state, 0, " Resign ") == Command.RESIGN


def test_castling_notation_for_each_side() -> None:
    """C3-1.7 / C3-6.3.4: O-O and O-O-O mean the King's two-cube move of the seat."""
    # C3-1.7, C3-6.3.4
    men = {"IE1": "K", "IA1": "R", "IH1": "R", "IIIE8": "k", "IIIA8": "r", "IIIH8": "r"}
    state = new(fen_of(men, rest="KQkq - - 0 1 -"))
    white = CHESS3D.parse_action(state, 0, "O-O")
    black = CHESS3D.parse_action(state, 1, "O-O-O")
    assert not isinstance(white, Rejection)
    assert not isinstance(black, Rejection)
    assert CHESS3D.format_action(state, white) == "IE1-IG1"
    assert CHESS3D.format_action(state, black) == "IIIE8-IIIC8"
    assert CHESS3D.parse_action(state, 0, "0-0-0") == CHESS3D.parse_action(state, 0, "IE1-IC1")


def test_en_passant_written_as_capture() -> None:
    """C3-1.7: en passant is written with `x` and may carry ` e.p.`."""
    # C3-1.7, C3-6.2
    fen = fen_of({"IA1": "K", "IIIE5": "P", "IIIH8": "k", "IIID7": "p"}, "b", "- - d 0 1 -")
    state = play(new(fen), "IIID7-IIID5")
    action = CHESS3D.parse_action(state, 0, "IIIE5-IIID6 e.p.")
    assert not isinstance(action, Rejection)
    assert CHESS3D.format_action(state, action) == "IIIE5xIIID6"


def test_render_and_view() -> None:
    """render shows the three levels with coordinates; view is JSON-ready; visible is identity."""
    # C3-1.2
    state = new()
    picture = CHESS3D.render(state)
    assert "Level I" in picture
    assert "Level III" in picture
    assert picture.splitlines()[1].startswith("8 ")
    assert "A B C D E F G H" in picture
    view = CHESS3D.view(state, 0)
    assert view["fen"] == STARTING_FEN
    assert (view["side_to_move"], view["in_check"], view["result"]) == ("white", False, None)
    created = CHESS3D.create("")
    assert CHESS3D.visible(created, 1) is created
    assert CHESS3D.to_act(state) == frozenset({0})
