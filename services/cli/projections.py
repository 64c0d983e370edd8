"""`tabula projections rebuild`: the read model made again from every log (hot and archived),
the ratings with it; `tabula ratings`: their leaderboards, or (--verify) a check of every stored
rating against the logs."""

import contextlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated

import typer

from services.cli.common import archive_url, err, out, servers_answer, settings, with_store

if TYPE_CHECKING:
    from domain.ratings.games import Rating, RatingClass
    from services.projector.ratings import Standing

projections = typer.Typer(no_args_is_help=True, add_completion=False,
                          help="The read model (PostgreSQL's games, player_games and "
                          "ratings).")  # fmt: skip
EVERY = 1000  # a progress line every this many games


def projector_url() -> str:
    """PostgreSQL as the `projector` role (the one that writes the read model): DATABASE_URL,
    else the running stack's."""
    from services.runtime import config

    if url := os.environ.get("DATABASE_URL"):
        return url
    found = config.find_stack()
    return found[0].projector_url if found else ""


@projections.command()
def rebuild() -> None:
    """Delete the read model and project it again from every game's log, in one transaction:
    readers see the old tables until it commits, then the new ones. The ratings are computed
    again from nothing with it, in their order."""
    import asyncio

    import psycopg

    from services.projector.projections import rebuild as rebuild_all
    from services.runtime.archived import ArchiveReader
    from services.runtime.eventstore import EventStore

    url = projector_url()
    if not url:
        err.print("[red]no PostgreSQL: start a stack with `tabula up`, or set DATABASE_URL "
                  "(as the projector role)[/]")  # fmt: skip
        raise typer.Exit(2)
    loaded = settings()

    def progress(done: int, total: int) -> None:
        if done % EVERY == 0 or done == total:
            err.print(f"projected {done}/{total} games", highlight=False)

    async def run() -> tuple[int, list[str]]:
        # Every log: hot ones from Valkey, the others from the archive, as the projector reads.
        store = EventStore.from_url(loaded.redis_url, archive=ArchiveReader(url))
        try:
            async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
                return await rebuild_all(store, store.redis, conn, progress)
        finally:
            await store.close()

    with servers_answer():
        try:
            games, broken = asyncio.run(run())
        except psycopg.Error as exc:
            err.print(f"PostgreSQL: {' '.join(str(exc).split())}", style="red", markup=False,
                      highlight=False)  # fmt: skip
            raise typer.Exit(1) from None
    for game_id in broken:
        err.print(f"[yellow]{game_id}: its log does not decode to its end; projected up to "
                  "the event that does not[/]", highlight=False)  # fmt: skip
    out.print(f"rebuilt: {games} games")


def ratings(
    ruleset: Annotated[str | None, typer.Argument(help="Only this ruleset's classes.")] = None,
    top: Annotated[int, typer.Option("--top", min=1, help="Players listed per class.")] = 20,
    verify: Annotated[bool, typer.Option(
        "--verify", help="Recompute every rating from the logs and compare it with the stored "
        "one, exactly: exit 1 at the first difference.")] = False,
) -> None:  # fmt: skip
    """Leaderboards of the players' ratings, or (--verify) every rating checked.

    A table per ruleset, variant family and speed, provisional players apart. --verify
    recomputes every rating from the logs, in their order, and compares it with the stored
    one, exactly."""
    from rich.markup import escape
    from rich.table import Table

    url = archive_url()
    if not url:
        err.print("[red]no PostgreSQL: start a stack with `tabula up`, or set DATABASE_URL[/]")
        raise typer.Exit(2)
    if verify:
        verify_ratings(url)
        return
    standings = read_leaderboard(url, ruleset)
    if not standings:
        out.print("no ratings yet" + (f" in {ruleset}" if ruleset else ""), highlight=False)
        return
    for klass, players in standings.items():
        title = f"{klass.ruleset} {klass.family} {klass.speed}"
        settled = [s for s in players if not s.provisional][:top]
        provisional = [s for s in players if s.provisional][:top]
        for caption, rows in ((title, settled), (f"{title}: provisional", provisional)):
            if not rows:
                continue
            table = Table("#", "player", "rating", "±", "games", title=escape(caption))
            for place, s in enumerate(rows, 1):
                table.add_row(str(place), escape(s.player), *shown(s.rating))
            out.print(table)


def shown(rating: "Rating") -> tuple[str, str, str]:
    """(rating, its uncertainty, games): Glicko-2 as Lichess shows it (the rating truncated,
    its deviation); Weng–Lin as its conservative estimate μ − 3σ, and σ."""
    from domain.ratings import Glicko

    if isinstance(rating, Glicko):
        return str(int(rating.rating)), str(round(rating.deviation)), str(rating.games)
    return f"{rating.ordinal:.1f}", f"{rating.sigma:.2f}", str(rating.games)


def read_leaderboard(url: str, ruleset: str | None) -> "dict[RatingClass, list[Standing]]":
    """The stored ratings, as the auditor (or DATABASE_URL) reads them."""
    import asyncio

    import psycopg

    from services.projector.ratings import leaderboard

    async def run() -> "dict[RatingClass, list[Standing]]":
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            return await leaderboard(conn, ruleset)

    with postgres_answers():
        return asyncio.run(run())


def verify_ratings(url: str) -> None:
    """Every rating recomputed from every log (hot, then archived: the rebuild's reads) and
    compared with the stored rows; exit 1 naming the first difference."""
    import psycopg

    from services.projector.ratings import verify
    from services.runtime.eventstore import EventStore

    async def run(store: EventStore) -> str | None:
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            return await verify(store, store.redis, conn)

    with postgres_answers():
        found = with_store(run)
    if found is not None:
        err.print(f"FAILED: {found}", style="red", markup=False, highlight=False)
        raise typer.Exit(1)
    out.print("ratings verified: every stored rating is the one the logs give")


@contextlib.contextmanager
def postgres_answers() -> Iterator[None]:
    """PostgreSQL refusing (or not there) is one red line and exit 1."""
    import psycopg

    with servers_answer():
        try:
            yield
        except psycopg.Error as exc:
            err.print(f"PostgreSQL: {' '.join(str(exc).split())}", style="red", markup=False,
                      highlight=False)  # fmt: skip
            raise typer.Exit(1) from None
