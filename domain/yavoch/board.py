"""The pieces on the field and what actions do to them (sections 5.1 to 5.11, 6.3).

A `Board` is an immutable value; every effect is a small pure function returning a new board
and the Command ships it destroyed (the game-end test of Y-8.1 reads them). Which actions are
legal is decided in decide.py; these functions apply actions already found legal.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import NamedTuple, TypeVar

from domain.yavoch.field import (
    LINE_DIRECTIONS,
    Direction,
    Position,
    adjacent_positions,
    is_core,
    level_positions,
    line,
)
from domain.yavoch.movement import Landing, Occupancy
from domain.yavoch.notation import Kind, Piece
from domain.yavoch.pieces import Gate
from domain.yavoch.variant import BLOCKS, Config

V = TypeVar("V")


class Ship(NamedTuple):
    kind: Kind
    owner: int  # 1 | 2 (Y-1.13); the seat is owner - 1
    energy: int = 0


@dataclass(frozen=True)
class Board:
    ships: Mapping[Position, Ship] = field(default_factory=dict)
    gates: Mapping[Position, Gate] = field(default_factory=dict)
    mines: Mapping[Position, int] = field(default_factory=dict)  # owner
    tokens: Mapping[Position, int] = field(default_factory=dict)  # [FULL] energy tokens

    @cached_property
    def occupancy(self) -> Occupancy:
        """The view movement.py judges moves on (built once per board)."""
        return Occupancy(
            ships={p: Piece(s.kind, s.owner) for p, s in self.ships.items()},
            gates=self.gates,
            mines=self.mines,
            energy={p: s.energy for p, s in self.ships.items() if s.energy},
        )

    def is_occupied(self, p: Position) -> bool:
        return p in self.ships or p in self.gates or p in self.mines

    def owned(self, owner: int) -> Iterable[tuple[Position, Ship]]:
        return ((p, s) for p, s in self.ships.items() if s.owner == owner)

    def first_occupant(self, origin: Position, d: Direction) -> Position | None:
        """Y-1.8: the first occupied position on the line from `origin` in direction `d`."""
        return next((q for q in line(origin, d) if self.is_occupied(q)), None)

    def in_sight(self, origin: Position) -> list[Position]:
        """Y-5.74 / Y-R48: ships on an unblocked line from `origin` (each line's first
        occupant, when it is a ship)."""
        out = []
        for d in LINE_DIRECTIONS:
            q = self.first_occupant(origin, d)
            if q is not None and q in self.ships:
                out.append(q)
        return out


def capacity(cfg: Config, kind: Kind) -> int:
    """Y-5.50."""
    return cfg.capacity_trych if kind is Kind.TRYCH else cfg.capacity_ship


class Effect(NamedTuple):
    board: Board
    lost_command: frozenset[int] = frozenset()  # owners whose Command ship was destroyed
    attacker_lost: bool = False  # Y-5.25: the turn ends at once


def _without(m: Mapping[Position, V], *ps: Position) -> dict[Position, V]:
    return {p: v for p, v in m.items() if p not in ps}


def _remove_ships(board: Board, ps: Iterable[Position]) -> tuple[Board, frozenset[int]]:
    """Destroy the ships at `ps` with their energy; the owners of Command ships among them."""
    gone = set(ps) & set(board.ships)
    lost = frozenset(board.ships[p].owner for p in gone if board.ships[p].kind is Kind.COMMAND)
    ships = {p: s for p, s in board.ships.items() if p not in gone}
    return replace(board, ships=ships), lost


def _arrive(cfg: Config, board: Board, p: Position, ship: Ship) -> Board:
    """Put `ship` at `p`, taking energy tokens there up to capacity (Y-5.53; rest discarded)."""
    tokens = board.tokens.get(p, 0)
    if tokens:
        ship = ship._replace(energy=min(capacity(cfg, ship.kind), ship.energy + tokens))
        board = replace(board, tokens=_without(board.tokens, p))
    return replace(board, ships={**board.ships, p: ship})


def _gain(cfg: Config, ship: Ship, units: int = 1) -> Ship:
    """Y-5.50: gains beyond capacity are discarded."""
    return ship._replace(energy=min(capacity(cfg, ship.kind), ship.energy + units))


def battle_value(cfg: Config, defender: Ship) -> int:
    """Y-5.22 case 3: the defender's energy, or `command_ship_defence` for a Command ship."""
    return cfg.command_ship_defence if defender.kind is Kind.COMMAND else defender.energy


