"""The read model (issue 21): each game's row and its players' rows in PostgreSQL, projected
from the game's event log and from nothing else.

`project` is the fold, pure: a row (or none) and the stored events after it give the next row.
A game's row holds the position it is projected to (`version`, and `head`, the hash at that
version), so the row and its position are written in ONE transaction, guarded by the position
read before (`UPDATE ... WHERE version = old AND head = old`): two projectors at once, or a
projector and a rebuild, never move a row backwards; the loser rolls back and reads again.

A projector that falls behind (stopped, or its notices lost) catches up from its position: it
reads the log from the event at that position (to check the log is still the one projected;
a log replaced under it, as an operator's import can, is projected again from its start) and
applies what follows. Logs are read through EventStore.read_all alone, which reads the hot
store and, for a game that left it, the archive.

A log whose event does not decode is projected up to that event, logged once and left there:
a rebuild stops at the same event, so the two agree.
"""

import asyncio
import contextlib
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from datetime import UTC, datetime
from typing import Any, Final

import msgspec
import psycopg
import redis.asyncio as aioredis
import redis.exceptions
import structlog

from contracts.envelope import StoredEvent
from contracts.events import Event, GameEnded, GameSealed
from domain.core import VariantError
from domain.ratings.games import Finished, game_speed
from services.runtime import metrics
from services.runtime.codec import LogError, created, decode_event
from services.runtime.database import OneConnection
from services.runtime.eventstore import EventStore
from services.runtime.keys import GAMES_INDEX, meta_key

log = structlog.get_logger()

INDEX_PAGE: Final = 1000  # games index entries looked at per round trip by the sweep
KNOWN: Final = 10_000  # games whose projected version this process remembers (notice skips)
WRITE_BATCH: Final = 500  # a rebuild's rows per INSERT batch
ATTEMPTS: Final = 3  # reads of a game's row when another writer moved it meanwhile


class GameRow(msgspec.Struct, frozen=True, kw_only=True):
    """A row of `games` (services/runtime/sql/0003_read_model.sql), in its column order."""

    game_id: str
    ruleset: str
    variant: str
    seats: int
    players: tuple[str, ...]  # player id per seat, "" when anonymous
    created_at: datetime
    updated_at: datetime
    ended_at: datetime | None = None
    result: str | None = None
    reason: str | None = None
    winners: tuple[int, ...] | None = None
    sealed: bool = False
    version: int
    head: str
    # services/runtime/sql/0004_ratings.sql: whether it counts for ratings, its clock's class.
    rated: bool = False
    speed: str | None = None


COLUMNS: Final = GameRow.__struct_fields__
PLAYER_COLUMNS: Final = ("player", "game_id", "seat", "ruleset", "variant", "created_at",
                         "ended_at", "result", "reason", "score")  # fmt: skip


