"""House bots (issue 20, items 2 and 8): a cap per player, kept in the store; a time per move
by default; bots that claim a person's timeout; and bots that outlive their gateway (SIGKILLed
mid-game, another gateway on the same store carries them on, seeds and setups included)."""

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

from contracts.errors import ErrorCode
from domain import fairplay
from domain.audit import audit
from services.gateway.lobby import BOT_GAMES_PER_PLAYER, BOT_MOVE_DEADLINE_MS
from services.runtime import keys
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore
from tests.gateway.conftest import Person, next_frame
from tests.rulesets import register

register()  # the in-process services and the gateway share this registry
ROOT = Path(__file__).resolve().parents[2]


def error_of(reply: httpx.Response) -> dict[str, Any]:
    body: dict[str, Any] = reply.json()["error"]
    return body


async def until_event(ws: Any, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The first event of the feed that is `wanted` (the caller bounds the wait)."""
    while True:
        frame = await next_frame(ws)
        for event in frame.get("events", []):
            if wanted(event):
                found: dict[str, Any] = event
                return found


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


def start_gateway(settings: Settings, port: int, log: Path) -> subprocess.Popen[bytes]:
    """`python -m services.gateway` in a process of its own, as the gateway user, with the
    test rulesets registered (as the in-process services have them) and a 2 s bot lease."""
    env = {
        **os.environ,
        "NATS_URL": settings.nats_url,
        "REDIS_URL": settings.redis_url,
        "TABULA_GATEWAY_HOST": "127.0.0.1",
        "TABULA_GATEWAY_PORT": str(port),
        "TABULA_GATEWAY_LIMITS": "100000,100000,1000",
        "TABULA_GATEWAY_BOT_LEASE_S": "2",
        "TABULA_LOG_LEVEL": "info",
    }
    code = ("from tests.rulesets import register; register(); "
            "from services.gateway.__main__ import main; main()")  # fmt: skip
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-c", code], env=env, cwd=ROOT, stdout=out,
                                stderr=out)  # fmt: skip


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def gateway_process(settings: Settings, log: Path) -> AsyncIterator[tuple[str, Any]]:
    """A gateway process, serving when entered: (its URL, the process); killed on exit."""
    port = free_port()
    proc = start_gateway(settings, port, log)
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=base) as http, asyncio.timeout(30):
            while True:
                with contextlib.suppress(httpx.TransportError):
                    if (await http.get("/api/rulesets")).status_code == 200:
                        break
                assert proc.poll() is None, f"the gateway stopped: see {log}"
                await asyncio.sleep(0.1)  # poll interval while the process boots
        yield base, proc
    finally:
        proc.kill()
        await asyncio.to_thread(proc.wait)


def move_to(person: Person, base: str) -> None:
    """The person's browser, now talking to another gateway (the same session cookie)."""
    person.base = base
    person.http.base_url = httpx.URL(base)
    person.http.headers["Origin"] = base


async def kill(proc: Any) -> None:
    proc.send_signal(signal.SIGKILL)
    await asyncio.to_thread(proc.wait)


async def test_house_bots_outlive_a_gateway_killed_between_commit_and_reveal(
    stack: Settings, role_settings: Callable[[str], Settings], store: EventStore, tmp_path: Path
) -> None:
    """A race against the house (seeds, a hidden setup, dice and cards) through gateway
    processes. The first is SIGKILLed after the bot has committed to its client seed, before it
    could reveal it; a second, on the same store, resumes the bot, which reveals the seed it
    committed to, then is SIGKILLed after the bot's setup commitment; a third resumes it again,
    the bot reveals that setup, and Ann plays the race to its end through it. The log passes
    the audit."""
    gateway = role_settings("gateway")
    logs = [tmp_path / f"gateway-{i}.log" for i in range(3)]
    seed, nonce, setup = "annseed0123456789ab", secrets.token_hex(32), b'{"boost":1}'
    ann = Person("http://unused")
    try:
        async with gateway_process(gateway, logs[0]) as (base, first):
            move_to(ann, base)
            await ann.sign_in("Ann")
            made = await ann.post("/api/bots", {"ruleset": "race", "seat": 1})
            assert made.status_code == 201, made.text
            game_id = made.json()["game_id"]
            async with ann.feed(game_id) as ws:
                await asyncio.wait_for(until_event(ws, of("ClientSeedCommitted", 0)), 30)
            await kill(first)  # Ann has not committed: the bot cannot have revealed

        async def act(action: str) -> None:
            body = {"action": action, "command_id": secrets.token_hex(8)}
            reply = await ann.post(f"/api/games/{game_id}/actions", body)
            assert reply.status_code == 200, reply.text

        async with gateway_process(gateway, logs[1]) as (base, second):
            move_to(ann, base)
            async with ann.feed(game_id) as ws:
                await act(f"seed-commit {fairplay.client_seed_commitment(game_id, 1, seed)}")
                await act(f"seed-reveal {seed}")
                await asyncio.wait_for(until_event(ws, of("ClientSeedRevealed", 0)), 30)
                await asyncio.wait_for(until_event(ws, of("SetupCommitted", 0)), 30)
            await kill(second)  # Ann has not committed her setup: no reveal yet

        async with gateway_process(gateway, logs[2]) as (base, _):
            move_to(ann, base)
            async with ann.feed(game_id) as ws:
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
    finally:
        await ann.close()
    stored = await store.read_all(game_id)
    assert audit(stored).ok
    bodies = [(s.type, msgspec.json.decode(s.body)) for s in stored]
    assert [b["seat"] for t, b in bodies if t == "SetupRevealed"].count(0) == 1
    assert [b["reason"] for t, b in bodies if t == "GameEnded"] == ["finish"]
    # the bot moved after the last restart: an advance or a card of seat 0 after the setup
    setup_done = max(s.version for s in stored if s.type == "SetupRevealed")
    assert any(s.version > setup_done and s.action.startswith("0 ") for s in stored)


async def test_a_bot_seat_is_played_by_one_gateway_at_a_time(
    stack: Settings, role_settings: Callable[[str], Settings], redis: Any
) -> None:
    """Two gateways' house bots on one store: the seat a gateway plays is leased to it, so the
    other's sweep leaves it alone; once the first stops (and lets its leases go), the other's
    next sweep takes the seat and plays it."""
    from services.client.client import Client
    from services.gateway.lobby import Lobby
    from services.gateway.people import Player
    from services.gateway.play import HouseBots
    from services.runtime import bus, eventstore

    settings = role_settings("gateway")
    nc = await bus.connect(settings.nats_url)
    store = eventstore.connect(settings.redis_url)
    client = Client(nc, remember=False)
    lobby = Lobby(store, client)
    first, second = HouseBots(client, lobby, lease_s=5), HouseBots(client, lobby, lease_s=5)
    try:
        ann = Player(f"g{secrets.token_hex(8)}", "Ann")
        table = await lobby.against_bots(ann, "chess3d", "", "", 0)
        seat = (table.game_id, 1)
        await first.start(table)
        assert seat in first.playing
        await second.resume()
        assert seat not in second.playing
        lease = keys.house_bot_lease_key(*seat)
        assert (await redis.get(lease)).decode() == first.owner
        await first.stop()
        assert await redis.get(lease) is None  # let go at once, not at the lease's end
        await second.resume()
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
    assert created["players"] == [made.json()["id"], "bot"]
    guest = people()
    await guest.sign_in("Gus")
    refused = await guest.post("/api/bots", {"ruleset": "chess3d", "rated": True})
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"]["code"] == ErrorCode.FORBIDDEN
