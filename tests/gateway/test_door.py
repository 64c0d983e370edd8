"""The gateway's door, on gateways of their own: whose forwarded address it believes, the
headers on every response, the Host names it answers to, a deadline for a request's head, the
WebSockets one player and one address may hold, and a 503 (never a 500) while the store is
away."""

import asyncio
import contextlib
import dataclasses
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from contracts.errors import ErrorCode
from services.gateway.__main__ import listen, serving
from services.gateway.door import Door, default_hosts
from services.gateway.people import Limits
from services.runtime import keys
from services.runtime.config import Settings
from services.runtime.embedded import start_valkey
from tests.gateway.conftest import Person, next_frame


@pytest.fixture
async def fresh(redis: Any) -> None:
    """No rate counter or feed count for 127.0.0.1 left by another test (they share the store)."""
    for pattern in ("tabula:gw:rate:*", "tabula:gw:feeds:*"):
        async for key in redis.scan_iter(pattern):
            await redis.delete(key)


@pytest.fixture
async def door_at(
    stack: Settings, role_settings: Callable[[str], Settings], fresh: None
) -> AsyncIterator[Callable[[Limits, Door], Any]]:
    """Start a gateway with these limits and this door: its base URL."""
    async with contextlib.AsyncExitStack() as stack_of:

        async def start(limits: Limits, door: Door) -> str:
            sock = listen("127.0.0.1", 0)
            await stack_of.enter_async_context(
                serving(role_settings("gateway"), sock, limits, door)
            )
            return f"http://127.0.0.1:{sock.getsockname()[1]}"

        yield start


# -- addresses: X-Forwarded-For only from a trusted proxy ---------------------------------------


async def rate_keys(redis: Any) -> set[str]:
    return {k.decode() async for k in redis.scan_iter("tabula:gw:rate:ip:*")}


async def test_a_forwarded_address_is_ignored_unless_its_proxy_is_trusted(
    door_at: Callable[[Limits, Door], Any], redis: Any
) -> None:
    """By default a client naming another address in X-Forwarded-For is still counted as the
    address it connects from (so it trips the per-address limit); behind a proxy named in
    TABULA_GATEWAY_TRUSTED_PROXIES the forwarded address is the client's."""
    base = await door_at(Limits(3, 10, 10), Door())
    async with httpx.AsyncClient(base_url=base) as http:
        codes = [(await http.get("/api/rulesets", headers={"X-Forwarded-For": f"10.9.9.{i}"}))
                 .status_code for i in range(4)]  # fmt: skip
    assert codes == [200, 200, 200, 429]
    assert {re.sub(r":\d+$", "", k) for k in await rate_keys(redis)} == {
        "tabula:gw:rate:ip:127.0.0.1"
    }
    for key in await rate_keys(redis):
        await redis.delete(key)
    behind = await door_at(Limits(3, 10, 10), Door(trusted_proxies=("127.0.0.1",)))
    async with httpx.AsyncClient(base_url=behind) as http:
        codes = [(await http.get("/api/rulesets", headers={"X-Forwarded-For": f"10.9.9.{i}"}))
                 .status_code for i in range(4)]  # fmt: skip
    assert codes == [200] * 4
    assert {re.sub(r":\d+$", "", k) for k in await rate_keys(redis)} == {
        f"tabula:gw:rate:ip:10.9.9.{i}" for i in range(4)
    }


def test_the_door_settings_fail_fast() -> None:
    """A proxy that is no address or network, and a wildcard address without Host names, are
    refused at start rather than guessed at."""
    with pytest.raises(ValueError, match="does not appear to be an IPv4 or IPv6"):
        Door.from_env({"TABULA_GATEWAY_TRUSTED_PROXIES": "10.0.0.1,prox"})
    with pytest.raises(ValueError, match="TABULA_GATEWAY_ALLOWED_HOSTS"):
        default_hosts("0.0.0.0")
    assert Door.from_env({}).trusted_proxies == ()
    assert Door.from_env({"TABULA_GATEWAY_ALLOWED_HOSTS": "Tabula.example, x.example:8443"}) == (
        Door(allowed_hosts=frozenset({"tabula.example", "x.example:8443"}))
    )
    assert default_hosts("127.0.0.1") == {"127.0.0.1", "localhost", "[::1]"}
    assert default_hosts("192.0.2.7") == {"192.0.2.7"}


