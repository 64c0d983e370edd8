"""Playing through the gateway: acting with the seat token it holds, the seat's view, the event
feed and exports.

A player's command id is namespaced by the player (`<player>:<id>`): command ids are public in
the log, so another player replaying one sends a different command, never a lookup of someone
else's receipt. A seat's private events are opened here with its token and go to its player
only; anyone else gets the public projection, exactly as a spectator on the bus would.
"""

import asyncio
import contextlib
import functools
import re
import secrets
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Final

import msgspec
import structlog

from contracts.commands import Receipt, View
from contracts.envelope import StoredEvent
from contracts.errors import ErrorCode
from contracts.events import GameCreated
from domain.core import VariantError
from domain.core.words import describe, to_move, you_play
from domain.registry import find_ruleset
from domain.words import words_for
from services.client.bot import play_seat
from services.client.client import Client
from services.gateway.lobby import BOT, Lobby, Seated, Table
from services.gateway.people import Player, refuse, text
from services.runtime import keys
from services.runtime.codec import created, export_line
from services.runtime.metrics import BOT_SEATS

COMMAND_ID: Final = re.compile(r"^[A-Za-z0-9_-]{1,100}\Z")
log = structlog.get_logger()


def bot_lease_s(env: Mapping[str, str]) -> float:
    """TABULA_GATEWAY_BOT_LEASE_S: how long a house bot's seat stays with a gateway that has
    stopped renewing it (default 30 s), before another gateway resumes the bot."""
    lease = float(env.get("TABULA_GATEWAY_BOT_LEASE_S", "30"))
    if not 1 <= lease <= 3600:
        raise ValueError(f"TABULA_GATEWAY_BOT_LEASE_S is 1 to 3600 s, not {lease}")
    return lease


class HouseBots:
    """The bots a gateway plays against people: a task per bot seat (the client library's bot,
    seeds, setups and timeout claims included), ending with its game or with the gateway.

    Nothing a bot needs lives only here. Its seat is in the store's set of unfinished bot seats
    with its secret (Lobby.against_bots), from which the bot derives its seed, setup and
    command ids: any gateway can carry it on and recompute exactly what it committed to. A
    gateway plays a seat while it holds the seat's lease (SET NX with a TTL, renewed while it
    plays); every `lease_s / 3` it looks for unfinished seats nobody holds (a dead gateway's
    lease lapses) and resumes them. A seat is finished, and let go, when its game has ended."""

    LIMIT: Final = 200  # bot seats one gateway plays at once

    def __init__(self, client: Client, lobby: Lobby, lease_s: float = 30.0) -> None:
        self.client = client
        self.lobby = lobby
        self.lease_s = lease_s
        self.owner = secrets.token_hex(8)  # this gateway instance, as its leases name it
        self.playing: dict[tuple[str, int], asyncio.Task[None]] = {}
        self.sweeper: asyncio.Task[None] | None = None

    def check_room(self) -> None:
        if len(self.playing) >= self.LIMIT:
            raise refuse(ErrorCode.UNAVAILABLE, "every house bot is playing: try again soon")

    def begin(self) -> None:
        """Resume every unfinished bot seat nobody plays, now and from time to time."""
        self.sweeper = asyncio.create_task(self._sweep())

    async def _sweep(self) -> None:
        while True:
            try:
                await self.resume()
            except Exception as exc:  # noqa: BLE001  # the store away: the next sweep retries
                log.warning("house bots not resumed", error=repr(exc))
            await asyncio.sleep(self.lease_s / 3)

    async def resume(self) -> None:
        """Take and play every unfinished bot seat whose lease nobody holds (up to LIMIT)."""
        for game_id, seat in await self.lobby.bot_seats():
            if len(self.playing) >= self.LIMIT:
                return
            if (game_id, seat) not in self.playing:
                try:
                    await self._take(game_id, seat)
                except Exception as exc:  # noqa: BLE001  # one bad record stops no other seat
                    log.error("house bot not resumed", game_id=game_id, seat=seat,
                              error=repr(exc))  # fmt: skip

    async def start(self, table: Table) -> None:
        """Play the bot seats of a game just made (Lobby.against_bots recorded them)."""
        for s in table.seated:
            if s.player == BOT:
                await self._take(table.game_id, s.seat)

    async def _take(self, game_id: str, seat: int) -> None:
        lease = keys.house_bot_lease_key(game_id, seat)
        if not await self.lobby.redis.set(lease, self.owner, nx=True, ex=self._ttl()):
            return  # another gateway plays it
        table = await self.lobby.table(game_id)
        secret = await self.lobby.bot_secret(game_id, seat)
        if table is None or secret is None or seat not in table.tokens:
            log.error("house bot seat without its record", game_id=game_id, seat=seat)
            await self.lobby.bot_seat_done(game_id, seat)
            await self._release(game_id, seat)
            return
        task = asyncio.create_task(self._play(game_id, seat, table.tokens[seat], secret))
        self.playing[(game_id, seat)] = task
        BOT_SEATS.inc()

        def ended(_: asyncio.Task[None]) -> None:
            # However the task ends (its game over, the lease lost, cancelled at stop).
            self.playing.pop((game_id, seat), None)
            BOT_SEATS.dec()

        task.add_done_callback(ended)

    def _ttl(self) -> int:
        return max(1, round(self.lease_s))

    async def _play(self, game_id: str, seat: int, token: str, secret: bytes) -> None:
        play = asyncio.create_task(play_seat(self.client, game_id, seat, token, secret=secret))
        keep = asyncio.create_task(self._keep_lease(game_id, seat))
        try:
            await asyncio.wait({play, keep}, return_when=asyncio.FIRST_COMPLETED)
            if play.done():
                play.result()
                await self.lobby.bot_seat_done(game_id, seat)
            else:
                log.warning("house bot lease lost", game_id=game_id, seat=seat)
        except Exception as exc:  # noqa: BLE001  # one bot's failure is logged, never the gateway's
            # The seat stays unfinished: the next sweep (here or elsewhere) resumes it.
            log.error("house bot stopped", game_id=game_id, seat=seat, error=repr(exc))
        finally:
            for task in (play, keep):
                task.cancel()
            await asyncio.gather(play, keep, return_exceptions=True)
            await self._release(game_id, seat)

    async def _keep_lease(self, game_id: str, seat: int) -> None:
        """Renew the seat's lease while it is ours; return when it is not (this gateway was
        too slow to renew it, and another may be playing the seat)."""
        lease = keys.house_bot_lease_key(game_id, seat)
        while True:
            await asyncio.sleep(self.lease_s / 3)
            if text(await self.lobby.redis.get(lease) or b"") != self.owner:
                return
            await self.lobby.redis.expire(lease, self._ttl())

    async def _release(self, game_id: str, seat: int) -> None:
        """Let the seat go at once (not at the lease's end): a gateway stopping hands its bots
        to the next sweep of another."""
        lease = keys.house_bot_lease_key(game_id, seat)
        with contextlib.suppress(Exception):  # the store away: the lease lapses by itself
            if text(await self.lobby.redis.get(lease) or b"") == self.owner:
                await self.lobby.redis.delete(lease)

    async def stop(self) -> None:
        if self.sweeper is not None:
            self.sweeper.cancel()
            await asyncio.gather(self.sweeper, return_exceptions=True)
        tasks = list(self.playing.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


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
