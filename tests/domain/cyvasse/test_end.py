"""Version A check (CY-6.1, CY-R15, R54, R55, R60), the end of the game and draws (CY-4.4,
CY-7, CY-R16, R38), resignation and agreement, Dragon in reserve (CY-6.4.2, CY-R41)."""

from contracts.cyvasse import DrawAccepted, DrawDeclined, DrawOffered, MovePlayed
from contracts.errors import ErrorCode
from contracts.events import GameEnded, Resigned
from domain.core import Rejection
from domain.cyvasse import CYVASSE, Command
from tests.domain.cyvasse.helpers import act, legal_texts, new, play, refuse

CHECK = ("Ke1 Sd1 Lc4 Ra1 Mf2", "Te3 Re2 Kh8")


def test_check_reference_example() -> None:
    """Double check by a Rabble and a Trebuchet over its own Rabble: exactly three answers."""
    # CY-9.5, CY-6.1.1, CY-6.1.3, CY-R54
    state = new(*CHECK)
    assert CYVASSE.view(state, 0)["in_check"] is True
    assert legal_texts(state) == {"e1-f1", "d1xe2", "c4xe2"}
    assert refuse(state, "e1-d2").clause == "CY-6.1.2"
    assert refuse(state, "e1xe2").clause == "CY-6.1.2"
    assert refuse(state, "a1-a2").clause == "CY-6.1.3"


def test_a_man_may_not_expose_its_king() -> None:
    """A man shielding its King may move along the line but not off it."""
    # CY-6.1.2, CY-R15
    state = new("Ke1 Re2", "Ee4 Kh8")
    assert {"e2-e3"} <= legal_texts(state)
    assert "e2-d2" not in legal_texts(state)
    problem = refuse(state, "e2-d2")
    assert (problem.clause, problem.reason) == ("CY-6.1.2", "this would leave your King in check")


def test_check_is_announced_and_checkmate_ends_the_game() -> None:
    """A checking action carries check=True; with no legal answer it is checkmate."""
    # CY-6.1.4, CY-7.1, CY-R55
    state = new("Ka1", "Ea5 Eb4 Kh8", side="b")
    state, events = act(state, "a5-a4")
    assert events == (
        MovePlayed(seat=1, action="a5-a4", check=True),
        GameEnded(result="0-1", reason="checkmate", winners=[1]),
    )
    assert "Ka1" in CYVASSE.position(state)  # the King is not removed
    assert CYVASSE.decide(state, 0, CYVASSE.parse_action(state, 0, "a1-b1")) == Rejection(
        ErrorCode.GAME_ENDED, "the game has ended"
    )  # type: ignore[arg-type]


def test_stalemate_is_a_draw() -> None:
    """No legal action without check: drawn."""
    # CY-7.2, CY-R16
    _state, events = act(new("Ka1", "Ra4 Eb4 Kh8", side="b"), "a4-a3")
    assert events[-1] == GameEnded(result="1/2-1/2", reason="stalemate", winners=[])


def test_threats_count_every_capture_mode_for_check() -> None:
    """A Trebuchet over a Mountain and Dragonfyre over an own man both give check."""
    # CY-R54, CY-6.1.1
    state = new("Ke1 Ra2", "Me2 Te3 Kh8")
    assert CYVASSE.view(state, 0)["in_check"] is True
    state = new("Ke1 Ra2", "Re2 De3 Kh8", "A+dragonfyre")
    assert "e1-d2" not in legal_texts(state)  # d2 is adjacent to the Dragon's fyre lines
    assert CYVASSE.view(state, 0)["in_check"] is True


def test_king_in_check_at_the_start_may_be_taken() -> None:
    """A King left attacked (as after a reveal) is taken by the side to move, who wins."""
    # CY-R60, CY-7.3
    state = new("Ke1 Sd4", "Kd5", "A")
    assert "d4xd5" in legal_texts(state)
    state, events = act(state, "d4xd5")
    assert events[-1] == GameEnded(result="1-0", reason="king_captured", winners=[0])


def test_bare_kings_draw_unless_a_dragon_is_in_reserve() -> None:
    """Only Kings (and Mountains) left: drawn, but not while a Dragon waits in reserve."""
    # CY-7.7
    state, events = act(new("Kd4 Mh2", "Kh8 Rd5 Mg2"), "d4xd5")
    assert events[-1] == GameEnded(result="1/2-1/2", reason="insufficient_material", winners=[])
    state = new("Kd4", "Kh8 Rd5", "A+dragon-reserve", reserve="b")
    state, events = act(state, "d4xd5")
    assert CYVASSE.outcome(state) is None


