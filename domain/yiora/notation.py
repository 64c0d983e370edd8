"""Action notation (YI-1.7): reading the accepted forms, writing the canonical one.

A move is `<from>-<to>` or `<from>x<to>` with squares in compact form (`O5-R10`, `A9xA19`);
`-` and `x` are both accepted whatever the move does, and squares may be written `A-19` or in
lower case. In a Secondary variation a move is prefixed with its game (`bsq:O5-R10`,
`wsq:O6-R11`); unprefixed, it belongs to the game of its squares' colour. The other actions are
`resign`, `offer-draw`, `accept-draw` and `decline-draw`, the draw actions prefixed with their
game in a Secondary variation (`bsq:offer-draw`, YI-8.4.3).
"""

import re
from enum import StrEnum
from functools import lru_cache
from typing import Final, NamedTuple

from domain.yiora.geometry import NAMES, SQUARE_PATTERN, parse_square
from domain.yiora.position import GAME_IDS


class Move(NamedTuple):
    """A move in `game` (0 bsq, 1 wsq; Primary Basic is game bsq) from one square to another
    (-1 while a parsed move names no game)."""

    game: int
    from_square: int
    to_square: int


class Verb(StrEnum):
    """The non-move actions (YI-1.7)."""

    RESIGN = "resign"
    OFFER_DRAW = "offer-draw"
    ACCEPT_DRAW = "accept-draw"
    DECLINE_DRAW = "decline-draw"


class Command(NamedTuple):
    """A non-move action; `game` is the game of a draw action (-1: not named)."""

    verb: Verb
    game: int = -1


Action = Move | Command


class Malformed(NamedTuple):
    """Why a text is not an action, and the clause it breaks."""

    reason: str
    clause: str = "YI-1.7"


_PREFIX: Final = r"(?:(bsq|wsq)\s*:\s*)?"
_MOVE_RE: Final = re.compile(
    rf"^{_PREFIX}{SQUARE_PATTERN}\s*([-x])\s*{SQUARE_PATTERN}$", re.IGNORECASE
)
_WORD_RE: Final = re.compile(rf"^{_PREFIX}([a-z-]+)$", re.IGNORECASE)
HELP: Final = (
    "write a move as <from>-<to> or <from>x<to> with squares like O5 or A-19 (e.g. O5-R10), "
    "or resign, offer-draw, accept-draw, decline-draw"
)


@lru_cache(maxsize=8192)
def parse(text: str) -> Action | Malformed:
    """The action written `text`, or why it is not one. The game of a move or draw action is
    its prefix's, or -1 when it has none (the caller resolves it, `rules.parse_action`)."""
    text = text.strip()
    m = _MOVE_RE.match(text)
    if m:
        prefix, r1, c1, _, r2, c2 = m.groups()
        fr = parse_square(r1 + c1)
        to = parse_square(r2 + c2)
        assert fr is not None
        assert to is not None
        if fr == to:
            return Malformed("a move needs two different squares")
        return Move(GAME_IDS.index(prefix.lower()) if prefix else -1, fr, to)
    w = _WORD_RE.match(text)
    if w and w.group(2).lower() in Verb._value2member_map_:
        prefix, word = w.groups()
        verb = Verb(word.lower())
        if prefix and verb is Verb.RESIGN:
            return Malformed("resign names no game: it resigns every unfinished game of yours",
                             "YI-8.4.3")  # fmt: skip
        return Command(verb, GAME_IDS.index(prefix.lower()) if prefix else -1)
    return Malformed(f"{text!r} is not an action: {HELP}")


def format_move(board: bytes, move: Move, prefixed: bool) -> str:
    """Canonical: compact squares, `x` for a capture, the game prefix in a Secondary variation
    (`prefixed`)."""
    fr, to = move.from_square, move.to_square
    text = f"{NAMES[fr]}{'x' if board[to] else '-'}{NAMES[to]}"
    return f"{GAME_IDS[move.game]}:{text}" if prefixed else text


def format_command(command: Command, prefixed: bool) -> str:
    if prefixed and command.game >= 0:
        return f"{GAME_IDS[command.game]}:{command.verb.value}"
    return command.verb.value


@lru_cache(maxsize=65536)
def parse_stored(text: str) -> tuple[int, int]:
    """A stored canonical move (unchecked; cached for evolve): (from, to)."""
    move = parse(text)
    if not isinstance(move, Move):
        raise ValueError(f"not a stored move: {text!r}")
    return move.from_square, move.to_square
