"""Accounts: a name and a password (kept only as its Argon2id hash), signed in from any
browser; a guest who registers keeps its games; a name is one account whatever its case."""

import asyncio
import secrets
from collections.abc import Callable
from typing import Any

import pytest
from cryptography.hazmat.primitives.kdf.argon2 import Argon2id

from contracts.errors import ErrorCode
from services.gateway.people import HASHER, Accounts, likeness
from services.runtime.bus import TabulaError
from tests.gateway.conftest import Person

PASSWORD = "correct horse battery staple"


async def register(person: Person, name: str, password: str = PASSWORD) -> Any:
    return await person.post("/api/accounts", {"name": name, "password": password})


async def test_an_account_signs_in_anywhere_with_its_password_kept_only_as_argon2id(
    people: Callable[[], Person], redis: Any
) -> None:
    home, phone = people(), people()
    made = await register(home, "Zelda")
    assert made.status_code == 201, made.text
    account = made.json()
    assert account["account"] is True
    cookie = made.headers["set-cookie"].lower()
    assert "httponly" in cookie
    assert "samesite=strict" in cookie
    assert (await home.get("/api/session")).json() == account
    # another browser: the same player, by password
    signed = await phone.post("/api/session", {"name": "zelda", "password": PASSWORD})
    assert signed.status_code == 200, signed.text
    assert signed.json() == account
    # the store keeps the hash, in the PHC string of RFC 9106's parameters, never the password
    stored = await redis.hgetall("tabula:gw:account:zelda")
    assert stored[b"hash"].startswith(b"$argon2id$v=19$m=65536,t=3,p=4$")
    async for key in redis.scan_iter("tabula:gw:*"):
        if await redis.type(key) == b"hash":
            assert PASSWORD.encode() not in b"".join((await redis.hgetall(key)).values())


async def test_a_wrong_password_or_an_unknown_name_is_the_same_typed_refusal(
    people: Callable[[], Person],
) -> None:
    owner, stranger = people(), people()
    assert (await register(owner, "Link")).status_code == 201
    for name, password in (("Link", "not the password"), ("Nobody", PASSWORD)):
        reply = await stranger.post("/api/session", {"name": name, "password": password})
        assert reply.status_code == 401, reply.text
        error = {"code": ErrorCode.SIGN_IN, "reason": "wrong name or password", "clause": ""}
        assert reply.json()["error"] == error
        assert "set-cookie" not in reply.headers
    assert (await stranger.get("/api/session")).status_code == 401


async def test_a_name_is_one_account_and_no_guest_takes_it(
    people: Callable[[], Person], redis: Any
) -> None:
    first, second, guest = people(), people(), people()
    assert (await register(first, "Impa")).status_code == 201
    taken = await register(second, "IMPA", "another password")
    assert taken.status_code == 409
    assert taken.json()["error"]["code"] == ErrorCode.CONFLICT
    posing = await guest.post("/api/session", {"name": "impa"})
    assert posing.status_code == 409
    assert "account" in posing.json()["error"]["reason"]
    # bad input creates nothing
    short = await register(second, "Ganon", "short")
    assert short.status_code == 400
    assert short.json()["error"]["code"] == ErrorCode.MALFORMED
    assert not await redis.exists("tabula:gw:account:ganon")
    assert (await second.get("/api/session")).status_code == 401


async def test_a_guest_who_registers_keeps_its_games_and_its_old_session_ends(
    people: Callable[[], Person],
) -> None:
    ann, bob = people(), people()
    guest = await ann.sign_in("Ann")
    await bob.sign_in("Bob")
    cid = (await ann.post("/api/challenges", {"ruleset": "chess3d"})).json()["challenge"]["id"]
    game_id = (await bob.post(f"/api/challenges/{cid}/accept")).json()["game_id"]
    old_cookie = dict(ann.http.cookies)
    made = await register(ann, "Ann Account")
    assert made.status_code == 201, made.text
    assert made.json() == {"id": guest["id"], "name": "Ann Account", "account": True}
    assert game_id in [g["game_id"] for g in (await ann.get("/api/lobby")).json()["mine"]]
    assert (await ann.get(f"/api/games/{game_id}")).json()["you"] == 0
    # the guest's cookie no longer signs anyone in
    stale = Person(ann.base)
    try:
        stale.http.cookies.update(old_cookie)
        assert (await stale.get("/api/session")).status_code == 401
    finally:
        await stale.close()


