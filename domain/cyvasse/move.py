"""A board action (`Move`, CY-1.3.3) and what the move generation and checking of every version
share: the action modes and capture-mode bits, applying an action to the men, King capture
(CY-7.3), the reserve Dragon's drop zone (CY-6.4.2, CY-6.5.3), sea threats (CY-6.5.2) and the
wording of a refusal. Versions A and B build on it in movegen.py and rules.py, version C in
version_c.py."""

from typing import Final, NamedTuple

from contracts.errors import ErrorCode
from domain.core import Rejection
from domain.cyvasse.board import (
    COLOURS,
    DRAGON,
    KIND,
    KING,
    MOUNTAIN,
    NAMES_OF_KIND,
    Geometry,
    Position,
    owner,
)
from domain.cyvasse.terrain import cannot_attack
from domain.cyvasse.variant import Config

# Action modes (CY-1.3.3).
MOVE: Final = 0  # <from>-<to>
CAPTURE: Final = 1  # <from>x<to>, displacement capture
SHOOT: Final = 2  # <from>*<to>, stationary capture
DROP: Final = 3  # D@<sq>, Dragon from reserve
PASS: Final = 4  # pass (CY-4.3, B and C)
RUIN: Final = 5  # ruin@<sq>, Fortress Storming (CY-6.4.5)

# capture_modes bits
DISPLACE: Final = 1
STATIONARY: Final = 2


class Move(NamedTuple):
    """A board action: mode, from square (-1 for a drop, ruin or pass), to square (-1 for a
    pass) and the kind a man entering its own Fortress is promoted to (0: none, CY-6.4.7)."""

    mode: int
    from_square: int
    to_square: int
    promote: int = 0


PASS_MOVE: Final = Move(PASS, -1, -1)


def apply(board: bytes, move: Move, side: int) -> bytes:
    mode, fr, to, promote = move
    if mode in (PASS, RUIN):
        return board
    b = bytearray(board)
    if mode == DROP:
        b[to] = COLOURS[side] | DRAGON
    elif mode == SHOOT:
        b[to] = 0
    else:
        b[to] = COLOURS[side] | promote if promote else b[fr]
        b[fr] = 0
    return bytes(b)


def captures_king(board: bytes, move: Move) -> bool:
    return move.mode in (CAPTURE, SHOOT) and board[move.to_square] & KIND == KING


def drop_zone(cfg: Config, geo: Geometry, pos: Position, side: int) -> list[int]:
    """Where `side` may introduce its reserve Dragon, occupancy aside: the own half (CY-R41);
    on the hex board in version C the cells within hex distance 2 of the own Fortress cell,
    ruined or not (CY-6.5.3, CY-R53), else the own zone."""
    if geo.hex and pos.terrain:
        fort = pos.forts[side] if pos.forts else -1
        if fort < 0:
            return []
        return [t for t in range(geo.size) if geo.distance(fort, t) <= 2]
    return sorted(geo.halves[side])


def sea_threats(geo: Geometry, board: bytes, terrain: bytes, target: int, by: int) -> list[int]:
    """CY-6.5.2, CY-R52: `by`'s men (not the Dragon) on the ports neighbouring the port
    `target` (none on Water in version C); call only with `sea-movement`."""
    found = []
    for s in geo.sea[target]:
        man = board[s]
        if (
            man
            and owner(man) == by
            and man & KIND not in (DRAGON, MOUNTAIN)
            and not (terrain and cannot_attack(terrain, s, man & KIND))
        ):
            found.append(s)
    return found


# Refusals (rules.py, version_c.py) ---------------------------------------------------------


def illegal(reason: str, clause: str) -> Rejection:
    return Rejection(ErrorCode.ILLEGAL_ACTION, reason, clause)


def how(geo: Geometry, kind: int, version_c: bool = False) -> str:
    """How a man moves (CY-5.1.1 / CY-5.1.2), for rejection reasons."""
    dirs, rng = (geo.moves_c if version_c else geo.moves)[kind]
    unit = "cell" if geo.hex else "square"
    way = ("in any direction" if len(dirs) == len(geo.dirs) else
           "orthogonally" if dirs[0] < geo.n_orth else "diagonally")  # fmt: skip
    text = f"one {unit} {way}" if rng == 1 else f"up to {rng} {unit}s {way}"
    return text + (", flying over Mountains" if kind == DRAGON else "")


def no_ranged_attack(cfg: Config, kind: int) -> Rejection:
    """Why a man that no rule lets attack from where it stands may not: Dragonfyre's reach
    when the option is on (CY-5.4.5), else the general rule (CY-5.4)."""
    if kind == DRAGON and cfg.dragonfyre:
        reach = ("Dragonfyre reaches 1-2 squares in a straight line, over an empty square or a "
                 "man of your own, never over a Mountain")  # fmt: skip
        return illegal(reach, "CY-5.4.5")
    return illegal(f"a {NAMES_OF_KIND[kind]} cannot capture without moving", "CY-5.4")
