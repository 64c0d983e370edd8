"""The gateway's HTTP and WebSocket routes (Litestar), thin: each decodes, asks `people`,
`lobby` or `play`, and answers JSON. Every refusal is `{"error": {"code", "reason", "clause"}}`
with the code from contracts/errors.py and an HTTP status that fits it.

Requests that change something must be JSON (`Content-Type: application/json`) and, when the
browser names an origin, come from the gateway's own: with the session cookie's SameSite=Strict
that keeps other sites from acting for a signed-in player (CSRF). A WebSocket from another
origin is refused for the same reason.
"""

import asyncio
import contextlib
import re
import unicodedata
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Final, TypeVar
from urllib.parse import urlsplit

import msgspec
import structlog
from litestar import Litestar, Request, Response, delete, get, post, websocket
from litestar.connection import ASGIConnection, WebSocket
from litestar.datastructures import Cookie
from litestar.exceptions import HTTPException, NotFoundException, WebSocketDisconnect
from litestar.params import FromPath, FromQuery
from litestar.response import File
from litestar.static_files import create_static_files_router
from markdown_it import MarkdownIt
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from contracts.commands import Clock
from contracts.errors import ErrorCode
from domain.core import VariantError
from services.client.client import TabulaError
from services.gateway.door import OUTAGES, RULES_STYLE, Feeds, error_body
from services.gateway.lobby import BOT_LEVEL, Lobby, ReadModel, rulesets
from services.gateway.people import (
    NAME,
    Accounts,
    Limits,
    Player,
    RateLimited,
    RateLimits,
    Sessions,
    refuse,
)
from services.gateway.play import BotDesk, Play, words_of
from services.gateway.players import ROUTES as PLAYERS_ROUTES
from services.gateway.players import Players
from services.gateway.queue import Queue, shown
from services.gateway.rematch import Rematches
from services.runtime import keys
from services.runtime.metrics import WEBSOCKETS

log = structlog.get_logger()
COOKIE: Final = "tabula_session"
STATUS: Final[dict[ErrorCode, int]] = {
    ErrorCode.SIGN_IN: 401,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.BAD_TOKEN: 403,
    ErrorCode.UNKNOWN_GAME: 404,
    ErrorCode.UNKNOWN_CHALLENGE: 404,
    ErrorCode.UNKNOWN_RULESET: 404,
    ErrorCode.UNKNOWN_PLAYER: 404,
    ErrorCode.GAME_EXISTS: 409,
    ErrorCode.GAME_ENDED: 409,
    ErrorCode.NOT_STARTED: 409,
    ErrorCode.NOT_YOUR_TURN: 409,
    ErrorCode.CONFLICT: 409,
    ErrorCode.IN_PLAY: 409,
    ErrorCode.ILLEGAL_ACTION: 422,
    ErrorCode.LOSES: 409,  # the page asks its player, then sends it again
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.UNKNOWN_OUTCOME: 503,
    ErrorCode.UNAVAILABLE: 503,
    ErrorCode.NO_DRAW: 503,
    ErrorCode.INTERNAL: 500,
    ErrorCode.STORE_CORRUPT: 500,  # the server's data at fault, named: not retried
}  # any other code: 400, the request is at fault
RULES_DIR: Final = Path(__file__).resolve().parents[2] / "docs" / "rules"
WEB_DIR: Final = Path(__file__).resolve().parent / "web"
RULES_PAGE: Final = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)?\Z")

T = TypeVar("T")


@dataclass
class Gateway:
    sessions: Sessions
    accounts: Accounts
    rates: RateLimits
    limits: Limits
    lobby: Lobby
    play: Play
    bots: BotDesk
    queue: Queue


