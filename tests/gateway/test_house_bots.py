"""House bots (issue 20, items 2 and 8; issue 24): a cap per player, kept in the store; a time
per move by default; bots that claim a person's timeout; and bots that outlive the bots service
that played them (SIGKILLed mid-game or mid-search, another instance on the same store carries
them on, seeds and setups included)."""

import asyncio
import contextlib
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from contracts.errors import ErrorCode
from domain import fairplay
from domain.audit import audit
from services.bots.thinking import THINKER_NICE
from services.gateway.lobby import BOT_GAMES_PER_PLAYER, BOT_MOVE_DEADLINE_MS
from services.runtime import keys
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore
from tests.gateway.conftest import next_frame, until_event
from tests.rulesets import register

register()  # the in-process services and the gateway share this registry
ROOT = Path(__file__).resolve().parents[2]


def error_of(reply: httpx.Response) -> dict[str, Any]:
    body: dict[str, Any] = reply.json()["error"]
    return body


def of(kind: str, seat: int | None = None) -> Callable[[dict[str, Any]], bool]:
    return lambda e: e["type"] == kind and (seat is None or e["body"].get("seat") == seat)


async def test_a_player_has_at_most_three_unfinished_games_against_the_house(
    people: Any, redis: Any
) -> None:
    """The fourth unfinished game against the house is refused (429, request/rate-limited),
    whatever gateway is asked: the count is in the store. Once one of the three has ended (a
    resignation) the next is made; another player is not limited by Ann's games."""
    ann, bob = people(), people()
    ann_id = (await ann.sign_in("Ann"))["id"]
    await bob.sign_in("Bob")
    games = []
    for _ in range(BOT_GAMES_PER_PLAYER):
        made = await ann.post("/api/bots", {"ruleset": "chess3d"})
        assert made.status_code == 201, made.text
        games.append(made.json()["game_id"])
    held = await redis.zrange(keys.player_bot_games_key(ann_id), 0, -1)
    assert sorted(m.decode() for m in held) == sorted(games)
    refused = await ann.post("/api/bots", {"ruleset": "chess3d"})
    assert refused.status_code == 429, refused.text
    assert error_of(refused)["code"] == ErrorCode.RATE_LIMITED
    assert (await bob.post("/api/bots", {"ruleset": "chess3d"})).status_code == 201
    resigned = await ann.post(f"/api/games/{games[0]}/actions",
                              {"action": "resign", "command_id": "r"})  # fmt: skip
    assert resigned.status_code == 200, resigned.text
    again = await ann.post("/api/bots", {"ruleset": "chess3d"})
    assert again.status_code == 201, again.text
    assert (await ann.post("/api/bots", {"ruleset": "chess3d"})).status_code == 429


async def test_a_game_against_the_house_has_a_time_per_move_by_default(people: Any) -> None:
    """Asked without one, a game against the house gives each move 5 minutes; asked with one,
    it has the time asked for."""
    ann = people()
    await ann.sign_in("Ann")
    plain = (await ann.post("/api/bots", {"ruleset": "chess3d"})).json()["game_id"]
    view = (await ann.get(f"/api/games/{plain}")).json()["view"]
    assert view["move_deadline_ms"] == BOT_MOVE_DEADLINE_MS == 300_000
    asked = await ann.post("/api/bots", {"ruleset": "chess3d", "move_deadline_ms": 60_000})
    view = (await ann.get(f"/api/games/{asked.json()['game_id']}")).json()["view"]
    assert view["move_deadline_ms"] == 60_000


