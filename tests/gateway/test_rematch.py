"""Rematches after a game, and challenges to a named player (issue 23)."""

import asyncio
import secrets
from collections.abc import Callable
from typing import Any

from contracts.errors import ErrorCode
from services.gateway.lobby import OPEN_PER_PLAYER
from tests.gateway.conftest import Person

PASSWORD = "correct horse battery"
CLOCK = {"base_ms": 600_000, "increment_ms": 5_000}
DEADLINE_MS = 3_600_000
VARIANT = "queen_directions=18"


def error_code(reply: Any) -> str:
    code: str = reply.json()["error"]["code"]
    return code


async def account(people: Callable[[], Person], name: str) -> tuple[Person, dict[str, Any]]:
    """A person signed in to a new account (names are unique to the test run's store)."""
    person = people()
    reply = await person.post("/api/accounts", {"name": f"{name} {secrets.token_hex(3)}",
                                                "password": PASSWORD})  # fmt: skip
    assert reply.status_code == 201, reply.text
    me: dict[str, Any] = reply.json()
    return person, me


async def ended_game(people: Callable[[], Person]) -> tuple[Person, Person, str]:
    """Ann (White, seat 0) and Bob play a rated 3-D Chess game of a variant, with clocks and a
    time per move; Ann moves, Bob resigns."""
    ann, _ = await account(people, "Ann")
    bob, _ = await account(people, "Bob")
    opened = await ann.post("/api/challenges", {"ruleset": "chess3d", "rated": True,
                                                "variant": VARIANT, "clock": CLOCK,
                                                "move_deadline_ms": DEADLINE_MS})  # fmt: skip
    assert opened.status_code == 201, opened.text
    accepted = await bob.post(f"/api/challenges/{opened.json()['challenge']['id']}/accept")
    assert accepted.status_code == 200, accepted.text
    game_id: str = accepted.json()["game_id"]
    early = await ann.post(f"/api/games/{game_id}/rematch")
    assert (early.status_code, error_code(early)) == (409, ErrorCode.IN_PLAY)
    assert (await ann.get(f"/api/games/{game_id}")).json()["rematch"] is None
    moved = await ann.post(f"/api/games/{game_id}/actions",
                           {"action": "IE2-IE4", "command_id": "m1"})  # fmt: skip
    assert moved.status_code == 200, moved.text
    resigned = await bob.post(f"/api/games/{game_id}/actions",
                              {"action": "resign", "command_id": "r1"})  # fmt: skip
    assert resigned.status_code == 200, resigned.text
    return ann, bob, game_id


async def listed(person: Person, listing: str) -> list[str]:
    """The ids of the challenges in one of the lobby's listings, as this person sees it."""
    return [c["challenge"]["id"] for c in (await person.get("/api/lobby")).json()[listing]]


async def rematch_of(person: Person, game_id: str) -> Any:
    reply = await person.get(f"/api/games/{game_id}")
    assert reply.status_code == 200, reply.text
    return reply.json()["rematch"]


async def first_event(person: Person, game_id: str) -> dict[str, Any]:
    events = (await person.get(f"/api/games/{game_id}/events?after=0")).json()
    assert events[0]["type"] == "GameCreated"
    body: dict[str, Any] = events[0]["body"]
    return body


async def test_an_offered_rematch_accepted_makes_the_game_again_colours_rotated(
    people: Callable[[], Person],
) -> None:
    ann, bob, game_id = await ended_game(people)
    stranger = people()
    await stranger.sign_in("Cy")
    assert (await stranger.post(f"/api/games/{game_id}/rematch")).status_code == 403
    assert (await rematch_of(bob, game_id)) is None
    offered = await ann.post(f"/api/games/{game_id}/rematch")
    assert offered.status_code == 200, offered.text
    mine = offered.json()
    ann_name = mine["seated"][0]["name"]
    assert [(s["seat"], s["name"]) for s in mine["seated"]] == [(1, ann_name)]
    assert (mine["you_invited"], mine["your_seat"], mine["declined"]) == (False, 1, False)
    theirs = await rematch_of(bob, game_id)
    assert (theirs["by"], theirs["you_invited"], theirs["your_seat"]) == (ann_name, True, 0)
    assert theirs["game_id"] == ""
    # Bob's lobby lists it among the challenges to him; nobody's public listing does.
    assert await listed(bob, "invitations") == [theirs["challenge_id"]]
    assert theirs["challenge_id"] not in await listed(stranger, "challenges")
    # A stranger may neither take it nor decline it.
    taken = await stranger.post(f"/api/games/{game_id}/rematch/accept")
    assert (taken.status_code, error_code(taken)) == (403, ErrorCode.FORBIDDEN)
    assert (await stranger.http.delete(f"/api/games/{game_id}/rematch")).status_code == 403
    accepted = await bob.post(f"/api/games/{game_id}/rematch/accept")
    assert accepted.status_code == 200, accepted.text
    again = accepted.json()["game_id"]
    assert again
    assert again != game_id
    assert (await rematch_of(ann, game_id))["game_id"] == again
    assert await listed(bob, "invitations") == []
    table = (await bob.get(f"/api/games/{again}")).json()
    assert table["you"] == 0  # Bob plays White now
    assert [s["name"] for s in table["seated"]] == [theirs["invited"][0]["name"], ann_name]
    assert table["view"]["move_deadline_ms"] == DEADLINE_MS
    assert table["view"]["clock"]["base_ms"] == CLOCK["base_ms"]
    created = await first_event(bob, again)
    assert created["rated"] is True
    assert created["clock"] == CLOCK
    assert created["variant"] == (await first_event(bob, game_id))["variant"]
    assert "queen_directions=18" in created["variant"]