class SignIn(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str
    password: str = ""  # none: a guest


class Register(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str
    password: str


class GameAsked(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What a new game is asked with, against a person (OpenChallenge) or the house (PlayBots)."""

    ruleset: str
    variant: str = ""
    position: str = ""
    seat: int = 0
    # A time per move, live (minutes) or correspondence (days): at most 30 days; 0: none
    move_deadline_ms: Annotated[int, msgspec.Meta(ge=0, le=30 * 86_400_000)] = 0
    clock: Clock | None = None  # real-time clocks: base and increment (docs/clocks.md)
    rated: bool = False  # counts for the players' ratings (accounts only)


class OpenChallenge(GameAsked, frozen=True, kw_only=True, forbid_unknown_fields=True):
    # An account's name: the challenge is for that player alone, and not listed (issue 23)
    opponent: str = ""


class PlayBots(GameAsked, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """On a clock, the bots think within it (services.bots.thinking)."""

    level: Annotated[int, msgspec.Meta(ge=1, le=5)] = BOT_LEVEL  # domain.search.levels


class JoinQueue(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    ruleset: str
    variant: str = ""
    # Bots of this level take the other seats if nobody comes in time (0: wait for people).
    bot_level: Annotated[int, msgspec.Meta(ge=0, le=5)] = BOT_LEVEL


class Accept(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    seat: int | None = None


class ActRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    action: str
    command_id: str
    expected_version: int | None = None
    # The network lag the page measured (ms): in a game with clocks, given back within a quota
    lag_ms: Annotated[int, msgspec.Meta(ge=0, le=60_000)] = 0
    careful: bool = False  # refuse an action that loses the game at once (the page confirms)


def gateway_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Gateway:
    gateway: Gateway = connection.app.state.gateway
    return gateway


def on_tabula_error(_: Request[Any, Any, Any], exc: TabulaError) -> Response[Any]:
    code = ErrorCode(exc.code)
    headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, RateLimited) else {}
    return Response(error_body(code, exc.reason, exc.clause), status_code=STATUS.get(code, 400),
                    headers=headers)  # fmt: skip


def on_variant_error(_: Request[Any, Any, Any], exc: VariantError) -> Response[Any]:
    code = ErrorCode(exc.code)
    return Response(error_body(code, exc.reason), status_code=STATUS.get(code, 400))


def on_http_error(_: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    """Litestar's own refusals (no such route, wrong method) in the same shape."""
    code = ErrorCode.NOT_FOUND if exc.status_code == 404 else ErrorCode.MALFORMED
    return Response(error_body(code, exc.detail), status_code=exc.status_code)


def on_internal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    log.error("internal error", path=request.url.path, error=repr(exc))
    return Response(error_body(ErrorCode.INTERNAL, "internal error"), status_code=500)


RETRY_OUTAGE_S: Final = 2  # the Retry-After of a 503 while the store or the bus is away


def unavailable_body() -> dict[str, Any]:
    return error_body(ErrorCode.UNAVAILABLE, "the store or a service is away for a moment: "
                      "retry (with the same command id)")  # fmt: skip


def on_outage(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    log.warning("outage", path=request.url.path, error=repr(exc))
    return Response(unavailable_body(), status_code=503,
                    headers={"Retry-After": str(RETRY_OUTAGE_S)})  # fmt: skip


def decode(body: bytes, kind: type[T]) -> T:
    try:
        return msgspec.json.decode(body, type=kind)
    except msgspec.DecodeError as exc:
        raise refuse(ErrorCode.MALFORMED, str(exc)) from None


def same_origin(connection: ASGIConnection[Any, Any, Any, Any]) -> bool:
    """Whether the browser's Origin (if it names one) is the gateway's own host."""
    origin = connection.headers.get("origin")
    if origin is None:
        return connection.headers.get("sec-fetch-site") != "cross-site"
    return urlsplit(origin).netloc == connection.headers.get("host")


async def guard(request: Request[Any, Any, Any]) -> None:
    """Before every request (but the metrics and health routes': `unguarded`): the client's
    rate, and CSRF for requests that change state."""
    gateway = gateway_of(request)
    await gateway.rates.check("requests", "ip", address(request),
                              gateway.limits.requests_per_minute, 60)  # fmt: skip
    if request.method in ("POST", "DELETE"):
        if not same_origin(request):
            raise refuse(ErrorCode.FORBIDDEN, "requests from another site are refused")
        media = request.headers.get("content-type", "").split(";")[0].strip()
        if request.method == "POST" and media != "application/json":
            raise refuse(ErrorCode.MALFORMED, "send JSON (Content-Type: application/json)")


def address(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    return connection.client.host if connection.client else "?"


async def who(connection: ASGIConnection[Any, Any, Any, Any]) -> Player | None:
    return await gateway_of(connection).sessions.find(connection.cookies.get(COOKIE, ""))


async def signed_in(request: Request[Any, Any, Any]) -> Player:
    player = await who(request)
    if player is None:
        raise refuse(ErrorCode.SIGN_IN, "sign in first")
    return player


# -- sessions -----------------------------------------------------------------------------------


def a_name(name: str) -> str:
    """The name in NFKC, which it is kept and shown in: fullwidth `ｐａｕｌ` is `paul`."""
    name = unicodedata.normalize("NFKC", name).strip()
    if not NAME.match(name):
        raise refuse(ErrorCode.MALFORMED, "a name is 1-32 letters, digits, spaces, dots, "
                     "dashes or underscores")  # fmt: skip
    return name


async def sign_in_checks(request: Request[Any, Any, Any]) -> Gateway:
    """The client's rate of sign-ins. Wrong passwords on a name are counted by
    `Accounts.sign_in`, which never refuses the right one for others' failures."""
    gateway = gateway_of(request)
    await gateway.rates.check("sign-ins", "sign-in", address(request),
                              gateway.limits.sign_ins_per_minute, 60)  # fmt: skip
    return gateway


def with_session(request: Request[Any, Any, Any], player: Player, session_id: str,
                 status: int = 200) -> Response[Any]:  # fmt: skip
    cookie = Cookie(key=COOKIE, value=session_id, httponly=True, samesite="strict", path="/",
                    max_age=30 * 86_400, secure=request.url.scheme == "https")  # fmt: skip
    return Response(msgspec.to_builtins(player), cookies=[cookie], status_code=status)


@post("/api/session", status_code=200)
async def sign_in(request: Request[Any, Any, Any]) -> Response[Any]:
    """A guest by name, or an account with its password."""
    req = decode(await request.body(), SignIn)
    name = a_name(req.name)
    gateway = await sign_in_checks(request)
    if req.password:
        player = await gateway.accounts.sign_in(name, req.password, address(request),
                                                gateway.limits)  # fmt: skip
        return with_session(request, player, await gateway.sessions.open(player))
    if await gateway.accounts.exists(name):
        raise refuse(ErrorCode.CONFLICT, f"{name!r} is an account's name, or looks like one: "
                     "sign in with its password, or choose another name")  # fmt: skip
    session_id, player = await gateway.sessions.sign_in_guest(name)
    return with_session(request, player, session_id)


@post("/api/accounts", status_code=201)
async def register(request: Request[Any, Any, Any]) -> Response[Any]:
    """A new account, signed in; a guest who registers keeps its games."""
    req = decode(await request.body(), Register)
    name = a_name(req.name)
    gateway = await sign_in_checks(request)
    current = request.cookies.get(COOKIE, "")
    player = await gateway.accounts.register(name, req.password, await who(request))
    await gateway.sessions.sign_out(current)  # the guest's session becomes the account's
    return with_session(request, player, await gateway.sessions.open(player), 201)


@get("/api/session")
async def session(request: Request[Any, Any, Any]) -> Any:
    return msgspec.to_builtins(await signed_in(request))


@get("/api/me")
async def me(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """Who this browser is signed in as, or null: the page's first question, answered without
    an error status (a 401 on every first visit would be logged by the browser as a failure)."""
    player = await who(request)
    return {"player": msgspec.to_builtins(player) if player else None}


@delete("/api/session", status_code=200)
async def sign_out(request: Request[Any, Any, Any]) -> Response[Any]:
    await gateway_of(request).sessions.sign_out(request.cookies.get(COOKIE, ""))
    return Response({"signed_out": True}, cookies=[Cookie(key=COOKIE, value="", max_age=0)])


# -- the lobby ----------------------------------------------------------------------------------


@get("/api/rulesets")
async def list_rulesets() -> list[dict[str, Any]]:
    return rulesets()


@get("/api/lobby")
async def lobby(request: Request[Any, Any, Any]) -> dict[str, Any]:
    gateway = gateway_of(request)
    player = await who(request)
    # Private challenges (issue 23): those for you, and those you opened for someone.
    invitations = await gateway.lobby.invitations(player) if player else []
    sent = await gateway.lobby.sent(player) if player else []
    return {
        "challenges": msgspec.to_builtins(await gateway.lobby.challenges()),
        "invitations": msgspec.to_builtins(invitations),
        "sent": msgspec.to_builtins(sent),
        "games": msgspec.to_builtins(await gateway.lobby.recent_games()),
        "mine": msgspec.to_builtins(await gateway.lobby.recent_games(player)) if player else [],
        "queue": shown(await gateway.queue.show(player) if player else None),
        "live": await Players(gateway.lobby, gateway.accounts).lobby_live(),
    }


@post("/api/queue", status_code=200)
async def join_queue(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """Queue for a game of a ruleset and variant with whoever else queues for it (people here,
    bots over the bus, and the house's bots of `bot_level` if nobody comes in time: its
    `bot_at_ms`); the lobby's answers tell the game once made (its `queue`), and a page that
    stops asking leaves the queue."""
    player = await signed_in(request)
    req = decode(await request.body(), JoinQueue)
    queue = gateway_of(request).queue
    return shown(await queue.join(player, req.ruleset, req.variant, req.bot_level))


@get("/api/queue")
async def queue_place(request: Request[Any, Any, Any], wait: FromQuery[int] = 0) -> dict[str, Any]:
    """The player's place in the queue, waiting up to `wait` seconds (at most 25) for its game."""
    queue = gateway_of(request).queue
    return shown(await queue.show(await signed_in(request), min(max(wait, 0), 25)))


@delete("/api/queue", status_code=200)
async def leave_queue(request: Request[Any, Any, Any]) -> dict[str, Any]:
    return {"left": await gateway_of(request).queue.leave(await signed_in(request))}


@post("/api/challenges", status_code=201)
async def open_challenge(request: Request[Any, Any, Any]) -> Any:
    player = await signed_in(request)
    req = decode(await request.body(), OpenChallenge)
    gateway = gateway_of(request)
    opponent = None
    if req.opponent:
        opponent = await gateway.accounts.find(req.opponent)
        if opponent is None:
            raise refuse(ErrorCode.UNKNOWN_PLAYER, f"no account named {req.opponent!r}")
    opened = await gateway.lobby.open(player, req.ruleset, req.variant, req.position, req.seat,
                                      req.move_deadline_ms, req.clock, req.rated,
                                      opponent)  # fmt: skip
    return msgspec.to_builtins(opened)


@post("/api/bots", status_code=201)
async def play_bots(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """A game against house bots: the player at the seat asked for, a bot of the level asked
    at every other (played by the bots service, to which the seats are handed here)."""
    gateway = gateway_of(request)
    player = await signed_in(request)
    req = decode(await request.body(), PlayBots)
    table = await gateway.lobby.against_bots(player, req.ruleset, req.variant, req.position,
                                             req.seat, req.move_deadline_ms, req.rated,
                                             req.level, req.clock)  # fmt: skip
    await gateway.bots.hand_over(table)
    return {"game_id": table.game_id}


@get("/api/challenges/{challenge_id:str}")
async def show_challenge(request: Request[Any, Any, Any], challenge_id: FromPath[str]) -> Any:
    return msgspec.to_builtins(await gateway_of(request).lobby.show(challenge_id))


@post("/api/challenges/{challenge_id:str}/accept", status_code=200)
async def accept(request: Request[Any, Any, Any], challenge_id: FromPath[str]) -> Any:
    player = await signed_in(request)
    req = decode(await request.body() or b"{}", Accept)
    return msgspec.to_builtins(await gateway_of(request).lobby.accept(player, challenge_id,
                                                                     req.seat))  # fmt: skip


@delete("/api/challenges/{challenge_id:str}", status_code=200)
async def withdraw(request: Request[Any, Any, Any], challenge_id: FromPath[str]) -> dict[str, Any]:
    await gateway_of(request).lobby.withdraw(await signed_in(request), challenge_id)
    return {"withdrawn": challenge_id}


# -- games --------------------------------------------------------------------------------------


@get("/api/games/{game_id:str}")
async def game(
    request: Request[Any, Any, Any], game_id: FromPath[str], at: FromQuery[int | None] = None
) -> dict[str, Any]:
    """Who sits where, your seat, and the view; `?at=N`: the view after event N (a replay)."""
    play = gateway_of(request).play
    player = await who(request)
    table = await play.table(game_id)
    view = await play.view(player, game_id, at)
    you = table.seat_of(player.id) if table and player else None
    # Its players' rematch offer, once the game has ended (issue 23); a replay's asks none.
    rematch = None
    if player is not None and you is not None and view.result and at is None:
        rematch = await rematches(request).of(player, game_id)
    return {
        "game_id": game_id,
        "seated": msgspec.to_builtins(table.seated) if table else [],
        "you": you,
        "view": msgspec.to_builtins(view),
        "words": msgspec.to_builtins(words_of(view, table.seated if table else [], you)),
        "rematch": msgspec.to_builtins(rematch),
    }


def rematches(request: Request[Any, Any, Any]) -> Rematches:
    gateway = gateway_of(request)
    return Rematches(gateway.lobby, gateway.play)


@post("/api/games/{game_id:str}/rematch", status_code=200)
async def offer_rematch(request: Request[Any, Any, Any], game_id: FromPath[str]) -> Any:
    """Offer the ended game's players a rematch, colours rotated (another player's offer
    standing: accept it)."""
    player = await signed_in(request)
    return msgspec.to_builtins(await rematches(request).offer(player, game_id))


@post("/api/games/{game_id:str}/rematch/accept", status_code=200)
async def accept_rematch(request: Request[Any, Any, Any], game_id: FromPath[str]) -> Any:
    player = await signed_in(request)
    return msgspec.to_builtins(await rematches(request).accept(player, game_id))


@delete("/api/games/{game_id:str}/rematch", status_code=200)
async def decline_rematch(request: Request[Any, Any, Any], game_id: FromPath[str]) -> Any:
    """Decline a rematch you are offered, or withdraw your own offer."""
    player = await signed_in(request)
    return msgspec.to_builtins(await rematches(request).decline(player, game_id))


@post("/api/games/{game_id:str}/actions", status_code=200)
async def act(request: Request[Any, Any, Any], game_id: FromPath[str]) -> Any:
    gateway = gateway_of(request)
    player = await signed_in(request)
    await gateway.rates.check("actions", "act", player.id, gateway.limits.actions_per_10s, 10)
    req = decode(await request.body(), ActRequest)
    receipt = await gateway.play.act(player, game_id, req.action, req.command_id,
                                     req.expected_version, req.lag_ms, req.careful)  # fmt: skip
    return msgspec.to_builtins(receipt)


@get("/api/games/{game_id:str}/events")
async def events(
    request: Request[Any, Any, Any], game_id: FromPath[str], after: FromQuery[int] = 0
) -> Response[Any]:
    stored = await gateway_of(request).play.events(await who(request), game_id, after)
    return Response(msgspec.json.encode(stored), media_type="application/json")


@get("/api/games/{game_id:str}/export")
async def export(request: Request[Any, Any, Any], game_id: FromPath[str]) -> Response[Any]:
    data = await gateway_of(request).play.export(game_id)
    disposition = f'attachment; filename="{game_id}.tabula.jsonl"'
    return Response(data, media_type="application/x-ndjson",
                    headers={"Content-Disposition": disposition})  # fmt: skip


@get("/api/keys")
async def signing_keys(request: Request[Any, Any, Any]) -> dict[str, Any]:
    return {"signing": await gateway_of(request).play.client.keys()}


@websocket("/api/games/{game_id:str}/ws")
async def feed(socket: WebSocket[Any, Any, Any], game_id: FromPath[str]) -> None:
    """One game's events as this player may see them (after `?after=`), and its actions.

    Frames sent: `{"type": "events", "events": [...]}`, `{"type": "receipt", "command_id",
    "receipt"}`, `{"type": "error", "command_id", "error": {...}}`. Frames received:
    `{"type": "act", "action", "command_id", "expected_version"?}`."""
    if not same_origin(socket):
        await socket.close(code=1008, reason="another site's page may not open this feed")
        return
    gateway = gateway_of(socket)
    after_text = socket.query_params.get("after", "0")
    if not after_text.isdecimal() or len(after_text) > 15:
        await socket.close(code=1008, reason="after is a version: a decimal number")
        return
    after = int(after_text)
    feeds: Feeds = socket.app.state.feeds
    limits = gateway.limits
    try:
        await gateway.rates.check("requests", "ip", address(socket),
                                  limits.requests_per_minute, 60)  # fmt: skip
        player = await who(socket)
        counted = [(keys.feeds_key("ip", address(socket)), limits.feeds_per_address)]
        if player is not None:
            counted.append((keys.feeds_key("player", player.id), limits.feeds_per_player))
        lease = await feeds.open(counted)
    except (RateLimited, *OUTAGES) as exc:
        reason = exc.reason if isinstance(exc, RateLimited) else "the store is away: reconnect"
        lease, refused = None, reason
    else:
        refused = (f"too many feeds open: at most {limits.feeds_per_player} a player and "
                   f"{limits.feeds_per_address} an address; close one")  # fmt: skip
    # Accepted before a refusal, so that the page sees 1013 (try again later) and its reason
    # (closed before, it would see only a refused handshake).
    await socket.accept()
    if lease is None:
        await socket.close(code=1013, reason=refused)
        return
    sending = asyncio.Lock()

    async def send(frame: dict[str, Any]) -> None:
        async with sending:
            await socket.send_bytes(msgspec.json.encode(frame))

    async def pump() -> None:
        async for batch in gateway.play.feed(player, game_id, after):
            await send({"type": "events", "events": batch})

    pumping = asyncio.create_task(pump())
    WEBSOCKETS.inc()  # an open feed; a refused one (closed above) is not
    try:
        while True:
            raw = await socket.receive_data(mode="binary")
            await send(await _ws_act(gateway, player, game_id, raw))
    except WebSocketDisconnect:
        pass
    finally:
        WEBSOCKETS.dec()
        pumping.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await pumping
        try:
            await feeds.close(lease)
        except OUTAGES as exc:  # its lease lapses instead
            log.warning("feed lease not released", error=repr(exc))


async def _ws_act(gateway: Gateway, player: Player | None, game_id: str,
                  raw: bytes) -> dict[str, Any]:  # fmt: skip
    command_id = ""
    try:
        if player is None:
            raise refuse(ErrorCode.SIGN_IN, "sign in first")
        req = decode(raw, ActRequest)
        command_id = req.command_id
        await gateway.rates.check("actions", "act", player.id, gateway.limits.actions_per_10s, 10)
        receipt = await gateway.play.act(player, game_id, req.action, req.command_id,
                                         req.expected_version)  # fmt: skip
        return {"type": "receipt", "command_id": command_id,
                "receipt": msgspec.to_builtins(receipt)}  # fmt: skip
    except TabulaError as exc:
        return {"type": "error", "command_id": command_id,
                **error_body(ErrorCode(exc.code), exc.reason, exc.clause)}  # fmt: skip


# -- metrics and health -------------------------------------------------------------------------

READY_TIMEOUT_S: Final = 1.0  # a probe waits this long for Valkey or PostgreSQL, at most
OK: Final = "ok"
NOT_CONFIGURED: Final = "not configured"


async def unguarded(_: Request[Any, Any, Any]) -> None:
    """In place of `guard` (a route's own before_request wins over the app's): a scraper or a
    probe asking every few seconds is not a client to rate-limit, and changes nothing."""


@get("/metrics", before_request=unguarded)
async def metrics() -> Response[bytes]:
    """This process's metrics (services/runtime/metrics.py), for Prometheus. They carry no
    game, player or session id; the proxy in front should still serve them to the operator
    alone."""
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


@get("/livez", before_request=unguarded)
async def livez() -> dict[str, str]:
    """The process runs and answers (a supervisor restarts it when this fails)."""
    return {"status": OK}


async def _probe(check: str, probe: Awaitable[object]) -> str:
    """The check's answer: OK, or why not in a few words. Never the error's own text, which
    may name a server (a URL, a user) to whoever asks; the log has it for the operator."""
    try:
        async with asyncio.timeout(READY_TIMEOUT_S):
            await probe
    except TimeoutError:
        reason = f"no answer within {READY_TIMEOUT_S:g} s"
        log.warning("not ready", check=check, error=reason)
        return reason
    except Exception as exc:  # noqa: BLE001  # any failure is the check's answer, not the route's
        log.warning("not ready", check=check, error=repr(exc))
        return f"unreachable ({type(exc).__name__})"
    return OK


async def readiness(gateway: Gateway) -> dict[str, str]:
    """Each thing the gateway needs, "ok" or why not: the bus (its connection), the store (a
    PING) and the read model (a `SELECT 1`; "not configured" without DATABASE_URL, the lobby
    then lists games from the store)."""
    nc = gateway.play.client.nc
    nats = OK if nc.is_connected else "reconnecting" if nc.is_reconnecting else "not connected"
    valkey, postgres = await asyncio.gather(_probe("valkey", gateway.rates.redis.ping()),
                                            _postgres(gateway.lobby.read_model))  # fmt: skip
    return {"nats": nats, "valkey": valkey, "postgres": postgres}


async def _postgres(read_model: ReadModel | None) -> str:
    return NOT_CONFIGURED if read_model is None else await _probe("postgres", read_model.ping())


@get("/readyz", before_request=unguarded)
async def readyz(request: Request[Any, Any, Any]) -> Response[dict[str, Any]]:
    """200 when the gateway reaches what it needs, else 503 (a load balancer sends it no one
    meanwhile); either way each check's answer."""
    checks = await readiness(gateway_of(request))
    ready = all(answer in (OK, NOT_CONFIGURED) for answer in checks.values())
    return Response({"status": "ready" if ready else "not ready", "checks": checks},
                    status_code=200 if ready else 503)  # fmt: skip


# -- pages --------------------------------------------------------------------------------------

_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><style>{style}</style></head>
<body>{body}</body></html>"""
_markdown = MarkdownIt("commonmark", {"html": True}).enable("table")


@get("/rules/{game:str}", media_type="text/html")
async def rules_page(game: FromPath[str]) -> str:
    """docs/rules/<game>.md as HTML: the rules with each clause's anchor (`#C3-7.7`), so a
    refusal's clause links to its text."""
    # A variant ruleset's rules share its family's page: spacewar-ha's are in spacewar.md.
    page = game.split("-")[0]
    path = RULES_DIR / f"{page}.md"
    if not RULES_PAGE.match(game) or not path.is_file():
        raise NotFoundException(f"no rules page for {game}")
    return _PAGE.format(title=f"{game} rules", style=RULES_STYLE,
                        body=_markdown.render(path.read_text()))  # fmt: skip


@get("/")
async def index() -> File:
    """The web client's page (its scripts and styles under /static/)."""
    return File(WEB_DIR / "index.html", content_disposition_type="inline", media_type="text/html")


def build_app(gateway: Gateway) -> Litestar:
    app = Litestar(
        route_handlers=[
            sign_in,
            register,
            session,
            me,
            sign_out,
            list_rulesets,
            lobby,
            join_queue,
            queue_place,
            leave_queue,
            open_challenge,
            play_bots,
            show_challenge,
            accept,
            withdraw,
            *PLAYERS_ROUTES,
            game,
            offer_rematch,
            accept_rematch,
            decline_rematch,
            act,
            events,
            export,
            signing_keys,
            feed,
            rules_page,
            index,
            metrics,
            livez,
            readyz,
            create_static_files_router("/static", [WEB_DIR]),
        ],
        exception_handlers={
            TabulaError: on_tabula_error,
            VariantError: on_variant_error,
            HTTPException: on_http_error,
            **dict.fromkeys(OUTAGES, on_outage),
            Exception: on_internal_error,
        },
        before_request=guard,
    )
    app.state.gateway = gateway
    app.state.feeds = feeds = Feeds(gateway.rates.redis)
    app.on_shutdown.append(feeds.stop)
    return app