async def test_a_bot_claims_the_game_of_a_person_who_does_not_move(people: Any) -> None:
    """Ann (White, to move) never moves in a game with 1 s a move: the bot claims, and the
    game ends on time, Ann losing; her seat in the cap is let go."""
    ann = people()
    await ann.sign_in("Ann")
    made = await ann.post("/api/bots", {"ruleset": "chess3d", "seat": 0, "move_deadline_ms": 1000})
    assert made.status_code == 201, made.text
    game_id = made.json()["game_id"]
    async with ann.feed(game_id) as ws:
        ended = await asyncio.wait_for(until_event(ws, of("GameEnded")), 30)
    assert ended["body"]["reason"] == "timeout", ended
    view = (await ann.get(f"/api/games/{game_id}")).json()["view"]
    assert (view["result"], view["reason"]) == ("0-1", "timeout")
    log = (await ann.get(f"/api/games/{game_id}/events")).json()
    claim = next(e for e in log if e["type"] == "TimedOut")
    assert claim["action"] == "1 claim-timeout"  # the bot's seat claimed it
    assert claim["body"]["idle_ms"] >= 1000


def start_bots(settings: Settings, log: Path, **env: str) -> subprocess.Popen[bytes]:
    """`python -m services.bots` in a process of its own, as the bots user, with the test
    rulesets registered (as the in-process services have them) and a 2 s lease."""
    environ = {
        **os.environ,
        "NATS_URL": settings.nats_url,
        "REDIS_URL": settings.redis_url,
        "TABULA_BOTS_LEASE_S": "2",
        "TABULA_LOG_LEVEL": "info",
        **env,
    }
    code = ("from tests.rulesets import register; register(); "
            "from services.bots.__main__ import build, main; main(build)")  # fmt: skip
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-c", code], env=environ, cwd=ROOT, stdout=out,
                                stderr=out)  # fmt: skip


@contextlib.asynccontextmanager
async def bots_process(settings: Settings, admin: Settings, log: Path,
                       **env: str) -> AsyncIterator[Any]:  # fmt: skip
    """A bots process, serving when entered (its service answers the operator's discovery
    ping); killed on exit."""
    from services.runtime import bus

    proc = start_bots(settings, log, **env)
    nc = await bus.connect(admin.nats_url)
    try:
        async with asyncio.timeout(30):
            while True:  # the service's discovery: answered once it serves
                with contextlib.suppress(Exception):
                    await nc.request("$SRV.PING.tabula-bots", b"", timeout=0.5)
                    break
                assert proc.poll() is None, f"the bots service stopped: see {log}"
        yield proc
    finally:
        await nc.drain()
        proc.kill()
        await asyncio.to_thread(proc.wait)


async def kill(proc: Any) -> None:
    proc.send_signal(signal.SIGKILL)
    await asyncio.to_thread(proc.wait)


async def logged(log: Path, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The first line of a service's JSON log that is `wanted`, once written (the caller
    bounds the wait)."""
    while True:
        for line in (await asyncio.to_thread(log.read_bytes)).splitlines():
            with contextlib.suppress(msgspec.DecodeError):
                entry: dict[str, Any] = msgspec.json.decode(line)
                if wanted(entry):
                    return entry
        await asyncio.sleep(0.05)  # the log's poll interval


def descendants(pid: int) -> set[int]:
    """Every process below `pid` (its thinkers, and the forkserver that made them)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rpartition(")")[2].split()
            parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def has_thinker(pids: set[int]) -> bool:
    """Whether one of `pids` is a thinker: a process below the services' priority."""
    for pid in pids:
        with contextlib.suppress(OSError):
            stat = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
            if int(stat[16]) == THINKER_NICE:  # field 19 of proc(5): the niceness
                return True
    return False


def alive(pids: set[int]) -> bool:
    return any(Path(f"/proc/{pid}").exists() for pid in pids)


