"""Every refusal of parse_action / decide names its error code and the clause it applies."""

import pytest

from contracts.errors import ErrorCode
from domain.core import Rejection, VariantError
from domain.yiora import YIORA, Move, State
from domain.yiora.geometry import parse_square
from tests.domain.yiora.helpers import act, new, play, refuse

OPEN = "w W:OA1,MO11,PI10 B:OA19,PO17,MR24 0 1"


def illegal(state: State, text: str, clause: str, seat: int | None = None) -> str:
    rejection = refuse(state, text, seat)
    assert (rejection.code, rejection.clause) == (ErrorCode.ILLEGAL_ACTION, clause), rejection
    assert rejection.reason
    return rejection.reason


@pytest.mark.parametrize(
    "text",
    ["e2e4", "O5", "O5-O5", "Q5-R10", "O37-R1", "O5-R10-A11", "hello", "resign now", "bsq;O5-R10"],
)
def test_text_that_is_no_action_is_malformed(text: str) -> None:
    # YI-1.7
    rejection = refuse(new(), text)
    assert (rejection.code, rejection.clause) == (ErrorCode.MALFORMED_ACTION, "YI-1.7"), text


def test_game_prefixes_that_do_not_fit_are_malformed() -> None:
    """Primary Basic has no game wsq; resign names no game."""
    # YI-1.7, YI-8.4.3
    assert refuse(new(), "wsq:O6-R11").code == ErrorCode.MALFORMED_ACTION
    assert refuse(new(), "bsq:resign").clause == "YI-8.4.3"
    complex_ = new(variant="secondary_complex")
    rejection = refuse(complex_, "offer-draw", seat=0)
    assert (rejection.code, rejection.clause) == (ErrorCode.MALFORMED_ACTION, "YI-8.4.3")


def test_seats_and_the_end() -> None:
    """A seat that does not play, and any action after the end."""
    # YI-4.1, YI-7.7
    action = Move(0, parse_square("O3") or 0, parse_square("O7") or 0)
    result = YIORA.decide(new(), 2, action)
    assert isinstance(result, Rejection)
    assert result.code == ErrorCode.UNKNOWN_SEAT
    ended = play(new(), "resign")
    result = YIORA.decide(ended, 1, action)
    assert isinstance(result, Rejection)
    assert result.code == ErrorCode.GAME_ENDED


def test_not_your_turn() -> None:
    # YI-4.1
    rejection = refuse(new(), "O17-O13", seat=1)
    assert (rejection.code, rejection.clause) == (ErrorCode.NOT_YOUR_TURN, "YI-4.1")


def test_squares_of_the_other_colour() -> None:
    """Primary Basic: a start square of the other colour (YI-1.6), a destination of the other
    colour (YI-5.0); a Secondary game: either (YI-8.2)."""
    # YI-1.6, YI-5.0, YI-8.2
    assert "white square" in illegal(new(), "O4-R5", "YI-1.6")
    assert "white square" in illegal(new(), "O3-O4", "YI-5.0")
    basic = new(variant="secondary_basic")
    illegal(basic, "bsq:O4-R5", "YI-8.2", seat=0)
    illegal(basic, "wsq:O4-R4", "YI-8.2", seat=2)


def test_no_man_of_yours_on_the_start_square() -> None:
    # YI-4.1
    assert "O7" in illegal(new(), "O7-O9", "YI-4.1")
    illegal(new(), "O17-O13", "YI-4.1", seat=0)  # a Black man


def test_own_man_on_the_destination() -> None:
    # YI-5.0, YI-R12
    illegal(new(), "A3-A1", "YI-5.0")
    illegal(new(), "O3xO5", "YI-5.0")


def test_each_man_s_geometry() -> None:
    """The Overlord (YI-5.1), the Mage (YI-5.2, its ring and column limits and blocking) and
    the Pawn (YI-5.3.2 off every path, YI-5.3.3 every path blocked)."""
    # YI-5.1, YI-5.2, YI-5.2.1, YI-5.2.2, YI-5.3.2, YI-5.3.3, YI-R12
    illegal(new(OPEN), "A1-A3", "YI-5.1")
    illegal(new(OPEN), "O11-R14", "YI-5.2")
    illegal(new(OPEN), "O11-O23", "YI-5.2.1")  # 6 squares along the ring
    assert "O17" in illegal(new(OPEN), "O11-O19", "YI-5.2.1")  # past the Pawn on O-17
    illegal(new("w W:OA1,MA7,PO7 B:OA19,PO17 0 1"), "A7-Y7", "YI-5.2.2")  # past O-7
    illegal(new(OPEN), "I10-I14", "YI-5.3.2")
    blocked = "w W:OA1,PO11,PR10 B:OA19,PI12,MY35 0 1"  # (−1,+1) meets I-12, (+1,−1) R-10
    assert "blocked" in illegal(new(blocked), "O11-Y13", "YI-5.3.3")


def test_the_overlord_may_not_be_left_threatened() -> None:
    """Into threat or off the shield (YI-6.1); not ending a threat (YI-4.2)."""
    # YI-6.1, YI-4.2, YI-R16
    shield = "w W:OA1,MA35,MR36 B:OA19,MA29 0 1"
    assert "A35" in illegal(new(shield), "A35-R34", "YI-6.1")
    assert "R36" in illegal(new("w W:OA1,PA9 B:OA19,PY3 0 1"), "A1-R36", "YI-6.1")
    illegal(new("b W:OA1,MA9 B:OA19,MR18,MR20 0 1"), "R20-R22", "YI-4.2")


