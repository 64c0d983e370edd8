"""Piece movement, special moves and the ruling's reference data (sections 5, 6 and 9)."""

from collections import Counter

from domain.chess3d import CHESS3D, Move
from domain.chess3d.geometry import KIND_LETTERS, NAMES
from tests.domain.chess3d.helpers import act, fen_of, legal_texts, moves_from, new, play

START_MOVES = {
    "IA1": "IIA1 IIIA1",
    "IB1": "IA3 IC3 IIB3 IID1 IIIA1 IIIB2 IIIC1",
    "IC1": "IIB2 IID2 IIIA3 IIIE3",
    "ID1": "IIC1 IIC2 IID1 IID2 IIE1 IIE2 IIIB1 IIIB3 IIID1 IIID3 IIIF1 IIIF3",
    "IE1": "IID1 IID2 IIE1 IIE2 IIF1 IIF2",
    "IF1": "IIE2 IIG2 IIID3 IIIH3",
    "IG1": "IF3 IH3 IIE1 IIG3 IIIF1 IIIG2 IIIH1",
    "IH1": "IIH1 IIIH1",
}


def test_start_position_has_76_moves_with_the_listed_destinations() -> None:
    """C3-9.1: 76 first moves, per piece and per cube exactly as listed."""
    # C3-9.1
    state = new()
    moves = [a for a in CHESS3D.legal_actions(state, 0) if isinstance(a, Move)]
    assert len(moves) == 76
    kinds = Counter(KIND_LETTERS[state.pos.board[m.from_square] & 7] for m in moves)
    assert kinds == {"P": 32, "N": 14, "Q": 12, "B": 8, "K": 6, "R": 4}
    for cube, destinations in START_MOVES.items():
        assert moves_from(state, cube) == set(destinations.split()), cube
    for f in "ABCDEFGH":
        assert moves_from(state, f"I{f}2") == {f"I{f}3", f"I{f}4", f"II{f}2", f"III{f}2"}


def test_start_position_with_18_queen_directions_has_70_moves() -> None:
    """C3-9.1 / C3-0.2: with queen_directions=18 the queen has 6 moves, 70 in all."""
    # C3-9.1, C3-5.3
    state = new(variant="queen_directions=18")
    assert len([a for a in CHESS3D.legal_actions(state, 0) if isinstance(a, Move)]) == 70
    assert moves_from(state, "ID1") == {"IIC2", "IIE2", "IIIB3", "IIIF3", "IID1", "IIID1"}


def test_perft_2_is_5768() -> None:
    """C3-9.2: perft(2) = 76 x 76 - 8."""
    # C3-9.2
    assert CHESS3D.perft(new(), 1) == 76
    assert CHESS3D.perft(new(), 2) == 5768


def test_black_has_76_replies_to_a_pawn_move() -> None:
    """C3-9.1 note: by symmetry Black also has 76 replies to most White moves."""
    # C3-9.1
    assert len(legal_texts(play(new(), "IA2-IA3"))) == 76


EXAMPLE_A = {
    "K": "ID3 ID4 ID5 IE3 IE4 IE5 IF3 IF4 IF5 IID3 IID4 IID5 IIE3 IIE5 IIF3 IIF4 IIF5 "
    "IIID3 IIID4 IIID5 IIIE3 IIIE4 IIIE5 IIIF3 IIIF4 IIIF5",
    "R": "IE4 IIIE4 IIA4 IIB4 IIC4 IID4 IIF4 IIG4 IIH4 IIE1 IIE2 IIE3 IIE5 IIE6 IIE7 IIE8",
    "B": "IIB1 IIC2 IID3 IIF5 IIG6 IIH7 IIA8 IIB7 IIC6 IID5 IIF3 IIG2 IIH1 ID3 ID5 IF3 IF5 "
    "IIID3 IIID5 IIIF3 IIIF5",
    "N": "IIC3 IIC5 IID2 IID6 IIF2 IIF6 IIG3 IIG5 IC4 IE2 IE6 IG4 IIIC4 IIIE2 IIIE6 IIIG4",
}
QUEEN_EXTRA = (
    "IIA4 IIB4 IIC4 IIG4 IIH4 IIE1 IIE2 IIE6 IIE7 IIE8 IIB1 IIC2 IIG6 IIH7 IIA8 IIB7 IIC6 IIG2 IIH1"
)


