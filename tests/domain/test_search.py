"""Monte Carlo tree search over the ruleset interface (issue 24, domain/search/mcts.py): wins at
once, never loses at once when it need not, samples chance, searches four seats, is a function
of its seed, and plays better than chance."""

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from domain.chess3d import CHESS3D
from domain.core import Decided, DrawRequest, DrawResult, Rejection
from domain.core.outcome import WIN
from domain.cyvasse import CYVASSE
from domain.search import Choice, Rng, SplitMix, mcts, search
from domain.search.mcts import AGREEMENT_VERBS
from domain.yavoch.rules import YAVOCH
from domain.yiora import YIORA
from tests.domain.chess3d.helpers import fen_of
from tests.domain.chess3d.helpers import new as chess3d
from tests.domain.cyvasse.helpers import act as cyvasse_act
from tests.domain.cyvasse.helpers import new as cyvasse
from tests.domain.yavoch.helpers import REFEREE as YAVOCH_REFEREE
from tests.domain.yavoch.helpers import game as yavoch
from tests.domain.yiora.helpers import new as yiora

MATE = {"IA1": "k", "IIIA1": "K", "IIH1": "Q"}  # tests/domain/chess3d/test_end.py: IIH1-IIA1 mates
# Captain Decker's Yavoch: seat 0's Command ship at 111 has no energy, its Stinger at 121 two
# units. After S121-112 it may feed the Command ship (E112>111) or END, which loses (Y-8.3).
FEEDABLE = "1C111 1S121:2 2C511:3 2T521 / 1"
# tests/browser/test_confirm.py's position: after T121-131 only END is left, and it loses.
STARVED = "1C111 1T121 2C511:3 2T521 / 1"
# An Assault ship at 151 may attack the enemy Command ship at 155: the die of fate decides.
ATTACK = "1C111:1 1A151:1 2C155:1 2S554:1 / 1"


def _after(ruleset: Any, state: Any, seat: int, choice: Choice) -> Any:
    """The state after the chosen action (which must be legal; no draws)."""
    decided = ruleset.decide(state, seat, choice.action)
    assert not isinstance(decided, Rejection), decided
    return decided.state


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_mate_in_one_is_played(seed: int) -> None:
    """Whatever the seed, a small budget finds a mate in one in 3-D Chess."""
    # C3-7.1, issue 24
    state = chess3d(fen_of(MATE))
    choice = search(CHESS3D, state, 0, iterations=20, seed=seed)
    end = CHESS3D.outcome(_after(CHESS3D, state, 0, choice))
    assert end is not None
    assert (end.reason, end.winners) == ("checkmate", (0,))
    assert choice.reason == "wins-at-once"
    assert choice.seed == seed


@pytest.mark.parametrize("seed", [1, 2])
def test_the_king_is_captured_when_it_can_be(seed: int) -> None:
    """Cyvasse: version B has no check, and a King left attacked is taken (the game won); a
    King attacked at the start of version A is too."""
    # CY-7.3, CY-6.1.5, CY-R60, issue 24
    state, _ = cyvasse_act(cyvasse("Ke4 Ra1", "Ee6 Rb7 Kh8", "B"), "e4-e5")
    choice = search(CYVASSE, state, 1, iterations=20, seed=seed)
    assert choice.text == "e6xe5"
    end = CYVASSE.outcome(_after(CYVASSE, state, 1, choice))
    assert end is not None
    assert (end.reason, end.winners) == ("king_captured", (1,))
    state = cyvasse("Ke1 Sd4 Rb2", "Kd5", "A")
    assert search(CYVASSE, state, 0, iterations=20, seed=seed).text == "d4xd5"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_end_of_turn_that_loses_at_once_is_avoided(seed: int) -> None:
    """Yavoch: with its Command ship out of energy, seat 0 feeds it rather than END its turn
    (which loses at once), but ENDs when nothing else is left (resigning is no better)."""
    # Y-8.3, issue 24 ("never an action that loses on the spot when another exists")
    state, _ = YAVOCH_REFEREE.act(yavoch(FEEDABLE), "S121-112")
    texts = {YAVOCH.format_action(state, a) for a in YAVOCH.legal_actions(state, 0)}
    assert {"END", "E112>111"} <= texts
    assert search(YAVOCH, state, 0, iterations=20, seed=seed).text == "E112>111"
    state, _ = YAVOCH_REFEREE.act(yavoch(STARVED), "T121-131")
    choice = search(YAVOCH, state, 0, iterations=20, seed=seed)
    assert (choice.text, choice.reason) == ("END", "only-action")
    end = YAVOCH.outcome(_after(YAVOCH, state, 0, choice))
    assert end is not None
    assert end.winners == (1,)


