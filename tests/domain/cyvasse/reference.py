"""A deliberately naive Cyvasse move generator written from the clause texts (versions A, B
and C on square boards and the hex board, options b-g and sea movement), sharing no code with
domain/cyvasse: coordinates, dicts and full re-generation everywhere. Used to cross-check the
engine's counts (test_perft.py). Hex cells are (a, b) with the vectors of CY-1.2.6."""

from dataclasses import dataclass, field

ORTH = [(1, 0), (-1, 0), (0, 1), (0, -1)]
DIAG = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
# CY-5.1.1 (A, B): directions and range.
MOVESET = {"K": (ORTH + DIAG, 1), "D": (ORTH + DIAG, 4), "T": (ORTH, 2), "E": (ORTH, 3),
           "H": (DIAG, 3), "C": (DIAG, 2), "L": (DIAG, 2), "S": (ORTH + DIAG, 1),
           "R": (ORTH, 1)}  # fmt: skip
VALUE = {"T": 9, "D": 8, "E": 7, "H": 6, "C": 5, "L": 4, "S": 3, "R": 2, "K": 1}
FILES = "abcdefghijk"
# CY-1.2.6 hex vectors in (a, b); CY-5.1.2 hex table; CY-1.2.8 ports in coast order.
HEX_ORTH = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)]
HEX_DIAG = [(1, -1), (-1, 1), (2, 1), (-2, -1), (1, 2), (-1, -2)]
HEX_MOVESET = dict(MOVESET) | {"D": (HEX_ORTH, 5), "C": (HEX_ORTH, 2), "T": (HEX_ORTH, 2),
                               "E": (HEX_ORTH, 3), "H": (HEX_DIAG, 3), "L": (HEX_DIAG, 2),
                               "S": (HEX_ORTH + HEX_DIAG, 1), "R": (HEX_ORTH, 1),
                               "K": (HEX_ORTH + HEX_DIAG, 1)}  # fmt: skip
PORTS = [(0, 0), (5, 0), (10, 5), (10, 10), (5, 10), (0, 5)]

Square = tuple[int, int]
Man = tuple[int, str]  # (side, letter)
Action = tuple[str, Square | None, Square | None]  # ("-"|"x"|"*"|"@"|"pass", from, to)


@dataclass
class Pos:
    n: int
    men: dict[Square, Man]
    side: int
    reserve: set[int] = field(default_factory=set)
    version: str = "A"
    flags: set[str] = field(default_factory=set)
    tiles: dict[Square, str] = field(default_factory=dict)  # version C: non-Grassland letters
    storm: dict[Square, tuple[int, int]] = field(default_factory=dict)  # square: (side, ok)
    forts: dict[int, Square] = field(default_factory=dict)  # hex C: Fortress cell per side

    @property
    def hex(self) -> bool:
        return self.n == 11

    @property
    def orth(self) -> list[Square]:
        return HEX_ORTH if self.hex else ORTH

    @property
    def diag(self) -> list[Square]:
        return HEX_DIAG if self.hex else DIAG

    def moveset(self, letter: str) -> tuple[list[Square], int]:
        return (HEX_MOVESET if self.hex else MOVESET)[letter]


def name(sq: Square) -> str:
    return f"{FILES[sq[0]]}{sq[1] + 1}"


def parse(variant: str, text: str) -> Pos:
    items = variant.split("+")
    n = 11 if "hex91" in items else 10 if "square10" in items else 8
    fields = dict(part.strip().split("=", 1) for part in text.split(";"))
    men: dict[Square, Man] = {}
    for side, key in enumerate(("white", "black")):
        for item in fields[key].split():
            men[(FILES.index(item[1]), int(item[2:]) - 1)] = (side, item[0])
    reserve = {"wb".index(c) for c in fields["reserve"].split(",") if c in "wb"}
    tiles = {(FILES.index(t[1]), int(t[2:]) - 1): t[0] for t in fields["terrain"].split()}
    storm = {}
    for entry in fields["storm"].split(","):
        if entry.strip() not in ("", "-"):
            sq, who, ok = entry.strip().split(":")
            storm[(FILES.index(sq[0]), int(sq[1:]) - 1)] = ("wb".index(who), int(ok))
    forts = {side: sq for sq, t in tiles.items() if t == "X" for side in (0, 1)
             if own_zone(n, sq, side)}  # fmt: skip
    return Pos(n, men, "wb".index(fields["side"]), reserve, items[0], set(items[1:]), tiles,
               storm, forts)  # fmt: skip