def _example_a(man: str) -> set[str]:
    if man == "K":
        state = new(fen_of({"IIE4": "K", "IIIH8": "k"}))
    else:
        state = new(fen_of({"IIE4": man, "IA8": "K", "IIIH1": "k"}))
    return moves_from(state, "IIE4")


def test_example_a_king_26() -> None:
    """C3-9.3 / C3-5.1: the King on IIE4 has the 26 listed destinations."""
    # C3-5.1, C3-R04
    assert _example_a("K") == set(EXAMPLE_A["K"].split())
    assert len(_example_a("K")) == 26


def test_example_a_queen_45_and_37() -> None:
    """C3-9.3 / C3-5.3: the Queen on IIE4 has 45 destinations (37 with 18 directions)."""
    # C3-5.3, C3-R05, C3-R06
    expected = set(EXAMPLE_A["K"].split()) | set(QUEEN_EXTRA.split())
    assert _example_a("Q") == expected
    assert len(expected) == 45
    state = new(fen_of({"IIE4": "Q", "IA8": "K", "IIIH1": "k"}), "queen_directions=18")
    assert len(moves_from(state, "IIE4")) == 37
    assert "ID4" not in moves_from(state, "IIE4")


def test_example_a_rook_16() -> None:
    """C3-9.3 / C3-5.2: the Rook on IIE4 has 16 destinations."""
    # C3-5.2, C3-R07
    assert _example_a("R") == set(EXAMPLE_A["R"].split())


def test_example_a_bishop_21_stays_on_its_colour() -> None:
    """C3-9.3 / C3-5.4: the Bishop on IIE4 has 21 destinations, no vertical diagonals."""
    # C3-5.4, C3-R08, C3-R09
    assert _example_a("B") == set(EXAMPLE_A["B"].split())
    assert "IID4" not in _example_a("B")


def test_example_a_knight_16_and_from_level_one() -> None:
    """C3-9.3 / C3-5.5: the Knight on IIE4 has 16 destinations, from IE4 also 16."""
    # C3-5.5, C3-R10
    assert _example_a("N") == set(EXAMPLE_A["N"].split())
    state = new(fen_of({"IE4": "N", "IA8": "K", "IIIH1": "k"}))
    assert len(moves_from(state, "IE4")) == 16
    assert {"IIID4", "IIIE3", "IIIE5", "IIIF4"} <= moves_from(state, "IE4")


def test_example_b_pawn_moves_and_captures() -> None:
    """C3-9.4: the moved pawn on IIE4 has exactly IE4, IIIE4 and three captures."""
    # C3-9.4, C3-5.6.1, C3-5.6.3, C3-R13
    state = new(
        fen_of(
            {
                "IA1": "K",
                "IIE4": "P",
                "IIF5": "N",
                "IIIH8": "k",
                "IID5": "n",
                "IIIF5": "b",
                "IE5": "r",
                "IIE5": "p",
            }
        )
    )
    texts = {t for t in legal_texts(state) if t.startswith("IIE4")}
    assert texts == {"IIE4-IE4", "IIE4-IIIE4", "IIE4xIID5", "IIE4xIIIF5", "IIE4xIE5"}


def test_example_b_unmoved_pawn_with_level_moves_blocked() -> None:
    """C3-9.4: a never-moved pawn IE2 with IIE2 occupied has exactly IE3 and IE4."""
    # C3-9.4, C3-5.6.2
    state = new(fen_of({"IA1": "K", "IE2": "P", "IIIH8": "k", "IIE2": "n"}, rest="- - E 0 1 -"))
    assert moves_from(state, "IE2") == {"IE3", "IE4"}


def test_pawn_first_move_four_ways() -> None:
    """C3-R12: a never-moved pawn may go IE3, IE4, IIE2, IIIE2."""
    # C3-5.6.2, C3-R12
    assert moves_from(new(), "IE2") == {"IE3", "IE4", "IIE2", "IIIE2"}