def test_an_action_the_order_left_out_is_played_rather_than_a_loss() -> None:
    """A ruleset's order may prune (Spacewar's does); when every action it kept loses at once,
    the search looks at those it left out and plays one that does not."""
    # Y-8.3, issue 24 ("never an action that loses on the spot when another exists")
    state, _ = YAVOCH_REFEREE.act(yavoch(FEEDABLE), "S121-112")

    def only_the_end(st: Any, seat: int, actions: Sequence[Any]) -> Sequence[Any]:
        return [a for a in actions if YAVOCH.format_action(st, a) == "END"]

    choice = search(YAVOCH, state, 0, iterations=20, seed=1, order=only_the_end)
    assert choice.text != "END"
    assert YAVOCH.outcome(_after(YAVOCH, state, 0, choice)) is None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_tree_sees_a_loss_two_actions_ahead(seed: int) -> None:
    """Yavoch: of the Stinger's moves only S121-112 (with or without a mine) keeps it beside
    the starving Command ship, to feed it before the turn ends; after any other, END is all
    that is left, and it loses (Y-8.3). No single decision loses: the tree must see it."""
    # Y-8.3, Y-5.54, issue 24
    state = yavoch(FEEDABLE)
    choice = search(YAVOCH, state, 0, iterations=100, seed=seed)
    assert choice.reason == "search"
    assert choice.text in ("S121-112", "S121-112/M")


def test_the_same_seed_gives_the_same_choice_and_visits() -> None:
    """A search is a function of its inputs: the seed is logged beside the action."""
    # issue 24 (the domain draws no global randomness: pyproject's import-linter contract)
    state = yiora()
    first = search(YIORA, state, 0, iterations=40, seed=7, playout_limit=20)
    again = search(YIORA, state, 0, iterations=40, seed=7, playout_limit=20)
    assert first == again
    assert first.iterations == 40
    assert sum(first.visit_counts().values()) == 40
    other = search(YIORA, state, 0, iterations=40, seed=8, playout_limit=20)
    assert other.visits != first.visits  # the seed does steer it


def test_chance_is_sampled_from_the_search_s_own_generator() -> None:
    """Yavoch: an attack needs the die of fate (NeedDraws); the search answers it itself, and
    a win that depends on the roll is not taken as a win at once."""
    # Y-2.6, Y-5.23, issue 24
    state = yavoch(ATTACK)
    choice = search(YAVOCH, state, 0, iterations=60, seed=5)
    assert choice.reason == "search"
    assert choice.iterations == 60
    assert "A151x155" in choice.visit_counts()
    texts = {YAVOCH.format_action(state, a) for a in YAVOCH.legal_actions(state, 0)}
    assert choice.text in texts


def test_full_yavoch_s_shuffles_and_card_salts_are_sampled_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Full Yavoch deals cards at the end of a turn: the search shuffles the deck and
    makes card salts itself, as it rolls the die, in the randomness service's ranges."""
    # Y-2.6, fair-play 2, issue 24
    kinds: Counter[str] = Counter()
    sample = mcts._sample

    def spy(request: DrawRequest, rng: Rng) -> DrawResult:
        result = sample(request, rng)
        kinds[request.kind] += 1
        if request.kind == "shuffle":
            assert sorted(result.values) == list(range(request.n))
        if request.kind == "die":
            assert 0 <= result.values[0] < request.n
        return result

    monkeypatch.setattr(mcts, "_sample", spy)
    state = yavoch("1C111:3 1S112:2 1A151:1 2C555:3 2T554 2S545:2 / 1", "full")
    choice = search(YAVOCH, state, 0, iterations=60, seed=1)
    assert choice.iterations == 60
    assert {"die", "shuffle", "salt"} <= set(kinds)