# -- headers, hosts, slow heads, WebSocket caps ------------------------------------------------


async def test_every_response_carries_the_security_headers(
    door_at: Callable[[Limits, Door], Any],
) -> None:
    """The API, the page, a static file, a rules page and errors (404, 401, 400) all carry a
    Content-Security-Policy without inline script or framing, nosniff and a Referrer-Policy."""
    base = await door_at(Limits(), Door())
    async with httpx.AsyncClient(base_url=base) as http:
        replies = {
            "api": await http.get("/api/rulesets"),
            "page": await http.get("/"),
            "static": await http.get("/static/app.js"),
            "rules": await http.get("/rules/chess3d"),
            "404": await http.get("/api/nowhere"),
            "401": await http.get("/api/session"),
            "400": await http.post("/api/session", content=b"{", headers={
                "Content-Type": "application/json"}),
        }  # fmt: skip
    assert {k: r.status_code for k, r in replies.items()} == {
        "api": 200, "page": 200, "static": 200, "rules": 200, "404": 404, "401": 401, "400": 400
    }  # fmt: skip
    for what, reply in replies.items():
        csp = reply.headers.get("content-security-policy", "")
        directives = dict(d.strip().partition(" ")[::2] for d in csp.split(";"))
        assert directives.get("script-src") == "'self'", what
        assert directives.get("frame-ancestors") == "'none'", what
        assert directives.get("connect-src") == "'self'", what
        assert reply.headers.get("x-content-type-options") == "nosniff", what
        assert reply.headers.get("referrer-policy") == "same-origin", what


