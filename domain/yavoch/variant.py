"""The configuration of Y-0.4 and the variant string that names it.

Grammar (docs/rules/yavoch.md; read by domain/core/variant.py): the ruleset `decker` or `full`
("" is `decker`), then any parameters `key=value` joined by `+`, each at most once, e.g.
`full+hand_limit=4+turn_limit=60`; the cards' parameters are the full ruleset's only. The
canonical form is the ruleset, then the parameters that differ from the default, sorted.
"""

from dataclasses import dataclass, field
from typing import Final, cast

from contracts.errors import ErrorCode
from domain.core import VariantError
from domain.core import variant as shared
from domain.core.variant import Parameter, ParamType, Value, Values, Variant, VariantSpec
from domain.yavoch.field import CORE_DEFINITIONS, CoreDefinition
from domain.yavoch.pieces import COMPONENTS, IMPACTS, MARKINGS, RECIPES, Fleet

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
WEAPONS: Final = {  # Y-2.8: the secret weapons' names, for the recipes' descriptions
    "TB": "Tractor Beam",
    "AT": "Antimatter Torpedo",
    "EV": "Evolution",
    "CL": "Cloning",
    "REA": "Remote Energy Absorber",
    "RD": "Revenant Device",
    "HD": "Hyperdrive",
    "DF": "Deflector Field",
    "SD": "Self Destruct",
}


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
        return shared.format_variant(VARIANTS, self)


_DEFAULT: Final = Config()
_FLEET: Final = Fleet()


def _config(values: Values) -> Config:
    try:
        fleet = Fleet(
            command=values.number("fleet.command"),
            neornith=values.number("fleet.neornith"),
            squam=values.number("fleet.squam"),
            archid=values.number("fleet.archid"),
            trych=values.number("fleet.trych"),
            gate_pairs=values.number("fleet.gate_pairs"),
        )
    except ValueError as exc:  # Y-2.1: the fleet must fit its home levels
        raise VariantError(ErrorCode.BAD_VARIANT, str(exc)) from None
    return Config(
        ruleset=values.text("ruleset"),
        fleet=fleet,
        capacity_ship=values.number("capacity.ship"),
        capacity_trych=values.number("capacity.trych"),
        start_energy=values.number("start_energy"),
        command_ship_defence=values.number("command_ship_defence"),
        neornith_intermediate_on_field=values.flag("neornith_intermediate_on_field"),
        core_definition=cast(CoreDefinition, values.text("core_definition")),
        quadrants=values.text("quadrants"),
        turn_limit=values.number("turn_limit"),
        deck_copies=values.number("deck.copies"),
        deck_impacts=values.texts("deck.impacts"),
        recipes=tuple((code, values.texts(f"recipe.{code}")) for code in RECIPES),
        hand_limit=values.number("hand_limit"),
        defence_window_always=values.flag("defence_window_always"),
    )


def _values(config: Config) -> dict[str, Value]:
    fleet = config.fleet
    return {
        "ruleset": config.ruleset,
        "fleet.command": fleet.command,
        "fleet.neornith": fleet.neornith,
        "fleet.squam": fleet.squam,
        "fleet.archid": fleet.archid,
        "fleet.trych": fleet.trych,
        "fleet.gate_pairs": fleet.gate_pairs,
        "capacity.ship": config.capacity_ship,
        "capacity.trych": config.capacity_trych,
        "start_energy": config.start_energy,
        "command_ship_defence": config.command_ship_defence,
        "neornith_intermediate_on_field": config.neornith_intermediate_on_field,
        "core_definition": config.core_definition,
        "quadrants": config.quadrants,
        "turn_limit": config.turn_limit,
        "deck.copies": config.deck_copies,
        "deck.impacts": config.deck_impacts,
        **{f"recipe.{code}": parts for code, parts in config.recipes},
        "hand_limit": config.hand_limit,
        "defence_window_always": config.defence_window_always,
    }


