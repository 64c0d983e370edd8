"""Position, piece and action notation (Y-1.12 to Y-1.14, Y-R66, Y-R69).

`parse_*` accept the written forms and raise ValueError naming the clause; `format_*` write the
canonical form, so `parse_x(format_x(v)) == v`. Each action's record refuses, on construction,
a piece letter the rules never allow in that form (a Trych attacking, a Command ship
teleporting, ...), so a record that exists can always be written and read back.
"""

import re
from dataclasses import dataclass
from enum import Enum
from typing import Final

from domain.yavoch.field import Position, on_field

# --- Y-1.12 positions -------------------------------------------------------------------------

_POSITION_HELP: Final = "write three digits Lxy with level, x and y in 1..5, e.g. 243"
_LXY_RE: Final = re.compile(r"([0-9])([0-9])([0-9])")
_TUPLE_RE: Final = re.compile(r"\(\s*([0-9])\s*,\s*([0-9])\s*,\s*([0-9])\s*\)")


def format_position(p: Position) -> str:
    """Y-1.12: the canonical `Lxy`, e.g. `243`."""
    return f"{p.level}{p.x}{p.y}"


def describe_position(p: Position) -> str:
    """Y-1.12: the human-facing form `(L,x,y)`, e.g. `(2,4,3)`."""
    return f"({p.level},{p.x},{p.y})"


def parse_position(text: str) -> Position:
    """Y-1.12: `Lxy` (MUST), or the human form `(L,x,y)` (spaces allowed inside)."""
    m = _LXY_RE.fullmatch(text) or _TUPLE_RE.fullmatch(text)
    if not m:
        raise ValueError(f"Y-1.12: {text!r} is not a position: {_POSITION_HELP}")
    level, x, y = (int(g) for g in m.groups())
    if not on_field(level, x, y):
        raise ValueError(f"Y-1.12: {text!r} is off the field (Y-1.1): {_POSITION_HELP}")
    return Position(level, x, y)


# --- Y-1.13 piece letters ---------------------------------------------------------------------


class Kind(Enum):
    """Y-1.13: the piece letters."""

    COMMAND = "C"
    NEORNITH = "N"
    SQUAM = "S"
    ARCHID = "A"
    TRYCH = "T"
    GATE = "G"
    MINE = "M"
    ENERGY = "E"


SHIPS: Final = frozenset({Kind.COMMAND, Kind.NEORNITH, Kind.SQUAM, Kind.ARCHID, Kind.TRYCH})
OWNERS: Final = (1, 2)  # Y-1.13 owner prefix: player one, player two


@dataclass(frozen=True)
class Piece:
    """Y-1.13: a letter with an optional owner prefix `1`/`2` (`2S`)."""

    kind: Kind
    owner: int | None = None

    def __post_init__(self) -> None:
        if self.owner is not None and self.owner not in OWNERS:
            raise ValueError(f"Y-1.13: an owner prefix is 1 or 2, not {self.owner}")


_PIECE_RE: Final = re.compile(r"([12]?)([CNSATGME])")


def format_piece(piece: Piece) -> str:
    """Y-1.13: `S`, or `2S` with the owner prefix."""
    return f"{piece.owner or ''}{piece.kind.value}"


def parse_piece(text: str) -> Piece:
    """Y-1.13: one of `C N S A T G M E`, optionally prefixed by owner `1` or `2`."""
    m = _PIECE_RE.fullmatch(text)
    if not m:
        raise ValueError(
            f"Y-1.13: {text!r} is not a piece: write one of C N S A T G M E, "
            "optionally after an owner 1 or 2, e.g. S or 2S"
        )
    return Piece(Kind(m.group(2)), int(m.group(1)) if m.group(1) else None)


# --- Y-1.14 actions ---------------------------------------------------------------------------

OFFENSIVE_WEAPONS: Final = ("TB", "AT", "EV", "CL", "REA", "RD", "HD")  # Y-2.8, Y-5.80
DEFENSIVE_WEAPONS: Final = ("DF", "SD")  # Y-2.8, Y-5.90
_MOVERS: Final = SHIPS | {Kind.GATE}  # Y-1.14 move and gate move; mines never move (Y-5.43)
_MINE_LAYERS: Final = frozenset({Kind.COMMAND, Kind.NEORNITH, Kind.SQUAM, Kind.ARCHID})  # Y-5.40
_TELEPORTERS: Final = frozenset({Kind.NEORNITH, Kind.SQUAM, Kind.ARCHID, Kind.TRYCH})  # Y-5.5
_ATTACKERS: Final = _MINE_LAYERS  # Y-5.20: a Trych never attacks, a gate never (Y-5.16)
_WEAPON_USERS: Final = _TELEPORTERS  # Y-5.71, Y-5.90: never a Command ship


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


