"""The ratings pass (issue 23): players' ratings in the read model, from the finished rated
games' logs, in ONE canonical order, (end time, game id), so a rebuild, the pass run as games
end, and `tabula ratings --verify` give the same floats. The rules are domain/ratings/games.py;
this module reads the games, and writes `ratings`, `rating_changes` and `ratings_position`
(services/runtime/sql/0004_ratings.sql).

The pass (`RatingsPass.run`, a periodic job of the projector) takes its candidates from the
`games` rows (rated, ended) past its position, in order, but only those that ended more than
SETTLE_S ago; each one's GameCreated and GameEnded are read from its log, as the rebuild reads
them, and applied with the position in one transaction, under the position row's lock, so two
projectors never apply a game twice. A candidate that reaches the read model after the position
passed it (its projector was down longer than SETTLE_S) would be out of order if applied: the
position counts the candidates it looked at, a count that no longer matches the table says so,
and the pass then rates every game again from nothing, in order, in one transaction.
"""

import asyncio
import contextlib
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import msgspec
import psycopg
import redis.exceptions
import structlog

from contracts.envelope import StoredEvent
from contracts.events import GameEnded
from domain.ratings import Glicko, Skill
from domain.ratings.games import (
    GLICKO2,
    Finished,
    Rating,
    RatingClass,
    Update,
    key,
    rate_game,
    rating_class,
    replay,
)
from services.projector.projections import GameRow, game_ids, moment, project
from services.runtime.codec import LogError, created, decode_event
from services.runtime.database import OneConnection
from services.runtime.eventstore import EventStore

log = structlog.get_logger()

# Games that ended less than this long ago are left for the next round: the projector projects
# games one at a time as their notices come, so two games ending close together can reach the
# read model in either order, and a game applied before one that ended earlier would put the
# pass out of the canonical order (caught by the position's count, at the cost of rating every
# game again). 30 s is many times a notice's way through a projector at work.
SETTLE_S: Final = 30.0
RATINGS_S: Final = 10.0  # the pass's period
BATCH: Final = 500  # candidates read per round trip

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_MS: Final = timedelta(milliseconds=1)

RATING_COLUMNS: Final = ("player", "ruleset", "family", "speed", "system", "rating", "deviation",
                         "volatility", "mu", "sigma", "games", "last_ms")  # fmt: skip
CHANGE_COLUMNS: Final = (
    "seq", "game_id", "player", "seat", "ruleset", "family", "speed", "system", "ended_ms",
    "rating_before", "deviation_before", "volatility_before", "mu_before", "sigma_before",
    "rating_after", "deviation_after", "volatility_after", "mu_after", "sigma_after",
)  # fmt: skip
_RATING_KEY: Final = "player, ruleset, family, speed"
_CANDIDATE: Final = "rated AND ended_at IS NOT NULL"  # games_rated_ended's predicate


class Position(msgspec.Struct, frozen=True):
    """`ratings_position`: the last candidate looked at, the last seq given, how many looked."""

    ended_ms: int
    game_id: str
    seq: int
    looked: int

    @property
    def at(self) -> tuple[datetime, str]:
        return moment(self.ended_ms), self.game_id


def ms_of(at: datetime) -> int:
    """`moment`'s inverse, exactly (integer arithmetic: a timestamptz holds whole µs)."""
    return (at - _EPOCH) // _MS


def finished(row: GameRow | None, stored: Sequence[StoredEvent]) -> Finished | None:
    """A candidate's Finished (its row rated and ended), from the events its row was projected
    from (`project`'s row stops where the log stops decoding; so does this); None for any other
    game."""
    if row is None or not row.rated or row.ended_at is None:
        return None
    ends = [s for s in stored[: row.version] if s.type == "GameEnded"]
    ended = decode_event(ends[-1], row.ruleset)  # the row's ended_at is the last one's
    if not isinstance(ended, GameEnded):
        raise LogError(f"{row.game_id}: event {ends[-1].version} says GameEnded and is not one")
    return Finished(row.game_id, created(stored[0]), ended, ends[-1].time_ms)


def of_log(stored: Sequence[StoredEvent]) -> Finished | None:
    row, _ = project(None, stored)
    return finished(row, stored)


# -- rows -------------------------------------------------------------------------------------


def _values(r: Rating) -> tuple[float | None, ...]:
    """(rating, deviation, volatility, mu, sigma): the other system's columns NULL."""
    if isinstance(r, Glicko):
        return r.rating, r.deviation, r.volatility, None, None
    return None, None, None, r.mu, r.sigma


