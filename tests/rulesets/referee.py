"""One test helper for any ruleset: play actions given as text straight on its pure functions.

`Referee(ruleset, to_move)` parses an action text for a seat (by default the side to move),
decides it and evolves its events. Draws the ruleset asks for (`NeedDraws`) are answered from
the test's `rolls` (dice and uniforms, in order, each used exactly once) and `shuffles`
(permutations, in order; the identity once they run out), and card salts from the referee's
server seed and game id (`domain.fairplay`), numbering the nonces 0, 1, ... per decision as
the table would. No table: no seeds, no setups, no nonces kept between actions.
"""

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

import msgspec

from contracts.events import Event
from domain import fairplay
from domain.core import DrawResult, NeedDraws, Rejection, Ruleset

S = TypeVar("S")
A = TypeVar("A")

SERVER_SEED = "5e" * 32


def _every(_action: object) -> bool:
    return True


class Referee(Generic[S, A]):
    """Decides and applies actions given as text for tests of `ruleset` (see the module)."""

    def __init__(
        self,
        ruleset: Ruleset[S, A],
        to_move: Callable[[S], int] | None = None,
        *,
        game_id: str = "",
        server_seed: str = SERVER_SEED,
    ) -> None:
        """`to_move(state)`: the seat that acts when a call names none (default: the only seat
        in `ruleset.to_act`); `game_id` (default "<ruleset>-test") and `server_seed`: the game
        whose card salts answer salt draws and `start` stamps into GameCreated."""
        self.ruleset = ruleset
        self.to_move = to_move
        self.game_id = game_id or f"{ruleset.name}-test"
        self.server_seed = server_seed

    def start(self, variant: str = "", position: str = "") -> S:
        """The state of a new game of `variant` from `position`, with the referee's game id."""
        created = self.ruleset.create(variant, position)
        return self.ruleset.start(msgspec.structs.replace(created, game_id=self.game_id))

    def salt(self, position: int) -> str:
        """The card salt of deck position `position` (fair-play 2)."""
        return fairplay.card_salt(self.server_seed, self.game_id, position)

    def seat_of(self, state: S, seat: int | None = None) -> int:
        """`seat`, or when None the side to move."""
        if seat is not None:
            return seat
        if self.to_move is not None:
            return self.to_move(state)
        seats = self.ruleset.to_act(state)
        assert len(seats) == 1, f"seats {sorted(seats)} to act: name the seat"
        (only,) = seats
        return only

    def decide(
        self,
        state: S,
        text: str,
        seat: int | None = None,
        *,
        rolls: Sequence[int] = (),
        shuffles: Sequence[Sequence[int]] = (),
    ) -> tuple[Event, ...] | Rejection:
        """The events `text` by `seat` yields (with their RandomDrawn / DeckShuffled in place),
        or its Rejection from parsing or deciding; fails if a roll is missing or left unused
        (not checked when the text does not parse)."""
        seat = self.seat_of(state, seat)
        action = self.ruleset.parse_action(state, seat, text)
        if isinstance(action, Rejection):
            return action
        dice, decks = list(rolls), [tuple(s) for s in shuffles]
        draws: list[DrawResult] = []
        nonce = 0
        decision = self.ruleset.decide(state, seat, action, ())
        while isinstance(decision, NeedDraws):
            for r in decision.requests:
                if r.kind == "salt":
                    draws.append(DrawResult(None, "salt", r.n, r.purpose, salt=self.salt(r.n)))
                    continue
                if r.kind == "shuffle":
                    values = decks.pop(0) if decks else tuple(range(r.n))
                else:
                    assert dice, f"{text!r} needs a {r.kind}({r.n}) for {r.purpose}: give rolls="
                    values = (dice.pop(0),)
                draws.append(DrawResult(nonce, r.kind, r.n, r.purpose, values))
                nonce += 1
            decision = self.ruleset.decide(state, seat, action, tuple(draws))
        assert not dice, f"rolls left unused: {dice}"
        return decision

    def act(
        self,
        state: S,
        text: str,
        seat: int | None = None,
        *,
        rolls: Sequence[int] = (),
        shuffles: Sequence[Sequence[int]] = (),
    ) -> tuple[S, tuple[Event, ...]]:
        """`decide`, then the state after the events and the events; fails on a rejection."""
        seat = self.seat_of(state, seat)
        events = self.decide(state, text, seat, rolls=rolls, shuffles=shuffles)
        assert not isinstance(events, Rejection), f"{text!r} by seat {seat}: {events}"
        for event in events:
            state = self.ruleset.evolve(state, event)
        return state, events

    def play(self, state: S, *texts: str) -> S:
        """The state after `act`ing each text in turn, each by the side to move."""
        for text in texts:
            state, _ = self.act(state, text)
        return state

    def refuse(
        self, state: S, text: str, seat: int | None = None, *, rolls: Sequence[int] = ()
    ) -> Rejection:
        """The Rejection `text` earns (from parsing or deciding); fails if it is accepted."""
        seat = self.seat_of(state, seat)
        result = self.decide(state, text, seat, rolls=rolls)
        assert isinstance(result, Rejection), f"{text!r} by seat {seat} was accepted: {result}"
        return result

    def legal_texts(
        self, state: S, seat: int | None = None, keep: Callable[[A], bool] = _every
    ) -> set[str]:
        """Canonical texts of `seat`'s (default: the side to move's) legal actions that `keep`
        accepts (default: all)."""
        seat = self.seat_of(state, seat)
        actions = self.ruleset.legal_actions(state, seat)
        return {self.ruleset.format_action(state, a) for a in actions if keep(a)}