async def test_a_foreign_host_is_refused_with_a_typed_error(
    door_at: Callable[[Limits, Door], Any],
) -> None:
    """A request naming a Host the gateway does not answer to (a page of another site whose
    name resolves here) is a typed 400, and its WebSocket is refused; the listening address
    and localhost's names are answered."""
    base = await door_at(Limits(), Door())
    port = base.rsplit(":", 1)[1]
    async with httpx.AsyncClient(base_url=base) as http:
        foreign = await http.get("/api/rulesets", headers={"Host": f"rebound.example:{port}"})
        assert foreign.status_code == 400
        assert foreign.json()["error"]["code"] == ErrorCode.UNKNOWN_HOST
        assert set(foreign.json()["error"]) == {"code", "reason", "clause"}
        assert foreign.headers["x-content-type-options"] == "nosniff"
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", "LocalHost", f"[::1]:{port}"):
            reply = await http.get("/api/rulesets", headers={"Host": host})
            assert reply.status_code == 200, host
    reader, writer = await asyncio.open_connection("127.0.0.1", int(port))
    writer.write(f"GET /api/games/g1/ws HTTP/1.1\r\nHost: rebound.example:{port}\r\n"
                 f"Origin: http://rebound.example:{port}\r\nUpgrade: websocket\r\n"
                 "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                 "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n".encode())  # fmt: skip
    status = await asyncio.wait_for(reader.readline(), 10)
    assert status.startswith(b"HTTP/1.1 403 "), status  # not 101: the handshake is refused
    writer.close()
    named = await door_at(Limits(), Door(allowed_hosts=frozenset({"tabula.example"})))
    async with httpx.AsyncClient(base_url=named) as http:
        assert (await http.get("/api/rulesets")).status_code == 400
        ok = await http.get("/api/rulesets", headers={"Host": "tabula.example"})
        assert ok.status_code == 200


async def test_a_client_slow_to_send_its_request_head_is_cut_off(
    door_at: Callable[[Limits, Door], Any],
) -> None:
    """A client that sends half a header line and then nothing is disconnected once the header
    timeout has passed, as is one that connects and sends nothing; a prompt request is served."""
    base = await door_at(Limits(), Door(header_timeout_s=1.0))
    port = int(base.rsplit(":", 1)[1])
    loop = asyncio.get_running_loop()
    for first in (b"GET /api/rulesets HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a", b""):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        started = loop.time()
        writer.write(first)
        await writer.drain()
        assert await asyncio.wait_for(reader.read(), 10) == b""  # closed, nothing answered
        assert 0.9 <= loop.time() - started < 3
        writer.close()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /api/rulesets HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    assert (await asyncio.wait_for(reader.read(), 10)).startswith(b"HTTP/1.1 200 ")
    writer.close()


def close_of(closed: pytest.ExceptionInfo[websockets.ConnectionClosed]) -> tuple[int, str]:
    """The close frame the gateway sent: its code and reason."""
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code, closed.value.rcvd.reason


async def feed_count(redis: Any, scope: str, who: str) -> int:
    return int(await redis.zcard(keys.feeds_key(scope, who)))


async def test_websockets_are_capped_per_player_and_per_address(
    door_at: Callable[[Limits, Door], Any], redis: Any
) -> None:
    """With 2 feeds a player and 3 an address (counted in the store), the third feed of a
    player and the fourth of an address are closed with 1013 and a reason; closing one frees
    its place; a lease a dead gateway left behind has lapsed and counts for nothing."""
    base = await door_at(Limits(10_000, 100, 100, 2, 3), Door())
    ann, bob, spectator = Person(base), Person(base), Person(base)
    try:
        await ann.sign_in("Ann")
        ann_id = (await ann.get("/api/session")).json()["id"]
        await bob.sign_in("Bob")
        cid = (await ann.post("/api/challenges", {"ruleset": "chess3d"})).json()["challenge"]["id"]
        game_id = (await bob.post(f"/api/challenges/{cid}/accept")).json()["game_id"]
        # Leases a crashed gateway left: their time is up, so they are not counted.
        await redis.zadd(keys.feeds_key("player", ann_id), {"dead1": 1.0, "dead2": 2.0})
        async with ann.feed(game_id) as one, ann.feed(game_id) as two:
            for ws in (one, two):
                assert (await next_frame(ws))["type"] == "events"
            assert await feed_count(redis, "player", ann_id) == 2  # the dead ones pruned
            async with ann.feed(game_id) as three:
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await three.recv()
                code, reason = close_of(closed)
                assert code == 1013
                assert "at most 2 a player" in reason
            async with spectator.feed(game_id) as watching:
                assert (await next_frame(watching))["type"] == "events"
                async with spectator.feed(game_id) as fourth:
                    with pytest.raises(websockets.ConnectionClosed) as closed:
                        await fourth.recv()
                    assert close_of(closed)[0] == 1013
            await two.close()
            # The gateway frees the place as the close reaches it.
            for _ in range(100):
                if await feed_count(redis, "player", ann_id) == 1:
                    break
                await asyncio.sleep(0.05)
            assert await feed_count(redis, "player", ann_id) == 1
            async with ann.feed(game_id) as again:
                assert (await next_frame(again))["type"] == "events"
    finally:
        for p in (ann, bob, spectator):
            await p.close()


# -- the store away is a 503, never a 500 ------------------------------------------------------


async def test_requests_while_the_store_is_away_are_503_unavailable(
    role_settings: Callable[[str], Settings], tmp_path: Path
) -> None:
    """With the gateway's store stopped, every request is `503 service/unavailable` with
    Retry-After (never `500 internal`), and a WebSocket is closed with 1013; once the store is
    back, the same requests are served."""
    # The gateway's own store (durable: the session outlives the restart), stopped and started.
    valkey = start_valkey(tmp_path / "valkey")
    try:
        settings = dataclasses.replace(role_settings("gateway"), redis_url=valkey.url)
        sock = listen("127.0.0.1", 0)
        base = f"http://127.0.0.1:{sock.getsockname()[1]}"
        async with serving(settings, sock, Limits(1000, 100, 100), Door()):
            ann = Person(base)
            try:
                await ann.sign_in("Ann")
                await asyncio.to_thread(valkey.stop)
                replies = [
                    await ann.get("/api/lobby"),
                    await ann.get("/api/session"),
                    await ann.post("/api/session", {"name": "Bob"}),
                    await ann.post("/api/games/g1/actions",
                                   {"action": "resign", "command_id": "c1"}),
                ]  # fmt: skip
                for reply in replies:
                    assert reply.status_code == 503, reply.text
                    assert reply.json()["error"]["code"] == ErrorCode.UNAVAILABLE
                    assert int(reply.headers["retry-after"]) > 0
                async with ann.feed("g1") as ws:
                    with pytest.raises(websockets.ConnectionClosed) as closed:
                        await ws.recv()
                    assert close_of(closed)[0] == 1013
                await asyncio.to_thread(valkey.start)
                assert (await ann.get("/api/lobby")).status_code == 200
                assert (await ann.get("/api/session")).json()["name"] == "Ann"
            finally:
                await ann.close()
    finally:
        valkey.stop()
