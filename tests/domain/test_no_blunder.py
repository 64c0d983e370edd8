"""Issue 24: "A bot never takes an action that loses on the spot when another exists": a test
per ruleset, at every searching level (2 to 5; level 1 plays at random by design), through
`domain.search.levels.think` with the ruleset's help, over several seeds (one at levels 4 and 5).

Where an action can lose at once (Spacewar, Spacewar H/A, Yavoch), a position offers one
beside others, and no level takes it. Where none can, because the rules forbid leaving one's
own King (Overlord) attacked or only the opponent can take it, the levels are held instead to
taking a win at once; tests/domain/test_search.py holds the search itself to the same
(test_mate_in_one_is_played, test_the_king_is_captured_when_it_can_be,
test_an_end_of_turn_that_loses_at_once_is_avoided):
- 3-D Chess: C3-6.4, C3-R19 (no move may leave one's own King in check);
- Cyvasse: CY-6.1.2 (version A: no action may leave one's own King in check); CY-6.1.5, CY-7.3
  (versions B and C: a King left attacked is lost only when the opponent takes it);
- Yiora: YI-6.1 (no move may leave one's own Overlord threatened; it is never captured)."""

from typing import Any

import pytest

from domain.chess3d import CHESS3D
from domain.core import Decided, Rejection, Ruleset
from domain.cyvasse import CYVASSE
from domain.search import SplitMix, mcts
from domain.search.levels import LEVELS, think
from domain.spacewar import SPACEWAR
from domain.spacewar_ha import SPACEWAR_HA
from domain.yavoch.rules import YAVOCH
from domain.yiora import YIORA
from tests.domain.chess3d.helpers import fen_of
from tests.domain.chess3d.helpers import new as chess3d
from tests.domain.cyvasse.helpers import act as cyvasse_act
from tests.domain.cyvasse.helpers import new as cyvasse
from tests.domain.spacewar.helpers import at as spacewar
from tests.domain.spacewar_ha.helpers import at as spacewar_ha
from tests.domain.yavoch.helpers import REFEREE as YAVOCH_REFEREE
from tests.domain.yavoch.helpers import game as yavoch
from tests.domain.yiora.helpers import WSQ_START
from tests.domain.yiora.helpers import new as yiora

SEARCHING = [lv for lv in LEVELS if lv.iterations > 0]  # level 1 is random by design
SEEDS = (1, 2, 3)
# (level, seed) to think at: levels 4 and 5 with one seed only, as they take seconds a move
THINKS = [(at, seed) for at in SEARCHING for seed in (SEEDS if at.number <= 3 else SEEDS[:1])]
SAMPLES = 8  # samples of an action's chance before calling its loss sure


def _end(ruleset: Ruleset[Any, Any], state: Any, seat: int, action: Any, seed: int) -> str:
    """ "loss", "win" or "" for `seat` right after `action`, its draws sampled as the search
    samples them (mcts._decide); "" unless every sample agrees."""
    rng = SplitMix(seed)
    ends = set()
    for _ in range(SAMPLES):
        decided, _drew = mcts._decide(ruleset, state, seat, action, rng)
        assert not isinstance(decided, Rejection), decided
        outcome = ruleset.outcome(decided.state)
        ends.add("" if outcome is None or not outcome.winners
                 else "win" if seat in outcome.winners else "loss")  # fmt: skip
    return ends.pop() if len(ends) == 1 else ""


def _searched(ruleset: Ruleset[Any, Any], state: Any, seat: int) -> list[Any]:
    """`seat`'s actions the levels may take (agreements are the bot's owner's business)."""
    return [a for a in ruleset.legal_actions(state, seat)
            if ruleset.format_action(state, a) not in mcts.AGREEMENT_VERBS]  # fmt: skip


def _yavoch_feedable(variant: str) -> Any:
    # tests/domain/test_search.py's FEEDABLE, its Stinger moved beside the starving Command ship
    state = yavoch("1C111 1S121:2 2C511:3 2T521 / 1", variant)
    return YAVOCH_REFEREE.act(state, "S121-112")[0]


# (name, ruleset, state, seat): a position where some of the seat's actions lose at once.
LOSING: list[tuple[str, Ruleset[Any, Any], Any, int]] = [
    # SW-5.20, SW-8.1: White's last Mothership rammed onto the Black missile dies with it; so
    # does it where the missile's flight meets it once the phase ends (SW-5.65, SW-R53)
    ("spacewar", SPACEWAR, spacewar("Kd4", "Kk11,Pd5f"), 0),
    # HA-R18, HA-8.1: Black's Tractor pulling a White piece onto Black's last Base loses
    ("spacewar-ha", SPACEWAR_HA,
     spacewar_ha("Rd6:9/6,qd8:3/9", bases="Wd2:36/72,Bd7:36/72,Be7:x", side="b"), 1),
    # Y-8.3: END with the Command ship at no energy loses; feeding it (E112>111) does not
    ("yavoch decker", YAVOCH, _yavoch_feedable("decker"), 0),
    ("yavoch full", YAVOCH, _yavoch_feedable("full"), 0),
]  # fmt: skip


