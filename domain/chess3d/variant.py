"""The configuration parameters of C3-0.2 and the variant string that names them."""

from dataclasses import dataclass, fields
from typing import Final

from contracts.errors import ErrorCode
from domain.core import VariantError

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
        default = Config()
        items = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value != getattr(default, f.name):
                text = str(value).lower() if isinstance(value, bool) else str(value)
                items.append(f"{f.name}={text}")
        return "+".join(sorted(items))


def _bool(key: str, text: str) -> bool:
    if text not in ("true", "false"):
        raise VariantError(ErrorCode.BAD_VARIANT, f"{key} must be true or false, not {text!r}")
    return text == "true"


def parse_variant(text: str) -> Config:
    """Parse `key=value+key=value` (C3-0.2); "" is the default configuration."""
    values: dict[str, object] = {}
    for item in text.split("+") if text else []:
        key, sep, value = item.partition("=")
        if not sep:
            raise VariantError(ErrorCode.BAD_VARIANT, f"variant item {item!r} is not key=value")
        if key in values:
            raise VariantError(ErrorCode.BAD_VARIANT, f"variant key {key!r} given twice")
        if key == "queen_directions":
            if value not in ("26", "18"):
                raise VariantError(ErrorCode.BAD_VARIANT, "queen_directions must be 26 or 18")
            values[key] = int(value)
        elif key == "fifty_move_mode":
            if value not in FIFTY_MOVE_MODES:
                raise VariantError(
                    ErrorCode.BAD_VARIANT, "fifty_move_mode must be demand, automatic or off"
                )
            values[key] = value
        elif key in ("fifty_move_reset", "depleted_equal_draw"):
            values[key] = _bool(key, value)
        elif key == "repetition_count":
            if not value.isdigit() or int(value) < 2:
                raise VariantError(
                    ErrorCode.BAD_VARIANT, "repetition_count must be an integer of at least 2"
                )
            values[key] = int(value)
        else:
            known = ", ".join(f.name for f in fields(Config))
            raise VariantError(
                ErrorCode.BAD_VARIANT, f"unknown variant parameter {key!r} (known: {known})"
            )
    return Config(**values)  # type: ignore[arg-type]
