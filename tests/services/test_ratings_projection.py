"""Ratings in the read model (issue 23): the projector's ratings pass rates the finished rated
games (Glicko-2 for two seats, Weng–Lin for teams) in the order (end, game id), once each; the
pass run twice changes nothing; `tabula projections rebuild` gives the same rows to the bit;
`tabula ratings --verify` recomputes every rating from the logs and fails on one changed stored
rating; casual games and games with an anonymous seat leave ratings alone."""

import asyncio
import os
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgspec
import psycopg
import pytest
import redis.asyncio as aioredis
from psycopg.conninfo import make_conninfo

from contracts.envelope import StoredEvent
from contracts.events import Event, GameCreated, GameEnded, TimeControl
from domain import fairplay
from domain.ratings.games import Finished, replay
from domain.yiora import YIORA
from services.projector.projections import Projector, rebuild
from services.projector.ratings import SETTLE_S, RatingsPass, of_log, recomputed
from services.runtime import access
from services.runtime.archived import ArchiveReader
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore
from tests.conftest import Postgres
from tests.e2e.test_cli import TABULA, forget

RATING_TABLES = {
    "ratings": "player, ruleset, family, speed",
    "rating_changes": "seq, game_id, player",
    "ratings_position": "only_row",
}
BLITZ = TimeControl(base_ms=180_000, increment_ms=2_000)  # 180 s + 40 × 2 s: blitz


def chained(game_id: str, events: list[tuple[Event, int]]) -> list[StoredEvent]:
    """A log of `events` (each with its time, ms), hash chain v2, as the append script writes
    one: what `tabula import` loads."""
    out: list[StoredEvent] = []
    digest = fairplay.genesis_hash(game_id)
    for version, (event, at) in enumerate(events, 1):
        body = msgspec.json.encode(event)
        command = f"c{version}"
        tag = str(event.__struct_config__.tag)
        digest = fairplay.entry_hash(fairplay.CHAIN_V2, version, digest, tag, body, at,
                                     command)  # fmt: skip
        out.append(StoredEvent(game_id=game_id, version=version, type=tag,
                               body=msgspec.Raw(body), time_ms=at, command_id=command,
                               hash=digest))  # fmt: skip
    return out


def chess_game(players: list[str], result: str | None, ended_ms: int, *,
               rated: bool = True) -> list[StoredEvent]:  # fmt: skip
    """A 2-seat chess3d game made at `ended_ms` − 1 min and, with a result, ended at
    `ended_ms`."""
    game_id = f"g-r{uuid.uuid4().hex[:16]}"
    made = GameCreated(ruleset="chess3d", game_id=game_id, seats=2, players=players,
                       clock=BLITZ, rated=rated)  # fmt: skip
    events: list[tuple[Event, int]] = [(made, ended_ms - 60_000)]
    if result is not None:
        winners = [s for s, score in enumerate(result.split("-")) if score == "1"]
        events.append((GameEnded(result=result, reason="resignation", winners=winners),
                       ended_ms))  # fmt: skip
    return chained(game_id, events)


def yiora_teams_game(players: list[str], result: str, ended_ms: int) -> list[StoredEvent]:
    """A Yiora Secondary Complex game of two teams of two (seats 0+2 v 1+3), rated."""
    game_id = f"g-r{uuid.uuid4().hex[:16]}"
    made = msgspec.structs.replace(YIORA.create("secondary_complex+teams"), game_id=game_id,
                                   players=players, rated=True)  # fmt: skip
    assert (made.seats, made.teams) == (4, [[0, 2], [1, 3]])
    winners = [s for s, score in enumerate(result.split("-")) if score == "1"]
    ended = GameEnded(result=result, reason="checkmate", winners=winners)
    return chained(game_id, [(made, ended_ms - 60_000), (ended, ended_ms)])


