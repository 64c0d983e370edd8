"""Players in public (issue 23): a player's profile (ratings as Lichess shows them, provisional
marked; their rating history; their games newest first, paged, each ended one in words from
their side), the leaderboards (the top players, the provisional ones apart) and the games in
play, from the read model. Over the session's real servers: rated games played through a
gateway with the read model, projected by the projector's own code and rated by its ratings
pass (its 30 s settle window set to none), as the gateway's other tests do."""

import asyncio
import contextlib
import dataclasses
import secrets
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import psycopg
import pytest
import redis.asyncio as aioredis
from psycopg.conninfo import make_conninfo

from contracts.errors import ErrorCode
from services.gateway import players
from services.gateway.__main__ import listen, serving
from services.gateway.people import Limits
from services.projector import ratings as ratings_pass
from services.projector.projections import Projector
from services.projector.ratings import RatingsPass
from services.runtime import access
from services.runtime.archived import ArchiveReader
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore
from tests.conftest import Postgres
from tests.gateway.conftest import Person

PASSWORD = "a long enough password"


@dataclasses.dataclass
class Site:
    """A gateway with the read model, and the projector's passes to fill it on demand."""

    base: str
    projector: Projector
    ratings: RatingsPass
    people: list[Person]

    def person(self) -> Person:
        self.people.append(Person(self.base))
        return self.people[-1]

    async def project(self, *game_ids: str) -> None:
        for game_id in game_ids:
            assert await self.projector.catch_up(game_id) in ("projected", "current")