@dataclass(frozen=True)
class BattleResult:
    """Y-1.14: `{d=4,W}` (roll 4, attacker won), `{d=2,L}`, or `{auto,W}` (no roll)."""

    roll: int | None  # None: no roll (`auto`)
    won: bool

    def __post_init__(self) -> None:
        _require(
            self.roll is None or 0 <= self.roll <= 9,
            f"Y-2.6: the die of fate shows 0..9, not {self.roll}",
        )
        _require(
            self.roll is not None or self.won,
            "Y-5.22/Y-5.23: a battle decided without a roll is always won by the attacker "
            "({auto,W}); {auto,L} cannot happen",
        )


@dataclass(frozen=True)
class Move:
    """Y-1.14 move `S112-134`, with a mine `A214-254/M`, teleport `A214-254>422`, both
    `A214-254>422/M` (Y-R69), and gate move `G125-135` (a Move of a gate)."""

    piece: Piece
    origin: Position
    destination: Position
    exit: Position | None = None  # the partner gate left through, for a teleport
    mine: bool = False  # `/M`: a mine left at the origin

    def __post_init__(self) -> None:
        kind = self.piece.kind
        _require(
            kind in _MOVERS,
            f"Y-1.14: only ships and gates move; {kind.value} does not (Y-0.3, Y-5.43)",
        )
        _require(
            self.exit is None or kind in _TELEPORTERS,
            f"Y-5.5: {kind.value} never teleports, so it cannot be written with >exit",
        )
        _require(
            not self.mine or kind in _MINE_LAYERS,
            f"Y-5.40: {kind.value} never lays a mine, so it cannot be written with /M",
        )


@dataclass(frozen=True)
class Attack:
    """Y-1.14 attack (battle) `N233x332{d=4,W}`; the result MAY be absent (an attack as
    declared, before its outcome is known) and `/M` comes last (Y-R69: `S112x134/M`)."""

    piece: Piece
    origin: Position
    destination: Position
    result: BattleResult | None = None
    mine: bool = False

    def __post_init__(self) -> None:
        kind = self.piece.kind
        _require(kind in _ATTACKERS, f"Y-5.20: {kind.value} never attacks")


@dataclass(frozen=True)
class Detonation:
    """Y-1.14 Trych detonation `T232!`."""

    piece: Piece
    position: Position

    def __post_init__(self) -> None:
        _require(self.piece.kind is Kind.TRYCH, "Y-5.30: only a Trych (T) detonates")


@dataclass(frozen=True)
class Shot:
    """Y-1.14 HEP CAT shot `C111*155`."""

    piece: Piece
    origin: Position
    target: Position

    def __post_init__(self) -> None:
        _require(self.piece.kind is Kind.COMMAND, "Y-5.60: only a Command ship (C) fires")


@dataclass(frozen=True)
class Transfer:
    """Y-1.14 energy transfer `E112>122`."""

    origin: Position
    destination: Position


@dataclass(frozen=True)
class EndTurn:
    """Y-1.14 end of turn `END`."""


@dataclass(frozen=True)
class WeaponUse:
    """Y-1.14 [FULL] secret weapon `W:<code>:<user>[:<args>]`, e.g. `W:TB:S112:134>144`.

    `args` is kept verbatim: its grammar is the weapon's (section 5.10), not section 1's."""

    code: str
    piece: Piece
    user: Position
    args: str | None = None

    def __post_init__(self) -> None:
        _require(
            self.code in OFFENSIVE_WEAPONS,
            f"Y-2.8/Y-5.80: {self.code!r} is not an offensive weapon code "
            f"({' '.join(OFFENSIVE_WEAPONS)})",
        )
        _require(
            self.piece.kind in _WEAPON_USERS,
            f"Y-5.71: {self.piece.kind.value} never uses a secret weapon",
        )
        _require(
            self.args is None or _ARGS_RE.fullmatch(self.args) is not None,
            f"Y-1.14: weapon arguments must be non-empty and without spaces, not {self.args!r}",
        )


@dataclass(frozen=True)
class Response:
    """Y-1.14 [FULL] defensive response `R:DF:A344`."""

    code: str
    piece: Piece
    ship: Position

    def __post_init__(self) -> None:
        _require(
            self.code in DEFENSIVE_WEAPONS,
            f"Y-2.8/Y-5.90: {self.code!r} is not a defensive weapon code "
            f"({' '.join(DEFENSIVE_WEAPONS)})",
        )
        _require(
            self.piece.kind in _WEAPON_USERS,
            f"Y-5.90: {self.piece.kind.value} never uses a defensive weapon",
        )


@dataclass(frozen=True)
class NoResponse:
    """Y-1.14 [FULL] `R:none`: the response window is answered with nothing."""


Action = Move | Attack | Detonation | Shot | Transfer | EndTurn | WeaponUse | Response | NoResponse

