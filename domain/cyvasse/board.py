"""Square-board geometry (CY-1.1), men (CY-1.3.1, CY-2.1) and the position record (CY-1.3.5).

A square is an index y * N + x (file x, rank y + 1). A man is one byte: colour | kind; the board
is `bytes` of N * N men (0 = empty), immutable and cheap to copy.
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


class Geometry(NamedTuple):
    n: int
    names: tuple[str, ...]
    square_of: dict[str, int]
    rays: tuple[tuple[tuple[int, ...], ...], ...]  # rays[square][direction]: to the edge
    halves: tuple[frozenset[int], frozenset[int]]  # CY-1.1.2
    orthogonal: tuple[tuple[int, ...], ...]  # orthogonal neighbours per square


@cache
def geometry(n: int) -> Geometry:
    names = tuple(f"{'abcdefghij'[s % n]}{s // n + 1}" for s in range(n * n))
    rays = []
    for s in range(n * n):
        x0, y0 = s % n, s // n
        per_dir = []
        for dx, dy in DIRECTIONS:
            line, x, y = [], x0 + dx, y0 + dy
            while 0 <= x < n and 0 <= y < n:
                line.append(y * n + x)
                x, y = x + dx, y + dy
            per_dir.append(tuple(line))
        rays.append(tuple(per_dir))
    half = n * n // 2
    white = frozenset(range(half))
    black = frozenset(range(half, n * n))
    ortho = tuple(tuple(r[0] for r in rays[s][:4] if r) for s in range(n * n))
    return Geometry(n, names, {name: s for s, name in enumerate(names)}, tuple(rays),
                    (white, black), ortho)  # fmt: skip


SQUARE_RE: Final = re.compile(r"^([a-j])(10|[1-9])$")


def parse_square(geo: Geometry, text: str) -> int | None:
    """CY-1.1.1: the square named `text` on this board, or None."""
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

    def key(self) -> bytes:
        """What CY-7.4 compares: men, reserve status, side to move and (version C) terrain
        including ruins and burning squares, and storming rights."""
        key = self.board + bytes((self.turn, self.reserve))
        if self.terrain:
            key += self.terrain + bytes(b for entry in self.storm for b in entry)
        return key


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
    board = bytearray(geo.n * geo.n)
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
                                                              pos.board, tiles))  # fmt: skip
    return pos._replace(history=(pos.key(),))


def _parse_terrain(geo: Geometry, text: str) -> bytes:
    """`Xb4 Hc3 ...`: non-Grassland tiles (CY-1.3.2); at most one Fortress per half."""
    tiles = bytearray(geo.n * geo.n)
    for item in text.split():
        tile = TILE_LETTERS.find(item[:1])
        s = parse_square(geo, item[1:])
        if tile <= 0 or s is None:
            raise ValueError(f"{item!r} is not <H|W|F|X|B><square> on this board")
        if tiles[s]:
            raise ValueError(f"two tiles on {geo.names[s]}")
        tiles[s] = tile
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


def render(geo: Geometry, pos: Position) -> str:
    """Ranks N..1, files a..; White upper case, Black lower case, `.` empty; the screen line
    between the halves is drawn as `--` (CY-1.1.2). In version C every square is two
    characters: the man (or `.`) and the tile letter of CY-1.3.2 (`.` for Grassland)."""
    n = geo.n
    width = 3 if pos.terrain else 2
    lines = []
    for y in range(n - 1, -1, -1):
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