def moment(ms: int) -> datetime:
    """An event's time (ms since the epoch) exactly, as timestamptz holds it (microseconds)."""
    return datetime.fromtimestamp(ms // 1000, UTC).replace(microsecond=ms % 1000 * 1000)


def project(
    row: GameRow | None, stored: Sequence[StoredEvent]
) -> tuple[GameRow | None, LogError | None]:
    """The row after `stored` (the events following `row`'s version, in order), and the error
    of the first event that does not decode (the row then stops before it). Only what the row
    holds is decoded: GameCreated, GameEnded, GameSealed."""
    for s in stored:
        expected = row.version + 1 if row is not None else 1
        if s.version != expected:
            # A gap (an entry removed by hand): the row stops before it, as at a bad event.
            return row, LogError(f"{s.game_id}: version {s.version} follows {expected - 1}")
        try:
            row = _apply(row, s)
        except LogError as exc:  # CorruptEntry too
            return row, exc
    return row, None


def _apply(row: GameRow | None, s: StoredEvent) -> GameRow:
    at = moment(s.time_ms)
    if row is None:
        game = created(s)  # LogError unless the log starts with GameCreated
        players = tuple(game.players) + ("",) * (game.seats - len(game.players))
        return GameRow(game_id=s.game_id, ruleset=game.ruleset, variant=game.variant,
                       seats=game.seats, players=players, created_at=at, updated_at=at,
                       version=s.version, head=s.hash, rated=game.rated,
                       speed=game_speed(game))  # fmt: skip
    moved = msgspec.structs.replace(row, updated_at=at, version=s.version, head=s.hash)
    if s.type == "GameEnded":
        ended = _decoded(s, row.ruleset)
        if not isinstance(ended, GameEnded):
            raise LogError(f"{s.game_id}: event {s.version} says GameEnded and is not one")
        return msgspec.structs.replace(moved, ended_at=at, result=ended.result,
                                       reason=ended.reason,
                                       winners=tuple(ended.winners))  # fmt: skip
    if s.type == "GameSealed":
        if not isinstance(_decoded(s, row.ruleset), GameSealed):
            raise LogError(f"{s.game_id}: event {s.version} says GameSealed and is not one")
        return msgspec.structs.replace(moved, sealed=True)
    return moved


def _decoded(s: StoredEvent, ruleset: str) -> Event:
    try:
        return decode_event(s, ruleset)
    except VariantError as exc:  # a ruleset this release does not know
        raise LogError(f"{s.game_id}: {exc}") from None


def values(row: GameRow) -> tuple[Any, ...]:
    """`games`' columns of a row (arrays as lists, as psycopg adapts them)."""
    out = [getattr(row, c) for c in COLUMNS]
    out[COLUMNS.index("players")] = list(row.players)
    out[COLUMNS.index("winners")] = None if row.winners is None else list(row.winners)
    return tuple(out)


def from_record(record: Sequence[Any]) -> GameRow:
    fields = dict(zip(COLUMNS, record, strict=True))
    fields["players"] = tuple(fields["players"])
    if fields["winners"] is not None:
        fields["winners"] = tuple(fields["winners"])
    return GameRow(**fields)


def player_rows(row: GameRow | None) -> list[tuple[Any, ...]]:
    """`player_games`' rows of a game: one per seat with a player id."""
    if row is None:
        return []
    scores = row.result.split("-") if row.result else []
    return [(player, row.game_id, seat, row.ruleset, row.variant, row.created_at, row.ended_at,
             row.result, row.reason, scores[seat] if len(scores) == row.seats else None)
            for seat, player in enumerate(row.players) if player]  # fmt: skip


_SELECT = f"SELECT {', '.join(COLUMNS)} FROM games WHERE game_id = %s"
_INSERT = (f"INSERT INTO games ({', '.join(COLUMNS)}) VALUES "
           f"({', '.join(['%s'] * len(COLUMNS))}) ON CONFLICT (game_id) DO NOTHING")  # fmt: skip
_UPDATE = (f"UPDATE games SET ({', '.join(COLUMNS)}) = ({', '.join(['%s'] * len(COLUMNS))}) "
           "WHERE game_id = %s AND version = %s AND head = %s")  # fmt: skip
_INSERT_PLAYERS = (f"INSERT INTO player_games ({', '.join(PLAYER_COLUMNS)}) VALUES "
                   f"({', '.join(['%s'] * len(PLAYER_COLUMNS))})")  # fmt: skip


class Moved(Exception):
    """The game's row is no longer the one read: another writer moved it. Rolled back."""


async def read_row(conn: "psycopg.AsyncConnection[Any]", game_id: str) -> GameRow | None:
    cur = await conn.execute(_SELECT, (game_id,))
    record = await cur.fetchone()
    return None if record is None else from_record(record)


async def write(conn: "psycopg.AsyncConnection[Any]", game_id: str, old: GameRow | None,
                new: GameRow | None) -> None:  # fmt: skip
    """`old` -> `new` (None: no row) in one transaction, if the row is still `old`; Moved (and
    nothing written) if not. The players' rows are written again only when they change."""
    async with conn.transaction(), conn.cursor() as cur:
        if old is None and new is not None:
            await cur.execute(_INSERT, values(new))
        elif old is not None and new is None:  # its log is gone: so is its projection
            await cur.execute("DELETE FROM games WHERE game_id = %s AND version = %s AND "
                              "head = %s", (game_id, old.version, old.head))  # fmt: skip
        elif old is not None and new is not None:
            await cur.execute(_UPDATE, (*values(new), game_id, old.version, old.head))
        if cur.rowcount != 1:
            raise Moved(game_id)
        if new is not None and player_rows(old) != player_rows(new):
            await cur.execute("DELETE FROM player_games WHERE game_id = %s", (game_id,))
            if rows := player_rows(new):
                await cur.executemany(_INSERT_PLAYERS, rows)


class Notice(msgspec.Struct):
    """What the projector reads of a committed event's notice (contracts.envelope.StoredEvent)."""

    game_id: str
    version: int


async def hot_pages(redis: Any) -> AsyncIterator[list[tuple[str, int | None]]]:
    """The games index, a page at a time, oldest first: each game and its meta's version (None
    when it has no meta: a create that failed)."""
    start = 0
    while ids := await redis.zrange(GAMES_INDEX, start, start + INDEX_PAGE - 1):
        pipe = redis.pipeline(transaction=False)
        for game_id in ids:
            pipe.hget(meta_key(game_id.decode()), "version")
        versions = await pipe.execute()
        yield [(g.decode(), None if v is None else int(v))
               for g, v in zip(ids, versions, strict=True)]  # fmt: skip
        start += INDEX_PAGE


class Projector(OneConnection):
    """Keeps the read model up with the logs, on one PostgreSQL connection (as the `projector`
    role: it alone writes the read model's tables) and the store's read-only `projector` user.
    Notices only say which game to look at; what is projected is always read from its log."""

    def __init__(self, store: EventStore, redis: "aioredis.Redis", database_url: str) -> None:
        self.store = store
        self.redis: Any = redis  # redis-py types every reply as bytes | str | ...: bytes here
        self.database_url = database_url
        self.conn: psycopg.AsyncConnection[Any] | None = None
        self.lock = asyncio.Lock()  # one game in hand at a time, on the one connection
        self.dirty: dict[str, None] = {}  # games to catch up, in order of their first notice
        self.worker: asyncio.Task[None] | None = None
        # The version each game was last projected to here: a notice at or below it is old.
        self.known: OrderedDict[str, int] = OrderedDict()
        self.broken: set[str] = set()  # logs that do not decode: logged once, not swept again
        self.totals: Counter[str] = Counter()
        # How the worker runs: in a task the service's drain waits for (set by wire()).
        self.spawn: Callable[[Coroutine[Any, Any, None]], asyncio.Task[None]] = asyncio.create_task

    # -- cues -------------------------------------------------------------------------------

    def noticed(self, notice: Notice) -> None:
        """A committed event's notice: its game is looked at soon. Many notices of one game
        while the worker is busy are one catch-up."""
        if self.known.get(notice.game_id, 0) < notice.version:
            self.mark([notice.game_id])

    def mark(self, game_ids: list[str]) -> None:
        self.dirty.update(dict.fromkeys(game_ids))
        if self.dirty and (self.worker is None or self.worker.done()):
            self.worker = self.spawn(self._work())

    async def _work(self) -> None:
        while self.dirty:
            game_id = next(iter(self.dirty))
            del self.dirty[game_id]
            await self.catch_up(game_id)

    async def sweep(self) -> None:
        """Catch up every game whose log is ahead of (or not) its projection: the hot games
        whose meta version is not their row's, the archived ones not projected to their
        head. What notices missed (the projector was down, a notice lost) is found here."""
        before = self.totals.copy()
        pending = [g for g in await self.pending() if g not in self.broken]
        if pending:
            self.mark(pending)
            if self.worker is not None:
                await asyncio.shield(self.worker)
        if pending or self.totals != before:
            log.info("projection sweep", pending=len(pending), **self.counts(before))

    async def pending(self) -> list[str]:
        """The games whose log is ahead of their row (or that have none), hot then archived."""
        out: dict[str, None] = {}
        # Each query under the lock: never inside the transaction of a catch-up in hand.
        async for page in hot_pages(self.redis):
            async with self.lock:
                cur = await (await self.connection()).execute(
                    "SELECT game_id, version FROM games WHERE game_id = ANY(%s)",
                    ([g for g, _ in page],),
                )
                projected = dict(await cur.fetchall())
            out.update((g, None) for g, v in page if v is not None and projected.get(g) != v)
        async with self.lock:
            cur = await (await self.connection()).execute(
                "SELECT a.game_id FROM archived_games a LEFT JOIN games g USING (game_id) "
                "WHERE g.version IS DISTINCT FROM a.head_version ORDER BY a.sealed_at"
            )
            out.update((g, None) for (g,) in await cur.fetchall())
        return list(out)

    def counts(self, before: Counter[str]) -> dict[str, int]:
        """This round's outcomes and the process's totals: the projector's metrics line."""
        keys = ("projected", "current", "replaced", "broken", "failed", "events")
        now = {k: self.totals[k] - before[k] for k in keys}
        return {**now, **{f"total_{k}": v for k, v in self.totals.items()}}

    # -- catching up ------------------------------------------------------------------------

    async def catch_up(self, game_id: str) -> str:
        """Project what the game's log holds past its row: "projected", "current" (nothing
        new), "broken" (an event does not decode: projected up to it), "failed" (a server
        failed: the next cue or sweep tries again)."""
        async with self.lock:
            with structlog.contextvars.bound_contextvars(game_id=game_id):
                outcome = await self._catch_up(game_id)
                self.totals[outcome] += 1
                metrics.PROJECTED.labels(outcome).inc()
                return outcome

    async def _catch_up(self, game_id: str) -> str:
        try:
            for _ in range(ATTEMPTS):
                try:
                    return await self._once(game_id)
                except Moved:
                    self.totals["moved"] += 1  # another writer was first: read its row
            return "failed"
        except LogError as exc:  # an entry the store's writers cannot have written
            return self._broken(game_id, exc)
        except (psycopg.Error, OSError, redis.exceptions.RedisError) as exc:
            log.warning("projection failed; tried again on the next cue or sweep",
                        error=repr(exc))  # fmt: skip
            if self.conn is not None and self.conn.broken:
                with contextlib.suppress(psycopg.Error):
                    await self.conn.close()
            return "failed"

    async def _once(self, game_id: str) -> str:
        conn = await self.connection()
        old = await read_row(conn, game_id)
        base, stored = old, []
        if old is not None:
            # From the event at the row's position: the log is still the one projected.
            stored = await self.store.read_all(game_id, after=old.version - 1)
            if stored[:1] and (stored[0].version, stored[0].hash) == (old.version, old.head):
                stored = stored[1:]
            else:
                base = None
                self.totals["replaced"] += 1
                log.warning("the log is not the one projected: projected again from its start",
                            version=old.version)  # fmt: skip
        if base is None:
            stored = await self.store.read_all(game_id)
        new, error = project(base, stored)
        if new != old:
            await write(conn, game_id, old, new)
            self.totals["events"] += len(stored)
        self.remember(game_id, new)
        if error is not None:
            return self._broken(game_id, error)
        return "current" if new == old else "projected"

    def remember(self, game_id: str, row: GameRow | None) -> None:
        self.known[game_id] = row.version if row is not None else 0
        self.known.move_to_end(game_id)
        while len(self.known) > KNOWN:
            self.known.popitem(last=False)

    def _broken(self, game_id: str, exc: Exception) -> str:
        if game_id not in self.broken:
            self.broken.add(game_id)
            log.error("PROJECTION STOPPED: an event of the game's log does not decode; the "
                      "game is projected up to it", reason=str(exc))  # fmt: skip
        return "broken"


async def game_ids(redis: Any, conn: "psycopg.AsyncConnection[Any]") -> list[str]:
    """Every game with a log: the games index (hot) and the archive, each once."""
    ids: dict[str, None] = {}
    async for page in hot_pages(redis):
        ids.update((g, None) for g, v in page if v is not None)
    cur = await conn.execute("SELECT game_id FROM archived_games ORDER BY sealed_at")
    ids.update((g, None) for (g,) in await cur.fetchall())
    return list(ids)


async def rebuild(store: EventStore, redis: "aioredis.Redis",
                  conn: "psycopg.AsyncConnection[Any]",
                  progress: Callable[[int, int], None] = lambda done, total: None,
                  ) -> tuple[int, list[str]]:  # fmt: skip
    """Both tables made again from every log, in ONE transaction: readers see the old rows
    until the commit, then the new ones, never a table half-made. An EXCLUSIVE lock (reads go
    on) holds a running projector's writes back until then; its guard then sees rows it did not
    read, and it reads them again. The ratings are made again too, from the finished rated
    games among the logs, in the same transaction (services/projector/ratings.py). (games
    projected, ids of logs that do not decode)"""
    # Imported here: the ratings pass builds on this module's fold.
    from services.projector.ratings import finished, rewrite

    ids = await game_ids(redis, conn)
    broken: list[str] = []
    rated: list[Finished] = []
    rows = players = 0
    async with conn.transaction(), conn.cursor() as cur:
        await cur.execute("LOCK TABLE games, player_games, ratings, rating_changes, "
                          "ratings_position IN EXCLUSIVE MODE")  # fmt: skip
        await cur.execute("DELETE FROM player_games")
        await cur.execute("DELETE FROM games")
        batch: list[GameRow] = []

        async def flush() -> None:
            nonlocal players
            await cur.executemany(_INSERT, [values(r) for r in batch])
            many = [p for r in batch for p in player_rows(r)]
            if many:
                await cur.executemany(_INSERT_PLAYERS, many)
            players += len(many)
            batch.clear()

        for done, game_id in enumerate(ids, 1):
            try:
                stored = await store.read_all(game_id)
                row, error = project(None, stored)
            except LogError as exc:  # an entry the store's writers cannot have written
                row, error = None, exc
            if error is not None:
                broken.append(game_id)
            if row is not None:
                batch.append(row)
                rows += 1
                if (game := finished(row, stored)) is not None:
                    rated.append(game)
            if len(batch) >= WRITE_BATCH:
                await flush()
            progress(done, len(ids))
        if batch:
            await flush()
        rating_games = await rewrite(cur, rated)
    log.info("projections rebuilt", games=rows, player_games=players, broken=len(broken),
             rated_games=rating_games)  # fmt: skip
    return rows, broken
