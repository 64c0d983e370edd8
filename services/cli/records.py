"""The commands that read, check and move a game's record: games, log, replay, verify, audit,
export, import."""

import base64
import binascii
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import msgspec
import typer
from rich.markup import escape
from rich.table import Table

from contracts.envelope import StoredEvent
from domain import fairplay
from domain.audit import AuditReport, audit, chain_entries, check_head
from domain.core import table as tables
from services.cli.common import (
    SOURCES,
    archive_url,
    err,
    load_game,
    load_log,
    out,
    read_game,
    with_store,
)
from services.runtime.codec import Exported, decode_log, export_line
from services.runtime.eventstore import EventStore, GameExists


async def audit_games(store: EventStore, game_ids: list[str]) -> list[AuditReport]:
    return [audit(*await read_game(store, game_id)) for game_id in game_ids]


def games(limit: Annotated[int, typer.Option(help="How many, newest first.")] = 50) -> None:
    """List games, newest first."""
    rows = with_store(lambda s: s.games(limit))
    table = Table("game", "ruleset", "events", "result")
    for game_id, meta in rows:
        result = f"{meta.get('result', '')} {meta.get('reason', '')}".strip() or "in play"
        table.add_row(game_id, meta.get("ruleset", "?"), meta.get("version", "0"), result)
    out.print(table)


def named(exc: Exception) -> typer.Exit:
    """A stored entry the store's writers cannot have written (codec.CorruptEntry, naming the
    game, the entry and what is wrong): one line, and the exit to raise."""
    err.print(f"[red]FAILED[/]: {escape(str(exc))}", highlight=False)
    return typer.Exit(1)


def show_log(game: str) -> None:
    """Print a game's events: version, time, command, type and body."""
    from services.runtime.codec import CorruptEntry

    try:
        stored = load_log(game)
    except CorruptEntry as exc:
        raise named(exc) from None
    for s in stored:
        out.print(
            f"{s.version:>5} {s.time_ms} {s.command_id[:12]:<12} {s.type:<14} "
            f"{bytes(s.body).decode()}",
            markup=False,
            highlight=False,
        )


def replay(
    game: Annotated[str | None, typer.Argument(help="Game id (read from Redis).")] = None,
    to: Annotated[int | None, typer.Option("--to", help="Stop after this version.")] = None,
    file: Annotated[
        Path | None, typer.Option("--file", "-f", help="Rebuild offline from an export.")
    ] = None,
) -> None:
    """Rebuild a game from the stored log alone (or an export) and print the position."""
    stored = log_from(game, file)
    what = str(file) if file is not None else game
    if to is not None:
        last = stored[-1].version
        if not 1 <= to <= last:
            err.print(f"--to {to} is not a version of {what} (1..{last})", style="red",
                      markup=False, highlight=False)  # fmt: skip
            raise typer.Exit(2)
        stored = [s for s in stored if s.version <= to]
    try:
        ruleset, events = decode_log(stored)
        table = tables.fold(ruleset, stored[0].game_id, events)  # as the rules service folds it
    except Exception as exc:  # noqa: BLE001  # a damaged log breaks the fold anywhere: the audit names where
        err.print(f"cannot replay {what}: {exc}; `tabula audit` names the bad event",
                  style="red", markup=False, highlight=False)  # fmt: skip
        raise typer.Exit(1) from None
    out.print(ruleset.render(table.game), markup=False, highlight=False)
    out.print(f"position: {ruleset.position(table.game)}", markup=False, highlight=False)
    outcome = tables.outcome(table)
    status = f"{outcome.result} by {outcome.reason}" if outcome else f"in {tables.phase(table)}"
    out.print(f"version {stored[-1].version}, {status}")


def verify(game: str) -> None:
    """Check a game's hash chain over the exact stored bytes, and that it ends at the store's
    head; exit 1 naming the bad or missing event."""
    from services.runtime.codec import CorruptEntry

    try:
        stored, head, where = load_game(game)
    except CorruptEntry as exc:
        raise named(exc) from None
    entries = chain_entries(stored)
    try:
        bad = fairplay.verify_chain(game, entries)
    except ValueError as exc:  # a game id the protocol does not allow
        err.print(f"[red]FAILED[/]: cannot check the chain of {escape(game)}: {escape(str(exc))}")
        raise typer.Exit(1) from None
    if bad is not None:
        err.print(f"[red]FAILED[/]: the chain breaks at event {bad} of {game}")
        raise typer.Exit(1)
    failure = check_head(stored, head)
    if failure is not None:
        err.print(f"[red]FAILED[/]: {game}: {escape(failure.message)}", highlight=False)
        raise typer.Exit(1)
    chain = fairplay.chain_version(game, entries)
    whose = "the store's head" if where == "hot" else "the head the archive recorded at the seal"
    out.print(f"[green]OK[/]: {len(stored)} events, hash chain v{chain}, chain head "
              f"{stored[-1].hash} ({whose})")  # fmt: skip
    out.print(f"read from: {SOURCES[where]}", highlight=False)
    if where == "hot":
        in_archive(game, stored[-1].version, stored[-1].hash)


