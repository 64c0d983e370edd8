"""Optional Rules e (Fortress Storming), f (Wildfyre) and g (Fortress Promotion), version C
only (CY-6.4.5-6.4.7, CY-R44..R46, CY-R59)."""

import pytest

from contracts.cyvasse import MovePlayed
from contracts.errors import ErrorCode
from domain.core import VariantError
from domain.cyvasse import CYVASSE
from tests.domain.cyvasse.helpers import act, actions_from, legal_texts, new, play, refuse

E = "C+fortress-storming"
F = "C+wildfyre"
G = "C+fortress-promotion"


def field(state: object, name: str) -> str:
    record = CYVASSE.position(state)  # type: ignore[arg-type]
    return next(part for part in record.split("; ") if part.startswith(name + "="))


# e. Fortress Storming --------------------------------------------------------------------


def test_storming_survival_then_ruin() -> None:
    """Entering the enemy Fortress starts the right; after one enemy turn without recapture
    the stormer may ruin it as a whole turn; the man stays."""
    # CY-6.4.5, CY-R44, CY-1.3.3, CY-1.3.5
    state = new("Ed2 Ka1", "Kh8 Ra8", E, terrain="Xd5")
    state = play(state, "d2-d5")
    assert field(state, "storm") == "storm=d5:w:0"
    state = play(state, "a8-a7")
    assert field(state, "storm") == "storm=d5:w:1"
    assert "ruin@d5" in legal_texts(state)
    state, events = act(state, "ruin@d5")
    assert events == (MovePlayed(seat=0, action="ruin@d5"),)
    assert field(state, "terrain") == "terrain=Fd5"
    assert field(state, "storm") == "storm=-"
    assert field(state, "white") == "white=Ka1 Ed5"
    assert state.pos.quiet == 0


def test_ruin_refused_before_survival_and_without_the_option() -> None:
    """No ruin before the opponent's turn has passed, none for a man that is not there, and
    none without the option."""
    # CY-6.4.5, CY-R44
    state = play(new("Ed2 Ka1 Ra2", "Kh8 Ra8", E, terrain="Xd5"), "d2-d5", "a8-a7")
    state = play(state, "a2-a3", "a7-a8")  # a later turn still qualifies
    assert "ruin@d5" in legal_texts(state)
    fresh = play(new("Ed2 Ka1", "Kh8 Ra8", E, terrain="Xd5"), "d2-d5", "a8-a7", "a1-a2")
    assert "storm=d5:w:1" in CYVASSE.position(fresh)
    state = new("Ed2 Ka1", "Kh8 Ra8", E, terrain="Xd5")
    state = play(state, "d2-d5")
    problem = refuse(state, "ruin@d5", seat=0)
    assert problem.code is ErrorCode.NOT_YOUR_TURN
    state = play(state, "a8-a7")
    assert refuse(state, "ruin@d6").clause == "CY-6.4.5"
    state = new("Ed5 Ka1", "Kh8", "C", terrain="Xd5")
    assert refuse(state, "ruin@d5").clause == "CY-6.4.5"
    state = new("Ed5 Ka1", "Kh8", E, terrain="Xd5", storm="d5:w:0")
    assert refuse(state, "ruin@d5").reason.startswith("your man on d5 must first survive")


def test_recapture_or_leaving_cancels_the_right() -> None:
    """Capturing the stormer or the stormer leaving ends the right; re-entering starts over.
    The stormer defends with the Fortress bonus (CY-R28)."""
    # CY-6.4.5, CY-R28, CY-R44
    state = play(new("Sd4 Ka1", "Kh8 Ed7", E, terrain="Xd5"), "d4-d5")
    assert CYVASSE.position(state).count("d5:w:0") == 1
    assert "d7xd5" in legal_texts(state)  # Elephant 7 >= Spears 3 + 3
    state = play(state, "d7xd5")
    assert field(state, "storm") == "storm=-"
    state = play(new("Sd4 Ka1", "Kh8 Ra8", E, terrain="Xd5"), "d4-d5", "a8-a7", "d5-d6")
    assert field(state, "storm") == "storm=-"
    state = play(state, "a7-a8", "d6-d5")
    assert field(state, "storm") == "storm=d5:w:0"


def test_a_stationary_capture_from_the_fortress_keeps_the_right() -> None:
    """A ranged attack does not move the stormer, so the right stays."""
    # CY-6.4.5, CY-5.4.4
    state = new("Cd5 Ka1", "Kh8 Rf7 Ra8", E, terrain="Xd5", storm="d5:w:1", side="w")
    state = play(state, "d5*f7")
    assert field(state, "storm") == "storm=d5:w:1"


def test_storm_entries_in_position_records() -> None:
    """storm= is parsed and validated; it needs the option."""
    # CY-1.3.5
    for variant, storm, words in [
        ("C", "d5:w:1", "fortress-storming"),
        (E, "d4:w:1", "no intact enemy Fortress"),
        (E, "d5:b:1", "no intact enemy Fortress"),
        (E, "d5:w:2", "not <square>:<w|b>:<0|1>"),
    ]:
        with pytest.raises(VariantError) as err:
            new("Ed5 Ka1", "Kh8", variant, terrain="Xd5 Xd4", storm=storm)
        assert words in err.value.reason
    state = new("Ed5 Ka1", "Kh8 Rb4", E, terrain="Xd5 Xd4", storm="d5:w:1")
    assert CYVASSE.start(CYVASSE.create(E, CYVASSE.position(state))) == state


