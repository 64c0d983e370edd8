"""One game's immutable position (what YI-1.8 writes, plus the repetition record), the setups
(YI-3), the end of a game (YI-4.4) and perft.

`play` is the single place a move changes a position; decide, evolve and perft all use it (perft
through the same steps, inlined). A Secondary variation has two positions, one per game
(YI-8.1): they share nothing, so the games cannot interact (YI-8.2).
"""

import re
from typing import Final, NamedTuple

from domain.core.outcome import Outcome, draw, win
from domain.yiora.geometry import (
    BLACK,
    COLOUR,
    COLUMNS,
    KIND_LETTERS,
    MAGE,
    OVERLORD,
    PAWN,
    RING_LETTERS,
    SQUARE_COUNT,
    SQUARE_PATTERN,
    WHITE,
    column_of,
    kind_of,
    man,
    parse_square,
    ring_of,
    shift,
    side_of,
    square_name,
)
from domain.yiora.moves import (
    MoveTuple,
    attacked,
    legal_moves,
    make,
    overlord_can_escape,
    overlord_square,
)

GAME_IDS: Final = ("bsq", "wsq")  # by colour: the black-square and the white-square game
SIDE_NAMES: Final = (("White", "Black"), ("Gold", "Silver"))  # by colour, then side (YI-8.1)
SIDE_LETTERS: Final = (("W", "B"), ("G", "S"))  # in the men fields of YI-1.8
HOME_COLUMNS: Final = ((1, 19), (2, 20))  # the Overlords' start columns, by colour, side
COUNTS: Final = {OVERLORD: 1, MAGE: 4, PAWN: 4}  # each side's men (YI-2.1)

# YI-3.2: White's default setup, written as YI-1.8 writes the men.
DEFAULT_WHITE: Final = ("OA1", "MA35", "MA3", "MR36", "MR2", "PO33", "PO35", "PO3", "PO5")
DERIVED: Final = "derived"  # setup_black: White's setup rotated by 18 columns (YI-3.3)


class Position(NamedTuple):
    """One game's position: the YI-1.8 fields, the Overlords' squares and the repetition
    record. `history` holds the repetition keys (side to move and men, YI-7.4) of the positions
    since the last capture, oldest first, this one last: a capture can never be undone, so no
    earlier position can recur."""

    board: bytes
    turn: int  # side to move: 0 White (Gold), 1 Black (Silver)
    halfmove: int  # plies since the last capture
    fullmove: int  # starts at 1, increased after each move of the second player (YI-1.8)
    overlords: tuple[int, int]
    check: bool  # the side to move's Overlord is threatened (YI-6.1)
    history: tuple[bytes, ...]
    colour: int  # BLACK: game bsq (and Primary Basic), WHITE: game wsq
    first: int  # the side that moves first (`first_player`, YI-3.5)

    @property
    def key(self) -> bytes:
        return self.history[-1]


def repetition_key(board: bytes, turn: int) -> bytes:
    """YI-7.4: the same men on the same squares and the same side to move."""
    return bytes((turn,)) + board


def play(pos: Position, move: MoveTuple, check: bool | None = None) -> Position:
    """The position after the (legal) `move`; `check` may be given when already known."""
    fr, to = move
    b = pos.board
    side = pos.turn
    capture = b[to] != 0
    board = make(b, move)
    white, black = pos.overlords
    if fr == white:
        white = to
    elif fr == black:
        black = to
    overlords = (white, black)
    turn = side ^ 1
    if check is None:
        check = attacked(board, overlords[turn], side)
    key = repetition_key(board, turn)
    history = (key,) if capture else (*pos.history, key)
    return Position(board, turn, 0 if capture else pos.halfmove + 1,
                    pos.fullmove + (side != pos.first), overlords, check, history, pos.colour,
                    pos.first)  # fmt: skip


def generate_legal_moves(pos: Position) -> list[MoveTuple]:
    return legal_moves(pos.board, pos.turn, pos.overlords[pos.turn], pos.check)


# -- the end of a game (YI-4.4) ---------------------------------------------------------------


