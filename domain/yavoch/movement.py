"""Moving ships and gates (sections 5.1 and 5.2: Y-5.1 to Y-5.16, with Y-R8, Y-R10, Y-R11,
Y-R12, Y-R15, Y-R25, Y-R31, Y-R61, Y-R67 with Y-R70).

Pure functions over an `Occupancy`: which positions a ship or gate may move to, and what the
landing is (a plain move, a teleport, a battle, ...). What a landing then does to energy,
and how a battle is decided, belong to later sections.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Final

from domain.yavoch.field import (
    IN_LEVEL_DIRECTIONS,
    LINE_DIRECTIONS,
    LONG_VECTORS,
    PERPENDICULAR_DIRECTIONS,
    SHORT_VECTORS,
    SLANT_DIRECTIONS,
    Direction,
    Position,
    line,
    step,
)
from domain.yavoch.notation import OWNERS, SHIPS, Kind, Piece
from domain.yavoch.pieces import Gate, needs_energy_to_move


@dataclass(frozen=True)
class Occupancy:
    """What stands where (Y-0.3). A position holds at most one ship, at most one gate and at
    most one mine; a ship may stand on a gate; a mine shares its position with nothing.

    `ships`: ship pieces with their owner; `gates`: gates by position; `mines`: the owner of
    each mine; `energy`: units carried by the ship at a position (absent = 0). Energy tokens
    never make a position occupied (Y-0.3), so they are not needed here."""

    ships: Mapping[Position, Piece] = field(default_factory=dict)
    gates: Mapping[Position, Gate] = field(default_factory=dict)
    mines: Mapping[Position, int] = field(default_factory=dict)
    energy: Mapping[Position, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for p, piece in self.ships.items():
            if piece.kind not in SHIPS or piece.owner is None:
                raise ValueError(f"Y-0.3: {p} must hold a ship with its owner, not {piece}")
        for p, owner in self.mines.items():
            if owner not in OWNERS:
                raise ValueError(f"Y-0.3: the mine at {p} needs owner 1 or 2, not {owner}")
            if p in self.ships or p in self.gates:
                raise ValueError(f"Y-5.40: a mine shares its position with nothing ({p})")
        for p in self.energy:
            if p not in self.ships:
                raise ValueError(f"Y-0.3: energy is carried by ships; {p} holds none")
        for gate in set(self.gates.values()):
            if sum(g == gate for g in self.gates.values()) > 2:
                raise ValueError(f"Y-2.2: a gate pair has two gates, not more ({gate})")

    def is_occupied(self, p: Position) -> bool:
        """Y-0.3: a position holding a ship, a gate or a mine."""
        return p in self.ships or p in self.gates or p in self.mines

    def partner(self, p: Position) -> Position | None:
        """Y-2.2 / Y-5.36: the position of the partner of the gate at `p`; None when `p` holds
        no gate or the gate is singular."""
        gate = self.gates.get(p)
        if gate is None:
            return None
        return next((q for q, g in self.gates.items() if q != p and g.is_partner_of(gate)), None)


# --- Y-5.10 to Y-5.14, Y-5.16: the shape of each piece's move -------------------------------

TRYCH_DIRECTIONS: Final = IN_LEVEL_DIRECTIONS + PERPENDICULAR_DIRECTIONS  # Y-5.10
SQUAM_DIRECTIONS: Final = LONG_VECTORS + PERPENDICULAR_DIRECTIONS  # Y-5.11
ARCHID_DIRECTIONS: Final = SHORT_VECTORS + SLANT_DIRECTIONS  # Y-5.12
COMMAND_DIRECTIONS: Final = LINE_DIRECTIONS  # Y-5.14: all 12
GATE_DIRECTIONS: Final = COMMAND_DIRECTIONS  # Y-5.16


def one_steps(origin: Position, directions: tuple[Direction, ...]) -> tuple[Position, ...]:
    """Y-5.10 / Y-5.14 / Y-5.16: one step in each direction that stays on the field."""
    return tuple(q for d in directions if (q := step(origin, d)) is not None)


def slide(origin: Position, d: Direction, occupancy: Occupancy) -> tuple[Position, ...]:
    """Y-5.2: a slide along one line, any distance of at least 1; every position strictly
    between origin and destination must be unoccupied, so the slide stops at (and includes)
    the first occupied position."""
    out: list[Position] = []
    for q in line(origin, d):
        out.append(q)
        if occupancy.is_occupied(q):
            break
    return tuple(out)


def slides(
    origin: Position, directions: tuple[Direction, ...], occupancy: Occupancy
) -> tuple[Position, ...]:
    """Y-5.11 / Y-5.12: every slide along each of `directions`."""
    return tuple(q for d in directions for q in slide(origin, d, occupancy))


def neornith_hops(origin: Position, intermediate_on_field: bool = True) -> tuple[Position, ...]:
    """Y-5.13 / Y-R8: `origin + d + v` for each in-level step `d` and perpendicular step `v`,
    on the field; with `intermediate_on_field` (default, `neornith_intermediate_on_field`) at
    least one of `origin + d`, `origin + v` must be on the field. Never blocked."""
    out: list[Position] = []
    for d in IN_LEVEL_DIRECTIONS:
        for v in PERPENDICULAR_DIRECTIONS:
            hop = Direction(d.dlevel + v.dlevel, d.dx + v.dx, d.dy + v.dy)
            destination = step(origin, hop)
            if destination is None:
                continue
            if intermediate_on_field and step(origin, d) is None and step(origin, v) is None:
                continue
            out.append(destination)
    return tuple(out)


def reachable(
    kind: Kind,
    origin: Position,
    occupancy: Occupancy,
    neornith_intermediate_on_field: bool = True,
) -> tuple[Position, ...]:
    """Y-5.10 to Y-5.14 and Y-5.16 with Y-5.2: the positions `kind`'s move shape reaches
    from `origin`, blocking applied, before looking at what the destination holds."""
    if kind is Kind.TRYCH:
        return one_steps(origin, TRYCH_DIRECTIONS)
    if kind is Kind.SQUAM:
        return slides(origin, SQUAM_DIRECTIONS, occupancy)
    if kind is Kind.ARCHID:
        return slides(origin, ARCHID_DIRECTIONS, occupancy)
    if kind is Kind.NEORNITH:
        return neornith_hops(origin, neornith_intermediate_on_field)
    if kind is Kind.COMMAND:
        return one_steps(origin, COMMAND_DIRECTIONS)
    if kind is Kind.GATE:
        return one_steps(origin, GATE_DIRECTIONS)
    raise ValueError(f"Y-5.15: {kind.value} does not move")  # mines never move (Y-5.43)


# --- Y-5.3: what a landing is ----------------------------------------------------------------


class Landing(Enum):
    """Y-5.3: what happens when a ship ends its move on a position."""

    MOVE = "move"  # nothing there (energy tokens allowed)
    TELEPORT = "teleport"  # own empty gate, partner free: on to the partner (Y-5.5)
    ON_OWN_GATE = "on own gate"  # own empty gate, no teleport (Command ship, Y-5.5 blocked)
    ON_ENEMY_GATE = "on enemy gate"  # Command ship on an empty enemy gate: nothing (Y-5.7)
    DESTROYED_BY_GATE = "destroyed by gate"  # empty enemy gate (Y-5.6)
    GATE_CLASH = "gate clash"  # N/S/A onto an enemy ship on an enemy gate (Y-5.8)
    ABSORB_MINE = "absorb mine"  # own mine (Y-5.41)
    MINE_SACRIFICE = "mine sacrifice"  # enemy mine: ship and mine destroyed (Y-5.42)
    BATTLE = "battle"  # another ship (Y-5.20; Command ship on an enemy gate, Y-5.7)


@dataclass(frozen=True)
class ShipMove:
    """One legal ship move: where it lands, what that is, and the teleport exit if any."""

    origin: Position
    destination: Position
    landing: Landing
    exit: Position | None = None  # Y-5.5: the partner gate the ship ends on


def landing(
    occupancy: Occupancy, origin: Position, destination: Position
) -> tuple[Landing, Position | None] | None:
    """Y-5.3 (with Y-5.5 to Y-5.8, Y-5.10, Y-5.41, Y-5.42, Y-R67, Y-R70): what the ship at
    `origin` ending its move on `destination` is, and the teleport exit; None when not allowed.
    The move's shape is not checked here (see `reachable`)."""
    mover = occupancy.ships[origin]
    kind, owner = mover.kind, mover.owner
    if destination == origin:
        return None  # Y-5.3: different from the origin
    gate = occupancy.gates.get(destination)
    target = occupancy.ships.get(destination)
    if returns_through_gate(occupancy, origin, destination):
        return None  # Y-R67 / Y-R70: a plain move back through the own gate changes nothing
    mine = occupancy.mines.get(destination)
    if kind is Kind.TRYCH and (target is not None or mine is not None):
        return None  # Y-5.10 / Y-R10: never on a ship or a mine
    if mine is not None:
        if mine == owner:
            return Landing.ABSORB_MINE, None  # Y-5.41
        if kind is Kind.COMMAND:
            return None  # Y-5.42 / Y-R25
        return Landing.MINE_SACRIFICE, None  # Y-5.42
    if target is not None:
        if target.owner == owner and target.kind is Kind.COMMAND:
            return None  # Y-5.3 / Y-R15: never onto the own Command ship
        enemy_gate = gate is not None and gate.owner != owner
        if enemy_gate and target.owner != owner and kind is not Kind.COMMAND:
            return Landing.GATE_CLASH, None  # Y-5.8 / Y-R12
        return Landing.BATTLE, None  # Y-5.20 / Y-5.7 / Y-R11
    if gate is None:
        return Landing.MOVE, None
    if gate.owner != owner:
        if kind is Kind.COMMAND:
            return Landing.ON_ENEMY_GATE, None  # Y-5.7 / Y-R11
        return Landing.DESTROYED_BY_GATE, None  # Y-5.6 / Y-R61
    exit_ = teleport_exit(occupancy, origin, destination)
    if exit_ is None:
        return Landing.ON_OWN_GATE, None
    return Landing.TELEPORT, exit_


