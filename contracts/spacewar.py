"""Spacewar events (rulings spacewar.md Part A). A player's action is stored in the action
notation of SW-1.5; the steps the engine takes by itself (SW-R53) are events of their own, in
the same append as the action that led to them. Resignation, draws and the end of the game use
the platform's events."""

from contracts.events import Event


class ActionPlayed(Event, tag="SpacewarActionPlayed", frozen=True, kw_only=True):
    """A player's action in canonical notation (SW-1.5), e.g. "Rh2-h5;A:c2", "B e5>g6",
    "L b2,a2,b1>b3", "P@c1", "END", "pass"."""

    seat: int
    action: str


class AutoPassed(Event, tag="SpacewarAutoPassed", frozen=True, kw_only=True):
    """SW-4.5: the engine passed for `seat`, whose only legal action was a pass."""

    seat: int


class StepBegan(Event, tag="SpacewarStepBegan", frozen=True, kw_only=True):
    """The previous phase or step ended (SW-4.3, SW-4.4) and this one began: `step` is "move",
    "combat", "launch" or "replace" (SW-4.1, SW-5.60, SW-5.77)."""

    turn: int
    phase: int
    step: str


class MissilesMoved(Event, tag="SpacewarMissilesMoved", frozen=True, kw_only=True):
    """SW-5.65: the missile movement step; `results` lists what happened, for the record
    ("e7xe8": head-on, "xe6": a collision on e6, "b12>off": left the board)."""

    turn: int
    phase: int
    results: tuple[str, ...] = ()


class ReplacementLost(Event, tag="SpacewarReplacementLost", frozen=True, kw_only=True):
    """SW-5.77: `seat`'s replacements find no empty back-rank square and are lost."""

    seat: int
    count: int


EVENTS: tuple[type[Event], ...] = (ActionPlayed, AutoPassed, StepBegan, MissilesMoved,
                                   ReplacementLost)  # fmt: skip
__all__ = ["EVENTS", "ActionPlayed", "AutoPassed", "MissilesMoved", "ReplacementLost",
           "StepBegan"]  # fmt: skip
