"""The configuration parameters of C3-0.2 and the variant string that names them.

`key=value` items joined by `+`, in any order, each at most once (domain/core/variant.py reads
them); the canonical form sorts them and omits the defaults, "" for every default.
"""

from dataclasses import dataclass
from typing import Final

from domain.core import variant as shared
from domain.core.variant import Parameter, ParamType, Value, Values, VariantSpec

FIFTY_MOVE_MODES: Final = ("demand", "automatic", "off")


@dataclass(frozen=True, slots=True)
class Config:
    """C3-0.2 parameters; the defaults are the ruling's."""

    queen_directions: int = 26
    fifty_move_mode: str = "demand"
    fifty_move_reset: bool = True
    depleted_equal_draw: bool = True
    repetition_count: int = 3

    @property
    def q26(self) -> bool:
        return self.queen_directions == 26

    @property
    def variant(self) -> str:
        """Canonical variant string: `key=value` items, sorted, defaults omitted, joined by +."""
        return shared.format_variant(VARIANTS, self)


_DEFAULT: Final = Config()


def _config(values: Values) -> Config:
    return Config(
        queen_directions=int(values.text("queen_directions")),
        fifty_move_mode=values.text("fifty_move_mode"),
        fifty_move_reset=values.flag("fifty_move_reset"),
        depleted_equal_draw=values.flag("depleted_equal_draw"),
        repetition_count=values.number("repetition_count"),
    )


def _values(config: Config) -> dict[str, Value]:
    return {
        "queen_directions": str(config.queen_directions),
        "fifty_move_mode": config.fifty_move_mode,
        "fifty_move_reset": config.fifty_move_reset,
        "depleted_equal_draw": config.depleted_equal_draw,
        "repetition_count": config.repetition_count,
    }


VARIANTS: Final = VariantSpec(
    parameters=(
        Parameter(
            "queen_directions",
            "26: the Queen slides in all 26 directions (C3-5.3); "
            "18: Rook plus Bishop, no vertical diagonals",
            ParamType.CHOICE,
            str(_DEFAULT.queen_directions),
            values=("26", "18"),
        ),
        Parameter(
            "fifty_move_mode",
            "how the fifty-move rule is triggered: on a demand, automatically, or never (C3-7.6)",
            ParamType.CHOICE,
            _DEFAULT.fifty_move_mode,
            values=FIFTY_MOVE_MODES,
        ),
        Parameter(
            "fifty_move_reset",
            "captures and rank-advancing pawn moves restart the fifty-move count (C3-7.6)",
            ParamType.BOOL,
            _DEFAULT.fifty_move_reset,
        ),
        Parameter(
            "depleted_equal_draw",
            'the source\'s "well depleted and equal" draw (C3-7.4)',
            ParamType.BOOL,
            _DEFAULT.depleted_equal_draw,
        ),
        Parameter(
            "repetition_count",
            "occurrences of the same position that draw the game (C3-7.5)",
            ParamType.INT,
            _DEFAULT.repetition_count,
            minimum=2,
        ),
    ),
    to_config=_config,
    from_config=_values,
)


def parse_variant(text: str) -> Config:
    """Parse `key=value+key=value` (C3-0.2); "" is the default configuration."""
    return shared.parse(VARIANTS, text)
