"""The `tabula` command: the app and its commands, in the order `tabula --help` lists them.

The commands live by concern: stack_commands (keys, access, up, demo), records (games, log,
replay, verify, audit, export, import), fair (the `fair` group), projections (the read model's
`rebuild`, and `ratings`), analysis (perft, legal, rulesets, schema), duel (bot levels against
each other, in process); common holds what they share (the consoles, the settings, reading the
store).

Each command's module is imported only when that command runs or shows its help (`tabula
--help`, listing them all, imports them all): the rulesets, NATS and Redis take most of a
second to import, which `tabula keys --help` or `tabula fair` should not pay.
"""

import importlib
import sys
from collections.abc import Iterator, MutableMapping
from typing import Any

import typer
from typer.core import TyperGroup

# name -> (module, attribute): a command function, or a Typer group (`fair`).
COMMANDS = {
    "keys": ("services.cli.stack_commands", "keys"),
    "access": ("services.cli.stack_commands", "write_access"),
    "up": ("services.cli.stack_commands", "up"),
    "demo": ("services.cli.stack_commands", "demo"),
    "games": ("services.cli.records", "games"),
    "log": ("services.cli.records", "show_log"),
    "replay": ("services.cli.records", "replay"),
    "verify": ("services.cli.records", "verify"),
    "audit": ("services.cli.records", "audit_game"),
    "export": ("services.cli.records", "export_game"),
    "import": ("services.cli.records", "import_game"),
    "perft": ("services.cli.analysis", "perft"),
    "legal": ("services.cli.analysis", "legal"),
    "duel": ("services.cli.duel", "duel"),
    "rulesets": ("services.cli.analysis", "rulesets"),
    "schema": ("services.cli.analysis", "schema"),
    "fair": ("services.cli.fair", "fair"),
    "projections": ("services.cli.projections", "projections"),
    "ratings": ("services.cli.projections", "ratings"),
}


# A command's type is typer's vendored click's (typer._click, private): held here as Any.
class LazyCommands(MutableMapping[str, Any]):
    """The app's commands by name (all of COMMANDS), each built from its module when first
    looked up."""

    def __init__(self) -> None:
        self.built: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self.built:
            module, attribute = COMMANDS[name]  # KeyError for any other name, as a dict's
            found = getattr(importlib.import_module(module), attribute)
            if isinstance(found, typer.Typer):
                command: Any = typer.main.get_group(found)
            else:
                one = typer.Typer(add_completion=False)
                one.command(name)(found)
                command = typer.main.get_command(one)
            command.name = name
            self.built[name] = command
        return self.built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self.built[name] = command

    def __delitem__(self, name: str) -> None:
        del self.built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*COMMANDS, *self.built]))

    def __len__(self) -> int:
        return len(dict.fromkeys([*COMMANDS, *self.built]))


class Tabula(TyperGroup):
    """The app's group over LazyCommands: Typer looks a command up by name (and suggests a
    close name from all of them), so only the one run is imported."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = LazyCommands()

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)  # the names alone: TyperGroup's would build every command


app = typer.Typer(
    cls=Tabula,
    no_args_is_help=True,
    add_completion=False,
    help="Tabula: fair, auditable turn-based strategy games.",
)


@app.callback()
def tabula() -> None:
    """Tabula: fair, auditable turn-based strategy games."""  # a callback makes `app` a group


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
