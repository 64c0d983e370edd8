"""Players in public (issue 23): a player's ratings, rating history and games, the leaderboards
and the games in play, from the read model (PostgreSQL, as the gateway's SELECT-only role),
shaped for the page: ratings as Lichess shows them, results in the ruleset's plain words from
the player's side (domain/words.py).

Every query is here, at the top, parameterised. A player is found by an account's name
(people.py, `Accounts.find`) or by a player id (guests have no name of their own: the game
lists give their ids). Other players are named as the gateway seated them (its tables), else
by the log's player id.
"""

import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

import msgspec
import psycopg
import structlog
from litestar import Request, get
from litestar.params import FromPath, FromQuery

from contracts.errors import ErrorCode
from domain.ratings.games import GLICKO2, PROVISIONAL_SIGMA, provisional
from domain.ratings.glicko2 import PROVISIONAL_DEVIATION, Glicko, shown
from domain.ratings.multi import Skill
from domain.registry import RULESETS
from domain.search.levels import LEVELS
from services.gateway.lobby import Lobby, ReadModel, Seated, bot_player
from services.gateway.people import Accounts, refuse
from services.gateway.results import outcome, result_words

if TYPE_CHECKING:
    from services.gateway.app import Gateway

log = structlog.get_logger()

PAGE: Final = 20  # games a page of a profile
HISTORY: Final = 1000  # rating changes a profile shows at most (the newest), every class
TOP: Final = 100  # players a leaderboard lists, and provisional ones apart, per class
LIVE: Final = 50  # games in play GET /api/live lists
LOBBY_LIVE: Final = 10  # of them, the lobby's
MAX_PAGE: Final = 10_000  # ?page=N beyond this is refused (an OFFSET the server would scan)

# A player id as services/gateway/people.py makes them: "g" (a guest) or "a" and 16 hex; or a
# house bot's (services.gateway.lobby.bot_player).
PLAYER_ID: Final = re.compile(r"^([ga][0-9a-f]{16}|bot[0-9]{0,2})\Z")

# -- the queries ---------------------------------------------------------------------------------

# The house bots' ratings in one ruleset, every class (their levels' player ids).
_BOT_RATINGS: Final = ("SELECT player, ruleset, family, speed, system, rating, deviation, mu, "
                       "sigma, games, last_ms FROM ratings WHERE ruleset = %(ruleset)s AND "
                       "player = ANY(%(players)s) ORDER BY player, games DESC")  # fmt: skip
# Whether a player id is known to the read model (a guest's, or an account's found by its id).
_KNOWN: Final = ("SELECT EXISTS (SELECT 1 FROM player_games WHERE player = %(player)s) "
                 "OR EXISTS (SELECT 1 FROM ratings WHERE player = %(player)s)")  # fmt: skip
_RATINGS: Final = ("SELECT ruleset, family, speed, system, rating, deviation, mu, sigma, games, "
                   "last_ms FROM ratings WHERE player = %(player)s "
                   "ORDER BY ruleset, family, speed")  # fmt: skip
# The newest HISTORY changes, oldest first (a plot reads left to right).
_HISTORY: Final = (
    "SELECT ruleset, family, speed, seq, game_id, ended_ms, system, rating_after, "
    "deviation_after, mu_after, sigma_after FROM (SELECT * FROM rating_changes "
    "WHERE player = %(player)s ORDER BY seq DESC LIMIT %(limit)s) newest ORDER BY seq"
)
# A player's games, newest first (player_games_newest), a row per seat they sat in; a page
# after a cursor (the last row shown: its start, game and seat), or at an offset.
_GAME: Final = ("SELECT p.game_id, p.seat, g.ruleset, g.variant, g.seats, g.players, "
                "p.created_at, g.ended_at, g.result, g.reason, g.winners, g.version, g.rated, "
                "g.speed FROM player_games p JOIN games g USING (game_id) "
                "WHERE p.player = %(player)s")  # fmt: skip
_ORDER: Final = " ORDER BY p.created_at DESC, p.game_id, p.seat LIMIT %(limit)s"
_GAMES: Final = _GAME + _ORDER + " OFFSET %(offset)s"
_GAMES_BEFORE: Final = (_GAME + " AND (p.created_at < %(at)s OR (p.created_at = %(at)s AND "
                        "(p.game_id, p.seat) > (%(game)s, %(seat)s)))" + _ORDER)  # fmt: skip
