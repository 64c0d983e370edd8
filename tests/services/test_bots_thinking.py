"""The bots' thinking (issue 24, services/bots/thinking.py): its settings, its CPU budget on a
clock, and a search held to its budget."""

import msgspec
import pytest

from contracts.events import TimeControl
from domain.chess3d import CHESS3D
from domain.core import table as tables
from services.bots.thinking import Thinkers, move, settings


def test_the_settings_have_defaults_and_bounds() -> None:
    assert settings({}) == (1, 10.0)
    assert settings({"TABULA_BOTS_THINKERS": "2", "TABULA_BOTS_MOVE_CPU_S": "0.5"}) == (2, 0.5)
    for bad in ({"TABULA_BOTS_THINKERS": "0"}, {"TABULA_BOTS_MOVE_CPU_S": "601"}):
        with pytest.raises(ValueError, match="TABULA_BOTS_"):
            settings(bad)


def test_on_a_clock_a_search_takes_a_share_of_the_time_left() -> None:
    """A 40th of the time left plus half the increment, never more than the setting: a bot
    must not lose on time by thinking."""
    thinkers = Thinkers(1, 5.0)
    plain = tables.open_table(CHESS3D, "g-plain", CHESS3D.create(""))
    assert thinkers.budget_s(plain, 0, 0) == 5.0
    clock = TimeControl(base_ms=60_000, increment_ms=2_000)
    created = msgspec.structs.replace(CHESS3D.create(""), clock=clock)
    timed = tables.open_table(CHESS3D, "g-timed", created)
    assert timed.clocks is not None
    assert thinkers.budget_s(timed, 0, 0) == pytest.approx(60 / 40 + 1)  # 2.5 s
    slow = Thinkers(1, 2.0)
    assert slow.budget_s(timed, 0, 0) == 2.0


def test_a_search_past_its_cpu_budget_plays_what_it_has() -> None:
    """With no CPU to spend, level 5 stops at its first look (no iteration) and still plays a
    legal action; with a budget it searches."""
    state = CHESS3D.start(CHESS3D.create(""))
    legal = {CHESS3D.format_action(state, a) for a in CHESS3D.legal_actions(state, 0)}
    starved = move(CHESS3D, state, 0, 5, seed=1, cpu_s=0.0)
    assert starved.text in legal
    assert (starved.how, starved.iterations, starved.level, starved.seed) == ("search", 0, 5, 1)
    searched = move(CHESS3D, state, 0, 2, seed=1, cpu_s=600.0)
    assert searched.text in legal
    assert searched.iterations == 25  # level 2's whole budget
