"""The rules service: create games, decide actions, append, publish.

Replicas run in one queue group and coordinate through nothing but the store's expected version:
on a conflict a replica catches up from the log and decides again (decide is pure, so that is
safe). Within a replica, commands for one game are serialised by a per-game lock, while commands
for different games overlap and their appends are group-committed.
"""

import asyncio
import hashlib
import hmac
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import msgspec
import structlog
from nats.aio.client import Client as NATS

from contracts import subjects
from contracts.commands import (
    Act,
    Created,
    CreateGame,
    Error,
    Events,
    GetView,
    ReadEvents,
    Receipt,
    Reply,
    SeatGrant,
    View,
)
from contracts.envelope import StoredEvent
from contracts.errors import ErrorCode
from contracts.events import Event, GameCreated, GameSealed
from domain import fairplay
from domain.core import NeedDraws, Rejection, Ruleset, VariantError
from domain.registry import find_ruleset
from services.rules.tokens import seat_token
from services.runtime.codec import decode_log, decoder, encode
from services.runtime.eventstore import Appended, EventStore, NewEvent

log = structlog.get_logger()
GAME_ID = re.compile(r"^[a-z0-9-]{1,64}$")
MAX_ATTEMPTS = 8  # decide/append rounds before a hot game reports a conflict to the client
_store_encoder = msgspec.json.Encoder()


@dataclass(slots=True)
class Game:
    """A cached game: its state at `version`, whose chain hash is `hash`."""

    ruleset: Ruleset[Any, Any]
    created: GameCreated
    tokens: tuple[str, ...]  # derived once per game, then compared in constant time
    state: Any
    version: int
    hash: str
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


def error(code: ErrorCode, reason: str, clause: str = "") -> Error:
    return Error(code=code, reason=reason, clause=clause)


def derive_game_id(command_id: str) -> str:
    return "g-" + hashlib.sha256(f"game-id:v1:{command_id}".encode()).hexdigest()[:20]