@pytest.mark.without_bots
async def test_bots_outlive_their_service_killed_between_commit_and_reveal(
    people: Any,
    settings: Settings,
    role_settings: Callable[[str], Settings],
    store: EventStore,
    tmp_path: Path,
) -> None:
    """Issue 24: a race against the house (seeds, a hidden setup, dice and cards), its bot
    played by the bots service in processes of its own. The first is SIGKILLed after the bot
    has committed to its client seed, before it could reveal it; a second, on the same store,
    takes the seat up and reveals the seed committed to, then is SIGKILLed after the bot's
    setup commitment; a third takes it up again, the bot reveals that setup, and Ann plays the
    race to its end. The log passes the audit, and the seat's record is gone."""
    bots = role_settings("bots")
    logs = [tmp_path / f"bots-{i}.log" for i in range(3)]
    seed, nonce, setup = "annseed0123456789ab", secrets.token_hex(32), b'{"boost":1}'
    ann = people()
    await ann.sign_in("Ann")

    async def act(action: str) -> None:
        body = {"action": action, "command_id": secrets.token_hex(8)}
        reply = await ann.post(f"/api/games/{game_id}/actions", body)
        assert reply.status_code == 200, reply.text

    async with bots_process(bots, settings, logs[0]) as first:
        made = await ann.post("/api/bots", {"ruleset": "race", "seat": 1, "level": 2})
        assert made.status_code == 201, made.text
        game_id = made.json()["game_id"]
        async with ann.feed(game_id) as ws:
            await asyncio.wait_for(until_event(ws, of("ClientSeedCommitted", 0)), 30)
        await kill(first)  # Ann has not committed: the bot cannot have revealed

    async with bots_process(bots, settings, logs[1]) as second, ann.feed(game_id) as ws:
        await act(f"seed-commit {fairplay.client_seed_commitment(game_id, 1, seed)}")
        await act(f"seed-reveal {seed}")
        await asyncio.wait_for(until_event(ws, of("ClientSeedRevealed", 0)), 30)
        await asyncio.wait_for(until_event(ws, of("SetupCommitted", 0)), 30)
        await kill(second)  # Ann has not committed her setup: no reveal yet

    async with bots_process(bots, settings, logs[2]), ann.feed(game_id) as ws:
        await act(f"setup-commit {fairplay.setup_commitment(game_id, 1, nonce, setup)}")
        await act(f"setup-reveal {nonce} {setup.decode()}")
        await asyncio.wait_for(until_event(ws, of("SetupRevealed", 0)), 30)
        async with asyncio.timeout(120):
            while True:
                view = (await ann.get(f"/api/games/{game_id}")).json()["view"]
                if view["phase"] == "ended":
                    break
                if 1 not in view["to_act"]:
                    await next_frame(ws)  # the bot's turn: wait for its events
                    continue
                legal = view["legal"]
                await act(next((a for a in legal if a.startswith("play")),
                               "draw" if "draw" in legal else "roll"))  # fmt: skip
        await asyncio.wait_for(until_event(ws, of("GameSealed")), 60)
        await asyncio.wait_for(logged(logs[2], lambda e: e.get("event") == "bot seat finished"),
                               30)  # fmt: skip
    stored = await store.read_all(game_id)
    assert audit(stored).ok
    bodies = [(s.type, msgspec.json.decode(s.body)) for s in stored]
    assert [b["seat"] for t, b in bodies if t == "SetupRevealed"].count(0) == 1
    assert [b["reason"] for t, b in bodies if t == "GameEnded"] == ["finish"]
    # the bot moved after the last restart: an advance or a card of seat 0 after the setup
    setup_done = max(s.version for s in stored if s.type == "SetupRevealed")
    assert any(s.version > setup_done and s.action.startswith("0 ") for s in stored)


