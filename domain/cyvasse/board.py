"""Board geometry (CY-1.1 square, CY-1.2 hex), men (CY-1.3.1, CY-2.1) and the position record
(CY-1.3.5).

A square board cell is an index y * N + x (file x, rank y + 1); a hex cell (a, b) is indexed by
band t = a + b, then a (the rows of the map of CY-1.2.9, White's vertex a1 first), so that on
both boards White's half/zone comes first and cell size-1-s is the point reflection of s. A man
is one byte: colour | kind; the board is `bytes` of `size` men (0 = empty).
"""

import re
from functools import cache
from typing import Final, NamedTuple

# Kinds (CY-1.3.1).
KING: Final = 1
DRAGON: Final = 2
TREBUCHET: Final = 3
ELEPHANT: Final = 4
HEAVY_HORSE: Final = 5
CROSSBOWMEN: Final = 6
LIGHT_HORSE: Final = 7
SPEARS: Final = 8
RABBLE: Final = 9
MOUNTAIN: Final = 10
KIND: Final = 0x0F
WHITE: Final = 0x10
BLACK: Final = 0x20
COLOURS: Final = (WHITE, BLACK)
EMPTY: Final = 0

LETTERS: Final = " KDTEHCLSRM"
KIND_OF_LETTER: Final = {letter: kind for kind, letter in enumerate(LETTERS) if kind}
NAMES_OF_KIND: Final = ("", "King", "Dragon", "Trebuchet", "Elephant", "Heavy Horse",
                        "Crossbowmen", "Light Horse", "Spears", "Rabble", "Mountain")  # fmt: skip
# CY-2.1: men per side and values (versions B, C).
COUNT: Final = (0, 1, 1, 2, 2, 2, 2, 2, 4, 4, 6)
VALUE: Final = (0, 1, 8, 9, 7, 6, 5, 4, 3, 2, 0)

# CY-1.1.3: orthogonal directions 0-3, diagonal 4-7.
DIRECTIONS: Final = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))
ORTHOGONAL: Final = (0, 1, 2, 3)
DIAGONAL: Final = (4, 5, 6, 7)
ALL: Final = (0, 1, 2, 3, 4, 5, 6, 7)
OPPOSITE: Final = (1, 0, 3, 2, 7, 6, 5, 4)

# CY-5.1.1 (versions A, B): move set = capture set, (directions, range M).
MOVES: Final[tuple[tuple[tuple[int, ...], int], ...]] = (
    ((), 0),
    (ALL, 1),  # King
    (ALL, 4),  # Dragon (flies over Mountains)
    (ORTHOGONAL, 2),  # Trebuchet (+ capture over an obstacle, CY-5.4.3)
    (ORTHOGONAL, 3),  # Elephant
    (DIAGONAL, 3),  # Heavy Horse
    (DIAGONAL, 2),  # Crossbowmen
    (DIAGONAL, 2),  # Light Horse
    (ALL, 1),  # Spears
    (ORTHOGONAL, 1),  # Rabble
    ((), 0),  # Mountain
)


def owner(man: int) -> int:
    """The seat (0 White, 1 Black) of a man (not EMPTY)."""
    return (man >> 5) & 1


Table = tuple[tuple[tuple[int, ...], int], ...]  # per kind: (directions, range M)