async def test_a_declined_rematch_is_shown_declined_and_may_be_offered_again(
    people: Callable[[], Person],
) -> None:
    ann, bob, game_id = await ended_game(people)
    assert (await ann.post(f"/api/games/{game_id}/rematch")).status_code == 200
    declined = await bob.http.delete(f"/api/games/{game_id}/rematch")
    assert declined.status_code == 200, declined.text
    bob_name = (await bob.get("/api/session")).json()["name"]
    seen = await rematch_of(ann, game_id)
    assert (seen["declined"], seen["declined_by"], seen["game_id"]) == (True, bob_name, "")
    assert (await rematch_of(bob, game_id))["you_invited"] is False
    late = await bob.post(f"/api/games/{game_id}/rematch/accept")
    assert (late.status_code, error_code(late)) == (409, ErrorCode.CONFLICT)
    # Offered again (by Bob now), then withdrawn by its offerer: Ann sees it declined.
    assert (await bob.post(f"/api/games/{game_id}/rematch")).status_code == 200
    assert (await rematch_of(ann, game_id))["you_invited"] is True
    assert (await bob.http.delete(f"/api/games/{game_id}/rematch")).status_code == 200
    assert (await rematch_of(ann, game_id))["declined_by"] == bob_name
    # An offer made after another's is its acceptance.
    assert (await ann.post(f"/api/games/{game_id}/rematch")).status_code == 200
    second = await bob.post(f"/api/games/{game_id}/rematch")
    assert second.status_code == 200, second.text
    assert second.json()["game_id"]


async def test_two_players_offering_at_once_make_one_game(
    people: Callable[[], Person], redis: Any
) -> None:
    ann, bob, game_id = await ended_game(people)
    replies = await asyncio.gather(ann.post(f"/api/games/{game_id}/rematch"),
                                   bob.post(f"/api/games/{game_id}/rematch"))  # fmt: skip
    assert [r.status_code for r in replies] == [200, 200], [r.text for r in replies]
    seen = [await rematch_of(p, game_id) for p in (ann, bob)]
    assert seen[0]["game_id"]
    assert seen[0]["game_id"] == seen[1]["game_id"]
    ann_id = (await ann.get("/api/session")).json()["id"]
    assert await redis.zcard(f"tabula:gw:player:{ann_id}:games") == 2  # the game, one rematch


async def test_a_challenge_to_a_named_player_is_theirs_alone(
    people: Callable[[], Person],
) -> None:
    ann, _ = await account(people, "Ann")
    bob, bob_me = await account(people, "Bob")
    cy = people()
    await cy.sign_in("Cy")
    nobody = f"Nobody {secrets.token_hex(4)}"
    unknown = await ann.post("/api/challenges", {"ruleset": "chess3d", "opponent": nobody})
    assert (unknown.status_code, error_code(unknown)) == (404, ErrorCode.UNKNOWN_PLAYER)
    guest = await ann.post("/api/challenges", {"ruleset": "chess3d", "opponent": "Cy"})
    assert guest.status_code == 404  # a guest's name is nobody's: no account has it
    opened = await ann.post("/api/challenges", {"ruleset": "chess3d", "seat": 1,
                                                "opponent": bob_me["name"].upper()})  # fmt: skip
    assert opened.status_code == 201, opened.text
    cid = opened.json()["challenge"]["id"]
    assert [i["player"] for i in opened.json()["challenge"]["invited"]] == [bob_me["id"]]
    assert cid not in await listed(cy, "challenges")
    assert await listed(ann, "sent") == [cid]
    assert await listed(bob, "invitations") == [cid]
    refused = await cy.post(f"/api/challenges/{cid}/accept")
    assert (refused.status_code, error_code(refused)) == (403, ErrorCode.FORBIDDEN)
    accepted = await bob.post(f"/api/challenges/{cid}/accept")
    assert accepted.status_code == 200, accepted.text
    game_id = accepted.json()["game_id"]
    assert game_id
    assert (await bob.get(f"/api/games/{game_id}")).json()["you"] == 0
    assert await listed(bob, "invitations") == []


async def test_named_challenges_count_against_the_cap_and_may_be_declined(
    people: Callable[[], Person],
) -> None:
    ann, ann_me = await account(people, "Ann")
    bob, bob_me = await account(people, "Bob")
    itself = await ann.post("/api/challenges", {"ruleset": "chess3d",
                                                "opponent": ann_me["name"]})  # fmt: skip
    assert (itself.status_code, error_code(itself)) == (400, ErrorCode.MALFORMED)
    ids = []
    for _ in range(OPEN_PER_PLAYER):
        opened = await ann.post("/api/challenges", {"ruleset": "chess3d",
                                                    "opponent": bob_me["name"]})  # fmt: skip
        assert opened.status_code == 201, opened.text
        ids.append(opened.json()["challenge"]["id"])
    over = await ann.post("/api/challenges", {"ruleset": "chess3d", "opponent": bob_me["name"]})
    assert (over.status_code, error_code(over)) == (429, ErrorCode.RATE_LIMITED)
    # Bob declines one: it leaves his invitations and Ann's cap, and shows who declined it.
    assert (await bob.http.delete(f"/api/challenges/{ids[0]}")).status_code == 200
    assert (await bob.get(f"/api/challenges/{ids[0]}")).json()["declined"] == bob_me["name"]
    assert sorted(await listed(bob, "invitations")) == sorted(ids[1:])
    room = await ann.post("/api/challenges", {"ruleset": "chess3d", "opponent": bob_me["name"]})
    assert room.status_code == 201, room.text
