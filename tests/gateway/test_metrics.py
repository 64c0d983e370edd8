"""The gateway's metrics and health (issue 22): /metrics for Prometheus, /livez, /readyz with
each check's answer, and what it counts: every HTTP response by status and code, the open game
feeds, the house bot seats it plays. Over the session's real servers, as the other gateway
tests; the metrics are this process's (the gateway runs in it), read as a scraper reads them."""

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import Any, Final

import httpx
from prometheus_client.parser import text_string_to_metric_families

from contracts.errors import ErrorCode
from services.gateway.__main__ import listen, serving
from services.gateway.people import Limits
from services.runtime import keys
from services.runtime.config import Settings
from services.runtime.embedded import free_port
from tests.conftest import Postgres
from tests.gateway.conftest import Person, next_frame
from tests.gateway.test_gateway import chess_game
from tests.rulesets import register

register()  # the in-process services and the gateway share this registry

RESPONSES: Final = "tabula_http_responses_total"
TRIES: Final = 200  # polls of a condition, 50 ms apart: 10 s at most


@contextlib.asynccontextmanager
async def a_gateway(settings: Settings) -> AsyncIterator[str]:
    """A gateway of this test's own (its settings), serving at the URL it yields."""
    sock = listen("127.0.0.1", 0)
    async with serving(settings, sock, Limits(100_000, 100_000, 1_000)):
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


