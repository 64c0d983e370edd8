"""The configuration parameters of YI-0.2 and the variant string that names them.

The variation is a named variant (`primary`, the default, `secondary_basic`,
`secondary_complex`), always written first in the canonical form; the other parameters are
`key=value` items (domain/core/variant.py reads them), and `teams` is a flag of Secondary
Complex. A setup is written as its men joined by `/` in any order (`setup_white=OA1/MA3/…`),
`setup_black=derived` being the default; the canonical form lists them in a fixed order.
"""

from dataclasses import dataclass
from typing import Final

from contracts.errors import ErrorCode
from domain.core import VariantError
from domain.core import variant as shared
from domain.core.variant import Parameter, ParamType, Value, Values, Variant, VariantSpec
from domain.yiora.geometry import BLACK, LATTICE, RINGS, column_of, ring_of
from domain.yiora.position import (
    DEFAULT_WHITE,
    DERIVED,
    EndRules,
    derive_black,
    man_text,
    setup_problem,
)

PRIMARY: Final = "primary"
SECONDARY_BASIC: Final = "secondary_basic"
SECONDARY_COMPLEX: Final = "secondary_complex"
SIDES: Final = ("White", "Black")
MATE_RULES: Final = ("any_escape", "overlord_only")
STALEMATE_RESULTS: Final = ("draw", "loss")
TURN_MODES: Final = ("lockstep", "parallel")

# Every man that may appear in a setup, in the canonical order: Overlord, Mages, Pawns; outer
# rings first; by column. Only black squares: setups are given for game bsq (YI-3.4).
_MEN: Final = tuple(
    man_text(kind, sq)
    for kind in (1, 2, 3)
    for sq in sorted(LATTICE[BLACK], key=lambda s: (RINGS - ring_of(s), column_of(s)))
)
_KIND_ORDER: Final = {token: i for i, token in enumerate(_MEN)}


def _canonical(setup: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(setup, key=_KIND_ORDER.__getitem__))


@dataclass(frozen=True, slots=True)
class Config:
    """YI-0.2 parameters; the defaults are the ruling's."""

    variation: str = PRIMARY
    setup_white: tuple[str, ...] = _canonical(DEFAULT_WHITE)
    setup_black: tuple[str, ...] = (DERIVED,)
    first_player: str = "White"
    mate_rule: str = "any_escape"
    stalemate_result: str = "draw"
    no_capture_limit: int = 50  # 0: off
    repetition_count: int = 3
    complex_turn_mode: str = "lockstep"
    teams: bool = False  # Secondary Complex by two teams of two (4 seats)

    @property
    def variant(self) -> str:
        """The canonical variant string."""
        return shared.format_variant(VARIANTS, self)

    @property
    def games(self) -> int:
        """How many games the board holds: 1 (Primary Basic) or 2 (YI-8.1)."""
        return 1 if self.variation == PRIMARY else 2

    @property
    def first(self) -> int:
        """The side that moves first in each game (YI-3.5, YI-8.1): 0 White/Gold, 1 Black/Silver."""
        return SIDES.index(self.first_player)

    @property
    def white_men(self) -> tuple[str, ...]:
        return self.setup_white

    @property
    def black_men(self) -> tuple[str, ...]:
        if self.setup_black == (DERIVED,):
            return derive_black(self.setup_white)
        return self.setup_black

    @property
    def end_rules(self) -> EndRules:
        return EndRules(self.mate_rule == "overlord_only", self.stalemate_result == "loss",
                        self.repetition_count, 2 * self.no_capture_limit)  # fmt: skip

    @property
    def lockstep(self) -> bool:
        return self.variation == SECONDARY_COMPLEX and self.complex_turn_mode == "lockstep"


_DEFAULT: Final = Config()


def _bad(reason: str) -> VariantError:
    return VariantError(ErrorCode.BAD_VARIANT, reason)


def _config(values: Values) -> Config:
    white = values.texts("setup_white")
    black = values.texts("setup_black")
    if DERIVED in black and len(black) > 1:
        raise _bad("setup_black is `derived` or a list of men, not both (YI-0.2)")
    config = Config(
        variation=values.text("variant"),
        setup_white=white,
        setup_black=black,
        first_player=values.text("first_player"),
        mate_rule=values.text("mate_rule"),
        stalemate_result=values.text("stalemate_result"),
        no_capture_limit=values.number("no_capture_limit"),
        repetition_count=values.number("repetition_count"),
        complex_turn_mode=values.text("complex_turn_mode"),
        teams=values.flag("teams"),
    )
    problem = setup_problem(config.white_men, config.black_men)
    if problem:
        raise _bad(f"invalid setup: {problem} (YI-3.4)")
    return config