class EndRules(NamedTuple):
    """The parameters of the end of a game (YI-0.2)."""

    overlord_only: bool = False  # mate_rule (YI-6.3)
    stalemate_loss: bool = False  # stalemate_result (YI-6.4)
    repetition_count: int = 3  # YI-7.4
    no_capture_plies: int = 100  # 2 × no_capture_limit; 0: off (YI-7.5)


def _ending(rules: EndRules, b: bytes, side: int, overlord: int, check: bool,
            history: tuple[bytes, ...], halfmove: int, has_move: bool
            ) -> Outcome | None:  # fmt: skip
    """The first end of YI-4.4 that holds for `side` to move, its score per side."""
    mover = side ^ 1
    if check and not has_move:  # YI-6.3.1, YI-7.1
        return win(mover, "checkmate")
    if check and rules.overlord_only and not overlord_can_escape(b, side, overlord):  # YI-6.3.2
        return win(mover, "checkmate")
    if not has_move:  # YI-6.4, YI-7.2
        return win(mover, "stalemate") if rules.stalemate_loss else draw("stalemate")
    if SQUARE_COUNT - b.count(0) == 2:  # YI-7.3: only the two Overlords are left
        return draw("insufficient_material")
    count = rules.repetition_count
    if len(history) >= count and history.count(history[-1]) >= count:  # YI-7.4
        return draw("repetition")
    if rules.no_capture_plies and halfmove >= rules.no_capture_plies:  # YI-7.5
        return draw("no_capture")
    return None


def game_end(rules: EndRules, pos: Position) -> Outcome | None:
    """How the game ends in `pos`, evaluated after the move that produced it (YI-4.4), with a
    score per side (0 White/Gold, 1 Black/Silver); None while it goes on."""
    side = pos.turn
    has_move = bool(generate_legal_moves(pos))
    return _ending(rules, pos.board, side, pos.overlords[side], pos.check, pos.history,
                   pos.halfmove, has_move)  # fmt: skip


# -- perft ------------------------------------------------------------------------------------


def perft(pos: Position, depth: int, rules: EndRules) -> int:
    """The number of legal move sequences of length `depth` from `pos`. A position where the
    game has ended (checkmate, stalemate, an automatic draw of YI-4.4) has no moves after it;
    the root is a game in progress."""
    if depth <= 0:
        return 1
    return _perft(pos.board, pos.turn, pos.overlords, pos.check, pos.history, pos.halfmove,
                  depth, rules, True)  # fmt: skip


def _perft(b: bytes, side: int, overlords: tuple[int, int], check: bool,
           history: tuple[bytes, ...], halfmove: int, depth: int, rules: EndRules,
           root: bool) -> int:  # fmt: skip
    moves = legal_moves(b, side, overlords[side], check)
    if not root and _ending(rules, b, side, overlords[side], check, history, halfmove,
                            bool(moves)) is not None:  # fmt: skip
        return 0
    if depth == 1:
        return len(moves)
    total = 0
    enemy = side ^ 1
    for move in moves:
        fr, to = move
        capture = b[to] != 0
        a = make(b, move)
        ov = overlords
        if fr == overlords[side]:
            ov = (to, overlords[1]) if side == 0 else (overlords[0], to)
        key = repetition_key(a, enemy)
        total += _perft(a, enemy, ov, attacked(a, ov[enemy], side),
                        (key,) if capture else (*history, key), 0 if capture else halfmove + 1,
                        depth - 1, rules, False)  # fmt: skip
    return total


# -- setups (YI-3) ---------------------------------------------------------------------------

_MAN_RE: Final = re.compile(rf"^([OMP]){SQUARE_PATTERN}$")


def parse_man(text: str) -> tuple[int, int] | None:
    """(kind, square) of a man written `PO33` (or `PO-33`), or None."""
    m = _MAN_RE.match(text.strip().upper())
    if not m:
        return None
    sq = parse_square(m.group(2) + m.group(3))
    assert sq is not None
    return KIND_LETTERS.index(m.group(1)), sq


def man_text(kind: int, sq: int) -> str:
    return KIND_LETTERS[kind] + square_name(sq)


