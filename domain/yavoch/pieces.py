"""Pieces and counts (section 2: Y-2.1 to Y-2.8, with Y-R6, Y-R32 to Y-R34) as data.

Both rulesets use the same fleet (Y-0.1: `full` is `decker` plus cards, events and weapons);
the deck and the recipes exist only in `full`. Kinds and letters are notation's `Kind`.
"""

from dataclasses import dataclass
from typing import Final, Literal

from domain.yavoch.notation import OWNERS, SHIPS, Kind

Ruleset = Literal["decker", "full"]
RULESETS: Final[tuple[Ruleset, ...]] = ("decker", "full")  # Y-0.1

HOME_LEVEL_POSITIONS: Final = 50  # Y-2.1 / Y-3.1: two levels of 25 positions


@dataclass(frozen=True)
class Fleet:
    """Y-2.1 / Y-0.4 `fleet.*`: one side's pieces (both sides have the same fleet)."""

    command: int = 1
    neornith: int = 3  # the source's count
    squam: int = 4  # the source's count
    archid: int = 2  # Y-R6
    trych: int = 10  # Y-R6
    gate_pairs: int = 1  # Y-R6: "Each pair of teleport gates"

    def __post_init__(self) -> None:
        if min(self.counts().values()) < 0:
            raise ValueError(f"Y-2.1: fleet counts cannot be negative: {self}")
        if self.pieces > HOME_LEVEL_POSITIONS:
            raise ValueError(
                f"Y-2.1: a fleet must fit its two home levels (at most {HOME_LEVEL_POSITIONS} "
                f"pieces), not {self.pieces}"
            )

    def counts(self) -> dict[Kind, int]:
        """Pieces of each kind; gates counted one by one (2 per pair, Y-2.2)."""
        return {
            Kind.COMMAND: self.command,
            Kind.NEORNITH: self.neornith,
            Kind.SQUAM: self.squam,
            Kind.ARCHID: self.archid,
            Kind.TRYCH: self.trych,
            Kind.GATE: 2 * self.gate_pairs,
        }

    @property
    def ships(self) -> int:
        """Y-2.1 / Y-0.3: the pieces that are ships (gates are not, Y-R7)."""
        return sum(n for kind, n in self.counts().items() if kind in SHIPS)

    @property
    def pieces(self) -> int:
        """Y-2.1: ships and gates."""
        return sum(self.counts().values())


DEFAULT_FLEET: Final = Fleet()  # Y-2.1: 22 pieces, 20 ships


def default_fleet(ruleset: Ruleset) -> Fleet:
    """Y-2.1 / Y-0.1: the official fleet, the same in both rulesets."""
    if ruleset not in RULESETS:
        raise ValueError(f"Y-0.1: the rulesets are decker and full, not {ruleset!r}")
    return DEFAULT_FLEET


@dataclass(frozen=True)
class Gate:
    """Y-2.2: a teleport gate of `owner`'s gate pair number `pair` (0-based)."""

    owner: int
    pair: int = 0

    def __post_init__(self) -> None:
        if self.owner not in OWNERS:
            raise ValueError(f"Y-0.2: a gate's owner is player 1 or 2, not {self.owner}")
        if self.pair < 0:
            raise ValueError(f"Y-2.2: a gate pair number is 0 or more, not {self.pair}")

    def is_partner_of(self, other: "Gate") -> bool:
        """Y-2.2: the two gates of one pair are each other's partner; a gate never links to a
        gate of another pair or of the other player. (Gates are values: the two gates of a
        pair are equal records standing on different positions.)"""
        return self == other


# Y-2.3 / Y-0.4 `capacity.*` / Y-5.50.
CAPACITY_SHIP: Final = 5  # Command ship, Neornith, Squam, Archid
CAPACITY_TRYCH: Final = 1
CAPACITY_GATE: Final = 0


@dataclass(frozen=True)
class PieceSpec:
    """Y-2.3: one row of the piece summary (movement itself is in movement.py)."""

    kind: Kind
    needs_energy_to_move: bool  # Y-5.1
    capacity: int  # Y-5.50
    attacks: bool  # Y-5.20: by taking a position
    teleports: bool  # Y-5.5, Y-5.7
    lays_mines: bool  # Y-5.40


PIECE_SPECS: Final = {
    Kind.COMMAND: PieceSpec(Kind.COMMAND, True, CAPACITY_SHIP, True, False, True),
    Kind.NEORNITH: PieceSpec(Kind.NEORNITH, True, CAPACITY_SHIP, True, True, True),
    Kind.SQUAM: PieceSpec(Kind.SQUAM, True, CAPACITY_SHIP, True, True, True),
    Kind.ARCHID: PieceSpec(Kind.ARCHID, True, CAPACITY_SHIP, True, True, True),
    Kind.TRYCH: PieceSpec(Kind.TRYCH, False, CAPACITY_TRYCH, False, True, False),
    Kind.GATE: PieceSpec(Kind.GATE, False, CAPACITY_GATE, False, False, False),
}


def capacity(kind: Kind, ship: int = CAPACITY_SHIP, trych: int = CAPACITY_TRYCH) -> int:
    """Y-5.50 / Y-0.4: the most energy a piece of `kind` holds (`capacity.ship`,
    `capacity.trych`; a gate none)."""
    if kind is Kind.TRYCH:
        return trych
    if kind is Kind.GATE:
        return CAPACITY_GATE
    if kind in SHIPS:
        return ship
    raise ValueError(f"Y-2.3: {kind.value} is not a ship or a gate and holds no energy")


def needs_energy_to_move(kind: Kind) -> bool:
    """Y-5.1 / Y-2.3: Command ship, Neornith, Squam and Archid need 1 unit; Trych, gates no."""
    return PIECE_SPECS[kind].needs_energy_to_move


DIE_FACES: Final = tuple(range(10))  # Y-2.6: the die of fate shows 0-9

# Y-2.7 [FULL] the deck (Y-R33), in canonical order.
COMPONENTS: Final = ("AMI", "DEC", "MET", "FEE", "GRP", "PBI", "WHI", "BET", "MMP", "ANY")
MARKINGS: Final = ("T", "S", "N", "A", "X")
IMPACTS: Final = ("EF", "ED", "CA", "CD", "MAS", "UAI")
DECK: Final = tuple(f"C-{c}-{m}" for c in COMPONENTS for m in MARKINGS) + tuple(
    f"I-{i}" for i in IMPACTS
)

# Y-2.8 [FULL] secret weapons (Y-R34): code -> (kind, components).
RECIPES: Final[dict[str, tuple[Literal["offensive", "defensive"], frozenset[str]]]] = {
    "TB": ("offensive", frozenset({"FEE", "GRP", "MMP"})),
    "AT": ("offensive", frozenset({"AMI", "PBI", "MMP"})),
    "EV": ("offensive", frozenset({"DEC", "MET", "BET"})),
    "CL": ("offensive", frozenset({"AMI", "MET", "BET"})),
    "REA": ("offensive", frozenset({"DEC", "MET", "FEE"})),
    "RD": ("offensive", frozenset({"PBI", "WHI", "BET"})),
    "HD": ("offensive", frozenset({"DEC", "GRP", "WHI"})),
    "DF": ("defensive", frozenset({"FEE", "GRP", "PBI"})),
    "SD": ("defensive", frozenset({"AMI", "WHI", "MMP"})),
}