def needs_roll(cfg: Config, attacker: Ship, defender: Ship) -> bool:
    """Y-5.22 / Y-5.23 / Y-R16: a die is rolled only when the outcome is uncertain."""
    if defender.kind is Kind.TRYCH or attacker.kind is Kind.COMMAND:
        return False
    return battle_value(cfg, defender) >= 1


def attacker_wins(cfg: Config, attacker: Ship, defender: Ship, roll: int | None) -> bool:
    """Y-5.22 with Y-R5: the attacker wins on a roll >= E."""
    if not needs_roll(cfg, attacker, defender):
        return True
    assert roll is not None
    return roll >= battle_value(cfg, defender)


def move_ship(
    cfg: Config,
    board: Board,
    origin: Position,
    destination: Position,
    landing: Landing,
    exit_: Position | None,
    mine: bool,
    roll: int | None = None,
) -> Effect:
    """Y-5.3 to Y-5.8, Y-5.20 to Y-5.25, Y-5.40 to Y-5.42: a legal ship move, applied."""
    ship = board.ships[origin]
    board = replace(board, ships=_without(board.ships, origin))
    if mine:  # Y-5.40: one unit becomes a mine at the origin as the ship departs
        ship = ship._replace(energy=ship.energy - 1)
        board = replace(board, mines={**board.mines, origin: ship.owner})
    if landing in (Landing.MOVE, Landing.ON_OWN_GATE, Landing.ON_ENEMY_GATE):
        return Effect(_arrive(cfg, board, destination, ship))
    if landing is Landing.TELEPORT:  # Y-5.5
        assert exit_ is not None
        return Effect(_arrive(cfg, board, exit_, ship))
    if landing is Landing.DESTROYED_BY_GATE:  # Y-5.6
        return Effect(board)
    if landing is Landing.ABSORB_MINE:  # Y-5.41
        board = replace(board, mines=_without(board.mines, destination))
        return Effect(_arrive(cfg, board, destination, _gain(cfg, ship)))
    if landing is Landing.MINE_SACRIFICE:  # Y-5.42
        return Effect(replace(board, mines=_without(board.mines, destination)))
    defender = board.ships[destination]
    if landing is Landing.GATE_CLASH:  # Y-5.8 / Y-R12: the lander dies in every case
        if defender.kind is Kind.COMMAND and not attacker_wins(cfg, ship, defender, roll):
            return Effect(board)
        board, lost = _remove_ships(board, [destination])
        return Effect(board, lost)
    # Y-5.20 to Y-5.25: a battle
    if not attacker_wins(cfg, ship, defender, roll):
        return Effect(board, attacker_lost=True)  # Y-5.25 (a mine laid stays)
    on_gate = destination in board.gates
    board, lost = _remove_ships(board, [destination])
    if defender.energy >= 1 and not on_gate:  # Y-5.24 / Y-R17
        ship = _gain(cfg, ship)
    return Effect(_arrive(cfg, board, destination, ship), lost)


def self_destruct(board: Board, origin: Position, destination: Position) -> Effect:
    """Y-5.92: both the defender and the attacker are destroyed."""
    board, lost = _remove_ships(board, [origin, destination])
    return Effect(board, lost)


def blast_zone(p: Position) -> tuple[Position, ...]:
    """Y-5.31: the up to 8 adjacent positions on the Trych's level."""
    return adjacent_positions(p)


