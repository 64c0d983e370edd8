"""Overlord safety, checkmate, stalemate and every other end of a Primary Basic game (YI-4, YI-6,
YI-7, YI-10.5)."""

from contracts.events import DrawAccepted, DrawDeclined, DrawOffered, GameEnded, Resigned
from contracts.yiora import MovePlayed
from domain.yiora import YIORA
from domain.yiora.geometry import BLACK
from domain.yiora.position import EndRules, game_end, parse_position
from tests.domain.yiora.helpers import act, legal_texts, moves_from, new, play, refuse

MATE_A = "b W:OA1,MA9 B:OA19,MR18,MR20 0 1"  # YI-10.5 (a)
MATE_B = "b W:OA1,MA9,PO15 B:OA19,MR20 0 1"  # YI-10.5 (b)


def ended(events: tuple[object, ...]) -> GameEnded:
    last = events[-1]
    assert isinstance(last, GameEnded), events
    return last


def test_a_threatened_overlord_is_flagged() -> None:
    """A move that threatens the enemy Overlord is flagged (`check`), and the board shows it."""
    # YI-6.1
    state, events = act(new("w W:OA1,MA7 B:OA19,MR18,MR20,PO25 0 1"), "A7-A9")
    played = events[0]
    assert isinstance(played, MovePlayed)
    assert played.check
    view = YIORA.view(state, None)
    assert view["games"][0]["threatened"] == "A-19"
    assert view["in_check"] is True
    assert next(m for m in view["games"][0]["men"] if m["threatened"])["square"] == "A-19"


def test_only_escape_is_a_block_under_any_escape() -> None:
    """YI-10.5 (a): Black's only legal move is R18-A17; with any_escape the game goes on."""
    # YI-10.5, YI-6.3.1, YI-R18, YI-4.2
    state = new(MATE_A)
    assert legal_texts(state) == {"R18-A17"}
    after, events = act(state, "R18-A17")
    assert YIORA.outcome(after) is None
    assert len(events) == 1


def test_overlord_only_mates_when_the_overlord_cannot_move() -> None:
    """YI-10.5 (a) under overlord_only: checkmate at once although a block exists."""
    # YI-10.5, YI-6.3.2, YI-7.1
    before = "w W:OA1,MA7 B:OA19,MR18,MR20 0 1"
    state, events = act(new(before, "mate_rule=overlord_only"), "A7-A9")
    end = ended(events)
    assert (end.result, end.reason, end.winners) == ("1-0", "checkmate", [0])
    assert YIORA.position(state) == MATE_A.replace(" 0 1", " 1 1")
    same, events = act(new(before), "A7-A9")  # any_escape: the game goes on
    assert YIORA.outcome(same) is None


def test_checkmate_under_both_rules() -> None:
    """YI-10.5 (b): no Black man can block or capture and R-18 is threatened by the Pawn's
    bounce: checkmate under both mate rules; the mated Overlord stays flagged."""
    # YI-10.5, YI-6.3, YI-6.3.1, YI-6.3.2, YI-7.1
    pos = parse_position(MATE_B, BLACK, 0)
    for rule in (False, True):
        end = game_end(EndRules(overlord_only=rule), pos)
        assert end is not None
        assert end.reason == "checkmate"
        assert end.winners == (0,)
    for variant in ("", "mate_rule=overlord_only"):
        state, events = act(new("w W:OA1,MA7,PO15 B:OA19,MR20 0 1", variant), "A7-A9")
        assert (ended(events).result, ended(events).reason) == ("1-0", "checkmate")
        assert YIORA.view(state, None)["games"][0]["threatened"] == "A-19"
        assert YIORA.to_act(state) == frozenset()


def test_a_move_into_threat_or_off_the_shield_is_refused() -> None:
    """The Overlord may not step onto a threatened square; a shielding man may not leave."""
    # YI-6.1, YI-R16, YI-4.2
    state = new("w W:OA1,MR36,MA35 B:OA19,MA29 0 1")  # A-35 shields A-1 from the Mage on A-29
    assert refuse(state, "A35-R34").clause == "YI-6.1"
    assert "R34" not in moves_from(state, "A35")
    assert "A33" in moves_from(state, "A35")  # along the line: still shields
    state = new("w W:OA1,PA9 B:OA19,PY3 0 1")  # the Pawn's path Y-3, I-2, O-1, R-36
    assert moves_from(state, "A1") == {"R2"}
    assert refuse(state, "A1-R36").clause == "YI-6.1"


def test_overlords_never_stand_diagonally_adjacent() -> None:
    """An Overlord may not step next to the enemy Overlord (it would be threatened)."""
    # YI-6.2
    state = new("w W:OO11,PA31 B:OY13,PA25 0 1")
    assert moves_from(state, "O11") == {"R12", "R10", "I10"}  # I-12 is next to Y-13
    assert refuse(state, "O11-I12").clause == "YI-6.1"


def test_threats_ignore_pins() -> None:
    """A Black Mage that shields its own Overlord still threatens: the White Overlord may not
    step next to it."""
    # YI-R17, YI-5.0
    # The Black Mage on A-21 shields A-19 from the White Mage on A-29; it still threatens.
    state = new("w W:OR24,MA29 B:OA19,MA21 0 1")
    assert moves_from(state, "R24") == {"O23", "O25"}  # are on its ring line
    assert refuse(state, "R24-A23").clause == "YI-6.1"