def derive_black(white: tuple[str, ...]) -> tuple[str, ...]:
    """YI-3.3: White's setup rotated by 18 columns (c ↦ c ⊕ 18)."""
    men = [parse_man(t) for t in white]
    return tuple(man_text(kind, shift(sq, COLUMNS // 2)) for kind, sq in filter(None, men))


def setup_problem(white: tuple[str, ...], black: tuple[str, ...]) -> str | None:
    """Why these setups are not valid (YI-3.4), or None."""
    squares: set[int] = set()
    for side, (tokens, home) in enumerate(((white, "A-1"), (black, "A-19"))):
        name = SIDE_NAMES[BLACK][side]
        counts = dict.fromkeys(COUNTS, 0)
        for token in tokens:
            parsed = parse_man(token)
            if parsed is None:
                return f"{token!r} is not a man: write e.g. PO33 (YI-1.8)"
            kind, sq = parsed
            if COLOUR[sq] != BLACK:
                return f"{name}'s {token} is not on a black square"
            if sq in squares:
                return f"two men on {square_name(sq)}"
            squares.add(sq)
            counts[kind] += 1
            if kind == OVERLORD and square_name(sq) != home.replace("-", ""):
                return f"the {name} Overlord starts on {home}"
        if counts != COUNTS:
            have = ", ".join(f"{n} {KIND_LETTERS[k]}" for k, n in counts.items())
            return f"{name} needs 1 Overlord, 4 Mages and 4 Pawns, not {have}"
    board = setup_board(white, black, BLACK)
    for side in (0, 1):
        if attacked(board, overlord_square(board, side), side ^ 1):
            return f"the {SIDE_NAMES[BLACK][side]} Overlord would start threatened (YI-6.1)"
    return None


def setup_board(white: tuple[str, ...], black: tuple[str, ...], colour: int) -> bytes:
    """The board of valid setups, in game bsq or (shifted by one column, YI-8.1) game wsq."""
    board = bytearray(SQUARE_COUNT)
    for side, tokens in enumerate((white, black)):
        for token in tokens:
            parsed = parse_man(token)
            assert parsed is not None
            kind, sq = parsed
            board[shift(sq, colour)] = man(side, kind)
    return bytes(board)


def new_position(board: bytes, turn: int, colour: int, first: int, halfmove: int = 0,
                 fullmove: int = 1) -> Position:  # fmt: skip
    overlords = (overlord_square(board, 0), overlord_square(board, 1))
    check = attacked(board, overlords[turn], turn ^ 1)
    return Position(board, turn, halfmove, fullmove, overlords, check,
                    (repetition_key(board, turn),), colour, first)  # fmt: skip


def start_position(white: tuple[str, ...], black: tuple[str, ...], colour: int,
                   first: int) -> Position:  # fmt: skip
    """The starting position of a game (YI-3, YI-8.1): the side `first` to move."""
    return new_position(setup_board(white, black, colour), first, colour, first)


# -- position notation (YI-1.8) ---------------------------------------------------------------


def _order(colour: int, side: int, code_sq: tuple[int, int]) -> tuple[int, int, int]:
    """The order YI-1.8 writes the men in: Overlord, Mages, Pawns; outer rings first; along a
    ring by column, counted from the side's home column from −17 to +18."""
    kind, sq = code_sq
    home = HOME_COLUMNS[colour][side]
    return kind, -ring_of(sq), (column_of(sq) - home + 17) % COLUMNS - 17


def format_position(pos: Position) -> str:
    """`w W:OA1,… B:OA19,… 0 1` (YI-1.8); `g G:… S:…` in the white-square game."""
    fields = [SIDE_LETTERS[pos.colour][pos.turn].lower()]
    for side in (0, 1):
        men = [(kind_of(p), sq) for sq, p in enumerate(pos.board) if p and side_of(p) == side]
        men.sort(key=lambda m: _order(pos.colour, side, m))
        letters = SIDE_LETTERS[pos.colour][side]
        fields.append(f"{letters}:" + ",".join(man_text(kind, sq) for kind, sq in men))
    fields += [str(pos.halfmove), str(pos.fullmove)]
    return " ".join(fields)


def parse_position(text: str, colour: int, first: int) -> Position:
    """Read a YI-1.8 position of the game of `colour`; raises ValueError with the reason."""
    fields = text.split()
    if len(fields) != 5:
        raise ValueError(f"a position has 5 fields (side, men, men, halfmove, fullmove), "
                         f"got {len(fields)}")  # fmt: skip
    side_text, *men_fields, half, full = fields
    letters = SIDE_LETTERS[colour]
    game = GAME_IDS[colour]
    if side_text.upper() not in letters:
        raise ValueError(f"the side to move is {' or '.join(x.lower() for x in letters)} "
                         f"in game {game}")  # fmt: skip
    turn = letters.index(side_text.upper())
    board = bytearray(SQUARE_COUNT)
    for side, field in enumerate(men_fields):
        prefix = f"{letters[side]}:"
        if not field.upper().startswith(prefix):
            raise ValueError(f"field {side + 2} must start with {prefix}")
        counts = dict.fromkeys(COUNTS, 0)
        for token in field[len(prefix) :].split(","):
            parsed = parse_man(token)
            if parsed is None:
                raise ValueError(f"{token!r} is not a man: a letter O, M or P and a square, "
                                 "e.g. PO33")  # fmt: skip
            kind, sq = parsed
            if COLOUR[sq] != colour:
                raise ValueError(f"{square_name(sq)} is not a square of game {game} "
                                 f"({('black', 'white')[colour]} squares only)")  # fmt: skip
            if board[sq]:
                raise ValueError(f"two men on {square_name(sq)}")
            board[sq] = man(side, kind)
            counts[kind] += 1
        name = SIDE_NAMES[colour][side]
        if counts[OVERLORD] != 1:
            raise ValueError(f"{name} must have exactly one Overlord")
        if counts[MAGE] > COUNTS[MAGE] or counts[PAWN] > COUNTS[PAWN]:
            raise ValueError(f"{name} has more than 4 Mages or 4 Pawns (YI-2.1)")
    if not (half.isascii() and half.isdigit() and full.isascii() and full.isdigit()):
        raise ValueError("halfmove and fullmove are whole numbers")
    halfmove, fullmove = int(half), int(full)
    if fullmove < 1:
        raise ValueError("the fullmove number starts at 1")
    b = bytes(board)
    pos = new_position(b, turn, colour, first, halfmove, fullmove)
    if attacked(b, pos.overlords[turn ^ 1], turn):
        raise ValueError(f"the {SIDE_NAMES[colour][turn ^ 1]} Overlord is threatened but it is "
                         f"{SIDE_NAMES[colour][turn]}'s move (YI-6.1)")  # fmt: skip
    return pos


def format_match(positions: tuple[Position, ...]) -> str:
    """One game's position, or both games' as `bsq:<position> | wsq:<position>`."""
    if len(positions) == 1:
        return format_position(positions[0])
    return " | ".join(f"{GAME_IDS[p.colour]}:{format_position(p)}" for p in positions)


def parse_match(text: str, games: int, first: int) -> tuple[Position, ...]:
    """Read a position of `games` games (1: Primary Basic, 2: a Secondary variation); raises
    ValueError."""
    if games == 1:
        body = text.strip()
        if body.lower().startswith("bsq:"):
            body = body[4:]
        return (parse_position(body, BLACK, first),)
    parts = text.split("|")
    if len(parts) != 2:
        raise ValueError("a Secondary position is bsq:<position> | wsq:<position>")
    positions = []
    for colour, part in enumerate(parts):
        game, colon, body = part.strip().partition(":")
        if not colon or game.lower() != GAME_IDS[colour]:
            raise ValueError(f"part {colour + 1} must start with {GAME_IDS[colour]}:")
        try:
            positions.append(parse_position(body, colour, first))
        except ValueError as exc:
            raise ValueError(f"game {GAME_IDS[colour]}: {exc}") from None
    return tuple(positions)


__all__ = [
    "BLACK",
    "DEFAULT_WHITE",
    "DERIVED",
    "GAME_IDS",
    "RING_LETTERS",
    "SIDE_NAMES",
    "WHITE",
    "EndRules",
    "Position",
    "derive_black",
    "format_match",
    "format_position",
    "game_end",
    "generate_legal_moves",
    "new_position",
    "parse_match",
    "parse_position",
    "perft",
    "play",
    "setup_problem",
    "start_position",
]
