"""Two-seat results, resignation and draws by agreement, as every two-player ruleset has them.

A ruleset keeps `offer` (the seat whose draw offer stands, -1 if none), `offered` (a bit per
seat that offered and has not moved since) and `outcome` in its state, cites its own clause,
and calls `decide` for the four actions and `changes` from its `evolve`.
"""

from typing import Any

from contracts.errors import ErrorCode
from contracts.events import DrawAccepted, DrawDeclined, DrawOffered, Event, GameEnded, Resigned
from domain.core.ruleset import Decision, Outcome, Rejection

VERBS = frozenset({"resign", "offer-draw", "accept-draw", "decline-draw"})


def win(seat: int, reason: str) -> Outcome:
    return Outcome("1-0" if seat == 0 else "0-1", reason, (seat,))


def draw(reason: str) -> Outcome:
    return Outcome("1/2-1/2", reason)


def ended(outcome: Outcome) -> GameEnded:
    return GameEnded(result=outcome.result, reason=outcome.reason, winners=list(outcome.winners))


def decide(verb: str, seat: int, turn: int, offer: int, offered: int, clause: str) -> Decision:
    """Resign at any time; offer a draw on one's turn, once between one's moves and not over
    the opponent's standing offer; accept or decline the opponent's standing offer."""
    other = seat ^ 1
    if verb == "resign":
        return (Resigned(seat=seat), ended(win(other, "resignation")))
    if verb == "offer-draw":
        if seat != turn:
            return Rejection(ErrorCode.NOT_YOUR_TURN, "offer a draw on your turn", clause)
        if offer == other:
            return Rejection(ErrorCode.ILLEGAL_ACTION,
                             "your opponent's draw offer stands: accept or decline it",
                             clause)  # fmt: skip
        if offered >> seat & 1:
            return Rejection(ErrorCode.ILLEGAL_ACTION,
                             "you may not offer a draw again before you have moved",
                             clause)  # fmt: skip
        return (DrawOffered(seat=seat),)
    if offer != other:
        return Rejection(ErrorCode.ILLEGAL_ACTION, "there is no draw offer from your opponent",
                         clause)  # fmt: skip
    if verb == "decline-draw":
        return (DrawDeclined(seat=seat),)
    return (DrawAccepted(seat=seat), ended(draw("agreement")))


def changes(offered: int, event: Event) -> dict[str, Any] | None:
    """The state fields (offer, offered, outcome) an agreement or end event sets, else None."""
    if isinstance(event, DrawOffered):
        return {"offer": event.seat, "offered": offered | 1 << event.seat}
    if isinstance(event, DrawDeclined):
        return {"offer": -1}
    if isinstance(event, DrawAccepted):
        return {"offer": -1, "outcome": draw("agreement")}
    if isinstance(event, Resigned):
        return {"outcome": win(event.seat ^ 1, "resignation")}
    if isinstance(event, GameEnded):
        return {"outcome": Outcome(event.result, event.reason, tuple(event.winners))}
    return None
