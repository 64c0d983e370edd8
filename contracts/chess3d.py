"""3-D Chess events (ruling chess3d.md). Moves are stored in canonical notation (C3-1.7)."""

from contracts.events import Event


class MovePlayed(Event, tag="MovePlayed", frozen=True, kw_only=True):
    seat: int
    move: str  # canonical, e.g. "IE2-IE4", "IIE5xIIID6", "IIE7-IIE8=Q"
    check: bool = False


class DrawOffered(Event, tag="DrawOffered", frozen=True, kw_only=True):
    seat: int


class DrawDeclined(Event, tag="DrawDeclined", frozen=True, kw_only=True):
    seat: int


class DrawAccepted(Event, tag="DrawAccepted", frozen=True, kw_only=True):
    seat: int


class MateDemanded(Event, tag="MateDemanded", frozen=True, kw_only=True):
    seat: int


EVENTS: tuple[type[Event], ...] = (
    MovePlayed,
    DrawOffered,
    DrawDeclined,
    DrawAccepted,
    MateDemanded,
)
