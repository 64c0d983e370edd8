"""Accounts: a name and a password (kept only as its Argon2id hash), signed in from any
browser; a guest who registers keeps its games; a name is one account whatever its case."""

from collections.abc import Callable
from typing import Any

from contracts.errors import ErrorCode
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
    assert game_id in (await ann.get("/api/lobby")).json()["mine"]
    assert (await ann.get(f"/api/games/{game_id}")).json()["you"] == 0
    # the guest's cookie no longer signs anyone in
    stale = Person(ann.base)
    try:
        stale.http.cookies.update(old_cookie)
        assert (await stale.get("/api/session")).status_code == 401
    finally:
        await stale.close()