class Rules:
    def __init__(self, store: EventStore, nc: NATS, secret: bytes, cache_size: int = 20_000):
        self.store = store
        self.nc = nc
        self.secret = secret
        self.cache: OrderedDict[str, Game] = OrderedDict()
        self.cache_size = cache_size
        self._loading: dict[str, asyncio.Future[Game | None]] = {}

    # -- the cache ---------------------------------------------------------------------------

    async def game(self, game_id: str) -> Game | None:
        """The cached game, else rebuilt from its log (one load per game at a time)."""
        if (game := self.cache.get(game_id)) is not None:
            self.cache.move_to_end(game_id)
            return game
        if (loading := self._loading.get(game_id)) is not None:
            return await asyncio.shield(loading)
        future: asyncio.Future[Game | None] = asyncio.get_running_loop().create_future()
        self._loading[game_id] = future
        try:
            game = await self._load(game_id)
            future.set_result(game)
        except BaseException as exc:
            future.set_exception(exc)
            raise
        finally:
            del self._loading[game_id]
        if game is not None:
            self._remember(game_id, game)
        return game

    async def _load(self, game_id: str) -> Game | None:
        stored = await self.store.read_all(game_id)
        if not stored:
            return None
        ruleset, events = decode_log(stored)
        assert isinstance(events[0], GameCreated)
        state = ruleset.start(events[0])
        for event in events[1:]:
            state = ruleset.evolve(state, event)
        tokens = self.tokens(game_id, events[0].seats)
        return Game(ruleset, events[0], tokens, state, stored[-1].version, stored[-1].hash)

    def tokens(self, game_id: str, seats: int) -> tuple[str, ...]:
        return tuple(seat_token(self.secret, game_id, s) for s in range(seats))

    def _remember(self, game_id: str, game: Game) -> None:
        self.cache[game_id] = game
        self.cache.move_to_end(game_id)
        while len(self.cache) > self.cache_size:
            oldest, victim = next(iter(self.cache.items()))
            if victim.lock.locked():  # never evict a game mid-command
                self.cache.move_to_end(oldest)
                break
            del self.cache[oldest]

    def on_committed(self, stored: StoredEvent) -> None:
        """Keep a cached game current with what other replicas commit (their notifications).

        Only the next version of a game at rest is applied; anything else is left to the
        expected-version check, which catches up from the log. The log stays the record.
        """
        game = self.cache.get(stored.game_id)
        if game is None or game.lock.locked() or stored.version != game.version + 1:
            return
        game.state = game.ruleset.evolve(game.state, decoder(game.ruleset.name).decode(stored.body))
        game.version, game.hash = stored.version, stored.hash

    async def catch_up(self, game_id: str, game: Game) -> bool:
        """Apply events other replicas appended since `game.version`; True if any."""
        stored = await self.store.read_all(game_id, after=game.version)
        if not stored:
            return False
        dec = decoder(game.ruleset.name)
        for s in stored:
            game.state = game.ruleset.evolve(game.state, dec.decode(s.body))
        game.version, game.hash = stored[-1].version, stored[-1].hash
        return True

    # -- handlers ----------------------------------------------------------------------------

    async def create(self, req: CreateGame) -> Reply:
        game_id = req.game_id or derive_game_id(req.command_id)
        structlog.contextvars.bind_contextvars(game_id=game_id)
        if not GAME_ID.match(game_id):
            return error(ErrorCode.MALFORMED, f"game id {game_id!r} must match [a-z0-9-]{{1,64}}")
        try:
            ruleset = find_ruleset(req.ruleset)
            created = ruleset.create(req.variant, req.position)
        except VariantError as exc:
            return error(exc.code, exc.reason)
        if req.players:
            if len(req.players) != created.seats:
                return error(
                    ErrorCode.MALFORMED,
                    f"{len(req.players)} players named for {created.seats} seats",
                )
            created = msgspec.structs.replace(created, players=list(req.players))
        state = ruleset.start(created)
        result = await self.store.append(
            game_id,
            0,
            fairplay.genesis_hash(game_id),
            req.command_id,
            [NewEvent(_tag(created), encode(created))],
        )
        if not isinstance(result, Appended):
            return error(ErrorCode.GAME_EXISTS, f"game {game_id} already exists")
        tokens = self.tokens(game_id, created.seats)
        if not result.duplicate:
            await self.store.register_game(game_id, ruleset.name, result.events[0].time_ms)
            game = Game(ruleset, created, tokens, state, result.version, result.hash)
            self._remember(game_id, game)
            await self.publish(game_id, result)
        grants = [SeatGrant(seat=s, token=t) for s, t in enumerate(tokens)]
        return Created(game_id=game_id, version=result.version, hash=result.hash, seats=grants)

    async def act(self, req: Act) -> Reply:
        game = await self.game(req.game_id)
        if game is None:
            return error(ErrorCode.UNKNOWN_GAME, f"no game {req.game_id}")
        if not 0 <= req.seat < game.created.seats:
            return error(ErrorCode.UNKNOWN_SEAT, f"seat {req.seat} is not in this game")
        if not hmac.compare_digest(game.tokens[req.seat], req.token):
            return error(ErrorCode.BAD_TOKEN, f"wrong token for seat {req.seat}")
        async with game.lock:
            return await self._act_locked(req, game)

    async def _act_locked(self, req: Act, game: Game) -> Reply:
        rs = game.ruleset
        caught_up = False
        if req.expected_version is not None and req.expected_version > game.version:
            caught_up = await self.catch_up(req.game_id, game)  # the client saw newer events
        for _attempt in range(MAX_ATTEMPTS):
            rejection = self._check(req, game)
            if rejection is None:
                action = rs.parse_action(game.state, req.seat, req.action)
                if isinstance(action, Rejection):
                    rejection = action
                else:
                    decision = rs.decide(game.state, req.seat, action)
                    if isinstance(decision, NeedDraws):
                        return error(
                            ErrorCode.NO_DRAW,
                            f"{rs.name} needs random draws, not served for it yet",
                        )
                    rejection = decision if isinstance(decision, Rejection) else None
            if rejection is not None:
                # Before refusing, make sure the refusal is not an artefact of a stale cache or
                # of a retry of a command that was already applied.
                if not caught_up:
                    caught_up = True
                    if done := await self.store.command_result(req.game_id, req.command_id):
                        return _receipt(req.game_id, done)
                    if await self.catch_up(req.game_id, game):
                        continue
                return error(rejection.code, rejection.reason, rejection.clause)
            assert not isinstance(decision, (Rejection, NeedDraws))
            events = list(decision)
            new_state = game.state
            for event in events:
                new_state = rs.evolve(new_state, event)
            outcome = rs.outcome(new_state)
            result = await self.store.append(
                req.game_id,
                game.version,
                game.hash,
                req.command_id,
                [NewEvent(_tag(e), _store_encoder.encode(e)) for e in events],
                seal=outcome is not None,
            )
            if not isinstance(result, Appended):  # another replica got there first
                caught_up = True
                await self.catch_up(req.game_id, game)
                continue
            if result.duplicate:
                await self.catch_up(req.game_id, game)
                return _receipt(req.game_id, result)
            game.state, game.version, game.hash = new_state, result.version, result.hash
            if outcome is not None:
                sealed = msgspec.json.decode(result.events[-1].body, type=GameSealed)
                game.state = rs.evolve(game.state, sealed)
                await self.store.mark_ended(req.game_id, outcome.result, outcome.reason)
            await self.publish(req.game_id, result)
            return _receipt(req.game_id, result)
        return error(ErrorCode.CONFLICT, "the game kept changing; retry")

    def _check(self, req: Act, game: Game) -> Rejection | None:
        if req.expected_version is not None and req.expected_version != game.version:
            return Rejection(
                ErrorCode.CONFLICT,
                f"expected version {req.expected_version}, game is at {game.version}",
            )
        if game.ruleset.outcome(game.state) is not None:
            return Rejection(ErrorCode.GAME_ENDED, "the game has ended")
        return None

    async def read(self, req: ReadEvents) -> Reply:
        limit = max(1, min(req.limit, 1000))
        stored = await self.store.read(req.game_id, req.after, limit)
        head = await self.store.head(req.game_id)
        if head is None:
            return error(ErrorCode.UNKNOWN_GAME, f"no game {req.game_id}")
        return Events(game_id=req.game_id, events=stored, head=head.version)

    async def view(self, req: GetView) -> Reply:
        game = await self.game(req.game_id)
        if game is None:
            return error(ErrorCode.UNKNOWN_GAME, f"no game {req.game_id}")
        async with game.lock:  # another replica may have moved the game on: read to the head
            await self.catch_up(req.game_id, game)
        rs, state = game.ruleset, game.state
        legal: list[str] = []
        if req.seat is not None:
            if not (
                0 <= req.seat < game.created.seats
                and hmac.compare_digest(game.tokens[req.seat], req.token)
            ):
                return error(ErrorCode.BAD_TOKEN, f"wrong token for seat {req.seat}")
            legal = [rs.format_action(state, a) for a in rs.legal_actions(state, req.seat)]
        outcome = rs.outcome(state)
        return View(
            game_id=req.game_id,
            version=game.version,
            ruleset=rs.name,
            variant=game.created.variant,
            seat=req.seat,
            to_act=sorted(rs.to_act(state)),
            position=rs.position(state),
            legal=legal,
            result=outcome.result if outcome else "",
            reason=outcome.reason if outcome else "",
        )

    async def publish(self, game_id: str, result: Appended) -> None:
        """Notify subscribers; the record is the log, so a lost notice is caught up by version."""
        subject = subjects.game_events(game_id)
        for stored in result.events:
            await self.nc.publish(subject, encode(stored))


def _tag(event: Event) -> str:
    return str(event.__struct_config__.tag)


def _receipt(game_id: str, done: Appended) -> Receipt:
    return Receipt(
        game_id=game_id,
        version=done.version,
        hash=done.hash,
        first_version=done.first_version,
        duplicate=done.duplicate,
    )
