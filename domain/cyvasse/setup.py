"""The hidden setup (CY-3, CY-R01..R06, CY-R36, hex: CY-R47, R50, R58): the setup bytes, their
validation and random setups.

Setup bytes: `msgspec.json.encode({"men": {"<square>": "<letter>", ...}}, order="sorted")`,
letters of CY-1.3.1 in upper case for either seat (the seat gives the colour), Mountains as `M`.
Version C adds the key "terrain" with the non-Grassland tiles of the own half:
`{"men": {...}, "terrain": {"<square>": "<H|W|F|X>", ...}}` (CY-1.3.2, CY-1.3.4).
"""

from collections import deque
from collections.abc import Callable
from typing import Final, NamedTuple

import msgspec

from domain.cyvasse.board import (
    COUNT,
    DRAGON,
    KIND_OF_LETTER,
    KING,
    LETTERS,
    MOUNTAIN,
    NAMES_OF_KIND,
    TILE_LETTERS,
    Geometry,
    parse_square,
)
from domain.cyvasse.terrain import FORTRESS, TILE_NAMES, TILES, WATER
from domain.cyvasse.variant import Config

Problem = tuple[str, str]  # (clause, reason)


class Placement(NamedTuple):
    """A valid setup: {square: kind} of the men and {square: tile} of the non-Grassland
    tiles (empty in versions A and B)."""

    men: dict[int, int]
    terrain: dict[int, int]


def army(cfg: Config) -> list[int]:
    """The kinds a player places (CY-2.1, CY-3.3): 26 men, 25 with the Dragon in reserve."""
    kinds = [k for k in range(1, 11) for _ in range(COUNT[k])]
    if cfg.dragon_reserve:
        kinds.remove(DRAGON)
    return kinds


def sealed(geo: Geometry, mountains: set[int]) -> list[int]:
    """CY-3.4: squares not orthogonally connected to the rest of the board once `mountains`
    (one player's) are removed; [] when the Mountain rule holds. "The rest" is the largest
    component: it holds the whole opponent's half, larger than any pocket of the own half."""
    components: list[list[int]] = []
    seen: set[int] = set(mountains)
    for root in range(geo.size):
        if root in seen:
            continue
        seen.add(root)
        component, queue = [root], deque((root,))
        while queue:
            for t in geo.orthogonal[queue.popleft()]:
                if t not in seen:
                    seen.add(t)
                    component.append(t)
                    queue.append(t)
        components.append(component)
    components.remove(max(components, key=len))
    return sorted(s for component in components for s in component)


def mountain_problem(geo: Geometry, mountains: set[int]) -> str | None:
    """The CY-3.4 reason a Mountain set is refused, or None."""
    cut = sealed(geo, mountains)
    if not cut:
        return None
    cut_set = set(cut)
    walls = sorted(m for m in mountains if any(t in cut_set for t in geo.orthogonal[m]))
    names = ", ".join(geo.names[s] for s in walls)
    closed = ", ".join(geo.names[s] for s in cut)
    return (f"mountains at {names} close {closed} off from orthogonal movement "
            f"(a pass must remain)")  # fmt: skip


def _half_problem(geo: Geometry, seat: int, name: str) -> Problem:
    side = ("White", "Black")[seat]
    if geo.hex:
        bands = "bands a+b >= 12" if seat else "bands a+b <= 8"
        return "CY-3.2", (f"{name} is outside {side}'s placement zone ({bands}; bands 9-11 are "
                          "no-man's-land) [CY-R47]")  # fmt: skip
    ranks = "1-4" if geo.n == 8 else "1-5"
    if seat:
        ranks = "5-8" if geo.n == 8 else "6-10"
    return "CY-3.2", f"{name} is outside {side}'s half (ranks {ranks}) [CY-R01]"