# A class's top players and, apart, its provisional ones (Lichess lists only the others): by
# the shown rating, Glicko-2's, or Weng–Lin's ordinal μ − 3σ (domain.ratings.multi.Skill), each
# named by the seat of their last rated game in the class.
_PROVISIONAL: Final = ("CASE WHEN r.system = 'glicko2' THEN r.deviation >= %(deviation)s "
                       "ELSE r.sigma >= %(sigma)s END")  # fmt: skip
_LEADERBOARD: Final = (
    "SELECT ranked.family, ranked.speed, ranked.system, ranked.player, ranked.rating, "
    "ranked.deviation, ranked.mu, ranked.sigma, ranked.games, ranked.last_ms, "
    "ranked.provisional, last.game_id, last.seat FROM ("
    f"SELECT r.*, {_PROVISIONAL} AS provisional, row_number() OVER (PARTITION BY r.family, "
    f"r.speed, {_PROVISIONAL} ORDER BY CASE WHEN r.system = 'glicko2' THEN r.rating "
    "ELSE r.mu - 3 * r.sigma END DESC, r.player) AS place FROM ratings r "
    "WHERE r.ruleset = %(ruleset)s AND (%(family)s::text IS NULL OR r.family = %(family)s) "
    "AND (%(speed)s::text IS NULL OR r.speed = %(speed)s)) ranked "
    "LEFT JOIN LATERAL (SELECT c.game_id, c.seat FROM rating_changes c "
    "WHERE c.player = ranked.player AND c.ruleset = ranked.ruleset "
    "AND c.family = ranked.family AND c.speed = ranked.speed ORDER BY c.seq DESC LIMIT 1) last "
    "ON true WHERE ranked.place <= %(top)s "
    "ORDER BY ranked.family, ranked.speed, ranked.provisional, ranked.place"
)
# Games in play, the latest moved first (the partial index games_live, 0004_ratings.sql).
_LIVE: Final = ("SELECT game_id, ruleset, variant, players, created_at, updated_at, version, "
                "rated, speed FROM games WHERE ended_at IS NULL "
                "ORDER BY updated_at DESC, game_id LIMIT %(limit)s")  # fmt: skip

# -- shapes ----------------------------------------------------------------------------------


class Point(msgspec.Struct, frozen=True, kw_only=True):
    """A rating after one rated game: where a history plot puts a point."""

    seq: int  # the game's place in the order the ratings were applied
    game_id: str
    ended_ms: int
    rating: float  # as `Rating.rating` shows it


class Rating(msgspec.Struct, frozen=True, kw_only=True):
    """A player's rating in one class. `rating` is what Lichess shows: Glicko-2's truncated to
    an integer (lila's intRating); for Weng–Lin, the ordinal μ − 3σ to one decimal. `deviation`
    is Glicko-2's (an integer) or Weng–Lin's σ (two decimals). `provisional`: Lichess's rule
    (a deviation of 110 or more; for σ the same share of a new player's, domain.ratings.games),
    shown as "1500?"."""

    ruleset: str
    family: str
    speed: str
    system: str
    rating: float
    deviation: float
    games: int
    provisional: bool
    last_ms: int
    history: list[Point] = []


class Seat(msgspec.Struct, frozen=True):
    """Someone at a seat: their player id, and the name the gateway seated them under (else
    the id)."""

    seat: int
    player: str
    name: str


class Played(msgspec.Struct, frozen=True, kw_only=True):
    """One of a player's games, from their side. `words`: how it ended for them in plain
    words ("Won by checkmate"; None while in play); `events`: the length of its log, a proxy
    for its length in moves (the seeds, setups and claims are events too)."""

    game_id: str
    seat: int
    ruleset: str
    variant: str
    rated: bool
    speed: str | None
    created_ms: int
    ended_ms: int | None
    result: str | None
    reason: str | None
    outcome: str | None  # "won", "lost", "drawn"; None while in play
    words: str | None
    events: int
    duration_ms: int | None
    opponents: list[Seat]
    replay: str
    audit: str


class Ranked(msgspec.Struct, frozen=True, kw_only=True):
    place: int
    player: str
    name: str
    rating: float
    deviation: float
    games: int
    last_ms: int


class Board(msgspec.Struct, frozen=True, kw_only=True):
    """One class's leaderboard: its top players, and its provisional ones apart."""

    family: str
    speed: str
    system: str
    top: list[Ranked]
    provisional: list[Ranked]


