"""`tabula projections rebuild`: the read model made again from every log (hot and archived)."""

import os

import typer

from services.cli.common import err, out, servers_answer, settings

projections = typer.Typer(no_args_is_help=True, add_completion=False,
                          help="The read model (PostgreSQL's games and player_games).")  # fmt: skip
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
    readers see the old tables until it commits, then the new ones."""
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
