"""The configuration of CY-0.1/CY-0.2 and the variant string that names it.

Grammar (docs/rules/cyvasse.md; read by domain/core/variant.py): items joined by `+`, in any
order, each at most once: a version `A` | `B` | `C`; a board `square8` | `square10` | `hex91`;
an option flag `dragon-reserve` | `super-trebuchet` | `dragonfyre` | `fortress-storming` |
`wildfyre` | `fortress-promotion` | `sea-movement`; or a ruling parameter `key=value`. "" is
version A on square8. The canonical form is the version, then the board unless square8, then
the option flags sorted, then the parameters sorted, defaults omitted:
`B+square10+dragon-reserve`. Options e, f, g and the Fortress bonus need terrain: outside
version C they are accepted and dropped (CY-0.3); sea-movement needs hex91 (CY-R59).
"""

from dataclasses import dataclass
from typing import Final

from domain.core import variant as shared
from domain.core.variant import Parameter, ParamType, Value, Values, Variant, VariantSpec

BOARDS: Final = {"square8": 8, "square10": 10, "hex91": 11}


@dataclass(frozen=True, slots=True)
class Config:
    """CY-0.1 and CY-0.2 for versions A, B and C on every board; defaults are the ruling's."""

    version: str = "A"
    board: str = "square8"
    dragon_reserve: bool = False
    super_trebuchet: bool = False
    dragonfyre: bool = False
    fortress_storming: bool = False  # Optional Rule e (version C)
    wildfyre: bool = False  # Optional Rule f (version C)
    fortress_promotion: bool = False  # Optional Rule g (version C)
    sea_movement: bool = False  # Hex Optional Rule a (hex91 only, CY-6.5.2)
    fortress_cap: bool = False  # fortress_bonus_mode=cap (CY-6.2.3, version C)
    combined_replace: bool = False  # combined_mountain_check=replace (CY-3.5)
    dragon_capture_over_mountains: bool = True
    no_progress_limit: int = 50  # moves per side; 0 = off
    repetition_count: int = 3

    @property
    def n(self) -> int:
        """Board side length (CY-1.1.1); 11 files on hex91 (CY-1.2.2)."""
        return BOARDS[self.board]

    @property
    def values(self) -> bool:
        """Whether captures obey values and flanking (versions B and C, CY-5.6.2)."""
        return self.version != "A"

    @property
    def terrain(self) -> bool:
        """Whether the board has terrain, ranged attacks and morale (version C, CY-0.1)."""
        return self.version == "C"

    @property
    def variant(self) -> str:
        return shared.format_variant(VARIANTS, self)


_DEFAULT: Final = Config()


def _config(values: Values) -> Config:
    return Config(
        version=values.text("version"),
        board=values.text("board"),
        dragon_reserve=values.flag("dragon-reserve"),
        super_trebuchet=values.flag("super-trebuchet"),
        dragonfyre=values.flag("dragonfyre"),
        fortress_storming=values.flag("fortress-storming"),
        wildfyre=values.flag("wildfyre"),
        fortress_promotion=values.flag("fortress-promotion"),
        sea_movement=values.flag("sea-movement"),
        fortress_cap=values.text("fortress_bonus_mode") == "cap",
        combined_replace=values.text("combined_mountain_check") == "replace",
        dragon_capture_over_mountains=values.flag("dragon_capture_over_mountains"),
        no_progress_limit=values.number("no_progress_limit"),
        repetition_count=values.number("repetition_count"),
    )


def _values(config: Config) -> dict[str, Value]:
    return {
        "version": config.version,
        "board": config.board,
        "dragon-reserve": config.dragon_reserve,
        "super-trebuchet": config.super_trebuchet,
        "dragonfyre": config.dragonfyre,
        "fortress-storming": config.fortress_storming,
        "wildfyre": config.wildfyre,
        "fortress-promotion": config.fortress_promotion,
        "sea-movement": config.sea_movement,
        "fortress_bonus_mode": "cap" if config.fortress_cap else "none_above_6",
        "combined_mountain_check": "replace" if config.combined_replace else "none",
        "dragon_capture_over_mountains": config.dragon_capture_over_mountains,
        "no_progress_limit": config.no_progress_limit,
        "repetition_count": config.repetition_count,
    }


