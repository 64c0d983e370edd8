"""The configuration of Y-0.4 and the variant string that names it.

Grammar (docs/rules/yavoch.md): the ruleset `decker` or `full` ("" is `decker`), then any
parameters `key=value` joined by `+`, each at most once, e.g. `full+hand_limit=4+turn_limit=60`.
The canonical form is the ruleset, then the parameters that differ from the default, sorted.
"""

from dataclasses import dataclass, field, fields
from typing import Final

from contracts.errors import ErrorCode
from domain.core import VariantError
from domain.yavoch.field import CORE_DEFINITIONS, CoreDefinition
from domain.yavoch.pieces import COMPONENTS, IMPACTS, MARKINGS, RECIPES, RULESETS, Fleet

# Y-1.10 `quadrants`: the four 3 x 3 blocks of a level, named by number; the table maps die rolls
# 6, 7, 8, 9 to blocks. Default "1234": Alpha = block 1 (x <= 3, y <= 3), and so on.
BLOCKS: Final = {
    "1": (range(1, 4), range(1, 4)),
    "2": (range(3, 6), range(1, 4)),
    "3": (range(3, 6), range(3, 6)),
    "4": (range(1, 4), range(3, 6)),
}
# Y-2.8 `recipes`, written code -> components (sorted, for a canonical form).
DEFAULT_RECIPES: Final = {code: tuple(sorted(parts)) for code, (_, parts) in RECIPES.items()}


def _bad(reason: str) -> VariantError:
    return VariantError(ErrorCode.BAD_VARIANT, reason)


@dataclass(frozen=True, slots=True)
class Config:
    """Y-0.4: every parameter, defaults the official ruleset's."""

    ruleset: str = "decker"
    fleet: Fleet = field(default_factory=Fleet)
    capacity_ship: int = 5
    capacity_trych: int = 1
    start_energy: int = 1
    command_ship_defence: int = 7
    neornith_intermediate_on_field: bool = True
    core_definition: CoreDefinition = "board_lines"
    quadrants: str = "1234"  # blocks for rolls 6, 7, 8, 9
    turn_limit: int = 0  # 0: none (Y-8.9)
    deck_copies: int = 1  # [FULL] Y-2.7: each component card this many times
    deck_impacts: tuple[str, ...] = IMPACTS  # [FULL] Y-2.7: the impact cards in the deck
    recipes: tuple[tuple[str, tuple[str, ...]], ...] = tuple(DEFAULT_RECIPES.items())
    hand_limit: int = 5  # [FULL] Y-6.13
    defence_window_always: bool = True  # [FULL] Y-5.96

    @property
    def full(self) -> bool:
        return self.ruleset == "full"

    @property
    def deck(self) -> tuple[str, ...]:
        """Y-2.7 / Y-6.10: the deck in canonical order."""
        components = tuple(
            f"C-{c}-{m}" for c in COMPONENTS for m in MARKINGS for _ in range(self.deck_copies)
        )
        return components + tuple(f"I-{i}" for i in IMPACTS if i in self.deck_impacts)

    def recipe(self, code: str) -> tuple[str, ...]:
        return dict(self.recipes)[code]

    @property
    def variant(self) -> str:
        params = []
        default = Config()
        for f in fields(self):
            value, base = getattr(self, f.name), getattr(default, f.name)
            if f.name in ("ruleset", "fleet", "recipes", "deck_impacts") or value == base:
                continue
            if isinstance(value, bool):
                value = "true" if value else "false"
            key = next((k for k, (name, _) in _INTS.items() if name == f.name), f.name)
            params.append(f"{key}={value}")
        for kind, n in _fleet_items(self.fleet):
            if n != dict(_fleet_items(default.fleet))[kind]:
                params.append(f"fleet.{kind}={n}")
        if self.deck_impacts != default.deck_impacts:
            params.append("deck.impacts=" + ("/".join(self.deck_impacts) or "none"))
        for code, parts in self.recipes:
            if parts != DEFAULT_RECIPES[code]:
                params.append(f"recipe.{code}={'/'.join(parts)}")
        return "+".join([self.ruleset, *sorted(params)])