def in_archive(game: str, version: int, digest: str) -> None:
    """One line: whether the archive holds the game too, and whether its copy's head is the
    store's (exit 1 when it is not). Nothing when there is no PostgreSQL to ask."""
    import psycopg

    if not (url := archive_url()):
        return
    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            row = conn.execute("SELECT head_version, head_hash FROM archived_games "
                               "WHERE game_id = %s", (game,)).fetchone()  # fmt: skip
    except psycopg.Error as exc:
        err.print(f"archive: not read ({escape(str(exc).strip())})", highlight=False)
        return
    if row is None:
        out.print("archive: not archived (yet): the hot store alone holds it")
    elif tuple(row) == (version, digest):
        out.print(f"archive: holds it too, its head (version {version}) the store's")
    else:
        err.print(f"[red]FAILED[/]: the archive's copy of {game} ends at version {row[0]} "
                  f"({row[1]}), the store's at {version} ({digest})", highlight=False)  # fmt: skip
        raise typer.Exit(1)


# -- audit, export, import ---------------------------------------------------------------------


def read_export(path: Path) -> list[StoredEvent]:
    """The stored events of an export file; exit 2 naming the line that cannot be read."""
    return read_export_copies(path)[0]


def read_export_copies(path: Path) -> tuple[list[StoredEvent], list[tuple[int, object] | None]]:
    """The stored events of an export file, and each line's readable copy of its body (its line
    number and `event`; None for a line without one, which an older export may be); exit 2
    naming the line that cannot be read."""
    try:
        lines = path.read_bytes().splitlines()
    except OSError as exc:
        err.print(f"[red]cannot read {path}: {exc.strerror}[/]")
        raise typer.Exit(2) from None
    stored: list[StoredEvent] = []
    copies: list[tuple[int, object] | None] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            e = msgspec.json.decode(line, type=Exported)
            body = base64.b64decode(e.body_b64, validate=True)
        # RecursionError: msgspec's refusal of a value nested too deep
        except (msgspec.DecodeError, binascii.Error, RecursionError) as exc:
            err.print(
                f"{path}:{number}: not a Tabula export line: {exc}", style="red", markup=False
            )
            raise typer.Exit(2) from None
        stored.append(StoredEvent(game_id=e.game_id, version=e.version, type=e.type,
                                  body=msgspec.Raw(body), time_ms=e.time_ms,
                                  command_id=e.command_id, hash=e.hash,
                                  action=e.action))  # fmt: skip
        copies.append(None if e.event is msgspec.UNSET else (number, e.event))
    if not stored:
        err.print(f"[red]{path} holds no events[/]")
        raise typer.Exit(2)
    return stored, copies


def log_from(game: str | None, file: Path | None) -> list[StoredEvent]:
    """A game's log from Redis (GAME) or from an export (--file): exactly one of them."""
    from services.runtime.codec import CorruptEntry

    one_source(game, file)
    try:
        return read_export(file) if file is not None else load_log(game or "")
    except CorruptEntry as exc:
        raise named(exc) from None


def one_source(game: str | None, file: Path | None) -> None:
    if (game is None) == (file is None):
        err.print("[red]give either a game id or --file FILE[/]")
        raise typer.Exit(2)


Signed = tuple[str, int, str | None]  # a signature check: name, how many, the failure if any


def print_report(report: AuditReport, source: str, signed: Sequence[Signed] = ()) -> None:
    title = f"Audit of {report.game_id or '?'}"
    if report.ruleset:
        title += f" ({report.ruleset})"
    out.print(f"[bold]{title}[/] from {source}: {report.events} events, {report.status}",
              highlight=False)  # fmt: skip
    for check in report.checks:
        out.print(f"  [green]✓[/] {check.name}: {check.detail}", highlight=False)
    for name, count, failure in signed:
        if failure is None:
            out.print(f"  [green]✓[/] {name}: {count} verified", highlight=False)
        else:
            out.print(f"  [red]✗[/] {name}: {escape(failure)}", highlight=False)
    for note in report.notes:
        out.print(f"  [yellow]•[/] {note}", highlight=False)
    if report.failure is not None:
        version, type_, message = report.failure
        out.print(f"  [red]✗[/] event {version} ({type_}): {message}", highlight=False)
        out.print(f"[red]FAILED[/]: the first discrepancy is at event {version} ({type_})",
                  highlight=False)  # fmt: skip
    elif any(failure for _, _, failure in signed):
        out.print("[red]FAILED[/]: the log is not the history the service signed")
    else:
        out.print(f"[green]OK[/]: all checks passed, chain head {report.head}", highlight=False)


