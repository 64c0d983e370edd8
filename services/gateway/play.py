"""Playing through the gateway: acting with the seat token it holds, the seat's view, the event
feed and exports.

A player's command id is namespaced by the player (`<player>:<id>`): command ids are public in
the log, so another player replaying one sends a different command, never a lookup of someone
else's receipt. A seat's private events are opened here with its token and go to its player
only; anyone else gets the public projection, exactly as a spectator on the bus would.
"""

import asyncio
import functools
import re
from collections.abc import AsyncIterator, Sequence
from typing import Final

import msgspec
import structlog

from contracts import subjects
from contracts.commands import BotSeated, PlaySeat, Receipt, View
from contracts.envelope import StoredEvent
from contracts.errors import ErrorCode
from contracts.events import GameCreated
from domain.core import VariantError
from domain.core.words import describe, to_move, you_play
from domain.registry import find_ruleset
from domain.words import words_for
from services.client.client import Client
from services.gateway.lobby import Lobby, Seated, Table, is_bot
from services.gateway.people import Player, refuse
from services.runtime.codec import created, export_line
from services.runtime.metrics import BOT_HANDOVERS

COMMAND_ID: Final = re.compile(r"^[A-Za-z0-9_-]{1,100}\Z")
log = structlog.get_logger()


class BotDesk:
    """The gateway's side of the house bots: it plays none. Each bot seat of a game just made
    is handed, with its token and level, to the bots service (services/bots), which plays it
    from then on, through the rules service like any player.

    A seat is recorded to be handed over when its game is made (Lobby.against_bots) and let go
    once the bots service has answered. One that could not be handed over (the bots service
    away, or this gateway dying first) is handed over by any gateway's next sweep: the person's
    game is never left without its bot, and a hand-over asked twice changes nothing."""

    SWEEP_S: Final = 5.0

    def __init__(self, client: Client, lobby: Lobby) -> None:
        self.client = client
        self.lobby = lobby
        self.sweeper: asyncio.Task[None] | None = None

    def begin(self) -> None:
        self.sweeper = asyncio.create_task(self._sweep())

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.SWEEP_S)  # the sweep's period
            try:
                for game_id, seat in await self.lobby.bot_seats():
                    await self.hand(game_id, seat)
            except Exception as exc:  # noqa: BLE001  # the store away: the next sweep retries
                log.warning("house bots not handed over", error=repr(exc))

    async def hand_over(self, table: Table) -> None:
        """Hand the bots service the bot seats of a game just made (Lobby.against_bots)."""
        for s in table.seated:
            if is_bot(s.player):
                await self.hand(table.game_id, s.seat, table)

    async def hand(self, game_id: str, seat: int, table: Table | None = None) -> None:
        """Hand one recorded bot seat over; left recorded (for the sweep) if that failed."""
        level = await self.lobby.bot_level(game_id, seat)
        table = table or await self.lobby.table(game_id)
        if level is None or table is None or seat not in table.tokens:
            log.error("house bot seat without its record", game_id=game_id, seat=seat)
            await self.lobby.bot_handed(game_id, seat)
            return
        ask = PlaySeat(game_id=game_id, seat=seat, token=table.tokens[seat], level=level)
        try:
            await self.client.request(subjects.BOTS_PLAY, ask, BotSeated)
        except Exception as exc:  # noqa: BLE001  # handed over by the next sweep
            BOT_HANDOVERS.labels("failed").inc()
            log.warning("house bot not handed over yet", game_id=game_id, seat=seat,
                        error=repr(exc))  # fmt: skip
            return
        BOT_HANDOVERS.labels("handed").inc()
        await self.lobby.bot_handed(game_id, seat)

    async def stop(self) -> None:
        if self.sweeper is not None:
            self.sweeper.cancel()
            await asyncio.gather(self.sweeper, return_exceptions=True)


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
                  expected_version: int | None = None, lag_ms: int = 0,
                  careful: bool = False) -> Receipt:  # fmt: skip
        if not COMMAND_ID.match(command_id):
            raise refuse(ErrorCode.MALFORMED, "a command id is 1-100 of A-Z a-z 0-9 _ -")
        seated = await self.seat(player, game_id)
        if seated is None:
            raise refuse(ErrorCode.FORBIDDEN, "you have no seat in this game")
        seat, token = seated
        return await self.client.act(game_id, seat, token, action,
                                     command_id=f"{player.id}:{command_id}",
                                     expected_version=expected_version, lag_ms=lag_ms,
                                     careful=careful)  # fmt: skip

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


class Words(msgspec.Struct, frozen=True, kw_only=True):
    """A game's page in plain words (issue 23; the ruleset's own, domain/words.py): each seat's
    side, what the viewer plays, and whose move it is or how the game ended, for the viewer."""

    sides: list[str]
    you_play: str = ""
    status: str = ""


@functools.lru_cache(maxsize=512)
def _created(ruleset: str, variant: str) -> GameCreated:
    """The GameCreated of a new game of this variant: its seats and teams, all the words need."""
    return find_ruleset(ruleset).create(variant)


def words_of(view: View, seated: Sequence[Seated], you: int | None) -> Words:
    words = words_for(view.ruleset)
    try:
        created = _created(view.ruleset, view.variant)
    except (VariantError, ValueError):  # a ruleset or variant this gateway does not know
        return Words(sides=[])
    names = [""] * created.seats
    for s in seated:
        if 0 <= s.seat < created.seats:
            names[s.seat] = s.name
    if view.result:
        status = describe(words, created, view.result, view.reason, view.winners, you, names)
    elif view.phase == "play":
        status = to_move(words, created, view.to_act, you, names)
    else:
        status = ""
    return Words(sides=[words.side(created, seat) for seat in range(created.seats)],
                 you_play=you_play(words, created, you, names) if you is not None else "",
                 status=status)  # fmt: skip
