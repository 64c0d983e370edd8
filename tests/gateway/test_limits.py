"""The gateway's rate limits, on a gateway of its own with small ones: past a limit a typed
429 with Retry-After, and nothing done. Wrong passwords are counted per name, from each client
address and from everywhere, and never refuse the owner's right one."""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any, Final

import httpx
import pytest

from contracts.errors import ErrorCode
from services.gateway.__main__ import listen, serving
from services.gateway.people import Limits
from services.runtime.config import Settings
from tests.gateway.conftest import Person

PASSWORD: Final = "correct horse battery staple"
FAILURES: Final = Limits().failures_per_address


@pytest.fixture
async def strict(
    stack: Settings, role_settings: Callable[[str], Settings], redis: Any
) -> AsyncIterator[str]:
    # The other tests' counters for 127.0.0.1 share the store's window: start from none.
    async for key in redis.scan_iter("tabula:gw:rate:*"):
        await redis.delete(key)
    sock = listen("127.0.0.1", 0)
    async with serving(role_settings("gateway"), sock, Limits(1_000, 2, 3)):
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


async def test_sign_ins_and_actions_past_their_limits_are_refused(strict: str) -> None:
    people = [Person(strict) for _ in range(3)]
    try:
        await people[0].sign_in("Ann")
        await people[1].sign_in("Bob")
        third = await people[2].post("/api/session", {"name": "Carol"})
        assert third.status_code == 429
        assert third.json()["error"]["code"] == ErrorCode.RATE_LIMITED
        assert 0 < int(third.headers["retry-after"]) <= 60
        assert "set-cookie" not in third.headers
        ann = people[0]
        cid = (await ann.post("/api/challenges", {"ruleset": "chess3d"})).json()["challenge"]["id"]
        game_id = (await people[1].post(f"/api/challenges/{cid}/accept")).json()["game_id"]
        codes = []
        for i in range(7):  # 3 in a window of 10 s: at most 6 pass, even across two windows
            reply = await ann.post(f"/api/games/{game_id}/actions",
                                   {"action": "offer-draw", "command_id": f"o{i}"})  # fmt: skip
            codes.append(reply.json().get("error", {}).get("code", "accepted"))
        assert ErrorCode.RATE_LIMITED not in codes[:3]
        assert codes[0] == "accepted"
        assert ErrorCode.RATE_LIMITED in codes
    finally:
        for p in people:
            await p.close()


@contextlib.asynccontextmanager
async def gateway_with(
    limits: Limits, role_settings: Callable[[str], Settings], redis: Any
) -> AsyncIterator[str]:
    """A gateway of its own with these limits, every rate and failure count cleared first."""
    for pattern in ("tabula:gw:rate:*", "tabula:gw:failures:*"):
        async for key in redis.scan_iter(pattern):
            await redis.delete(key)
    sock = listen("127.0.0.1", 0)
    async with serving(role_settings("gateway"), sock, limits):
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


@contextlib.asynccontextmanager
async def at(base: str, address: str) -> AsyncIterator[Person]:
    """Someone whose requests come from `address` (Linux routes all of 127/8 to lo), so the
    gateway sees another client address without trusting any header."""
    person = Person(base)
    await person.http.aclose()
    transport = httpx.AsyncHTTPTransport(local_address=address)
    person.http = httpx.AsyncClient(base_url=base, headers={"Origin": base}, timeout=30,
                                    transport=transport)  # fmt: skip
    try:
        yield person
    finally:
        await person.close()


async def guesses(base: str, address: str, name: str, passwords: list[str]) -> list[int]:
    """The statuses of password sign-ins on `name` from `address`, one after another."""
    async with at(base, address) as guesser:
        return [(await guesser.post("/api/session", {"name": name, "password": p})).status_code
                for p in passwords]  # fmt: skip


async def test_wrong_passwords_from_elsewhere_never_lock_the_owner_out(
    stack: Settings, role_settings: Callable[[str], Settings], redis: Any
) -> None:
    """Thirty wrong passwords on a name from three other addresses leave its owner signing in
    with the right one (it was refused, 429, past twice the sign-in limit on the name); an
    address is refused after FAILURES wrong ones, even with the right password then."""
    async with gateway_with(Limits(1_000, 12, 50), role_settings, redis) as base:
        async with at(base, "127.0.0.1") as owner:
            made = await owner.post("/api/accounts", {"name": "Kafei", "password": PASSWORD})
            assert made.status_code == 201, made.text
        wrong = ["not the password"] * FAILURES
        statuses = await asyncio.gather(*(guesses(base, f"127.0.0.{n}", "kafei", wrong)
                                          for n in (2, 3, 4)))  # fmt: skip
        assert statuses == [[401] * FAILURES] * 3
        async with at(base, "127.0.0.1") as owner:
            signed = await owner.post("/api/session", {"name": "Kafei", "password": PASSWORD})
            assert signed.status_code == 200, signed.text
        async with at(base, "127.0.0.2") as guesser:
            refused = await guesser.post("/api/session", {"name": "Kafei", "password": PASSWORD})
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == ErrorCode.RATE_LIMITED
        assert int(refused.headers["retry-after"]) > 0
        assert "set-cookie" not in refused.headers


async def test_guesses_sent_at_once_cannot_outrun_the_failure_count(
    stack: Settings, role_settings: Callable[[str], Settings], redis: Any
) -> None:
    """Twelve wrong passwords at once from one address: each is counted before its hash, so
    FAILURES are checked (401) and the rest refused (429) without a hash."""
    async with gateway_with(Limits(1_000, 12, 50), role_settings, redis) as base:
        async with at(base, "127.0.0.5") as guesser:
            replies = await asyncio.gather(*(
                guesser.post("/api/session", {"name": "Ruto", "password": f"guess {i:04}"})
                for i in range(12)))  # fmt: skip
        statuses = sorted(r.status_code for r in replies)
        assert statuses == [401] * FAILURES + [429] * (12 - FAILURES)


async def test_a_name_under_attack_gets_fewer_wrong_passwords_from_each_address(
    stack: Settings, role_settings: Callable[[str], Settings], redis: Any
) -> None:
    """Past the name's failures from everywhere, each address gets only a few wrong passwords
    on it (429 after), while the owner's right password still signs in."""
    limits = Limits(1_000, 12, 50, failures_per_name=20, failures_under_attack=3)
    async with gateway_with(limits, role_settings, redis) as base:
        async with at(base, "127.0.0.1") as owner:
            made = await owner.post("/api/accounts", {"name": "Nabooru", "password": PASSWORD})
            assert made.status_code == 201, made.text
        wrong = ["not the password"] * FAILURES
        spent = await asyncio.gather(*(guesses(base, f"127.0.0.{n}", "Nabooru", wrong)
                                       for n in (6, 7)))  # fmt: skip
        assert spent == [[401] * FAILURES] * 2
        assert await guesses(base, "127.0.0.8", "Nabooru", wrong[:4]) == [401, 401, 401, 429]
        async with at(base, "127.0.0.1") as owner:
            signed = await owner.post("/api/session", {"name": "Nabooru", "password": PASSWORD})
            assert signed.status_code == 200, signed.text