def test_four_seats_with_teams_are_searched() -> None:
    """Yiora Secondary Basic: four seats, two games at once; each seat to act gets a legal
    move of its own game (max-n, simultaneous seats taken in turn)."""
    # YI-8.3, issue 24
    state = yiora(variant="secondary_basic")
    waiting = YIORA.to_act(state)
    assert len(waiting) > 1
    for seat in sorted(waiting):
        choice = search(YIORA, state, seat, iterations=20, seed=seat, playout_limit=30)
        texts = {YIORA.format_action(state, a) for a in YIORA.legal_actions(state, seat)}
        assert choice.text in texts
        assert choice.text.rpartition(":")[2] not in AGREEMENT_VERBS
        _after(YIORA, state, seat, choice)


def test_should_stop_ends_the_search_between_iterations() -> None:
    """The caller's deadline: asked before each iteration, it cuts the budget short."""
    # issue 24 (the domain reads no clock: the service makes `should_stop` from one)
    asked = []

    def stop() -> bool:
        asked.append(True)
        return len(asked) > 5

    choice = search(YIORA, yiora(), 0, iterations=1000, seed=1, playout_limit=10, should_stop=stop)
    assert choice.iterations == 5


def test_a_determinization_is_sampled_per_iteration() -> None:
    """Hidden information: a ruleset's sampler is asked once per iteration (ISMCTS), besides
    one for each root action's safety check (more for one that ends the game: what `seat`
    cannot see might change that)."""
    # issue 24
    calls: list[int] = []

    class Identity:
        def sample(self, state: Any, seat: int, rng: Rng) -> Any:
            calls.append(seat)
            return state

    state = yiora()
    roots = sum(not YIORA.format_action(state, a).endswith(tuple(AGREEMENT_VERBS))
                for a in YIORA.legal_actions(state, 0))  # fmt: skip
    search(YIORA, state, 0, iterations=12, seed=1, playout_limit=10, determinize=Identity())
    assert calls == [0] * (12 + roots)


def test_splitmix_is_seeded_and_in_range() -> None:
    """The search's own generator (the domain may not import `random`)."""
    # issue 24
    a, b = SplitMix(3), SplitMix(3)
    draws = [a.randrange(6) for _ in range(600)]
    assert draws == [b.randrange(6) for _ in range(600)]
    assert set(draws) == set(range(6))
    assert all(0.0 <= a.random() < 1.0 for _ in range(100))


def test_search_beats_uniformly_random_play() -> None:
    """Level sanity: in Yiora Primary Basic a small search (8 iterations, playouts of 10
    plies) scores at least 7 of 10 seeded games against uniformly random moves, each side in
    turn (the wins come mostly from taking wins and refusing losses at once)."""
    # YI-4.4, issue 24
    points = 0.0
    for g in range(10):
        state, rng, me = yiora(), SplitMix(1000 + g), g % 2
        for ply in range(300):
            if YIORA.outcome(state) is not None:
                break
            (seat,) = YIORA.to_act(state)
            if seat == me:
                action = search(YIORA, state, seat, iterations=8, seed=ply, playout_limit=10).action
            else:
                moves = [a for a in YIORA.legal_actions(state, seat)
                         if YIORA.format_action(state, a) not in AGREEMENT_VERBS]  # fmt: skip
                action = moves[rng.randrange(len(moves))]
            decided = YIORA.decide(state, seat, action)
            assert isinstance(decided, Decided)
            state = decided.state
        end = YIORA.outcome(state)
        points += 0.5 if end is None else 1.0 if end.scores[me] == WIN else float(end.scores[me])
    assert points >= 7
