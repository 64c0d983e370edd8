"""Resignation and draws by agreement, for any number of seats and teams.

A ruleset keeps an `Agreement` and its `Outcome` in its state, calls `decide` for the four verbs
(citing its own clause), `changes` from its `evolve`, and `moved` or `mark_cleared` when a seat
has moved:
- `resign`, at any time: the seat is out (with its whole team when the ruleset's teams resign
  together); when one side is left, it wins;
- `offer-draw`, when the ruleset allows it (two-seat games: on one's turn), once between one's
  moves, and not over another seat's standing offer;
- `accept-draw` / `decline-draw` answer another seat's standing offer: the draw needs every seat
  still in the game; one decline ends the offer, and so does a resignation that leaves the game
  going (the seats left agree afresh).
"""

from dataclasses import dataclass, replace
from typing import Any

from contracts.errors import ErrorCode
from contracts.events import DrawAccepted, DrawDeclined, DrawOffered, Event, GameEnded, Resigned
from domain.core import outcome
from domain.core.outcome import DRAW, LOSS, TWO, Outcome, Sides
from domain.core.ruleset import Decision, Rejection

VERBS = frozenset({"resign", "offer-draw", "accept-draw", "decline-draw"})


@dataclass(frozen=True, slots=True)
class Agreement:
    sides: Sides = TWO
    team_resigns: bool = True  # a seat's resignation takes its whole team out
    offer: int = -1  # the seat whose draw offer stands, -1 if none
    agreed: int = 0  # a bit per seat that agrees to the standing offer, its maker included
    offered: int = 0  # a bit per seat that offered and has not moved since
    out: int = 0  # a bit per seat out of the game (resigned)

    def in_play(self, seat: int) -> bool:
        return not self.out >> seat & 1


def decide(verb: str, seat: int, agreement: Agreement, clause: str, *, may_offer: bool) -> Decision:
    def illegal(reason: str) -> Rejection:
        return Rejection(ErrorCode.ILLEGAL_ACTION, reason, clause)

    if not agreement.in_play(seat):
        return illegal("you have resigned")
    if verb == "resign":
        return _resign(seat, agreement)
    if verb == "offer-draw":
        if not may_offer:
            return Rejection(ErrorCode.NOT_YOUR_TURN, "offer a draw on your turn", clause)
        if agreement.offer not in (-1, seat):
            two = agreement.sides.seats == 2
            whose = "your opponent's" if two else f"seat {agreement.offer}'s"
            return illegal(f"{whose} draw offer stands: accept or decline it")
        if agreement.offered >> seat & 1:
            return illegal("you may not offer a draw again before you have moved")
        return (DrawOffered(seat=seat),)
    if not pending(agreement, seat):
        return illegal("there is no draw offer for you to answer")
    if verb == "decline-draw":
        return (DrawDeclined(seat=seat),)
    agreed = agreement.agreed | 1 << seat
    seats = range(agreement.sides.seats)
    if not all(agreed >> s & 1 for s in seats if agreement.in_play(s)):
        return (DrawAccepted(seat=seat),)
    scores = tuple(DRAW if agreement.in_play(s) else LOSS for s in seats)
    return (DrawAccepted(seat=seat), outcome.ended(Outcome(scores, "agreement")))


def _resign(seat: int, agreement: Agreement) -> Decision:
    out = _out(agreement, seat)
    left = [side for side in agreement.sides.all() if any(not out >> s & 1 for s in side)]
    if len(left) > 1:
        return (Resigned(seat=seat),)
    won = outcome.win(left[0][0], "resignation", agreement.sides)
    return (Resigned(seat=seat), outcome.ended(won))


def _out(agreement: Agreement, seat: int) -> int:
    quitting = agreement.sides.side(seat) if agreement.team_resigns else (seat,)
    return agreement.out | sum(1 << s for s in quitting)


def changes(agreement: Agreement, event: Event) -> dict[str, Any] | None:
    """The state fields (`agreement`, `outcome`) an agreement or end event sets, else None."""
    match event:
        case DrawOffered(seat=seat):
            offered = agreement.offered | 1 << seat
            return {"agreement": replace(agreement, offer=seat, agreed=1 << seat, offered=offered)}
        case DrawDeclined():
            return {"agreement": replace(agreement, offer=-1, agreed=0)}
        case DrawAccepted(seat=seat):
            return {"agreement": replace(agreement, agreed=agreement.agreed | 1 << seat)}
        case Resigned(seat=seat):
            return {"agreement": replace(agreement, out=_out(agreement, seat), offer=-1, agreed=0)}
        case GameEnded():
            return {"outcome": outcome.of(event)}
    return None


def pending(agreement: Agreement, seat: int) -> bool:
    """Whether a draw offer stands that `seat` has not agreed to."""
    return agreement.offer >= 0 and not agreement.agreed >> seat & 1


def moved(agreement: Agreement, seat: int) -> Agreement:
    """After `seat` moved: its offer mark is cleared, and a standing offer it had not agreed to
    is declined (chess's convention: a move instead of an answer declines)."""
    if agreement.offered == 0 and agreement.offer < 0:  # the common case, kept cheap
        return agreement
    declined = pending(agreement, seat)
    return replace(agreement, offered=agreement.offered & ~(1 << seat),
                   offer=-1 if declined else agreement.offer,
                   agreed=0 if declined else agreement.agreed)  # fmt: skip


def mark_cleared(agreement: Agreement, seat: int) -> Agreement:
    """After `seat`'s turn, where an offer stands until it is answered: `seat` may offer again."""
    if not agreement.offered >> seat & 1:
        return agreement
    return replace(agreement, offered=agreement.offered & ~(1 << seat))