def test_example_c_en_passant() -> None:
    """C3-9.5: after IIID7-IIID5 three White pawns may take en passant on IIID6."""
    # C3-6.2, C3-R14
    fen = fen_of(
        {"IA1": "K", "IIE5": "P", "IIIC5": "P", "IID5": "P", "ID5": "P", "IIIH8": "k",
         "IIID7": "p"}, side="b", rest="- - d 0 1 -",
    )  # fmt: skip
    state = play(new(fen), "IIID7-IIID5")
    assert CHESS3D.position(state).split()[3] == "IIID6"
    texts = legal_texts(state)
    assert {t for t in texts if t.startswith("IIE5")} == {
        "IIE5-IE5", "IIE5-IIIE5", "IIE5-IIE6", "IIE5xIIID6"
    }  # fmt: skip
    assert {t for t in texts if t.startswith("IIIC5")} == {"IIIC5-IIC5", "IIIC5-IIIC6",
                                                          "IIIC5xIIID6"}  # fmt: skip
    assert {t for t in texts if t.startswith("IID5")} == {"IID5-IID6", "IID5xIIID6"}
    assert {t for t in texts if t.startswith("ID5")} == {"ID5-ID6"}
    after, _events = act(state, "IIE5xIIID6")
    assert "IIID5" not in {NAMES[i] for i, p in enumerate(after.pos.board) if p == 0x21}
    assert after.pos.board.count(0x21) == 0  # the passed pawn was removed (C3-6.2.2)


def test_en_passant_lapses_after_one_move() -> None:
    """C3-6.2.3: the en-passant right lapses if not used at once."""
    # C3-6.2.3
    fen = fen_of({"IA1": "K", "IIIE5": "P", "IIIH8": "k", "IIID7": "p", "IIIA7": "p"},
                 side="b", rest="- - ad 0 1 -")  # fmt: skip
    state = play(new(fen), "IIID7-IIID5")
    assert "IIIE5xIIID6" in legal_texts(state)
    state = play(state, "IA1-IA2", "IIIA7-IIIA6")
    assert "IIIE5xIIID6" not in legal_texts(state)


def test_two_level_double_step_creates_no_en_passant_cube() -> None:
    """C3-6.2.4: IE2-IIIE2 leaves the en-passant field empty; IE2-IE4 sets IE3."""
    # C3-6.2.4, C3-6.2.1
    assert CHESS3D.position(play(new(), "IE2-IIIE2")).split()[3] == "-"
    assert CHESS3D.position(play(new(), "IE2-IE4")).split()[3] == "IE3"


def test_double_step_right_lost_by_a_level_step() -> None:
    """C3-R12: IE2-IIE2 and back ends the double-step right permanently."""
    # C3-R12, C3-5.6.2
    state = play(new(), "IE2-IIE2", "IIIA7-IIIA6", "IIE2-IE2", "IIIA6-IIIA5")
    assert CHESS3D.position(state).split()[4] == "ABCDFGHbcdefgh"
    assert moves_from(state, "IE2") == {"IE3", "IIE2"}  # no IE4, no IIIE2


def test_example_d_castling_with_bishop_attack_from_another_level() -> None:
    """C3-9.6: the Bishop on IIIH3 attacks IF1; only queen-side castling remains (11 moves)."""
    # C3-6.3.3, C3-R16
    state = new(fen_of({"IE1": "K", "IA1": "R", "IH1": "R", "IIIE8": "k", "IIIH3": "b"},
                       rest="KQ - - 0 1 -"))  # fmt: skip
    assert moves_from(state, "IE1") == {
        "IC1",
        "ID1",
        "ID2",
        "IE2",
        "IF2",
        "IID1",
        "IID2",
        "IIE1",
        "IIE2",
        "IIF1",
        "IIF2",
    }


def test_example_d_castling_with_rook_attack_from_another_level() -> None:
    """C3-9.6: a Rook on IIIC1 attacks IC1 vertically; only king-side castling (12 moves)."""
    # C3-6.3.3, C3-R16
    state = new(fen_of({"IE1": "K", "IA1": "R", "IH1": "R", "IIIE8": "k", "IIIC1": "r"},
                       rest="KQ - - 0 1 -"))  # fmt: skip
    assert moves_from(state, "IE1") == {
        "ID1",
        "ID2",
        "IE2",
        "IF1",
        "IF2",
        "IG1",
        "IID1",
        "IID2",
        "IIE1",
        "IIE2",
        "IIF1",
        "IIF2",
    }