def detonate(board: Board, at: Position, spared: Position | None = None) -> Effect:
    """Y-5.30 to Y-5.36 with Y-R13: enemy ships, gates and mines in the zone are destroyed;
    `spared` is a ship saved by a Deflector Field (Y-5.91)."""
    owner = board.ships[at].owner
    zone = blast_zone(at)
    doomed = [q for q in zone if q in board.ships and board.ships[q].owner != owner]
    gates = [q for q in zone if q in board.gates and board.gates[q].owner != owner]
    # Y-5.36: a ship on a destroyed gate dies with it, unless it is the detonator's (Y-R13)
    doomed += [q for q in gates if q in board.ships and board.ships[q].owner != owner]
    doomed = [q for q in doomed if q != spared]
    board, lost = _remove_ships(board, [at, *doomed])
    mines = {q: o for q, o in board.mines.items() if not (q in zone and o != owner)}
    return Effect(replace(board, gates=_without(board.gates, *gates), mines=mines), lost)


def move_gate(board: Board, origin: Position, destination: Position) -> Board:
    """Y-5.16: energy tokens at the destination are discarded."""
    gates = _without(board.gates, origin)
    gates[destination] = board.gates[origin]
    return replace(board, gates=gates, tokens=_without(board.tokens, destination))


def shot_target(board: Board, origin: Position, target: Position) -> bool:
    """Y-5.62 / Y-5.63 / Y-R22: `target` is the first occupant of a line from `origin` and is
    a ship or a mine (a gate with no ship on it cannot be hit)."""
    for d in LINE_DIRECTIONS:
        if board.first_occupant(origin, d) == target:
            return target in board.ships or target in board.mines
    return False


def spend(board: Board, p: Position, units: int = 1) -> Board:
    ship = board.ships[p]
    return replace(board, ships={**board.ships, p: ship._replace(energy=ship.energy - units)})


def fire(board: Board, target: Position) -> Effect:
    """Y-5.64 / Y-R23: the target ship (a gate under it is unharmed) or mine is destroyed."""
    if target in board.ships:
        board, lost = _remove_ships(board, [target])
        return Effect(board, lost)
    return Effect(replace(board, mines=_without(board.mines, target)))


def transfer(cfg: Config, board: Board, origin: Position, destination: Position) -> Board:
    """Y-5.54: one unit from the ship at `origin` to the ship at `destination`."""
    board = spend(board, origin)
    ship = board.ships[destination]
    return replace(board, ships={**board.ships, destination: _gain(cfg, ship)})