class Live(msgspec.Struct, frozen=True, kw_only=True):
    """A game in play: `events` is its log's length so far, a proxy for its moves."""

    game_id: str
    ruleset: str
    variant: str
    rated: bool
    speed: str | None
    created_ms: int
    updated_ms: int
    events: int
    seated: list[Seat]
    watch: str


# -- shaping -------------------------------------------------------------------------------------

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_US: Final = timedelta(microseconds=1)
# A cursor: the last game shown's start (µs since 1970: timestamptz holds whole µs), its seat
# and its id.
CURSOR: Final = re.compile(r"^(\d{1,18})\.(\d{1,4})\.([A-Za-z0-9_-]{1,128})\Z")


def _ms(at: datetime | None) -> int | None:
    return None if at is None else int(at.timestamp() * 1000)


def cursor(at: datetime, seat: int, game_id: str) -> str:
    return f"{(at - _EPOCH) // _US}.{seat}.{game_id}"


def parse_cursor(text: str) -> tuple[datetime, int, str]:
    found = CURSOR.match(text)
    if found is None:
        raise refuse(ErrorCode.MALFORMED, "before is a cursor from a reply's `next`")
    return _EPOCH + int(found[1]) * _US, int(found[2]), found[3]


def rating_of(system: str, rating: float | None, deviation: float | None, mu: float | None,
              sigma: float | None) -> Glicko | Skill:  # fmt: skip
    """The domain's rating from a row's columns (the other system's are NULL)."""
    if system == GLICKO2:
        return Glicko(rating or 0.0, deviation or 0.0)
    return Skill(mu or 0.0, sigma or 0.0)


def displayed(r: Glicko | Skill) -> tuple[float, float]:
    """(rating, deviation) as a page shows them: see `Rating`."""
    if isinstance(r, Glicko):
        return shown(r), round(r.deviation)
    return round(r.ordinal, 1), round(r.sigma, 2)


def seated(game_id: str, players: Sequence[str], names: dict[tuple[str, int], Seated],
           but: int | None = None) -> list[Seat]:  # fmt: skip
    """Who sits where in a game (but `but`), by the gateway's names, else by id."""
    out = []
    for seat, player in enumerate(players):
        if seat == but:
            continue
        known = names.get((game_id, seat))
        name = known.name if known is not None and known.player == player else ""
        out.append(Seat(seat, player, name or player))
    return out


def played(row: Sequence[Any], names: dict[tuple[str, int], Seated]) -> Played:
    (game_id, seat, ruleset, variant, _, players, created, ended, result, reason, winners,
     version, rated, speed) = row  # fmt: skip
    created_ms, ended_ms = _ms(created) or 0, _ms(ended)
    return Played(game_id=game_id, seat=seat, ruleset=ruleset, variant=variant, rated=rated,
                  speed=speed, created_ms=created_ms, ended_ms=ended_ms, result=result,
                  reason=reason, outcome=outcome(seat, winners, result),
                  words=result_words(ruleset, seat, winners, result, reason), events=version,
                  duration_ms=None if ended_ms is None else ended_ms - created_ms,
                  opponents=seated(game_id, players, names, but=seat),
                  replay=f"#/games/{game_id}", audit=f"#/audit/{game_id}")  # fmt: skip


def ratings_of(rows: Sequence[Sequence[Any]], changes: Sequence[Sequence[Any]]) -> list[Rating]:
    """Each class's rating with its history (the changes of that class, oldest first)."""
    history: dict[tuple[str, str, str], list[Point]] = {}
    for ruleset, family, speed, seq, game_id, ended_ms, *after in changes:
        rating, _ = displayed(rating_of(*after))
        history.setdefault((ruleset, family, speed), []).append(
            Point(seq=seq, game_id=game_id, ended_ms=ended_ms, rating=rating)
        )
    out = []
    for ruleset, family, speed, system, *values, games, last_ms in rows:
        r = rating_of(system, *values)
        rating, deviation = displayed(r)
        out.append(Rating(ruleset=ruleset, family=family, speed=speed, system=system,
                          rating=rating, deviation=deviation, games=games,
                          provisional=provisional(r), last_ms=last_ms,
                          history=history.get((ruleset, family, speed), [])))  # fmt: skip
    return out


