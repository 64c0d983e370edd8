"""Bot levels (issue 24, domain/search/levels.py): ordered by budget, a function of the seed,
random play that never gives up, and the ruleset's own bot where there is nothing to search."""

from typing import Any

import pytest

from domain.chess3d import CHESS3D
from domain.core import Decided, Rejection, Ruleset
from domain.search.levels import COSTLY, LEVELS, choose, iterations, level
from domain.search.mcts import AGREEMENT_VERBS
from domain.spacewar import SPACEWAR
from domain.yavoch.rules import YAVOCH
from domain.yiora import YIORA


def _start(ruleset: Ruleset[Any, Any], variant: str = "") -> Any:
    return ruleset.start(ruleset.create(variant))


def _text(ruleset: Ruleset[Any, Any], state: Any, action: Any) -> str:
    return str(ruleset.format_action(state, action))


def test_levels_are_numbered_from_one_and_ordered_by_budget() -> None:
    # issue 24 ("1 random, 2-5 by search budget")
    assert [lv.number for lv in LEVELS] == list(range(1, len(LEVELS) + 1))
    assert LEVELS[0].iterations == 0  # level 1: random play, no search
    budgets = [lv.iterations for lv in LEVELS]
    assert budgets == sorted(set(budgets))
    limits = [lv.playout_limit for lv in LEVELS[1:]]
    assert limits == sorted(limits)
    assert all(level(lv.number) is lv for lv in LEVELS)
    for missing in (0, len(LEVELS) + 1):
        with pytest.raises(ValueError, match="no bot level"):
            level(missing)


def test_a_costly_ruleset_searches_less_but_keeps_the_order() -> None:
    """Spacewar's levels search fewer iterations (its moves are slow to list), still in order."""
    assert COSTLY[SPACEWAR.name] > 1
    for ruleset in (SPACEWAR, CHESS3D):
        budgets = [iterations(lv, ruleset) for lv in LEVELS]
        assert budgets[0] == 0
        assert budgets[1:] == sorted(set(budgets[1:]))
    assert iterations(LEVELS[2], SPACEWAR) < iterations(LEVELS[2], CHESS3D)


@pytest.mark.parametrize("number", [1, 2])
def test_the_same_seed_gives_the_same_action(number: int) -> None:
    # issue 24 (every choice seeded: a duel is repeatable)
    state = _start(YIORA)
    at = level(number)
    first = [_text(YIORA, state, choose(YIORA, state, 0, at, seed)) for seed in range(6)]
    again = [_text(YIORA, state, choose(YIORA, state, 0, at, seed)) for seed in range(6)]
    assert first == again
    assert len(set(first)) > 1  # the seed does steer it


@pytest.mark.parametrize(("ruleset", "variant"), [(CHESS3D, ""), (YIORA, "secondary_basic")])
def test_level_one_never_resigns_nor_offers_a_draw(
    ruleset: Ruleset[Any, Any], variant: str
) -> None:
    """Random play plays: resignation and the draw agreements (with a game prefix in Yiora's
    parallel games, `bsq:resign`) are legal actions it never picks."""
    # issue 24
    state = _start(ruleset, variant)
    seat = min(ruleset.to_act(state))
    texts = {_text(ruleset, state, a) for a in ruleset.legal_actions(state, seat)}
    assert any(t.rpartition(":")[2] in AGREEMENT_VERBS for t in texts)  # there to be picked
    for seed in range(300):
        text = _text(ruleset, state, choose(ruleset, state, seat, LEVELS[0], seed))
        assert text.rpartition(":")[2] not in AGREEMENT_VERBS, (seed, text)


@pytest.mark.parametrize("number", [1, 2, 3])
def test_yavoch_placement_falls_back_to_the_ruleset_s_own_bot(number: int) -> None:
    """Captain Decker's Yavoch places its fleet by one `place ...` action that `legal_actions`
    does not list (only `resign` is): the search has nothing to search, and every level places
    as the ruleset's own bot does, legally."""
    # Y-3.2, issue 24
    state = _start(YAVOCH, "decker")
    levels = YAVOCH.parse_action(state, 0, "levels 12")
    assert not isinstance(levels, Rejection), levels
    decided = YAVOCH.decide(state, 0, levels)
    assert isinstance(decided, Decided)
    state = decided.state
    assert state.phase == "place"
    assert [_text(YAVOCH, state, a) for a in YAVOCH.legal_actions(state, 0)] == ["resign"]
    action = choose(YAVOCH, state, 0, level(number), 11)
    assert _text(YAVOCH, state, action).startswith("place ")
    assert isinstance(YAVOCH.decide(state, 0, action), Decided)
