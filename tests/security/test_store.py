"""Attacks on the store, as redis-cli would make them with every user but the operator's: no
user reads a seed but the randomness service, nobody but the rules service appends, nobody but
the rules service deletes a game's keys (it removes an archived game's, forget.lua, at the
archiver's request: tests/services/test_forget.py), and nobody may trim or rewrite a game's
stream. Each refusal is Valkey's own typed error (NOPERM / NOAUTH) and the game is unchanged."""

from collections.abc import Callable

import pytest
import redis.asyncio as aioredis
from redis.exceptions import AuthenticationError, NoPermissionError

from services.client.client import Client
from services.runtime.config import Settings
from services.runtime.keys import commands_key, drawn_key, log_key, meta_key, seed_key
from tests.conftest import Servers


def attacks(game: str) -> dict[str, list[tuple[str, ...]]]:
    """What each user tries: commands its role has no business running."""
    log, meta, seed = log_key(game), meta_key(game), seed_key(game)
    secret = f"tabula:game:{{{game}}}:secret"
    rewrite = [
        ("XDEL", log, "0-3"),
        ("XTRIM", log, "MAXLEN", "1"),
        ("DEL", log),
        ("UNLINK", log),
        ("RENAME", log, log + ":old"),
        ("FLUSHALL",),
        ("CONFIG", "SET", "appendonly", "no"),
    ]
    forge = ("XADD", log, "*", "type", "GameEnded", "body", "{}")
    return {
        "auditor": [
            *rewrite,
            forge,
            ("GET", seed),
            ("HGETALL", secret),
            ("HSET", meta, "version", "1"),
        ],
        # DEL on a game's log, meta and command ids is the rules service's since issue 21
        # (forget.lua removes an archived game's, checking it sealed at the head compared); the
        # randomness service's keys stay out of its reach: it neither reads nor writes a seed,
        # writes no secret outcome and touches no draw (that service removes its own keys).
        "rules": [
            *(c for c in rewrite if c[0] != "DEL"),
            ("GET", seed),
            ("SET", seed, "0" * 64),
            ("DEL", seed),
            ("HSET", secret, "shuffle:0", "[0]"),
            ("DEL", secret),
            ("HDEL", secret, "shuffle:0"),
            ("HGETALL", drawn_key(game)),
            ("DEL", drawn_key(game)),
        ],
        "randomness": [
            *rewrite,
            forge,
            ("HSET", meta, "result", "1-0"),
            ("HDEL", commands_key(game), "x"),
        ],
        "matchmaking": [*rewrite, forge, ("GET", seed), ("XRANGE", log, "-", "+")],
        # Copies sealed games into PostgreSQL: reads a game's keys, writes and deletes nothing.
        "archiver": [
            *rewrite,
            forge,
            ("DEL", meta),
            ("DEL", commands_key(game)),
            ("HSET", meta, "sealed", "1"),
            ("HSET", commands_key(game), "x", "1 1 0"),
            ("HDEL", meta, "head"),
            ("ZADD", "tabula:games", "1", game),
            ("ZREM", "tabula:games", game),
            ("GET", seed),
            ("HGETALL", secret),
            ("GET", "tabula:secret"),
            ("GET", "tabula:signing-key"),
            ("KEYS", "*"),
            ("EVAL", "return redis.call('DEL', KEYS[1])", "1", log),
        ],
        # Keeps the read model: reads a game's keys and the index, writes and deletes nothing.
        "projector": [
            *rewrite,
            forge,
            ("DEL", meta),
            ("HSET", meta, "version", "1"),
            ("HSET", commands_key(game), "x", "1 1 0"),
            ("ZADD", "tabula:games", "1", game),
            ("ZREM", "tabula:games", game),
            ("GET", seed),
            ("HGETALL", secret),
            ("GET", "tabula:secret"),
            ("GET", "tabula:signing-key"),
            ("KEYS", "*"),
            ("EVAL", "return redis.call('DEL', KEYS[1])", "1", log),
        ],
        # The bots: their own keys (seats, tokens, leases) and nothing of any game's or the
        # gateway's.
        "bots": [
            *rewrite,
            forge,
            ("GET", seed),
            ("XRANGE", log, "-", "+"),
            ("HGETALL", meta),
            ("HGETALL", secret),
            ("GET", "tabula:secret"),
            ("HGETALL", "tabula:gw:table:" + game),
            ("KEYS", "*"),
            ("EVAL", "return redis.call('DEL', KEYS[1])", "1", log),
        ],
        # The public door: its own keys (sessions, seat tokens) and nothing of any game's.
        "gateway": [
            *rewrite,
            forge,
            ("GET", seed),
            ("XRANGE", log, "-", "+"),
            ("HGETALL", meta),
            ("HGETALL", secret),
            ("GET", "tabula:secret"),
            ("GET", "tabula:signing-key"),
            ("KEYS", "*"),
        ],
    }


