"""The commands that run or reach the stack: keys, access, up, demo.

What a command needs beyond its signature (the rulesets, NATS, Redis) is imported when it runs.
"""

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from services.cli.common import err, out, servers_answer, settings, with_store
from services.runtime import config


def keys() -> None:
    """The public keys the rules service signs receipts and seals with (Ed25519, hex)."""
    from services.cli.demo import connect

    async def ask() -> list[str]:
        client = await connect(settings().nats_url)
        try:
            return await client.keys()
        finally:
            await client.close()

    with servers_answer():
        for public in asyncio.run(ask()):
            out.print(public, highlight=False)


def write_access(
    folder: Annotated[Path, typer.Argument(help="Where to write them (created, 0700).")],
) -> None:
    """Close servers of your own to all but Tabula's users: write a password per role
    (credentials.json, kept and reused), nats-server's users and permissions (nats-users.conf),
    Valkey's ACL (users.acl) and PostgreSQL's roles (postgres-roles.sql), all 0600. See
    deploy/README.md."""
    from services.runtime import access

    try:
        creds = access.load_or_create(folder)
        nats_conf, acl = access.write_server_files(folder, creds)
    except OSError as exc:
        err.print(f"cannot write {exc.filename}: {exc.strerror}", style="red", markup=False,
                  highlight=False)  # fmt: skip
        raise typer.Exit(2) from None
    roles = folder / "postgres-roles.sql"
    out.print(f"wrote {folder / 'credentials.json'}, {nats_conf}, {acl} and {roles} (run it "
              "with psql as a superuser)", highlight=False)  # fmt: skip
    out.print("each process connects as its role, e.g. NATS_URL=nats://rules:<password>@host:4222 "
              "REDIS_URL=redis://rules:<password>@host:6379/0 "
              "DATABASE_URL=postgresql://rules:<password>@host:5432/tabula (passwords in "
              "credentials.json)",
              markup=False, highlight=False)  # fmt: skip


def up(
    demo: Annotated[int, typer.Option(help="Play this many bot games once the stack is up.")] = 0,
    rules_replicas: Annotated[int, typer.Option(min=1, help="Rules service replicas.")] = 2,
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="The gateway's port (0: any free one).")
    ] = 8000,
    host: Annotated[str, typer.Option(help="The gateway's address.")] = "127.0.0.1",
    cluster: Annotated[
        bool,
        typer.Option(
            help="A NATS cluster of 3 nodes and a Valkey cluster of 3 primaries with a replica "
            "each, fresh for this run, and 2 of every service and of the gateway."
        ),
    ] = False,
) -> None:
    """Start the embedded stack (NATS, Valkey, PostgreSQL, every service, the gateway) and serve
    until Ctrl-C."""
    import uvloop

    from services.cli.stack import StackRunning
    from services.cli.stack import up as run_up
    from services.runtime.embedded import EmbeddedError

    try:
        uvloop.run(run_up(config.home(), rules_replicas, demo, host, port, cluster))
    except StackRunning as exc:
        err.print(f"[red]{exc}[/]: stop it first, or set TABULA_HOME to another directory")
        raise typer.Exit(1) from None
    except EmbeddedError as exc:  # a server or the gateway could not start: one line, not a trace
        err.print(f"[red]{exc}[/]")
        raise typer.Exit(1) from None


def demo(
    games: Annotated[int, typer.Option(min=1, help="Games to play concurrently.")] = 1,
    ruleset: Annotated[str, typer.Option(help="Ruleset name.")] = "chess3d",
    variant: Annotated[str, typer.Option(help="Variant string.")] = "",
    seed: Annotated[int, typer.Option(help="Seed of the bots' choices.")] = 0,
    audit_all: Annotated[
        bool, typer.Option("--audit", help="Then audit every game played (exit 1 if one fails).")
    ] = False,
    receipts: Annotated[
        Path | None, typer.Option(help="Keep the bots' signed receipts here (JSON Lines).")
    ] = None,
) -> None:
    """Bots play N games through matchmaking and the rules service."""
    import uvloop

    from services.cli.demo import run_demo
    from services.cli.records import audit_games, named, print_report
    from services.runtime.bus import TabulaError
    from services.runtime.codec import CorruptEntry

    check_variant(ruleset, variant)  # here, before any bot asks the services
    s = settings()
    with servers_answer():
        try:
            play = run_demo(s.nats_url, games, ruleset, variant, err, show=games <= 5,
                            seed=seed, receipts=receipts)  # fmt: skip
            results = uvloop.run(play)
        except TabulaError as exc:  # e.g. services that know other rulesets than this CLI
            err.print(f"demo: {exc}", style="red", markup=False, highlight=False)
            raise typer.Exit(1) from None
    if audit_all:
        ids = sorted({r.game_id for r in results})
        try:
            failed = [r for r in with_store(lambda st: audit_games(st, ids)) if not r.ok]
        except CorruptEntry as exc:  # a malformed stored entry: named in one line
            raise named(exc) from None
        for report in failed:
            print_report(report, "the store")
        colour = "red" if failed else "green"
        err.print(f"[{colour}]audit: {len(ids) - len(failed)} of {len(ids)} games pass[/]")
        if failed:
            raise typer.Exit(1)


def check_variant(ruleset: str, variant: str) -> None:
    """Exit 2 naming the problem if the ruleset is unknown or refuses the variant."""
    from domain.core import VariantError
    from domain.registry import find_ruleset

    try:
        find_ruleset(ruleset).create(variant)
    except VariantError as exc:
        err.print(f"{exc.code}: {exc.reason}", style="red", markup=False, highlight=False)
        raise typer.Exit(2) from None
