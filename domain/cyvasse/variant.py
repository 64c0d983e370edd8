"""The configuration of CY-0.1/CY-0.2 and the variant string that names it.

Grammar (docs/rules/cyvasse.md): items joined by `+`, in any order, each at most once:
a version `A` | `B` | `C`; a board `square8` | `square10` | `hex91`; an option flag
`dragon-reserve` | `super-trebuchet` | `dragonfyre` | `fortress-storming` | `wildfyre` |
`fortress-promotion` | `sea-movement`; or a ruling parameter `key=value`. "" is version A on
square8. The canonical form is the version, then the board unless square8, then the option flags
sorted, then the parameters sorted, defaults omitted: `B+square10+dragon-reserve`.
"""

from dataclasses import dataclass
from typing import Final

from contracts.errors import ErrorCode
from domain.core import VariantError

VERSIONS: Final = ("A", "B", "C")
BOARDS: Final = {"square8": 8, "square10": 10, "hex91": 11}
# option flag -> Config field (implemented ones); the others are refused by name.
OPTIONS: Final = {
    "dragon-reserve": "dragon_reserve",
    "super-trebuchet": "super_trebuchet",
    "dragonfyre": "dragonfyre",
    "fortress-storming": "fortress_storming",
    "wildfyre": "wildfyre",
    "fortress-promotion": "fortress_promotion",
    "sea-movement": "sea_movement",
}
# Options and parameters that need terrain: ignored unless version C (CY-0.3, CY-R59).
TERRAIN_ONLY: Final = ("fortress_storming", "wildfyre", "fortress_promotion", "fortress_cap")


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
        items = [self.version]
        if self.board != "square8":
            items.append(self.board)
        items.extend(sorted(flag for flag, name in OPTIONS.items() if getattr(self, name)))
        params = []
        if self.fortress_cap:
            params.append("fortress_bonus_mode=cap")
        if self.combined_replace:
            params.append("combined_mountain_check=replace")
        if not self.dragon_capture_over_mountains:
            params.append("dragon_capture_over_mountains=false")
        if self.no_progress_limit != 50:
            limit = self.no_progress_limit
            params.append(f"no_progress_limit={limit if limit else 'off'}")
        if self.repetition_count != 3:
            params.append(f"repetition_count={self.repetition_count}")
        return "+".join(items + sorted(params))


def _bad(reason: str) -> VariantError:
    return VariantError(ErrorCode.BAD_VARIANT, reason)


def parse_variant(text: str) -> Config:
    """Parse the variant grammar above; raises VariantError (bad-variant) with the reason."""
    values: dict[str, object] = {}
    seen: set[str] = set()
    for item in text.strip().split("+") if text.strip() else []:
        key = item.partition("=")[0] if "=" in item else item
        slot = "version" if item in VERSIONS else "board" if item in BOARDS else key
        if slot in seen:
            raise _bad(f"variant item {slot!r} given twice")
        seen.add(slot)
        if item in VERSIONS:
            values["version"] = item
        elif item in BOARDS:
            values["board"] = item
        elif item in OPTIONS:
            values[OPTIONS[item]] = True
        elif "=" in item:
            _parameter(item, values)
        else:
            known = ", ".join([*VERSIONS, *BOARDS, *OPTIONS])
            raise _bad(f"unknown variant item {item!r} (known: {known}, key=value parameters)")
    if values.get("sea_movement") and values.get("board") != "hex91":  # CY-0.1, CY-R59
        raise _bad("sea-movement (Hex Optional Rule a) needs the hex91 board")
    if values.get("version") != "C":  # CY-0.3: e, f, g and the Fortress bonus need terrain
        for name in TERRAIN_ONLY:
            values.pop(name, None)
    return Config(**values)  # type: ignore[arg-type]


def _parameter(item: str, values: dict[str, object]) -> None:
    key, _, value = item.partition("=")
    if key == "dragon_capture_over_mountains":
        if value not in ("true", "false"):
            raise _bad("dragon_capture_over_mountains must be true or false")
        values[key] = value == "true"
    elif key == "combined_mountain_check":
        if value not in ("none", "replace"):
            raise _bad("combined_mountain_check must be none or replace")
        values["combined_replace"] = value == "replace"
    elif key == "fortress_bonus_mode":
        if value not in ("none_above_6", "cap"):
            raise _bad("fortress_bonus_mode must be none_above_6 or cap")
        values["fortress_cap"] = value == "cap"
    elif key == "no_progress_limit":
        if value == "off":
            values[key] = 0
        elif value.isdigit() and int(value) >= 1:
            values[key] = int(value)
        else:
            raise _bad("no_progress_limit must be a positive integer or off")
    elif key == "repetition_count":
        if not value.isdigit() or int(value) < 2:
            raise _bad("repetition_count must be an integer of at least 2")
        values[key] = int(value)
    else:
        raise _bad(
            f"unknown variant parameter {key!r} (known: dragon_capture_over_mountains, "
            "combined_mountain_check, fortress_bonus_mode, no_progress_limit, repetition_count)"
        )