@contextlib.asynccontextmanager
async def browsing(base: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        yield http


async def scrape(http: httpx.AsyncClient) -> str:
    reply = await http.get("/metrics")
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("text/plain")
    return reply.text


def sample(text: str, name: str, **labels: str) -> float | None:
    """The value of the sample `name{labels}` in a scrape, None when it has none."""
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == name and s.labels == labels:
                return float(s.value)
    return None


async def gauge(http: httpx.AsyncClient, name: str) -> float:
    value = sample(await scrape(http), name)
    assert value is not None, f"{name} not in /metrics"
    return value


async def until_gauge(http: httpx.AsyncClient, name: str, wanted: float) -> None:
    """Poll /metrics until the gauge reads `wanted` (what is awaited ends in another task)."""
    for _ in range(TRIES):
        if await gauge(http, name) == wanted:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{name} is {await gauge(http, name)}, not {wanted}")


async def test_livez_answers_while_the_process_runs_with_the_security_headers(
    gateway: str,
) -> None:
    async with browsing(gateway) as http:
        reply = await http.get("/livez")
    assert reply.status_code == 200, reply.text
    assert reply.json() == {"status": "ok"}
    assert "frame-ancestors 'none'" in reply.headers["content-security-policy"]
    assert reply.headers["x-content-type-options"] == "nosniff"


async def test_readyz_without_a_read_model_is_ready_and_says_postgres_is_not_configured(
    gateway: str,
) -> None:
    async with browsing(gateway) as http:
        reply = await http.get("/readyz")
    assert reply.status_code == 200, reply.text
    checks = {"nats": "ok", "valkey": "ok", "postgres": "not configured"}
    assert reply.json() == {"status": "ready", "checks": checks}


async def test_readyz_with_the_read_model_is_ready_when_all_three_answer(
    stack: Settings, postgres: Postgres, role_settings: Callable[[str], Settings]
) -> None:
    settings = dataclasses.replace(role_settings("gateway"),
                                   database_url=postgres.url("gateway"))  # fmt: skip
    async with a_gateway(settings) as base, browsing(base) as http:
        reply = await http.get("/readyz")
    assert reply.status_code == 200, reply.text
    assert reply.json() == {"status": "ready",
                            "checks": {"nats": "ok", "valkey": "ok", "postgres": "ok"}}  # fmt: skip


async def test_readyz_names_postgres_when_the_read_model_is_not_there(
    stack: Settings, role_settings: Callable[[str], Settings]
) -> None:
    """The read model on a port nothing listens on: 503, PostgreSQL named with a short reason
    that shows neither the URL nor its password; the bus and the store still answer."""
    password, port = "not-for-the-probe-7f3a", free_port()  # nothing listens there
    url = f"postgresql://gateway:{password}@127.0.0.1:{port}/tabula"
    settings = dataclasses.replace(role_settings("gateway"), database_url=url)
    async with a_gateway(settings) as base, browsing(base) as http:
        reply = await http.get("/readyz")
        live = await http.get("/livez")
    assert reply.status_code == 503, reply.text
    body = reply.json()
    assert body["status"] == "not ready"
    assert (body["checks"]["nats"], body["checks"]["valkey"]) == ("ok", "ok")
    assert body["checks"]["postgres"].startswith("unreachable"), body
    assert password not in reply.text
    assert str(port) not in reply.text
    assert live.status_code == 200  # alive, only not ready


async def test_each_response_is_counted_once_by_its_status_and_code(gateway: str) -> None:
    """A route's refusal, Litestar's own (no such route) and the door's (an unknown Host), each
    counted once with its code; the answers that are not errors with none."""
    refusals = [
        ("/api/session", {}, "401", ErrorCode.SIGN_IN),
        ("/api/no-such-route", {}, "404", ErrorCode.NOT_FOUND),
        ("/api/rulesets", {"Host": "evil.example"}, "400", ErrorCode.UNKNOWN_HOST),
    ]
    async with browsing(gateway) as http:
        for path, headers, status, code in refusals:
            before = sample(await scrape(http), RESPONSES, status=status, code=code) or 0.0
            reply = await http.get(path, headers=headers)
            assert (reply.status_code, reply.json()["error"]["code"]) == (int(status), code)
            after = sample(await scrape(http), RESPONSES, status=status, code=code)
            assert after == before + 1, (path, before, after)
        ok_before = sample(await scrape(http), RESPONSES, status="200", code="")
        assert ok_before is not None  # the scrapes before it were counted
        assert (await http.get("/livez")).status_code == 200
        ok_after = sample(await scrape(http), RESPONSES, status="200", code="")
    # A scrape is counted as it goes out, after its text was made: the one before and /livez.
    assert ok_after == ok_before + 2


async def test_an_open_feed_is_counted_until_it_closes(people: Any) -> None:
    ann, _bob, game_id = await chess_game(people)
    async with browsing(ann.base) as http:
        before = await gauge(http, "tabula_websockets")
        async with ann.feed(game_id) as ws:
            await next_frame(ws)  # the feed pumps: it was counted before it started
            assert await gauge(http, "tabula_websockets") == before + 1
        await until_gauge(http, "tabula_websockets", before)


async def test_a_house_bot_seat_is_counted_while_the_gateway_plays_it(
    stack: Settings, role_settings: Callable[[str], Settings], redis: Any
) -> None:
    """Ann against a house bot: its seat counts from the game's making to its end (Ann
    resigns). Other tests leave bot seats unfinished, which a new gateway resumes (and counts):
    they are let go first, so that this gateway plays Ann's bot alone."""
    await redis.delete(keys.HOUSE_BOT_SEATS)
    async with a_gateway(role_settings("gateway")) as base, browsing(base) as http:
        ann = Person(base)
        try:
            await ann.sign_in("Ann")
            before = await gauge(http, "tabula_bot_seats")
            made = await ann.post("/api/bots", {"ruleset": "chess3d", "seat": 0})
            assert made.status_code == 201, made.text
            # Taken as the game is made, or (rarely) by this gateway's sweep a moment later.
            await until_gauge(http, "tabula_bot_seats", before + 1)
            resigned = await ann.post(f"/api/games/{made.json()['game_id']}/actions",
                                      {"action": "resign", "command_id": "r"})  # fmt: skip
            assert resigned.status_code == 200, resigned.text
            await until_gauge(http, "tabula_bot_seats", before)
        finally:
            await ann.close()
