"""What every `tabula` command shares: the consoles, the settings, and reading the store.

NATS, Redis and the audit (which loads every ruleset) are imported where they are used, so a
command that needs none of them (`--help`, `perft`, `fair`) does not pay for them.
"""

import asyncio
import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

from contracts.envelope import StoredEvent
from services.runtime import config

if TYPE_CHECKING:
    from domain.audit import StoreHead
    from services.runtime.eventstore import EventStore

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


def archive_url() -> str:
    """PostgreSQL as the CLI reads it: DATABASE_URL, else the running stack's (`auditor`)
    when the store is the stack's too (not REDIS_URL's: its games are not that archive's)."""
    import os

    if url := os.environ.get("DATABASE_URL"):
        return url
    if os.environ.get("REDIS_URL"):
        return ""
    found = config.find_stack()
    return found[0].postgres_url if found else ""


def with_store(fn: Any, admin: bool = False) -> Any:
    """Run `fn(store)`: as the store's read-only user, or its admin (`import` only), its reads
    falling through to the archive (when there is one) for games that have left Valkey."""

    async def run() -> Any:
        from services.runtime.archived import ArchiveReader
        from services.runtime.eventstore import EventStore

        s = settings()
        archive = ArchiveReader(url) if (url := archive_url()) else None
        store = EventStore.from_url(s.admin_redis_url if admin else s.redis_url, archive=archive)
        try:
            return await fn(store)
        finally:
            await store.close()

    with servers_answer():
        return asyncio.run(run())


SOURCES = {"hot": "Valkey (the hot store)", "archive": "the archive (PostgreSQL)"}


@contextlib.contextmanager
def servers_answer() -> Iterator[None]:
    """A server that cannot be reached, or refuses us, is one red line and exit 1."""
    import nats.errors
    import redis.exceptions

    try:
        yield
    except (redis.exceptions.RedisError, nats.errors.Error, OSError) as exc:
        err.print(server_trouble(exc), style="red", markup=False, highlight=False)
        raise typer.Exit(1) from None


def server_trouble(exc: Exception) -> str:
    """What went wrong, in one line. Never the URL: it may carry a password."""
    import nats.errors
    import redis.exceptions

    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError):
        return f"cannot reach Redis: {text}"
    if isinstance(exc, redis.exceptions.RedisError):
        return f"Redis refused: {text}"
    if isinstance(exc, nats.errors.Error):
        return f"NATS: {text}"
    return f"cannot reach the servers: {text}"


async def left_valkey(store: "EventStore", game_id: str) -> str | None:
    """Why a game whose meta in Valkey is a tombstone (forget.lua: its keys were removed once
    the archive held it) could not be read from the archive; None when it is no tombstone."""
    from services.runtime.keys import meta_key

    if not await store.redis.hexists(meta_key(game_id), "archived"):
        return None
    if store.archive is None:
        return (f"game {game_id} has left Valkey for the archive (PostgreSQL), which this "
                "command does not read: set DATABASE_URL")  # fmt: skip
    return f"FAILED: game {game_id} has left Valkey for the archive, which does not hold it"


def load_log(game_id: str) -> list[StoredEvent]:
    """A game's log, wherever it is (saying so on stderr when it is the archive)."""

    async def read(store: "EventStore") -> tuple[list[StoredEvent], str | None, str | None]:
        stored, where = await store.read_all(game_id), await store.where(game_id)
        return stored, where, None if stored else await left_valkey(store, game_id)

    stored: list[StoredEvent]
    stored, where, gone = with_store(read)
    if gone is not None:
        err.print(gone, style="red", markup=False, highlight=False)
        raise typer.Exit(1)
    if not stored:
        err.print(f"[red]no game {game_id}[/]")
        raise typer.Exit(1)
    if where == "archive":
        err.print(f"read from {SOURCES['archive']}: the game has left Valkey", style="dim",
                  highlight=False)  # fmt: skip
    return stored


READS = 10  # attempts at reading a game in play between two of its appends


async def read_head(store: "EventStore", game_id: str) -> "StoreHead | None":
    """The store's own record of the game (its meta hash, or the head the archive recorded),
    None when it has none."""
    from domain.audit import StoreHead

    head = await store.head(game_id)
    return StoreHead(head.version, head.hash, head.result) if head else None


async def read_game(
    store: "EventStore", game_id: str
) -> tuple[list[StoredEvent], "StoreHead | None"]:
    """A game's log and the store's head as of one moment. One script moves both at each
    append, so a head unchanged from before the log was read to after it matches the log; a
    game in play that moved on meanwhile is read again. (An archived game never moves; one
    leaving Valkey meanwhile is the same log and head in the archive.)"""
    for _ in range(READS):
        head = await read_head(store, game_id)
        stored = await store.read_all(game_id)
        if await read_head(store, game_id) == head:
            return stored, head
    err.print(f"[red]game {game_id} kept changing while it was read: try again[/]")
    raise typer.Exit(1)


def load_game(game_id: str) -> tuple[list[StoredEvent], "StoreHead", str]:
    """A game's log with the store's head, and where it was read ("hot" or "archive"). A log
    without a head is checked against version 0, so a meta deleted to hide a cut fails too."""

    async def read(store: "EventStore") -> tuple[Any, Any, str | None, str | None]:
        stored, head = await read_game(store, game_id)
        gone = None if stored else await left_valkey(store, game_id)
        return stored, head, await store.where(game_id), gone

    stored, head, where, gone = with_store(read)
    if gone is not None:  # not "events 1..n are missing": they are in the archive
        err.print(gone, style="red", markup=False, highlight=False)
        raise typer.Exit(1)
    if not stored and head is None:
        err.print(f"[red]no game {game_id}[/]")
        raise typer.Exit(1)
    from domain.audit import StoreHead

    return stored, head or StoreHead(0, ""), where or "hot"