def test_refusals_of_the_secondary_variations() -> None:
    """A game one does not play (YI-8.3), an ended game (YI-8.2), the game not due in
    lockstep (YI-8.4.1), a draw action in a game one does not play (YI-8.3)."""
    # YI-8.2, YI-8.3, YI-8.4.1
    basic = new(variant="secondary_basic")
    illegal(basic, "wsq:O4-O8", "YI-8.3", seat=0)
    illegal(basic, "wsq:offer-draw", "YI-8.3", seat=0)
    after = act(basic, "resign", seat=0)[0]
    illegal(after, "bsq:O17-O13", "YI-8.2", seat=1)
    illegal(after, "resign", "YI-7.7", seat=1)
    lockstep = new(variant="secondary_complex")
    rejection = refuse(lockstep, "wsq:O4-O8", seat=0)
    assert (rejection.code, rejection.clause) == (ErrorCode.NOT_YOUR_TURN, "YI-8.4.1")


@pytest.mark.parametrize(
    ("variant", "words"),
    [
        ("tertiary", "unknown variant item"),
        ("teams", "secondary_complex"),
        ("complex_turn_mode=parallel", "secondary_complex"),
        ("no_capture_limit=0", "no_capture_limit"),
        ("repetition_count=1", "repetition_count"),
        ("first_player=Gold", "first_player"),
        ("setup_white=OA1", "YI-3.4"),
        ("setup_black=derived/MA3", "derived"),
        ("setup_white=OA3/MA5/MA35/MR2/MR36/PO3/PO5/PO33/PO35", "A-1"),
        ("setup_white=OA1/MA3/MA35/MR2/MR36/PO3/PO5/PO33/PO35/PO31", "4 Pawns"),
        ("setup_white=OA1/MA3/MA35/MR2/MR36/PO3/PO5/PO33/PO15", "two men on"),
        ("setup_black=OA19/MO1/MA21/MR18/MR20/PO15/PO17/PO21/PO23", "White Overlord would"),
        ("setup_white=OA1/MA4/MA35/MR2/MR36/PO3/PO5/PO33/PO35", "setup_white"),
    ],
)
def test_bad_variants(variant: str, words: str) -> None:
    """Unknown items, values out of range and setups that break YI-3.4 are refused."""
    # YI-0.2, YI-3.4
    with pytest.raises(VariantError) as err:
        YIORA.create(variant)
    assert err.value.code is ErrorCode.BAD_VARIANT
    assert words in err.value.reason


@pytest.mark.parametrize(
    ("position", "words"),
    [
        ("w W:OA1 B:OA19 0", "5 fields"),
        ("x W:OA1,PO3 B:OA19 0 1", "side to move"),
        ("w B:OA1,PO3 W:OA19 0 1", "W:"),
        ("w W:OA1,PO4 B:OA19 0 1", "not a square of game bsq"),
        ("w W:OA1,PO3,PO3 B:OA19 0 1", "two men"),
        ("w W:OA1,OA3 B:OA19,PO3 0 1", "one Overlord"),
        ("w W:PO3 B:OA19 0 1", "one Overlord"),
        ("w W:OA1,PO3,PO5,PO7,PO9,PO11 B:OA19 0 1", "4 Pawns"),
        ("w W:OA1,QO3 B:OA19 0 1", "not a man"),
        ("w W:OA1,PO3 B:OA19 -1 1", "whole numbers"),
        ("w W:OA1,PO3 B:OA19 0 0", "starts at 1"),
        ("w W:OA1,MA9 B:OA19,PO3 0 1", "threatened"),
        ("w W:OA1 B:OA19 0 1", "already be over (insufficient_material)"),
        ("b W:OA1,MA9,PO15 B:OA19,MR20 0 1", "already be over (checkmate)"),
        ("w W:OA1,PO3 B:OA19,PO21 100 1", "already be over (no_capture)"),
        ("wsq:w W:OA1,PO3 B:OA19,PO21 0 1", "side to move"),
    ],
)
def test_bad_positions(position: str, words: str) -> None:
    """A position that breaks YI-1.8, YI-2.1 or YI-6.1, or whose game is already over."""
    # YI-1.8, YI-2.1, YI-6.1, YI-4.4
    with pytest.raises(VariantError) as err:
        YIORA.create("", position)
    assert err.value.code is ErrorCode.BAD_POSITION
    assert words in err.value.reason


@pytest.mark.parametrize(
    ("position", "words"),
    [
        ("w W:OA1,PO3 B:OA19,PO21 0 1", "bsq:<position> | wsq:<position>"),
        ("wsq:g G:OA2,PO4 S:OA20,PO22 0 1 | bsq:w W:OA1,PO3 B:OA19,PO21 0 1", "bsq:"),
        ("bsq:w W:OA1,PO3 B:OA19,PO21 0 1 | wsq:w W:OA2,PO4 B:OA20,PO22 0 1", "game wsq"),
        ("bsq:w W:OA1,PO3 B:OA19,PO21 0 1 | wsq:g G:OA1,PO3 S:OA19,PO21 0 1", "white"),
    ],
)
def test_bad_secondary_positions(position: str, words: str) -> None:
    # YI-1.8, YI-8.1
    with pytest.raises(VariantError) as err:
        YIORA.create("secondary_basic", position)
    assert err.value.code is ErrorCode.BAD_POSITION
    assert words in err.value.reason
