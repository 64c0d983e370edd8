"""Version C terrain (CY-2.3, CY-5.3, CY-6.2): tiles, entry costs, halts and the attack and
defence values with terrain, Fortress and morale. Terrain is `bytes` of N * N tiles."""

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
# CY-2.3: tiles per side other than Grassland, by board side length.
TILES: Final = {
    8: {FORTRESS: 1, HILLS: 4, WATER: 4, FOREST: 7},
    10: {FORTRESS: 1, HILLS: 5, WATER: 5, FOREST: 9},
}
# CY-5.3.1: entry cost (Elephant in Water and the Dragon everywhere pay 1).
COST: Final = (1, 2, 3, 2, 1, 0)

# CY-5.1.1 version C: the Trebuchet moves (and captures by displacement) 1 orthogonally.
MOVES_C: Final = tuple(
    (ORTHOGONAL, 1) if kind == TREBUCHET else move for kind, move in enumerate(MOVES)
)
# Furthest square any capture mode of a kind reaches in C (ranged Trebuchet 2, Dragon 4).
REACH_C: Final = tuple(2 if kind == TREBUCHET else rng for kind, (_d, rng) in enumerate(MOVES_C))

# CY-6.4.7: the value ladder of Fortress Promotion (kind -> kind of value + 1).
PROMOTION: Final = {RABBLE: SPEARS, SPEARS: LIGHT_HORSE, LIGHT_HORSE: CROSSBOWMEN,
                    CROSSBOWMEN: HEAVY_HORSE, HEAVY_HORSE: ELEPHANT, ELEPHANT: DRAGON,
                    DRAGON: TREBUCHET}  # fmt: skip


def fortress_owner(terrain: bytes, s: int) -> int:
    """The seat whose Fortress stands on `s`: the owner of that half (CY-1.1.2, CY-3.2)."""
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


def _morale(n: int, board: bytes, s: int, man: int) -> int:
    """CY-R33: +1 when the man is not the King and its own King stands next to it."""
    if man & KIND == KING:
        return 0
    king = board.find(COLOURS[owner(man)] | KING)
    if king < 0:
        return 0
    return int(max(abs(king % n - s % n), abs(king // n - s // n)) == 1)


def attack(n: int, board: bytes, terrain: bytes, s: int) -> int:
    """CY-6.2.1: att = min(9, base + Hills + morale), from the square attacked from (CY-R31)."""
    man = board[s]
    return min(9, VALUE[man & KIND] + (terrain[s] == HILLS) + _morale(n, board, s, man))


def defence(n: int, board: bytes, terrain: bytes, s: int, cap: bool) -> int:
    """CY-6.2.2, 6.2.3: def = min(9, base + Fortress + Forest + morale); the Fortress gives +3
    to any man on it (CY-R28), with `none_above_6` only to base values <= 6 (CY-R27)."""
    man = board[s]
    base = VALUE[man & KIND]
    tile = terrain[s]
    bonus = 3 if tile == FORTRESS and (cap or base <= 6) else int(tile == FOREST)
    return min(9, base + bonus + _morale(n, board, s, man))  # CY-R34