async def rating_tables(postgres: Postgres) -> dict[str, list[tuple[Any, ...]]]:
    """The three tables whole, in key order, as the auditor reads them."""
    out = {}
    async with await psycopg.AsyncConnection.connect(postgres.url("auditor")) as conn:
        for table, key in RATING_TABLES.items():
            cur = await conn.execute(f"SELECT * FROM {table} ORDER BY {key}")
            out[table] = [tuple(r) for r in await cur.fetchall()]
    return out


def own(tables: dict[str, list[tuple[Any, ...]]], *players: str) -> dict[str, list[Any]]:
    """The rows of this test's players: the session's other tests rate games of their own in
    the same database, and a rebuild also rates those that ended within the settle window."""
    return {"ratings": [r for r in tables["ratings"] if r[0] in players],
            "rating_changes": [c for c in tables["rating_changes"] if c[2] in players]}  # fmt: skip


async def as_operator(postgres: Postgres, statement: str, params: Any = None) -> None:
    url = make_conninfo(postgres.superuser, dbname=access.PG_DATABASE)
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(statement.encode(), params)


class Rig:
    """The projector and its ratings pass, as the `projector` role, over the session's store;
    the logs this test imported, removed (with their rows) when it ends."""

    def __init__(self, redis: "aioredis.Redis", admin: EventStore, postgres: Postgres) -> None:
        self.redis, self.admin, self.postgres = redis, admin, postgres
        self.store = EventStore(redis, archive=ArchiveReader(postgres.url("projector")))
        self.projector = Projector(self.store, redis, postgres.url("projector"))
        self.ratings = RatingsPass(self.store, postgres.url("projector"))
        self.games: list[str] = []

    async def add(self, stored: list[StoredEvent]) -> str:
        """Import a log and project its row, as the projector does on its notices."""
        game_id = stored[0].game_id
        await self.admin.import_log(stored)
        self.games.append(game_id)
        assert await self.projector.catch_up(game_id) == "projected"
        return game_id

    async def rebuild(self) -> None:
        url = self.postgres.url("projector")
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            _, broken = await rebuild(self.store, self.redis, conn)
        assert not set(broken) & set(self.games)

    async def close(self) -> None:
        await as_operator(self.postgres, "DELETE FROM games WHERE game_id = ANY(%s)",
                          (self.games,))  # fmt: skip
        for game_id in self.games:
            await forget(self.admin.redis, game_id)
        await self.rebuild()  # the ratings of what is left, and the position, consistent
        await self.ratings.close()
        await self.projector.close()
        await self.store.close()


@pytest.fixture
async def rig(
    postgres: Postgres, role_settings: Callable[[str], Settings], store: EventStore
) -> AsyncIterator[Rig]:
    redis = aioredis.from_url(role_settings("projector").redis_url)
    r = Rig(redis, store, postgres)
    await r.rebuild()  # whatever earlier tests left: rows and ratings from the logs as they are
    try:
        yield r
    finally:
        await r.close()


def tabula(home: Path, role_settings: Callable[[str], Settings], postgres: Postgres,
           *args: str) -> subprocess.CompletedProcess[str]:  # fmt: skip
    """`tabula ...` as an operator reads: the store's and PostgreSQL's `auditor`."""
    auditor = role_settings("auditor")
    env = {**os.environ, "TABULA_HOME": str(home), "NATS_URL": auditor.nats_url,
           "REDIS_URL": auditor.redis_url, "DATABASE_URL": postgres.url("auditor")}  # fmt: skip
    return subprocess.run([TABULA, *args], env=env, capture_output=True, text=True,
                          timeout=300, check=False)  # fmt: skip


def settled_ms() -> int:
    """A time the pass takes as settled: ended well before its window."""
    return int(time.time() * 1000) - int(SETTLE_S * 1000) - 600_000


