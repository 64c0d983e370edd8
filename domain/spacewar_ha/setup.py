"""The configuration of HA-0.3 and the setup of HA-3: the board size, the starting squares,
the Bases, and the options of HA-5.40, HA-5.6 and HA-8.4, read from the variant string.

White's setup and Bases are written as tokens (`Ra1/Nb1/…`, `d2/e2`); Black's are White's
mirrored across the middle rank, same files (HA-3.1: "the same files"; HA-3.2: `d7 e7`), so
White's must lie in the lower half of the board.
"""

from dataclasses import dataclass
from typing import Final

from contracts.errors import ErrorCode
from domain.core import VariantError
from domain.core import variant as shared
from domain.core.variant import Parameter, ParamType, Value, Values, VariantSpec
from domain.spacewar_ha.board import FILES, MAX_RANKS, Board
from domain.spacewar_ha.pieces import KINDS, Base, Piece, new_piece

MIN_SIDE: Final = 2
SIZES: Final = tuple(f"{w}x{h}" for w in range(MIN_SIDE, len(FILES) + 1)
                     for h in range(MIN_SIDE, MAX_RANKS + 1))  # fmt: skip
_SQUARES: Final = tuple(f"{f}{r}" for r in range(1, MAX_RANKS + 1) for f in FILES)
_TOKENS: Final = tuple(f"{k}{s}" for s in _SQUARES for k in KINDS)
DEFAULT_SETUP: Final = ("Ra1", "Nb1", "Bc1", "Qd1", "Ke1", "Bf1", "Ng1", "Rh1")  # HA-3.1
DEFAULT_BASES: Final = ("d2", "e2")  # HA-3.2


@dataclass(frozen=True, slots=True)
class Config:
    """HA-0.3's parameters; the defaults are the ruling's."""

    board: str = "8x8"
    setup: tuple[str, ...] = DEFAULT_SETUP
    bases: tuple[str, ...] = DEFAULT_BASES
    cap_at_start: bool = True
    medic_can_jump: bool = False
    turn_limit: int = 0  # 0: none

    @property
    def geometry(self) -> Board:
        return _board(self.board)

    @property
    def variant(self) -> str:
        return shared.format_variant(VARIANTS, self)

    def start_pieces(self) -> tuple[Piece, ...]:
        """Both sides' pieces at their starting values (HA-3.1, HA-3.3)."""
        b = self.geometry
        white = [new_piece(_square(b, t[1:]), 0, t[0]) for t in self.setup]
        black = [new_piece(b.mirror(p.square), 1, p.kind) for p in white]
        return tuple(sorted(white + black))

    def start_bases(self) -> tuple[Base, ...]:
        """Both sides' Bases with full pools (HA-3.2, HA-3.3)."""
        b = self.geometry
        white = [Base(_square(b, s), 0) for s in self.bases]
        return tuple(sorted(white + [Base(b.mirror(x.square), 1) for x in white]))


def _board(text: str) -> Board:
    w, _, h = text.partition("x")
    return Board(int(w), int(h))


def _square(b: Board, name: str) -> int:
    square = b.parse(name)
    assert square is not None, name
    return square


def _bad(reason: str) -> VariantError:
    return VariantError(ErrorCode.BAD_VARIANT, reason)


def _to_config(values: Values) -> Config:
    config = Config(board=values.text("board"), setup=values.texts("setup"),
                    bases=values.texts("bases"), cap_at_start=values.flag("cap_at_start"),
                    medic_can_jump=values.flag("medic_can_jump"),
                    turn_limit=values.number("turn_limit"))  # fmt: skip
    b = config.geometry
    half = b.height // 2
    seen: set[int] = set()
    for token in config.setup:
        square = b.parse(token[1:])
        if square is None or b.coords(square)[1] >= half:
            raise _bad(f"setup: {token[1:]} is not a square of White's half of a {config.board} "
                       "board (Black's setup mirrors White's)")  # fmt: skip
        if square in seen:
            raise _bad(f"setup: two pieces on {token[1:]}")
        seen.add(square)
    if not config.bases:
        raise _bad("bases: each player needs at least one Base (HA-8.1)")
    for name in config.bases:
        square = b.parse(name)
        if square is None or b.coords(square)[1] >= half:
            raise _bad(f"bases: {name} is not a square of White's half of a {config.board} board")
    return config


def _from_config(config: Config) -> dict[str, Value]:
    return {"board": config.board, "setup": config.setup, "bases": config.bases,
            "cap_at_start": config.cap_at_start, "medic_can_jump": config.medic_can_jump,
            "turn_limit": config.turn_limit}  # fmt: skip


VARIANTS: Final[VariantSpec[Config]] = VariantSpec(
    parameters=(
        Parameter("board", "board size, files x ranks (HA-1.1)", ParamType.CHOICE, "8x8",
                  values=SIZES),
        Parameter("setup", "White's pieces as kind and square (Black's mirror them, HA-3.1)",
                  ParamType.SUBSET, DEFAULT_SETUP, values=_TOKENS),
        Parameter("bases", "White's Base squares (Black's mirror them, HA-3.2)",
                  ParamType.SUBSET, DEFAULT_BASES, values=_SQUARES),
        Parameter("cap_at_start", "Health, Ammo, Repair and Supply never exceed their starting "
                  "values (HA-5.40)", ParamType.BOOL, True),
        Parameter("medic_can_jump", "the Medic may jump over pieces (HA-5.6)", ParamType.BOOL,
                  False),
        Parameter("turn_limit", "drawn after this many turns per player (HA-8.4)",
                  ParamType.INT, 0, minimum=1, zero="none"),
    ),
    to_config=_to_config,
    from_config=_from_config,
)  # fmt: skip


def parse_variant(text: str) -> Config:
    return shared.parse(VARIANTS, text)
