"""Game affinity (issue 22): the bus maps a game's actions to one of ACT_PARTITIONS partitions,
each leased in Valkey to one rules replica, which alone serves it. Replicas share the
partitions, a leaving replica's are taken at once and a dead one's once its leases lapse, a
lease lost is no longer served; with two replicas running, every game's actions are handled by
one of them and no append meets a conflict. Real nats-server and Valkey; the leases are kept as
the `rules` store user."""

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest
import redis.asyncio as aioredis
import structlog
from prometheus_client import REGISTRY

from contracts import subjects
from services.client.client import Client
from services.rules.__main__ import build as rules_build
from services.rules.partitions import Partitions
from services.runtime import keys, metrics
from services.runtime.config import Settings
from tests.conftest import running
from tests.recorded import record_games

PARTS = subjects.ACT_PARTITIONS
ALL = set(range(PARTS))


class Replica:
    """A replica's leases, with what it was told to serve."""

    def __init__(self, redis: "aioredis.Redis", name: str, lease_ms: int = 3000) -> None:
        self.serving: set[int] = set()
        self.partitions = Partitions(redis, name, self._gain, self._lose, lease_ms=lease_ms)

    async def _gain(self, p: int) -> None:
        assert p not in self.serving
        self.serving.add(p)

    async def _lose(self, p: int) -> None:
        self.serving.remove(p)


async def holders(redis: "aioredis.Redis") -> list[bytes | None]:
    return [await redis.get(keys.act_lease_key(p)) for p in range(PARTS)]


async def clear(redis: "aioredis.Redis") -> None:
    await redis.delete(keys.RULES_REPLICAS, *(keys.act_lease_key(p) for p in range(PARTS)))


@pytest.fixture
async def leases(redis: "aioredis.Redis") -> AsyncIterator["aioredis.Redis"]:
    """No lease or replica left by another test, nor its replicas' gauges."""
    await clear(redis)
    yield redis
    await clear(redis)
    metrics.RULES_PARTITIONS.clear()


@pytest.fixture
async def as_rules(role_settings: Callable[[str], Settings]) -> AsyncIterator["aioredis.Redis"]:
    client = aioredis.from_url(role_settings("rules").redis_url)
    yield client
    await client.aclose()


