"""Cyvasse events (ruling cyvasse.md). Actions are stored in canonical notation (CY-1.3.3).

The setup needs no event of its own: the platform's SetupRevealed carries the setup bytes.
"""

from contracts.events import DrawAccepted, DrawDeclined, DrawOffered, Event


class MovePlayed(Event, tag="MovePlayed", frozen=True, kw_only=True):
    """A board action: `e2-e4`, `d4xd2`, `d4*d6`, `D@c3` or `pass`; `check` announces CHECK
    (version A, CY-6.1.4)."""

    seat: int
    action: str
    check: bool = False


# The draw events are the platform's (contracts.events), re-exported for readers of this module.
EVENTS: tuple[type[Event], ...] = (MovePlayed,)
__all__ = ["EVENTS", "DrawAccepted", "DrawDeclined", "DrawOffered", "MovePlayed"]
