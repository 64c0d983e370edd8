"""The action notation (SW-1.5) and the position notation (docs/rules/spacewar.md)."""

import pytest

from contracts.errors import ErrorCode
from domain.core import VariantError
from domain.spacewar import SPACEWAR
from domain.spacewar.actions import Malformed, parse
from tests.domain.spacewar.helpers import at, new, position

EXAMPLES = ["Rh2-h5", "Kb2-c3-d3", "Rh2xh5", "Kb2-c3xd4=e5", "Rh2-h5;A:c2,g2", "END",
            "B e5>g6", "C c5:h2", "F e5>g6>h7", "F b5>a5>off", "FR d4", "L b2,a2,b1>b3",
            "P@c1", "pass"]  # fmt: skip


@pytest.mark.parametrize("text", EXAMPLES)
def test_examples_parse(text: str) -> None:
    # SW-1.5: every form of the table parses
    assert not isinstance(parse(text), Malformed)


def test_malformed_actions() -> None:
    # SW-1.5
    for text in ("Rh2-h13", "Rh2xh3-h4", "B e5", "X", "L b2,a2>b3"):
        assert isinstance(parse(text), Malformed)
    rejection = SPACEWAR.parse_action(new(), 0, "nonsense")
    assert rejection.clause == "SW-1.5"  # type: ignore[union-attr]


def test_start_position_round_trips() -> None:
    state = new()
    text = SPACEWAR.position(state)
    assert text.startswith("t=1 p=1 s=move a=w passes=0 moved=- hit=1 W=Pa1,Ra2,")
    assert SPACEWAR.position(new(text)) == text


def test_full_position_round_trips() -> None:
    text = position("Kb2s,Dd4sm,Ne3a,Pe5fl", "Kb11,Pc12,Rg6", t=3, p=2, s="combat",
                    a="b", passes=1, moved="-", hit=3, hits="h1:Nd4>g6,h2:D->g6x",
                    window="pull:g6:h7:d4", pending="1,0")  # fmt: skip
    assert SPACEWAR.position(new(text, "auto_pass=false")) == text
    with pytest.raises(VariantError):  # the window's origin must be empty
        new(text.replace("Kb11,Pc12,Rg6", "Kb11,Pc12,Rg6,Ph7"), "auto_pass=false")


@pytest.mark.parametrize(
    "bad",
    [
        "t=1",
        position("Kb2,Kb2", "Kb11"),
        position("Kb2", "Kb11", p=2),
        position("Kb2", "Kb11", s="combat"),
        position("Kb2,Pa1s", "Kb11"),
        position("Kb2", "Kb11", hits="h1:Nd4>g6"),
        position("Rb2", "Kb11"),
    ],
)
def test_bad_positions(bad: str) -> None:
    with pytest.raises(VariantError) as exc:
        SPACEWAR.create("", bad)
    assert exc.value.code is ErrorCode.BAD_POSITION


def test_render_and_view() -> None:
    state = at("Kb2,De5s", "Kb11,Pe8f")
    picture = SPACEWAR.render(state)
    assert "turn 1 phase 1 (move), White to act" in picture
    view = SPACEWAR.view(state, None)
    assert view["phase"] == 1
    assert len(view["pieces"]) == 4
    assert {p["square"]: p["side"] for p in view["pieces"]}["e5"] == "small"