async def test_hashes_at_once_all_answer_and_accounts_hashed_before_still_sign_in(
    people: Callable[[], Person], redis: Any
) -> None:
    """Eight password sign-ins (right and wrong) and eight registrations at once are each
    answered rightly: two Argon2id hashes at once used to hang every sign-in for good (issue
    20). An account whose hash the former library made (p=4) still signs in among them."""
    owner = people()
    assert (await register(owner, "Mipha")).status_code == 201
    kdf = Argon2id(salt=secrets.token_bytes(16), length=32, iterations=3, lanes=4,
                   memory_cost=64 * 1024)  # fmt: skip
    made_before = kdf.derive_phc_encoded(PASSWORD.encode())
    await redis.hset("tabula:gw:account:revali", mapping={"player": "a" + "0" * 16,
                     "name": "Revali", "hash": made_before})  # fmt: skip

    async def sign_in(i: int) -> tuple[str, int]:
        name, right = ("Mipha", "Revali")[i % 2], i % 4 < 2
        password = PASSWORD if right else "not the password"
        reply = await people().post("/api/session", {"name": name, "password": password})
        return f"{name} {'right' if right else 'wrong'}", reply.status_code

    async def make(i: int) -> tuple[str, int]:
        return f"new {i}", (await register(people(), f"Sidon {i}")).status_code

    # The bound is the failure (a hang), not a wait: every reply comes as soon as it can.
    replies = await asyncio.wait_for(
        asyncio.gather(*(sign_in(i) for i in range(8)), *(make(i) for i in range(8))), 120
    )
    expected = {"Mipha right": 200, "Revali right": 200, "Mipha wrong": 401, "Revali wrong": 401}
    assert replies[:8] == [(what, expected[what]) for what, _ in replies[:8]]
    assert replies[8:] == [(f"new {i}", 201) for i in range(8)]


async def test_a_hash_not_answered_in_time_is_a_typed_503_and_stuck_ones_are_bounded(
    redis: Any,
) -> None:
    """A hash that takes longer than its timeout is refused with 503 service/unavailable (a
    retry); its thread cannot be stopped and keeps its place, so past the bound on hashes
    outstanding the next is refused at once instead of piling up threads."""
    accounts = Accounts(redis, hash_timeout_s=0.0, hashes_outstanding=1)
    with pytest.raises(TabulaError) as slow:
        await accounts.register("Daruk", PASSWORD, None)
    assert slow.value.code == ErrorCode.UNAVAILABLE
    assert accounts.outstanding == 1  # still hashing in its thread
    with pytest.raises(TabulaError) as busy:
        await accounts.register("Daruk", PASSWORD, None)
    assert busy.value.code == ErrorCode.UNAVAILABLE
    assert not await redis.exists("tabula:gw:account:daruk")
    for _ in range(600):  # the abandoned hash returns and gives its place back
        if accounts.outstanding == 0:
            break
        await asyncio.sleep(0.05)
    assert accounts.outstanding == 0
    accounts.hash_timeout_s = 60.0
    assert (await accounts.register("Daruk", PASSWORD, None)).name == "Daruk"


async def test_a_name_that_looks_like_an_accounts_is_refused_and_names_are_kept_in_nfkc(
    people: Callable[[], Person], redis: Any
) -> None:
    """Look-alikes of an account's name (Cyrillic letters, fullwidth ones, mixed case) are
    refused with a typed conflict, to accounts and guests alike; of two look-alikes registered
    at once, one is made; a name is kept and shown in NFKC."""
    assert (await register(people(), "paul")).status_code == 201
    for look_alike in ("p\u0430ul", "\uff50\uff41\uff55\uff4c", "\u0420\u0410UL"):
        taken = await register(people(), look_alike, "another password")
        assert taken.status_code == 409, (look_alike, taken.text)
        assert taken.json()["error"]["code"] == ErrorCode.CONFLICT
        assert "looks like a taken name" in taken.json()["error"]["reason"]
        posing = await people().post("/api/session", {"name": look_alike})
        assert posing.status_code == 409, (look_alike, posing.text)
        assert "an account's name, or looks like one" in posing.json()["error"]["reason"]
    # Cyrillic і and Latin i at once: the likeness is claimed once
    both = await asyncio.gather(register(people(), "Tingle"), register(people(), "T\u0456ngle"))
    assert sorted(r.status_code for r in both) == [201, 409]
    made = await register(people(), "\uff2b\uff4f\uff52\uff4f\uff4b")  # fullwidth Korok
    assert made.status_code == 201, made.text
    assert made.json()["name"] == "Korok"
    assert (await redis.hget("tabula:gw:account:korok", "name")) == b"Korok"
    assert (await people().post("/api/session", {"name": "korok", "password": PASSWORD})
            ).status_code == 200  # fmt: skip


async def test_an_account_made_before_likeness_keys_claims_its_look_alikes_when_it_signs_in(
    people: Callable[[], Person], redis: Any
) -> None:
    """An account stored before names had likeness keys still signs in, and from then on its
    look-alikes are refused."""
    await redis.hset("tabula:gw:account:beedle", mapping={"player": "a" + "1" * 16,
                     "name": "Beedle", "hash": HASHER.hash(PASSWORD)})  # fmt: skip
    signed = await people().post("/api/session", {"name": "Beedle", "password": PASSWORD})
    assert signed.status_code == 200, signed.text
    assert await redis.get(f"tabula:gw:account-likeness:{likeness('Beedle')}") == b"beedle"
    assert (await register(people(), "B\u0435edle")).status_code == 409  # Cyrillic е
