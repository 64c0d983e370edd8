"""The `tabula` command."""

import asyncio
import base64
import binascii
import contextlib
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any

import msgspec
import nats.errors
import redis.exceptions
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from contracts.envelope import StoredEvent
from domain import fairplay
from domain.audit import AuditReport, StoreHead, audit, chain_entries, check_head
from domain.core import VariantError
from domain.core import table as tables
from domain.core.ruleset import perft_of
from domain.registry import RULESETS, find_ruleset
from services.runtime import config
from services.runtime.codec import decode_log
from services.runtime.eventstore import EventStore, GameExists

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Tabula: fair, auditable turn-based strategy games.",
)
out = Console(soft_wrap=True)  # never fold positions, hashes or event bodies
err = Console(stderr=True, soft_wrap=True)


def settings() -> config.Settings:
    try:
        loaded = config.load()
    except config.ConfigError as exc:
        err.print(f"[red]{exc}[/]")
        raise typer.Exit(2) from None
    if loaded.found_at is not None:
        err.print(f"using the Tabula stack in {loaded.found_at}", style="dim", highlight=False)
    return loaded


def with_store(fn: Any, admin: bool = False) -> Any:
    """Run `fn(store)`: as the store's read-only user, or its admin (`import` only)."""

    async def run() -> Any:
        s = settings()
        store = EventStore.from_url(s.admin_redis_url if admin else s.redis_url)
        try:
            return await fn(store)
        finally:
            await store.close()

    with servers_answer():
        return asyncio.run(run())


@contextlib.contextmanager
def servers_answer() -> Iterator[None]:
    """A server that cannot be reached, or refuses us, is one red line and exit 1."""
    try:
        yield
    except (redis.exceptions.RedisError, nats.errors.Error, OSError) as exc:
        err.print(server_trouble(exc), style="red", markup=False, highlight=False)
        raise typer.Exit(1) from None


def server_trouble(exc: Exception) -> str:
    """What went wrong, in one line. Never the URL: it may carry a password."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError):
        return f"cannot reach Redis: {text}"
    if isinstance(exc, redis.exceptions.RedisError):
        return f"Redis refused: {text}"
    if isinstance(exc, nats.errors.Error):
        return f"NATS: {text}"
    return f"cannot reach the servers: {text}"


def load_log(game_id: str) -> list[StoredEvent]:
    stored: list[StoredEvent] = with_store(lambda s: s.read_all(game_id))
    if not stored:
        err.print(f"[red]no game {game_id}[/]")
        raise typer.Exit(1)
    return stored


READS = 10  # attempts at reading a game in play between two of its appends


async def read_head(store: EventStore, game_id: str) -> StoreHead | None:
    """The store's own record of the game (its meta hash), None when it has none."""
    head = await store.head(game_id)
    return StoreHead(head.version, head.hash, head.result) if head else None


async def read_game(store: EventStore, game_id: str) -> tuple[list[StoredEvent], StoreHead | None]:
    """A game's log and the store's head as of one moment. One script moves both at each
    append, so a head unchanged from before the log was read to after it matches the log; a
    game in play that moved on meanwhile is read again."""
    for _ in range(READS):
        head = await read_head(store, game_id)
        stored = await store.read_all(game_id)
        if await read_head(store, game_id) == head:
            return stored, head
    err.print(f"[red]game {game_id} kept changing while it was read: try again[/]")
    raise typer.Exit(1)


def load_game(game_id: str) -> tuple[list[StoredEvent], StoreHead]:
    """A game's log from Redis with the store's head. A log without a head is checked against
    version 0, so a meta deleted to hide a cut fails too."""
    stored, head = with_store(lambda s: read_game(s, game_id))
    if not stored and head is None:
        err.print(f"[red]no game {game_id}[/]")
        raise typer.Exit(1)
    return stored, head or StoreHead(0, "")


@app.command()
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