def test_stalemate_is_a_draw_or_a_loss() -> None:
    """Black's lone Overlord on A-19 with both neighbours threatened and itself safe: a draw by
    default, a loss for Black with stalemate_result=loss."""
    # YI-6.4, YI-7.2, YI-R19
    before = "w W:OA1,MI22,PO15,PY9 B:OA19 0 1"  # after I22-I20, R-20 is covered by the Mage
    _, events = act(new(before), "I22-I20")
    assert (ended(events).result, ended(events).reason) == ("1/2-1/2", "stalemate")
    _, events = act(new(before, "stalemate_result=loss"), "I22-I20")
    assert (ended(events).result, ended(events).reason, ended(events).winners) == (
        "1-0",
        "stalemate",
        [0],
    )


def test_bare_overlords_draw() -> None:
    """A capture that leaves only the two Overlords draws at once."""
    # YI-7.3
    _, events = act(new("w W:OO11 B:OA19,PR12 0 1"), "O11xR12")
    assert (ended(events).result, ended(events).reason) == ("1/2-1/2", "insufficient_material")


def test_order_of_the_end_checks() -> None:
    """A capture leaving bare Overlords with White stalemated is a stalemate (checked first);
    a mate on the 100th ply without capture is a checkmate, not a no-capture draw."""
    # YI-4.4, YI-7.5
    _, events = act(new("b W:OA1,MO1 B:OI36 0 1"), "I36xO1")
    assert ended(events).reason == "stalemate"
    _, events = act(new("w W:OA1,MA7,PO15 B:OA19,MR20 99 60"), "A7-A9")
    assert ended(events).reason == "checkmate"


def test_repetition_draws_on_the_third_occurrence() -> None:
    """The same men on the same squares with the same side to move, three times (or as set)."""
    # YI-7.4, YI-R20
    shuffle = ("R2-I2", "R20-I20", "I2-R2", "I20-R20")
    start = "w W:OA1,MR2 B:OA19,MR20 0 1"
    state = play(new(start), *shuffle)  # the start position, second time
    assert YIORA.outcome(state) is None
    state = play(state, *shuffle[:3])
    state, events = act(state, shuffle[3])  # third time
    assert (ended(events).result, ended(events).reason) == ("1/2-1/2", "repetition")
    state, events = act(play(new(start, "repetition_count=2"), *shuffle[:3]), shuffle[3])
    assert ended(events).reason == "repetition"


def test_no_capture_limit() -> None:
    """50 moves by each side without a capture (100 plies) draw; the limit is configurable or
    off; a capture resets the count."""
    # YI-7.5, YI-R20
    state, events = act(new("w W:OA1,MR2 B:OA19,MR20 99 50"), "R2-I2")
    assert (ended(events).result, ended(events).reason) == ("1/2-1/2", "no_capture")
    state, events = act(new("w W:OA1,MR2 B:OA19,MR20 99 50", "no_capture_limit=off"), "R2-I2")
    assert YIORA.outcome(state) is None
    state, events = act(new("w W:OA1,MR2 B:OA19,MR20 9 50", "no_capture_limit=5"), "R2-I2")
    assert ended(events).reason == "no_capture"
    state, _ = act(new("w W:OA1,MR10,PA15 B:OA19,PO11,PA25 98 50"), "R10xO11")
    assert state.games[0].pos.halfmove == 0
    assert YIORA.outcome(state) is None


def test_draw_by_agreement() -> None:
    """Offer on one's turn, before moving; the move is still due; the opponent accepts."""
    # YI-7.6, YI-4.3, YI-R20
    state, events = act(new(), "offer-draw")
    assert events == (DrawOffered(seat=0),)
    assert YIORA.to_act(state) == {0}  # the move is still to be made
    state, events = act(state, "accept-draw", seat=1)
    assert isinstance(events[0], DrawAccepted)
    assert (ended(events).result, ended(events).reason) == ("1/2-1/2", "agreement")


def test_an_offer_stands_until_answered_or_the_opponent_moves() -> None:
    """The offerer's own move leaves it standing; the opponent's move declines it."""
    # YI-7.6
    state = play(new(), "offer-draw", "O3-O7")
    assert state.games[0].agreement.offer == 0
    state, events = act(state, "O17-O13")
    assert events[0] == DrawDeclined(seat=1)
    assert state.games[0].agreement.offer == -1
    state, events = act(play(new(), "offer-draw"), "decline-draw", seat=1)
    assert events == (DrawDeclined(seat=1),)


def test_draw_offer_refusals() -> None:
    """Not on one's turn (YI-4.3); twice before moving, or over the opponent's offer, or
    answering no offer (YI-7.6)."""
    # YI-4.3, YI-7.6
    assert refuse(new(), "offer-draw", seat=1).clause == "YI-4.3"
    offered = play(new(), "offer-draw")
    assert refuse(offered, "offer-draw").clause == "YI-7.6"
    assert refuse(new(), "accept-draw", seat=1).clause == "YI-7.6"
    assert refuse(play(offered, "O3-O7"), "offer-draw").clause == "YI-7.6"  # Black must answer


def test_resignation_at_any_time() -> None:
    """Either player, also out of turn; the opponent wins."""
    # YI-7.7, YI-4.3, YI-R20
    state, events = act(new(), "resign", seat=1)
    assert events[0] == Resigned(seat=1)
    assert (ended(events).result, ended(events).reason, ended(events).winners) == (
        "1-0",
        "resignation",
        [0],
    )
    assert YIORA.to_act(state) == frozenset()