def _flag(name: str, description: str, terrain: bool = False) -> Parameter:
    """An option flag, off by default; one that needs terrain is dropped outside version C."""
    only = ("C",) if terrain else ()
    return Parameter(
        name, description, ParamType.BOOL, False, bare=True, only=only, ignored=terrain
    )


VARIANTS: Final = VariantSpec(
    key="version",
    variants=(
        Variant("A", "Basic: chess-like, no values"),
        Variant("B", "Advanced: values and flanking"),
        Variant("C", "Expert: B with terrain, ranged attacks and morale"),
    ),
    parameters=(
        Parameter(
            "board",
            "square8; square10 is Optional Rule a (Larger Board); hex91 is Hex Cyvasse (CY-0.1)",
            ParamType.CHOICE,
            _DEFAULT.board,
            values=tuple(BOARDS),
            bare=True,
        ),
        _flag(
            "dragon-reserve",
            "Optional Rule b (hex: Hex b): the Dragon starts in reserve (CY-6.4.2)",
        ),
        _flag(
            "super-trebuchet",
            "Optional Rule c: Trebuchet captures pass over any men and Mountains (CY-6.4.3)",
        ),
        _flag(
            "dragonfyre",
            "Optional Rule d (hex: Hex c): the Dragon captures without moving (CY-5.4.5)",
        ),
        _flag(
            "fortress-storming",
            "Optional Rule e: a man that stormed the enemy Fortress may ruin it (CY-6.4.5)",
            terrain=True,
        ),
        _flag(
            "wildfyre",
            "Optional Rule f: a stationary capture on Water sets it burning (CY-6.4.6)",
            terrain=True,
        ),
        _flag(
            "fortress-promotion",
            "Optional Rule g: a man entering its own Fortress may be promoted (CY-6.4.7)",
            terrain=True,
        ),
        Parameter(
            "sea-movement",
            "Hex Optional Rule a: a man on a port may sail to a neighbouring port (CY-6.5.2)",
            ParamType.BOOL,
            False,
            bare=True,
            needs=("board", "hex91"),
        ),
        Parameter(
            "dragon_capture_over_mountains",
            "the Dragon's displacement captures may pass over Mountains (CY-5.4.2)",
            ParamType.BOOL,
            _DEFAULT.dragon_capture_over_mountains,
        ),
        Parameter(
            "combined_mountain_check",
            "replace: setups whose Mountains together seal a square are set up again (CY-3.5)",
            ParamType.CHOICE,
            "none",
            values=("none", "replace"),
        ),
        Parameter(
            "fortress_bonus_mode",
            "the Fortress bonus of men valued above 6: none, or up to the cap of 9 (CY-6.2.3)",
            ParamType.CHOICE,
            "none_above_6",
            values=("none_above_6", "cap"),
            only=("C",),
            ignored=True,
        ),
        Parameter(
            "no_progress_limit",
            "moves by each side without progress that draw the game (CY-7.5)",
            ParamType.INT,
            _DEFAULT.no_progress_limit,
            minimum=1,
            zero="off",
        ),
        Parameter(
            "repetition_count",
            "occurrences of the same position that draw the game (CY-7.4)",
            ParamType.INT,
            _DEFAULT.repetition_count,
            minimum=2,
        ),
    ),
    to_config=_config,
    from_config=_values,
)


def parse_variant(text: str) -> Config:
    """Parse the variant grammar above; raises VariantError (bad-variant) with the reason."""
    return shared.parse(VARIANTS, text)
