"""Move notation (C3-1.7): parsing the accepted forms and writing the canonical one."""

import re
from functools import lru_cache
from typing import Final

from domain.chess3d.geometry import (
    EMPTY,
    KIND_LETTERS,
    NAMES,
    PAWN,
    SQUARE_BY_NAME,
    square,
)
from domain.chess3d.movegen import MoveTuple

_MOVE_RE: Final = re.compile(
    r"^(i{1,3}[a-h][1-8])\s*[-x:]?\s*(i{1,3}[a-h][1-8])"
    r"(?:\s*=?\s*([a-z]))?(?:\s*e\.?\s*p\.?)?\s*[+#]*$",
    re.IGNORECASE,
)
_CASTLE_RE: Final = re.compile(r"^([o0])-?\1(-?\1)?[+#]*$", re.IGNORECASE)
_CASTLE_FIRST: Final = frozenset("oO0")  # the only first characters _CASTLE_RE accepts
PROMOTION_LETTERS: Final = "NBRQ"


def parse_move(text: str, side: int) -> MoveTuple | str:
    """The move written `text` for `side`, or the reason it is malformed."""
    text = text.strip()
    castle = _CASTLE_RE.match(text) if text[:1] in _CASTLE_FIRST else None
    if castle:
        y, z = (0, 0) if side == 0 else (7, 2)
        return (square(4, y, z), square(2 if castle.group(2) else 6, y, z), 0)
    m = _MOVE_RE.match(text)
    if not m:
        return (
            f"{text!r} is not a move: write <from>-<to> with cubes like IE2 or IIIA8, "
            "e.g. IE2-IE4, IIE7-IIE8=Q, or O-O / O-O-O"
        )
    from_name, to_name, promotion = m.groups()
    fr, to = SQUARE_BY_NAME[from_name.upper()], SQUARE_BY_NAME[to_name.upper()]
    promo = 0
    if promotion:
        letter = promotion.upper()
        if letter not in PROMOTION_LETTERS:
            return f"promotion piece must be Q, R, B or N, not {letter!r}"
        promo = KIND_LETTERS.index(letter)
    if fr == to:
        return "a move needs two different cubes"
    return (fr, to, promo)


@lru_cache(maxsize=65536)
def parse_canonical(text: str) -> MoveTuple:
    """Parse a stored canonical move (unchecked; cached for evolve)."""
    move = parse_move(text, 0)
    if isinstance(move, str):
        raise ValueError(move)
    return move


def format_move(board: bytes, move: MoveTuple, ep: int) -> str:
    """Canonical notation: `x` for captures incl. en passant, `=Q` for promotions, castling as
    the King's two-cube move."""
    fr, to, promo = move
    capture = board[to] != EMPTY or (to == ep and ep and board[fr] & 7 == PAWN)
    text = f"{NAMES[fr]}{'x' if capture else '-'}{NAMES[to]}"
    return f"{text}={KIND_LETTERS[promo]}" if promo else text