def _values(config: Config) -> dict[str, Value]:
    return {
        "variant": config.variation,
        "setup_white": config.setup_white,
        "setup_black": config.setup_black,
        "first_player": config.first_player,
        "mate_rule": config.mate_rule,
        "stalemate_result": config.stalemate_result,
        "no_capture_limit": config.no_capture_limit,
        "repetition_count": config.repetition_count,
        "complex_turn_mode": config.complex_turn_mode,
        "teams": config.teams,
    }


VARIANTS: Final = VariantSpec(
    variants=(
        Variant(PRIMARY, "Primary Basic: White v Black on the black squares (YI-0.1)"),
        Variant(
            SECONDARY_BASIC,
            "two independent games, four players: White v Black on the "
            "black squares, Gold v Silver on the white squares (YI-8.3)",
        ),
        Variant(
            SECONDARY_COMPLEX,
            "two independent games, two players (or two teams with "
            "`teams`): White and Gold v Black and Silver (YI-8.4)",
        ),
    ),
    parameters=(
        Parameter(
            "setup_white",
            "White's 9 men for game bsq, e.g. OA1/MA3/…; game wsq's are shifted one column "
            "(YI-3.2, YI-3.4, YI-8.1)",
            ParamType.SUBSET,
            _DEFAULT.setup_white,
            values=_MEN,
        ),
        Parameter(
            "setup_black",
            "Black's 9 men, or `derived`: White's rotated by 18 columns (YI-3.3, YI-3.4)",
            ParamType.SUBSET,
            _DEFAULT.setup_black,
            values=(DERIVED, *_MEN),
        ),
        Parameter(
            "first_player",
            "the side that moves first; Gold (White) or Silver (Black) in game wsq (YI-3.5)",
            ParamType.CHOICE,
            _DEFAULT.first_player,
            values=SIDES,
        ),
        Parameter(
            "mate_rule",
            "checkmate: any escape counts, or only an Overlord move (YI-6.3)",
            ParamType.CHOICE,
            _DEFAULT.mate_rule,
            values=MATE_RULES,
        ),
        Parameter(
            "stalemate_result",
            "a stalemate is a draw, or a loss for the stalemated side (YI-6.4)",
            ParamType.CHOICE,
            _DEFAULT.stalemate_result,
            values=STALEMATE_RESULTS,
        ),
        Parameter(
            "no_capture_limit",
            "moves by each side without a capture that draw the game, or off (YI-7.5)",
            ParamType.INT,
            _DEFAULT.no_capture_limit,
            minimum=1,
            zero="off",
        ),
        Parameter(
            "repetition_count",
            "occurrences of the same position that draw the game (YI-7.4)",
            ParamType.INT,
            _DEFAULT.repetition_count,
            minimum=2,
        ),
        Parameter(
            "complex_turn_mode",
            "Secondary Complex turns: one move in each unfinished game, or each game on its "
            "own (YI-8.4.1, YI-8.4.2)",
            ParamType.CHOICE,
            _DEFAULT.complex_turn_mode,
            values=TURN_MODES,
            only=(SECONDARY_COMPLEX,),
        ),
        Parameter(
            "teams",
            "Secondary Complex by two teams of two: seats 0 and 2 play White and Gold, "
            "seats 1 and 3 Black and Silver, each member moving either side (YI-8.4)",
            ParamType.BOOL,
            _DEFAULT.teams,
            bare=True,
            only=(SECONDARY_COMPLEX,),
        ),
    ),
    to_config=_config,
    from_config=_values,
)


def parse_variant(text: str) -> Config:
    """The configuration a variant string names (YI-0.2); raises VariantError."""
    return shared.parse(VARIANTS, text)


__all__ = [
    "PRIMARY",
    "SECONDARY_BASIC",
    "SECONDARY_COMPLEX",
    "VARIANTS",
    "Config",
    "parse_variant",
]
