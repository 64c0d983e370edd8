"""The `tabula` command: the app and its commands, in the order `tabula --help` lists them.

The commands live by concern: stack_commands (keys, access, up, demo), records (games, log,
replay, verify, audit, export, import), fair (the `fair` group), analysis (perft, legal,
rulesets, schema); common holds what they share (the consoles, the settings, reading the store).
"""

import sys

import typer

from services.cli import analysis, fair, records, stack_commands

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Tabula: fair, auditable turn-based strategy games.",
)

app.command()(stack_commands.keys)
app.command("access")(stack_commands.write_access)
app.command()(stack_commands.up)
app.command()(stack_commands.demo)
app.command()(records.games)
app.command("log")(records.show_log)
app.command()(records.replay)
app.command()(records.verify)
app.command("audit")(records.audit_game)
app.command("export")(records.export_game)
app.command("import")(records.import_game)
app.add_typer(fair.fair, name="fair")
app.command()(analysis.perft)
app.command()(analysis.legal)
app.command()(analysis.rulesets)
app.command()(analysis.schema)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
