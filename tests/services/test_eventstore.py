"""Event store conformance: run against whatever Redis-compatible server the session has."""

import asyncio
import time
import uuid

import msgspec
import pytest

from contracts.envelope import StoredEvent
from contracts.events import GameCreated, GameEnded, GameSealed
from domain import fairplay
from domain.audit import chain_entries
from services.runtime.embedded import start_valkey
from services.runtime.eventstore import Appended, Conflict, EventStore, NewEvent, StaleCreate
from services.runtime.keys import commands_key, log_key, meta_key


def gid() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


def ev(i: int) -> NewEvent:
    return NewEvent("Tick", msgspec.json.encode({"type": "Tick", "i": i}))


async def test_append_then_read_is_a_gapless_hash_chain(store: EventStore) -> None:
    """Appended events read back in order, versions 1..n, each hash chaining the exact bytes."""
    g = gid()
    r1 = await store.append(g, 0, fairplay.genesis_hash(g), "c1", [ev(1), ev(2)])
    assert isinstance(r1, Appended)
    r2 = await store.append(g, 2, r1.hash, "c2", [ev(3)])
    assert isinstance(r2, Appended)
    stored = await store.read(g)
    assert [s.version for s in stored] == [1, 2, 3]
    assert [s.command_id for s in stored] == ["c1", "c1", "c2"]
    assert all(s.game_id == g for s in stored)
    entries = chain_entries(stored)
    assert fairplay.verify_chain(g, entries) is None
    assert fairplay.chain_version(g, entries) == fairplay.CHAIN_V2
    assert stored[-1].hash == r2.hash
    head = await store.head(g)
    assert head is not None
    assert (head.version, head.hash) == (3, r2.hash)


async def test_read_from_a_version(store: EventStore) -> None:
    """read(after=N) returns exactly the events with version > N."""
    g = gid()
    await store.append(g, 0, fairplay.genesis_hash(g), "c", [ev(i) for i in range(5)])
    assert [s.version for s in await store.read(g, after=3)] == [4, 5]
    assert await store.read(g, after=5) == []
    assert [s.version for s in await store.read(g, after=0, count=2)] == [1, 2]


async def test_stale_expected_version_is_a_typed_conflict_and_appends_nothing(
    store: EventStore,
) -> None:
    g = gid()
    first = await store.append(g, 0, fairplay.genesis_hash(g), "a", [ev(1)])
    assert isinstance(first, Appended)
    again = await store.append(g, 0, fairplay.genesis_hash(g), "b", [ev(2)])
    assert again == Conflict(version=1)
    assert len(await store.read(g)) == 1


async def test_stale_head_hash_at_the_right_version_is_a_conflict(store: EventStore) -> None:
    """A writer whose view forked (right version, wrong hash) can never extend the chain."""
    g = gid()
    await store.append(g, 0, fairplay.genesis_hash(g), "a", [ev(1)])
    forked = await store.append(g, 1, "0" * 64, "b", [ev(2)])
    assert forked == Conflict(version=1)
    assert len(await store.read(g)) == 1


async def test_retried_command_appends_nothing_and_returns_the_original_result(
    store: EventStore,
) -> None:
    g = gid()
    first = await store.append(g, 0, fairplay.genesis_hash(g), "same", [ev(1), ev(2)])
    assert isinstance(first, Appended)
    # Retried with a now-stale version: still recognised by command id, not a conflict.
    retry = await store.append(g, 0, fairplay.genesis_hash(g), "same", [ev(1), ev(2)])
    assert retry == Appended(first.first_version, first.version, first.hash, duplicate=True)
    assert len(await store.read(g)) == 2
    looked_up = await store.command_result(g, "same")
    assert looked_up == retry


async def test_concurrent_writers_at_one_version_get_one_winner(store: EventStore) -> None:
    """100 concurrent appends at the same expected version: one lands, 99 conflict, no fork."""
    g = gid()
    genesis = fairplay.genesis_hash(g)
    await store.append(g, 0, genesis, "create", [ev(0)])
    head = await store.head(g)
    assert head is not None
    results = await asyncio.gather(
        *(store.append(g, 1, head.hash, f"w{i}", [ev(i)]) for i in range(100))
    )
    assert sum(isinstance(r, Appended) for r in results) == 1
    assert sum(r == Conflict(version=2) for r in results) == 99
    assert [s.version for s in await store.read(g)] == [1, 2]


async def test_concurrent_appends_are_group_committed(store: EventStore) -> None:
    """Appends to 200 games issued together share round trips (fewer batches than appends)."""
    games = [gid() for _ in range(200)]
    before = store.batches
    results = await asyncio.gather(
        *(store.append(g, 0, fairplay.genesis_hash(g), "c", [ev(1)]) for g in games)
    )
    assert all(isinstance(r, Appended) for r in results)
    assert store.batches - before < len(games) // 4