def test_castling_moves_the_rook_and_is_written_as_the_king_move() -> None:
    """C3-6.3.2 / C3-6.3.4 / C3-1.7: O-O and O-O-O for both sides."""
    # C3-6.3.2, C3-6.3.4, C3-1.7
    men = {"IE1": "K", "IA1": "R", "IH1": "R", "IIIE8": "k", "IIIA8": "r", "IIIH8": "r"}
    state, events = act(new(fen_of(men, rest="KQkq - - 0 1 -")), "O-O")
    assert events[0].move == "IE1-IG1"  # type: ignore[attr-defined]
    state, events = act(state, "o-o-o")
    assert events[0].move == "IIIE8-IIIC8"  # type: ignore[attr-defined]
    placement = CHESS3D.position(state).split()[0]
    assert placement == "8/8/8/8/8/8/8/R4RK1|8/8/8/8/8/8/8/8|2kr3r/8/8/8/8/8/8/8"
    assert CHESS3D.position(state).split()[2] == "-"


def test_castling_right_lost_by_a_level_move_and_back() -> None:
    """C3-6.3.3 (a): a Rook IA1-IIA1-IA1 loses Q; a King IE1-IIE1-IE1 loses both."""
    # C3-6.3.3
    men = {"IE1": "K", "IA1": "R", "IH1": "R", "IIIE8": "k", "IIIA8": "r", "IIIH8": "r"}
    state = play(new(fen_of(men, rest="KQkq - - 0 1 -")), "IA1-IIA1", "IIIE8-IIIE7",
                 "IIA1-IA1")  # fmt: skip
    assert CHESS3D.position(state).split()[2] == "K"
    state = play(state, "IIIE7-IIIE8", "IE1-IIE1", "IIIE8-IIIE7", "IIE1-IE1")
    assert CHESS3D.position(state).split()[2] == "-"
    assert "IE1-IG1" not in legal_texts(state)


def test_promotion_to_each_piece_by_step_and_capture() -> None:
    """C3-6.1: a pawn reaching rank 8 on any level becomes Q, R, B or N, never stays a pawn."""
    # C3-6.1, C3-R15, C3-5.6.4
    fen = fen_of({"IA1": "K", "IIB7": "P", "IIIH8": "k", "IIIC8": "n"})
    state = new(fen)
    texts = {t for t in legal_texts(state) if t.startswith("IIB7")}
    assert texts == {
        f"IIB7{sep}{cube}={p}" for sep, cube in (("-", "IIB8"), ("x", "IIIC8")) for p in "QRBN"
    } | {"IIB7-IB7", "IIB7-IIIB7"}
    for letter in "QRBN":
        after = play(state, f"IIB7-IIB8={letter}")
        assert CHESS3D.position(after).split()[0].split("|")[1].startswith(f"1{letter}6")
    after = play(state, "iib7xiiic8n")
    assert CHESS3D.position(after).split()[0].split("|")[2] == "2N4k/8/8/8/8/8/8/8"


def test_black_promotes_on_rank_one() -> None:
    """C3-6.1: Black promotes on rank 1 of any level."""
    # C3-6.1
    state = new(fen_of({"IIIA8": "K", "IE2": "p", "IH8": "k"}, side="b"))
    assert {t for t in legal_texts(state) if t.startswith("IE2-IE1")} == {
        f"IE2-IE1={p}" for p in "QRBN"
    }


def test_pinned_man_and_king_moves_into_check() -> None:
    """C3-4.2 / C3-R19: a pinned man may move only along the pin; the King never into check."""
    # C3-4.2, C3-R19, C3-6.4
    state = new(fen_of({"IE1": "K", "IIE1": "R", "IIIE1": "r", "IH8": "k"}))
    assert moves_from(state, "IIE1") == {"IIIE1"}
    state = new(fen_of({"IE1": "K", "IID5": "r", "IH8": "k"}))
    destinations = moves_from(state, "IE1")
    assert "IID1" not in destinations
    assert "IID2" not in destinations
    assert "IIE1" in destinations


def test_interposition_answers_check() -> None:
    """C3-R17 / C3-6.4: a check may be parried by interposing a man."""
    # C3-R17, C3-6.4
    state = new(fen_of({"IE1": "K", "ID3": "N", "IE8": "r", "IIIH8": "k"}))
    assert state.pos.check
    assert legal_texts(state) >= {"ID3-IE5"}
    assert "ID3-IB4" not in legal_texts(state)


def test_attacked_king_neighbour_cubes_from_other_levels() -> None:
    """C3-6.4: attacks from any level count; King moves to attacked cubes are not generated."""
    # C3-6.4, C3-5.1
    state = new(fen_of({"IE1": "K", "IIIF2": "r", "IH8": "k"}))
    destinations = moves_from(state, "IE1")
    assert "IF2" not in destinations  # attacked vertically from level III
    assert "IIF2" not in destinations
    assert "IE2" in destinations
