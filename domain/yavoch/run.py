"""A decision in progress (`Run`): `decide` works out an action by emitting events into a running
copy of the state, so every consequence (a battle's end of turn, the card draw, impact events
between turns, the next turn's start check) is computed by the same `evolve` that replays the
log. Random outcomes arrive as draws (`Need`, one at a time, in the order they occur in play:
Y-6.4), and are recorded (`RandomDrawn`, `DeckShuffled`) where they fall in the action.
"""

from collections.abc import Sequence

from contracts.events import DeckShuffled, Event, RandomDrawn
from domain.core import DrawRequest, DrawResult
from domain.yavoch.evolve import evolve
from domain.yavoch.state import State


class Need(Exception):
    """The decision needs one more draw: `decide` answers `NeedDraws` with it."""

    def __init__(self, request: DrawRequest) -> None:
        self.request = request


class Run:
    """A decision in progress: the events so far, the state after them, the draws used."""

    def __init__(self, state: State, draws: Sequence[DrawResult]) -> None:
        self.state, self.draws, self.used = state, draws, 0
        self.events: list[Event] = []

    def emit(self, *events: Event) -> None:
        for event in events:
            self.events.append(event)
            self.state = evolve(self.state, event)

    def draw(self, kind: str, n: int, purpose: str) -> DrawResult:
        """The next draw, recorded where it falls in the action (a reshuffle takes the cards
        discarded before it in the same action: Y-6.11); salts are not events."""
        if self.used == len(self.draws):
            raise Need(DrawRequest(kind, n, purpose))
        d = self.draws[self.used]
        self.used += 1
        if (d.kind, d.n) != (kind, n):
            raise ValueError(f"draw {d.kind}({d.n}) given where {kind}({n}) is needed")
        nonce = d.nonce if d.nonce is not None else -1
        if kind == "die":
            self.emit(RandomDrawn(nonce=nonce, kind=kind, n=n, purpose=d.purpose,
                                  value=d.values[0]))  # fmt: skip
        elif kind == "shuffle":
            self.emit(DeckShuffled(nonce=nonce, n=n, purpose=d.purpose, order=list(d.values)))
        return d

    def die(self, n: int, purpose: str) -> int:
        return self.draw("die", n, purpose).values[0]