class Geometry(NamedTuple):
    """A board as configuration (CY-1.1 square, CY-1.2 hex): cells indexed 0..size-1, their
    names, rays per direction, halves/zones, adjacency and the piece tables of the board.
    Directions 0..n_orth-1 are orthogonal, the rest diagonal."""

    n: int  # square: side length; hex: 11 (files a-k)
    names: tuple[str, ...]
    square_of: dict[str, int]
    rays: tuple[tuple[tuple[int, ...], ...], ...]  # rays[cell][direction]: to the edge
    halves: tuple[frozenset[int], frozenset[int]]  # CY-1.1.2 halves / CY-1.2.4 zones
    orthogonal: tuple[tuple[int, ...], ...]  # orthogonal neighbours per cell
    board: str  # "square8" | "square10" | "hex91"
    size: int  # number of cells
    n_orth: int  # 4 square, 6 hex
    dirs: tuple[int, ...]  # every direction
    opposite: tuple[int, ...]
    moves: Table  # CY-5.1.1 / CY-5.1.2, versions A and B (move = capture)
    moves_c: Table  # version C moves
    reach: tuple[int, ...]  # A/B: furthest square any capture mode of a kind reaches
    reach_c: tuple[int, ...]  # C: the same (ranged Trebuchet 2, 3 on hex)
    scan: int  # max of reach and reach_c
    shoot: int  # furthest stationary capture (2; 3 on hex with Super Trebuchets)
    xbow: tuple[int, ...]  # version C Crossbowmen ranged directions (CY-5.4.4)
    adjacent: tuple[frozenset[int], ...]  # CY-1.1.3 / CY-1.2.6 (8 / 12 cells)
    sea: tuple[tuple[int, ...], ...]  # CY-1.2.8: neighbouring ports of a port, else ()
    label: str  # "8x8 board" | "hex91 board" (messages)
    coords: tuple[tuple[int, int], ...]  # (x, y) square / (a, b) hex

    @property
    def hex(self) -> bool:
        return self.n_orth == 6

    def line(self, fr: int, to: int) -> tuple[int, int] | None:
        """(direction, distance k) with rays[fr][d][k - 1] == to, or None."""
        for d in self.dirs:
            ray = self.rays[fr][d]
            if to in ray:
                return d, ray.index(to) + 1
        return None

    def distance(self, s: int, t: int) -> int:
        """CY-1.2.7 hex distance (Chebyshev on square boards)."""
        (a0, b0), (a1, b1) = self.coords[s], self.coords[t]
        da, db = a1 - a0, b1 - b0
        if self.hex:
            return max(abs(da), abs(db), abs(da - db))
        return max(abs(da), abs(db))


def _table(orth: tuple[int, ...], diag: tuple[int, ...], dragon: tuple[tuple[int, ...], int],
           xbow: tuple[int, ...]) -> Table:  # fmt: skip
    every = orth + diag
    return (
        ((), 0),
        (every, 1),  # King
        dragon,  # Dragon (flies over Mountains)
        (orth, 2),  # Trebuchet (+ capture over an obstacle, CY-5.4.3)
        (orth, 3),  # Elephant
        (diag, 3),  # Heavy Horse
        (xbow, 2),  # Crossbowmen
        (diag, 2),  # Light Horse
        (every, 1),  # Spears
        (orth, 1),  # Rabble
        ((), 0),  # Mountain
    )


def _build(board: str, n: int, cells: list[tuple[int, int]], names: list[str],
           vectors: tuple[tuple[int, int], ...], n_orth: int, opposite: tuple[int, ...],
           white: frozenset[int], black: frozenset[int], hexagonal: bool) -> Geometry:  # fmt: skip
    index = {cell: s for s, cell in enumerate(cells)}
    rays = []
    for x0, y0 in cells:
        per_dir = []
        for dx, dy in vectors:
            line, x, y = [], x0 + dx, y0 + dy
            while (x, y) in index:
                line.append(index[x, y])
                x, y = x + dx, y + dy
            per_dir.append(tuple(line))
        rays.append(tuple(per_dir))
    size = len(cells)
    orth = tuple(range(n_orth))
    diag = tuple(range(n_orth, len(vectors)))
    if hexagonal:  # CY-5.1.2, CY-R49
        moves = _table(orth, diag, (orth, 5), orth)
        treb_reach, shoot = 3, 3  # Super Trebuchets reach 3 on hex (CY-6.4.3, CY-R42)
    else:  # CY-5.1.1
        moves = _table(orth, diag, (orth + diag, 4), diag)
        treb_reach, shoot = 2, 2
    moves_c = tuple((orth, 1) if kind == TREBUCHET else m for kind, m in enumerate(moves))
    reach = tuple(treb_reach if kind == TREBUCHET else rng for kind, (_d, rng) in enumerate(moves))
    ports: tuple[int, ...] = ()
    sea: list[tuple[int, ...]] = [() for _ in range(size)]
    if hexagonal:  # CY-1.2.8: the coast cycle a1 - f1 - k6 - k11 - f11 - a6
        ports = tuple(index[c] for c in ((0, 0), (5, 0), (10, 5), (10, 10), (5, 10), (0, 5)))
        for i, p in enumerate(ports):
            sea[p] = (ports[i - 1], ports[(i + 1) % 6])
    return Geometry(
        n, tuple(names), {name: s for s, name in enumerate(names)}, tuple(rays), (white, black),
        tuple(tuple(r[0] for r in rays[s][:n_orth] if r) for s in range(size)), board, size,
        n_orth, tuple(range(len(vectors))), opposite, moves, moves_c, reach, reach,
        max(reach), shoot, moves[CROSSBOWMEN][0],
        tuple(frozenset(r[0] for r in rays[s] if r) for s in range(size)), tuple(sea),
        "hex91 board" if hexagonal else f"{n}x{n} board", tuple(cells),
    )  # fmt: skip