def audit_game(
    game: Annotated[str | None, typer.Argument(help="Game id (read from Redis).")] = None,
    file: Annotated[
        Path | None, typer.Option("--file", "-f", help="Audit an export offline.")
    ] = None,
    receipts: Annotated[
        Path | None,
        typer.Option(help="Receipts a player kept (JSON Lines): every head must be in the log."),
    ] = None,
    key: Annotated[
        list[str] | None,
        typer.Option(help="Pin the service's signing key (from `tabula keys`); repeatable."),
    ] = None,
) -> None:
    """Check a game against the fair-play protocol; exit 1 at the first discrepancy.

    Checks the hash chain, the seed commitments and reveals, every draw, card and setup, the
    seal, and a replay through the table. GAME reads Redis, and checks that the log ends at the
    store's head (no event cut off); --file reads an export. Signed seals are verified, and
    with --receipts every head the service signed to a player must be in the log.
    """
    one_source(game, file)
    # An export has no store head: its report says the tail went unchecked.
    if file is not None:
        stored, copies = read_export_copies(file)
        report = audit(stored, readable=copies)
    else:
        from services.runtime.codec import CorruptEntry

        try:
            stored, head, where = load_game(game or "")
        except CorruptEntry as exc:  # an entry that is not even a stored event
            raise named(exc) from None
        report = audit(stored, head)
    signed = signature_checks(stored, receipts, key)
    print_report(report, str(file) if file is not None else SOURCES[where], signed)
    if not report.ok or any(failure for _, _, failure in signed):
        raise typer.Exit(1)


def signature_checks(stored: list[StoredEvent], receipts: Path | None, keys: list[str] | None
                     ) -> list[Signed]:  # fmt: skip
    """The signed seals in the log, and the receipts given, checked."""
    from services.runtime.signing import check_receipts, check_seals, read_receipts

    pinned = keys or []
    checks: list[Signed] = [("signed seals", *check_seals(stored, pinned))]
    if receipts is not None:
        try:
            kept = read_receipts(receipts.read_bytes())
        except (OSError, msgspec.DecodeError, msgspec.ValidationError) as exc:
            err.print(f"cannot read receipts {receipts}: {exc}", style="red", markup=False)
            raise typer.Exit(2) from None
        checks.append(("receipts", *check_receipts(stored, kept, pinned)))
    return checks


def export_game(
    game: str,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Default: <game>.tabula.jsonl.")
    ] = None,
) -> None:
    """Write a game's log as JSON Lines: the exact stored bytes (body_b64) with their hashes."""
    stored = log_from(game, None)
    path = output or Path(f"{game}.tabula.jsonl")
    try:
        path.write_bytes(b"".join(export_line(s) for s in stored))
    except OSError as exc:
        err.print(f"cannot write {path}: {exc.strerror}", style="red", markup=False,
                  highlight=False)  # fmt: skip
        raise typer.Exit(2) from None
    out.print(f"wrote {len(stored)} events of {game} to {path}", highlight=False)


def import_game(file: Path) -> None:
    """Load an export into the connected Tabula (refused if the game exists or the chain breaks)."""
    stored = read_export(file)
    game_id = stored[0].game_id
    strays = [s.version for s in stored if s.game_id != game_id]
    if strays:
        err.print(f"[red]REFUSED[/]: event {strays[0]} belongs to another game than {game_id}")
        raise typer.Exit(1)
    entries = chain_entries(stored)
    try:
        bad = fairplay.verify_chain(game_id, entries)
    except ValueError as exc:
        err.print(f"[red]REFUSED[/]: {exc}")
        raise typer.Exit(1) from None
    if bad is not None:
        err.print(f"[red]REFUSED[/]: the chain breaks at event {bad} of {game_id}")
        raise typer.Exit(1)

    async def run(store: EventStore) -> None:
        if await store.archived(game_id) is not None:  # its keys may be gone from Valkey
            raise GameExists(f"game {game_id} is in the archive")
        await store.import_log(stored)

    try:
        with_store(run, admin=True)
    except (GameExists, ValueError, msgspec.DecodeError) as exc:
        err.print(f"[red]REFUSED[/]: {exc}")
        raise typer.Exit(1) from None
    out.print(f"imported {len(stored)} events of {game_id}, chain head {stored[-1].hash}",
              highlight=False)  # fmt: skip
