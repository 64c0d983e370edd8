"""3-D Chess events (ruling chess3d.md). Moves are stored in canonical notation (C3-1.7)."""

from contracts.events import DrawAccepted, DrawDeclined, DrawOffered, Event


class MovePlayed(Event, tag="MovePlayed", frozen=True, kw_only=True):
    seat: int
    move: str  # canonical, e.g. "IE2-IE4", "IIE5xIIID6", "IIE7-IIE8=Q"
    check: bool = False


class MateDemanded(Event, tag="MateDemanded", frozen=True, kw_only=True):
    seat: int


# The draw events are the platform's (contracts.events), re-exported for readers of this module.
EVENTS: tuple[type[Event], ...] = (MovePlayed, MateDemanded)
__all__ = ["EVENTS", "DrawAccepted", "DrawDeclined", "DrawOffered", "MateDemanded", "MovePlayed"]
