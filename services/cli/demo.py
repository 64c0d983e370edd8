"""`tabula demo`: bots play whole games through matchmaking and rules, with a progress bar."""

import asyncio
import logging
import os
import shutil
import sys
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from services.client.client import Client

if TYPE_CHECKING:
    from services.client.bot import BotResult

CONNECT_S = 5.0  # the client retries a server it cannot reach forever: give up after this


class Unreachable(ConnectionError):
    """The bus did not answer in time (a ConnectionError: the CLI prints it in one line)."""


def command_name() -> str:
    """`tabula` as the user can type it: on PATH, or the venv's script (after `make run`)."""
    return "tabula" if shutil.which("tabula") else os.path.relpath(sys.argv[0])


def quiet_nats_logs() -> None:
    """The NATS client logs a traceback at every failed (re)connection attempt; the CLI says
    what matters in one line."""
    quiet = logging.getLogger("nats")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False


async def connect(nats_url: str, receipts: Path | None = None) -> Client:
    quiet_nats_logs()
    try:
        async with asyncio.timeout(CONNECT_S):
            return await Client.connect(nats_url, receipts=receipts)
    except TimeoutError:
        where = urlsplit(nats_url)  # never the whole URL: it may carry a password
        raise Unreachable(
            f"NATS at {where.hostname}:{where.port} gave no connection in {CONNECT_S:g} s"
        ) from None


async def run_demo(
    nats_url: str,
    games: int,
    ruleset: str,
    variant: str,
    console: Console,
    show: bool = False,
    seed: int = 0,
    receipts: Path | None = None,
) -> list["BotResult"]:
    # Here, not at the top: `tabula keys` (which connects through this module) loads no ruleset.
    from domain.registry import find_ruleset
    from services.client.bot import play_seat

    client = await connect(nats_url, receipts)
    seats = find_ruleset(ruleset).create(variant).seats  # four bots a game for four seats
    events = 0

    def seen() -> None:
        nonlocal events
        events += 1

    async def bot(i: int) -> "BotResult":
        a = await client.find_match(ruleset, variant, player=f"bot-{i}")
        result = await play_seat(client, a.game_id, a.seat, a.token, seed=seed + i, on_event=seen)
        progress.update(task, advance=1 / seats, moves=events // seats)
        return result

    started = time.perf_counter()
    try:
        with Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[moves]} events"),
            TimeElapsedColumn(),
            console=console,
            transient=not show,
        ) as progress:
            task = progress.add_task(f"{ruleset} games", total=games, moves=0)
            results = await asyncio.gather(*(bot(i) for i in range(seats * games)))
    finally:
        await client.close()
    elapsed = time.perf_counter() - started
    by_game = {r.game_id: r for r in results}
    moves = sum(r.moves for r in results)
    reasons = Counter(f"{r.outcome.result} {r.outcome.reason}" for r in by_game.values())
    console.print(
        f"{len(by_game)} games, {moves} accepted actions in {elapsed:.1f}s: "
        f"{moves / elapsed:.0f} actions/s, {len(by_game) / elapsed * 60:.1f} games/min"
    )
    console.print("results: " + ", ".join(f"{n}× {k}" for k, n in reasons.most_common()))
    if show:
        tabula = command_name()
        for game_id, r in by_game.items():
            console.print(
                f"\n[bold]Game {game_id}[/]: {r.outcome.result} by {r.outcome.reason} "
                f"after {r.version} events"
            )
            console.print(f"  replay it:  {tabula} replay {game_id}")
            console.print(f"  verify it:  {tabula} verify {game_id}")
            console.print(f"  its log:    {tabula} log {game_id}")
    return results
