"""The rules service's game cache: each game's table at its version, rebuilt from the log when
missing, kept current with what other replicas commit, caught up from the log when behind.

A game is locked while a command decides and appends on it; the cache never evicts a locked
game.
"""

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field

from contracts.envelope import StoredEvent
from domain.core import table as tables
from domain.core.table import Table
from domain.registry import event_decoder
from services.rules.tokens import seat_token
from services.runtime.codec import decode_event, decode_log
from services.runtime.eventstore import EventStore


@dataclass(slots=True)
class Game:
    """A cached game: its table at `version`, whose chain hash is `hash`."""

    table: Table
    tokens: tuple[str, ...]  # derived once per game, then compared in constant time
    version: int
    hash: str
    last_ms: int  # when the last event was stored (for reveal deadlines)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Games:
    def __init__(self, store: EventStore, secret: bytes, size: int = 20_000) -> None:
        self.store = store
        self.secret = secret
        self.cached: OrderedDict[str, Game] = OrderedDict()
        self.size = size
        self._loading: dict[str, asyncio.Future[Game | None]] = {}

    async def get(self, game_id: str) -> Game | None:
        """The cached game, else rebuilt from its log (one load per game at a time)."""
        if (game := self.cached.get(game_id)) is not None:
            self.cached.move_to_end(game_id)
            return game
        if (loading := self._loading.get(game_id)) is not None:
            return await asyncio.shield(loading)
        future: asyncio.Future[Game | None] = asyncio.get_running_loop().create_future()
        self._loading[game_id] = future
        try:
            game = await self._load(game_id)
            future.set_result(game)
        except BaseException as exc:
            future.set_exception(exc)
            # Retrieved here: with no other waiter, asyncio logs it as lost whenever the future
            # is collected (the caller has it, raised below).
            future.exception()
            raise
        finally:
            del self._loading[game_id]
        if game is not None:
            self.remember(game_id, game)
        return game

    async def _load(self, game_id: str) -> Game | None:
        stored = await self.store.read_all(game_id)
        if not stored:
            return None
        ruleset, events = decode_log(stored)
        table = tables.fold(ruleset, game_id, events)
        tokens = self.tokens(game_id, table.created.seats)
        return Game(table, tokens, stored[-1].version, stored[-1].hash, stored[-1].time_ms)

    async def past(self, game_id: str, version: int) -> tuple[Table, StoredEvent]:
        """The game's table after event `version` (1 to its head), folded from its stored log
        as a replay does (the outcomes of draws are events: nothing is asked of any service),
        and that event. The cache is left alone: it holds the head."""
        stored: list[StoredEvent] = []
        while len(stored) < version:  # versions run 1, 2, ... without a gap
            page = await self.store.read(game_id, len(stored), min(1000, version - len(stored)))
            if not page:
                break
            stored += page
        if len(stored) < version:
            raise LookupError(f"game {game_id} has no event {version}")
        ruleset, events = decode_log(stored)
        return tables.fold(ruleset, game_id, events), stored[-1]

    def tokens(self, game_id: str, seats: int) -> tuple[str, ...]:
        return tuple(seat_token(self.secret, game_id, s) for s in range(seats))

    def remember(self, game_id: str, game: Game) -> None:
        self.cached[game_id] = game
        self.cached.move_to_end(game_id)
        while len(self.cached) > self.size:
            oldest, victim = next(iter(self.cached.items()))
            if victim.lock.locked():  # never evict a game mid-command
                self.cached.move_to_end(oldest)
                break
            del self.cached[oldest]

    def on_committed(self, stored: StoredEvent) -> None:
        """Keep a cached game current with what other replicas commit (their notifications).

        Only the next version of a game at rest is applied; anything else is left to the
        expected-version check, which catches up from the log. So is a redacted notice (it
        lacks what the table needs): the game stays at its version and reads just the events it
        missed when next used, rather than being dropped and folded again from the start (in a
        game with private cards every turn has one).
        """
        game = self.cached.get(stored.game_id)
        if game is None or game.lock.locked() or stored.version != game.version + 1:
            return
        if stored.redacted:
            return
        event = event_decoder(game.table.ruleset.name).decode(stored.body)
        game.table = tables.evolve(game.table, event)
        game.version, game.hash, game.last_ms = stored.version, stored.hash, stored.time_ms

    async def catch_up(self, game_id: str, game: Game) -> bool:
        """Apply events other replicas appended since `game.version`; True if any."""
        stored = await self.store.read_all(game_id, after=game.version)
        if not stored:
            return False
        name = game.table.ruleset.name
        for s in stored:  # CorruptEntry naming an entry that does not decode
            game.table = tables.evolve(game.table, decode_event(s, name))
        game.version, game.hash, game.last_ms = (
            stored[-1].version,
            stored[-1].hash,
            stored[-1].time_ms,
        )
        return True