@pytest.mark.parametrize(("name", "ruleset", "state", "seat"), LOSING, ids=[c[0] for c in LOSING])
def test_no_level_takes_an_action_that_loses_at_once(
    name: str, ruleset: Ruleset[Any, Any], state: Any, seat: int
) -> None:
    actions = _searched(ruleset, state, seat)
    losing = {ruleset.format_action(state, a) for a in actions
              if _end(ruleset, state, seat, a, 0) == "loss"}  # fmt: skip
    assert losing, "the position offers no losing action"
    assert len(losing) < len(actions), "the position offers nothing but losing actions"
    for at, seed in THINKS:
        thought = think(ruleset, state, seat, at, seed)
        text = ruleset.format_action(state, thought.action)
        assert text not in losing, (at.name, seed)
        assert _end(ruleset, state, seat, thought.action, seed) != "loss", (at.name, seed)


def _cyvasse_king_left_attacked(variant: str) -> Any:
    # tests/domain/test_search.py's position (version B there): the White King steps next to
    # the Black Elephant, which takes it (CY-6.1.5, CY-7.3)
    return cyvasse_act(cyvasse("Ke4 Ra1", "Ee6 Rb7 Kh8", variant), "e4-e5")[0]


# (name, ruleset, state, seat): a position where the seat wins at once, and no action loses.
WINNING: list[tuple[str, Ruleset[Any, Any], Any, int]] = [
    # C3-7.1: IIH1-IIA1 mates (tests/domain/chess3d/test_end.py)
    ("chess3d", CHESS3D, chess3d(fen_of({"IA1": "k", "IIIA1": "K", "IIH1": "Q"})), 0),
    # CY-R60: a King left attacked by a reveal in version A is taken at once
    ("cyvasse A", CYVASSE, cyvasse("Ke1 Sd4 Rb2", "Kd5", "A"), 0),
    # CY-7.3: version C, the King left attacked is captured
    ("cyvasse C", CYVASSE, _cyvasse_king_left_attacked("C"), 1),
    # YI-7.1, YI-10.5 (b): A7-A9 mates (tests/domain/yiora/test_end.py)
    ("yiora primary", YIORA, yiora("w W:OA1,MA7,PO15 B:OA19,MR20 0 1"), 0),
]  # fmt: skip


@pytest.mark.parametrize(("name", "ruleset", "state", "seat"), WINNING,
                         ids=[c[0] for c in WINNING])  # fmt: skip
def test_where_no_action_loses_at_once_every_level_wins_at_once(
    name: str, ruleset: Ruleset[Any, Any], state: Any, seat: int
) -> None:
    actions = _searched(ruleset, state, seat)
    assert not any(_end(ruleset, state, seat, a, 0) == "loss" for a in actions)
    for at, seed in THINKS:
        thought = think(ruleset, state, seat, at, seed)
        assert _end(ruleset, state, seat, thought.action, seed) == "win", (at.name, seed)
        assert thought.how == "wins-at-once"


def test_a_mate_in_one_of_the_secondary_games_is_played() -> None:
    """Secondary Basic: a mate ends one game, not the match (YI-8.3, YI-8.4.3), so it is no
    win at once for the search; the evaluation scores that game by its result, and levels 3 and
    4 play the mate (level 2 searches fewer iterations than White has moves; level 5, the same
    search four times longer, would take half a minute here)."""
    # YI-7.1, YI-8.3, YI-6.1
    state = yiora(f"bsq:w W:OA1,MA7,PO15 B:OA19,MR20 0 1 | wsq:{WSQ_START}", "secondary_basic")
    actions = _searched(YIORA, state, 0)
    assert not any(_end(YIORA, state, 0, a, 0) for a in actions)  # no match ends at once
    for at, seed in THINKS:
        if at.number not in (3, 4):
            continue
        thought = think(YIORA, state, 0, at, seed)
        after = YIORA.decide(state, 0, thought.action)
        assert isinstance(after, Decided), after
        bsq = after.state.games[0].result
        assert bsq is not None, (at.name, seed, YIORA.format_action(state, thought.action))
        assert (bsq.reason, bsq.winners) == ("checkmate", (0,))
