"""Monte Carlo tree search over any ruleset (issue 24): UCT, open loop, for bots.

`search(ruleset, state, seat, iterations=..., seed=...)` picks an action for `seat` in the
ruleset's own state (not the table's: seeds, setups and clocks are the service's business) by
UCT (UCB1 with `UCT_C` = sqrt 2) and returns a `Choice`: the action, its text, the visits per
root action, the iterations done and the seed, to log beside the action.

Purity. The domain draws no global randomness and reads no clock (import-linter forbids
`random` and `time` here), so the search takes its randomness from the integer seed it is
given, through its own small generator (`SplitMix`, SplitMix64), and its budget as a number of
iterations; a deadline is the caller's: `should_stop()` is asked between iterations. The same
seed, state and budget give the same choice and the same visits.

The tree is open loop: a node is a sequence of actions from the root, not a state, and every
iteration plays the actions again from the root. That one choice serves three things:
- chance: when `decide` answers `NeedDraws`, the search samples the outcomes from its own
  generator, as the randomness service would answer them (`die`: a face in 0..n-1, `uniform`:
  0..n-1, `shuffle`: a permutation of 0..n-1, `salt`: any string; domain.fairplay) and decides
  again: determinized chance nodes, sampled afresh per iteration;
- hidden information: given a `Determinize` (the ruleset's business: a full state consistent
  with what `seat` sees), each iteration searches a fresh sample (single-observer information
  set MCTS, Cowling, Powley and Whitehouse 2012), and a child's exploration term counts the
  iterations in which its action was available (its `available`), not its parent's visits.
  Full Yavoch supplies one (domain/yavoch/determinize.py: the other hand, face-down discards
  and the pile); the other rulesets hide nothing in play (Cyvasse's setups are revealed before
  it), and without one the search reads the state it is given as if all of it were known;
- any number of seats: max-n (Luckhardt and Irani 1986). Each node's seat picks the child with
  the best mean score for itself, the scores being `Outcome.scores` per seat (teammates share
  their side's score). Paranoid search (everyone against the searching seat) is weaker when the
  other seats are not all against one, as in Yiora's team games; max-n is the usual general
  choice for more than two seats (Ludii's and OpenSpiel's MCTS back up a score per player).

Who acts. Several seats may be expected at once (a simultaneous phase, or Yiora's Secondary
games in parallel): inside the search they act one after another in seat order, round robin
from the seat that acted last (a standard simplification: each sees the others' choice).

Which actions. The search plays the game: resignation and the draw agreements
(`AGREEMENT_VERBS`, with or without a game prefix such as `bsq:`) are never searched; they stay
the bot's or its owner's decision. `order(state, seat, actions)` may reorder or prune a node's
actions (a ruleset's help, optional): untried actions are then expanded in its order.

Playouts play uniformly random actions up to `playout_limit` plies, then score the position by
`evaluate(state)` (scores per seat in [0, 1]: a ruleset's cheap evaluation, whose home is its
package) or, without one, as a draw (`DRAW_SCORE` each).

Tactical safety (issue 24: "A bot never takes an action that loses on the spot when another
exists"): each root action is decided once first. One that ends the game with `seat` among the
winners, under every sample of its chance (`SAFETY_SAMPLES` more when it drew any), is played
at once; one that ends it lost by `seat` under every sample is never chosen while another
action is left, even one that `order` left out.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from domain.core.outcome import Outcome
from domain.core.ruleset import (
    Decided,
    DrawRequest,
    DrawResult,
    NeedDraws,
    Rejection,
    Ruleset,
    with_state,
)

UCT_C: Final = math.sqrt(2)  # UCB1's exploration constant for scores in [0, 1]
DRAW_SCORE: Final = 0.5  # a playout cut off without an evaluation scores as a draw
SAFETY_SAMPLES: Final = 4  # more samples of a root action's chance before calling it sure
AGREEMENT_VERBS: Final = frozenset({"resign", "offer-draw", "accept-draw", "decline-draw"})
MAX_DRAW_ROUNDS: Final = 256  # a decision asking for draws more often than this is a bug

Scores = Sequence[float] | None  # per seat; None: a draw (DRAW_SCORE for every seat)
Evaluate = Callable[[Any], Sequence[float]]
Order = Callable[[Any, int, Sequence[Any]], Sequence[Any]]

_MASK64: Final = (1 << 64) - 1


class Rng(Protocol):
    """The randomness the search and a `Determinize` draw from (`random.Random` has it too)."""

    def randrange(self, n: int, /) -> int: ...

    def random(self) -> float: ...


class SplitMix:
    """SplitMix64 (Steele, Lea and Flood 2014): a small, fast, seedable generator, since the
    domain may not import `random`. Not for secrets: only for the search's own sampling."""

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        self._state = seed & _MASK64

    def next64(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK64
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def randrange(self, n: int, /) -> int:
        """Uniform in [0, n), by rejection (no modulo bias)."""
        if n <= 0:
            raise ValueError("randrange needs n >= 1")
        limit = (1 << 64) - (1 << 64) % n
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def random(self) -> float:
        """Uniform in [0, 1), 53 bits."""
        return (self.next64() >> 11) / (1 << 53)


class Determinize(Protocol):
    """A ruleset's sampler of hidden information (ISMCTS): a full state consistent with what
    `seat` sees of `state`, its unknowns drawn from `rng`."""

    def sample(self, state: Any, seat: int, rng: Rng) -> Any: ...


@dataclass(frozen=True, slots=True)
class Choice:
    """The search's pick, with what to log beside it."""

    action: Any
    text: str
    # Per root action searched, in the root's order (none for a win at once: nothing searched).
    visits: tuple[tuple[str, int], ...]
    iterations: int  # done (fewer than asked when `should_stop` said so)
    seed: int
    reason: str = "search"  # "search", "wins-at-once" or "only-action"

    def visit_counts(self) -> dict[str, int]:
        return dict(self.visits)


@dataclass(slots=True, eq=False)
class _Node:
    """An edge of the open-loop tree: `action` (`text`) played by `mover`, and its statistics
    (`total`: the sum of `mover`'s scores over the `visits` through it)."""

    mover: int
    text: str
    action: Any
    visits: int = 0
    total: float = 0.0
    available: int = 0  # iterations in which the action was legal at its parent (ISMCTS)
    children: dict[tuple[int, str], "_Node"] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Search:
    """The fixed inputs of one search."""

    ruleset: Ruleset[Any, Any]
    evaluate: Evaluate | None
    order: Order | None
    playout_limit: int


def search(
    ruleset: Ruleset[Any, Any],
    state: Any,
    seat: int,
    *,
    iterations: int,
    seed: int,
    evaluate: Evaluate | None = None,
    order: Order | None = None,
    playout_limit: int = 200,
    should_stop: Callable[[], bool] | None = None,
    determinize: Determinize | None = None,
) -> Choice:
    """`seat`'s action in `state` by UCT over `iterations` iterations drawn from `seed` (see
    the module). Raises ValueError when `seat` has no action to search (none but agreements)."""
    rng = SplitMix(seed)
    s = _Search(ruleset, evaluate, order, playout_limit)
    root_actions = _play_actions(s, state, seat)
    if not root_actions:
        raise ValueError(f"seat {seat} has no action to search")
    candidates: list[tuple[Any, str]] = []
    losing: list[tuple[Any, str]] = []
    pruned = not order  # with an order, the actions it left out are looked at if need be
    while True:
        for action, text in root_actions:
            verdict = _verdict(ruleset, state, seat, action, rng, determinize)
            if verdict == "win":
                return Choice(action, text, (), 0, seed, "wins-at-once")
            (losing if verdict == "loss" else candidates).append((action, text))
        if candidates or pruned:
            break
        # Every action the order kept loses at once: one it left out may not.
        pruned, kept = True, {text for _, text in root_actions}
        every = _play_actions(_Search(ruleset, evaluate, None, playout_limit), state, seat)
        root_actions = [(a, t) for a, t in every if t not in kept]
    candidates = candidates or losing  # every action loses: lose searching, not refusing
    if len(candidates) == 1:
        action, text = candidates[0]
        return Choice(action, text, ((text, 0),), 0, seed, "only-action")
    root = _Node(-1, "", None)
    for action, text in candidates:
        root.children[(seat, text)] = _Node(seat, text, action)
    done = 0
    while done < iterations and not (should_stop is not None and should_stop()):
        sample = state if determinize is None else determinize.sample(state, seat, rng)
        _iterate(s, root, sample, seat, rng)
        done += 1
    visits = tuple((text, root.children[(seat, text)].visits) for _, text in candidates)
    best = _most_visited(root, seat, candidates)
    return Choice(best.action, best.text, visits, done, seed)


def _most_visited(root: _Node, seat: int, candidates: Sequence[tuple[Any, str]]) -> _Node:
    """The robust child: the most visited, ties to the better mean, then the root's order."""
    children = [root.children[(seat, text)] for _, text in candidates]
    return max(children, key=lambda c: (c.visits, c.total / c.visits if c.visits else 0.0))


# -- deciding, with chance sampled ---------------------------------------------------------------


def _sample(request: DrawRequest, rng: Rng) -> DrawResult:
    """One outcome as the randomness service would give it (domain.fairplay's ranges)."""
    kind, n = request.kind, request.n
    if kind == "salt":
        salt = "".join(f"{rng.randrange(1 << 16):04x}" for _ in range(16))  # 64 hex, as a salt
        return DrawResult(None, kind, n, request.purpose, salt=salt)
    if kind in ("die", "uniform"):
        return DrawResult(None, kind, n, request.purpose, (rng.randrange(n),))
    if kind == "shuffle":
        deck = list(range(n))
        for i in range(n - 1, 0, -1):  # Fisher-Yates, as fairplay.shuffle_from
            j = rng.randrange(i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        return DrawResult(None, kind, n, request.purpose, tuple(deck))
    raise ValueError(f"unknown draw kind {kind!r}")


def _decide(
    ruleset: Ruleset[Any, Any], state: Any, seat: int, action: Any, rng: Rng
) -> tuple[Decided | Rejection, bool]:
    """`decide`, its draws sampled from `rng`: the decision (with the state it leads to) and
    whether it drew anything."""
    draws: list[DrawResult] = []
    for _ in range(MAX_DRAW_ROUNDS):
        decision = ruleset.decide(state, seat, action, draws)
        if isinstance(decision, NeedDraws):
            draws.extend(_sample(request, rng) for request in decision.requests)
            continue
        if isinstance(decision, Rejection):
            return decision, bool(draws)
        decided = with_state(ruleset.evolve, state, decision)
        assert isinstance(decided, Decided)
        return decided, bool(draws)
    raise RuntimeError(f"{ruleset.name}: a decision kept asking for draws")


def _end(outcome: Outcome | None, seat: int) -> str:
    """ "win" or "loss" for `seat` when the game has ended with winners; else ""."""
    if outcome is None or not outcome.winners:
        return ""
    return "win" if seat in outcome.winners else "loss"


def _verdict(ruleset: Ruleset[Any, Any], state: Any, seat: int, action: Any, rng: Rng,
             determinize: Determinize | None = None) -> str:  # fmt: skip
    """ "win" or "loss" when the action ends the game so for `seat` under every sample of its
    chance and of what `seat` cannot see (one decision when it draws nothing and nothing is
    hidden); else ""."""

    def end() -> tuple[str, bool]:
        sample = state if determinize is None else determinize.sample(state, seat, rng)
        decided, drew = _decide(ruleset, sample, seat, action, rng)
        if isinstance(decided, Rejection):
            return "", drew
        return _end(ruleset.outcome(decided.state), seat), drew

    first, drew = end()
    if not first or not (drew or determinize is not None):
        return first
    for _ in range(SAFETY_SAMPLES):
        if end()[0] != first:
            return ""
    return first


# -- one iteration -------------------------------------------------------------------------------


def is_agreement(text: str) -> bool:
    """A resignation or a draw agreement, with or without a game prefix (`bsq:resign`)."""
    return text.rpartition(":")[2].strip() in AGREEMENT_VERBS


def _play_actions(s: _Search, state: Any, seat: int) -> list[tuple[Any, str]]:
    """`seat`'s actions to search (agreements left out), in `order`'s order when given."""
    actions: Sequence[Any] = s.ruleset.legal_actions(state, seat)
    if s.order is not None:
        actions = s.order(state, seat, actions)
    fmt = s.ruleset.format_action
    texts = ((a, fmt(state, a)) for a in actions)
    return [(a, t) for a, t in texts if not is_agreement(t)]


def _next_seat(waiting: frozenset[int], last: int) -> int | None:
    """The seat to act after `last`: the first waiting seat after it in seat order, round
    robin (simultaneous seats act one after another inside the search)."""
    if not waiting:
        return None
    later = [s for s in waiting if s > last]
    return min(later) if later else min(waiting)


def _score(scores: Scores, seat: int) -> float:
    if scores is None or seat >= len(scores):
        return DRAW_SCORE
    return scores[seat]


def _scores(outcome: Outcome) -> tuple[float, ...]:
    return tuple(float(score) for score in outcome.scores)


def _ucb(child: _Node) -> float:
    mean = child.total / child.visits
    return mean + UCT_C * math.sqrt(math.log(child.available) / child.visits)


def _iterate(s: _Search, root: _Node, state: Any, seat: int, rng: Rng) -> None:
    """Select down the tree, expand one action, play out, back up every seat's score."""
    ruleset = s.ruleset
    path: list[_Node] = []
    node, mover = root, seat
    scores: Scores = None
    while True:
        if node is root:
            legal = [(c.action, c.text) for c in root.children.values()]
        else:
            outcome = ruleset.outcome(state)
            if outcome is not None:
                scores = _scores(outcome)
                break
            waiting = ruleset.to_act(state)
            next_mover = _next_seat(waiting, mover)
            if next_mover is None:
                scores = _cut(s, state)
                break
            mover = next_mover
            legal = _play_actions(s, state, mover)
        if not legal:  # the seat waits on something the search does not play (a setup)
            scores = _cut(s, state)
            break
        untried = [(a, t) for a, t in legal if (mover, t) not in node.children]
        if untried:
            pick = 0 if s.order is not None else rng.randrange(len(untried))
            action, text = untried[pick]
            child = _Node(mover, text, action)
            node.children[(mover, text)] = child
            child.available = 1
            for _a, t in legal:
                if (other := node.children.get((mover, t))) is not None and other is not child:
                    other.available += 1
        else:
            available = [node.children[(mover, t)] for _a, t in legal]
            for c in available:
                c.available += 1
            unvisited = [c for c in available if c.visits == 0]  # root children start unvisited
            if unvisited:
                child = unvisited[rng.randrange(len(unvisited))]
            else:
                child = max(available, key=_ucb)
        decided, _drew = _decide(ruleset, state, mover, child.action, rng)
        if isinstance(decided, Rejection):  # not legal in this sample: score what we have
            scores = _cut(s, state)
            break
        path.append(child)
        state = decided.state
        if child.visits == 0:  # newly expanded (or a root child's first visit): play out
            scores = _playout(s, state, mover, rng)
            break
        node = child
    for edge in path:
        edge.visits += 1
        edge.total += _score(scores, edge.mover)


def _cut(s: _Search, state: Any) -> Scores:
    """The score of a position the search stops in without an outcome."""
    return None if s.evaluate is None else tuple(s.evaluate(state))


def _playout(s: _Search, state: Any, last: int, rng: Rng) -> Scores:
    """Uniformly random actions (agreements excepted) up to the playout limit."""
    ruleset = s.ruleset
    for _ in range(s.playout_limit):
        outcome = ruleset.outcome(state)
        if outcome is not None:
            return _scores(outcome)
        mover = _next_seat(ruleset.to_act(state), last)
        if mover is None:
            break
        actions = list(ruleset.legal_actions(state, mover))
        after = None
        while actions and after is None:  # draw until a playable action: few are agreements
            action = actions.pop(rng.randrange(len(actions)))
            if is_agreement(ruleset.format_action(state, action)):
                continue
            decided, _drew = _decide(ruleset, state, mover, action, rng)
            if not isinstance(decided, Rejection):
                after = decided.state
        if after is None:
            break
        state, last = after, mover
    outcome = ruleset.outcome(state)
    return _scores(outcome) if outcome is not None else _cut(s, state)