async def test_seal_records_the_final_version_and_hash(store: EventStore) -> None:
    g = gid()
    r = await store.append(g, 0, fairplay.genesis_hash(g), "end", [ev(1), ev(2)], seal=True)
    assert isinstance(r, Appended)
    stored = await store.read(g)
    assert [s.type for s in stored] == ["Tick", "Tick", "GameSealed"]
    seal = msgspec.json.decode(stored[-1].body, type=GameSealed)
    assert (seal.version, seal.hash) == (2, stored[1].hash)
    assert r.version == 3


async def test_follow_catches_up_then_sees_live_appends(store: EventStore) -> None:
    g = gid()
    r = await store.append(g, 0, fairplay.genesis_hash(g), "c1", [ev(1), ev(2)])
    assert isinstance(r, Appended)
    seen: list[int] = []

    async def follow() -> None:
        async for s in store.follow(g, after=1, block_ms=100):
            seen.append(s.version)
            if s.version == 4:
                return

    follower = asyncio.create_task(follow())
    await store.append(g, 2, r.hash, "c2", [ev(3), ev(4)])
    await asyncio.wait_for(follower, 10)
    assert seen == [2, 3, 4]


async def test_keys_of_a_game_share_one_cluster_hash_slot() -> None:
    """Every key of a game carries the same {hash tag}, so a cluster keeps it on one slot."""
    tags = {
        k.split("{")[1].split("}")[0] for k in (log_key("g1"), meta_key("g1"), commands_key("g1"))
    }
    assert tags == {"g1"}


async def test_lost_script_cache_is_reloaded(store: EventStore) -> None:
    """After SCRIPT FLUSH (as after a server restart) appends still go through, exactly once."""
    g = gid()
    await store.append(g, 0, fairplay.genesis_hash(g), "c1", [ev(1)])
    await store.redis.script_flush()
    head = await store.head(g)
    assert head is not None
    r = await store.append(g, 1, head.hash, "c2", [ev(2)])
    assert isinstance(r, Appended)
    assert [s.version for s in await store.read(g)] == [1, 2]


async def test_empty_append_is_refused(store: EventStore) -> None:
    with pytest.raises(ValueError, match="at least one event"):
        await store.append(gid(), 0, "x", "c", [])


