"""Spacewar Health/Ammo events (ruling spacewar.md Part B, `spacewar-ha`).

Actions are stored in the notation of HA-1.4; the automatic Base resupply at the start of a
turn (HA-5.60, HA-R27) is recorded by the engine as its own event. Draw offers, resignation and
the end of the game are the platform's events (contracts.events).
"""

from contracts.events import Event


class ActionPlayed(Event, tag="SpacewarHaActionPlayed", frozen=True, kw_only=True):
    """An action of HA-5 or a release (HA-4.1), e.g. "Rd1-d3", "Bf1*b5(3)", "Qd1~", "pass"."""

    seat: int
    action: str


class Resupplied(Event, tag="SpacewarHaResupplied", frozen=True, kw_only=True):
    """HA-5.60: at the start of `seat`'s turn its Medic on `medic` took `repair` Repair and
    `supply` Supply from its Base there."""

    seat: int
    medic: str
    repair: int
    supply: int


EVENTS: tuple[type[Event], ...] = (ActionPlayed, Resupplied)
__all__ = ["EVENTS", "ActionPlayed", "Resupplied"]
