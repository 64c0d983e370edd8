"""The lobby: the rulesets on offer, open challenges, and the tables the gateway made.

A challenge names a ruleset, a variant (checked by the ruleset itself, stored in its canonical
form) and, optionally, a starting position; its challenger takes a seat, and others take the
rest, each seat claimed once (HSETNX). The player who fills the last seat starts the game: one
create with a command id derived from the challenge, so a retry, or a second gateway replica
that also saw the challenge full, makes the same game at most once. The seat tokens come sealed
to the gateway and stay in the store under the gateway's own keys; they never leave it.
"""

import asyncio
import contextlib
import secrets
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, cast

import msgspec
import psycopg
import redis.asyncio as aioredis
import structlog

from contracts.commands import Clock
from contracts.errors import ErrorCode
from domain.core.variant import describe
from domain.registry import RULESETS, find_ruleset
from domain.search import levels
from services.client.client import Client, TabulaError
from services.gateway.people import Player, refuse, text
from services.gateway.results import result_words, spectator_words
from services.runtime import keys
from services.runtime.database import connected

log = structlog.get_logger()
LISTED = 100  # open challenges and recent games the lobby lists
# One player may not fill the lobby: a few open challenges each, each lapsing after a while
# (its keys' TTL; the listing drops what has lapsed), and only a few each in the listing.
OPEN_PER_PLAYER = 5
CHALLENGE_TTL_S = 3600
LISTED_PER_CHALLENGER = 3
SCANNED = 10 * LISTED  # open challenges looked at for one listing, newest first
BOT_LEVEL = 3  # the house bot's level when the person asks for none (domain.search.levels)
# One person may not take every house bot and keep it: a few games at once, each with a time
# per move (the bot claims the game once the person's time has run out).
BOT_GAMES_PER_PLAYER = 3
BOT_MOVE_DEADLINE_MS = 300_000  # 5 minutes a move, when the person asks for none
PENDING_MS = 60_000  # a place held while a game is made lapses after this
TABLES_KEPT = 10_000


def bot_player(level: int) -> str:
    """The player id of the house bot of `level`: each level has its rating. (No person's id
    starts so: a guest's starts with g, an account's with a; "bot" alone was the one house
    bot's before levels.)"""
    return f"bot{level}"


def is_bot(player: str) -> bool:
    return player == "bot" or (player.startswith("bot") and player[3:].isdigit())


def bot_name(level: int) -> str:
    return f"Bot, level {level} ({levels.level(level).name})"


class Invited(msgspec.Struct, frozen=True, kw_only=True):
    """A player a private challenge is for (issue 23), and the seat kept for them: a rematch's
    rotated seat, else None (any free one)."""

    player: str
    name: str
    seat: int | None = None


