"""Every Rejection path of decide/parse_action, and variant / position errors."""

import msgspec
import pytest

from contracts.errors import ErrorCode
from domain.chess3d import CHESS3D, Move, parse_square
from domain.core import Rejection, VariantError
from tests.domain.chess3d.helpers import act, fen_of, new, play, refuse

CASTLE = {"IE1": "K", "IA1": "R", "IH1": "R", "IIIE8": "k"}


def _illegal(state: object, text: str, clause: str) -> str:
    rejection = refuse(state, text)  # type: ignore[arg-type]
    assert (rejection.code, rejection.clause) == (ErrorCode.ILLEGAL_ACTION, clause), rejection
    assert rejection.reason
    return rejection.reason


def test_not_your_turn() -> None:
    """C3-4.1: a move by the seat not to move is refused."""
    # C3-4.1
    rejection = refuse(new(), "IIIE7-IIIE5", seat=1)
    assert (rejection.code, rejection.clause) == (ErrorCode.NOT_YOUR_TURN, "C3-4.1")


def test_unknown_seat() -> None:
    """A seat other than 0 and 1 is refused."""
    # C3-4.1
    result = CHESS3D.decide(new(), 2, Move(parse_square("IE2") or 0, parse_square("IE4") or 0))
    assert isinstance(result, Rejection)
    assert result.code == ErrorCode.UNKNOWN_SEAT


def test_malformed_move_text() -> None:
    """C3-1.7: text that is no move or action is MALFORMED_ACTION."""
    # C3-1.7
    for text in ("e2e4", "IE9-IE4", "IJ2-IJ4", "IIIIE2-IE4", "IE2-IE4=K", "hello", "IE2-IE2"):
        rejection = refuse(new(), text)
        assert (rejection.code, rejection.clause) == (ErrorCode.MALFORMED_ACTION, "C3-1.7"), text


def test_no_man_of_yours_on_the_from_cube() -> None:
    """C3-4.1: the from-cube must hold a man of the mover."""
    # C3-4.1
    assert "IE3" in _illegal(new(), "IE3-IE4", "C3-4.1")
    assert _illegal(new(), "IIIE7-IIIE6", "C3-4.1")


def test_own_man_on_destination() -> None:
    """C3-5.0.3: a man never moves onto a cube holding a man of its own colour."""
    # C3-5.0.3
    _illegal(new(), "IA1-IA2", "C3-5.0.3")


def test_piece_cannot_move_that_way() -> None:
    """C3-5.1..C3-5.5: each piece's geometry, and C3-5.0.1 for blocked sliders."""
    # C3-5.1, C3-5.2, C3-5.3, C3-5.4, C3-5.5, C3-5.0.1
    state = new(fen_of({"IIE4": "Q", "IIB4": "R", "IIC2": "B", "IID2": "N", "IA8": "K",
                        "IIIH1": "k", "IIE6": "p"}))  # fmt: skip
    _illegal(state, "IIB4-IIC5", "C3-5.2")
    _illegal(state, "IIC2-IIC3", "C3-5.4")
    _illegal(state, "IIC2-IIIC2", "C3-5.4")  # vertical: not a bishop line
    _illegal(state, "IID2-IID4", "C3-5.5")
    _illegal(state, "IIE4-IIF6", "C3-5.3")
    _illegal(state, "IA8-IA6", "C3-5.1")
    assert "IIE6" in _illegal(state, "IIE4-IIE7", "C3-5.0.1")
    eighteen = new(fen_of({"IIE4": "Q", "IA8": "K", "IIIH1": "k"}), "queen_directions=18")
    assert "18" in _illegal(eighteen, "IIE4-IE5", "C3-5.3")