@pytest.mark.without_bots
async def test_a_bot_killed_mid_search_is_taken_up_and_its_thinkers_die_with_it(
    people: Any,
    settings: Settings,
    role_settings: Callable[[str], Settings],
    redis: Any,
    tmp_path: Path,
) -> None:
    """Issue 24: the bots service is SIGKILLed while its level-5 bot searches (30 s of CPU
    allowed: it is still thinking), in a process of its own, below the services' priority.
    Its thinker processes exit with it (no search goes on for nobody); another instance takes
    the seat up once the lease lapses, and moves. Ann resigns; the seat is finished and its
    record removed."""
    bots = role_settings("bots")
    logs = [tmp_path / f"bots-{i}.log" for i in range(2)]
    ann = people()
    await ann.sign_in("Ann")
    async with bots_process(bots, settings, logs[0], TABULA_BOTS_MOVE_CPU_S="30") as first:
        made = await ann.post("/api/bots", {"ruleset": "chess3d", "seat": 0, "level": 5})
        assert made.status_code == 201, made.text
        game_id = made.json()["game_id"]
        view = (await ann.get(f"/api/games/{game_id}")).json()["view"]
        move = {"action": view["legal"][0], "command_id": "first"}
        assert (await ann.post(f"/api/games/{game_id}/actions", move)).status_code == 200
        thinking = await asyncio.wait_for(logged(logs[0], lambda e: e.get("event") == "thinking"
                                                 and e.get("game_id") == game_id), 30)  # fmt: skip
        async with asyncio.timeout(30):  # the search's process: started once the turn came
            while True:
                thinkers = await asyncio.to_thread(descendants, first.pid)
                if await asyncio.to_thread(has_thinker, thinkers):
                    break
                await asyncio.sleep(0.05)  # the processes' poll interval
        await kill(first)
        async with asyncio.timeout(10):  # each thinker notices within ORPHAN_CHECK_S
            while True:
                if not await asyncio.to_thread(alive, thinkers):
                    break
                await asyncio.sleep(0.05)  # the processes' poll interval
    async with (
        bots_process(bots, settings, logs[1], TABULA_BOTS_MOVE_CPU_S="0.3"),
        ann.feed(game_id) as ws,
    ):
        await asyncio.wait_for(until_event(ws, lambda e: e["action"].startswith("1 ")), 30)
        chose = await asyncio.wait_for(logged(logs[1], lambda e: e.get("event") == "bot chose"),
                                       5)  # fmt: skip
        assert (chose["version"], chose["bot_level"]) == (thinking["version"], 5)
        assert chose["how"] == "search"
        assert chose["iterations"] > 0
        resign = {"action": "resign", "command_id": "resign"}
        assert (await ann.post(f"/api/games/{game_id}/actions", resign)).status_code == 200
        await asyncio.wait_for(logged(logs[1], lambda e: e.get("event") == "bot seat finished"),
                               30)  # fmt: skip
    assert await redis.zscore(keys.BOT_SEATS, f"{game_id} 1") is None
    assert not await redis.exists(keys.bot_seat_key(game_id, 1))


@pytest.mark.without_bots
async def test_a_seat_the_bots_could_not_take_is_handed_over_by_a_later_sweep(
    people: Any,
    settings: Settings,
    role_settings: Callable[[str], Settings],
    redis: Any,
    tmp_path: Path,
) -> None:
    """Issue 24: the bots service is away when Ann makes a game against the house: the game
    is made all the same (201: nothing failed), its bot seat kept in the gateway's keys; once a
    bots service runs, the gateway's next sweep hands the seat over and the bot moves."""
    ann = people()
    await ann.sign_in("Ann")
    made = await ann.post("/api/bots", {"ruleset": "chess3d", "seat": 1, "level": 1})
    assert made.status_code == 201, made.text
    game_id = made.json()["game_id"]
    assert await redis.zscore(keys.HOUSE_BOT_SEATS, f"{game_id} 0") is not None
    async with bots_process(role_settings("bots"), settings, tmp_path / "bots.log"):
        async with ann.feed(game_id) as ws:
            moved = await asyncio.wait_for(until_event(ws, lambda e: e["action"].startswith("0 ")),
                                           30)  # fmt: skip
        assert moved["version"] >= 2
    assert await redis.zscore(keys.HOUSE_BOT_SEATS, f"{game_id} 0") is None
    assert not await redis.exists(keys.house_bot_key(game_id))


