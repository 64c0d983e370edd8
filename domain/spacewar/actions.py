"""The actions of SW-1.5 / SW-4.7 as data, parsed from and formatted to the action notation."""

import re
from typing import Final, NamedTuple

from domain.spacewar.board import NAMES, parse_square, sort_key
from domain.spacewar.pieces import SHIPS, Piece


class MoveShip(NamedTuple):
    """`Rh2-h5`, `Kb2-c3-d3`, `Rh2xh5`, `Kb2-c3xd4=e5`, `Rh2-h5;A:c2,g2` (SW-1.5)."""

    path: tuple[int, ...]
    placement: int | None = None
    anchors: tuple[int, ...] = ()
    letter: str = ""  # as written; checked against the ship on the first square
    capture: bool = False  # `x` written before the destination (SW-R56)


class EndMovement(NamedTuple):
    pass


class Beam(NamedTuple):
    firer: int
    target: int


class Counter(NamedTuple):
    ship: int
    hit: int


class Field(NamedTuple):
    generator: int
    target: int
    destination: int | None  # None: off the board (SW-R48)


class FieldResponse(NamedTuple):
    ship: int


class Launch(NamedTuple):
    mothership: int
    gunboat: int
    missile: int
    first: int


class PlaceReplacement(NamedTuple):
    square: int


class Pass(NamedTuple):
    pass


class Command(NamedTuple):
    """A platform verb: resign, offer-draw, accept-draw, decline-draw (SW-8.3)."""

    verb: str


Action = (
    MoveShip | EndMovement | Beam | Counter | Field | FieldResponse | Launch | PlaceReplacement
    | Pass | Command
)  # fmt: skip
VERBS: Final = ("resign", "offer-draw", "accept-draw", "decline-draw")

_SQ = r"[a-p](?:1[0-2]|[1-9])"
_MOVE = re.compile(rf"([KDENR])({_SQ})((?:[-x]{_SQ})+)(?:=({_SQ}))?(?:;A:({_SQ}(?:,{_SQ})*))?")
_STEP = re.compile(rf"([-x])({_SQ})")
_BEAM = re.compile(rf"B ({_SQ})>({_SQ})")
_COUNTER = re.compile(rf"C ({_SQ}):h([1-9][0-9]*)")
_FIELD = re.compile(rf"F ({_SQ})>({_SQ})>({_SQ}|off)")
_RESPONSE = re.compile(rf"FR ({_SQ})")
_LAUNCH = re.compile(rf"L ({_SQ}),({_SQ}),({_SQ})>({_SQ})")
_PLACE = re.compile(rf"P@({_SQ})")


class Malformed(NamedTuple):
    reason: str


def _sq(text: str) -> int:
    sq = parse_square(text)
    assert sq is not None
    return sq


def parse(text: str) -> Action | Malformed:
    """An action in the notation of SW-1.5 (no position needed)."""
    text = text.strip()
    if text == "END":
        return EndMovement()
    if text == "pass":
        return Pass()
    if text in VERBS:
        return Command(text)
    if m := _MOVE.fullmatch(text):
        steps = _STEP.findall(m.group(3))
        if any(sep == "x" for sep, _ in steps[:-1]):
            return Malformed("`x` goes only before the destination (SW-1.5)")
        path = (_sq(m.group(2)), *(_sq(s) for _, s in steps))
        anchors = tuple(_sq(s) for s in m.group(5).split(",")) if m.group(5) else ()
        placement = _sq(m.group(4)) if m.group(4) else None
        return MoveShip(path, placement, anchors, m.group(1), steps[-1][0] == "x")
    if m := _BEAM.fullmatch(text):
        return Beam(_sq(m.group(1)), _sq(m.group(2)))
    if m := _COUNTER.fullmatch(text):
        return Counter(_sq(m.group(1)), int(m.group(2)))
    if m := _FIELD.fullmatch(text):
        dest = None if m.group(3) == "off" else _sq(m.group(3))
        return Field(_sq(m.group(1)), _sq(m.group(2)), dest)
    if m := _RESPONSE.fullmatch(text):
        return FieldResponse(_sq(m.group(1)))
    if m := _LAUNCH.fullmatch(text):
        k, r, p, q = (_sq(m.group(i)) for i in range(1, 5))
        return Launch(k, r, p, q)
    if m := _PLACE.fullmatch(text):
        return PlaceReplacement(_sq(m.group(1)))
    return Malformed(f"{text!r} is not an action of SW-1.5 (e.g. Rh2-h5, END, B e5>g6, "
                     "C c5:h2, F e5>g6>h7, FR d4, L b2,a2,b1>b3, P@c1, pass)")  # fmt: skip


def format_action(board: tuple[Piece | None, ...], action: Action) -> str:
    """The canonical notation of `action` on `board` (the position it is played in): a move's
    letter is the ship's and `x` marks a destination holding an enemy piece (SW-R56); anchors
    are listed in square order."""
    if isinstance(action, MoveShip):
        piece = board[action.path[0]]
        letter = piece.kind if piece is not None and piece.kind in SHIPS else action.letter
        dest = board[action.path[-1]]
        enemy = piece is not None and dest is not None and dest.owner != piece.owner
        text = letter + "-".join(NAMES[s] for s in action.path[:-1])
        text += ("x" if enemy else "-") + NAMES[action.path[-1]]
        if action.placement is not None:
            text += "=" + NAMES[action.placement]
        if action.anchors:
            text += ";A:" + ",".join(NAMES[s] for s in sorted(action.anchors, key=sort_key))
        return text
    if isinstance(action, EndMovement):
        return "END"
    if isinstance(action, Pass):
        return "pass"
    if isinstance(action, Command):
        return action.verb
    if isinstance(action, Beam):
        return f"B {NAMES[action.firer]}>{NAMES[action.target]}"
    if isinstance(action, Counter):
        return f"C {NAMES[action.ship]}:h{action.hit}"
    if isinstance(action, Field):
        where = "off" if action.destination is None else NAMES[action.destination]
        return f"F {NAMES[action.generator]}>{NAMES[action.target]}>{where}"
    if isinstance(action, FieldResponse):
        return f"FR {NAMES[action.ship]}"
    if isinstance(action, Launch):
        k, r, m = NAMES[action.mothership], NAMES[action.gunboat], NAMES[action.missile]
        return f"L {k},{r},{m}>{NAMES[action.first]}"
    return f"P@{NAMES[action.square]}"
