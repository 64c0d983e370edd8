"""The gateway's rate limits, on a gateway of its own with small ones: past a limit a typed
429 with Retry-After, and nothing done."""

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from contracts.errors import ErrorCode
from services.gateway.__main__ import listen, serving
from services.gateway.people import Limits
from services.runtime.config import Settings
from tests.gateway.conftest import Person


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
