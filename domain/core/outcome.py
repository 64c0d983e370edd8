"""How a game ends, for any number of seats: a score per seat, the seats that won, the reason.

A game scores 1 for a win, 1/2 for a draw and 0 for a loss, per seat (YI-8.4.3's scale; a
match of several games sums its games' scores, `scored`). Teammates share their side's score
and its win. The result notation joins the scores with "-", seat 0 first: "1-0", "0-1" and
"1/2-1/2" for two seats, as two-seat games have always written them, "1-0-1/2-1/2" for four.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from contracts.events import GameCreated, GameEnded

WIN, DRAW, LOSS = Fraction(1), Fraction(1, 2), Fraction(0)


@dataclass(frozen=True, slots=True)
class Sides:
    """Who plays with whom (`GameCreated.seats` and `.teams`): each team is a side, and a seat
    in no team is a side of its own."""

    seats: int = 2
    teams: tuple[tuple[int, ...], ...] = ()

    @classmethod
    def of(cls, created: GameCreated) -> "Sides":
        return cls(created.seats, tuple(tuple(team) for team in created.teams))

    def side(self, seat: int) -> tuple[int, ...]:
        """The seats playing together with `seat`, itself included."""
        return next((team for team in self.teams if seat in team), (seat,))

    def all(self) -> tuple[tuple[int, ...], ...]:
        """Every side, in order of its first seat."""
        return tuple(sorted({self.side(seat) for seat in range(self.seats)}))


TWO = Sides()


@dataclass(frozen=True, slots=True)
class Outcome:
    scores: tuple[Fraction, ...]  # per seat
    reason: str  # e.g. "checkmate", "stalemate", "resignation"
    winners: tuple[int, ...] = ()  # none in a draw

    @property
    def result(self) -> str:
        """The result notation: the scores joined by "-" ("1-0", "1/2-1/2", "3/2-1/2")."""
        return "-".join(map(str, self.scores))


def win(seat: int, reason: str, sides: Sides = TWO) -> Outcome:
    """`seat`'s side wins, every other side loses."""
    winners = sides.side(seat)
    scores = tuple(WIN if s in winners else LOSS for s in range(sides.seats))
    return Outcome(scores, reason, winners)


def lose(losers: Iterable[int], reason: str, sides: Sides = TWO) -> Outcome:
    """The sides of `losers` lose and every other side wins (a forfeit, a last side left)."""
    out = {s for seat in losers for s in sides.side(seat)}
    scores = tuple(LOSS if s in out else WIN for s in range(sides.seats))
    return Outcome(scores, reason, tuple(s for s in range(sides.seats) if s not in out))


def draw(reason: str, sides: Sides = TWO) -> Outcome:
    return Outcome((DRAW,) * sides.seats, reason)


def scored(scores: Iterable[Fraction], reason: str) -> Outcome:
    """An outcome from each seat's score (a match's sums): the seats with the highest score
    win, unless every seat has it (a drawn match)."""
    points = tuple(scores)
    best = max(points)
    tied = all(p == best for p in points)
    return Outcome(
        points, reason, () if tied else tuple(s for s, p in enumerate(points) if p == best)
    )


def ended(outcome: Outcome) -> GameEnded:
    return GameEnded(result=outcome.result, reason=outcome.reason, winners=list(outcome.winners))


def of(event: GameEnded) -> Outcome:
    """The outcome a recorded `GameEnded` states (its result checked by the contract)."""
    scores = tuple(Fraction(score) for score in event.result.split("-"))
    return Outcome(scores, event.reason, tuple(event.winners))
