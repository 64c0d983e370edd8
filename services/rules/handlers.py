"""The rules service: create games, decide actions, append, publish.

Replicas run in one queue group and coordinate through nothing but the store's expected version:
on a conflict a replica catches up from the log and decides again (decide is pure, so that is
safe). Within a replica, commands for one game are serialised by a per-game lock, while commands
for different games overlap and their appends are group-committed.

Every game is a domain.core.table.Table: the ruleset's game inside the fair-play protocol, kept
by the game cache (services.rules.games). When the table needs random outcomes the service asks
the randomness service (services.rules.randomness), then decides again with them; the outcomes
become events, so replay never asks again.
"""

import asyncio
import hashlib
import hmac
import time
from collections.abc import Sequence

import msgspec
import structlog
from nats.aio.client import Client as NATS
from nats.errors import Error as NATSError

from contracts import subjects
from contracts.commands import (
    Act,
    ClockView,
    Created,
    CreateGame,
    Error,
    Events,
    Forget,
    ForgetGames,
    Forgotten,
    ForgottenGames,
    GetKeys,
    GetView,
    Keys,
    ReadEvents,
    Receipt,
    Reply,
    SeatGrant,
    View,
)
from contracts.envelope import SealedEvent, StoredEvent
from contracts.errors import ErrorCode
from contracts.events import (
    Event,
    GameEnded,
    GameSealed,
    SeedCommitted,
    SeedRevealed,
    TimeControl,
)
from domain import fairplay
from domain.core import Decided, Decision, DrawResult, NeedDraws, Rejection, VariantError
from domain.core import table as tables
from domain.registry import RULESETS, event_decoder, find_ruleset
from domain.words import words_for
from services.rules.games import Game, Games
from services.rules.randomness import RandomnessClient, RandomnessUnavailable
from services.runtime import metrics
from services.runtime.archived import Exact
from services.runtime.codec import CorruptEntry, decode_event, encode
from services.runtime.codec import created as created_event
from services.runtime.eventstore import (
    UNKNOWN_OUTCOME,
    Appended,
    Conflict,
    EventStore,
    NewEvent,
    StaleCreate,
    parse_entry,
    read_raw,
)
from services.runtime.keys import CLOCKS_DUE, meta_key
from services.runtime.sealing import seal, seal_bytes, seal_to
from services.runtime.signing import ReceiptSigner

log = structlog.get_logger()
MAX_ATTEMPTS = 8  # decide/append rounds before a hot game reports a conflict to the client
FLAG_S = 0.25  # how often each replica looks for a clock run out (Rules.flag_due)
# A read's page ends before its reply would pass this (well under the bus's MAX_PAYLOAD); the
# reader asks for the next page from the last version it got.
READ_REPLY_BYTES = 512 * 1024
_store_encoder = msgspec.json.Encoder()


def error(code: ErrorCode, reason: str, clause: str = "") -> Error:
    return Error(code=code, reason=reason, clause=clause)


def unknown_outcome(exc: BaseException) -> Error:
    """The store did not answer an append: never a definite failure (it may be applied)."""
    log.warning("append outcome unknown", error=repr(exc))
    reason = "the store did not answer: retry with the same command id (applied once)"
    return error(ErrorCode.UNKNOWN_OUTCOME, reason)


def corrupt(exc: CorruptEntry) -> Error:
    """A stored entry the store's writers cannot have written: named to the asker, and logged
    for the operator, rather than an internal error."""
    log.error("corrupt entry in the store", error=str(exc))
    return error(ErrorCode.STORE_CORRUPT, str(exc))


def derive_game_id(command_id: str) -> str:
    return "g-" + hashlib.sha256(f"game-id:v1:{command_id}".encode()).hexdigest()[:20]


def _tag(event: Event) -> str:
    return str(event.__struct_config__.tag)


def _outcome(reply: Reply) -> str:
    return reply.code if isinstance(reply, Error) else metrics.OK


