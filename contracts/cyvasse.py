"""Cyvasse events (ruling cyvasse.md). Actions are stored in canonical notation (CY-1.3.3).

The setup needs no event of its own: the platform's SetupRevealed carries the setup bytes.
"""

from contracts.events import Event


class MovePlayed(Event, tag="MovePlayed", frozen=True, kw_only=True):
    """A board action: `e2-e4`, `d4xd2`, `d4*d6`, `D@c3` or `pass`; `check` announces CHECK
    (version A, CY-6.1.4)."""

    seat: int
    action: str
    check: bool = False


class DrawOffered(Event, tag="DrawOffered", frozen=True, kw_only=True):
    seat: int


class DrawDeclined(Event, tag="DrawDeclined", frozen=True, kw_only=True):
    seat: int


class DrawAccepted(Event, tag="DrawAccepted", frozen=True, kw_only=True):
    seat: int


EVENTS: tuple[type[Event], ...] = (MovePlayed, DrawOffered, DrawDeclined, DrawAccepted)