def ranked(place: int, row: Sequence[Any], names: dict[tuple[str, int], Seated]) -> Ranked:
    _, _, system, player, rating, deviation, mu, sigma, games, last_ms, _, game_id, seat = row
    shown_rating, shown_deviation = displayed(rating_of(system, rating, deviation, mu, sigma))
    known = names.get((game_id, seat))
    name = known.name if known is not None and known.player == player else player
    return Ranked(place=place, player=player, name=name, rating=shown_rating,
                  deviation=shown_deviation, games=games, last_ms=last_ms)  # fmt: skip


def boards(rows: Sequence[Sequence[Any]], names: dict[tuple[str, int], Seated]) -> list[Board]:
    """The rows (by class, the others then the provisional, each in place order) as boards."""
    out: list[Board] = []
    for row in rows:
        family, speed, system, *_ = row
        if not out or (out[-1].family, out[-1].speed) != (family, speed):
            out.append(Board(family=family, speed=speed, system=system, top=[], provisional=[]))
        listed = out[-1].provisional if row[10] else out[-1].top
        listed.append(ranked(len(listed) + 1, row, names))
    return out


# -- the reads -------------------------------------------------------------------------------


class Players:
    """The players' reads, over the lobby's read model and its names, and the accounts."""

    def __init__(self, lobby: Lobby, accounts: Accounts) -> None:
        self.lobby = lobby
        self.accounts = accounts

    def _read_model(self) -> ReadModel:
        if self.lobby.read_model is None:
            raise refuse(ErrorCode.UNAVAILABLE, "players' pages need the read model, which this "
                         "gateway has not (DATABASE_URL)")  # fmt: skip
        return self.lobby.read_model

    async def _rows(self, query: str, args: dict[str, Any]) -> list[tuple[Any, ...]]:
        try:
            return await self._read_model().rows(query, args)
        except (psycopg.Error, OSError) as exc:
            log.warning("the read model did not answer", error=repr(exc))
            raise refuse(ErrorCode.UNAVAILABLE, "the read model did not answer: retry") from None

    async def find(self, name: str) -> tuple[str, str]:
        """(player id, name shown) of a player id (the read model knows it, or it has the shape
        the gateway gives: a new player's page, their games not projected yet), else of an
        account's name. The id first: an account named like someone's id does not take their
        page."""
        if PLAYER_ID.match(name) or (
            len(name) <= 64 and (await self._rows(_KNOWN, {"player": name}))[0][0]
        ):
            return name, await self._name_of(name)
        account = await self.accounts.find(name)
        if account is None:
            raise refuse(ErrorCode.UNKNOWN_PLAYER, f"no player is named {name!r}")
        return account.id, account.name

    async def _name_of(self, player: str) -> str:
        """The name the gateway seated a player under in their newest game, else the id."""
        rows = await self._rows(_GAMES, {"player": player, "limit": 1, "offset": 0})
        names = await self.lobby.names([r[0] for r in rows])
        for game_id, seat, *_ in rows:
            known = names.get((game_id, seat))
            if known is not None and known.player == player:
                return known.name
        return player

    async def profile(self, name: str, before: str | None, page: int | None) -> dict[str, Any]:
        """A player's ratings (with their history) and a page of their games, newest first."""
        player, shown_name = await self.find(name)
        args: dict[str, Any] = {"player": player, "limit": PAGE + 1}
        if before:
            at, seat, game_id = parse_cursor(before)
            rows = await self._rows(_GAMES_BEFORE, {**args, "at": at, "seat": seat,
                                                    "game": game_id})  # fmt: skip
        else:
            rows = await self._rows(_GAMES, {**args, "offset": ((page or 1) - 1) * PAGE})
        more, rows = len(rows) > PAGE, rows[:PAGE]
        names = await self.lobby.names([r[0] for r in rows])
        ratings = await self._rows(_RATINGS, {"player": player})
        changes = await self._rows(_HISTORY, {"player": player, "limit": HISTORY})
        last = rows[-1] if rows else None
        return {
            "name": shown_name,
            "player": player,
            "ratings": msgspec.to_builtins(ratings_of(ratings, changes)),
            "games": msgspec.to_builtins([played(r, names) for r in rows]),
            "next": cursor(last[6], last[1], last[0]) if more and last else None,
        }

    async def leaderboard(self, ruleset: str, family: str | None,
                          speed: str | None) -> dict[str, Any]:  # fmt: skip
        if ruleset not in RULESETS:
            raise refuse(ErrorCode.UNKNOWN_RULESET, f"no ruleset {ruleset!r}")
        rows = await self._rows(_LEADERBOARD, {
            "ruleset": ruleset, "family": family or None, "speed": speed or None, "top": TOP,
            "deviation": PROVISIONAL_DEVIATION, "sigma": PROVISIONAL_SIGMA})  # fmt: skip
        names = await self.lobby.names([r[11] for r in rows if r[11] is not None])
        return {"ruleset": ruleset, "boards": msgspec.to_builtins(boards(rows, names))}

    async def live(self, limit: int = LIVE) -> list[Live]:
        rows = await self._rows(_LIVE, {"limit": limit})
        names = await self.lobby.names([r[0] for r in rows])
        return [Live(game_id=game_id, ruleset=ruleset, variant=variant, rated=rated, speed=speed,
                     created_ms=_ms(created) or 0, updated_ms=_ms(updated) or 0, events=version,
                     seated=seated(game_id, players, names), watch=f"#/games/{game_id}")
                for game_id, ruleset, variant, players, created, updated, version, rated, speed
                in rows]  # fmt: skip

    async def bot_levels(self, ruleset: str) -> list[dict[str, Any]]:
        """The house bot's levels, each with its ratings in `ruleset` (every class it has
        played; none without a read model or while it is away: the levels are listed anyway)."""
        if ruleset not in RULESETS:
            raise refuse(ErrorCode.UNKNOWN_RULESET, f"no ruleset {ruleset!r}")
        players = {bot_player(lv.number): lv for lv in LEVELS}
        rows: list[tuple[Any, ...]] = []
        if self.lobby.read_model is not None:
            try:
                rows = await self._rows(_BOT_RATINGS, {"ruleset": ruleset,
                                                       "players": list(players)})  # fmt: skip
            except Exception as exc:  # noqa: BLE001  # the levels are listed without ratings
                log.warning("bot ratings not read", error=repr(exc))
        return [{"level": lv.number, "name": lv.name, "player": player,
                 "ratings": msgspec.to_builtins(ratings_of([r[1:] for r in rows
                                                            if r[0] == player], []))}
                for player, lv in players.items()]  # fmt: skip

    async def lobby_live(self) -> list[dict[str, Any]]:
        """A few games in play for the lobby: none without a read model or while it is away
        (the lobby answers anyway)."""
        if self.lobby.read_model is None:
            return []
        try:
            live: list[dict[str, Any]] = msgspec.to_builtins(await self.live(LOBBY_LIVE))
            return live
        except Exception as exc:  # noqa: BLE001  # the lobby's other lists still answer
            log.warning("live games not listed", error=repr(exc))
            return []