def test_moving_into_or_leaving_check() -> None:
    """C3-4.2: a move after which the mover's King is attacked is illegal."""
    # C3-4.2, C3-6.4
    pinned = new(fen_of({"IE1": "K", "IIE1": "R", "IIIE1": "r", "IH8": "k"}))
    assert "leave" in _illegal(pinned, "IIE1-IIA1", "C3-4.2")
    into = new(fen_of({"IE1": "K", "IID5": "r", "IH8": "k"}))
    assert "IID1" in _illegal(into, "IE1-IID1", "C3-4.2")
    checked = new(fen_of({"IE1": "K", "ID3": "N", "IE8": "r", "IIIH8": "k"}))
    assert "check" in _illegal(checked, "ID3-IB4", "C3-4.2")


def test_castling_conditions() -> None:
    """C3-6.3.3 (a)-(e) and C3-6.3.1: each castling condition has its own reason."""
    # C3-6.3.3, C3-6.3.1
    assert "lost" in _illegal(new(fen_of(CASTLE, rest="Q - - 0 1 -")), "IE1-IG1", "C3-6.3.3")
    blocked = new(fen_of({**CASTLE, "IF1": "B"}, rest="KQ - - 0 1 -"))
    assert "IF1" in _illegal(blocked, "O-O", "C3-6.3.3")
    in_check = new(fen_of({**CASTLE, "IIIE1": "r"}, rest="KQ - - 0 1 -"))
    assert "check" in _illegal(in_check, "O-O", "C3-6.3.3")
    crossed = new(fen_of({**CASTLE, "IIIH3": "b"}, rest="KQ - - 0 1 -"))
    assert "IF1" in _illegal(crossed, "O-O", "C3-6.3.3")
    target = new(fen_of({**CASTLE, "IIIG1": "r"}, rest="KQ - - 0 1 -"))
    assert "IG1" in _illegal(target, "O-O", "C3-6.3.3")
    off_home = new(fen_of({"IIE1": "K", "IIIE8": "k"}))
    _illegal(off_home, "IIE1-IIG1", "C3-6.3.1")


def test_pawn_rules() -> None:
    """C3-5.6.x / C3-6.2: step to an occupied cube, double step after moving, empty capture,
    unavailable en passant, backward moves."""
    # C3-5.6.1, C3-5.6.2, C3-5.6.3, C3-6.2, C3-5.6, C3-R31
    state = new(fen_of({"IA1": "K", "IIE4": "P", "IIE5": "n", "IIID4": "p", "IIIH8": "k",
                        "IE2": "P", "IE3": "n", "IIB2": "P"}, rest="- - E 0 1 -"))  # fmt: skip
    _illegal(state, "IIE4-IIE5", "C3-5.6.1")
    _illegal(state, "IIB2-IIB4", "C3-5.6.2")
    assert "empty" in _illegal(state, "IE2-IE4", "C3-5.6.2")
    _illegal(state, "IIE4-IIF5", "C3-5.6.3")
    _illegal(state, "IIE4-IIE3", "C3-5.6")
    _illegal(state, "IIE4-IIF4", "C3-5.6")
    _illegal(state, "IIE4-IIID5", "C3-6.2")


def test_promotion_piece_missing_or_misplaced() -> None:
    """C3-6.1: a promotion without a piece is malformed; a piece on a normal move is illegal."""
    # C3-6.1
    state = new(fen_of({"IA1": "K", "IIB7": "P", "IIIH8": "k"}))
    rejection = refuse(state, "IIB7-IIB8")
    assert (rejection.code, rejection.clause) == (ErrorCode.MALFORMED_ACTION, "C3-6.1")
    _illegal(state, "IA1-IA2=Q", "C3-6.1")
    _illegal(state, "IIB7-IIIB7=Q", "C3-6.1")