def test_the_storm_right_is_part_of_the_repetition_key() -> None:
    # CY-7.4
    a = new("Ed5 Ka1", "Kh8", E, terrain="Xd5", storm="d5:w:1")
    b = new("Ed5 Ka1", "Kh8", E, terrain="Xd5", storm="d5:w:0")
    assert a.pos.key() != b.pos.key()


# f. Wildfyre -----------------------------------------------------------------------------


def test_ranged_capture_on_water_sets_it_burning() -> None:
    """A stationary capture of a man on Water burns the square; a displacement capture does
    not. A burning square is impassable for every man including the Dragon, even for a drop,
    but does not block stationary-capture lines."""
    # CY-6.4.6, CY-R45, CY-5.2.3, CY-7.5
    state = new("Cc3 Ka1", "Rd4 Kh8", F, terrain="Wd4")
    burnt = play(state, "c3*d4")
    assert field(burnt, "terrain") == "terrain=Bd4"
    assert burnt.pos.quiet == 0
    assert field(play(state, "c3xd4"), "terrain") == "terrain=Wd4"
    assert field(play(new("Cc3 Ka1", "Rd4 Kh8", "C", terrain="Wd4"), "c3*d4"), "terrain") == (
        "terrain=Wd4"
    )
    state = new("Dd2 Cc3 Ka1", "Kh8 Re5 Rd6", F, terrain="Bd4")
    assert not {"d2-d4", "d2-d5", "d2xd6", "c3-d4"} & legal_texts(state)
    assert refuse(state, "d2-d5").clause == "CY-5.2.3"
    assert "c3*e5" in legal_texts(state)
    state = new("Ka1", "Kh8 Rb6", "C+wildfyre+dragon-reserve", terrain="Bd4", reserve="w")
    assert "D@d4" not in legal_texts(state)
    assert "D@d3" in legal_texts(state)
    assert refuse(state, "D@d4").clause == "CY-6.4.6"


def test_trebuchet_ranged_capture_burns_too() -> None:
    # CY-6.4.6
    state = play(new("Td2 Rd3 Ka1", "Rd4 Kh8", F, terrain="Wd4"), "d2*d4")
    assert field(state, "terrain") == "terrain=Bd4"


# g. Fortress Promotion -------------------------------------------------------------------


def test_promotion_on_entering_the_own_fortress_after_a_loss() -> None:
    """A man entering its own intact Fortress may become the next type up the ladder if that
    type has been lost; both the plain and the promoting action are legal."""
    # CY-6.4.7, CY-R46, CY-1.3.3
    state = new("Rb3 Ka1", "Kh8", G, terrain="Xb4")  # White has lost Spears
    assert actions_from(state, "b3") >= {"b3-b4", "b3-b4=S"}
    state, events = act(state, "b3-b4=S")
    assert events == (MovePlayed(seat=0, action="b3-b4=S"),)
    assert field(state, "white") == "white=Ka1 Sb4"
    assert state.pos.quiet == 0
    full = "Ka1 Sa2 Sa3 Sc1 Sd1 Rb3"  # four Spears: nothing lost
    assert "b3-b4=S" not in legal_texts(new(full, "Kh8", G, terrain="Xb4"))
    assert refuse(new(full, "Kh8", G, terrain="Xb4"), "b3-b4=S").clause == "CY-R46"
    state = new("Rb3 Ka1", "Kh8", G, terrain="Xb4")
    assert refuse(state, "b3-b4=L").clause == "CY-R46"
    assert refuse(new("Rb3 Ka1", "Kh8", "C", terrain="Xb4"), "b3-b4=S").clause == "CY-6.4.7"
    assert refuse(state, "b3-c3=S").clause == "CY-6.4.7"


def test_promotion_only_into_the_own_intact_fortress() -> None:
    """No promotion on the enemy Fortress, a ruined one or for the King; a capture entering
    the Fortress may promote; the Dragon counts the reserve."""
    # CY-6.4.7, CY-R46, CY-6.4.2
    assert "d4-d5=S" not in legal_texts(new("Rd4 Ka1", "Kh8", G, terrain="Xd5"))
    assert "b3-b4=S" not in legal_texts(new("Rb3 Ka1", "Kh8", G, terrain="Fb4"))
    assert not any("=" in t for t in legal_texts(new("Kb3", "Kh8", G, terrain="Xb4")))
    state = new("Ca3 Ka1", "Rb4 Kh8", G, terrain="Xb4")  # Rabble 2 + 3 <= Crossbowmen 5
    assert {"a3xb4", "a3xb4=H", "a3*b4"} <= legal_texts(state)
    assert "a3*b4=H" not in legal_texts(state)
    state = new("Eb2 Ka1", "Kh8", G + "+dragon-reserve", terrain="Xb4", reserve="w")
    assert "b2-b4=D" not in legal_texts(state)
    state = new("Eb2 Ka1", "Kh8", G + "+dragon-reserve", terrain="Xb4", reserve="b")
    assert "b2-b4=D" in legal_texts(state)


def test_promotion_syntax() -> None:
    """`=<letter>` only on - and x actions and only to a ladder type."""
    # CY-1.3.3, CY-6.4.7
    state = new("Rb3 Ka1", "Kh8", G, terrain="Xb4")
    assert refuse(state, "b3-b4=K").clause == "CY-6.4.7"
    assert refuse(state, "b3*b4=S").clause == "CY-6.4.7"
