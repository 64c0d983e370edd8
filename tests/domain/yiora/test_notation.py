"""Action notation (YI-1.7) and position notation (YI-1.8), read and written."""

import pytest

from contracts.yiora import MovePlayed
from domain.yiora import YIORA, Command, Move, Verb
from domain.yiora.geometry import BLACK, WHITE
from domain.yiora.position import format_position, parse_position
from tests.domain.yiora.helpers import START, WSQ_START, act, legal_texts, new, play, sq


@pytest.mark.parametrize(
    "text", ["O5-R10", "O5xR10", "O-5-R-10", "o5-r10", "O5 - R10", "O-5xR10", "bsq:O5-R10"]
)
def test_every_accepted_form_of_a_move(text: str) -> None:
    """`-` or `x` whatever the move does; hyphenated or compact squares, any case; `bsq:` in
    Primary Basic."""
    # YI-1.7, YI-1.3
    assert YIORA.parse_action(new(), 0, text) == Move(0, sq("O5"), sq("R10"))


def test_moves_are_written_compact_with_x_for_captures() -> None:
    """Canonical: compact squares, `-` for a move, `x` for a capture; a move is its squares."""
    # YI-1.7, YI-5.3.5
    state = new("w W:OA1,MO11,PY11 B:OA19,PO17 0 1")
    assert "O11xO17" in legal_texts(state)
    assert "O11-O15" in legal_texts(state)
    _, events = act(state, "O11-O17")  # `-` accepted for a capture
    assert events == (MovePlayed(seat=0, move="O11xO17"),)


def test_the_other_actions() -> None:
    # YI-1.7
    state = new()
    assert YIORA.parse_action(state, 0, "resign") == Command(Verb.RESIGN, -1)
    assert YIORA.parse_action(state, 0, "Offer-Draw") == Command(Verb.OFFER_DRAW, 0)
    assert YIORA.format_action(state, Command(Verb.OFFER_DRAW, 0)) == "offer-draw"


def test_secondary_prefixes() -> None:
    """In a Secondary variation moves and draw actions carry `bsq:`/`wsq:`; without it a move is
    its squares' colour's game."""
    # YI-1.7, YI-8.1
    state = new(variant="secondary_complex+complex_turn_mode=parallel")
    wsq_move = Move(WHITE, sq("O6"), sq("R11"))
    assert YIORA.parse_action(state, 0, "wsq:O6-R11") == wsq_move
    assert YIORA.parse_action(state, 0, "O6-R11") == wsq_move
    assert YIORA.format_action(state, wsq_move) == "wsq:O6-R11"
    assert YIORA.parse_action(state, 0, "bsq:offer-draw") == Command(Verb.OFFER_DRAW, BLACK)
    assert YIORA.format_action(state, Command(Verb.OFFER_DRAW, WHITE)) == "wsq:offer-draw"
    assert "wsq:O6-R11" in legal_texts(state, seat=0)
    assert "bsq:O5-R10" in legal_texts(state, seat=0)


def test_every_legal_action_round_trips() -> None:
    """format_action then parse_action gives the action back (moves and the other actions)."""
    # YI-1.7
    for variant, seats in (("", 2), ("secondary_basic", 4), ("secondary_complex", 2)):
        state = new(variant=variant)
        for seat in range(seats):
            for action in YIORA.legal_actions(state, seat):
                text = YIORA.format_action(state, action)
                assert YIORA.parse_action(state, seat, text) == action, text


def test_the_default_start_is_written_as_the_ruling_writes_it() -> None:
    # YI-1.8, YI-3.2, YI-3.3
    assert YIORA.position(new()) == START
    pos = parse_position(START, BLACK, 0)
    assert format_position(pos) == START
    assert new(START) == new()


def test_the_white_square_game_uses_g_and_s() -> None:
    # YI-1.8, YI-8.1
    pos = parse_position(WSQ_START, WHITE, 0)
    assert format_position(pos) == WSQ_START
    assert YIORA.position(new(variant="secondary_basic")) == f"bsq:{START} | wsq:{WSQ_START}"


def test_clocks_and_any_order_of_men() -> None:
    """Halfmove counts plies since the last capture; fullmove rises after the second player's
    move; men may be listed in any order and in hyphenated form."""
    # YI-1.8
    state = play(new(), "O3-O7", "O17-O13")
    assert YIORA.position(state).endswith(" 2 2")
    state = new("b W:PO-5,OA1 B:MR22,OA19 7 30")
    assert YIORA.position(state) == "b W:OA1,PO5 B:OA19,MR22 7 30"
    state = play(state, "R22-O21")  # Black is the second player: fullmove rises
    assert YIORA.position(state).endswith(" 8 31")
    black_first = new(variant="first_player=Black")
    assert YIORA.position(black_first).startswith("b W:")
    state = play(black_first, "O17-O13")  # Black moves first: White is the second player
    assert YIORA.position(state).endswith(" 1 1")
    state = play(state, "O3-O7")
    assert YIORA.position(state).endswith(" 2 2")
    after, _ = act(new("w W:OA1,MO11 B:OA19,PO17,MR24 5 9"), "O11xO17")
    assert YIORA.position(after).endswith(" 0 9")
