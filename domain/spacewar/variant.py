"""The configuration parameters of SW-0.3 and the variant string that names them
(`key=value` items joined by `+`, domain/core/variant.py)."""

from dataclasses import dataclass
from typing import Final

from contracts.errors import ErrorCode
from domain.core import VariantError
from domain.core import variant as shared
from domain.core.variant import Parameter, ParamType, Value, Values, VariantSpec
from domain.spacewar.pieces import DEFAULT_FLEET

PLACEMENTS: Final = ("inside", "outside")
RESETS: Final = ("phase", "half_turn")
_FLEET_VALUES: Final = tuple(
    f"{kind}{n}" for kind, most in DEFAULT_FLEET for n in range(1 if kind == "K" else 0, most + 1)
)
_DEFAULT_FLEET: Final = tuple(sorted(f"{kind}{n}" for kind, n in DEFAULT_FLEET))


@dataclass(frozen=True, slots=True)
class Config:
    """SW-0.3 parameters; the defaults are the official ruleset's."""

    missile_step: int = 2
    range_tp: int = 3
    range_i: int = 2
    king_placement: str = "inside"
    fleet: tuple[str, ...] = _DEFAULT_FLEET
    beam_hits_reset: str = "phase"
    launch_flips: bool = True
    auto_pass: bool = True
    turn_limit: int = 0  # 0: none

    @property
    def variant(self) -> str:
        return shared.format_variant(VARIANTS, self)

    def fleet_counts(self) -> dict[str, int]:
        return {item[0]: int(item[1:]) for item in self.fleet}

    def range_of(self, kind: str) -> int:
        """A generator's field and beam range (SW-5.30, SW-5.41)."""
        return self.range_i if kind == "N" else self.range_tp


_DEFAULT: Final = Config()


def _config(values: Values) -> Config:
    fleet = values.texts("fleet")
    kinds = [item[0] for item in fleet]
    if sorted(kinds) != sorted(kind for kind, _ in DEFAULT_FLEET):
        raise VariantError(ErrorCode.BAD_VARIANT,
                           "fleet names each of K, D, E, N, R and P once, e.g. "
                           "K2/D2/E4/N4/R4/P16 (SW-2.1)")  # fmt: skip
    return Config(
        missile_step=values.number("missile_step"),
        range_tp=values.number("range_tp"),
        range_i=values.number("range_i"),
        king_placement=values.text("king_placement"),
        fleet=fleet,
        beam_hits_reset=values.text("beam_hits_reset"),
        launch_flips=values.flag("launch_flips"),
        auto_pass=values.flag("auto_pass"),
        turn_limit=values.number("turn_limit"),
    )


def _values(config: Config) -> dict[str, Value]:
    return {
        "missile_step": config.missile_step,
        "range_tp": config.range_tp,
        "range_i": config.range_i,
        "king_placement": config.king_placement,
        "fleet": config.fleet,
        "beam_hits_reset": config.beam_hits_reset,
        "launch_flips": config.launch_flips,
        "auto_pass": config.auto_pass,
        "turn_limit": config.turn_limit,
    }


VARIANTS: Final = VariantSpec(
    parameters=(
        Parameter(
            "missile_step",
            "squares a missile travels in each missile phase and when launched (SW-5.62, SW-5.65)",
            ParamType.INT,
            _DEFAULT.missile_step,
            minimum=1,
            maximum=11,
        ),
        Parameter(
            "range_tp",
            "range of Tractor and Pressor fields and beams (SW-5.30)",
            ParamType.INT,
            _DEFAULT.range_tp,
            minimum=1,
            maximum=15,
        ),
        Parameter(
            "range_i",
            "range of Immobilizer fields and beams (SW-5.30)",
            ParamType.INT,
            _DEFAULT.range_i,
            minimum=1,
            maximum=15,
        ),
        Parameter(
            "king_placement",
            "Motherships inside or outside the outer Gunboats (SW-3.2)",
            ParamType.CHOICE,
            _DEFAULT.king_placement,
            values=PLACEMENTS,
        ),
        Parameter(
            "fleet",
            "pieces per side, one count per kind, e.g. K2/D2/E4/N4/R4/P16; a "
            "smaller fleet leaves out the innermost pieces of the setup (SW-2.1)",
            ParamType.COMBINATION,
            _DEFAULT_FLEET,
            values=_FLEET_VALUES,
            size=6,
        ),
        Parameter(
            "beam_hits_reset",
            "standing beam hits are cleared at the end of each "
            "force-combat phase, or at the start of phases 1 and 5 (SW-5.43)",
            ParamType.CHOICE,
            _DEFAULT.beam_hits_reset,
            values=RESETS,
        ),
        Parameter(
            "launch_flips",
            "a launch turns the Mothership and the Gunboat small side up (SW-5.62)",
            ParamType.BOOL,
            _DEFAULT.launch_flips,
        ),
        Parameter(
            "auto_pass",
            "the engine passes for a player whose only legal action is a pass (SW-4.5)",
            ParamType.BOOL,
            _DEFAULT.auto_pass,
        ),
        Parameter(
            "turn_limit",
            "drawn after this many full turns, or none (SW-8.4)",
            ParamType.INT,
            _DEFAULT.turn_limit,
            minimum=1,
            zero="none",
        ),
    ),
    to_config=_config,
    from_config=_values,
)


def parse_variant(text: str) -> Config:
    """The configuration a variant string names (SW-0.3); raises VariantError."""
    return shared.parse(VARIANTS, text)


__all__ = ["VARIANTS", "Config", "parse_variant"]
