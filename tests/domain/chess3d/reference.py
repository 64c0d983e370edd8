"""A deliberately naive 3-D Chess move generator, written from the clause texts only.

It shares no code with domain/chess3d: cubes are 1-based (x, y, z) triples, the board is a
dict, every legality test makes the move on a copy and asks, man by man, whether any enemy man
could capture the King (C3-4.2, C3-5.0.5). It is slow on purpose; it exists to cross-check the
fast generator's perft counts.
"""

from dataclasses import dataclass, field
from itertools import product

Cube = tuple[int, int, int]
Man = tuple[str, str]  # (colour "w"/"b", kind "KQRBNP")
RefMove = tuple[Cube, Cube, str]  # from, to, promotion letter or ""

FILES = "ABCDEFGH"
LEVELS = ("I", "II", "III")
ALL_DIRECTIONS = [d for d in product((-1, 0, 1), repeat=3) if d != (0, 0, 0)]  # C3-1.4
ROOK_DIRECTIONS = [d for d in ALL_DIRECTIONS if sum(map(abs, d)) == 1]  # C3-5.2
BISHOP_DIRECTIONS = [d for d in ALL_DIRECTIONS if d[0] != 0 and d[1] != 0]  # C3-5.4
QUEEN18_DIRECTIONS = ROOK_DIRECTIONS + BISHOP_DIRECTIONS  # C3-0.2 queen_directions=18


def on_board(c: Cube) -> bool:
    return 1 <= c[0] <= 8 and 1 <= c[1] <= 8 and 1 <= c[2] <= 3


def cube_name(c: Cube) -> str:
    return f"{LEVELS[c[2] - 1]}{FILES[c[0] - 1]}{c[1]}"


def parse_cube(text: str) -> Cube:
    level, file, rank = text[:-2], text[-2], text[-1]
    return (FILES.index(file) + 1, int(rank), LEVELS.index(level) + 1)


@dataclass
class RefPosition:
    men: dict[Cube, Man]
    side: str
    castling: str
    ep: Cube | None
    unmoved_pawns: set[Cube] = field(default_factory=set)


def parse(fen: str) -> RefPosition:
    placement, side, castling, ep, double, *_ = fen.split()
    men: dict[Cube, Man] = {}
    for z, level in enumerate(placement.split("|"), start=1):
        for i, rank in enumerate(level.split("/")):
            y = 8 - i
            x = 1
            for ch in rank:
                if ch.isdigit():
                    x += int(ch)
                else:
                    men[(x, y, z)] = ("w" if ch.isupper() else "b", ch.upper())
                    x += 1
    unmoved = set()
    for ch in "" if double == "-" else double:
        x = FILES.index(ch.upper()) + 1
        unmoved.add((x, 2, 1) if ch.isupper() else (x, 7, 3))
    return RefPosition(
        men, side, "" if castling == "-" else castling, None if ep == "-" else parse_cube(ep),
        unmoved,
    )  # fmt: skip


def forward(colour: str) -> int:
    return 1 if colour == "w" else -1