async def test_finished_rated_games_are_rated_once_in_order_and_verified(
    rig: Rig, postgres: Postgres, role_settings: Callable[[str], Settings], tmp_path: Path
) -> None:
    """Two chess3d games of Ann and Bob (a win, then a draw) and a Yiora Secondary game of two
    teams, beside games that are not rated: a casual one, one with an anonymous seat, one of a
    player against themself, one not ended. The pass rates the three, in order of their end,
    as the pure replay of their logs does; a second pass changes nothing; a rebuild gives the
    same rows; --verify passes, and fails naming the one stored rating changed."""
    tag = uuid.uuid4().hex[:8]
    ann, bob, cy, di = (f"{name}-{tag}" for name in ("ann", "bob", "cy", "di"))
    t = settled_ms()
    rated = [
        await rig.add(chess_game([ann, bob], "1-0", t + 1_000)),
        await rig.add(yiora_teams_game([ann, bob, cy, di], "1-0-1-0", t + 2_000)),
        await rig.add(chess_game([bob, ann], "1/2-1/2", t + 3_000)),
    ]
    unrated = [
        await rig.add(chess_game([ann, bob], "0-1", t + 1_500, rated=False)),
        await rig.add(chess_game([ann, ""], "1-0", t + 2_500)),
        await rig.add(chess_game([cy, cy], "1-0", t + 2_600)),
        await rig.add(chess_game([ann, di], None, t + 2_700)),  # in play: never ended
    ]
    await rig.ratings.run()
    after = await rating_tables(postgres)

    # Exactly the pure fold of the three logs, in their order.
    logs = [await rig.store.read_all(g) for g in rated]
    games = [game for stored in logs if (game := of_log(stored)) is not None]
    assert [g.game_id for g in games] == rated
    rows, changes = recomputed(games)
    players = {ann, bob, cy, di}
    mine = [r for r in after["ratings"] if r[0] in players]
    assert sorted(mine) == rows
    assert [(r[0], r[1], r[4]) for r in sorted(mine)] == [
        (ann, "chess3d", "glicko2"), (ann, "yiora", "wenglin"), (bob, "chess3d", "glicko2"),
        (bob, "yiora", "wenglin"), (cy, "yiora", "wenglin"), (di, "yiora", "wenglin"),
    ]  # fmt: skip
    _, updates = replay(games)
    ann_chess = next(r for r in mine if r[:2] == (ann, "chess3d"))
    assert ann_chess[3] == "blitz"
    assert ann_chess[10] == 2  # games
    assert ann_chess[11] == t + 3_000  # last_ms: the draw's end
    by_game = [[c for c in after["rating_changes"] if c[1] == g] for g in rated]
    assert [len(c) for c in by_game] == [2, 4, 2]
    seqs = [c[0][0] for c in by_game]
    assert seqs == sorted(seqs)  # applied in order of their end
    assert len(set(seqs)) == 3
    assert [c[2] for c in by_game[1]] == [ann, bob, cy, di]  # a row per seat
    assert not [c for c in after["rating_changes"] if c[1] in unrated]
    # Each change's values the fold's (its seq aside: the session's other games count too).
    assert {c[1:] for c in after["rating_changes"] if c[1] in rated} == {c[1:] for c in changes}
    assert len(updates) == 3

    # The casual game and the others are projected with what the pass needs to know.
    async with await psycopg.AsyncConnection.connect(postgres.url("auditor")) as conn:
        cur = await conn.execute("SELECT game_id, rated, speed FROM games WHERE game_id = "
                                 "ANY(%s)", (rated + unrated[:1],))  # fmt: skip
        flags = {g: (r, s) for g, r, s in await cur.fetchall()}
    assert flags[rated[0]] == (True, "blitz")
    assert flags[rated[1]] == (True, "unlimited")
    assert flags[unrated[0]] == (False, "blitz")

    await rig.ratings.run()  # nothing new: nothing changes
    assert own(await rating_tables(postgres), *players) == own(after, *players)
    await rig.rebuild()  # from nothing, from the logs: the same rows, the same floats
    assert own(await rating_tables(postgres), *players) == own(after, *players)

    ran = await asyncio.to_thread(tabula, tmp_path, role_settings, postgres, "ratings",
                                  "--verify")  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    board = await asyncio.to_thread(tabula, tmp_path, role_settings, postgres, "ratings",
                                    "chess3d", "--top", "5")  # fmt: skip
    assert board.returncode == 0, board.stderr
    assert "chess3d standard blitz" in board.stdout

    # One stored float off by the least: --verify names it.
    await as_operator(postgres, "UPDATE ratings SET rating = rating + 1e-9 WHERE player = %s "
                      "AND ruleset = 'chess3d'", (bob,))  # fmt: skip
    ran = await asyncio.to_thread(tabula, tmp_path, role_settings, postgres, "ratings",
                                  "--verify")  # fmt: skip
    assert ran.returncode == 1, ran.stdout
    assert "FAILED: ratings" in ran.stderr
    assert bob in ran.stderr
    assert "rating stored" in ran.stderr