def own_zone(n: int, sq: Square, side: int) -> bool:
    """CY-1.1.2 halves, CY-1.2.4 hex zones (bands a + b <= 8 / >= 12)."""
    if n == 11:
        return sum(sq) <= 8 if side == 0 else sum(sq) >= 12
    return (sq[1] < n // 2) == (side == 0)


def cells(pos: Pos) -> list[Square]:
    return [(x, y) for y in range(pos.n) for x in range(pos.n) if on(pos, (x, y))]


def sea_ports(pos: Pos, sq: Square) -> list[Square]:
    """CY-1.2.8: the neighbouring ports of a port (none without the option)."""
    if "sea-movement" not in pos.flags or sq not in PORTS:
        return []
    i = PORTS.index(sq)
    return [PORTS[i - 1], PORTS[(i + 1) % 6]]


def drop_cells(pos: Pos, side: int) -> list[Square]:
    """CY-R41, CY-6.5.3: own half/zone; hex C: within hex distance 2 of the Fortress."""
    if pos.hex and pos.version == "C":
        f = pos.forts.get(side)
        if f is None:
            return []
        return [c for c in cells(pos) if max(abs(c[0] - f[0]), abs(c[1] - f[1]),
                                              abs(c[0] - f[0] - c[1] + f[1])) <= 2]  # fmt: skip
    return [c for c in cells(pos) if own_zone(pos.n, c, side)]


def on(pos: Pos, sq: Square) -> bool:
    inside = 0 <= sq[0] < pos.n and 0 <= sq[1] < pos.n
    return inside and (not pos.hex or abs(sq[0] - sq[1]) <= 5)


def pseudo(pos: Pos, side: int) -> list[Action]:
    if pos.version == "C":
        return pseudo_c(pos, side)
    out: list[Action] = []
    over = "dragon_capture_over_mountains=false" not in pos.flags
    for fr, (s, letter) in list(pos.men.items()):
        if s != side or letter == "M":
            continue
        dirs, rng = pos.moveset(letter)
        for dx, dy in dirs:
            for k in range(1, rng + 1):
                to = (fr[0] + k * dx, fr[1] + k * dy)
                if not on(pos, to):
                    break
                between = [pos.men.get((fr[0] + i * dx, fr[1] + i * dy)) for i in range(1, k)]
                clear = all(m is None for m in between)
                flies = all(m is None or m[1] == "M" for m in between)
                target = pos.men.get(to)
                if target is None and (clear or (letter == "D" and flies)):
                    out.append(("-", fr, to))
                enemy = target is not None and target[0] != side and target[1] != "M"
                if enemy and (clear or (letter == "D" and flies and over)):
                    out.append(("x", fr, to))
        if letter == "T":  # CY-5.4.3
            for dx, dy in pos.orth:
                mid, to = (fr[0] + dx, fr[1] + dy), (fr[0] + 2 * dx, fr[1] + 2 * dy)
                m, t = pos.men.get(mid), pos.men.get(to)
                far = (fr[0] + 3 * dx, fr[1] + 3 * dy)
                if pos.hex and "super-trebuchet" in pos.flags and on(pos, far):  # R = 3
                    f = pos.men.get(far)
                    if f is not None and f[0] != side and f[1] != "M":
                        out.append(("*", fr, far))
                if m is None or t is None or t[0] == side or t[1] == "M":
                    continue
                if "super-trebuchet" in pos.flags or m[1] == "M" or m[0] == side:
                    out.append(("*", fr, to))
        if letter != "D":  # CY-6.5.2 sea movement
            for to in sea_ports(pos, fr):
                target = pos.men.get(to)
                if target is None:
                    out.append(("-", fr, to))
                elif target[0] != side and target[1] != "M":
                    out.append(("x", fr, to))
        if letter == "D" and "dragonfyre" in pos.flags:  # CY-5.4.5
            for dx, dy in pos.moveset("D")[0]:
                for k in (1, 2):
                    to = (fr[0] + k * dx, fr[1] + k * dy)
                    if not on(pos, to):
                        continue
                    t = pos.men.get(to)
                    if t is None or t[0] == side or t[1] == "M":
                        continue
                    m = pos.men.get((fr[0] + dx, fr[1] + dy)) if k == 2 else None
                    if m is None or (m[0] == side and m[1] != "M"):
                        out.append(("*", fr, to))
    if side in pos.reserve:
        out.extend(("@", None, c) for c in drop_cells(pos, side) if c not in pos.men)
    return out


def after(pos: Pos, action: Action) -> Pos:
    if pos.version == "C":
        return after_c(pos, action)
    kind, fr, to = action
    men = dict(pos.men)
    reserve = set(pos.reserve)
    if kind == "@":
        assert to is not None
        men[to] = (pos.side, "D")
        reserve.discard(pos.side)
    elif kind == "*":
        assert to is not None
        del men[to]
    elif kind != "pass":
        assert fr is not None
        assert to is not None
        men[to] = men.pop(fr)
    return Pos(pos.n, men, 1 - pos.side, reserve, pos.version, pos.flags)


def king_attacked(pos: Pos, side: int) -> bool:
    king = next((sq for sq, m in pos.men.items() if m == (side, "K")), None)
    return king is not None and any(a[0] in "x*" and a[2] == king for a in pseudo(pos, 1 - side))


def legal(pos: Pos) -> list[Action]:
    out = []
    for action in pseudo(pos, pos.side):
        kind, fr, to = action
        target = pos.men.get(to) if to is not None else None
        if kind[0] in "x*" and pos.version == "C":
            assert fr is not None
            assert to is not None
            if not c_allowed(pos, fr, to):
                continue
        if kind in "x*" and pos.version == "B":
            assert fr is not None
            assert target is not None
            flankers = {a[1] for a in pseudo(pos, pos.side) if a[0] in "x*" and a[2] == to}
            values = [VALUE[pos.men[f][1]] for f in flankers if f is not None]
            king = any(f is not None and pos.men[f][1] == "K" for f in flankers)
            if not (VALUE[pos.men[fr][1]] >= VALUE[target[1]] or (len(values) >= 2 and (
                    king or sum(values) >= VALUE[target[1]]))):  # fmt: skip
                continue
        takes_king = target is not None and target[1] == "K"
        if pos.version == "A" and not takes_king and king_attacked(after(pos, action), pos.side):
            continue
        out.append(action)
    if not out and pos.version in "BC":
        out.append(("pass", None, None))
    return out


def text(action: Action) -> str:
    kind, fr, to = action
    if kind == "pass":
        return "pass"
    assert to is not None
    if kind == "@":
        return f"D@{name(to)}"
    if kind == "ruin":
        return f"ruin@{name(to)}"
    assert fr is not None
    return f"{name(fr)}{kind[0]}{name(to)}" + (f"={kind[1]}" if len(kind) == 2 else "")


def perft(pos: Pos, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for action in legal(pos):
        target = pos.men.get(action[2]) if action[2] is not None else None
        if action[0][0] in "x*" and target is not None and target[1] == "K":
            total += depth == 1
            continue
        total += perft(after(pos, action), depth - 1)
    return total


# Version C (CY-5.1.1 C column, 5.3, 5.4.4, 5.4.8, 6.2-6.4) --------------------------------

LADDER = "RSLCHEDT"  # CY-6.4.7: value 2 .. 9
COUNTS = {"T": 2, "D": 1, "E": 2, "H": 2, "C": 2, "L": 2, "S": 4, "R": 4, "K": 1}
COST = {"G": 1, "X": 1, "H": 2, "F": 2, "W": 3}


def tile(pos: Pos, sq: Square) -> str:
    return pos.tiles.get(sq, "G")


def own_half(pos: Pos, sq: Square, side: int) -> bool:
    return own_zone(pos.n, sq, side)


def c_line(pos: Pos, fr: Square, d: Square, letter: str) -> tuple[list[Square], Square | None]:
    """Empty squares a C man may move to along d, and the occupied square it may enter."""
    rng = 1 if letter == "T" else pos.moveset(letter)[1]
    cost, over, moves = 0, False, []
    for k in range(1, rng + 1):
        sq = (fr[0] + k * d[0], fr[1] + k * d[1])
        if not on(pos, sq) or tile(pos, sq) == "B":
            break
        t, man = tile(pos, sq), pos.men.get(sq)
        if letter == "D":
            if man is None:
                moves.append(sq)
                continue
            if man[1] == "M":
                over = True
                continue
            ok = not over or "dragon_capture_over_mountains=false" not in pos.flags
            return moves, sq if ok else None
        cost += 1 if (letter == "E" and t == "W") else COST[t]
        allowance = (t == "W" and letter != "E") or (t in "HF" and rng <= 2)
        if cost > rng and not allowance:
            break
        if man is not None:
            return moves, sq
        moves.append(sq)
        if t == "X" or allowance:
            break
    return moves, None


def c_reaches(pos: Pos, fr: Square, to: Square) -> list[str]:
    """Capture modes ("x", "*") of the man on fr against the square to, values aside."""
    side, letter = pos.men[fr]
    if tile(pos, fr) == "W" and letter not in "DE":
        return []
    modes = []
    for d in pos.orth if letter == "T" else pos.moveset(letter)[0]:
        if c_line(pos, fr, d, letter)[1] == to:
            modes.append("x")
    if letter != "D" and to in sea_ports(pos, fr):  # CY-6.5.2 sea capture
        modes.append("x")
    hits = [(d, k) for d in pos.orth + pos.diag for k in (1, 2, 3)
            if (fr[0] + k * d[0], fr[1] + k * d[1]) == to]  # fmt: skip
    if hits:
        d, k = hits[0]
        mid = pos.men.get((fr[0] + d[0], fr[1] + d[1])) if k == 2 else None
        if k == 3:
            if letter == "T" and pos.hex and d in pos.orth and "super-trebuchet" in pos.flags:
                modes.append("*")
            return modes
        if (
            letter == "T"
            and d in pos.orth
            and (mid is None or mid[1] == "M" or mid[0] == side or "super-trebuchet" in pos.flags)
        ):
            modes.append("*")
        if letter == "C" and d in (pos.orth if pos.hex else pos.diag) and mid is None:
            modes.append("*")
        if (
            letter == "D"
            and "dragonfyre" in pos.flags
            and d in pos.moveset("D")[0]
            and (mid is None or (mid[0] == side and mid[1] != "M"))
        ):
            modes.append("*")
    return modes


def c_value(pos: Pos, sq: Square, attacking: bool) -> int:
    side, letter = pos.men[sq]
    v = VALUE[letter]
    t = tile(pos, sq)
    if attacking:
        v += t == "H"
    elif t == "X":
        v += 3 if (v <= 6 or "fortress_bonus_mode=cap" in pos.flags) else 0
    elif t == "F":
        v += 1
    king = next((k for k, m in pos.men.items() if m == (side, "K")), None)
    if (
        letter != "K"
        and king is not None
        and (king[0] - sq[0], king[1] - sq[1]) in (pos.orth + pos.diag)
    ):
        v += 1
    return min(9, v)


def c_allowed(pos: Pos, fr: Square, to: Square) -> bool:
    side = pos.men[fr][0]
    target = c_value(pos, to, False)
    if c_value(pos, fr, True) >= target:
        return True
    flank = [
        sq for sq, m in pos.men.items() if m[0] == side and m[1] != "M" and c_reaches(pos, sq, to)
    ]
    if len(flank) < 2:
        return False
    if any(pos.men[sq][1] == "K" for sq in flank):
        return True
    return sum(c_value(pos, sq, True) for sq in flank) >= target


def pseudo_c(pos: Pos, side: int) -> list[Action]:
    out: list[Action] = []
    for fr, (s, letter) in list(pos.men.items()):
        if s != side or letter == "M":
            continue
        for d in pos.orth if letter == "T" else pos.moveset(letter)[0]:
            out.extend(("-", fr, to) for to in c_line(pos, fr, d, letter)[0])
        if letter != "D":  # CY-6.5.2: sea move, no terrain costs; never onto a burning port
            out.extend(("-", fr, to) for to in sea_ports(pos, fr)
                       if to not in pos.men and tile(pos, to) != "B")  # fmt: skip
        for to, (s2, target) in pos.men.items():
            if s2 != side and target != "M":
                out.extend((mode, fr, to) for mode in c_reaches(pos, fr, to))
    promos: list[Action] = []
    for kind, fr, to in out if "fortress-promotion" in pos.flags else []:
        assert fr is not None
        assert to is not None
        letter = pos.men[fr][1]
        if (
            kind in "-x"
            and tile(pos, to) == "X"
            and own_half(pos, to, side)
            and letter in "RSLCHED"
        ):
            up = LADDER[LADDER.index(letter) + 1]
            have = sum(m == (side, up) for m in pos.men.values())
            have += up == "D" and side in pos.reserve
            if have < COUNTS[up]:
                promos.append((kind + up, fr, to))
    out.extend(promos)
    if side in pos.reserve:
        out.extend(("@", None, c) for c in drop_cells(pos, side)
                   if c not in pos.men and tile(pos, c) != "B")  # fmt: skip
    out.extend(("ruin", None, sq) for sq, (who, ok) in pos.storm.items() if who == side and ok)
    return out


def after_c(pos: Pos, action: Action) -> Pos:
    kind, fr, to = action
    men, tiles, reserve = dict(pos.men), dict(pos.tiles), set(pos.reserve)
    side = pos.side
    storm = {
        sq: (who, ok)
        for sq, (who, ok) in pos.storm.items()
        if who == side and not (kind == "ruin" and to == sq) and not (kind[0] in "-x" and fr == sq)
    }
    if kind == "@":
        assert to is not None
        men[to] = (side, "D")
        reserve.discard(side)
    elif kind == "ruin":
        assert to is not None
        tiles[to] = "F"
    elif kind != "pass":
        assert fr is not None
        assert to is not None
        mover = men[fr][1]
        enemy_fort = tile(pos, to) == "X" and not own_half(pos, to, side)
        if kind == "*":
            del men[to]
            if tile(pos, to) == "W" and "wildfyre" in pos.flags:
                tiles[to] = "B"
        else:
            men[to] = (side, kind[1] if len(kind) == 2 else mover)
            del men[fr]
        if mover == "D" and enemy_fort:
            tiles[to] = "F"
        elif enemy_fort and kind[0] in "-x" and "fortress-storming" in pos.flags:
            storm[to] = (side, 0)
    for sq, (who, _ok) in pos.storm.items():
        if who != side and men.get(sq, (-1, ""))[0] == who:
            storm[sq] = (who, 1)
    return Pos(pos.n, men, 1 - side, reserve, pos.version, pos.flags, tiles, storm, pos.forts)
