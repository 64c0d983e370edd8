"""Yavoch events (ruling yavoch.md). Actions are stored in the notation of Y-1.14, canonical
and with their results (`N233x332{d=4,W}`, `A214-254>422`), so a log reads as the game's score.

Cards travel as the platform's `DeckShuffled`, `CardDealt` (private to the holder) and
`CardRevealed` (face up); the events below say what happens to them in Yavoch's terms.
"""

import msgspec

from contracts.events import DrawAccepted, DrawDeclined, DrawOffered, Event


class LevelsChosen(Event, tag="LevelsChosen", frozen=True, kw_only=True):
    """Y-3.1: player one's home levels, [1, 2] or [4, 5]."""

    seat: int
    levels: list[int]


class FleetPlaced(Event, tag="FleetPlaced", frozen=True, kw_only=True):
    """Y-3.2 / Y-3.3: a whole fleet, `C111 N112 ... G125 G135` (gates pair up in order)."""

    seat: int
    placement: str


class Played(Event, tag="Played", frozen=True, kw_only=True):
    """One action of Y-1.14 by `seat`: a MOVE, a HEP CAT shot, a transfer, `END`, a secret
    weapon (after the `CardRevealed` of its cards) or a defensive response."""

    seat: int
    action: str
    # [FULL] Y-5.96: the opponent's ships that may answer (a response window opens); the
    # action then takes effect with the answer.
    window: list[str] = msgspec.field(default_factory=list)


class TurnBegan(Event, tag="TurnBegan", frozen=True, kw_only=True):
    """Y-4.1: `seat` is the mover from now on; `turn` counts from 1 per game."""

    seat: int
    turn: int


class Discarded(Event, tag="Discarded", frozen=True, kw_only=True):
    """[FULL] Cards of `seat`'s hand put face down on the discard pile, named by their deal
    positions: `reason` "hand_limit" (Y-6.13) or "engineering_failure" (Y-6.21)."""

    seat: int
    positions: list[int]
    reason: str


class CardTaken(Event, tag="CardTaken", frozen=True, kw_only=True):
    """[FULL] Enemy Defector (Y-6.22): `seat` takes the card dealt at `position` from
    `from_seat`'s hand (its face then reaches the taker as a `CardDealt` of that position)."""

    seat: int
    from_seat: int
    position: int


class ImpactResolved(Event, tag="ImpactResolved", frozen=True, kw_only=True):
    """[FULL] The impact card at deal `position` resolved between turns (Y-6.15), with the die
    rolls it used, in order (Y-6.4)."""

    card: str
    position: int
    rolls: list[int] = msgspec.field(default_factory=list)


# The draw events are the platform's (contracts.events), re-exported for readers of this module.
EVENTS: tuple[type[Event], ...] = (
    LevelsChosen,
    FleetPlaced,
    Played,
    TurnBegan,
    Discarded,
    CardTaken,
    ImpactResolved,
)
__all__ = [
    "EVENTS",
    "CardTaken",
    "Discarded",
    "DrawAccepted",
    "DrawDeclined",
    "DrawOffered",
    "FleetPlaced",
    "ImpactResolved",
    "LevelsChosen",
    "Played",
    "TurnBegan",
]