def parse_setup(cfg: Config, geo: Geometry, seat: int, data: bytes) -> Placement | Problem:
    """The placement of valid setup bytes, or (clause, reason)."""
    try:
        obj = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        return "CY-1.3.4", f"the setup is not JSON: {exc}"
    keys = {"men", "terrain"} if cfg.terrain else {"men"}
    if (
        not isinstance(obj, dict)
        or set(obj) != keys
        or not all(isinstance(obj[key], dict) for key in keys)
    ):
        if cfg.terrain:
            return "CY-1.3.4", ('a version-C setup is a JSON object {"men": {"<square>": '
                                '"<letter>", ...}, "terrain": {"<square>": "<H|W|F|X>", ...}} '
                                "[CY-R36]")  # fmt: skip
        return "CY-1.3.4", 'a setup is a JSON object {"men": {"<square>": "<letter>", ...}}'
    if msgspec.json.encode(obj, order="sorted") != data:
        return "CY-1.3.4", "the setup must be compact JSON with sorted keys, each key once"
    placement: dict[int, int] = {}
    counts = [0] * 11
    for name, letter in obj["men"].items():
        s = parse_square(geo, name) if isinstance(name, str) else None
        if s is None:
            return _no_square(geo, name)
        kind = KIND_OF_LETTER.get(letter) if isinstance(letter, str) else None
        if kind is None:
            return "CY-1.3.1", f"{letter!r} on {name} is not a man's letter ({LETTERS.strip()})"
        if s not in geo.halves[seat]:
            return _half_problem(geo, seat, name)
        placement[s] = kind
        counts[kind] += 1
    expected = [0] * 11
    for kind in army(cfg):
        expected[kind] += 1
    for kind in range(1, 11):
        if counts[kind] != expected[kind]:
            what = NAMES_OF_KIND[kind]
            if kind == DRAGON and cfg.dragon_reserve:
                return "CY-6.4.2", "with dragon-reserve the Dragon is not placed in the setup"
            return "CY-3.3", (f"{counts[kind]} {what} placed; all {expected[kind]} must be "
                              f"placed [CY-R03]")  # fmt: skip
    problem = mountain_problem(geo, {s for s, k in placement.items() if k == MOUNTAIN})
    if problem:
        return "CY-3.4", problem + " [CY-R04]"
    if cfg.sea_movement:
        ported = [geo.names[s] for s, k in sorted(placement.items())
                  if k == MOUNTAIN and geo.sea[s]]  # fmt: skip
        if ported:
            return "CY-3.6.4", (f"with sea-movement no Mountain may stand on a port "
                                f"({', '.join(ported)}) [CY-R58]")  # fmt: skip
    if not cfg.terrain:
        return Placement(placement, {})
    tiles = parse_terrain(geo, seat, obj["terrain"], placement)
    if isinstance(tiles, tuple):
        return tiles
    return Placement(placement, tiles)


def parse_terrain(
    geo: Geometry, seat: int, terrain: dict[object, object], men: dict[int, int]
) -> dict[int, int] | Problem:
    """CY-2.3, CY-3.6, CY-R36, CY-R58: the tiles of a version-C setup (Grassland implicit)."""
    tiles: dict[int, int] = {}
    for name, letter in terrain.items():
        s = parse_square(geo, name) if isinstance(name, str) else None
        if s is None:
            return _no_square(geo, name)
        tile = TILE_LETTERS.find(letter) if isinstance(letter, str) and len(letter) == 1 else -1
        if tile not in (1, 2, 3, 4):
            return "CY-1.3.2", (f"{letter!r} on {name} is not a tile letter (H Hills, W Water, "
                                "F Forest, X Fortress; Grassland is left out)")  # fmt: skip
        if s not in geo.halves[seat]:
            return _half_problem(geo, seat, geo.names[s])
        tiles[s] = tile
    for tile, count in TILES[geo.board].items():
        placed = sum(t == tile for t in tiles.values())
        if placed != count:
            return "CY-3.6.1", (f"{placed} {TILE_NAMES[tile]} tiles placed; the {geo.label} "
                                f"needs exactly {count} per side (CY-2.3)")  # fmt: skip
    king = next(s for s, kind in men.items() if kind == KING)
    if tiles.get(king) != FORTRESS:
        where = geo.names[king]
        return "CY-3.6.2", f"the King must stand on its own Fortress, not on {where} [CY-R58]"
    wet = sorted(s for s, kind in men.items() if kind == MOUNTAIN and tiles.get(s) == WATER)
    if wet:
        names = ", ".join(geo.names[s] for s in wet)
        return "CY-3.6.3", f"no Mountain may stand on Water ({names}) [CY-R58]"
    return tiles


def _no_square(geo: Geometry, name: object) -> Problem:
    clause = "CY-1.2.2" if geo.hex else "CY-1.1.1"
    return clause, f"{name!r} is not a square of the {geo.label}"


def encode_setup(geo: Geometry, placement: Placement, terrain: bool = False) -> bytes:
    men = {geo.names[s]: LETTERS[k] for s, k in placement.men.items()}
    if not terrain:
        return msgspec.json.encode({"men": men}, order="sorted")
    tiles = {geo.names[s]: TILE_LETTERS[t] for s, t in placement.terrain.items()}
    return msgspec.json.encode({"men": men, "terrain": tiles}, order="sorted")


# A fallback Mountain set per board and seat, valid by CY-3.4 (used only if random tries fail);
# the hex set avoids the ports (CY-3.6.4).
_FALLBACK: Final = {
    "square8": ("b1", "d1", "f1", "h1", "b3", "e3"),
    "square10": ("b1", "d1", "f1", "h1", "b3", "e3"),
    "hex91": ("b1", "d1", "a3", "c3", "e3", "b5"),
}


def fallback_mountains(geo: Geometry, seat: int) -> list[int]:
    """A fixed Mountain set valid by CY-3.4 in `seat`'s half (Black's mirrors White's: cell
    size-1-s is the point reflection of s on every board)."""
    mountains = [geo.square_of[name] for name in _FALLBACK[geo.board]]
    return [geo.size - 1 - s for s in mountains] if seat else mountains