@app.command("access")
def write_access(
    folder: Annotated[Path, typer.Argument(help="Where to write them (created, 0700).")],
) -> None:
    """Close servers of your own to all but Tabula's users: write a password per role
    (credentials.json, kept and reused), nats-server's users and permissions (nats-users.conf)
    and Valkey's ACL (users.acl), all 0600. See deploy/README.md."""
    from services.runtime import access

    try:
        creds = access.load_or_create(folder)
        nats_conf, acl = access.write_server_files(folder, creds)
    except OSError as exc:
        err.print(f"cannot write {exc.filename}: {exc.strerror}", style="red", markup=False,
                  highlight=False)  # fmt: skip
        raise typer.Exit(2) from None
    out.print(f"wrote {folder / 'credentials.json'}, {nats_conf} and {acl}", highlight=False)
    out.print("each process connects as its role, e.g. NATS_URL=nats://rules:<password>@host:4222 "
              "REDIS_URL=redis://rules:<password>@host:6379/0 (passwords in credentials.json)",
              markup=False, highlight=False)  # fmt: skip


@app.command()
def up(
    demo: Annotated[int, typer.Option(help="Play this many bot games once the stack is up.")] = 0,
    rules_replicas: Annotated[int, typer.Option(min=1, help="Rules service replicas.")] = 2,
) -> None:
    """Start the embedded stack (NATS, Valkey, every service) and serve until Ctrl-C."""
    import uvloop

    from services.cli.stack import StackRunning
    from services.cli.stack import up as run_up

    try:
        uvloop.run(run_up(config.home(), rules_replicas, demo))
    except StackRunning as exc:
        err.print(f"[red]{exc}[/]: stop it first, or set TABULA_HOME to another directory")
        raise typer.Exit(1) from None


@app.command()
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
    from services.runtime.bus import TabulaError

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
        failed = [r for r in with_store(lambda st: audit_games(st, ids)) if not r.ok]
        for report in failed:
            print_report(report, "Redis")
        colour = "red" if failed else "green"
        err.print(f"[{colour}]audit: {len(ids) - len(failed)} of {len(ids)} games pass[/]")
        if failed:
            raise typer.Exit(1)


def check_variant(ruleset: str, variant: str) -> None:
    """Exit 2 naming the problem if the ruleset is unknown or refuses the variant."""
    try:
        find_ruleset(ruleset).create(variant)
    except VariantError as exc:
        err.print(f"{exc.code}: {exc.reason}", style="red", markup=False, highlight=False)
        raise typer.Exit(2) from None


async def audit_games(store: EventStore, game_ids: list[str]) -> list[AuditReport]:
    return [audit(*await read_game(store, game_id)) for game_id in game_ids]


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
    except Exception as exc:  # a damaged log can break the fold anywhere: the audit names where
        err.print(f"cannot replay {what}: {exc}; `tabula audit` names the bad event",
                  style="red", markup=False, highlight=False)  # fmt: skip
        raise typer.Exit(1) from None
    out.print(ruleset.render(table.game), markup=False, highlight=False)
    out.print(f"position: {ruleset.position(table.game)}", markup=False, highlight=False)
    outcome = tables.outcome(table)
    status = f"{outcome.result} by {outcome.reason}" if outcome else f"in {tables.phase(table)}"
    out.print(f"version {stored[-1].version}, {status}")


@app.command()
def verify(game: str) -> None:
    """Check a game's hash chain over the exact stored bytes, and that it ends at the store's
    head; exit 1 naming the bad or missing event."""
    stored, head = load_game(game)
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
    out.print(f"[green]OK[/]: {len(stored)} events, hash chain v{chain}, chain head "
              f"{stored[-1].hash} (the store's head)")  # fmt: skip


# -- audit, export, import ---------------------------------------------------------------------


class Exported(msgspec.Struct, frozen=True, kw_only=True):
    """One line of an export (JSON Lines): a stored event, its exact bytes in `body_b64`.

    `event` is the decoded body, for reading only: imports and audits trust `body_b64`."""

    game_id: str
    version: int
    type: str
    time_ms: int
    command_id: str
    hash: str
    body_b64: str
    event: Any = None
    action: str = ""  # the command that produced it (chain v2); absent in older exports