def place(cfg: Config, board: Board, owner: int, pieces: Iterable[tuple[Kind, Position]]) -> Board:
    """Y-3.2 / Y-3.5: a fleet placed; non-Trych ships start with `start_energy`."""
    ships = dict(board.ships)
    gates = dict(board.gates)
    pair_positions: list[Position] = []
    for kind, p in pieces:
        if kind is Kind.GATE:
            pair_positions.append(p)
        else:
            energy = 0 if kind is Kind.TRYCH else min(cfg.start_energy, cfg.capacity_ship)
            ships[p] = Ship(kind, owner, energy)
    for i, p in enumerate(pair_positions):  # gates pair up in the order written
        gates[p] = Gate(owner, i // 2)
    return replace(board, ships=ships, gates=gates)


# -- [FULL] offensive weapons (section 5.10) -------------------------------------------------


def tractor(cfg: Config, board: Board, target: Position, destination: Position) -> Board:
    """Y-5.81 / Y-R49: the target shifts one step to an unoccupied position."""
    ship = board.ships[target]
    board = replace(board, ships=_without(board.ships, target))
    return _arrive(cfg, board, destination, ship)


def evolve_ship(cfg: Config, board: Board, target: Position, kind: Kind) -> Board:
    """Y-5.83: the same ship as another type, energy up to the new capacity."""
    ship = board.ships[target]
    changed = ship._replace(kind=kind, energy=min(ship.energy, capacity(cfg, kind)))
    return replace(board, ships={**board.ships, target: changed})


def clone(cfg: Config, board: Board, user: Position, destination: Position, given: int) -> Board:
    """Y-5.84: one unit lost; the clone gets `given`, the user keeps the rest."""
    ship = board.ships[user]
    kept = ship._replace(energy=ship.energy - 1 - given)
    board = replace(board, ships={**board.ships, user: kept})
    return _arrive(cfg, board, destination, ship._replace(energy=given))


def absorb(cfg: Config, board: Board, user: Position, target: Position) -> Board:
    """Y-5.85 / Y-R53: the target loses all its energy; the user gains what fits."""
    taken = board.ships[target].energy
    ships = dict(board.ships)
    ships[target] = ships[target]._replace(energy=0)
    ships[user] = _gain(cfg, ships[user], taken)
    return replace(board, ships=ships)


def convert(board: Board, target: Position, owner: int) -> Board:
    """Y-5.86 / Y-R54: the target changes sides, keeping its type and energy."""
    ship = board.ships[target]
    return replace(board, ships={**board.ships, target: ship._replace(owner=owner)})


def hyperdrive(cfg: Config, board: Board, user: Position, destination: Position) -> Board:
    """Y-5.87 / Y-R55."""
    ship = board.ships[user]
    board = replace(board, ships=_without(board.ships, user))
    return _arrive(cfg, board, destination, ship)


# -- [FULL] impact events (section 6.3) -----------------------------------------------------


def core_anomaly(cfg: Config, board: Board) -> Board:
    """Y-6.23 / Y-R43: ships on core positions, every level, lose all their energy."""
    ships = {
        p: s._replace(energy=0) if is_core(p, cfg.core_definition) else s
        for p, s in board.ships.items()
    }
    return replace(board, ships=ships)


def core_dump(cfg: Config, board: Board) -> Effect:
    """Y-6.24 / Y-R44: ships and gates on core positions removed, one token per piece."""
    core = [p for p in {*board.ships, *board.gates} if is_core(p, cfg.core_definition)]
    tokens = dict(board.tokens)
    for p in core:
        tokens[p] = tokens.get(p, 0) + (p in board.ships) + (p in board.gates)
    board, lost = _remove_ships(board, core)
    return Effect(replace(board, gates=_without(board.gates, *core), tokens=tokens), lost)


def _asteroids(board: Board, zone: Iterable[Position], ships: Iterable[Position]) -> Effect:
    """Y-6.25: `ships` destroyed, plus every Command ship on level 3, plus gates and mines in
    `zone` (and a ship on a destroyed gate, Y-5.36)."""
    zone = set(zone)
    gates = [p for p in board.gates if p in zone]
    commands = [p for p, s in board.ships.items() if p.level == 3 and s.kind is Kind.COMMAND]
    board, lost = _remove_ships(board, {*ships, *commands, *gates})
    mines = {p: o for p, o in board.mines.items() if p not in zone}
    return Effect(replace(board, gates=_without(board.gates, *gates), mines=mines), lost)


def asteroid_swarm(board: Board) -> Effect:
    """Y-6.26 / Y-R45: level 3 only."""
    level3 = level_positions(3)
    empty = [p for p in level3 if p in board.ships and board.ships[p].energy == 0]
    board, lost, _ = _asteroids(board, level3, empty)
    ships = {
        p: s._replace(energy=s.energy - 1) if p.level == 3 else s for p, s in board.ships.items()
    }
    return Effect(replace(board, ships=ships), lost)


def impact_zone(cfg: Config, roll: int) -> tuple[Position, ...]:
    """Y-6.27 with Y-R46: the nine positions of level 3 a roll names."""
    level3 = level_positions(3)
    if 1 <= roll <= 5:
        return tuple(p for p in level3 if roll in (p.x, p.y))
    if roll == 0:
        return tuple(p for p in level3 if 3 in (p.x, p.y))
    xs, ys = BLOCKS[cfg.quadrants[roll - 6]]
    return tuple(p for p in level3 if p.x in xs and p.y in ys)


def asteroid_impact(cfg: Config, board: Board, roll: int) -> Effect:
    """Y-6.27: every ship, gate and mine in the zone destroyed (and Y-6.25)."""
    zone = impact_zone(cfg, roll)
    return _asteroids(board, zone, [p for p in zone if p in board.ships])