def test_variant_errors() -> None:
    """C3-0.2: unknown keys and values are BAD_VARIANT; the canonical form is sorted."""
    # C3-0.2
    for bad in ("queen_directions=20", "speed=fast", "fifty_move_mode=sometimes",
                "fifty_move_reset=yes", "repetition_count=1", "repetition_count=x",
                "queen_directions", "queen_directions=18+queen_directions=18"):  # fmt: skip
        with pytest.raises(VariantError) as info:
            CHESS3D.create(bad)
        assert info.value.code == ErrorCode.BAD_VARIANT, bad
    created = CHESS3D.create("repetition_count=4+queen_directions=18+depleted_equal_draw=true")
    assert created.variant == "queen_directions=18+repetition_count=4"
    assert CHESS3D.create("queen_directions=26").variant == ""
    assert (created.ruleset, created.seats, created.position) == ("chess3d", 2, "")


def test_bad_positions() -> None:
    """C3-1.8: unparseable 3D-FEN, wrong Kings, pawn on its promotion rank, side not to move
    in check are BAD_POSITION."""
    # C3-1.8
    start = "8/8/8/8/8/8/PPPPPPPP/RNBQKBNR|8/8/8/8/8/8/8/8|rnbqkbnr/pppppppp/8/8/8/8/8/8"
    for bad in (
        "nonsense",
        f"{start} w KQkq - ABCDEFGHabcdefgh 0 1",  # 7 fields
        f"{start} x KQkq - ABCDEFGHabcdefgh 0 1 -",
        f"{start} w KQkq - ABCDEFGHabcdefgh zero 1 -",
        f"{start} w QK - - 0 1 -",
        f"{start} w KQkq IE4 - 0 1 -",
        fen_of({"IA1": "K"}),
        fen_of({"IA1": "K", "IB1": "K", "IIIH8": "k"}),
        fen_of({"IA1": "K", "IIIH8": "k", "IIB8": "P"}),
        fen_of({"IA1": "K", "IIIH8": "k", "IIB1": "p"}),
        fen_of({"IA1": "K", "IIIH8": "k", "IIIA8": "Q"}),
        fen_of({"IA1": "K", "IIIH8": "k"}, rest="K - - 0 1 -"),
        fen_of({"IA1": "K", "IIIH8": "k"}, rest="- - A 0 1 -"),
        fen_of({"IA1": "K", "IIIH8": "k"}, rest="- - - 0 1"),
        "8/8/8/8/8/8/8/K8|8/8/8/8/8/8/8/8|7k/8/8/8/8/8/8/8 w - - - 0 1 -",
    ):
        with pytest.raises(VariantError) as info:
            CHESS3D.create("", bad)
        assert info.value.code == ErrorCode.BAD_POSITION, bad


def test_a_finished_position_loads_for_analysis_but_starts_no_game() -> None:
    """A mate or a stalemate cannot start a game (no event would record its end), but `start`
    reads it with its result, as a chess tool reads one (`tabula legal`, `perft`)."""
    # C3-7.1, C3-7.2
    mated = "8/8/8/8/8/8/8/k7|8/8/8/8/8/8/8/Q7|8/8/8/8/8/8/8/K7 b - - - 0 1 -"
    stalemated = "8/8/8/8/8/1Q6/8/k7|8/8/8/8/8/8/8/8|8/8/8/8/8/8/8/K7 b - - - 0 1 -"
    for position, result, reason in ((mated, "1-0", "checkmate"),
                                     (stalemated, "1/2-1/2", "stalemate")):  # fmt: skip
        with pytest.raises(VariantError) as info:
            CHESS3D.create("", position)
        assert info.value.code == ErrorCode.BAD_POSITION
        state = CHESS3D.start(msgspec.structs.replace(CHESS3D.create(""), position=position))
        outcome = CHESS3D.outcome(state)
        assert outcome is not None
        assert (outcome.result, outcome.reason) == (result, reason)
        assert CHESS3D.to_act(state) == frozenset()


def test_illegal_actions_leave_state_usable() -> None:
    """decide is pure: a refused action changes nothing, a later legal one still works."""
    # C3-4.1
    state = new()
    refuse(state, "IE2-IE5")
    state, events = act(state, "IE2-IE4")
    assert len(events) == 1
    assert play(state, "IIIE7-IIIE5").pos.fullmove == 2