def random_placement(
    cfg: Config, geo: Geometry, seat: int, choose: Callable[[int], int]
) -> Placement:
    """A legal placement; every choice is `choose(n)` (CY-3, for bots)."""
    men = random_men(cfg, geo, seat, choose)
    if not cfg.terrain:
        return Placement(men, {})
    return random_terrain(geo, seat, men, choose)


def _shuffled(items: list[int], choose: Callable[[int], int]) -> list[int]:
    order = list(items)
    for i in range(len(order) - 1, 0, -1):  # Fisher-Yates
        j = choose(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def random_terrain(
    geo: Geometry, seat: int, men: dict[int, int], choose: Callable[[int], int]
) -> Placement:
    """Version C (CY-2.3, CY-3.6): tiles for a placement of men. The Fortress goes under the
    King and Water only under squares without a Mountain; the men stay where they are."""
    king = next(s for s, kind in men.items() if kind == KING)
    dry = {s for s, kind in men.items() if kind == MOUNTAIN}
    counts = TILES[geo.board]
    free = _shuffled(sorted(geo.halves[seat] - {king}), choose)
    wet = [s for s in free if s not in dry][: counts[WATER]]
    rest = [s for s in free if s not in wet]
    tiles = {king: FORTRESS} | dict.fromkeys(wet, WATER)
    others = [tile for tile, count in counts.items() if tile not in (FORTRESS, WATER)
              for _ in range(count)]  # fmt: skip
    tiles.update(zip(rest, others, strict=False))
    return Placement(men, tiles)


def _exposure(geo: Geometry, seat: int, s: int) -> dict[int, int]:
    """Per direction from `s` that meets the other half: its steps to that half less the
    longest capture along the direction (any man, any mode: CY-5.1, CY-5.4; geo.reach). Above
    0, no man set up in the other half reaches `s` along it at the reveal."""
    enemy = geo.halves[1 - seat]
    out = {}
    for d in geo.dirs:
        steps = next((k for k, t in enumerate(geo.rays[s][d], 1) if t in enemy), 0)
        if steps:
            span = max(geo.reach[k] for k, (dirs, _) in enumerate(geo.moves) if d in dirs)
            out[d] = steps - span
    return out


def king_squares(geo: Geometry, seat: int) -> list[int]:
    """The bots' King squares (CY-3.3, CY-R60): those of the own half farthest beyond every
    enemy capture, i.e. the rear rank on square boards and bands 0-1 of the hex zone. Only on
    square8 is the margin 0 (the Dragon's 4 squares from rank 5 reach rank 1); elsewhere no
    enemy setup reaches them (nor by sea: the ports a1, k11 neighbour own-zone ports only)."""
    margin = {s: min(_exposure(geo, seat, s).values(), default=geo.size) for s in geo.halves[seat]}
    best = max(margin.values())
    return sorted(s for s, m in margin.items() if m == best)


def king_guards(geo: Geometry, seat: int, king: int) -> list[int]:
    """The squares next to `king` on the lines an enemy capture could come along at the
    reveal: a man there (not a Mountain, which the Dragon flies over: CY-5.4.2) blocks them."""
    return [geo.rays[king][d][0] for d, m in _exposure(geo, seat, king).items() if m <= 0]


def random_men(
    cfg: Config, geo: Geometry, seat: int, choose: Callable[[int], int]
) -> dict[int, int]:
    """The men of a legal placement (CY-3.3, CY-3.4). A careless King loses at the reveal
    (CY-R60: checkmated or taken before any move), so the King goes on a `king_squares`
    square with men on its `king_guards`; the rest is random."""
    squares = sorted(geo.halves[seat])
    rear = king_squares(geo, seat)
    men = [k for k in army(cfg) if k not in (KING, MOUNTAIN)]
    peaks = [MOUNTAIN] * COUNT[MOUNTAIN]
    for _ in range(64):
        king = rear[choose(len(rear))]
        guards = king_guards(geo, seat, king)
        rest = _shuffled([s for s in squares if s != king and s not in guards], choose)
        # guards first: they get men; the Mountains land at random among the rest
        placement = dict(zip(guards + rest, _shuffled(men, choose) + peaks, strict=False))
        placement[king] = KING
        mountains = {s for s, k in placement.items() if k == MOUNTAIN}
        if cfg.sea_movement and any(geo.sea[s] for s in mountains):  # CY-3.6.4
            continue
        if not sealed(geo, mountains):
            return placement
    fixed = fallback_mountains(geo, seat)
    king = next(s for s in rear if s not in fixed)
    guards = king_guards(geo, seat, king)
    rest = [s for s in squares if s != king and s not in guards and s not in fixed]
    placement = dict(zip(guards + rest, men, strict=False))
    placement[king] = KING
    placement.update(dict.fromkeys(fixed, MOUNTAIN))
    return placement