def export_line(s: StoredEvent) -> bytes:
    body = bytes(s.body)
    try:
        event: Any = msgspec.json.decode(body)
    except msgspec.DecodeError:
        event = None  # not JSON (a damaged store): body_b64 still holds the bytes
    line = Exported(game_id=s.game_id, version=s.version, type=s.type, time_ms=s.time_ms,
                    command_id=s.command_id, hash=s.hash, action=s.action,
                    body_b64=base64.b64encode(body).decode(), event=event)  # fmt: skip
    return msgspec.json.encode(line) + b"\n"


def read_export(path: Path) -> list[StoredEvent]:
    """The stored events of an export file; exit 2 naming the line that cannot be read."""
    try:
        lines = path.read_bytes().splitlines()
    except OSError as exc:
        err.print(f"[red]cannot read {path}: {exc.strerror}[/]")
        raise typer.Exit(2) from None
    stored: list[StoredEvent] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            e = msgspec.json.decode(line, type=Exported)
            body = base64.b64decode(e.body_b64, validate=True)
        except (msgspec.DecodeError, binascii.Error) as exc:
            err.print(
                f"{path}:{number}: not a Tabula export line: {exc}", style="red", markup=False
            )
            raise typer.Exit(2) from None
        stored.append(StoredEvent(game_id=e.game_id, version=e.version, type=e.type,
                                  body=msgspec.Raw(body), time_ms=e.time_ms,
                                  command_id=e.command_id, hash=e.hash,
                                  action=e.action))  # fmt: skip
    if not stored:
        err.print(f"[red]{path} holds no events[/]")
        raise typer.Exit(2)
    return stored


def log_from(game: str | None, file: Path | None) -> list[StoredEvent]:
    """A game's log from Redis (GAME) or from an export (--file): exactly one of them."""
    one_source(game, file)
    return read_export(file) if file is not None else load_log(game or "")


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


@app.command("audit")
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
        stored = read_export(file)
        report = audit(stored)
    else:
        stored, head = load_game(game or "")
        report = audit(stored, head)
    signed = signature_checks(stored, receipts, key)
    print_report(report, str(file) if file is not None else "Redis", signed)
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


@app.command("export")
def export_game(
    game: str,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Default: <game>.tabula.jsonl.")
    ] = None,
) -> None:
    """Write a game's log as JSON Lines: the exact stored bytes (body_b64) with their hashes."""
    stored = load_log(game)
    path = output or Path(f"{game}.tabula.jsonl")
    try:
        path.write_bytes(b"".join(export_line(s) for s in stored))
    except OSError as exc:
        err.print(f"cannot write {path}: {exc.strerror}", style="red", markup=False,
                  highlight=False)  # fmt: skip
        raise typer.Exit(2) from None
    out.print(f"wrote {len(stored)} events of {game} to {path}", highlight=False)


@app.command("import")
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
        await store.import_log(stored)

    try:
        with_store(run, admin=True)
    except (GameExists, ValueError, msgspec.DecodeError) as exc:
        err.print(f"[red]REFUSED[/]: {exc}")
        raise typer.Exit(1) from None
    out.print(f"imported {len(stored)} events of {game_id}, chain head {stored[-1].hash}",
              highlight=False)  # fmt: skip


# -- fair: check draws by hand ---------------------------------------------------------------

fair = typer.Typer(
    no_args_is_help=True,
    help="Recompute fair-play draws by hand (protocol v1): commit, roll, shuffle.",
)
app.add_typer(fair, name="fair")

ServerSeed = Annotated[str, typer.Option("--server-seed", help="The revealed seed (64 hex).")]
GameOpt = Annotated[str, typer.Option("--game", help="The game id.")]
MixOpt = Annotated[str | None, typer.Option("--mix", help="The mix (64 hex).")]
ClientSeeds = Annotated[
    list[str] | None,
    typer.Option("--client-seed", help="Client seeds in seat order (repeat), instead of --mix."),
]
NonceOpt = Annotated[int, typer.Option("--nonce", min=0, help="The draw's nonce.")]