@pytest.mark.without_bots
async def test_a_seat_handed_over_with_a_wrong_token_is_given_up(
    stack: Settings, role_settings: Callable[[str], Settings], redis: Any
) -> None:
    """A seat whose token the rules service refuses is no seat of the bots: it is given up,
    its record removed, rather than tried again by every sweep for ever."""
    from contracts.commands import PlaySeat
    from services.bots.seats import Bots
    from services.bots.thinking import Thinkers
    from services.client.client import Client
    from services.runtime import bus, eventstore

    settings = role_settings("bots")
    nc = await bus.connect(settings.nats_url)
    store = eventstore.connect(settings.redis_url)
    client = Client(nc, remember=False)
    bots = Bots(client, store, Thinkers(1, 0.1), lease_s=5)
    try:
        game = await client.create_game("chess3d", players=["ann", "bot1"])
        await bots.play(PlaySeat(game_id=game.game_id, seat=1, token="00" * 32, level=1))
        await asyncio.wait_for(bots.playing[(game.game_id, 1)], 30)
        assert await redis.zscore(keys.BOT_SEATS, f"{game.game_id} 1") is None
        assert not await redis.exists(keys.bot_seat_key(game.game_id, 1))
    finally:
        await bots.stop()
        await store.aclose()
        await nc.drain()


@pytest.mark.without_bots
async def test_a_bot_seat_is_played_by_one_instance_at_a_time(
    stack: Settings, role_settings: Callable[[str], Settings], redis: Any
) -> None:
    """Two bots instances on one store: the seat one plays is leased to it, so the other's
    sweep leaves it alone; once the first stops (and lets its leases go), the other's next
    sweep takes the seat and plays it."""
    from contracts.commands import PlaySeat
    from services.bots.seats import Bots
    from services.bots.thinking import Thinkers
    from services.client.client import Client
    from services.runtime import bus, eventstore

    settings = role_settings("bots")
    nc = await bus.connect(settings.nats_url)
    store = eventstore.connect(settings.redis_url)
    client = Client(nc, remember=False)
    first = Bots(client, store, Thinkers(1, 0.1), lease_s=5)
    second = Bots(client, store, Thinkers(1, 0.1), lease_s=5)
    try:
        game = await client.create_game("chess3d", players=["ann", "bot1"])
        seat = (game.game_id, 1)
        await first.play(PlaySeat(game_id=game.game_id, seat=1, token=game.seats[1].token,
                                  level=1))  # fmt: skip
        assert seat in first.playing
        await second.sweep()
        assert seat not in second.playing
        lease = keys.bot_lease_key(*seat)
        assert (await redis.get(lease)).decode() == first.owner
        await first.stop()
        assert await redis.get(lease) is None  # let go at once, not at the lease's end
        await second.sweep()
        assert seat in second.playing
        assert (await redis.get(lease)).decode() == second.owner
    finally:
        await first.stop()
        await second.stop()
        await store.aclose()
        await nc.drain()


async def test_a_rated_game_against_the_house_rates_the_house_bot_too(
    people: Any, store: EventStore
) -> None:
    """Issue 23: house bots have ratings of their own. An account's rated game against the
    house names the bot's player id in its rated GameCreated; a guest's is refused (guests play
    casual only) and makes nothing."""
    ann = people()
    made = await ann.post("/api/accounts", {"name": f"Ann {secrets.token_hex(3)}",
                                            "password": "correct horse battery"})  # fmt: skip
    assert made.status_code == 201, made.text
    game = await ann.post("/api/bots", {"ruleset": "chess3d", "rated": True})
    assert game.status_code == 201, game.text
    first = (await store.read_all(game.json()["game_id"]))[0]
    created = msgspec.json.decode(first.body)
    assert created["rated"] is True
    assert created["players"] == [made.json()["id"], "bot3"]  # the default level's
    guest = people()
    await guest.sign_in("Gus")
    refused = await guest.post("/api/bots", {"ruleset": "chess3d", "rated": True})
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"]["code"] == ErrorCode.FORBIDDEN
