"""Version B: values, flanking, no check, King capture, passes (CY-5.5, 5.6, 6.1.5, 7.3,
7.6, CY-R17..R22)."""

from contracts.cyvasse import MovePlayed
from contracts.events import GameEnded
from domain.cyvasse import CYVASSE, Move
from tests.domain.cyvasse.helpers import act, actions_from, legal_texts, new, play, refuse


def test_single_capture_needs_attack_at_least_defence() -> None:
    """A man takes an enemy of equal or lower value alone, not a higher one."""
    # CY-5.6.2, CY-R19
    state = new("Hf4 Sa1 Kh1", "Cg5 Hb2 Sa2 Ka8", "B")
    assert "f4xg5" in actions_from(state, "f4")  # 6 >= 5
    assert "g5xf4" not in actions_from(play(state, "h1-g1"), "g5")  # 5 < 6
    assert "a1xa2" in actions_from(state, "a1")  # 3 >= 3
    assert "a1xb2" not in actions_from(state, "a1")  # 3 < 6
    problem = refuse(state, "a1xb2")
    assert problem.clause == "CY-5.6.2"
    assert problem.reason == ("a Spears (3) cannot take a Heavy Horse (6): the men threatening "
                              "b2 sum to 3 and include no King")  # fmt: skip


def test_flanking_reference_examples() -> None:
    """The ruling's flanking examples (a) alone 2 < 4, (b) two Rabbles 2 + 2 >= 4, (c) the King
    among three threatening men allows every one of them."""
    # CY-9.2, CY-R20, CY-R21, CY-R22
    state = new("Re4 Ka1", "Le5 Kh8", "B")
    assert actions_from(state, "e4") == {"e4-d4", "e4-e3", "e4-f4"}
    state = new("Re4 Rd5 Ka1", "Le5 Kh8", "B")
    assert {"e4xe5", "d5xe5"} <= legal_texts(state)
    state = new("Re4 Sd4 Kf6", "Te5 Kh8", "B")
    assert {t for t in legal_texts(state) if "x" in t} == {"e4xe5", "d4xe5", "f6xe5"}


def test_only_the_selected_flanker_moves() -> None:
    """After a flanking capture the other flankers stay where they are."""
    # CY-5.6.4
    state = play(new("Re4 Rd5 Ka1", "Le5 Kh8", "B"), "d5xe5")
    assert CYVASSE.position(state).startswith("side=b; white=Ka1 Re4 Re5;")


def test_flankers_are_threatening_men_in_any_mode() -> None:
    """A Trebuchet firing over an own man threatens, so it flanks; a man out of range does
    not count."""
    # CY-5.5.1, CY-R20, CY-R21
    state = new("Rd4 Rd3 Td2 Kh1", "Ed5 Ka8", "B")  # d5 is 3 from the Trebuchet: 2 < 7
    assert "d4xd5" not in legal_texts(state)
    state = new("Rd4 Tc5 Sc4 Kh1", "Ed5 Ka8", "B")  # Rabble 2 + Trebuchet 9 + Spears 3
    assert "d4xd5" in legal_texts(state)
    state = new("Rd4 Tb5 Rc5 Kh1", "Ed5 Ka8", "B")  # Trebuchet b5 fires over own Rabble c5
    assert {"d4xd5", "c5xd5", "b5*d5"} <= legal_texts(state)
    state = new("Rd4 Rb5 Kh1", "Ed5 Ka8", "B")  # b5 Rabble is two squares away: no flank
    assert "d4xd5" not in legal_texts(state)


def test_no_check_in_version_b() -> None:
    """The King may step onto a threatened square; nothing announces check; taking the King
    ends the game."""
    # CY-6.1.5, CY-R17, CY-7.3
    state = new("Ke4 Ra1", "Ee6 Kh8", "B")
    assert "e4-e5" in legal_texts(state)  # e5 is threatened by the Elephant
    state, events = act(state, "e4-e5")
    assert events == (MovePlayed(seat=0, action="e4-e5", check=False),)
    state, events = act(state, "e6xe5")
    assert events[-1] == GameEnded(result="0-1", reason="king_captured", winners=[1])
    assert CYVASSE.outcome(state) is not None
    assert CYVASSE.to_act(state) == frozenset()


def test_king_flank_with_the_king_alone_is_not_enough() -> None:
    """The King alone (1) cannot take a Spears (3); with any one other threatening man it can."""
    # CY-R22
    state = new("Kd4", "Sd5 Ka8", "B")
    assert "d4xd5" not in legal_texts(state)
    state = new("Kd4 Rc5", "Sd5 Ka8", "B")
    assert {"d4xd5", "c5xd5"} <= legal_texts(state)


BOXED = ("Ka1 Ma2 Mb1 Mb2", "Kh8 Mh7 Mg8 Mg7")


def test_forced_pass_and_double_pass() -> None:
    """With no legal action the player must pass (and only then); two passes in a row draw."""
    # CY-4.3, CY-7.6, CY-R18
    state = new(*BOXED, variant="B")
    assert CYVASSE.legal_actions(state, 0)[0] == Move(4, -1, -1)
    assert legal_texts(state) == {"pass"}
    state, events = act(state, "pass")
    assert events == (MovePlayed(seat=0, action="pass"),)
    state, events = act(state, "pass")
    assert events[-1] == GameEnded(result="1/2-1/2", reason="no_moves", winners=[])


def test_pass_is_refused_when_an_action_exists_and_in_version_a() -> None:
    """A pass with a legal action available is illegal; version A has no pass at all."""
    # CY-4.3, CY-R18
    assert refuse(new("Ka1 Rd4", "Kh8", "B"), "pass").clause == "CY-R18"
    assert refuse(new("Ka1 Rd4", "Kh8", "A"), "pass").clause == "CY-4.3"


def test_a_single_pass_then_a_move_resets_the_pass_count() -> None:
    """Only consecutive passes count."""
    # CY-7.6
    state = new("Ka1 Ma2 Mb1 Mb2", "Kh8 Rd5", "B")
    state = play(state, "pass", "d5-d4", "pass", "d4-d5")
    assert CYVASSE.outcome(state) is None