@pytest.fixture
async def site(
    stack: Settings, postgres: Postgres, role_settings: Callable[[str], Settings],
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[Site]:  # fmt: skip
    # Games just ended are rated at once (the pass's window is for projectors at work).
    monkeypatch.setattr(ratings_pass, "SETTLE_S", 0.0)
    settings = dataclasses.replace(role_settings("gateway"),
                                   database_url=postgres.url("gateway"))  # fmt: skip
    redis = aioredis.from_url(role_settings("projector").redis_url)
    store = EventStore(redis, archive=ArchiveReader(postgres.url("projector")))
    projector = Projector(store, redis, postgres.url("projector"))
    rater = RatingsPass(store, postgres.url("projector"))
    sock = listen("127.0.0.1", 0)
    site = Site(f"http://127.0.0.1:{sock.getsockname()[1]}", projector, rater, [])
    async with serving(settings, sock, Limits(100_000, 100_000, 1_000)):
        try:
            yield site
        finally:
            for p in site.people:
                await p.close()
            await rater.close()
            await projector.close()
            await store.close()


async def account(site: Site, name: str) -> tuple[Person, str]:
    person = site.person()
    made = await person.post("/api/accounts", {"name": name, "password": PASSWORD})
    assert made.status_code == 201, made.text
    return person, made.json()["id"]


async def rated_game(first: Person, second: Person, *, rated: bool = True) -> str:
    """`first` opens a chess3d challenge (White, seat 0), `second` accepts: the game's id."""
    opened = await first.post("/api/challenges", {"ruleset": "chess3d", "rated": rated})
    assert opened.status_code == 201, opened.text
    accepted = await second.post(f"/api/challenges/{opened.json()['challenge']['id']}/accept")
    assert accepted.status_code == 200, accepted.text
    game_id: str = accepted.json()["game_id"]
    return game_id


async def act(person: Person, game_id: str, action: str) -> None:
    reply = await person.post(f"/api/games/{game_id}/actions",
                              {"action": action, "command_id": secrets.token_hex(8)})  # fmt: skip
    assert reply.status_code == 200, reply.text


async def as_operator(postgres: Postgres, statement: str, params: Any = None) -> None:
    url = make_conninfo(postgres.superuser, dbname=access.PG_DATABASE)
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(statement.encode(), params)


@contextlib.asynccontextmanager
async def established(postgres: Postgres, player: str, rating: float) -> AsyncIterator[None]:
    """A chess3d rating row of long standing (deviation 60: not provisional), written as the
    operator for the leaderboard's sake (no game of the session makes one in a few games);
    removed after."""
    await as_operator(postgres, "INSERT INTO ratings (player, ruleset, family, speed, system, "
                      "rating, deviation, volatility, games, last_ms) VALUES (%s, 'chess3d', "
                      "'standard', 'unlimited', 'glicko2', %s, 60, 0.06, 40, 1)",
                      (player, rating))  # fmt: skip
    try:
        yield
    finally:
        await as_operator(postgres, "DELETE FROM ratings WHERE player = %s", (player,))


async def test_a_profile_shows_ratings_history_and_games_in_words_and_the_boards_rank_them(
    site: Site, postgres: Postgres, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ann beats Bob (he resigns) and draws with him (by agreement), both rated, and a casual
    game of theirs is in play. Ann's profile: a provisional chess3d rating of 2 games with a
    history of 2 points in order, her 3 games newest first in her words, paged; the leaderboard
    lists Cy's established rating on top and Ann over Bob apart, provisional; the live games
    list the casual one; an unknown name is 404 player/unknown."""
    tag = uuid.uuid4().hex[:6]
    ann, ann_id = await account(site, f"Ann-{tag}")
    bob, bob_id = await account(site, f"Bob-{tag}")
    won = await rated_game(ann, bob)
    await act(bob, won, "resign")
    drawn = await rated_game(bob, ann)  # Bob White: he offers on his turn, Ann accepts
    await act(bob, drawn, "offer-draw")
    await act(ann, drawn, "accept-draw")
    playing = await rated_game(ann, bob, rated=False)
    await site.project(won, drawn, playing)
    await asyncio.sleep(0.01)  # ended before the pass's now()
    await site.ratings.run()

    stranger = site.person()  # no sign-in: the pages are public
    reply = await stranger.get(f"/api/players/ann-{tag}")  # any case
    assert reply.status_code == 200, reply.text
    profile = reply.json()
    assert (profile["name"], profile["player"], profile["next"]) == (f"Ann-{tag}", ann_id, None)
    (rating,) = profile["ratings"]
    assert {k: rating[k] for k in ("ruleset", "family", "speed", "system", "games")} == {
        "ruleset": "chess3d", "family": "standard", "speed": "unlimited", "system": "glicko2",
        "games": 2,
    }  # fmt: skip
    assert rating["provisional"] is True
    assert isinstance(rating["rating"], int)
    assert rating["rating"] > 1500  # a win and a draw against an equal
    assert [p["game_id"] for p in rating["history"]] == [won, drawn]
    assert rating["history"][-1]["rating"] == rating["rating"]
    assert rating["history"][0]["seq"] < rating["history"][1]["seq"]

    games = profile["games"]
    assert [g["game_id"] for g in games] == [playing, drawn, won]
    assert [g["words"] for g in games] == [None, "Drawn by agreement", "Won by resignation"]
    assert [g["outcome"] for g in games] == [None, "drawn", "won"]
    assert [g["seat"] for g in games] == [0, 1, 0]
    assert [g["rated"] for g in games] == [False, True, True]
    assert all(g["opponents"] == [{"seat": 1 - g["seat"], "player": bob_id,
                                   "name": f"Bob-{tag}"}] for g in games)  # fmt: skip
    assert games[2]["events"] >= 2
    assert games[2]["duration_ms"] >= 0
    assert games[0]["duration_ms"] is None
    assert (games[2]["replay"], games[2]["audit"]) == (f"#/games/{won}", f"#/audit/{won}")

    # Bob's, by his player id: the same games, from his side.
    by_id = (await stranger.get(f"/api/players/{bob_id}")).json()
    assert by_id["name"] == f"Bob-{tag}"
    assert [g["words"] for g in by_id["games"]][1:] == ["Drawn by agreement",
                                                       "Lost by resignation"]  # fmt: skip
    assert by_id["ratings"][0]["rating"] < rating["rating"]

    # Paged: 2 a page, by cursor or by number.
    monkeypatch.setattr(players, "PAGE", 2)
    first = (await stranger.get(f"/api/players/Ann-{tag}")).json()
    assert [g["game_id"] for g in first["games"]] == [playing, drawn]
    assert first["next"]
    after = (await stranger.http.get(f"/api/players/Ann-{tag}",
                                params={"before": first["next"]})).json()  # fmt: skip
    assert ([g["game_id"] for g in after["games"]], after["next"]) == ([won], None)
    second = (await stranger.get(f"/api/players/Ann-{tag}?page=2")).json()
    assert second["games"] == after["games"]
    bad = await stranger.http.get(f"/api/players/Ann-{tag}", params={"before": "no cursor"})
    assert (bad.status_code, bad.json()["error"]["code"]) == (400, ErrorCode.MALFORMED)

    # The leaderboard: Cy's established rating in the top, Ann over Bob apart.
    _, cy_id = await account(site, f"Cy-{tag}")
    async with established(postgres, cy_id, 1400.0):
        reply = await stranger.http.get("/api/leaderboard/chess3d",
                                   params={"family": "standard", "speed": "unlimited"})  # fmt: skip
        assert reply.status_code == 200, reply.text
    board = reply.json()
    assert board["ruleset"] == "chess3d"
    (klass,) = board["boards"]
    assert (klass["family"], klass["speed"], klass["system"]) == ("standard", "unlimited",
                                                                  "glicko2")  # fmt: skip
    ours = {ann_id, bob_id, cy_id}
    top = [r for r in klass["top"] if r["player"] in ours]
    assert [(r["player"], r["name"], r["rating"], r["deviation"]) for r in top] == [
        (cy_id, cy_id, 1400, 60)  # named by id: the gateway never seated Cy
    ]
    apart = [(r["player"], r["name"]) for r in klass["provisional"] if r["player"] in ours]
    assert apart == [(ann_id, f"Ann-{tag}"), (bob_id, f"Bob-{tag}")]
    assert [r["place"] for r in klass["provisional"]] == list(
        range(1, len(klass["provisional"]) + 1)
    )
    ratings = [r["rating"] for r in klass["top"]]
    assert ratings == sorted(ratings, reverse=True)
    none = (await stranger.get("/api/leaderboard/chess3d?speed=bullet")).json()
    assert all(b["speed"] == "bullet" for b in none["boards"])
    unknown = await stranger.get("/api/leaderboard/no-such-game")
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (
        404,
        ErrorCode.UNKNOWN_RULESET,
    )

    # Live: the game in play, latest moved first, with its players; the lobby shows it too.
    live = (await stranger.get("/api/live")).json()["games"]
    mine = [g for g in live if g["game_id"] == playing]
    assert [(g["ruleset"], g["events"] >= 1, g["watch"]) for g in mine] == [
        ("chess3d", True, f"#/games/{playing}")
    ]
    assert [(s["player"], s["name"]) for s in mine[0]["seated"]] == [
        (ann_id, f"Ann-{tag}"),
        (bob_id, f"Bob-{tag}"),
    ]
    assert won not in [g["game_id"] for g in live]
    updated = [g["updated_ms"] for g in live]
    assert updated == sorted(updated, reverse=True)
    lobby = (await stranger.get("/api/lobby")).json()
    assert playing in [g["game_id"] for g in lobby["live"]]

    missing = await stranger.get(f"/api/players/nobody-{tag}")
    assert missing.status_code == 404, missing.text
    assert missing.json()["error"]["code"] == ErrorCode.UNKNOWN_PLAYER


def test_results_read_from_the_players_side_in_the_rulesets_words() -> None:
    words = players.result_words
    assert words("spacewar", 1, [0], "1-0", "motherships") == (
        "Lost: your Motherships were destroyed"
    )
    assert words("spacewar", 0, [0], "1-0", "motherships") == (
        "Won by destroying the opponent's Motherships"
    )
    assert words("chess3d", 0, [], "1/2-1/2", "agreement") == "Drawn by agreement"
    assert words("chess3d", 0, [1], "0-1", "timeout") == "Lost: you did not act in time"
    assert words("chess3d", 1, [1], "0-1", "timeout") == (
        "Won because the opponent did not act in time"
    )
    assert words("yavoch", 2, [0], "1-0-0-0", "") == "Lost"  # more seats, no reason given
    assert words("chess3d", 0, None, None, None) is None  # in play
