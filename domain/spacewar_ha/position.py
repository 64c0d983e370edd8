"""A position (HA-R21: every value is state) and its text notation.

    <side> <turn> <pass> <pieces> <bases> <holds> [<released>]

- side: `w` or `b`, the player to act (recorded after the resupply of its turn, HA-R27);
- turn: the number of the side to act's current turn, from 1 (for `turn_limit`, HA-8.4);
- pass: `1` if the previous turn was a pass (HA-8.2), else `0`;
- pieces: `,`-joined, by square: the kind letter (upper case White, lower case Black), the
  square, `:` and the values joined by `/` — Health/Ammo, or for a Medic Health/Repair/Supply:
  `Qd1:3/9`, `ke8:9/18/6`; `-` when no piece is left;
- bases: `,`-joined: `W` or `B`, the square, `:` and Repair/Supply, or `x` once captured:
  `Wd2:36/72`, `Be7:x`;
- holds: the immobilisations (HA-5.21) as `<tractor>#<held>`, `,`-joined, `-` for none;
- released (optional, written only when there is one): the pieces the side to act's Tractors
  released this turn, which they may not hold again before it ends (HA-R28), as
  `<tractor>~<released>`, `,`-joined. Positions written before HA-R28 have six fields.

The board size is the variant's (HA-0.3 `board`).
"""

from typing import NamedTuple

from domain.spacewar_ha.board import Board
from domain.spacewar_ha.pieces import KINDS, MEDIC, Base, Piece
from domain.spacewar_ha.setup import Config


class Position(NamedTuple):
    board: Board
    pieces: tuple[Piece, ...]  # sorted by square
    bases: tuple[Base, ...]  # sorted by square
    turn: int = 0  # the side to act: 0 White, 1 Black
    number: int = 1  # its turn number
    passed: bool = False  # the previous turn was a pass (HA-8.2)
    holds: tuple[tuple[int, int], ...] = ()  # (tractor square, held square), sorted
    # (tractor square, released square), sorted: this turn's releases (HA-R28); the turn's
    # action ends it, and nothing moves between a release and the action, so squares suffice
    released: tuple[tuple[int, int], ...] = ()

    def at(self) -> dict[int, Piece]:
        """The pieces by square."""
        return {p.square: p for p in self.pieces}

    def base_at(self, square: int) -> Base | None:
        return next((b for b in self.bases if b.square == square), None)

    def held(self, square: int) -> bool:
        """Whether the piece on `square` is immobilised (HA-5.21)."""
        return any(target == square for _, target in self.holds)

    def hold_of(self, tractor: int) -> int | None:
        return next((target for t, target in self.holds if t == tractor), None)

    def turns_done(self, side: int) -> int:
        """How many turns `side` has completed."""
        return self.number - 1 if self.turn in (side, 0) else self.number


def start_position(config: Config) -> Position:
    """HA-3: the setup, every value at its start, White to act (HA-0.1)."""
    return Position(config.geometry, config.start_pieces(), config.start_bases())


def _piece_text(b: Board, p: Piece) -> str:
    letter = p.kind if p.owner == 0 else p.kind.lower()
    values = (p.health, p.repair, p.supply) if p.kind == MEDIC else (p.health, p.ammo)
    return f"{letter}{b.name(p.square)}:{'/'.join(map(str, values))}"


def _base_text(b: Board, base: Base) -> str:
    pools = "x" if base.captured else f"{base.repair}/{base.supply}"
    return f"{'WB'[base.owner]}{b.name(base.square)}:{pools}"


def format_position(pos: Position) -> str:
    b = pos.board
    pieces = ",".join(_piece_text(b, p) for p in pos.pieces) or "-"
    bases = ",".join(_base_text(b, base) for base in pos.bases) or "-"
    holds = ",".join(f"{b.name(t)}#{b.name(h)}" for t, h in pos.holds) or "-"
    text = f"{'wb'[pos.turn]} {pos.number} {int(pos.passed)} {pieces} {bases} {holds}"
    if pos.released:  # left out when empty, so positions without one read as before HA-R28
        text += " " + ",".join(f"{b.name(t)}~{b.name(r)}" for t, r in pos.released)
    return text


