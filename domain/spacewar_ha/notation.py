"""The action notation of HA-1.4, parsed and printed.

    move       Rd1-d3            crash      Rd1xd3
    fire       Bf1*b5(3)         (3 Ammo spent)
    force      Qd1>d5<           (pulled one square closer)   Qd1>d5>  (pushed one farther)
    immobilise Qd1#e2            release    Qd1~
    repair     Ke1+d2(h4)        supply     Ke1+d2(a3)        self-repair Ke1+e1(h2) (HA-R25)
    pass       pass

plus the platform's `resign`, `offer-draw`, `accept-draw`, `decline-draw` (HA-8.3). The letter
is the acting piece's kind, upper case for both players.
"""

import re
from typing import Final, NamedTuple

from domain.spacewar_ha.board import Board

MOVE: Final = "move"
CRASH: Final = "crash"
FIRE: Final = "fire"
FORCE: Final = "force"
IMMOBILISE: Final = "immobilise"
RELEASE: Final = "release"
REPAIR: Final = "repair"
SUPPLY: Final = "supply"
PASS: Final = "pass"
VERBS: Final = ("resign", "offer-draw", "accept-draw", "decline-draw")
PULL: Final = "<"
PUSH: Final = ">"


class Action(NamedTuple):
    """One action: its kind, the acting piece's letter and square, the other square (the
    destination or target), an amount (fire, repair, supply) and a force's direction."""

    kind: str
    letter: str = ""
    src: int = -1
    dst: int = -1
    amount: int = 0
    mode: str = ""


class Malformed(NamedTuple):
    reason: str


_PIECE = r"(?P<letter>[QRNBK])(?P<src>[a-p][0-9]{1,2})"
_DST = r"(?P<dst>[a-p][0-9]{1,2})"
_PATTERNS: Final = (
    (re.compile(rf"{_PIECE}(?P<sign>[-x]){_DST}"), MOVE),
    (re.compile(rf"{_PIECE}\*{_DST}\((?P<amount>[0-9]{{1,6}})\)"), FIRE),
    (re.compile(rf"{_PIECE}>{_DST}(?P<mode>[<>])"), FORCE),
    (re.compile(rf"{_PIECE}#{_DST}"), IMMOBILISE),
    (re.compile(rf"{_PIECE}~"), RELEASE),
    (re.compile(rf"{_PIECE}\+{_DST}\((?P<pool>[ha])(?P<amount>[0-9]{{1,6}})\)"), REPAIR),
)


def parse(text: str, b: Board) -> Action | Malformed:
    """The action `text` writes (HA-1.4), or why it is not one."""
    text = text.strip()
    if text == PASS or text in VERBS:
        return Action(text)
    for pattern, kind in _PATTERNS:
        match = pattern.fullmatch(text)
        if match is None:
            continue
        found = match.groupdict()
        squares = {}
        for key in ("src", "dst"):
            if found.get(key) is None:
                continue
            square = b.parse(found[key])
            if square is None:
                return Malformed(f"{found[key]} is not a square of the {b.width}x{b.height} board")
            squares[key] = square
        verb = kind
        if kind == MOVE and found["sign"] == "x":
            verb = CRASH
        elif kind == REPAIR and found["pool"] == "a":
            verb = SUPPLY
        amount = int(found["amount"]) if found.get("amount") else 0
        return Action(verb, found["letter"], squares["src"], squares.get("dst", -1), amount,
                      found.get("mode") or "")  # fmt: skip
    return Malformed(f"{text!r} is not an action: write e.g. Rd1-d3, Rd1xd3, Bf1*b5(3), "
                     "Qd1>d5<, Qd1#e2, Qd1~, Ke1+d2(h4), Ke1+d2(a3) or pass (HA-1.4)")  # fmt: skip


def format_action(action: Action, b: Board) -> str:
    kind = action.kind
    if kind == PASS or kind in VERBS:
        return kind
    head = f"{action.letter}{b.name(action.src)}"
    if kind == RELEASE:
        return f"{head}~"
    dst = b.name(action.dst)
    if kind == MOVE:
        return f"{head}-{dst}"
    if kind == CRASH:
        return f"{head}x{dst}"
    if kind == FIRE:
        return f"{head}*{dst}({action.amount})"
    if kind == FORCE:
        return f"{head}>{dst}{action.mode}"
    if kind == IMMOBILISE:
        return f"{head}#{dst}"
    return f"{head}+{dst}({'h' if kind == REPAIR else 'a'}{action.amount})"