def fair_mix(mix: str | None, client_seeds: Sequence[str] | None) -> str:
    if (mix is None) == (not client_seeds):
        err.print("[red]give either --mix or one --client-seed per seat, in seat order[/]")
        raise typer.Exit(2)
    return mix if mix is not None else fairplay.mix(list(client_seeds or ()))


def fair_fail(exc: ValueError) -> typer.Exit:
    err.print(str(exc), style="red", markup=False)
    return typer.Exit(2)


@fair.command("commit")
def fair_commit(server_seed: ServerSeed) -> None:
    """Print SHA256(server_seed): it must equal the game's SeedCommitted."""
    try:
        out.print(fairplay.seed_commitment(server_seed), highlight=False)
    except ValueError as exc:
        raise fair_fail(exc) from None


@fair.command("roll")
def fair_roll(
    server_seed: ServerSeed,
    game: GameOpt,
    nonce: NonceOpt,
    n: Annotated[int, typer.Option("--n", help="Faces (die) or range (uniform).")],
    mix: MixOpt = None,
    client_seed: ClientSeeds = None,
    kind: Annotated[str, typer.Option("--kind", help="die (n <= 256) or uniform.")] = "die",
) -> None:
    """Recompute a RandomDrawn: print its value and the stream's first block."""
    try:
        m = fair_mix(mix, client_seed)
        if kind == "die":
            value = fairplay.die(server_seed, game, m, nonce, n)
        elif kind == "uniform":
            value = fairplay.uniform(server_seed, game, m, nonce, n)
        else:
            raise ValueError(f"--kind is die or uniform, not {kind!r}")
        block = fairplay.stream_block(server_seed, game, m, nonce, 0).hex()
    except ValueError as exc:
        raise fair_fail(exc) from None
    out.print(f"value: {value}", highlight=False)
    out.print(f"{kind}({n}) at nonce {nonce} of {game}", highlight=False)
    out.print(f"mix: {m}", highlight=False)
    out.print(f"stream block (cursor 0): {block}", highlight=False)


@fair.command("shuffle")
def fair_shuffle(
    server_seed: ServerSeed,
    game: GameOpt,
    nonce: NonceOpt,
    k: Annotated[int, typer.Option("--k", min=0, help="Cards in the deck.")],
    mix: MixOpt = None,
    client_seed: ClientSeeds = None,
) -> None:
    """Recompute a DeckShuffled: print the order (canonical index at each deck position)."""
    try:
        order = fairplay.shuffle(server_seed, game, fair_mix(mix, client_seed), nonce, k)
    except ValueError as exc:
        raise fair_fail(exc) from None
    out.print(f"order: {msgspec.json.encode(order).decode()}", highlight=False)


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
    counter = perft_of(rs)
    if counter is None:  # Yavoch: the tree hangs on dice and cards, so leaves are not positions
        with_perft = ", ".join(sorted(n for n, r in RULESETS.items() if perft_of(r)))
        err.print(f"[red]{rs.name} has no perft: its moves depend on dice (rulesets with perft: "
                  f"{with_perft})[/]")  # fmt: skip
        raise typer.Exit(2)
    out.print(counter.perft(state, depth))


@app.command()
def schema(
    out_dir: Annotated[Path, typer.Option("--out", help="Where to write.")] = Path("docs/schemas"),
) -> None:
    """Export JSON Schema for every message into docs/schemas/."""
    from contracts.schemas import all_schemas

    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for name, doc in all_schemas().items():
            (out_dir / f"{name}.json").write_bytes(msgspec.json.format(msgspec.json.encode(doc)))
    except OSError as exc:
        err.print(f"cannot write {exc.filename}: {exc.strerror}", style="red", markup=False,
                  highlight=False)  # fmt: skip
        raise typer.Exit(2) from None
    out.print(
        f"wrote {len(all_schemas())} schemas to {out_dir} (rulesets: {', '.join(sorted(RULESETS))})"
    )


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
