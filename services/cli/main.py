"""The `tabula` command."""

import asyncio
import sys
from pathlib import Path
from typing import Annotated, Any

import msgspec
import typer
from rich.console import Console
from rich.table import Table

from contracts.envelope import StoredEvent
from domain import fairplay
from domain.core import VariantError, fold
from domain.registry import RULESETS, find_ruleset
from services.runtime import config
from services.runtime.codec import decode_log
from services.runtime.eventstore import EventStore

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Tabula: fair, auditable turn-based strategy games.",
)
out = Console(soft_wrap=True)  # never fold positions, hashes or event bodies
err = Console(stderr=True, soft_wrap=True)


def settings() -> config.Settings:
    try:
        return config.load()
    except config.ConfigError as exc:
        err.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from None


def with_store(fn: Any) -> Any:
    async def run() -> Any:
        store = EventStore.from_url(settings().redis_url)
        try:
            return await fn(store)
        finally:
            await store.close()

    return asyncio.run(run())


def load_log(game_id: str) -> list[StoredEvent]:
    stored: list[StoredEvent] = with_store(lambda s: s.read_all(game_id))
    if not stored:
        err.print(f"[red]no game {game_id}[/]")
        raise typer.Exit(1)
    return stored


@app.command()
def up(
    demo: Annotated[int, typer.Option(help="Play this many bot games once the stack is up.")] = 0,
    rules_replicas: Annotated[int, typer.Option(min=1, help="Rules service replicas.")] = 2,
) -> None:
    """Start the embedded stack (NATS, Valkey, every service) and serve until Ctrl-C."""
    import uvloop

    from services.cli.stack import up as run_up

    uvloop.run(run_up(config.home(), rules_replicas, demo))


@app.command()
def demo(
    games: Annotated[int, typer.Option(min=1, help="Games to play concurrently.")] = 1,
    ruleset: Annotated[str, typer.Option(help="Ruleset name.")] = "chess3d",
    variant: Annotated[str, typer.Option(help="Variant string.")] = "",
    seed: Annotated[int, typer.Option(help="Seed of the bots' choices.")] = 0,
) -> None:
    """Bots play N games through matchmaking and the rules service."""
    import uvloop

    from services.cli.demo import run_demo

    s = settings()
    uvloop.run(
        run_demo(s.nats_url, s.redis_url, games, ruleset, variant, err, show=games <= 5, seed=seed)
    )


@app.command()
def games(limit: Annotated[int, typer.Option(help="How many, newest first.")] = 50) -> None:
    """List games, newest first."""
    rows = with_store(lambda s: s.games(limit))
    table = Table("game", "ruleset", "events", "result")
    for game_id, meta in rows:
        result = f"{meta.get('result', '')} {meta.get('reason', '')}".strip() or "in play"
        table.add_row(game_id, meta.get("ruleset", "?"), meta.get("version", "0"), result)
    out.print(table)


@app.command("log")
def show_log(game: str) -> None:
    """Print a game's events: version, time, command, type and body."""
    for s in load_log(game):
        out.print(
            f"{s.version:>5} {s.time_ms} {s.command_id[:12]:<12} {s.type:<14} "
            f"{bytes(s.body).decode()}",
            markup=False,
            highlight=False,
        )


@app.command()
def replay(
    game: str,
    to: Annotated[int | None, typer.Option("--to", help="Stop after this version.")] = None,
) -> None:
    """Rebuild a game from the stored log alone and print the position."""
    stored = load_log(game)
    if to is not None:
        stored = [s for s in stored if s.version <= to]
    ruleset, events = decode_log(stored)
    state = fold(ruleset, events)
    out.print(ruleset.render(state), markup=False, highlight=False)
    out.print(f"position: {ruleset.position(state)}", markup=False, highlight=False)
    outcome = ruleset.outcome(state)
    status = f"{outcome.result} by {outcome.reason}" if outcome else "in play"
    out.print(f"version {stored[-1].version}, {status}")


@app.command()
def verify(game: str) -> None:
    """Check a game's hash chain over the exact stored bytes; exit 1 naming the bad event."""
    stored = load_log(game)
    bad = fairplay.verify_chain(game, [(s.version, s.type, bytes(s.body), s.hash) for s in stored])
    if bad is not None:
        err.print(f"[red]FAILED[/]: the chain breaks at event {bad} of {game}")
        raise typer.Exit(1)
    out.print(f"[green]OK[/]: {len(stored)} events, chain head {stored[-1].hash}")


@app.command()
def perft(
    ruleset: str,
    depth: Annotated[int, typer.Option(min=0, help="Plies to count.")] = 1,
    position: Annotated[str, typer.Option(help="Start position (ruleset notation).")] = "",
    variant: Annotated[str, typer.Option(help="Variant string.")] = "",
) -> None:
    """Count leaf positions of the move tree (the classic move-generator check)."""
    try:
        rs = find_ruleset(ruleset)
        state = rs.start(rs.create(variant, position))
    except VariantError as exc:
        err.print(f"[red]{exc.code}: {exc.reason}[/]")
        raise typer.Exit(2) from None
    out.print(rs.perft(state, depth))  # type: ignore[attr-defined]


@app.command()
def schema(
    out_dir: Annotated[Path, typer.Option("--out", help="Where to write.")] = Path("docs/schemas"),
) -> None:
    """Export JSON Schema for every message into docs/schemas/."""
    from contracts.schemas import all_schemas

    out_dir.mkdir(parents=True, exist_ok=True)
    for name, doc in all_schemas().items():
        (out_dir / f"{name}.json").write_bytes(msgspec.json.format(msgspec.json.encode(doc)))
    out.print(
        f"wrote {len(all_schemas())} schemas to {out_dir} (rulesets: {', '.join(sorted(RULESETS))})"
    )


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