def returns_through_gate(occupancy: Occupancy, origin: Position, destination: Position) -> bool:
    """Y-R67 with Y-R70's reach: the ship at `origin`, other than a Command ship, standing on
    its own gate, would end a plain move (no ship at `destination`, so no battle) on that
    gate's partner and teleport straight back. A Command ship never teleports (Y-5.7), and an
    attack onto a ship on the partner is a battle that does not teleport (Y-R17): both stay
    legal."""
    mover = occupancy.ships[origin]
    gate = occupancy.gates.get(destination)
    return (
        mover.kind is not Kind.COMMAND
        and destination not in occupancy.ships
        and gate is not None
        and gate.owner == mover.owner
        and occupancy.partner(destination) == origin
    )


def teleport_exit(occupancy: Occupancy, origin: Position, gate: Position) -> Position | None:
    """Y-5.5: the partner gate a ship other than a Command ship moving from `origin` onto its
    own empty gate at `gate` is moved on to; None when it stays on `gate` (Command ship,
    singular gate, or a ship on the partner — the moving ship has left `origin`)."""
    mover = occupancy.ships[origin]
    if mover.kind is Kind.COMMAND or occupancy.gates[gate].owner != mover.owner:
        return None
    partner = occupancy.partner(gate)
    if partner is None or (partner in occupancy.ships and partner != origin):
        return None
    return partner


