"""One player cannot fill the lobby: a few open challenges each, each lapsing with its keys,
and only a few of anyone's listed (issue 20: one guest had opened 500 that never expired)."""

import asyncio
from collections.abc import Callable
from typing import Any

from contracts.errors import ErrorCode
from services.gateway.lobby import CHALLENGE_TTL_S, LISTED_PER_CHALLENGER, OPEN_PER_PLAYER
from tests.gateway.conftest import Person

CHALLENGES = "tabula:gw:challenges"


async def open_challenge(person: Person) -> Any:
    return await person.post("/api/challenges", {"ruleset": "chess3d"})


async def opened_ids(person: Person, count: int) -> list[str]:
    ids = []
    for _ in range(count):
        reply = await open_challenge(person)
        assert reply.status_code == 201, reply.text
        ids.append(reply.json()["challenge"]["id"])
    return ids


async def listed(person: Person) -> list[str]:
    return [c["challenge"]["id"] for c in (await person.get("/api/lobby")).json()["challenges"]]


async def test_a_player_has_a_few_open_challenges_at_most(people: Callable[[], Person]) -> None:
    """Past OPEN_PER_PLAYER open challenges the next is refused (429); withdrawing one makes
    room again."""
    ann = people()
    await ann.sign_in("Ann")
    ids = await opened_ids(ann, OPEN_PER_PLAYER)
    refused = await open_challenge(ann)
    assert refused.status_code == 429, refused.text
    assert refused.json()["error"]["code"] == ErrorCode.RATE_LIMITED
    assert f"at most {OPEN_PER_PLAYER} open challenges" in refused.json()["error"]["reason"]
    assert [c for c in await listed(ann) if c in ids] == ids[::-1][:LISTED_PER_CHALLENGER]
    assert (await ann.http.delete(f"/api/challenges/{ids[0]}")).status_code == 200
    assert (await open_challenge(ann)).status_code == 201


async def test_opened_at_once_they_still_do_not_pass_the_cap(
    people: Callable[[], Person],
) -> None:
    """Each is counted after it is added, so challenges opened at once cannot all take the
    last place."""
    bea = people()
    await bea.sign_in("Bea")
    replies = await asyncio.gather(*(open_challenge(bea) for _ in range(OPEN_PER_PLAYER + 3)))
    made = [r for r in replies if r.status_code == 201]
    assert 0 < len(made) <= OPEN_PER_PLAYER
    assert {r.status_code for r in replies} == {201, 429}


async def test_a_challenge_lapses_with_its_keys_and_leaves_the_listing_and_the_cap(
    people: Callable[[], Person], redis: Any
) -> None:
    """A challenge's keys expire after CHALLENGE_TTL_S; once the store has expired them (here
    forced with PEXPIRE, as Valkey would after the hour), the lobby no longer lists it, its id
    leaves the index, and it no longer counts against its challenger's cap."""
    carl = people()
    await carl.sign_in("Carl")
    cid, *others = await opened_ids(carl, OPEN_PER_PLAYER)
    for key in (f"tabula:gw:challenge:{cid}", f"tabula:gw:challenge:{cid}:seats"):
        assert 0 < await redis.ttl(key) <= CHALLENGE_TTL_S
        await redis.pexpire(key, 1)
    for _ in range(400):  # until the store has expired them (its clock, not a guess at it)
        if not await redis.exists(f"tabula:gw:challenge:{cid}"):
            break
        await asyncio.sleep(0.005)
    assert not await redis.exists(f"tabula:gw:challenge:{cid}")
    assert await redis.zscore(CHALLENGES, cid) is not None  # still indexed, until listed
    shown = await listed(carl)
    assert cid not in shown
    assert await redis.zscore(CHALLENGES, cid) is None
    assert [c for c in shown if c in others] == others[::-1][:LISTED_PER_CHALLENGER]
    assert (await open_challenge(carl)).status_code == 201  # the lapsed one left the cap


async def test_the_listing_shows_a_few_of_each_challengers(people: Callable[[], Person]) -> None:
    """One player's challenges take at most LISTED_PER_CHALLENGER places in the listing (the
    newest), so everyone else's are listed beside them."""
    dan, eve = people(), people()
    await dan.sign_in("Dan")
    await eve.sign_in("Eve")
    eves = await opened_ids(eve, 1)
    dans = await opened_ids(dan, OPEN_PER_PLAYER)
    shown = await listed(eve)
    assert [c for c in shown if c in dans] == dans[::-1][:LISTED_PER_CHALLENGER]
    assert eves[0] in shown