def reaches(pos: RefPosition, frm: Cube, man: Man, to: Cube, queen26: bool) -> bool:
    """Could `man` on `frm` capture a man standing on `to` (C3-5.0.5)?"""
    colour, kind = man
    dx, dy, dz = (to[0] - frm[0], to[1] - frm[1], to[2] - frm[2])
    if kind == "K":
        return max(abs(dx), abs(dy), abs(dz)) == 1
    if kind == "N":
        return sorted((abs(dx), abs(dy), abs(dz))) == [0, 1, 2]
    if kind == "P":
        return dy == forward(colour) and abs(dx) <= 1 and abs(dz) <= 1 and (dx, dz) != (0, 0)
    n = max(abs(dx), abs(dy), abs(dz))
    if n == 0 or any(v not in (-n, 0, n) for v in (dx, dy, dz)):
        return False
    unit = (dx // n, dy // n, dz // n)
    allowed = {
        "R": ROOK_DIRECTIONS,
        "B": BISHOP_DIRECTIONS,
        "Q": ALL_DIRECTIONS if queen26 else QUEEN18_DIRECTIONS,
    }[kind]
    if unit not in allowed:
        return False
    return all(
        (frm[0] + unit[0] * k, frm[1] + unit[1] * k, frm[2] + unit[2] * k) not in pos.men
        for k in range(1, n)
    )


def is_attacked(pos: RefPosition, target: Cube, by: str, queen26: bool) -> bool:
    return any(
        man[0] == by and reaches(pos, cube, man, target, queen26) for cube, man in pos.men.items()
    )


def pseudo_moves(pos: RefPosition, queen26: bool) -> list[RefMove]:
    moves: list[RefMove] = []
    me = pos.side
    for frm, (colour, kind) in list(pos.men.items()):
        if colour != me:
            continue
        if kind == "P":
            moves.extend(_pawn_moves(pos, frm, colour))
            continue
        for to in product(range(1, 9), range(1, 9), range(1, 4)):
            if to == frm:
                continue
            target = pos.men.get(to)
            if target is not None and target[0] == me:
                continue
            if reaches(pos, frm, (colour, kind), to, queen26):
                moves.append((frm, to, ""))
        if kind == "K":
            moves.extend(_castling(pos, frm, queen26))
    return moves


def _pawn_moves(pos: RefPosition, frm: Cube, colour: str) -> list[RefMove]:
    f = forward(colour)
    x, y, z = frm
    result: list[Cube] = []
    for to in [(x, y + f, z), (x, y, z + 1), (x, y, z - 1)]:  # C3-5.6.1
        if on_board(to) and to not in pos.men:
            result.append(to)
    if frm in pos.unmoved_pawns:  # C3-5.6.2
        dz = 1 if colour == "w" else -1
        for mid, to in [((x, y + f, z), (x, y + 2 * f, z)), ((x, y, z + dz), (x, y, z + 2 * dz))]:
            if on_board(to) and mid not in pos.men and to not in pos.men:
                result.append(to)
    for dx, dz in product((-1, 0, 1), repeat=2):  # C3-5.6.3
        to = (x + dx, y + f, z + dz)
        if (dx, dz) == (0, 0) or not on_board(to):
            continue
        target = pos.men.get(to)
        if (target is not None and target[0] != colour) or to == pos.ep:
            result.append(to)
    moves: list[RefMove] = []
    for to in result:
        if to[1] == (8 if colour == "w" else 1):  # C3-6.1
            moves.extend((frm, to, p) for p in "QRBN")
        else:
            moves.append((frm, to, ""))
    return moves


def _castling(pos: RefPosition, frm: Cube, queen26: bool) -> list[RefMove]:
    me = pos.side
    enemy = "b" if me == "w" else "w"
    y, z = (1, 1) if me == "w" else (8, 3)
    moves: list[RefMove] = []
    if frm != (5, y, z) or is_attacked(pos, frm, enemy, queen26):  # C3-6.3.1, C3-6.3.3 c
        return moves
    for letter, rook_x, between, cross, dest in (
        ("K", 8, (6, 7), 6, 7),
        ("Q", 1, (2, 3, 4), 4, 3),
    ):
        right = letter if me == "w" else letter.lower()
        if right not in pos.castling or pos.men.get((rook_x, y, z)) != (me, "R"):
            continue
        if any((bx, y, z) in pos.men for bx in between):
            continue
        if is_attacked(pos, (cross, y, z), enemy, queen26):
            continue
        if is_attacked(pos, (dest, y, z), enemy, queen26):
            continue
        moves.append((frm, (dest, y, z), ""))
    return moves


def apply(pos: RefPosition, move: RefMove) -> RefPosition:
    frm, to, promo = move
    men = dict(pos.men)
    colour, kind = men.pop(frm)
    ep = None
    if kind == "P":
        if to == pos.ep:  # C3-6.2.2
            men.pop((to[0], to[1] - forward(colour), to[2]))
        if abs(to[1] - frm[1]) == 2:  # C3-6.2.1, only the forward double step
            ep = (frm[0], (frm[1] + to[1]) // 2, frm[2])
        if promo:
            kind = promo
    if kind == "K" and abs(to[0] - frm[0]) == 2:  # C3-6.3.2
        y, z = frm[1], frm[2]
        rook_from, rook_to = ((8, y, z), (6, y, z)) if to[0] == 7 else ((1, y, z), (4, y, z))
        men[rook_to] = men.pop(rook_from)
    men[to] = (colour, kind)
    castling = pos.castling
    for cube, letters in (
        ((5, 1, 1), "KQ"), ((8, 1, 1), "K"), ((1, 1, 1), "Q"),
        ((5, 8, 3), "kq"), ((8, 8, 3), "k"), ((1, 8, 3), "q"),
    ):  # fmt: skip
        if cube in (frm, to):
            castling = "".join(c for c in castling if c not in letters)
    unmoved = {c for c in pos.unmoved_pawns if c not in (frm, to)}
    return RefPosition(men, "b" if pos.side == "w" else "w", castling, ep, unmoved)


def legal_moves(pos: RefPosition, queen26: bool = True) -> list[RefMove]:
    result = []
    for move in pseudo_moves(pos, queen26):
        after = apply(pos, move)
        king = next(c for c, m in after.men.items() if m == (pos.side, "K"))
        if not is_attacked(after, king, after.side, queen26):
            result.append(move)
    return result


def perft(pos: RefPosition, depth: int, queen26: bool = True) -> int:
    if depth == 0:
        return 1
    moves = legal_moves(pos, queen26)
    if depth == 1:
        return len(moves)
    return sum(perft(apply(pos, m), depth - 1, queen26) for m in moves)


def move_names(pos: RefPosition, queen26: bool = True) -> set[str]:
    """Legal moves as `FROM-TO[=P]` strings (no capture marks)."""
    return {
        f"{cube_name(f)}-{cube_name(t)}" + (f"={p}" if p else "")
        for f, t, p in legal_moves(pos, queen26)
    }