# -- the routes ------------------------------------------------------------------------------


def players_of(request: Request[Any, Any, Any]) -> Players:
    gateway: Gateway = request.app.state.gateway
    return Players(gateway.lobby, gateway.accounts)


@get("/api/players/{name:str}")
async def player_profile(request: Request[Any, Any, Any], name: FromPath[str],
                         before: FromQuery[str | None] = None,
                         page: FromQuery[int | None] = None) -> dict[str, Any]:  # fmt: skip
    """A player's ratings and history, and their games (`?before=<next>` or `?page=N`)."""
    if page is not None and not 1 <= page <= MAX_PAGE:
        raise refuse(ErrorCode.MALFORMED, f"page is 1 to {MAX_PAGE}")
    return await players_of(request).profile(name, before, page)


@get("/api/leaderboard/{ruleset:str}")
async def leaderboard(request: Request[Any, Any, Any], ruleset: FromPath[str],
                      family: FromQuery[str | None] = None,
                      speed: FromQuery[str | None] = None) -> dict[str, Any]:  # fmt: skip
    """Each class's top players and, apart, its provisional ones."""
    return await players_of(request).leaderboard(ruleset, family, speed)


@get("/api/live")
async def live_games(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """The games in play, the latest moved first."""
    return {"games": msgspec.to_builtins(await players_of(request).live())}


@get("/api/bots/levels")
async def bot_levels(request: Request[Any, Any, Any], ruleset: FromQuery[str]) -> dict[str, Any]:
    """The house bot's levels (domain.search.levels), each with its ratings in the ruleset:
    each level is rated as a player of its own."""
    return {"levels": await players_of(request).bot_levels(ruleset)}


ROUTES: Final = [player_profile, leaderboard, live_games, bot_levels]