async def test_acknowledged_event_survives_a_server_crash(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """With the embedded durability settings (AOF, fsync always) an acknowledged append
    survives SIGKILL of the server."""
    server = start_valkey(tmp_path)
    store = EventStore.from_url(server.url)
    g = gid()
    try:
        r = await store.append(g, 0, fairplay.genesis_hash(g), "c1", [ev(1), ev(2)])
        assert isinstance(r, Appended)
    finally:
        await store.close()
        server.kill()
    port = int(server.url.rsplit(":", 1)[1].split("/")[0])
    server = start_valkey(tmp_path, port=port)
    store = EventStore.from_url(server.url)
    try:
        stored = await store.read(g)
        assert [s.version for s in stored] == [1, 2]
        assert stored[-1].hash == r.hash
    finally:
        await store.close()
        server.stop()


async def test_a_create_more_than_five_minutes_past_its_time_appends_nothing(
    store: EventStore,
) -> None:
    """append.lua refuses a create whose time is over 5 minutes behind the store's clock (a
    removed game's tombstone outlives that window: the create's look in the archive cannot be
    stale); nothing is written, and the same create made in time is applied."""
    g = gid()
    t = int(time.time() * 1000)
    with pytest.raises(StaleCreate, match="5 minutes"):
        await store.append(g, 0, fairplay.genesis_hash(g), "c1", [ev(1)], time_ms=t - 301_000)
    assert not await store.redis.exists(log_key(g), meta_key(g), commands_key(g))
    r = await store.append(g, 0, fairplay.genesis_hash(g), "c1", [ev(1)], time_ms=t - 290_000)
    assert isinstance(r, Appended)
    assert r.version == 1


# -- hash chain v2: new games cover ts and cmd; games begun under v1 stay v1 ----------------------


async def test_a_new_game_is_chained_under_v2_and_says_so_in_its_meta(store: EventStore) -> None:
    """The create append writes meta `chain` = 2; every entry's hash covers its ts and cmd."""
    g = gid()
    t = int(time.time() * 1000)  # a create is made within 5 minutes of its time
    r = await store.append(g, 0, fairplay.genesis_hash(g), "c1", [ev(1)], time_ms=t)
    assert isinstance(r, Appended)
    r = await store.append(g, 1, r.hash, "c2", [ev(2)], seal=True, time_ms=t + 1_000)
    assert isinstance(r, Appended)
    assert await store.redis.hget(meta_key(g), "chain") == b"2"
    stored = await store.read(g)
    assert [(s.time_ms, s.command_id) for s in stored] == [(t, "c1"), (t + 1_000, "c2"),
                                                           (t + 1_000, "c2")]  # fmt: skip
    prev = fairplay.genesis_hash(g)
    for s in stored:
        expected = fairplay.chain_hash_v2(s.version, prev, s.type, bytes(s.body), s.time_ms,
                                          s.command_id)  # fmt: skip
        assert s.hash == expected
        prev = expected
    assert fairplay.verify_chain(g, chain_entries(stored)) is None


async def test_a_game_begun_under_v1_keeps_appending_under_v1(store: EventStore) -> None:
    """A game whose meta has no `chain` (created before v2) is continued under v1, so its chain
    never breaks; the store then records `chain` = 1."""
    g = gid()
    h1 = fairplay.chain_hash(1, fairplay.genesis_hash(g), "Tick", ev(1).body)
    await store.redis.xadd(log_key(g), {"g": g, "v": 1, "type": "Tick", "body": ev(1).body,
                                        "cmd": "old", "ts": 5, "h": h1}, id="0-1")  # fmt: skip
    await store.redis.hset(meta_key(g), mapping={"version": 1, "head": h1})  # as v1 wrote it
    r = await store.append(g, 1, h1, "new", [ev(2), ev(3)])
    assert isinstance(r, Appended)
    stored = await store.read(g)
    entries = chain_entries(stored)
    assert fairplay.verify_chain(g, entries) is None
    assert fairplay.chain_version(g, entries) == fairplay.CHAIN_V1
    assert stored[1].hash == fairplay.chain_hash(2, h1, "Tick", ev(2).body)
    assert await store.redis.hget(meta_key(g), "chain") == b"1"


async def test_an_append_under_another_chain_version_than_the_games_is_refused(
    store: EventStore,
) -> None:
    """The script checks the chain version the hashes were computed under against the game's
    (the store's cache of it can only be stale if the game was deleted and written anew): a
    Conflict, nothing written; the retry learns the game's version and goes through."""
    g = gid()
    r = await store.append(g, 0, fairplay.genesis_hash(g), "c1", [ev(1)])
    assert isinstance(r, Appended)
    assert await store.chain_of(g, 1) == fairplay.CHAIN_V2  # cached
    await store.redis.hset(meta_key(g), "chain", 1)  # as if the game were now a v1 game
    refused = await store.append(g, 1, r.hash, "c2", [ev(2)])
    assert refused == Conflict(1)
    assert [s.version for s in await store.read(g)] == [1]
    again = await store.append(g, 1, r.hash, "c2", [ev(2)])
    assert isinstance(again, Appended)
    stored = await store.read(g)
    assert stored[1].hash == fairplay.chain_hash(2, r.hash, "Tick", ev(2).body)


async def test_a_non_ascii_command_id_is_refused_before_anything_is_stored(
    store: EventStore,
) -> None:
    g = gid()
    with pytest.raises(ValueError, match="command id and action must be ASCII"):
        await store.append(g, 0, fairplay.genesis_hash(g), "zug-ü", [ev(1)])
    assert await store.redis.exists(log_key(g), meta_key(g), commands_key(g)) == 0


async def test_import_keeps_each_logs_chain_version(store: EventStore) -> None:
    """An imported log (an export, maybe from before v2) records the version its h_1 was
    written under, and appends continue it."""
    for chain in (fairplay.CHAIN_V1, fairplay.CHAIN_V2):
        g = gid()
        created = msgspec.json.encode(
            {"type": "GameCreated", "ruleset": "chess3d", "game_id": g, "seats": 2}
        )
        h1 = fairplay.entry_hash(chain, 1, fairplay.genesis_hash(g), "GameCreated", created,
                                 1_000, "c1")  # fmt: skip
        await store.import_log([StoredEvent(game_id=g, version=1, type="GameCreated",
                                            body=msgspec.Raw(created), time_ms=1_000,
                                            command_id="c1", hash=h1)])  # fmt: skip
        assert await store.redis.hget(meta_key(g), "chain") == str(chain).encode()
        r = await store.append(g, 1, h1, "c2", [ev(2)])
        assert isinstance(r, Appended)
        entries = chain_entries(await store.read(g))
        assert fairplay.chain_version(g, entries) == chain
        assert fairplay.verify_chain(g, entries) is None


async def test_the_meta_an_append_implies_is_written_with_it(store: EventStore) -> None:
    """Derived state in the same step as the events (issue 10): the create append records the
    ruleset, and the append holding GameEnded records the result and reason, in one script:
    no window in which the log says ended and the meta does not."""
    g = gid()
    created = msgspec.json.encode(GameCreated(ruleset="chess3d", seats=2))
    r = await store.append(g, 0, fairplay.genesis_hash(g), "c1", [NewEvent("GameCreated", created)])
    assert isinstance(r, Appended)
    assert await store.redis.hget(meta_key(g), "ruleset") == b"chess3d"
    assert not await store.redis.hexists(meta_key(g), "result")
    ended = msgspec.json.encode(GameEnded(result="0-1", reason="resignation", winners=[1]))
    r = await store.append(g, 1, r.hash, "c2", [ev(2), NewEvent("GameEnded", ended)])
    assert isinstance(r, Appended)
    meta = await store.redis.hgetall(meta_key(g))
    assert (meta[b"result"], meta[b"reason"], meta[b"version"]) == (b"0-1", b"resignation", b"3")