async def test_replicas_share_the_partitions_and_a_leaving_one_hands_them_over(
    leases: "aioredis.Redis", as_rules: "aioredis.Redis"
) -> None:
    a, b = Replica(as_rules, "a"), Replica(as_rules, "b")
    await a.partitions.tick()
    assert a.serving == ALL  # alone: every partition
    await b.partitions.tick()
    assert b.serving == set()  # all are held
    await a.partitions.tick()
    assert a.serving == ALL  # two live replicas: it offers beyond its share, still serving it
    offered = {p for p, v in enumerate(await holders(leases)) if v == b"~a"}
    assert len(offered) == PARTS // 2
    await b.partitions.tick()
    assert b.serving == offered  # taken while a still serves them: never a partition unserved
    await a.partitions.tick()
    assert a.serving == ALL - offered  # handed over
    assert await holders(leases) == [b"b" if p in offered else b"a" for p in range(PARTS)]
    await a.partitions.tick()
    await b.partitions.tick()
    assert (len(a.serving), len(b.serving)) == (PARTS // 2, PARTS // 2)  # settled

    await a.partitions.release()  # its drain
    assert a.serving == set()
    assert await leases.zrange(keys.RULES_REPLICAS, 0, -1) == [b"b"]
    await b.partitions.tick()
    assert b.serving == ALL
    assert set(await holders(leases)) == {b"b"}


async def test_an_offer_not_yet_taken_is_held_again_when_the_share_grows(
    leases: "aioredis.Redis", as_rules: "aioredis.Redis"
) -> None:
    """a offers half for b, which leaves (its drain) before taking any: a holds them again."""
    a, b = Replica(as_rules, "a"), Replica(as_rules, "b")
    await a.partitions.tick()
    await b.partitions.tick()
    await a.partitions.tick()
    assert b"~a" in await holders(leases)
    await b.partitions.release()
    await a.partitions.tick()
    assert a.serving == ALL
    assert set(await holders(leases)) == {b"a"}


async def test_a_dead_replicas_partitions_are_taken_once_its_leases_lapse(
    leases: "aioredis.Redis", as_rules: "aioredis.Redis"
) -> None:
    a, b = Replica(as_rules, "a", lease_ms=300), Replica(as_rules, "b", lease_ms=300)
    await a.partitions.tick()
    await b.partitions.tick()
    assert (a.serving, b.serving) == (ALL, set())
    # a dies: it renews nothing. Its leases lapse (Valkey's TTL), then b takes them.
    async with asyncio.timeout(10):
        while any(await holders(leases)):  # noqa: ASYNC110  # the store's expiry: polled
            await asyncio.sleep(0.05)
    await b.partitions.tick()
    assert b.serving == ALL
    assert await leases.zrange(keys.RULES_REPLICAS, 0, -1) == [b"b"]


async def test_a_replica_cut_off_from_the_bus_gives_its_partitions_to_the_others(
    leases: "aioredis.Redis", as_rules: "aioredis.Redis"
) -> None:
    """It serves nothing it cannot be asked for, and counts in no share: the others take all."""
    a, b = Replica(as_rules, "a"), Replica(as_rules, "b")
    bus_up = True
    a.partitions.connected = lambda: bus_up
    for r in (a, b, a, b, a):
        await r.partitions.tick()
    assert len(a.serving) == PARTS // 2
    bus_up = False
    await a.partitions.tick()
    assert a.serving == set()
    await b.partitions.tick()
    assert b.serving == ALL
    bus_up = True  # back: it takes its share again once b offers it
    await a.partitions.tick()
    await b.partitions.tick()
    await a.partitions.tick()
    await b.partitions.tick()
    assert (len(a.serving), len(b.serving)) == (PARTS // 2, PARTS // 2)


async def test_a_lease_another_replica_holds_is_no_longer_served(
    leases: "aioredis.Redis", as_rules: "aioredis.Redis"
) -> None:
    """A replica stalled past its lease finds a partition taken by another: it stops serving it
    and does not take it back while it is held."""
    a = Replica(as_rules, "a")
    await a.partitions.tick()
    await leases.set(keys.act_lease_key(3), "c", px=3000)  # c took it while a stalled
    await a.partitions.tick()
    assert a.serving == ALL - {3}
    assert await leases.get(keys.act_lease_key(3)) == b"c"


async def test_the_rules_user_reaches_no_lease_outside_its_keys(as_rules: "aioredis.Redis") -> None:
    from redis.exceptions import NoPermissionError

    with pytest.raises(NoPermissionError):
        await as_rules.set(f"{keys.PREFIX}:gw:lease", "x")


def act_handlers(logs: list[dict[str, object]]) -> dict[str, set[object]]:
    """game id -> the replicas whose `handled` lines name an act of it."""
    out: dict[str, set[object]] = {}
    for line in logs:
        if line.get("event") == "handled" and line.get("endpoint") == "act":
            out.setdefault(str(line["game_id"]), set()).add(line.get("replica"))
    return out


async def settled(replicas: int) -> None:
    """Until `replicas` replicas (of this process) serve equal shares of the partitions and none
    is still serving one it offered: from then on each game's actions reach one of them."""
    async with asyncio.timeout(20):
        while True:
            held: dict[str, float] = {}
            offered = 0.0
            (family,) = [f for f in REGISTRY.collect() if f.name == "tabula_rules_partitions"]
            for sample in family.samples:
                if sample.labels["state"] == "offered":
                    offered += sample.value
                elif sample.value:
                    held[sample.labels["replica"]] = sample.value
            if not offered and len(held) == replicas and set(held.values()) == {PARTS / replicas}:
                return
            await asyncio.sleep(0.05)  # polling the replicas' ticks; the exit is the condition


def conflicts() -> float:
    return REGISTRY.get_sample_value("tabula_append_conflicts_total") or 0.0


async def test_two_replicas_serve_each_game_alone_and_hand_over_on_leaving(
    stack: Settings, client: Client, redis: "aioredis.Redis",
    role_settings: Callable[[str], Settings],
) -> None:  # fmt: skip
    """The stack's replica and a second share the partitions; games played through both reach
    one replica each and meet no conflict. The second leaves (its drain): the first takes its
    partitions and the games go on there."""
    recorded = record_games(24, 8, seed=3)
    created = [await client.create_game("chess3d") for _ in recorded]
    games = [(c.game_id, [s.token for s in c.seats], moves)
             for c, moves in zip(created, recorded, strict=True)]  # fmt: skip

    async def play(plies: slice) -> None:
        async def one(game_id: str, tokens: list[str], moves: list[tuple[int, str]]) -> None:
            for seat, move in moves[plies]:
                await client.act(game_id, seat, tokens[seat], move)

        await asyncio.gather(*(one(*g) for g in games))

    before = conflicts()
    with structlog.testing.capture_logs([structlog.contextvars.merge_contextvars]) as logs:
        async with running(rules_build, role_settings("rules")):
            await settled(2)
            await play(slice(0, 4))
        left = len(logs)
        await settled(1)  # the second gave its leases back; the first took them
        (stays,) = {h.decode() for h in await holders(redis) if h is not None}
        await play(slice(4, None))
    both = act_handlers(logs[:left])
    assert set(both) == {g for g, *_ in games}
    assert all(len(replicas) == 1 for replicas in both.values()), both
    assert len(set().union(*both.values())) == 2  # each replica served some of the games
    assert set().union(*act_handlers(logs[left:]).values()) == {stays}
    assert conflicts() == before
