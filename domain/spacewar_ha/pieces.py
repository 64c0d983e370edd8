"""The pieces of HA-2: kinds, letters, starting values, and a piece's values.

A piece is owned by White (0) or Black (1); its values are non-negative integers (HA-2.2). A
Medic has Repair and Supply and no Ammo; every other piece has Ammo and neither pool.
"""

from typing import Final, NamedTuple

TRACTOR: Final = "Q"
DEFENDER: Final = "R"
SCOUT: Final = "N"
SHOOTER: Final = "B"
MEDIC: Final = "K"
KINDS: Final = (TRACTOR, DEFENDER, SCOUT, SHOOTER, MEDIC)
KIND_NAMES: Final = {TRACTOR: "Tractor", DEFENDER: "Defender", SCOUT: "Scout",
                     SHOOTER: "Shooter", MEDIC: "Medic"}  # fmt: skip
FIRERS: Final = frozenset({DEFENDER, SCOUT, SHOOTER})  # HA-5.10
SIDE_NAMES: Final = ("White", "Black")


class Start(NamedTuple):
    """A kind's starting values (HA-2.1)."""

    health: int
    ammo: int = 0
    repair: int = 0
    supply: int = 0


STARTING: Final = {
    TRACTOR: Start(3, 9),
    DEFENDER: Start(9, 6),
    SCOUT: Start(3, 3),
    SHOOTER: Start(6, 9),
    MEDIC: Start(9, 0, 18, 6),
}
BASE_HEALTH: Final = 1  # HA-2.1: any hit captures a Base (HA-5.12)
BASE_REPAIR: Final = 36
BASE_SUPPLY: Final = 72


class Piece(NamedTuple):
    """A piece on `square` with its values (HA-2.1, HA-R21)."""

    square: int
    owner: int
    kind: str
    health: int
    ammo: int = 0
    repair: int = 0
    supply: int = 0

    @property
    def name(self) -> str:
        return f"{SIDE_NAMES[self.owner]} {KIND_NAMES[self.kind]}"


def new_piece(square: int, owner: int, kind: str) -> Piece:
    """A piece at its starting values (HA-3.3)."""
    start = STARTING[kind]
    return Piece(square, owner, kind, start.health, start.ammo, start.repair, start.supply)


class Base(NamedTuple):
    """A Base square of `owner` with its pools (HA-2.1, HA-5.50); `captured` is permanent."""

    square: int
    owner: int
    repair: int = BASE_REPAIR
    supply: int = BASE_SUPPLY
    captured: bool = False