def rating_row(player: str, klass: RatingClass, system: str, r: Rating,
               last_ms: int) -> tuple[Any, ...]:  # fmt: skip
    return (player, klass.ruleset, klass.family, klass.speed, system, *_values(r), r.games,
            last_ms)  # fmt: skip


def change_rows(seq: int, u: Update) -> list[tuple[Any, ...]]:
    k = u.rating_class
    return [(seq, u.game_id, c.player, c.seat, k.ruleset, k.family, k.speed, u.system,
             u.ended_ms, *_values(c.before), *_values(c.after)) for c in u.changes]  # fmt: skip


def from_row(system: str, rating: float | None, deviation: float | None,
             volatility: float | None, mu: float | None, sigma: float | None, games: int,
             last_ms: int) -> Rating:  # fmt: skip
    if system == GLICKO2:
        assert rating is not None
        assert deviation is not None
        assert volatility is not None
        return Glicko(rating, deviation, volatility, games, last_ms)
    assert mu is not None
    assert sigma is not None
    return Skill(mu, sigma, games)


def recomputed(games: Sequence[Finished]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Every `ratings` row and `rating_changes` row from nothing, in key order and seq order."""
    ratings, updates = replay(games)
    systems = {(c.player, u.rating_class): u.system for u in updates for c in u.changes}
    rows = sorted(rating_row(p, k, systems[(p, k)], r, last)
                  for (p, k), (r, last) in ratings.items())  # fmt: skip
    changes = [row for seq, u in enumerate(updates, 1) for row in change_rows(seq, u)]
    return rows, changes


_INSERT_RATINGS: Final = (f"INSERT INTO ratings ({', '.join(RATING_COLUMNS)}) VALUES "
                          f"({', '.join(['%s'] * len(RATING_COLUMNS))})")  # fmt: skip
_UPSERT_RATINGS: Final = (
    _INSERT_RATINGS + f" ON CONFLICT ({_RATING_KEY}) DO UPDATE SET "
    + ", ".join(f"{c} = EXCLUDED.{c}" for c in RATING_COLUMNS[4:])
)  # fmt: skip
_INSERT_CHANGES: Final = (f"INSERT INTO rating_changes ({', '.join(CHANGE_COLUMNS)}) VALUES "
                          f"({', '.join(['%s'] * len(CHANGE_COLUMNS))})")  # fmt: skip
_SET_POSITION: Final = ("UPDATE ratings_position SET ended_ms = %s, game_id = %s, seq = %s, "
                        "looked = %s")  # fmt: skip


async def read_position(cur: "psycopg.AsyncCursor[Any]", lock: bool = False) -> Position:
    await cur.execute("SELECT ended_ms, game_id, seq, looked FROM ratings_position"
                      + (" FOR UPDATE" if lock else ""))  # fmt: skip
    record = await cur.fetchone()
    assert record is not None  # 0004_ratings.sql inserts the one row
    return Position(*record)


async def rewrite(cur: "psycopg.AsyncCursor[Any]", games: Sequence[Finished]) -> int:
    """The ratings made again from nothing out of `games` (every candidate up to the new
    position), in the caller's transaction, under its locks: the games rated."""
    rows, changes = recomputed(games)
    await cur.execute("DELETE FROM rating_changes")
    await cur.execute("DELETE FROM ratings")
    if rows:
        await cur.executemany(_INSERT_RATINGS, rows)
    if changes:
        await cur.executemany(_INSERT_CHANGES, changes)
    last = max(games, key=key) if games else None
    seq = changes[-1][0] if changes else 0
    at = key(last) if last is not None else (-1, "")
    await cur.execute(_SET_POSITION, (*at, seq, len(games)))
    return seq


# -- the pass ---------------------------------------------------------------------------------


class Stale(Exception):
    """The read model and the logs (or another projector) disagree: left for the next round."""


class RatingsPass(OneConnection):
    """Keeps the ratings up with the finished games, on a PostgreSQL connection of its own (as
    the `projector` role) and the projector's store."""

    def __init__(self, store: EventStore, database_url: str) -> None:
        self.store = store
        self.database_url = database_url
        self.conn: psycopg.AsyncConnection[Any] | None = None
        self.lock = asyncio.Lock()  # one round at a time on the one connection

    async def run(self) -> None:
        """One round (the periodic job): apply the settled candidates past the position."""
        async with self.lock:
            try:
                rated, looked = await self._round()
            except Stale as exc:
                log.info("ratings pass waits for the read model", reason=str(exc))
                return
            except (psycopg.Error, OSError, redis.exceptions.RedisError) as exc:
                log.warning("ratings pass failed; tried again next round", error=repr(exc))
                if self.conn is not None and self.conn.broken:
                    with contextlib.suppress(psycopg.Error):
                        await self.conn.close()
                return
            if looked:
                log.info("ratings pass", looked=looked, rated=rated)

    async def _round(self) -> tuple[int, int]:
        conn = await self.connection()
        rated = looked = 0
        async with conn.cursor() as cur:
            position = await read_position(cur)
            await cur.execute(f"SELECT count(*) FROM games WHERE {_CANDIDATE} AND "
                              "(ended_at, game_id) <= (%s, %s)", position.at)  # fmt: skip
            counted = await cur.fetchone()
            if counted is None or counted[0] != position.looked:
                return await self.recompute(conn, position), 0
            while True:
                await cur.execute(
                    f"SELECT game_id, ended_at FROM games WHERE {_CANDIDATE} AND "
                    "ended_at < now() - make_interval(secs => %s) AND (ended_at, game_id) > "
                    "(%s, %s) ORDER BY ended_at, game_id LIMIT %s",
                    (SETTLE_S, *position.at, BATCH),
                )
                page = await cur.fetchall()
                for game_id, ended_at in page:
                    game = await self._read(game_id, ended_at)
                    position, applied = await self.apply(conn, position, game)
                    rated += applied
                    looked += 1
                if len(page) < BATCH:
                    return rated, looked

    async def _read(self, game_id: str, ended_at: datetime) -> Finished:
        """The candidate's Finished, from its log; Stale when the log says otherwise than its
        row (the projector has not caught up with it)."""
        try:
            game = of_log(await self.store.read_all(game_id))
        except LogError as exc:
            raise Stale(f"{game_id}: {exc}") from None
        if game is None or game.ended_ms != ms_of(ended_at):
            raise Stale(f"{game_id}: its row is not its log's")
        return game

    async def apply(self, conn: "psycopg.AsyncConnection[Any]", position: Position,
                    game: Finished) -> tuple[Position, int]:  # fmt: skip
        """The game's update, its changes and the position after it, in one transaction, if
        the position is still `position` (Stale if another projector moved it)."""
        klass = rating_class(game.created)
        async with conn.transaction(), conn.cursor() as cur:
            if await read_position(cur, lock=True) != position:
                raise Stale("another projector moved the ratings position")
            await cur.execute(
                "SELECT player, system, rating, deviation, volatility, mu, sigma, games, "
                "last_ms FROM ratings WHERE ruleset = %s AND family = %s AND speed = %s AND "
                "player = ANY(%s)",
                (klass.ruleset, klass.family, klass.speed, list(game.created.players)),
            )
            current = {r[0]: from_row(*r[1:]) for r in await cur.fetchall()}
            update = rate_game(game, current)
            seq = position.seq
            if isinstance(update, Update):
                seq += 1
                await cur.executemany(_UPSERT_RATINGS, [
                    rating_row(c.player, klass, update.system, c.after, update.ended_ms)
                    for c in update.changes])  # fmt: skip
                await cur.executemany(_INSERT_CHANGES, change_rows(seq, update))
            moved = Position(game.ended_ms, game.game_id, seq, position.looked + 1)
            await cur.execute(_SET_POSITION, (moved.ended_ms, moved.game_id, moved.seq,
                                              moved.looked))  # fmt: skip
        return moved, int(seq != position.seq)

    async def recompute(self, conn: "psycopg.AsyncConnection[Any]", position: Position) -> int:
        """Every rating again from nothing: the settled candidates' logs, in order, written in
        one transaction if the position is still `position`. The games rated."""
        log.warning("a rated game reached the read model after the ratings passed its end: "
                    "every rating is computed again, in order")  # fmt: skip
        cur = await conn.execute(
            f"SELECT game_id, ended_at FROM games WHERE {_CANDIDATE} AND "
            "ended_at < now() - make_interval(secs => %s) ORDER BY ended_at, game_id",
            (SETTLE_S,),
        )
        games = [await self._read(g, at) for g, at in await cur.fetchall()]
        async with conn.transaction(), conn.cursor() as cur:
            if await read_position(cur, lock=True) != position:
                raise Stale("another projector moved the ratings position")
            return await rewrite(cur, games)


# -- verify -----------------------------------------------------------------------------------


async def from_logs(store: EventStore, redis: Any,
                    conn: "psycopg.AsyncConnection[Any]") -> list[Finished]:  # fmt: skip
    """Every candidate, read from every log (hot and archived) as the rebuild reads them."""
    games: list[Finished] = []
    for game_id in await game_ids(redis, conn):
        try:
            game = of_log(await store.read_all(game_id))
        except LogError:  # projected up to its bad entry by the rebuild: a row, no rating
            continue
        if game is not None:
            games.append(game)
    return games


async def verify(store: EventStore, redis: Any, conn: "psycopg.AsyncConnection[Any]") -> str | None:
    """Every stored rating and rating change against the ones recomputed from the logs, in the
    canonical order, up to the stored position: the first difference, None when none."""
    async with conn.cursor() as cur:
        position = await read_position(cur)
        await cur.execute(f"SELECT {', '.join(RATING_COLUMNS)} FROM ratings")
        # In Python's order (code points), as recomputed: the database's collation may differ.
        stored_rows = sorted(tuple(r) for r in await cur.fetchall())
        await cur.execute(f"SELECT {', '.join(CHANGE_COLUMNS)} FROM rating_changes "
                          "ORDER BY seq, seat")  # fmt: skip
        stored_changes = [tuple(r) for r in await cur.fetchall()]
    upto = (position.ended_ms, position.game_id)
    games = [g for g in await from_logs(store, redis, conn) if key(g) <= upto]
    rows, changes = recomputed(games)
    if (found := first_difference("rating_changes", CHANGE_COLUMNS, 2, stored_changes,
                                  changes)) is not None:  # fmt: skip
        return found
    if (found := first_difference("ratings", RATING_COLUMNS, 4, stored_rows, rows)) is not None:
        return found
    seq = changes[-1][0] if changes else 0
    if (position.seq, position.looked) != (seq, len(games)):
        return (
            f"ratings_position: stored seq {position.seq} after {position.looked} games "
            f"looked at, recomputed seq {seq} after {len(games)}"
        )
    return None


def first_difference(table: str, columns: Sequence[str], keyed: int,
                     stored: list[tuple[Any, ...]], expected: list[tuple[Any, ...]],
                     ) -> str | None:  # fmt: skip
    """The first row, in order, where `stored` and `expected` differ (floats compared exactly),
    named by its key (the first `keyed` columns; rating_changes' are seq and game id)."""
    for i in range(max(len(stored), len(expected))):
        have = stored[i] if i < len(stored) else None
        want = expected[i] if i < len(expected) else None
        if have == want:
            continue
        if have is None or want is None:
            row = want if have is None else have
            assert row is not None
            what = "missing" if have is None else "not recomputed from the logs"
            return f"{table} {_named(columns, keyed, row)}: stored row {what}"
        if have[:keyed] != want[:keyed]:
            return (
                f"{table}: stored {_named(columns, keyed, have)} where the logs give "
                f"{_named(columns, keyed, want)}"
            )
        column = next(c for c, h, w in zip(columns, have, want, strict=True) if h != w)
        value_at = columns.index(column)
        return (
            f"{table} {_named(columns, keyed, have)}: {column} stored {have[value_at]!r}, "
            f"recomputed {want[value_at]!r}"
        )
    return None


def _named(columns: Sequence[str], keyed: int, row: tuple[Any, ...]) -> str:
    return "(" + ", ".join(f"{c}={v!r}" for c, v in zip(columns[:keyed], row, strict=False)) + ")"


# -- the leaderboard --------------------------------------------------------------------------


class Standing(msgspec.Struct, frozen=True):
    player: str
    rating: Rating
    provisional: bool


async def leaderboard(conn: "psycopg.AsyncConnection[Any]", ruleset: str | None,
                      ) -> dict[RatingClass, list[Standing]]:  # fmt: skip
    """Every class's players (of `ruleset`, or all), best first: Glicko-2 by rating, Weng–Lin
    by its conservative estimate (μ − 3σ)."""
    from domain.ratings.games import provisional

    cur = await conn.execute(
        "SELECT ruleset, family, speed, player, system, rating, deviation, volatility, mu, "
        "sigma, games, last_ms FROM ratings WHERE %s::text IS NULL OR ruleset = %s "
        "ORDER BY ruleset, family, speed, coalesce(rating, mu - 3 * sigma) DESC, player",
        (ruleset, ruleset),
    )
    out: dict[RatingClass, list[Standing]] = {}
    for r in await cur.fetchall():
        rating = from_row(*r[4:])
        out.setdefault(RatingClass(*r[:3]), []).append(Standing(r[3], rating, provisional(rating)))
    return out