def _number(text: str, what: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise ValueError(f"{what} must be a number, not {text!r}")
    return int(text)


def _square(b: Board, text: str) -> int:
    square = b.parse(text)
    if square is None:
        raise ValueError(f"{text!r} is not a square of the {b.width}x{b.height} board")
    return square


def _values(text: str, count: int, what: str) -> list[int]:
    parts = text.split("/")
    if len(parts) != count:
        raise ValueError(f"{what}: {count} values joined by / expected, not {text!r}")
    return [_number(part, what) for part in parts]


def parse_position(text: str, b: Board) -> Position:
    """The position `text` names on board `b`; raises ValueError saying what is wrong."""
    fields = text.split()
    if len(fields) not in (6, 7):
        raise ValueError("six or seven fields expected: side, turn, pass, pieces, bases, holds "
                         "and, if any, this turn's releases")  # fmt: skip
    side, number, passed, pieces_text, bases_text, holds_text = fields[:6]
    if side not in ("w", "b"):
        raise ValueError(f"the side to act is w or b, not {side!r}")
    turn_number = _number(number, "the turn number")
    if turn_number < 1:
        raise ValueError("the turn number starts at 1")
    if passed not in ("0", "1"):
        raise ValueError(f"the pass state is 0 or 1, not {passed!r}")
    pieces: dict[int, Piece] = {}
    for token in [] if pieces_text == "-" else pieces_text.split(","):
        where, colon, values = token.partition(":")
        if not colon or not where or where[0].upper() not in KINDS:
            raise ValueError(f"piece {token!r}: kind letter, square, ':' and values expected")
        kind, owner = where[0].upper(), 0 if where[0].isupper() else 1
        square = _square(b, where[1:])
        if square in pieces:
            raise ValueError(f"two pieces on {where[1:]}")
        if kind == MEDIC:
            health, repair, supply = _values(values, 3, token)
            piece = Piece(square, owner, kind, health, 0, repair, supply)
        else:
            health, ammo = _values(values, 2, token)
            piece = Piece(square, owner, kind, health, ammo)
        if piece.health < 1:
            raise ValueError(f"piece {token!r}: a piece at 0 Health is captured (HA-5.10)")
        pieces[square] = piece
    bases: dict[int, Base] = {}
    for token in [] if bases_text == "-" else bases_text.split(","):
        where, colon, values = token.partition(":")
        if not colon or len(where) < 3 or where[0] not in "WB":
            raise ValueError(f"base {token!r}: W or B, square, ':' and pools expected")
        square = _square(b, where[1:])
        if square in bases:
            raise ValueError(f"two Bases on {where[1:]}")
        owner = "WB".index(where[0])
        if values == "x":
            bases[square] = Base(square, owner, 0, 0, True)
            continue
        repair, supply = _values(values, 2, token)
        occupant = pieces.get(square)
        if occupant is not None and occupant.owner != owner:
            raise ValueError(f"base {token!r}: an enemy piece stands on it, so it is captured "
                             "(HA-5.50): write it x")  # fmt: skip
        bases[square] = Base(square, owner, repair, supply)
    holds: list[tuple[int, int]] = []
    for token in [] if holds_text == "-" else holds_text.split(","):
        t_text, hash_, h_text = token.partition("#")
        if not hash_:
            raise ValueError(f"hold {token!r}: <tractor>#<held> expected")
        t, h = _square(b, t_text), _square(b, h_text)
        tractor, target = pieces.get(t), pieces.get(h)
        if tractor is None or tractor.kind != "Q" or target is None:
            raise ValueError(f"hold {token!r}: a Tractor and a piece expected (HA-5.21)")
        if target.owner == tractor.owner or not b.adjacent(t, h):
            raise ValueError(f"hold {token!r}: a Tractor holds an adjacent enemy (HA-5.21)")
        if any(x == t for x, _ in holds):
            raise ValueError(f"hold {token!r}: a Tractor holds one piece at most (HA-5.21)")
        holds.append((t, h))
    released = _released(b, fields[6], pieces, holds, "wb".index(side)) if len(fields) == 7 else []
    return Position(b, tuple(pieces[s] for s in sorted(pieces)),
                    tuple(bases[s] for s in sorted(bases)), "wb".index(side), turn_number,
                    passed == "1", tuple(sorted(holds)), tuple(sorted(released)))  # fmt: skip


def _released(b: Board, text: str, pieces: dict[int, Piece], holds: list[tuple[int, int]],
              side: int) -> list[tuple[int, int]]:  # fmt: skip
    """The released field (HA-R28): pairs a release this turn could have left."""
    released: list[tuple[int, int]] = []
    for token in text.split(","):
        t_text, tilde, r_text = token.partition("~")
        if not tilde:
            raise ValueError(f"release {token!r}: <tractor>~<released> expected")
        t, r = _square(b, t_text), _square(b, r_text)
        tractor, target = pieces.get(t), pieces.get(r)
        if tractor is None or tractor.kind != "Q" or tractor.owner != side or target is None:
            raise ValueError(f"release {token!r}: a Tractor of the side to act and a piece "
                             "expected (HA-R28)")  # fmt: skip
        if target.owner == side or not b.adjacent(t, r):
            raise ValueError(f"release {token!r}: a Tractor releases an adjacent enemy (HA-5.22)")
        # a release is followed by the turn's action, which ends the turn: the Tractor cannot
        # have held anything since, nor released twice
        if any(x == t for x, _ in (*holds, *released)):
            raise ValueError(f"release {token!r}: a Tractor that released a piece this turn "
                             "holds nothing else and released nothing else (HA-R28)")  # fmt: skip
        released.append((t, r))
    return released