async def test_a_game_projected_late_is_rated_in_its_place(rig: Rig, postgres: Postgres) -> None:
    """A rated game that reaches the read model after the pass went past its end (its
    projector was down): the pass sees its count of games looked at disagree and rates every
    game again in order, so the rows are the rebuild's."""
    tag = uuid.uuid4().hex[:8]
    ann, bob = f"ann-{tag}", f"bob-{tag}"
    t = settled_ms()
    await rig.add(chess_game([ann, bob], "1-0", t + 1_000))
    await rig.add(chess_game([ann, bob], "0-1", t + 3_000))
    await rig.ratings.run()
    late = chess_game([bob, ann], "1-0", t + 2_000)
    await rig.add(late)
    await rig.ratings.run()
    incremental = await rating_tables(postgres)
    changes = [c for c in incremental["rating_changes"] if c[2] == ann]
    assert [c[8] for c in changes] == [t + 1_000, t + 2_000, t + 3_000]  # in order of end
    await rig.rebuild()
    assert own(await rating_tables(postgres), ann, bob) == own(incremental, ann, bob)


async def test_two_passes_at_once_apply_each_game_once(rig: Rig, postgres: Postgres) -> None:
    """Two projectors' passes over the same games at once: the position's lock lets one apply
    each game; the rows are the rebuild's."""
    tag = uuid.uuid4().hex[:8]
    ann, bob = f"ann-{tag}", f"bob-{tag}"
    t = settled_ms()
    for i in range(6):
        await rig.add(chess_game([ann, bob], ("1-0", "0-1", "1/2-1/2")[i % 3], t + i * 1_000))
    other = RatingsPass(rig.store, postgres.url("projector"))
    try:
        await asyncio.gather(rig.ratings.run(), other.run())
        await asyncio.gather(rig.ratings.run(), other.run())  # the loser's games, if any left
    finally:
        await other.close()
    both = await rating_tables(postgres)
    assert len([c for c in both["rating_changes"] if c[2] == ann]) == 6
    await rig.rebuild()
    assert own(await rating_tables(postgres), ann, bob) == own(both, ann, bob)


def test_unrated_games_say_why() -> None:
    """The pure rules: casual, an anonymous seat, one player in two seats, a result that does
    not score each seat."""
    from domain.ratings.games import unrated

    def one(**fields: Any) -> str | None:
        made = GameCreated(ruleset="chess3d", seats=2, players=["a", "b"], rated=True)
        ended = GameEnded(result=fields.pop("result", "1-0"), reason="r", winners=[0])
        return unrated(Finished("g", msgspec.structs.replace(made, **fields), ended, 1))

    assert one() is None
    assert one(rated=False) == "casual"
    assert one(players=["a", ""]) == "a seat without a player id"
    assert one(players=["a"]) == "a seat without a player id"
    assert one(players=["a", "a"]) == "one player in two seats"
    assert one(result="1-0-0") is not None