class Challenge(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    ruleset: str
    variant: str  # canonical
    position: str = ""
    move_deadline_ms: int = 0  # time per move (0: none); a waiting seat claims past it
    clock: Clock | None = None  # real-time clocks (docs/clocks.md)
    rated: bool = False  # for the players' ratings: accounts only
    seats: int
    by: str  # the challenger's player id
    created_ms: int
    # A private challenge (issue 23): for these players alone, never in the public listing.
    invited: list[Invited] = []
    rematch_of: str = ""  # the game a rematch follows (services/gateway/rematch.py)

    def invitation(self, player: str) -> Invited | None:
        return next((i for i in self.invited if i.player == player), None)


class Seated(msgspec.Struct, frozen=True):
    """A player at a seat, as others see it."""

    seat: int
    player: str
    name: str


class Opened(msgspec.Struct, frozen=True, kw_only=True):
    """A challenge as the lobby shows it: who sits where so far, and its game once made."""

    challenge: Challenge
    seated: list[Seated]
    game_id: str = ""
    declined: str = ""  # a private challenge: the name of who declined (or withdrew) it


class Table(msgspec.Struct, frozen=True, kw_only=True):
    """A game the gateway seated players in: who sits where (those it knows: a matchmade game
    may seat players who came another way), and (for the gateway alone) their tokens."""

    game_id: str
    seated: list[Seated]
    tokens: dict[int, str]

    def seat_of(self, player: str) -> int | None:
        return next((s.seat for s in self.seated if s.player == player), None)


class Listed(msgspec.Struct, frozen=True, kw_only=True):
    """A game as the lobby lists it. From the read model (PostgreSQL's `games`, projected from
    the logs): its ruleset, variant, times, result and who sits where (the names the gateway
    seated, else the log's player ids); from the gateway's own lists when it has no read
    model: its id and seats alone."""

    game_id: str
    ruleset: str = ""
    variant: str = ""
    created_ms: int = 0
    ended_ms: int | None = None
    result: str | None = None
    reason: str | None = None
    seat: int | None = None  # the player's own, in its games
    seated: list[Seated] = []
    words: str | None = (
        None  # the result in words: the player's ("Won by checkmate"), else anyone's
    )


def _listed(row: tuple[Any, ...], names: dict[tuple[str, int], Seated]) -> Listed:
    """A read-model row (lobby's _LISTED and the seat) as listed, its result in words."""
    game_id, ruleset, variant, players, created, ended, result, reason, winners, seat = row
    seated = [names.get((game_id, i)) or Seated(i, p, p) for i, p in enumerate(players)]
    if seat is None:
        words = spectator_words(ruleset, result, reason, winners, [s.name for s in seated])
    else:
        words = result_words(ruleset, seat, winners, result, reason)
    return Listed(game_id=game_id, ruleset=ruleset, variant=variant,
                  created_ms=_ms(created) or 0, ended_ms=_ms(ended), result=result,
                  reason=reason, seat=seat, seated=seated, words=words)  # fmt: skip


def _ms(at: datetime | None) -> int | None:
    return None if at is None else int(at.timestamp() * 1000)


_LISTED = ("g.game_id, g.ruleset, g.variant, g.players, g.created_at, g.ended_at, g.result, "
           "g.reason, g.winners")  # fmt: skip
_NEWEST = f"SELECT {_LISTED}, NULL FROM games g ORDER BY g.created_at DESC, g.game_id LIMIT %s"
_MINE = (f"SELECT {_LISTED}, p.seat FROM player_games p JOIN games g USING (game_id) "
         "WHERE p.player = %s ORDER BY p.created_at DESC, p.game_id LIMIT %s")  # fmt: skip


class ReadModel:
    """The read model, as the gateway's role reads it (SELECT only), on one connection made
    again after a failure."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.conn: psycopg.AsyncConnection[Any] | None = None
        self.lock = asyncio.Lock()  # one query at a time on the connection, one connection

    async def games(self, player: str | None) -> list[tuple[Any, ...]]:
        """The newest games, or the player's newest first: a row per game (and seat)."""
        query, args = (_MINE, (player, LISTED)) if player else (_NEWEST, (LISTED,))
        return await self.rows(query, args)

    async def rows(
        self, query: str, args: Sequence[Any] | Mapping[str, Any]
    ) -> list[tuple[Any, ...]]:
        """A parameterised query's rows (the lobby's, and services/gateway/players.py's)."""
        async with self.lock:
            self.conn = await connected(self.conn, self.url, autocommit=True, connect_timeout=5)
            cur = await self.conn.execute(query, args)
            return [tuple(r) for r in await cur.fetchall()]

    async def ping(self) -> None:
        """`SELECT 1` on the connection (readiness, /readyz): raises when PostgreSQL does not
        answer. The caller bounds the wait."""
        async with self.lock:
            try:
                self.conn = await connected(self.conn, self.url, autocommit=True,
                                            connect_timeout=5)  # fmt: skip
                await self.conn.execute("SELECT 1")
            except BaseException:
                # A query cut short (the caller's timeout) may leave the connection in the
                # middle of a command: the next use makes a new one.
                if self.conn is not None:
                    await self.conn.close()
                    self.conn = None
                raise

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()


def rulesets() -> list[dict[str, Any]]:
    """Every registered ruleset with its variants and parameters (from the ruleset's own
    declaration) and the seats of its default variant and of each named one."""
    out = []
    for name, rs in sorted(RULESETS.items()):
        described = describe(rs.variants)
        for named in described["variants"]:
            named["seats"] = rs.create(named["name"]).seats
        out.append({"name": name, "seats": rs.create("").seats, "variants": described})
    return out


class Lobby:
    def __init__(self, redis: "aioredis.Redis", client: Client,
                 challenge_ttl_s: int = CHALLENGE_TTL_S,
                 database_url: str = "") -> None:  # fmt: skip
        self.redis = redis
        self.client = client
        self.challenge_ttl_s = challenge_ttl_s
        # The read model (DATABASE_URL, the gateway's role) lists games; without one, the
        # games the gateway made (its own sorted sets) are listed.
        self.read_model = ReadModel(database_url) if database_url else None
        # A table never changes once every seat is recorded: kept here after the first such
        # read (the newest TABLES_KEPT), one store round trip less on every action.
        self.tables: OrderedDict[str, Table] = OrderedDict()

    async def open(self, player: Player, ruleset: str, variant: str, position: str, seat: int,
                   move_deadline_ms: int = 0, clock: Clock | None = None,
                   rated: bool = False, opponent: Player | None = None) -> Opened:  # fmt: skip
        """Open a challenge: public, or (`opponent`) for that player alone."""
        created = find_ruleset(ruleset).create(variant, position)  # VariantError: typed
        if rated:
            _rated_needs_an_account(player)
        invited = [] if opponent is None else [_invite(player, opponent, created.seats)]
        if clock is not None and not clock.base_ms and not clock.increment_ms:
            raise refuse(ErrorCode.MALFORMED, "a clock of no time at all: give base_ms or "
                         "increment_ms")  # fmt: skip
        if not 0 <= seat < created.seats:
            raise refuse(ErrorCode.UNKNOWN_SEAT, f"{ruleset} seats 0 to {created.seats - 1}")
        challenge = Challenge(id=secrets.token_hex(8), ruleset=ruleset, variant=created.variant,
                              position=position, seats=created.seats, by=player.id,
                              move_deadline_ms=move_deadline_ms, clock=clock, rated=rated,
                              created_ms=int(time.time() * 1000), invited=invited)  # fmt: skip
        await self.put(challenge, Seated(seat, player.id, player.name))
        # Counted after it is added, so that two opened at once cannot both take the last place.
        mine = keys.player_challenges_key(player.id)
        await self.redis.zadd(mine, {challenge.id: challenge.created_ms})
        await self.redis.expire(mine, self.challenge_ttl_s)
        if await self._open_by(mine) > OPEN_PER_PLAYER:
            await self.redis.zrem(mine, challenge.id)
            await self.redis.delete(keys.challenge_key(challenge.id),
                                    keys.challenge_seats_key(challenge.id))  # fmt: skip
            raise refuse(ErrorCode.RATE_LIMITED, f"at most {OPEN_PER_PLAYER} open challenges at "
                         "once: withdraw one, or wait for one to be taken or to lapse")  # fmt: skip
        await self.index(challenge)
        return await self.show(challenge.id)

    async def put(self, challenge: Challenge, seated: Seated) -> bool:
        """Record a challenge and its challenger's seat, each lapsing after the challenge TTL.
        False, and nothing written, when a challenge of that id is recorded already (HSETNX: a
        rematch's id comes from its game, so two players offering at once make one offer)."""
        ttl = self.challenge_ttl_s
        spec_key = keys.challenge_key(challenge.id)
        seats_key = keys.challenge_seats_key(challenge.id)
        if not await self.redis.hsetnx(spec_key, "spec", msgspec.json.encode(challenge)):
            return False
        await self.redis.expire(spec_key, ttl)
        await self.redis.hset(seats_key, str(seated.seat), msgspec.json.encode(seated))
        await self.redis.expire(seats_key, ttl)
        return True

    async def index(self, challenge: Challenge) -> None:
        """List a challenge: in the public listing, or (a private one) in the invitations of
        each player it is for, which lapse with it."""
        if not challenge.invited:
            await self.redis.zadd(keys.CHALLENGES, {challenge.id: challenge.created_ms})
            return
        for invited in challenge.invited:
            theirs = keys.player_invitations_key(invited.player)
            await self.redis.zadd(theirs, {challenge.id: challenge.created_ms})
            await self.redis.expire(theirs, self.challenge_ttl_s)

    async def _open_by(self, mine: str) -> int:
        """How many of a player's challenges are still open; those lapsed are dropped."""
        ids = [text(m) for m in await self.redis.zrange(mine, 0, -1)]
        async with self.redis.pipeline(transaction=False) as pipe:
            for cid in ids:
                pipe.exists(keys.challenge_key(cid))
            alive = await pipe.execute()
        lapsed = [cid for cid, here in zip(ids, alive, strict=True) if not here]
        if lapsed:
            await self.redis.zrem(mine, *lapsed)
        return len(ids) - len(lapsed)

    async def show(self, challenge_id: str) -> Opened:
        raw = await self._hash(keys.challenge_key(challenge_id))
        if "spec" not in raw:
            raise refuse(ErrorCode.UNKNOWN_CHALLENGE, f"no challenge {challenge_id}")
        challenge = msgspec.json.decode(raw["spec"], type=Challenge)
        seats = await self._hash(keys.challenge_seats_key(challenge_id))
        seated = sorted((msgspec.json.decode(v, type=Seated) for v in seats.values()),
                        key=lambda s: s.seat)  # fmt: skip
        game = raw.get("game", b"").decode()
        started = game not in ("starting", "withdrawn", "declined")  # HSETNX "game"'s markers
        return Opened(challenge=challenge, seated=seated, game_id=game if started else "",
                      declined=raw.get("declined", b"").decode())  # fmt: skip

    async def challenges(self) -> list[Opened]:
        """The newest open challenges, at most LISTED, and LISTED_PER_CHALLENGER of any one
        challenger's. Those lapsed (their keys expired) leave the index as they are met."""
        cutoff = int(time.time() * 1000) - self.challenge_ttl_s * 1000
        lapsed = await self.redis.zrange(keys.CHALLENGES, 0, cutoff, byscore=True, offset=0,
                                         num=SCANNED)  # fmt: skip
        if lapsed:
            await self.redis.zrem(keys.CHALLENGES, *lapsed)
        out: list[Opened] = []
        per_challenger: dict[str, int] = {}
        start, scanned = 0, 0
        while scanned < SCANNED:
            ids = [text(m) for m in await self.redis.zrevrange(keys.CHALLENGES, start,
                                                                start + LISTED - 1)]  # fmt: skip
            async with self.redis.pipeline(transaction=False) as pipe:
                for cid in ids:
                    pipe.hget(keys.challenge_key(cid), "spec")
                specs = await pipe.execute()
            gone = [cid for cid, spec in zip(ids, specs, strict=True) if spec is None]
            if gone:
                await self.redis.zrem(keys.CHALLENGES, *gone)
            for raw in specs:
                spec = None if raw is None else msgspec.json.decode(raw, type=Challenge)
                if spec is None or per_challenger.get(spec.by, 0) >= LISTED_PER_CHALLENGER:
                    continue
                try:
                    out.append(await self.show(spec.id))
                except TabulaError:  # withdrawn or started meanwhile
                    continue
                per_challenger[spec.by] = per_challenger.get(spec.by, 0) + 1
                if len(out) == LISTED:
                    return out
            if len(ids) < LISTED:
                break
            start += len(ids) - len(gone)  # those dropped moved the rest up
            scanned += len(ids)
        return out

    async def accept(self, player: Player, challenge_id: str, seat: int | None) -> Opened:
        """Take a seat (the given one, else the first free); the last seat starts the game. A
        private challenge seats only the players it is for, each at its kept seat if it has one."""
        opened = await self.show(challenge_id)
        spec = opened.challenge
        if opened.declined:
            raise refuse(ErrorCode.CONFLICT, f"{opened.declined} declined this challenge")
        mine = any(s.player == player.id for s in opened.seated)
        if not mine:
            seat = _invited_seat(spec, player, seat)
            if spec.rated:
                _rated_needs_an_account(player)
            free = sorted(set(range(spec.seats)) - {s.seat for s in opened.seated})
            if not free:
                raise refuse(ErrorCode.CONFLICT, "every seat of this challenge is taken")
            if seat is not None and not 0 <= seat < spec.seats:
                raise refuse(ErrorCode.UNKNOWN_SEAT, f"seats are 0 to {spec.seats - 1}")
            # Asked for none: each free seat in turn, so two people accepting at once both sit.
            for chosen in free if seat is None else [seat]:
                sitting = msgspec.json.encode(Seated(chosen, player.id, player.name))
                seats = keys.challenge_seats_key(challenge_id)
                if await self.redis.hsetnx(seats, str(chosen), sitting):
                    break
            else:
                raise refuse(ErrorCode.CONFLICT, "every seat of this challenge is taken"
                             if seat is None else f"seat {seat} is taken")  # fmt: skip
            opened = await self.show(challenge_id)
        return await self.start_if_full(opened)

    async def start_if_full(self, opened: Opened) -> Opened:
        """Start the game once every seat is taken (whoever sees it full first: `_start` makes
        it once)."""
        if len(opened.seated) == opened.challenge.seats and not opened.game_id:
            return await self._start(opened)
        return opened

    async def _start(self, opened: Opened) -> Opened:
        spec = opened.challenge
        key = keys.challenge_key(spec.id)
        if not await self.redis.hsetnx(key, "game", "starting"):
            return opened  # another request is starting it
        try:
            game = await self.client.create_game(
                spec.ruleset,
                spec.variant,
                # The players' ids (the read model lists each one's games by them); their
                # names stay the gateway's (its tables), shown beside them.
                players=[s.player for s in opened.seated],
                position=spec.position,
                # A rematch's id is its game's: the time it was offered tells a later offer's
                # game from an earlier one's (whose challenge has lapsed).
                command_id=f"challenge-{spec.id}"
                + (f"-{spec.created_ms}" if spec.rematch_of else ""),
                move_deadline_ms=spec.move_deadline_ms,
                clock=spec.clock,
                rated=spec.rated,
            )
        except BaseException:
            await self.redis.hdel(key, "game")  # the next accept (or a retry) starts it again
            raise
        people = [Player(s.player, s.name) for s in opened.seated]
        await self.seat(game.game_id, spec.seats, opened.seated,
                        {g.seat: g.token for g in game.seats}, people)  # fmt: skip
        await self.redis.hset(key, "game", game.game_id)
        # Shown with its game for a while more: the players are told it by its page.
        await self.redis.expire(key, self.challenge_ttl_s)
        await self.redis.expire(keys.challenge_seats_key(spec.id), self.challenge_ttl_s)
        await self.redis.zrem(keys.CHALLENGES, spec.id)
        await self.redis.zrem(keys.player_challenges_key(spec.by), spec.id)
        await self._uninvite(spec)
        return msgspec.structs.replace(opened, game_id=game.game_id)

    async def _uninvite(self, spec: Challenge) -> None:
        for invited in spec.invited:
            await self.redis.zrem(keys.player_invitations_key(invited.player), spec.id)

    async def invitations(self, player: Player) -> list[Opened]:
        """The private challenges for this player still open, newest first (at most LISTED).
        Those lapsed, started or declined leave its index as they are met."""
        return await self._private(keys.player_invitations_key(player.id))

    async def sent(self, player: Player) -> list[Opened]:
        """The private challenges this player opened, still open, newest first."""
        return await self._private(keys.player_challenges_key(player.id), prune=False)

    async def _private(self, index: str, prune: bool = True) -> list[Opened]:
        out = []
        for cid in await self._newest(index):
            try:
                opened = await self.show(cid)
            except TabulaError:  # lapsed or withdrawn
                opened = None
            if opened is None or opened.game_id or opened.declined:
                if prune:  # (the challenger's index is its cap's, which prunes itself)
                    await self.redis.zrem(index, cid)
                continue
            if opened.challenge.invited:
                out.append(opened)
        return out

    async def against_bots(self, player: Player, ruleset: str, variant: str, position: str,
                           seat: int, move_deadline_ms: int = 0, rated: bool = False,
                           level: int = BOT_LEVEL,
                           clock: Clock | None = None) -> Table:  # fmt: skip
        """A game with the player at `seat` and a house bot of `level` at every other seat,
        with a time per move (BOT_MOVE_DEADLINE_MS unless asked) or a clock, at most
        BOT_GAMES_PER_PLAYER unfinished at once per player. Each bot seat is recorded to be
        handed to the bots service (see BotDesk), which the caller asks (the returned table
        holds the bots' tokens). Rated (an account's two-seat game: one player in several
        seats is never rated), each level has a rating of its own, as its player id."""
        created = find_ruleset(ruleset).create(variant, position)  # VariantError: typed
        if rated:
            _rated_needs_an_account(player)
        if not 0 <= seat < created.seats:
            raise refuse(ErrorCode.UNKNOWN_SEAT, f"{ruleset} seats 0 to {created.seats - 1}")
        seated = [Seated(s, player.id, player.name) if s == seat
                  else Seated(s, bot_player(level), bot_name(level))
                  for s in range(created.seats)]  # fmt: skip
        mine = keys.player_bot_games_key(player.id)
        # A place held while the game is made, counted by any concurrent request: two at once
        # cannot both take the last place. A gateway dying here leaves it to lapse.
        pending = f"pending:{secrets.token_hex(8)}"
        await self.redis.zadd(mine, {pending: int(time.time() * 1000)})
        try:
            await self._check_bot_cap(mine, pending)
            game = await self.client.create_game(
                ruleset, variant, players=[s.player for s in seated], position=position,
                move_deadline_ms=0 if clock else move_deadline_ms or BOT_MOVE_DEADLINE_MS,
                clock=clock, rated=rated)  # fmt: skip
            await self.seat(game.game_id, created.seats, seated,
                            {g.seat: g.token for g in game.seats}, [player])  # fmt: skip
            await self.bots_to_hand(game.game_id, {s.seat: level for s in seated
                                                   if s.player != player.id})  # fmt: skip
            await self.redis.zadd(mine, {game.game_id: int(time.time() * 1000)})
        finally:
            await self.redis.zrem(mine, pending)
        table = await self.table(game.game_id)
        assert table is not None
        return table

    async def _check_bot_cap(self, mine: str, pending: str) -> None:
        """Refuse a game against the house beyond the player's cap."""
        if not await self.may_play_bots(mine, pending):
            raise refuse(ErrorCode.RATE_LIMITED, f"at most {BOT_GAMES_PER_PLAYER} unfinished "
                         "games against the house at once: finish one first")  # fmt: skip

    async def may_play_bots(self, mine: str, pending: str = "") -> bool:
        """Whether the player (`mine`: its key of games against the house) is under its cap
        of those games, `pending` aside. Games counted that have ended meanwhile (their bots
        not yet done: a gateway away) are asked after and let go."""
        now = int(time.time() * 1000)
        held = []
        scored = await self.redis.zrange(mine, 0, -1, withscores=True)
        for raw, score in cast(list[tuple[bytes, float]], scored):
            member = text(raw)
            if member == pending:
                continue
            if member.startswith("pending:") and now - score > PENDING_MS:
                await self.redis.zrem(mine, member)  # its request died long ago
                continue
            held.append(member)
        if len(held) < BOT_GAMES_PER_PLAYER:
            return True
        for game_id in list(held):
            if not game_id.startswith("pending:") and (await self.client.view(game_id)).result:
                await self.redis.zrem(mine, game_id)
                held.remove(game_id)
        return len(held) < BOT_GAMES_PER_PLAYER

    async def bots_to_hand(self, game_id: str, levels: dict[int, int]) -> None:
        """Record bot seats (seat -> level) to be handed to the bots service (BotDesk)."""
        fields = {str(seat): str(lv) for seat, lv in levels.items()}
        await self.redis.hset(keys.house_bot_key(game_id), mapping=fields)  # type: ignore[arg-type]
        now = int(time.time() * 1000)
        await self.redis.zadd(keys.HOUSE_BOT_SEATS, {f"{game_id} {seat}": now for seat in levels})

    async def bot_seats(self) -> list[tuple[str, int]]:
        """Every house-bot seat not yet handed to the bots service, oldest first."""
        out = []
        for raw in await self.redis.zrange(keys.HOUSE_BOT_SEATS, 0, -1):
            game_id, _, seat = text(raw).partition(" ")
            out.append((game_id, int(seat)))
        return out

    async def bot_level(self, game_id: str, seat: int) -> int | None:
        raw = await self.redis.hget(keys.house_bot_key(game_id), str(seat))
        return None if raw is None else int(text(raw))

    async def bot_handed(self, game_id: str, seat: int) -> None:
        """The bots service has the seat: nothing left here to hand over."""
        await self.redis.zrem(keys.HOUSE_BOT_SEATS, f"{game_id} {seat}")
        await self.redis.hdel(keys.house_bot_key(game_id), str(seat))  # the last field: the key

    async def seat(self, game_id: str, seats: int, seated: list[Seated], tokens: dict[int, str],
                   people: list[Player]) -> None:  # fmt: skip
        """Record who sits where in a game of `seats` seats, and the seat tokens the gateway
        holds: all at once for a challenge, one seat at a time from the matchmaking queue."""
        now = int(time.time() * 1000)
        table: dict[str, bytes | str] = {str(s.seat): msgspec.json.encode(s) for s in seated}
        table |= {f"token:{seat}": token for seat, token in tokens.items()}
        table["seats"] = str(seats)
        await self.redis.hset(keys.table_key(game_id), mapping=table)  # type: ignore[arg-type]
        await self.redis.zadd(keys.GATEWAY_GAMES, {game_id: now})
        for p in people:
            await self.redis.zadd(keys.player_games_key(p.id), {game_id: now})

    async def withdraw(self, player: Player, challenge_id: str) -> None:
        """The challenger withdraws its challenge; a private one's invited player may decline
        it too. A private challenge is kept, marked declined, until it lapses: its players are
        told who declined (a rematch's page says so)."""
        opened = await self.show(challenge_id)
        spec = opened.challenge
        if spec.by != player.id and spec.invitation(player.id) is None:
            raise refuse(ErrorCode.FORBIDDEN, "only its challenger withdraws a challenge (or a "
                         "player it is for declines it)")  # fmt: skip
        key = keys.challenge_key(challenge_id)
        marker = "declined" if spec.invited else "withdrawn"
        if not await self.redis.hsetnx(key, "game", marker):
            if text(await self.redis.hget(key, "game") or b"") == marker:
                return  # declined already: once is enough
            raise refuse(ErrorCode.CONFLICT, "the game has started")
        await self.redis.zrem(keys.CHALLENGES, challenge_id)
        await self.redis.zrem(keys.player_challenges_key(spec.by), challenge_id)
        if spec.invited:
            await self.redis.hset(key, "declined", player.name)
            await self._uninvite(spec)
            return
        await self.redis.delete(key, keys.challenge_seats_key(challenge_id))

    async def forget_declined(self, challenge_id: str) -> None:
        """Remove a declined private challenge, so that its id may be offered again (a
        rematch's). Not atomic (the gateway's store user has no MULTI): of two players offering
        again at once, one may remove the other's fresh offer; the later offer stands, and the
        other player, invited to it, may accept it."""
        key = keys.challenge_key(challenge_id)
        if text(await self.redis.hget(key, "game") or b"") == "declined":
            await self.redis.delete(key, keys.challenge_seats_key(challenge_id))

    async def table(self, game_id: str) -> Table | None:
        if (kept := self.tables.get(game_id)) is not None:
            self.tables.move_to_end(game_id)
            return kept
        raw = await self._hash(keys.table_key(game_id))
        if not raw:
            return None
        seated, tokens = [], {}
        for name, value in raw.items():
            if name.startswith("token:"):
                tokens[int(name.removeprefix("token:"))] = value.decode()
            elif name != "seats":
                seated.append(msgspec.json.decode(value, type=Seated))
        table = Table(game_id=game_id, seated=sorted(seated, key=lambda s: s.seat), tokens=tokens)
        if len(seated) < int(raw.get("seats", b"0")):
            return table  # seats still being recorded (the queue's): read again next time
        self.tables[game_id] = table
        if len(self.tables) > TABLES_KEPT:
            self.tables.popitem(last=False)
        return table

    async def recent_games(self, player: Player | None = None) -> list[Listed]:
        """The newest games, or the player's own, newest first: from the read model when there
        is one (its failure is logged, and the gateway's lists answer meanwhile)."""
        if self.read_model is not None:
            try:
                rows = await self.read_model.games(player.id if player else None)
            except (psycopg.Error, OSError) as exc:
                log.warning("the read model did not answer; the gateway's lists do",
                            error=repr(exc))  # fmt: skip
            else:
                names = await self._names([r[0] for r in rows])
                return [_listed(row, names) for row in rows]
        ids = await self._newest(keys.player_games_key(player.id) if player else
                                 keys.GATEWAY_GAMES)  # fmt: skip
        names = await self._names(ids)
        return [Listed(game_id=g, seated=sorted((s for (h, _), s in names.items() if h == g),
                                                key=lambda s: s.seat))
                for g in ids]  # fmt: skip

    async def names(self, game_ids: list[str]) -> dict[tuple[str, int], Seated]:
        """Who the gateway seated in each of these games (players.py names players by them)."""
        return await self._names(game_ids)

    async def _names(self, game_ids: list[str]) -> dict[tuple[str, int], Seated]:
        """Who the gateway seated in each of these games: (game, seat) -> the seated player."""
        out: dict[tuple[str, int], Seated] = {}
        asked = [g for g in dict.fromkeys(game_ids) if g not in self.tables]
        for game_id in game_ids:
            if (kept := self.tables.get(game_id)) is not None:
                out.update(((game_id, s.seat), s) for s in kept.seated)
        async with self.redis.pipeline(transaction=False) as pipe:
            for game_id in asked:
                pipe.hgetall(keys.table_key(game_id))
            tables = await pipe.execute() if asked else []
        for game_id, raw in zip(asked, tables, strict=True):
            for name, value in raw.items():
                if text(name).isdigit():
                    with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
                        seated = msgspec.json.decode(value, type=Seated)
                        out[game_id, seated.seat] = seated
        return out

    async def close(self) -> None:
        if self.read_model is not None:
            await self.read_model.close()

    async def _hash(self, key: str) -> dict[str, bytes]:
        raw = await self.redis.hgetall(key)
        return {text(field): _bytes(value) for field, value in raw.items()}

    async def _newest(self, key: str) -> list[str]:
        """The members of a sorted set scored by time, newest first."""
        return [text(m) for m in await self.redis.zrevrange(key, 0, LISTED - 1)]


def _invite(player: Player, opponent: Player, seats: int) -> Invited:
    """The invitation of a challenge to a named player: two seats, and not oneself."""
    if opponent.id == player.id:
        raise refuse(ErrorCode.MALFORMED, "a challenge to yourself: name another player")
    if seats != 2:
        raise refuse(ErrorCode.MALFORMED, "a challenge to a named player is for two seats: "
                     "open a public one for more")  # fmt: skip
    return Invited(player=opponent.id, name=opponent.name)


def _invited_seat(spec: Challenge, player: Player, seat: int | None) -> int | None:
    """The seat a player may ask for: any in a public challenge; in a private one, only if it
    is for them, and the seat kept for them when there is one."""
    if not spec.invited:
        return seat
    invited = spec.invitation(player.id)
    if invited is None:
        raise refuse(ErrorCode.FORBIDDEN, "this challenge is for another player")
    if invited.seat is None:
        return seat
    if seat is not None and seat != invited.seat:
        raise refuse(ErrorCode.UNKNOWN_SEAT, f"your seat in this challenge is {invited.seat}")
    return invited.seat


def _rated_needs_an_account(player: Player) -> None:
    if not player.account:
        raise refuse(ErrorCode.FORBIDDEN, "guests play casual games only: register (keeping "
                     "your games) to play rated ones")  # fmt: skip


def _bytes(value: Any) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()