def _count(
    name: str, description: str, default: int, least: int = 0, only: tuple[str, ...] = ()
) -> Parameter:
    return Parameter(name, description, ParamType.INT, default, minimum=least, only=only)


FULL: Final = ("full",)  # Y-0.4: the cards, hands and weapons are the full ruleset's only


VARIANTS: Final = VariantSpec(
    key="ruleset",
    first=True,
    variants=(
        Variant("decker", "Captain Decker's Yavoch"),
        Variant("full", "The Full Yavoch: decker plus cards, impact events and secret weapons"),
    ),
    parameters=(
        _count("fleet.command", "Command ships per side (Y-2.1)", _FLEET.command, 1),
        _count("fleet.neornith", "Neornith per side (Y-2.1)", _FLEET.neornith),
        _count("fleet.squam", "Squam per side (Y-2.1)", _FLEET.squam),
        _count("fleet.archid", "Archids per side (Y-2.1)", _FLEET.archid),
        _count("fleet.trych", "Trych per side (Y-2.1)", _FLEET.trych),
        _count("fleet.gate_pairs", "pairs of teleport gates per side (Y-2.1)", _FLEET.gate_pairs),
        _count(
            "capacity.ship",
            "the most energy a Command ship, Neornith, Squam or Archid carries (Y-5.50)",
            _DEFAULT.capacity_ship,
            1,
        ),
        _count(
            "capacity.trych", "the most energy a Trych carries (Y-5.50)", _DEFAULT.capacity_trych, 1
        ),
        _count(
            "start_energy",
            "energy placed on each non-Trych ship at setup (Y-3.5)",
            _DEFAULT.start_energy,
        ),
        _count(
            "command_ship_defence",
            "the energy a Command ship counts as when attacked (Y-5.22)",
            _DEFAULT.command_ship_defence,
            1,
        ),
        Parameter(
            "neornith_intermediate_on_field",
            "a Neornith hop needs an on-field intermediate position (Y-5.13)",
            ParamType.BOOL,
            _DEFAULT.neornith_intermediate_on_field,
        ),
        Parameter(
            "core_definition",
            "which positions are core positions (Y-1.9)",
            ParamType.CHOICE,
            _DEFAULT.core_definition,
            values=CORE_DEFINITIONS,
        ),
        Parameter(
            "quadrants",
            "the 3 x 3 blocks (1-4) that the rolls 6, 7, 8, 9 name (Y-1.10)",
            ParamType.PERMUTATION,
            _DEFAULT.quadrants,
            values=tuple(BLOCKS),
        ),
        _count(
            "turn_limit",
            "turns per player after which the game is drawn; 0: none (Y-8.9)",
            _DEFAULT.turn_limit,
        ),
        _count(
            "deck.copies",
            "copies of each component card in the deck (Y-2.7)",
            _DEFAULT.deck_copies,
            1,
            only=FULL,
        ),
        Parameter(
            "deck.impacts",
            "the impact cards in the deck (Y-2.7)",
            ParamType.SUBSET,
            _DEFAULT.deck_impacts,
            values=IMPACTS,
            only=FULL,
        ),
        *(
            Parameter(
                f"recipe.{code}",
                f"the components of the {WEAPONS.get(code, code)} (Y-2.8)",
                ParamType.COMBINATION,
                parts,
                values=COMPONENTS[:-1],
                size=3,
                only=FULL,
            )
            for code, parts in DEFAULT_RECIPES.items()
        ),
        _count(
            "hand_limit",
            "cards a hand holds at the end of a turn (Y-6.13)",
            _DEFAULT.hand_limit,
            3,
            only=FULL,
        ),
        Parameter(
            "defence_window_always",
            "open a defensive-response window whenever public facts allow one (Y-5.96)",
            ParamType.BOOL,
            _DEFAULT.defence_window_always,
            only=FULL,
        ),
    ),
    to_config=_config,
    from_config=_values,
)


def parse_variant(text: str) -> Config:
    """Parse the variant grammar above; raises VariantError (bad-variant) with the reason."""
    return shared.parse(VARIANTS, text)
