"""A deliberately naive Cyvasse move generator written from the clause texts (versions A and
B on square boards, options b-d), sharing no code with domain/cyvasse: coordinates, dicts and
full re-generation everywhere. Used to cross-check the engine's counts (test_perft.py)."""

from dataclasses import dataclass, field

ORTH = [(1, 0), (-1, 0), (0, 1), (0, -1)]
DIAG = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
# CY-5.1.1 (A, B): directions and range.
MOVESET = {"K": (ORTH + DIAG, 1), "D": (ORTH + DIAG, 4), "T": (ORTH, 2), "E": (ORTH, 3),
           "H": (DIAG, 3), "C": (DIAG, 2), "L": (DIAG, 2), "S": (ORTH + DIAG, 1),
           "R": (ORTH, 1)}  # fmt: skip
VALUE = {"T": 9, "D": 8, "E": 7, "H": 6, "C": 5, "L": 4, "S": 3, "R": 2, "K": 1}
FILES = "abcdefghij"

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


def name(sq: Square) -> str:
    return f"{FILES[sq[0]]}{sq[1] + 1}"


def parse(variant: str, text: str) -> Pos:
    items = variant.split("+")
    n = 10 if "square10" in items else 8
    fields = dict(part.strip().split("=", 1) for part in text.split(";"))
    men: dict[Square, Man] = {}
    for side, key in enumerate(("white", "black")):
        for item in fields[key].split():
            men[(FILES.index(item[1]), int(item[2:]) - 1)] = (side, item[0])
    reserve = {"wb".index(c) for c in fields["reserve"].split(",") if c in "wb"}
    return Pos(n, men, "wb".index(fields["side"]), reserve, items[0], set(items[1:]))


def on(pos: Pos, sq: Square) -> bool:
    return 0 <= sq[0] < pos.n and 0 <= sq[1] < pos.n


def pseudo(pos: Pos, side: int) -> list[Action]:
    out: list[Action] = []
    over = "dragon_capture_over_mountains=false" not in pos.flags
    for fr, (s, letter) in list(pos.men.items()):
        if s != side or letter == "M":
            continue
        dirs, rng = MOVESET[letter]
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
            for dx, dy in ORTH:
                mid, to = (fr[0] + dx, fr[1] + dy), (fr[0] + 2 * dx, fr[1] + 2 * dy)
                m, t = pos.men.get(mid), pos.men.get(to)
                if m is None or t is None or t[0] == side or t[1] == "M":
                    continue
                if "super-trebuchet" in pos.flags or m[1] == "M" or m[0] == side:
                    out.append(("*", fr, to))
        if letter == "D" and "dragonfyre" in pos.flags:  # CY-5.4.5
            for dx, dy in ORTH + DIAG:
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
        half = range(pos.n // 2) if side == 0 else range(pos.n // 2, pos.n)
        for y in half:
            for x in range(pos.n):
                if (x, y) not in pos.men:
                    out.append(("@", None, (x, y)))
    return out


def after(pos: Pos, action: Action) -> Pos:
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
    if not out and pos.version == "B":
        out.append(("pass", None, None))
    return out


def text(action: Action) -> str:
    kind, fr, to = action
    if kind == "pass":
        return "pass"
    assert to is not None
    if kind == "@":
        return f"D@{name(to)}"
    assert fr is not None
    return f"{name(fr)}{kind}{name(to)}"


def perft(pos: Pos, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for action in legal(pos):
        target = pos.men.get(action[2]) if action[2] is not None else None
        if action[0] in "x*" and target is not None and target[1] == "K":
            total += depth == 1
            continue
        total += perft(after(pos, action), depth - 1)
    return total