def _fleet_items(fleet: Fleet) -> list[tuple[str, int]]:
    return [(f.name, getattr(fleet, f.name)) for f in fields(fleet)]


_INTS: Final = {  # key -> (field, minimum)
    "capacity.ship": ("capacity_ship", 1),
    "capacity.trych": ("capacity_trych", 1),
    "start_energy": ("start_energy", 0),
    "command_ship_defence": ("command_ship_defence", 1),
    "turn_limit": ("turn_limit", 0),
    "hand_limit": ("hand_limit", 3),
    "deck.copies": ("deck_copies", 1),
}
_BOOLS: Final = {
    "neornith_intermediate_on_field": "neornith_intermediate_on_field",
    "defence_window_always": "defence_window_always",
}


def parse_variant(text: str) -> Config:
    """Parse the variant grammar above; raises VariantError (bad-variant) with the reason."""
    items = text.strip().split("+") if text.strip() else []
    ruleset = "decker"
    if items and "=" not in items[0]:
        ruleset = items.pop(0)
        if ruleset not in RULESETS:
            raise _bad(f"Y-0.1: the rulesets are decker and full, not {ruleset!r}")
    values: dict[str, object] = {"ruleset": ruleset}
    fleet: dict[str, int] = dict(_fleet_items(Fleet()))
    recipes = dict(DEFAULT_RECIPES)
    seen: set[str] = set()
    for item in items:
        key, eq, value = item.partition("=")
        if not eq:
            raise _bad(f"variant item {item!r}: the ruleset comes first; then key=value")
        if key in seen:
            raise _bad(f"variant parameter {key!r} given twice")
        seen.add(key)
        if key in _INTS:
            name, least = _INTS[key]
            values[name] = _int(key, value, least)
        elif key in _BOOLS:
            if value not in ("true", "false"):
                raise _bad(f"{key} must be true or false")
            values[_BOOLS[key]] = value == "true"
        elif key == "core_definition":
            if value not in CORE_DEFINITIONS:
                raise _bad(f"core_definition must be one of {', '.join(CORE_DEFINITIONS)}")
            values[key] = value
        elif key == "quadrants":
            if sorted(value) != sorted(BLOCKS):
                raise _bad("quadrants names the blocks for rolls 6-9, a permutation of 1234")
            values[key] = value
        elif key.startswith("fleet.") and key[6:] in fleet:
            fleet[key[6:]] = _int(key, value, 1 if key == "fleet.command" else 0)
        elif key == "deck.impacts":
            codes = () if value == "none" else tuple(value.split("/"))
            if not set(codes) <= set(IMPACTS) or len(set(codes)) != len(codes):
                raise _bad(f"deck.impacts: none, or distinct codes of {'/'.join(IMPACTS)}")
            values["deck_impacts"] = tuple(i for i in IMPACTS if i in codes)
        elif key.startswith("recipe.") and key[7:] in recipes:
            parts = tuple(sorted(value.split("/")))
            if len(parts) != 3 or not set(parts) <= set(COMPONENTS) - {"ANY"}:
                raise _bad(f"{key}: three components of {'/'.join(COMPONENTS[:-1])}")
            recipes[key[7:]] = parts
        else:
            raise _bad(
                f"unknown variant parameter {key!r} (known: {', '.join(_INTS)}, "
                f"{', '.join(_BOOLS)}, core_definition, quadrants, fleet.<kind>, deck.impacts, "
                "recipe.<code>)"
            )
    try:
        values["fleet"] = Fleet(**fleet)
    except ValueError as exc:
        raise _bad(str(exc)) from None
    values["recipes"] = tuple(recipes.items())
    full_only = {"hand_limit", "defence_window_always", "deck.copies", "deck.impacts"}
    if ruleset == "decker" and seen & (full_only | {f"recipe.{c}" for c in recipes}):
        raise _bad("Y-0.4: cards, hands and recipes are parameters of the full ruleset only")
    return Config(**values)  # type: ignore[arg-type]


def _int(key: str, value: str, least: int) -> int:
    if not value.isdigit() or int(value) < least:
        raise _bad(f"{key} must be an integer of at least {least}")
    return int(value)