_P: Final = r"([12]?)([CNSATGME])"  # Y-1.13 piece (letter checked by the record)
_L: Final = r"([0-9]{3})"  # Y-1.12 position (range checked by parse_position)
_ARGS_RE: Final = re.compile(r"\S+")
_MOVE_RE: Final = re.compile(rf"{_P}{_L}-{_L}(?:>{_L})?(/M)?")
_ATTACK_RE: Final = re.compile(rf"{_P}{_L}x{_L}(?:\{{(?:d=([0-9])|(auto)),([WL])\}})?(/M)?")
_DETONATION_RE: Final = re.compile(rf"{_P}{_L}!")
_SHOT_RE: Final = re.compile(rf"{_P}{_L}\*{_L}")
_TRANSFER_RE: Final = re.compile(rf"E{_L}>{_L}")
_WEAPON_RE: Final = re.compile(rf"W:([A-Z]+):{_P}{_L}(?::(.*))?")
_RESPONSE_RE: Final = re.compile(rf"R:([A-Z]+):{_P}{_L}")
_ACTION_HELP: Final = (
    "forms: S112-134, A214-254/M, N233x332{d=4,W}, A214-254>422, G125-135, T232!, C111*155, "
    "E112>122, END, W:TB:S112:134>144, R:DF:A344, R:none"
)


def _piece(owner: str, letter: str) -> Piece:
    return Piece(Kind(letter), int(owner) if owner else None)


def _parse(text: str) -> Action | None:
    if text == "END":
        return EndTurn()
    if text == "R:none":
        return NoResponse()
    if m := _MOVE_RE.fullmatch(text):
        owner, letter, origin, destination, exit_, mine = m.groups()
        return Move(
            _piece(owner, letter),
            parse_position(origin),
            parse_position(destination),
            parse_position(exit_) if exit_ else None,
            bool(mine),
        )
    if m := _ATTACK_RE.fullmatch(text):
        owner, letter, origin, destination, roll, auto, outcome, mine = m.groups()
        result = None
        if outcome:
            result = BattleResult(None if auto else int(roll), outcome == "W")
        return Attack(
            _piece(owner, letter),
            parse_position(origin),
            parse_position(destination),
            result,
            bool(mine),
        )
    if m := _DETONATION_RE.fullmatch(text):
        owner, letter, position = m.groups()
        return Detonation(_piece(owner, letter), parse_position(position))
    if m := _SHOT_RE.fullmatch(text):
        owner, letter, origin, target = m.groups()
        return Shot(_piece(owner, letter), parse_position(origin), parse_position(target))
    if m := _TRANSFER_RE.fullmatch(text):
        return Transfer(parse_position(m.group(1)), parse_position(m.group(2)))
    if m := _WEAPON_RE.fullmatch(text):
        code, owner, letter, user, args = m.groups()
        return WeaponUse(code, _piece(owner, letter), parse_position(user), args)
    if m := _RESPONSE_RE.fullmatch(text):
        code, owner, letter, ship = m.groups()
        return Response(code, _piece(owner, letter), parse_position(ship))
    return None


def parse_action(text: str) -> Action:
    """Y-1.14: one action as written on a log line (surrounding white space ignored)."""
    try:
        action = _parse(text.strip())
    except ValueError as error:
        raise ValueError(f"{error} (in action {text!r})") from None
    if action is None:
        raise ValueError(f"Y-1.14: {text!r} is not an action; {_ACTION_HELP}")
    return action


def _result(r: BattleResult) -> str:
    return (
        "{" + ("auto" if r.roll is None else f"d={r.roll}") + ("," + ("W" if r.won else "L")) + "}"
    )


def format_action(action: Action) -> str:
    """Y-1.14: the canonical written form of `action`."""
    match action:
        case Move(piece, origin, destination, exit_, mine):
            head = f"{format_piece(piece)}{format_position(origin)}-{format_position(destination)}"
            tail = f">{format_position(exit_)}" if exit_ else ""
            return head + tail + ("/M" if mine else "")
        case Attack(piece, origin, destination, result, mine):
            head = f"{format_piece(piece)}{format_position(origin)}x{format_position(destination)}"
            return head + (_result(result) if result else "") + ("/M" if mine else "")
        case Detonation(piece, position):
            return f"{format_piece(piece)}{format_position(position)}!"
        case Shot(piece, origin, target):
            return f"{format_piece(piece)}{format_position(origin)}*{format_position(target)}"
        case Transfer(origin, destination):
            return f"E{format_position(origin)}>{format_position(destination)}"
        case EndTurn():
            return "END"
        case WeaponUse(code, piece, user, args):
            tail = f":{args}" if args is not None else ""
            return f"W:{code}:{format_piece(piece)}{format_position(user)}{tail}"
        case Response(code, piece, ship):
            return f"R:{code}:{format_piece(piece)}{format_position(ship)}"
        case NoResponse():
            return "R:none"
