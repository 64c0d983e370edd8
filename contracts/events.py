"""Platform events, shared by every ruleset.

Events are stored as `msgspec.json` bytes of these tagged Structs; the tag is the stream entry's
`type`. Evolution rules: new fields get defaults; never change a field's type or reuse a tag; no
`forbid_unknown_fields`, so older readers decode newer events.
"""

import msgspec


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", omit_defaults=True):
    """Base of every stored event (platform and ruleset)."""


class GameCreated(Event, tag="GameCreated", frozen=True, kw_only=True):
    ruleset: str
    variant: str = ""
    seats: int
    # Optional teams (lists of seats playing together); empty means every seat for itself.
    teams: list[list[int]] = []
    # Player ids per seat, as matchmaking or the creator named them ("" when anonymous).
    players: list[str] = []
    # A starting position in the ruleset's notation; "" means the standard setup.
    position: str = ""


class Resigned(Event, tag="Resigned", frozen=True, kw_only=True):
    seat: int


class GameEnded(Event, tag="GameEnded", frozen=True, kw_only=True):
    # Result in the ruleset's notation ("1-0", "0-1", "1/2-1/2" for two-seat games).
    result: str
    reason: str
    winners: list[int] = []


class GameSealed(Event, tag="GameSealed", frozen=True, kw_only=True):
    """Records the final (n, h_n) of the chain (fair-play protocol section 4)."""

    version: int
    hash: str


PLATFORM_EVENTS: tuple[type[Event], ...] = (GameCreated, Resigned, GameEnded, GameSealed)