def _decide(game: "Game", req: Act, draws: list[DrawResult], idle_ms: int, now_ms: int
            ) -> Decision:  # fmt: skip
    """tables.decide, timed."""
    with metrics.DECIDE_SECONDS.labels(game.table.ruleset.name).time():
        return tables.decide(game.table, req.seat, req.action, draws, idle_ms, now_ms,
                             req.lag_ms)  # fmt: skip


def _clock_view(table: tables.Table) -> ClockView | None:
    clocks, tc = table.clocks, table.created.clock
    if clocks is None or tc is None:
        return None
    now_ms = int(time.time() * 1000)
    return ClockView(base_ms=tc.base_ms, increment_ms=tc.increment_ms, now_ms=now_ms,
                     remaining_ms=clocks.lefts(now_ms), running=clocks.running)  # fmt: skip


class Rules:
    def __init__(self, store: EventStore, nc: NATS, secret: bytes, signer: ReceiptSigner,
                 cache_size: int = 20_000):  # fmt: skip
        self.store = store
        self.signer = signer
        self.nc = nc
        self.randomness = RandomnessClient(nc, store)
        self.secret = secret
        self.games = Games(store, secret, cache_size)

    # -- handlers ----------------------------------------------------------------------------

    async def receipt(self, game_id: str, done: Appended) -> Receipt:
        """A signed receipt of the head after the command (services.runtime.signing)."""
        signature, index, path = await self.signer.receipt(game_id, done.version, done.hash)
        return Receipt(game_id=game_id, version=done.version, hash=done.hash,
                       first_version=done.first_version, duplicate=done.duplicate,
                       key=self.signer.public, signature=signature, index=index,
                       path=path)  # fmt: skip

    async def keys(self, _req: GetKeys) -> Reply:
        return Keys(signing=[self.signer.public])

    async def create(self, req: CreateGame) -> Reply:
        reply = await self._create(req)
        # A ruleset's name only when it is one: a label never takes a client's free text.
        name = req.ruleset if req.ruleset in RULESETS else "unknown"
        metrics.COMMANDS.labels(name, "create", _outcome(reply)).inc()
        return reply

    async def _create(self, req: CreateGame) -> Reply:
        game_id = req.game_id or derive_game_id(req.command_id)
        structlog.contextvars.bind_contextvars(game_id=game_id)
        try:
            ruleset = find_ruleset(req.ruleset)
            created = ruleset.create(req.variant, req.position)
        except VariantError as exc:
            return error(exc.code, exc.reason)
        if req.players and len(req.players) != created.seats:
            return error(ErrorCode.MALFORMED,
                         f"{len(req.players)} players named for {created.seats} seats")  # fmt: skip
        created = msgspec.structs.replace(created, game_id=game_id, players=list(req.players),
                                          creator_key=req.reply_key)  # fmt: skip
        if req.reveal_deadline_ms is not None:
            created = msgspec.structs.replace(created, reveal_deadline_ms=req.reveal_deadline_ms)
        if req.move_deadline_ms:
            created = msgspec.structs.replace(created, move_deadline_ms=req.move_deadline_ms)
        if req.clock is not None:
            if not req.clock.base_ms and not req.clock.increment_ms:
                return error(ErrorCode.MALFORMED, "a clock of no time at all: give base_ms or "
                             "increment_ms")  # fmt: skip
            clock = TimeControl(base_ms=req.clock.base_ms, increment_ms=req.clock.increment_ms)
            created = msgspec.structs.replace(created, clock=clock)
        if req.rated:
            created = msgspec.structs.replace(created, rated=True)
        # A game that left Valkey for the archive is found there (a retry of its create gets
        # its receipt below); while in Valkey, the append script finds it itself.
        done, archived = await self.store.prior(game_id, req.command_id)
        if done is None and archived:
            return error(ErrorCode.GAME_EXISTS, f"game {game_id} already exists")
        events: list[Event] = [created]
        if created.randomness:  # the server is bound before any player speaks (protocol 1.1)
            try:
                commitment = await self.randomness.commitment(game_id)
            except RandomnessUnavailable as exc:
                return error(ErrorCode.NO_DRAW, str(exc))
            events.append(SeedCommitted(commitment=commitment))
        table = tables.open_table(ruleset, game_id, created)
        now_ms = int(time.time() * 1000)
        for event in events[1:]:
            table = tables.evolve(table, event)
        for event in tables.start_clocks(table, now_ms):  # a game made in play: they run
            events.append(event)
            table = tables.evolve(table, event)
        genesis = fairplay.genesis_hash(game_id)
        try:
            if done is not None and done.first_version == 1:
                result: Appended | Conflict = done
            else:
                await self.store.register_game(game_id, now_ms)  # indexed before it exists
                await self.index_clock(game_id, table, exact=False)
                result = await self.store.append(
                    game_id, 0, genesis, req.command_id,
                    [NewEvent(_tag(e), encode(e)) for e in events], time_ms=now_ms,
                )  # fmt: skip
        except UNKNOWN_OUTCOME as exc:
            return unknown_outcome(exc)
        except StaleCreate as exc:  # nothing appended: a retry looks in the archive again
            return error(ErrorCode.UNAVAILABLE, str(exc))
        if not isinstance(result, Appended):
            return error(ErrorCode.GAME_EXISTS, f"game {game_id} already exists")
        tokens = self.games.tokens(game_id, created.seats)
        if result.duplicate:
            # A retry is answered to its creator only: the public command id is not enough.
            first = await self.games.get(game_id)
            if first is None or not hmac.compare_digest(
                first.table.created.creator_key, req.reply_key
            ):
                reason = f"command {req.command_id} created {game_id} for another key"
                return error(ErrorCode.FORBIDDEN, reason)
        else:
            metrics.GAMES_STARTED.labels(ruleset.name).inc()
            game = Game(table, tokens, result.version, result.hash, result.events[-1].time_ms)
            self.games.remember(game_id, game)
            try:
                await self.index_clock(game_id, table, exact=True)
                await self.publish(game, result, events)
            except (*UNKNOWN_OUTCOME, NATSError) as exc:  # the game exists: answer its creator
                log.warning("after the append", error=repr(exc))
        grants = msgspec.json.encode([SeatGrant(seat=s, token=t) for s, t in enumerate(tokens)])
        signature, index, path = await self.signer.receipt(game_id, result.version, result.hash)
        return Created(game_id=game_id, version=result.version, hash=result.hash,
                       seats=created.seats, key=self.signer.public, signature=signature,
                       index=index, path=path,
                       tokens=seal_to(req.reply_key, f"seats:{game_id}", grants))  # fmt: skip

    async def act(self, req: Act) -> Reply:
        try:
            reply = await self._act(req)
        except CorruptEntry as exc:  # in the log read to decide: named, never "internal"
            reply = corrupt(exc)
        game = self.games.cached.get(req.game_id)
        name = game.table.ruleset.name if game is not None else "unknown"
        metrics.COMMANDS.labels(name, "act", _outcome(reply)).inc()
        return reply

    async def _act(self, req: Act) -> Reply:
        game = await self.games.get(req.game_id)
        if game is None:
            return error(ErrorCode.UNKNOWN_GAME, f"no game {req.game_id}")
        if not 0 <= req.seat < game.table.created.seats:
            return error(ErrorCode.UNKNOWN_SEAT, f"seat {req.seat} is not in this game")
        if not hmac.compare_digest(game.tokens[req.seat], req.token):
            return error(ErrorCode.BAD_TOKEN, f"wrong token for seat {req.seat}")
        async with game.lock:
            await self.finish_if_due(req.game_id, game)
            try:
                return await self._act_locked(req, game)
            except RandomnessUnavailable as exc:
                return error(ErrorCode.NO_DRAW, str(exc))

    async def _act_locked(self, req: Act, game: Game) -> Reply:
        caught_up = False
        if req.expected_version is not None and req.expected_version > game.version:
            caught_up = await self.games.catch_up(req.game_id, game)  # the client saw newer events
        for _attempt in range(MAX_ATTEMPTS):
            decision: Decision | None = self._check(req, game)
            # The decision's time is the events' time: an audit finds the same idle_ms in the log.
            now_ms = int(time.time() * 1000)
            if decision is None:
                idle_ms = now_ms - game.last_ms
                decision = _decide(game, req, [], idle_ms, now_ms)
                draws: list[DrawResult] = []
                while isinstance(decision, NeedDraws):  # every round gets every draw so far
                    draws += await self.randomness.draw(req.game_id, game.table, decision.requests)
                    decision = _decide(game, req, draws, idle_ms, now_ms)
            if isinstance(decision, Rejection):
                # Before refusing, make sure the refusal is not an artefact of a stale cache or
                # of a retry of a command that was already applied.
                if not caught_up:
                    caught_up = True
                    if done := await self.store.command_result(req.game_id, req.command_id):
                        await self.announce_again(game, done)
                        return await self.receipt(req.game_id, done)
                    if await self.games.catch_up(req.game_id, game):
                        continue
                return error(decision.code, decision.reason, decision.clause)
            assert decision is not None
            assert not isinstance(decision, NeedDraws)
            events = list(decision)
            if req.careful and (end := tables.loses_at_once(req.seat, req.action, events)):
                return self._loses(game, req, end)
            if isinstance(decision, Decided):  # the table it leads to, computed by decide
                table = decision.state
            else:
                table = game.table
                for event in events:
                    table = tables.evolve(table, event)
            seal_now = tables.seal_due(table)
            try:
                await self.index_clock(req.game_id, table, exact=False)
                result = await self.store.append(
                    req.game_id, game.version, game.hash, req.command_id,
                    [NewEvent(_tag(e), _store_encoder.encode(e)) for e in events],
                    seal=seal_now, time_ms=now_ms, action=f"{req.seat} {req.action}",
                )  # fmt: skip
            except UNKNOWN_OUTCOME as exc:
                self.games.cached.pop(req.game_id, None)  # its version is unknown: read it again
                return unknown_outcome(exc)
            if not isinstance(result, Appended):  # another replica got there first
                caught_up = True
                await self.games.catch_up(req.game_id, game)
                continue
            if result.duplicate:
                await self.games.catch_up(req.game_id, game)
                await self.announce_again(game, result)
                return await self.receipt(req.game_id, result)
            if seal_now:
                metrics.GAMES_FINISHED.labels(table.ruleset.name).inc()
                sealed = _sealed(result)
                table = tables.evolve(table, sealed)
                events.append(sealed)
            game.table, game.version, game.hash = table, result.version, result.hash
            game.last_ms = result.events[-1].time_ms
            try:
                await self.index_clock(req.game_id, table, exact=True)
                await self.publish(game, result, events)
                await self.finish_if_due(req.game_id, game)
            except (*UNKNOWN_OUTCOME, NATSError) as exc:
                # The command is applied: its receipt stands. What follows the append is
                # caught up later (an unsealed end is finished on the game's next access).
                log.warning("after the append", error=repr(exc))
            return await self.receipt(req.game_id, result)
        return error(ErrorCode.CONFLICT, "the game kept changing; retry")

    def _loses(self, game: Game, req: Act, end: GameEnded) -> Error:
        """A careful action refused: it would lose its seat the game at once, said in the
        ruleset's words ("your Command ship ran out of energy")."""
        created = game.table.created
        lost = words_for(created.ruleset).reason_for(created, req.seat, end.reason).for_loser()
        return error(ErrorCode.LOSES, f"{req.action!r} would lose you the game at once: {lost}")

    def _check(self, req: Act, game: Game) -> Rejection | None:
        if req.expected_version is not None and req.expected_version != game.version:
            return Rejection(
                ErrorCode.CONFLICT,
                f"expected version {req.expected_version}, game is at {game.version}",
            )
        return None

    async def finish_if_due(self, game_id: str, game: Game) -> None:
        """Reveal the seed of a game whose end is in the log and seal it: right after the
        append that ended it, or later if the randomness service was away then (games without
        seeds are sealed in the append that ends them)."""
        if tables.finish_due(game.table):
            await self.finish(game_id, game)

    async def sweep(self) -> None:
        """Finish every game whose end is in its log but which is not sealed (the randomness
        service was away when it ended, or the replica that ended it died), without waiting
        for a visitor. Every replica sweeps (finishing is idempotent: replicas racing append it
        once); the next sweep retries what failed."""
        async for game_id in self.store.unfinished():
            game = await self.games.get(game_id)
            if game is None:
                continue
            async with game.lock:
                await self.games.catch_up(game_id, game)
                await self.finish_if_due(game_id, game)
            if game.table.sealed:  # sealed before the meta recorded it: record it now
                await self.store.redis.hsetnx(meta_key(game_id), "sealed", "1")
            elif game.table.fair is not None:
                log.info("end not yet sealed", game_id=game_id)

    async def index_clock(self, game_id: str, table: tables.Table, exact: bool) -> None:
        """Keep the game's entry in the clocks' index (keys.CLOCKS_DUE), for `flag_due`. Before
        an append, `exact` False, it only ever moves earlier, so an append whose replica dies
        before the exact entry leaves it early, never late: the timer then finds the game early,
        sees no flag yet and puts the exact time in."""
        if table.clocks is None:
            return
        due = table.clocks.due_ms() if tables.outcome(table) is None else None
        if due is not None:
            await self.store.redis.zadd(CLOCKS_DUE, {game_id: due}, lt=not exact)
        elif exact:
            await self.store.redis.zrem(CLOCKS_DUE, game_id)

    async def flag_due(self) -> None:
        """The service's timer: end on time every game whose clock has run out, with nobody
        claiming. Every replica looks (a flag's command id is fixed per game and version, so
        replicas racing here append it once)."""
        now_ms = int(time.time() * 1000)
        due = await self.store.redis.zrangebyscore(CLOCKS_DUE, "-inf", now_ms, start=0, num=100)
        for raw in due:
            game_id = raw.decode()
            with structlog.contextvars.bound_contextvars(game_id=game_id):
                game = await self.games.get(game_id)
                if game is None:  # gone (archived): nothing runs
                    await self.store.redis.zrem(CLOCKS_DUE, game_id)
                    continue
                async with game.lock:
                    await self.games.catch_up(game_id, game)
                    clocks = game.table.clocks
                    flagged = clocks.flagged(int(time.time() * 1000)) if clocks else ()
                    if not flagged or tables.outcome(game.table) is not None:
                        await self.index_clock(game_id, game.table, exact=True)
                        continue
                    # Recorded as the claim of a seat kept waiting (the flagged one's if none).
                    seat = min(set(range(game.table.created.seats)) - set(flagged),
                               default=flagged[0])  # fmt: skip
                    flag = Act(
                        game_id=game_id,
                        seat=seat,
                        token=game.tokens[seat],
                        command_id=self.flag_id(game_id, game.version),
                        action="flag",
                    )
                    reply = await self._act_locked(flag, game)
                log.info("flagged", seats=list(flagged), reply=type(reply).__name__)

    def flag_id(self, game_id: str, version: int) -> str:
        """The command id of the timer's flag at a game's version: the same on every replica
        (so racing replicas append it once), unguessable like the finish's."""
        return "flag:" + hmac.new(self.secret, f"flag:{game_id}:{version}".encode(),
                                  hashlib.sha256).hexdigest()[:32]  # fmt: skip

    def finish_id(self, game_id: str) -> str:
        """The command id of a game's finish: the same on every replica (so racing replicas
        append it once) and unguessable (a player's command under it would pass for the
        finish, and the game would never be sealed)."""
        return "finish:" + hmac.new(self.secret, f"finish:{game_id}".encode(),
                                    hashlib.sha256).hexdigest()[:32]  # fmt: skip

    async def finish(self, game_id: str, game: Game) -> None:
        """Reveal the seed of a game whose end is in the log, then seal it (idempotent: the
        command id is fixed, so replicas racing here append it once)."""
        try:
            seed = await self.randomness.reveal(game_id)
        except RandomnessUnavailable as exc:  # the sweep or the next access tries again
            log.warning("seed reveal postponed", error=str(exc))
            return
        event = SeedRevealed(server_seed=seed)
        result = await self.store.append(
            game_id, game.version, game.hash, self.finish_id(game_id),
            [NewEvent(_tag(event), encode(event))],
            seal=tables.seal_due(tables.evolve(game.table, event)),
        )  # fmt: skip
        if not isinstance(result, Appended) or result.duplicate:
            await self.games.catch_up(game_id, game)
            return
        metrics.GAMES_FINISHED.labels(game.table.ruleset.name).inc()
        sealed = _sealed(result)
        game.table = tables.evolve(tables.evolve(game.table, event), sealed)
        game.version, game.hash, game.last_ms = (
            result.version,
            result.hash,
            result.events[-1].time_ms,
        )
        await self.publish(game, result, [event, sealed])

    async def forget(self, req: ForgetGames) -> Reply:
        """Remove archived games' keys from Valkey (the archiver asks, once its copies are
        committed): each only if the archive's copy is the keys' exactly (every entry's stored
        bytes, every command id) and the game is sealed at that head, which forget.lua checks
        again as it removes them. Idempotent: a game removed before is Forgotten again."""
        if self.store.archive is None:
            return error(ErrorCode.NOT_ARCHIVED, "no game is removed: this rules service reads "
                         "no archive (DATABASE_URL)")  # fmt: skip
        copies = await self.store.archive.exact([g.game_id for g in req.games])
        outcomes = await asyncio.gather(*(self._forget(g, copies.get(g.game_id))
                                          for g in req.games))  # fmt: skip
        removed = sum(isinstance(o, Forgotten) for o in outcomes)
        log.info("removed from the hot store", games=removed, refused=len(outcomes) - removed)
        return ForgottenGames(outcomes=list(outcomes))

    async def _forget(self, req: Forget, archived: Exact | None) -> Forgotten | Error:
        with structlog.contextvars.bound_contextvars(game_id=req.game_id):
            if archived is None:
                return error(
                    ErrorCode.NOT_ARCHIVED,
                    f"game {req.game_id} is not removed: the archive does not hold it",
                )
            if (archived.head_version, archived.head_hash) != (req.version, req.hash):
                return error(ErrorCode.NOT_ARCHIVED, f"the archive holds game {req.game_id} at "
                             f"version {archived.head_version}, not {req.version}")  # fmt: skip
            entries, meta, commands = await read_raw(self.store.redis, req.game_id)
            if meta and b"archived" not in meta:
                if meta.get(b"sealed") != b"1":
                    return error(ErrorCode.IN_PLAY, f"game {req.game_id} is not sealed")
                if (archived.entries, archived.commands) != (entries, commands):
                    log.error("FORGET REFUSED: the archive's copy is not the hot keys'")
                    return error(ErrorCode.NOT_ARCHIVED, f"the archive's copy of {req.game_id} "
                                 "is not the store's: its keys stay")  # fmt: skip
            outcome = await self.store.forget(req.game_id, req.version, req.hash)
            if outcome == "in-play":
                return error(ErrorCode.IN_PLAY, f"game {req.game_id} is not sealed")
            if outcome not in ("forgotten", "gone"):  # "moved": not the keys compared
                return error(
                    ErrorCode.NOT_ARCHIVED,
                    f"game {req.game_id}'s keys changed while compared: {outcome}",
                )
            # Then the randomness service's keys, then the index: a removal that stops before
            # the end is answered with an error, and the archiver's next Forget (the game still
            # indexed, its meta a tombstone) finishes it. With no meta at all (its tombstone
            # lapsed) the randomness service cannot tell the game archived.
            first = parse_entry(req.game_id, *archived.entries[0])
            if created_event(first).randomness and meta:
                try:
                    await self.randomness.forget(req.game_id)
                except RandomnessUnavailable as exc:
                    return error(ErrorCode.UNAVAILABLE, f"game {req.game_id}'s keys are "
                                 f"removed, its seed and draws not yet: {exc}")  # fmt: skip
            await self.store.unindex(req.game_id)
            return Forgotten(game_id=req.game_id, version=req.version)

    async def read(self, req: ReadEvents) -> Reply:
        try:
            return await self._read(req)
        except CorruptEntry as exc:
            return corrupt(exc)

    async def _read(self, req: ReadEvents) -> Reply:
        game = await self.games.get(req.game_id)
        if game is None:
            return error(ErrorCode.UNKNOWN_GAME, f"no game {req.game_id}")
        if req.seat is not None and not (
            0 <= req.seat < len(game.tokens)
            and hmac.compare_digest(game.tokens[req.seat], req.token)
        ):
            return error(ErrorCode.BAD_TOKEN, f"wrong token for seat {req.seat}")
        stored = await self.store.read(req.game_id, req.after, max(1, min(req.limit, 1000)))
        head = await self.store.head(req.game_id)
        assert head is not None
        ruleset = game.table.ruleset.name
        public: list[StoredEvent] = []
        sealed: list[SealedEvent] = []
        size = 0
        for s in stored:
            shown, audience = self.project(game, s, decode_event(s, ruleset))
            box = None
            if req.seat is not None and req.seat in audience:
                box = self.sealed_for(game, req.seat, s)
            size += _json_bound(shown) + (2 * _json_bound(s) if box is not None else 0)
            if public and size > READ_REPLY_BYTES:  # the rest is the next page
                break
            public.append(shown)
            if box is not None:
                sealed.append(box)
        return Events(game_id=req.game_id, events=public, head=head.version, sealed=sealed)

    async def view(self, req: GetView) -> Reply:
        """The game as a seat (with its token) or a spectator sees it: now, with the seat's
        legal actions; or, with `at`, as it stood after event `at`, folded from the log and
        shown exactly as the view then showed it, without legal actions (a replay)."""
        try:
            return await self._view_of(req)
        except CorruptEntry as exc:
            return corrupt(exc)

    async def _view_of(self, req: GetView) -> Reply:
        game = await self.games.get(req.game_id)
        if game is None:
            return error(ErrorCode.UNKNOWN_GAME, f"no game {req.game_id}")
        if req.seat is not None and not (
            0 <= req.seat < len(game.tokens)
            and hmac.compare_digest(game.tokens[req.seat], req.token)
        ):
            return error(ErrorCode.BAD_TOKEN, f"wrong token for seat {req.seat}")
        async with game.lock:  # another replica may have moved the game on: read to the head
            await self.games.catch_up(req.game_id, game)
            await self.finish_if_due(req.game_id, game)
        if req.at is not None and req.at != game.version:
            if not 1 <= req.at < game.version:
                return error(ErrorCode.MALFORMED, f"no version {req.at} in game {req.game_id}: "
                             f"its events are 1 to {game.version}")  # fmt: skip
            table, event = await self.games.past(req.game_id, req.at)
            return self._view(req, table, req.at, event.time_ms, legal=False)
        return self._view(req, game.table, game.version, game.last_ms, legal=True)

    def _view(self, req: GetView, table: tables.Table, version: int, last_ms: int,
              legal: bool) -> View:  # fmt: skip
        """`table` (the game at `version`) as the asking seat or a spectator sees it; a seat's
        legal actions only when `legal` (the game now). While a game with hidden information is
        in play (at that version) the seat's board and actions come sealed to its token."""
        rs = table.ruleset
        actions: list[str] = []
        if legal and req.seat is not None and tables.phase(table) == "play":
            actions = [rs.format_action(table.game, a)
                       for a in rs.legal_actions(table.game, req.seat)]  # fmt: skip
        outcome = tables.outcome(table)
        board = rs.view(table.game, req.seat)
        nonce = box = board_nonce = board_box = ""
        hidden = table.created.randomness or table.created.hidden_setup
        if hidden and outcome is None and req.seat is not None:
            if actions:
                nonce, box = seal_bytes(req.token, req.game_id, req.seat, version, "legal",
                                        msgspec.json.encode(actions))  # fmt: skip
                actions = []
            board_nonce, board_box = seal_bytes(req.token, req.game_id, req.seat, version,
                                                "board", msgspec.json.encode(board))  # fmt: skip
            board = {}
        return View(
            game_id=req.game_id, version=version, ruleset=rs.name,
            variant=table.created.variant, seat=req.seat, to_act=sorted(tables.to_act(table)),
            position=rs.position(table.game), legal=actions, phase=tables.phase(table),
            result=outcome.result if outcome else "", reason=outcome.reason if outcome else "",
            winners=list(outcome.winners) if outcome else [],
            legal_nonce=nonce, legal_box=box, board=board, board_nonce=board_nonce,
            board_box=board_box, last_event_ms=last_ms,
            move_deadline_ms=table.created.move_deadline_ms, clock=_clock_view(table),
        )  # fmt: skip

    def project(self, game: Game, stored: StoredEvent, event: Event
                ) -> tuple[StoredEvent, tuple[int, ...]]:  # fmt: skip
        """The public form of a stored event now, and the seats that may see all of it.

        In a game with hidden information the recorded action stays with its seat until the
        end: what a seat typed may say more than the events show the others."""
        table = game.table
        if (
            stored.action
            and (table.created.randomness or table.created.hidden_setup)
            and (tables.outcome(table) is None)
        ):
            stored = msgspec.structs.replace(stored, action="")
        shown = tables.visible(table, event, None)
        if shown is event:
            return stored, ()
        audience = tables.audience(event)
        body = msgspec.Raw(encode(shown)) if shown is not None else msgspec.Raw(b"null")
        return (msgspec.structs.replace(stored, body=body, redacted=True,
                                        audience=list(audience)), audience)  # fmt: skip

    def sealed_for(self, game: Game, seat: int, stored: StoredEvent) -> SealedEvent:
        """The whole stored event, sealed to `seat`; the action only if it was that seat's."""
        if stored.action and not stored.action.startswith(f"{seat} "):
            stored = msgspec.structs.replace(stored, action="")
        return seal(game.tokens[seat], seat, stored)

    async def announce_again(self, game: Game, done: Appended) -> None:
        """A retry found its command applied: the first attempt may have died before its
        notices went out, so send them (again) from the log. Subscribers drop duplicates."""
        game_id = game.table.game_id
        count = done.version - done.first_version + 1
        stored = await self.store.read(game_id, done.first_version - 1, count)
        dec = event_decoder(game.table.ruleset.name)
        events = [dec.decode(s.body) for s in stored]
        again = Appended(done.first_version, done.version, done.hash, events=tuple(stored))
        try:
            await self.publish(game, again, events)
        except NATSError as exc:  # the receipt stands; watchers read the log when it is quiet
            log.warning("announcing again failed", error=repr(exc))

    async def publish(self, game: Game, result: Appended, events: Sequence[Event]) -> None:
        """Notify subscribers: the public form on the game's subject, and each seat's private
        events sealed to it on its own subject. The record is the log; a lost notice is caught
        up by version."""
        game_id = game.table.game_id
        subject = subjects.game_events(game_id)
        for stored, event in zip(result.events, events, strict=True):
            shown, audience = self.project(game, stored, event)
            await self.nc.publish(subject, encode(shown))
            if stored.type == "GameSealed":
                await self.nc.publish(subjects.game_sealed(game_id), encode(shown))
            for seat in audience:
                box = self.sealed_for(game, seat, stored)
                await self.nc.publish(subjects.seat_events(game_id, seat), encode(box))


def _json_bound(stored: StoredEvent) -> int:
    """At least the length of a stored event's JSON (its body, command id and action, and the
    fixed fields): a read's page is cut without encoding each event twice. A sealed copy is
    bounded by twice its event's (base64 of the whole event, and its box)."""
    return len(stored.body) + len(stored.command_id) + len(stored.action) + 512


def _sealed(result: Appended) -> GameSealed:
    """The GameSealed event the store appended last in `result`."""
    return msgspec.json.decode(result.events[-1].body, type=GameSealed)