def can_move(occupancy: Occupancy, origin: Position) -> bool:
    """Y-5.1: a Command ship, Neornith, Squam or Archid needs at least 1 unit to move; a Trych
    needs none."""
    kind = occupancy.ships[origin].kind
    return not needs_energy_to_move(kind) or occupancy.energy.get(origin, 0) >= 1


def ship_moves(
    occupancy: Occupancy, origin: Position, neornith_intermediate_on_field: bool = True
) -> tuple[ShipMove, ...]:
    """Y-5.1 to Y-5.14: every legal move (attacks included) of the ship at `origin`."""
    if origin not in occupancy.ships:
        raise ValueError(f"Y-5.15: no ship stands at {origin}")
    if not can_move(occupancy, origin):
        return ()
    kind = occupancy.ships[origin].kind
    out: list[ShipMove] = []
    for destination in reachable(kind, origin, occupancy, neornith_intermediate_on_field):
        result = landing(occupancy, origin, destination)
        if result is not None:
            out.append(ShipMove(origin, destination, *result))
    return tuple(out)


def ship_destinations(
    occupancy: Occupancy, origin: Position, neornith_intermediate_on_field: bool = True
) -> frozenset[Position]:
    """The positions the ship at `origin` may end its move on (before any teleport)."""
    return frozenset(
        m.destination for m in ship_moves(occupancy, origin, neornith_intermediate_on_field)
    )


def gate_destinations(occupancy: Occupancy, origin: Position) -> frozenset[Position]:
    """Y-5.16: a gate steps to any of the Command ship's 12 positions that is unoccupied; a
    gate with a ship on it cannot move. No energy needed."""
    if origin not in occupancy.gates:
        raise ValueError(f"Y-5.16: no gate stands at {origin}")
    if origin in occupancy.ships:
        return frozenset()
    return frozenset(
        q for q in reachable(Kind.GATE, origin, occupancy) if not occupancy.is_occupied(q)
    )