@pytest.fixture
async def seeded_game(closed_stack: Callable[[str], Settings], victim: Client) -> str:
    """A Full Yavoch game: it has a log and a server seed."""
    return (await victim.create_game("yavoch", "full")).game_id


def connect(servers: Servers, role: str) -> "aioredis.Redis":
    return aioredis.from_url(servers.redis_for(role))


async def snapshot(admin: "aioredis.Redis", game: str) -> tuple[object, ...]:
    return (
        await admin.xrange(log_key(game)),
        await admin.hgetall(meta_key(game)),
        await admin.get(seed_key(game)),
    )


@pytest.mark.parametrize(
    "role",
    ["auditor", "rules", "randomness", "matchmaking", "gateway", "archiver", "projector", "bots"],
)
async def test_no_user_but_the_operator_rewrites_a_game_or_reads_its_seed(
    closed_servers: Servers, seeded_game: str, role: str
) -> None:
    admin, user = connect(closed_servers, "admin"), connect(closed_servers, role)
    try:
        before = await snapshot(admin, seeded_game)
        assert before[0]  # there is a log and a seed to attack
        assert before[2]
        for command in attacks(seeded_game)[role]:
            with pytest.raises(NoPermissionError):
                await user.execute_command(*command)
        assert await snapshot(admin, seeded_game) == before
    finally:
        await admin.aclose()
        await user.aclose()


async def test_without_a_user_the_store_is_closed(
    closed_servers: Servers, seeded_game: str
) -> None:
    anonymous = aioredis.from_url(closed_servers.redis_url)
    try:
        with pytest.raises(AuthenticationError):
            await anonymous.get(seed_key(seeded_game))
    finally:
        await anonymous.aclose()


async def test_each_role_can_do_its_own_work(closed_servers: Servers, seeded_game: str) -> None:
    """The other side of the ACL (so the refusals above are not a store closed to everyone):
    the auditor reads the log, the randomness service the seed, the archiver and the projector
    a game's keys and the games index."""
    auditor, randomness = connect(closed_servers, "auditor"), connect(closed_servers, "randomness")
    archiver = connect(closed_servers, "archiver")
    projector = connect(closed_servers, "projector")
    try:
        assert await projector.xrange(log_key(seeded_game))
        assert await projector.hget(meta_key(seeded_game), "version")
        assert seeded_game.encode() in await projector.zrange("tabula:games", 0, -1)
        assert await auditor.xrange(log_key(seeded_game))
        assert await randomness.get(seed_key(seeded_game))
        assert await archiver.xrange(log_key(seeded_game))
        assert await archiver.hgetall(meta_key(seeded_game))
        assert await archiver.hgetall(commands_key(seeded_game))
        assert seeded_game.encode() in await archiver.zrange("tabula:games", 0, -1)
    finally:
        await auditor.aclose()
        await randomness.aclose()
        await archiver.aclose()
        await projector.aclose()