# CY-1.2.6: hex directions in (a, b): orthogonal 0-5, diagonal 6-11; opposite = d ^ 1.
HEX_DIRECTIONS: Final = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1),
                         (1, -1), (-1, 1), (2, 1), (-2, -1), (1, 2), (-1, -2))  # fmt: skip
BOARD_OF_SIDE: Final = {8: "square8", 10: "square10"}


@cache
def geometry(board: str | int) -> Geometry:
    """The geometry of `board` ("square8", "square10", "hex91"; 8 and 10 name the squares)."""
    if isinstance(board, int):
        board = BOARD_OF_SIDE[board]
    if board == "hex91":  # CY-1.2.1-1.2.4: cells by band t = a + b, then a (the map's rows)
        cells = sorted(((a, b) for a in range(11) for b in range(11) if abs(a - b) <= 5),
                       key=lambda c: (c[0] + c[1], c[0]))  # fmt: skip
        names = [f"{'abcdefghijk'[a]}{b + 1}" for a, b in cells]
        white = frozenset(s for s, (a, b) in enumerate(cells) if a + b <= 8)
        black = frozenset(s for s, (a, b) in enumerate(cells) if a + b >= 12)
        opposite = tuple(d ^ 1 for d in range(12))
        return _build(board, 11, cells, names, HEX_DIRECTIONS, 6, opposite, white, black, True)
    n = 10 if board == "square10" else 8
    cells = [(s % n, s // n) for s in range(n * n)]
    names = [f"{'abcdefghij'[x]}{y + 1}" for x, y in cells]
    half = n * n // 2
    return _build(board, n, cells, names, DIRECTIONS, 4, OPPOSITE, frozenset(range(half)),
                  frozenset(range(half, n * n)), False)  # fmt: skip


SQUARE_RE: Final = re.compile(r"^([a-k])(1[01]|[1-9])$")


def parse_square(geo: Geometry, text: str) -> int | None:
    """CY-1.1.1 / CY-1.2.2: the cell named `text` on this board, or None."""
    return geo.square_of.get(text) if SQUARE_RE.match(text) else None


Storm = tuple[int, int, int]  # Fortress square, storming seat, eligible to ruin (CY-6.4.5)
TILE_LETTERS: Final = "GHWFXB"  # CY-1.3.2 (terrain.py names them)


class Position(NamedTuple):
    """The play state of the board (CY-1.3.5). `terrain` is empty in versions A and B."""

    board: bytes
    turn: int = 0  # seat to move
    reserve: int = 0  # bit per seat: its Dragon is in reserve (CY-6.4.2)
    quiet: int = 0  # plies since the last capture or Dragon introduction (CY-7.5)
    passes: int = 0  # consecutive forced passes (CY-7.6)
    history: tuple[bytes, ...] = ()  # repetition keys since the last irreversible action
    terrain: bytes = b""  # version C: a tile per square (terrain.py)
    storm: tuple[Storm, ...] = ()  # version C, option e: storming rights
    # hex, version C: the Fortress cell per seat (-1: none), kept when it is ruined (CY-6.5.3)
    forts: tuple[int, ...] = ()

    def key(self) -> bytes:
        """What CY-7.4 compares: men, reserve status, side to move and (version C) terrain
        including ruins and burning squares, and storming rights."""
        key = self.board + bytes((self.turn, self.reserve))
        if self.terrain:
            key += self.terrain + bytes(b for entry in self.storm for b in entry)
        return key


def fortress_cells(geo: Geometry, tiles: bytes) -> tuple[int, ...]:
    """Hex version C: the cell of each seat's (intact) Fortress, -1 if none; () on squares."""
    if not geo.hex:
        return ()
    return tuple(next((s for s in sorted(half) if tiles[s] == 4), -1) for half in geo.halves)


def men_list(geo: Geometry, board: bytes, colour: int) -> str:
    return " ".join(
        f"{LETTERS[man & KIND]}{geo.names[s]}"
        for s, man in enumerate(board)
        if man and man & ~KIND == colour
    )


def format_position(geo: Geometry, pos: Position) -> str:
    """CY-1.3.5: `side=w; white=...; black=...; terrain=; reserve=-; storm=-;
    plies_since_progress=0` (men listed by square, a1 first)."""
    reserve = ",".join(c for seat, c in enumerate("wb") if pos.reserve >> seat & 1) or "-"
    terrain = " ".join(
        f"{TILE_LETTERS[tile]}{geo.names[s]}" for s, tile in enumerate(pos.terrain) if tile
    )
    storm = ",".join(f"{geo.names[s]}:{'wb'[seat]}:{eligible}" for s, seat, eligible in pos.storm)
    return (
        f"side={'wb'[pos.turn]}; white={men_list(geo, pos.board, WHITE)}; "
        f"black={men_list(geo, pos.board, BLACK)}; terrain={terrain}; reserve={reserve}; "
        f"storm={storm or '-'}; plies_since_progress={pos.quiet}"
    )


def parse_position(
    geo: Geometry, text: str, dragon_reserve: bool, terrain: bool = False, storming: bool = False
) -> Position:
    """Parse a CY-1.3.5 record (`terrain` for version C, `storming` with option e); raises
    ValueError with the reason."""
    fields: dict[str, str] = {}
    for part in text.split(";"):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in ("side", "white", "black", "terrain", "reserve", "storm",
                                  "plies_since_progress"):  # fmt: skip
            raise ValueError(f"field {part.strip()!r} is not one of CY-1.3.5")
        if key in fields:
            raise ValueError(f"field {key} given twice")
        fields[key] = value.strip()
    for key in ("side", "white", "black"):
        if key not in fields:
            raise ValueError(f"field {key} is missing")
    if fields["side"] not in ("w", "b"):
        raise ValueError("side must be w or b")
    if fields.get("terrain", "") and not terrain:
        raise ValueError("terrain belongs to version C")
    if fields.get("storm", "-") != "-" and not storming:
        raise ValueError("storm belongs to version C with fortress-storming")
    board = bytearray(geo.size)
    for seat, key in enumerate(("white", "black")):
        counts = [0] * 11
        for item in fields[key].split():
            kind = KIND_OF_LETTER.get(item[:1])
            s = parse_square(geo, item[1:])
            if kind is None or s is None:
                raise ValueError(f"{item!r} is not <letter><square> on this board")
            if board[s]:
                raise ValueError(f"two men on {geo.names[s]}")
            board[s] = COLOURS[seat] | kind
            counts[kind] += 1
        for kind in range(1, 11):
            if counts[kind] > COUNT[kind]:
                raise ValueError(f"{key} has {counts[kind]} {NAMES_OF_KIND[kind]} "
                                 f"(at most {COUNT[kind]}, CY-2.1)")  # fmt: skip
        if counts[KING] != 1:
            raise ValueError(f"{key} must have exactly one King")
    reserve = 0
    for raw in fields.get("reserve", "-").split(","):
        item = raw.strip()
        if item in ("-", ""):
            continue
        if item not in ("w", "b"):
            raise ValueError("reserve is w, b, w,b or -")
        if not dragon_reserve:
            raise ValueError("a Dragon in reserve needs the dragon-reserve option")
        seat = "wb".index(item)
        if bytes((COLOURS[seat] | DRAGON,)) in board:
            raise ValueError(f"{('white', 'black')[seat]} has a Dragon on the board and in reserve")
        reserve |= 1 << seat
    quiet = fields.get("plies_since_progress", "0")
    if not quiet.isdigit():
        raise ValueError("plies_since_progress must be a non-negative integer")
    pos = Position(bytes(board), "wb".index(fields["side"]), reserve, int(quiet))
    if terrain:
        tiles = _parse_terrain(geo, fields.get("terrain", ""))
        pos = pos._replace(terrain=tiles, storm=_parse_storm(geo, fields.get("storm", "-"),
                                                              pos.board, tiles),
                           forts=fortress_cells(geo, tiles))  # fmt: skip
    return pos._replace(history=(pos.key(),))


def _parse_terrain(geo: Geometry, text: str) -> bytes:
    """`Xb4 Hc3 ...`: non-Grassland tiles (CY-1.3.2); at most one Fortress per half."""
    tiles = bytearray(geo.size)
    for item in text.split():
        tile = TILE_LETTERS.find(item[:1])
        s = parse_square(geo, item[1:])
        if tile <= 0 or s is None:
            raise ValueError(f"{item!r} is not <H|W|F|X|B><square> on this board")
        if tiles[s]:
            raise ValueError(f"two tiles on {geo.names[s]}")
        tiles[s] = tile
    if geo.hex:  # CY-2.3: every no-man's-land cell of the hex board is Grassland
        nml = [geo.names[s] for s in range(geo.size) if tiles[s] and
               not any(s in half for half in geo.halves)]  # fmt: skip
        if nml:
            raise ValueError(f"no-man's-land is Grassland (CY-1.2.4, CY-2.3): {', '.join(nml)}")
    for seat, half in enumerate(geo.halves):
        if sum(tiles[s] == 4 for s in half) > 1:
            raise ValueError(f"{('white', 'black')[seat]}'s half has more than one Fortress")
    return bytes(tiles)


def _parse_storm(geo: Geometry, text: str, board: bytes, tiles: bytes) -> tuple[Storm, ...]:
    """`b4:w:1,...`: a storming man of seat w/b on the enemy Fortress b4, eligible 0/1."""
    entries = []
    for item in text.split(","):
        if item.strip() in ("", "-"):
            continue
        parts = item.strip().split(":")
        s = parse_square(geo, parts[0]) if len(parts) == 3 else None
        if s is None or parts[1] not in ("w", "b") or parts[2] not in ("0", "1"):
            raise ValueError(f"storm entry {item.strip()!r} is not <square>:<w|b>:<0|1>")
        seat = "wb".index(parts[1])
        if tiles[s] != 4 or s in geo.halves[seat]:
            raise ValueError(f"{geo.names[s]} is no intact enemy Fortress of {parts[1]}")
        if not board[s] or owner(board[s]) != seat:
            raise ValueError(f"no man of {parts[1]} stands on {geo.names[s]}")
        entries.append((s, seat, int(parts[2])))
    return tuple(sorted(entries))


def _cell_text(geo: Geometry, pos: Position, s: int) -> str:
    man = pos.board[s]
    letter = LETTERS[man & KIND] if man else "."
    cell = letter.lower() if man & BLACK else letter
    if pos.terrain:
        tile = pos.terrain[s]
        cell += TILE_LETTERS[tile] if tile else "."
    return cell


def _render_hex(geo: Geometry, pos: Position) -> list[str]:
    """CY-1.2.9: one row per band t (20 at the top), each cell at column a - b; the row is
    labelled with its leftmost cell; the screen is marked on band 10."""
    lines = []
    for t in range(20, -1, -1):
        row = [s for s in range(geo.size) if sum(geo.coords[s]) == t]
        first = min(row, key=lambda s: geo.coords[s][0] - geo.coords[s][1])
        chars = [" "] * 36
        for s in row:
            a, b = geo.coords[s]
            col = 3 * (a - b + 5)
            text = _cell_text(geo, pos, s)
            chars[col : col + len(text)] = text
        mark = "   <- screen" if t == 10 else ""
        lines.append(f"{geo.names[first]:>4} " + "".join(chars).rstrip() + mark)
    lines.append("(rows are bands t = a + b labelled by their leftmost cell; White's vertex a1 "
                 "at the bottom)")  # fmt: skip
    return lines


def render(geo: Geometry, pos: Position) -> str:
    """Ranks N..1, files a..; White upper case, Black lower case, `.` empty; the screen line
    between the halves is drawn as `--` (CY-1.1.2). In version C every square is two
    characters: the man (or `.`) and the tile letter of CY-1.3.2 (`.` for Grassland)."""
    n = geo.n
    width = 3 if pos.terrain else 2
    lines = []
    for y in range(n - 1, -1, -1) if not geo.hex else ():
        cells = []
        for x in range(n):
            man = pos.board[y * n + x]
            letter = LETTERS[man & KIND] if man else "."
            cell = letter.lower() if man & BLACK else letter
            if pos.terrain:
                tile = pos.terrain[y * n + x]
                cell += TILE_LETTERS[tile] if tile else "."
            cells.append(cell)
        lines.append(f"{y + 1:>2} " + " ".join(cells))
        if y == n // 2:
            lines.append("   " + "-" * (width * n - 1))
    if geo.hex:
        lines = _render_hex(geo, pos)
    else:
        lines.append(("   " + " ".join(f"{f:<{width - 1}}" for f in "abcdefghij"[:n])).rstrip())
    if pos.terrain:
        lines.append("Tiles: H Hills, W Water, F Forest (or ruined Fortress), X Fortress, "
                     "B burning")  # fmt: skip
    for s, seat, eligible in pos.storm:
        state = "may ruin it" if eligible else "must survive one turn"
        lines.append(f"{('White', 'Black')[seat]} storms {geo.names[s]} ({state})")
    reserve = ", ".join(side for seat, side in enumerate(("White", "Black"))
                        if pos.reserve >> seat & 1)  # fmt: skip
    if reserve:
        lines.append(f"Dragon in reserve: {reserve}")
    lines.append(f"{('White', 'Black')[pos.turn]} to move")
    return "\n".join(lines)