def test_repetition_draws_at_the_third_occurrence() -> None:
    """The same men, side to move and reserve for the third time: drawn."""
    # CY-7.4, CY-R38
    state = play(new("Ka1 Rc3", "Kh8 Rf6"), "a1-a2", "h8-h7", "a2-a1", "h7-h8", "a1-a2", "h8-h7",
                 "a2-a1")  # fmt: skip
    assert CYVASSE.outcome(state) is None
    state, events = act(state, "h7-h8")
    assert events[-1] == GameEnded(result="1/2-1/2", reason="repetition", winners=[])


def test_no_progress_limit() -> None:
    """2N plies without capture or Dragon introduction draw (N = 50 by default); a capture
    resets the count; `off` disables the rule."""
    # CY-7.5
    state, events = act(new("Ka1 Rc3", "Kh8 Rf6", quiet=99), "c3-c4")
    assert events[-1] == GameEnded(result="1/2-1/2", reason="no_progress", winners=[])
    state, events = act(new("Ka1 Rc3", "Kh8 Rf6", "A+no_progress_limit=off", quiet=99), "c3-c4")
    assert CYVASSE.outcome(state) is None
    state = play(new("Ka1 Rc3", "Kh8 Rf6", "A+no_progress_limit=3", quiet=4), "c3-c4")
    assert CYVASSE.outcome(state) is None
    state, events = act(state, "f6-f5")
    assert events[-1].reason == "no_progress"  # type: ignore[attr-defined]
    state = play(new("Ka1 Rc5", "Kh8 Rc6", quiet=98), "c5xc6")
    assert state.pos.quiet == 0


def test_resignation_by_either_seat_at_any_time() -> None:
    """Resigning ends the game for the opponent, also off-turn."""
    # CY-7.8
    state, events = act(new("Ka1", "Kh8"), "resign", seat=1)
    assert events == (Resigned(seat=1), GameEnded(result="1-0", reason="resignation",
                                                  winners=[0]))  # fmt: skip
    assert CYVASSE.to_act(state) == frozenset()


def test_draw_by_agreement() -> None:
    """Offer on one's turn; the opponent accepts or declines; a move declines a standing
    offer; no second offer before moving."""
    # CY-7.8
    state = new("Ka1 Rc3", "Kh8 Rf6")
    assert refuse(state, "offer-draw", seat=1).code is ErrorCode.NOT_YOUR_TURN
    state, events = act(state, "offer-draw")
    assert events == (DrawOffered(seat=0),)
    assert refuse(state, "offer-draw").clause == "CY-7.8"
    assert Command.ACCEPT_DRAW in CYVASSE.legal_actions(state, 1)
    state = play(state, "a1-a2")  # the offerer's own move keeps the offer
    assert state.agreement.offer == 0
    state, events = act(state, "h8-h7")
    assert events[0] == DrawDeclined(seat=1)
    state, events = act(state, "offer-draw")
    state, events = act(state, "decline-draw", seat=1)
    assert events == (DrawDeclined(seat=1),)
    assert refuse(state, "accept-draw", seat=1).clause == "CY-7.8"
    state = play(state, "a2-a1", "h7-h8")
    state, _ = act(state, "offer-draw")
    state, events = act(state, "accept-draw", seat=1)
    assert events == (DrawAccepted(seat=1), GameEnded(result="1/2-1/2", reason="agreement",
                                                       winners=[]))  # fmt: skip


def test_dragon_in_reserve() -> None:
    """Option b: once, as a whole turn, on any empty square of the own half; it resets the
    no-progress count and may block a check."""
    # CY-6.4.2, CY-R41, CY-6.1.3
    variant = "A+dragon-reserve"
    state = new("Ka1 Rb1", "Kh8", variant, reserve="w,b", quiet=10)
    drops = {t for t in legal_texts(state) if t.startswith("D@")}
    assert len(drops) == 30
    assert "D@a5" not in drops
    assert refuse(state, "D@a5").clause == "CY-R41"
    assert refuse(state, "D@b1").clause == "CY-R41"
    state = play(state, "D@d4")
    assert state.pos.quiet == 0
    assert state.pos.reserve == 2
    assert "Dd4" in CYVASSE.position(state)
    assert "reserve=b" in CYVASSE.position(state)
    state = play(state, "h8-g8")
    assert refuse(state, "D@d3").clause == "CY-6.4.2"
    assert refuse(new("Ka1", "Kh8"), "D@d4").clause == "CY-6.4.2"
    checked = new("Ka1 Rb1 Rb2", "Ea4 Kh8", variant, reserve="w")
    assert {t for t in legal_texts(checked) if t.startswith("D@")} == {"D@a2", "D@a3"}
