"""Pieces and their state (SW-2) and the setup (SW-3)."""

from typing import Final, NamedTuple

from domain.spacewar.board import BLACK, FILE_LETTERS, RANKS, WHITE, square

MOTHERSHIP, TRACTOR, PRESSOR, IMMOBILIZER, GUNBOAT, MISSILE = "K", "D", "E", "N", "R", "P"
SHIPS: Final = (MOTHERSHIP, TRACTOR, PRESSOR, IMMOBILIZER, GUNBOAT)
KINDS: Final = (*SHIPS, MISSILE)
GENERATORS: Final = (TRACTOR, PRESSOR, IMMOBILIZER)  # SW-0.2
KIND_NAMES: Final = {
    MOTHERSHIP: "Mothership",
    TRACTOR: "Tractor",
    PRESSOR: "Pressor",
    IMMOBILIZER: "Immobilizer",
    GUNBOAT: "Gunboat",
    MISSILE: "Missile",
}
# SW-5.2: G1 Immobilizers, G2 Tractors, G3 Pressors, G4 Motherships and Gunboats.
GROUP: Final = {IMMOBILIZER: 1, TRACTOR: 2, PRESSOR: 3, MOTHERSHIP: 4, GUNBOAT: 4}
# SW-5.32: the friendly type that neutralizes a hostile generator of each type.
NEUTRALIZER: Final = {TRACTOR: PRESSOR, PRESSOR: TRACTOR, IMMOBILIZER: IMMOBILIZER}


class Piece(NamedTuple):
    """A ship (SW-2.2) or a missile (SW-2.3). `small`: small side up; `moved`, `anchored`:
    movement-phase flags; `fired`: a fired missile; `launched`: launched in this missile phase."""

    owner: int
    kind: str
    small: bool = False
    moved: bool = False
    anchored: bool = False
    fired: bool = False
    launched: bool = False

    @property
    def ship(self) -> bool:
        return self.kind != MISSILE


# SW-3.2 with king_placement = inside; `outside` swaps a2/b2 and o2/p2.
_RANK2_INSIDE: Final = "RKNEDENRRNEDENKR"
_RANK2_OUTSIDE: Final = "KRNEDENRRNEDENRK"
# SW-2.1 / SW-R3: the default fleet.
DEFAULT_FLEET: Final = (("K", 2), ("D", 2), ("E", 4), ("N", 4), ("R", 4), ("P", 16))


def _kept(files: list[int], count: int) -> set[int]:
    """The `count` files kept of a kind's files: the outermost first (farthest from the centre
    line between files h and i), then the lower file (a decision: SW-3 is written for the
    default fleet only; docs/rules/spacewar.md)."""
    return set(sorted(files, key=lambda f: (-abs(2 * f - 17), f))[:count])


def setup(king_placement: str, fleet: dict[str, int]) -> tuple[Piece | None, ...]:
    """SW-3: missiles on ranks 1 and 12, ships on ranks 2 and 11, all large (SW-3.4); a smaller
    `fleet` (SW-2.1) leaves out the innermost pieces of a kind."""
    board: list[Piece | None] = [None] * (16 * RANKS)
    rank2 = _RANK2_INSIDE if king_placement == "inside" else _RANK2_OUTSIDE
    rows = [(rank2, 2, RANKS - 1), ("P" * len(FILE_LETTERS), 1, RANKS)]
    for letters, white_rank, black_rank in rows:
        for kind in set(letters):
            files = [f for f, letter in enumerate(letters, start=1) if letter == kind]
            for f in _kept(files, fleet.get(kind, 0)):
                board[square(f, white_rank)] = Piece(WHITE, kind)
                board[square(f, black_rank)] = Piece(BLACK, kind)
    return tuple(board)
