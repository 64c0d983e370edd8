"""Playing through the gateway: acting with the seat token it holds, the seat's view, the event
feed and exports.

A player's command id is namespaced by the player (`<player>:<id>`): command ids are public in
the log, so another player replaying one sends a different command, never a lookup of someone
else's receipt. A seat's private events are opened here with its token and go to its player
only; anyone else gets the public projection, exactly as a spectator on the bus would.
"""

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Final

import structlog

from contracts.commands import Receipt, View
from contracts.envelope import StoredEvent
from contracts.errors import ErrorCode
from services.client.bot import play_seat
from services.client.client import Client
from services.gateway.lobby import BOT, Lobby, Table
from services.gateway.people import Player, refuse
from services.runtime.codec import created, export_line

COMMAND_ID: Final = re.compile(r"^[A-Za-z0-9_-]{1,100}\Z")
log = structlog.get_logger()


class HouseBots:
    """The bots a gateway plays against people: a task per bot seat (the client library's bot,
    seeds and setups included), ending with its game or with the gateway. A gateway that stops
    leaves its bots' games waiting: with a time per move, the person then wins on time."""

    LIMIT: Final = 200  # bot seats one gateway plays at once

    def __init__(self, client: Client) -> None:
        self.client = client
        self.tasks: set[asyncio.Task[None]] = set()

    def check_room(self) -> None:
        if len(self.tasks) >= self.LIMIT:
            raise refuse(ErrorCode.UNAVAILABLE, "every house bot is playing: try again soon")

    def start(self, table: Table) -> None:
        for s in table.seated:
            if s.player == BOT:
                task = asyncio.create_task(self._play(table.game_id, s.seat,
                                                      table.tokens[s.seat]))  # fmt: skip
                self.tasks.add(task)
                task.add_done_callback(self.tasks.discard)

    async def _play(self, game_id: str, seat: int, token: str) -> None:
        try:
            await play_seat(self.client, game_id, seat, token)
        except Exception as exc:  # noqa: BLE001  # one bot's failure is logged, never the gateway's
            log.error("house bot stopped", game_id=game_id, seat=seat, error=repr(exc))

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


class Play:
    def __init__(self, client: Client, lobby: Lobby) -> None:
        self.client = client
        self.lobby = lobby

    async def seat(self, player: Player | None, game_id: str) -> tuple[int, str] | None:
        """The player's seat in the game and its token, if it sits there."""
        table = await self.lobby.table(game_id)
        seat = table.seat_of(player.id) if table and player else None
        return None if seat is None or table is None else (seat, table.tokens[seat])

    async def table(self, game_id: str) -> Table | None:
        return await self.lobby.table(game_id)

    async def act(self, player: Player, game_id: str, action: str, command_id: str,
                  expected_version: int | None = None) -> Receipt:  # fmt: skip
        if not COMMAND_ID.match(command_id):
            raise refuse(ErrorCode.MALFORMED, "a command id is 1-100 of A-Z a-z 0-9 _ -")
        seated = await self.seat(player, game_id)
        if seated is None:
            raise refuse(ErrorCode.FORBIDDEN, "you have no seat in this game")
        seat, token = seated
        return await self.client.act(game_id, seat, token, action,
                                     command_id=f"{player.id}:{command_id}",
                                     expected_version=expected_version)  # fmt: skip

    async def view(self, player: Player | None, game_id: str, at: int | None = None) -> View:
        """The game as the player's seat sees it (a spectator's view if it has none); with
        `at`, as it stood after event `at` (the rules service folds the log up to it)."""
        if at is not None and not 0 <= at <= 2**53:
            raise refuse(ErrorCode.MALFORMED, f"no version {at}: a game's events are numbered "
                         "from 1 to its head")  # fmt: skip
        seated = await self.seat(player, game_id)
        if seated is None:
            return await self.client.view(game_id, at=at)
        return await self.client.view(game_id, seated[0], seated[1], at=at)

    async def events(self, player: Player | None, game_id: str, after: int) -> list[StoredEvent]:
        seated = await self.seat(player, game_id)
        if seated is None:
            return await self.client.read(game_id, after)
        return await self.client.read(game_id, after, seated[0], seated[1])

    async def feed(self, player: Player | None, game_id: str,
                   after: int) -> AsyncIterator[list[StoredEvent]]:  # fmt: skip
        """Every event after `after` as the player may see it, then live: in order, no gap,
        no duplicate (the client's watch)."""
        seated = await self.seat(player, game_id)
        seat, token = seated if seated is not None else (None, "")
        async for batch in self.client.watch_batches(game_id, after, seat, token):
            yield batch

    async def export(self, game_id: str) -> bytes:
        """The game's log as `tabula export` writes it. A game with hidden information is
        exported once it has ended: until then its public log is redacted where it holds
        secrets and lacks the seats' actions (which its hash chain covers), and could not pass
        the audit."""
        stored = await self.client.read(game_id)
        if not stored:
            raise refuse(ErrorCode.UNKNOWN_GAME, f"no game {game_id}")
        first = created(stored[0])
        hidden = first.randomness or first.hidden_setup
        ended = any(s.type == "GameEnded" for s in stored)
        if (hidden and not ended) or any(s.redacted for s in stored):
            raise refuse(ErrorCode.IN_PLAY, "a game with hidden information is exported once "
                         "it has ended")  # fmt: skip
        return b"".join(export_line(s) for s in stored)
