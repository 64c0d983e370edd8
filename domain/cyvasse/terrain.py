"""Version C terrain (CY-2.3, CY-5.3, CY-6.2): tiles, entry costs, halts and the attack and
defence values with terrain, Fortress and morale. Terrain is `bytes` of a tile per cell."""

from typing import Final

from domain.cyvasse.board import (
    COLOURS,
    CROSSBOWMEN,
    DRAGON,
    ELEPHANT,
    HEAVY_HORSE,
    KIND,
    KING,
    LIGHT_HORSE,
    MOVES,
    ORTHOGONAL,
    RABBLE,
    SPEARS,
    TREBUCHET,
    VALUE,
    Geometry,
    owner,
)

# Tiles (CY-1.3.2). A ruined Fortress is Forest (CY-6.3.1); BURNING is a Wildfyre square.
GRASS: Final = 0
HILLS: Final = 1
WATER: Final = 2
FOREST: Final = 3
FORTRESS: Final = 4
BURNING: Final = 5
TILE_NAMES: Final = ("Grassland", "Hills", "Water", "Forest", "Fortress", "burning Wildfyre")
# CY-2.3, CY-R50: tiles per side other than Grassland, by board.
TILES: Final = {
    "square8": {FORTRESS: 1, HILLS: 4, WATER: 4, FOREST: 7},
    "square10": {FORTRESS: 1, HILLS: 5, WATER: 5, FOREST: 9},
    "hex91": {FORTRESS: 1, HILLS: 4, WATER: 4, FOREST: 7},
}
# CY-5.3.1: entry cost (Elephant in Water and the Dragon everywhere pay 1).
COST: Final = (1, 2, 3, 2, 1, 0)

# CY-5.1.1 version C: the Trebuchet moves (and captures by displacement) 1 orthogonally. The
# square table; only its ranges are used here (the same on hex but for the Dragon, which no
# terrain rule concerns); the directions of a board are in its Geometry.
MOVES_C: Final = tuple(
    (ORTHOGONAL, 1) if kind == TREBUCHET else move for kind, move in enumerate(MOVES)
)

# CY-6.4.7: the value ladder of Fortress Promotion (kind -> kind of value + 1).
PROMOTION: Final = {RABBLE: SPEARS, SPEARS: LIGHT_HORSE, LIGHT_HORSE: CROSSBOWMEN,
                    CROSSBOWMEN: HEAVY_HORSE, HEAVY_HORSE: ELEPHANT, ELEPHANT: DRAGON,
                    DRAGON: TREBUCHET}  # fmt: skip


def fortress_owner(terrain: bytes, s: int) -> int:
    """The seat whose Fortress stands on `s`: the owner of that half or zone (CY-1.1.2,
    CY-1.2.4, CY-3.2; cells are indexed so that White's come first)."""
    return 0 if 2 * s < len(terrain) else 1


def entry_cost(kind: int, tile: int) -> int:
    """CY-5.3.1, CY-R30: what entering `tile` costs a man of `kind`."""
    if kind == DRAGON or (kind == ELEPHANT and tile == WATER):
        return 1
    return COST[tile]


def halts(kind: int, tile: int) -> bool:
    """CY-5.3.2, CY-R57: entering `tile` ends the move of a man of `kind`."""
    if kind == DRAGON:
        return False
    if tile == FORTRESS:
        return True
    if tile == WATER:
        return kind != ELEPHANT
    return tile in (HILLS, FOREST) and MOVES_C[kind][1] <= 2


def may_enter(kind: int, tile: int, spent: int) -> bool:
    """CY-5.3.3: with `spent` the cost of the line up to and including `tile`, whether the man
    may enter it (budget, or one of the two "can enter but must halt" allowances, CY-R25)."""
    rng = MOVES_C[kind][1]
    if spent <= rng:
        return True
    if tile == WATER:
        return kind != ELEPHANT  # every man but Dragon and Elephant has M <= 3
    return tile in (HILLS, FOREST) and rng <= 2


def cannot_attack(terrain: bytes, s: int, kind: int) -> bool:
    """CY-5.4.8, CY-R29: a man on Water neither captures nor threatens (Dragon, Elephant may)."""
    return terrain[s] == WATER and kind not in (DRAGON, ELEPHANT)


def _morale(geo: Geometry, board: bytes, s: int, man: int) -> int:
    """CY-R33, CY-R51: +1 when the man is not the King and its own King stands next to it
    (8 squares / 12 hex cells)."""
    if man & KIND == KING:
        return 0
    king = board.find(COLOURS[owner(man)] | KING)
    return int(king >= 0 and king in geo.adjacent[s])


def attack(geo: Geometry, board: bytes, terrain: bytes, s: int) -> int:
    """CY-6.2.1: att = min(9, base + Hills + morale), from the square attacked from (CY-R31)."""
    man = board[s]
    return min(9, VALUE[man & KIND] + (terrain[s] == HILLS) + _morale(geo, board, s, man))


def defence(geo: Geometry, board: bytes, terrain: bytes, s: int, cap: bool) -> int:
    """CY-6.2.2, 6.2.3: def = min(9, base + Fortress + Forest + morale); the Fortress gives +3
    to any man on it (CY-R28), with `none_above_6` only to base values <= 6 (CY-R27)."""
    man = board[s]
    base = VALUE[man & KIND]
    tile = terrain[s]
    bonus = 3 if tile == FORTRESS and (cap or base <= 6) else int(tile == FOREST)
    return min(9, base + bonus + _morale(geo, board, s, man))  # CY-R34
