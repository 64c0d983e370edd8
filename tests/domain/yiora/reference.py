"""A deliberately naive Yiora move generator, written from the ruling's clause texts only.

It shares no code with domain/yiora: a square is a (ring, column) pair with ring 1 (Y) … 5 (A),
the board is a dict, every man's moves are walked step by step as YI-5 words them, and a move
is legal when, made on a copy of the board, no enemy man could end a move on the mover's
Overlord (YI-4.2, YI-6.1), which is asked by generating every enemy move forwards (not by
looking outwards from the Overlord, as the engine does). It is slow on purpose; it exists to
cross-check the engine's move lists and perft counts.
"""

from dataclasses import dataclass, field

Sq = tuple[int, int]  # (ring 1..5, column 1..36)
Man = tuple[int, str]  # (side 0/1, kind "O" / "M" / "P")
RING_NAMES = "YIORA"


def col(c: int, k: int) -> int:
    """c ⊕ k (YI-1.2)."""
    return (c - 1 + k) % 36 + 1


def name(sq: Sq) -> str:
    return f"{RING_NAMES[sq[0] - 1]}{sq[1]}"


def parse_sq(text: str) -> Sq:
    text = text.replace("-", "")
    return (RING_NAMES.index(text[0]) + 1, int(text[1:]))


@dataclass
class RefPosition:
    men: dict[Sq, Man]
    side: int
    halfmove: int = 0
    history: list[tuple[int, frozenset[tuple[Sq, Man]]]] = field(default_factory=list)

    def key(self) -> tuple[int, frozenset[tuple[Sq, Man]]]:
        return (self.side, frozenset(self.men.items()))


def parse(text: str) -> RefPosition:
    """A YI-1.8 position (either game's letters)."""
    side_text, first, second, half, _full = text.split()
    men: dict[Sq, Man] = {}
    for side, part in enumerate((first, second)):
        for token in part.split(":", 1)[1].split(","):
            men[parse_sq(token[1:])] = (side, token[0])
    pos = RefPosition(men, 0 if side_text.lower() in "wg" else 1, int(half))
    pos.history = [pos.key()]
    return pos


def destinations(men: dict[Sq, Man], sq: Sq) -> set[Sq]:
    """Where the man on `sq` could end a move (YI-5.0), its Overlord's safety ignored."""
    side, kind = men[sq]
    r, c = sq
    found: set[Sq] = set()

    def lands(t: Sq) -> bool:
        """Add `t` if the man may end there; whether the move may go on past it."""
        if t not in men:
            found.add(t)
            return True
        if men[t][0] != side:
            found.add(t)  # a capture, on the last square only
        return False

    if kind in "OM":  # YI-5.1, YI-5.2.3: one diagonal step
        for dr in (1, -1):
            for dc in (1, -1):
                if 1 <= r + dr <= 5:
                    lands((r + dr, col(c, dc)))
    if kind == "M":
        for way in (1, -1):  # YI-5.2.1: 5 squares of the colour along the ring
            for k in range(1, 6):
                if not lands((r, col(c, 2 * k * way))):
                    break
        for way in (1, -1):  # YI-5.2.2: 2 squares of the colour along the column
            for k in (1, 2):
                ring = r + 2 * k * way
                if not 1 <= ring <= 5 or not lands((ring, c)):
                    break
    if kind == "P":  # YI-5.3
        for dr0 in (1, -1):
            for dc in (1, -1):
                if not 1 <= r + dr0 <= 5:
                    continue  # YI-R11
                dr, here = dr0, (r, c)
                for _step in range(5):
                    if not 1 <= here[0] + dr <= 5:
                        dr = -dr  # the reflection (YI-5.3.2)
                    here = (here[0] + dr, col(here[1], dc))
                    if not lands(here):
                        break
    return found


def threatened(men: dict[Sq, Man], sq: Sq, by: int) -> bool:
    return any(m[0] == by and sq in destinations(men, s) for s, m in men.items())


def overlord(men: dict[Sq, Man], side: int) -> Sq:
    return next(s for s, m in men.items() if m == (side, "O"))


def legal_moves(pos: RefPosition) -> list[tuple[Sq, Sq]]:
    moves = []
    for sq, m in list(pos.men.items()):
        if m[0] != pos.side:
            continue
        for to in destinations(pos.men, sq):
            after = dict(pos.men)
            after[to] = after.pop(sq)
            if not threatened(after, overlord(after, pos.side), 1 - pos.side):
                moves.append((sq, to))
    return moves


def move_names(pos: RefPosition) -> set[str]:
    return {f"{name(a)}-{name(b)}" for a, b in legal_moves(pos)}


def play(pos: RefPosition, move: tuple[Sq, Sq]) -> RefPosition:
    fr, to = move
    capture = to in pos.men
    men = dict(pos.men)
    men[to] = men.pop(fr)
    nxt = RefPosition(men, 1 - pos.side, 0 if capture else pos.halfmove + 1)
    nxt.history = [nxt.key()] if capture else [*pos.history, nxt.key()]
    return nxt


@dataclass
class RefRules:
    overlord_only: bool = False
    repetition_count: int = 3
    no_capture_limit: int = 50  # 0: off


def has_ended(pos: RefPosition, rules: RefRules) -> bool:
    """YI-4.4, after a move: checkmate, stalemate, bare Overlords, repetition, no capture."""
    moves = legal_moves(pos)
    if not moves:
        return True  # checkmate (threatened) or stalemate (not threatened)
    mine = overlord(pos.men, pos.side)
    if rules.overlord_only and threatened(pos.men, mine, 1 - pos.side):  # YI-6.3.2
        return not any(fr == mine for fr, _ in moves) or _draws(pos, rules)
    return _draws(pos, rules)


def _draws(pos: RefPosition, rules: RefRules) -> bool:
    """YI-7.3 to YI-7.5."""
    if len(pos.men) == 2:
        return True
    if pos.history.count(pos.key()) >= rules.repetition_count:
        return True
    return bool(rules.no_capture_limit) and pos.halfmove >= 2 * rules.no_capture_limit


def perft(pos: RefPosition, depth: int, rules: RefRules, root: bool = True) -> int:
    if depth == 0:
        return 1
    if not root and has_ended(pos, rules):
        return 0
    return sum(perft(play(pos, m), depth - 1, rules, False) for m in legal_moves(pos))


def match_perft(
    games: list[RefPosition | None], depth: int, rules: RefRules, lockstep: bool
) -> int:
    """Perft of a Secondary variation (YI-8): a node's moves are those of every unfinished game
    (in lockstep, of the game due: bsq when the same side is to move in both, else wsq); a
    game that has ended (None) has none."""
    if depth == 0:
        return 1
    going = [g for g, pos in enumerate(games) if pos is not None]
    if lockstep and len(going) == 2:
        first, second = games
        assert first is not None
        assert second is not None
        going = [0] if first.side == second.side else [1]
    total = 0
    for g in going:
        pos = games[g]
        assert pos is not None
        for move in legal_moves(pos):
            nxt = play(pos, move)
            after = list(games)
            after[g] = None if depth > 1 and has_ended(nxt, rules) else nxt
            total += match_perft(after, depth - 1, rules, lockstep)
    return total


def parse_match(text: str) -> list[RefPosition | None]:
    """`bsq:<position> | wsq:<position>`."""
    return [parse(part.split(":", 1)[1]) for part in text.split("|")]
