"""The gateway as people use it: sign in, meet in the lobby, play over HTTP and WebSocket,
resume a feed, export and audit; and what it refuses."""

import asyncio
import secrets
from typing import Any

import msgspec
import pytest
import websockets

from contracts.envelope import StoredEvent
from contracts.errors import ErrorCode
from domain.audit import audit
from services.runtime.eventstore import EventStore
from tests.gateway.conftest import Person, next_frame
from tests.rulesets import register

register()  # the in-process services and the gateway share this registry


def error_of(reply: Any) -> dict[str, Any]:
    body: dict[str, Any] = reply.json()["error"]
    return body


async def chess_game(people: Any) -> tuple[Person, Person, str]:
    """Ann challenges, Bob accepts: a 3-D Chess game, Ann White (seat 0)."""
    ann, bob = people(), people()
    await ann.sign_in("Ann")
    await bob.sign_in("Bob")
    opened = await ann.post("/api/challenges", {"ruleset": "chess3d"})
    assert opened.status_code == 201, opened.text
    challenge = opened.json()["challenge"]["id"]
    lobby = (await bob.get("/api/lobby")).json()
    assert challenge in [c["challenge"]["id"] for c in lobby["challenges"]]
    accepted = await bob.post(f"/api/challenges/{challenge}/accept")
    assert accepted.status_code == 200, accepted.text
    game_id: str = accepted.json()["game_id"]
    assert game_id
    return ann, bob, game_id


async def test_signing_in_sets_a_session_cookie_scripts_cannot_read(people: Any) -> None:
    ann = people()
    reply = await ann.http.post("/api/session", json={"name": "Ann"})
    assert reply.status_code == 200
    cookie = reply.headers["set-cookie"].lower()
    assert "httponly" in cookie
    assert "samesite=strict" in cookie
    assert reply.json()["name"] == "Ann"
    assert "session" not in reply.json()  # the id travels in the cookie only
    me = await ann.get("/api/session")
    assert me.json() == reply.json()
    stranger = people()
    refused = await stranger.get("/api/session")
    assert refused.status_code == 401
    assert error_of(refused)["code"] == ErrorCode.SIGN_IN


@pytest.mark.parametrize("name", ["", "   ", "<script>", "x" * 33, "a\nb", "Ann\u200b"])
async def test_a_bad_name_is_refused_with_a_code_and_no_session(people: Any, name: str) -> None:
    someone = people()
    reply = await someone.post("/api/session", {"name": name})
    assert reply.status_code == 400
    assert error_of(reply)["code"] == ErrorCode.MALFORMED
    assert "set-cookie" not in reply.headers


async def test_the_lobby_offers_every_ruleset_with_its_variants(people: Any) -> None:
    listed = (await people().get("/api/rulesets")).json()
    by_name = {r["name"]: r for r in listed}
    assert {"chess3d", "cyvasse", "yavoch", "race"} <= set(by_name)
    assert [v["name"] for v in by_name["cyvasse"]["variants"]["variants"]] == ["A", "B", "C"]
    assert by_name["race"]["seats"] == 2


async def test_two_people_play_a_game_to_its_end_and_its_export_passes_the_audit(
    people: Any, store: EventStore
) -> None:
    ann, bob, game_id = await chess_game(people)
    table = (await ann.get(f"/api/games/{game_id}")).json()
    assert table["you"] == 0
    assert [s["name"] for s in table["seated"]] == ["Ann", "Bob"]
    assert "IE2-IE4" in table["view"]["legal"]
    async with bob.feed(game_id) as ws:
        assert [e["type"] for e in (await next_frame(ws))["events"]] == ["GameCreated"]
        moved = await ann.post(f"/api/games/{game_id}/actions",
                               {"action": "IE2-IE4", "command_id": "m1"})  # fmt: skip
        assert moved.status_code == 200, moved.text
        receipt = moved.json()
        assert (receipt["version"], receipt["signature"] != "") == (2, True)
        assert [e["type"] for e in (await next_frame(ws))["events"]] == ["MovePlayed"]
        again = await ann.post(f"/api/games/{game_id}/actions",
                               {"action": "IIE2-IIE4", "command_id": "m2"})  # fmt: skip
        assert again.status_code == 409
        assert error_of(again) == {"code": ErrorCode.NOT_YOUR_TURN, "clause": "C3-4.1",
                                   "reason": "it is Black's turn"}  # fmt: skip
        # an illegal move over the WebSocket: a typed error frame, with the clause
        await ws.send(msgspec.json.encode({"action": "IIIE7-IIIE3", "command_id": "b1"}))
        refused = await next_frame(ws)
        assert (refused["type"], refused["command_id"]) == ("error", "b1")
        assert refused["error"]["code"] == ErrorCode.ILLEGAL_ACTION
        assert refused["error"]["clause"].startswith("C3-5.")
        await ws.send(msgspec.json.encode({"action": "resign", "command_id": "b2"}))
        frames = [await next_frame(ws), await next_frame(ws)]
        assert {f["type"] for f in frames} == {"receipt", "events"}
    view = (await bob.get(f"/api/games/{game_id}")).json()["view"]
    assert (view["result"], view["reason"]) == ("1-0", "resignation")
    exported = await ann.get(f"/api/games/{game_id}/export")
    assert exported.status_code == 200
    from services.runtime.codec import Exported  # the file `tabula export` writes

    lines = [msgspec.json.decode(line, type=Exported) for line in exported.content.splitlines()]
    assert [line.version for line in lines] == list(range(1, len(lines) + 1))
    stored = await store.read_all(game_id)
    assert [s.hash for s in stored][: len(lines)] == [line.hash for line in lines]
    report = audit(stored)
    assert report.ok, report.failure


async def test_a_feed_resumed_from_its_last_version_has_no_gap_and_no_duplicate(
    people: Any,
) -> None:
    ann, bob, game_id = await chess_game(people)
    moves = ["IE2-IE4", "IIIE7-IIIE5", "IG1-IF3", "IIIB8-IIIC6"]
    seen: list[int] = []
    async with ann.feed(game_id) as ws:
        seen += [e["version"] for e in (await next_frame(ws))["events"]]
        for i, move in enumerate(moves[:2]):
            mover = (ann, bob)[i % 2]
            await mover.post(
                f"/api/games/{game_id}/actions", {"action": move, "command_id": f"c{i}"}
            )
            seen += [e["version"] for e in (await next_frame(ws))["events"]]
    for i, move in enumerate(moves[2:], start=2):  # while Ann's page is away
        mover = (ann, bob)[i % 2]
        await mover.post(f"/api/games/{game_id}/actions", {"action": move, "command_id": f"c{i}"})
    async with ann.feed(game_id, after=seen[-1]) as ws:
        while len(seen) < 1 + len(moves):
            seen += [e["version"] for e in (await next_frame(ws))["events"]]
    assert seen == list(range(1, 2 + len(moves)))


async def test_a_retried_command_is_applied_once_and_another_players_replay_is_not_it(
    people: Any, store: EventStore
) -> None:
    ann, bob, game_id = await chess_game(people)
    first = await ann.post(
        f"/api/games/{game_id}/actions", {"action": "IE2-IE4", "command_id": "x"}
    )
    again = await ann.post(
        f"/api/games/{game_id}/actions", {"action": "IE2-IE4", "command_id": "x"}
    )
    assert again.json()["duplicate"] is True
    assert again.json()["version"] == first.json()["version"]
    # Bob replays Ann's public command id: it is his own command, refused on its merits
    stolen = await bob.post(
        f"/api/games/{game_id}/actions", {"action": "IE2-IE4", "command_id": "x"}
    )
    assert stolen.status_code == 422
    assert error_of(stolen)["code"] == ErrorCode.ILLEGAL_ACTION
    assert len(await store.read_all(game_id)) == 2


async def test_a_person_without_a_seat_acts_for_no_one(people: Any, store: EventStore) -> None:
    _ann, _bob, game_id = await chess_game(people)
    carol = people()
    await carol.sign_in("Carol")
    refused = await carol.post(f"/api/games/{game_id}/actions",
                               {"action": "IE2-IE4", "command_id": "c"})  # fmt: skip
    assert refused.status_code == 403
    assert error_of(refused)["code"] == ErrorCode.FORBIDDEN
    anonymous = people()
    unsigned = await anonymous.post(f"/api/games/{game_id}/actions",
                                    {"action": "IE2-IE4", "command_id": "c"})  # fmt: skip
    assert error_of(unsigned)["code"] == ErrorCode.SIGN_IN
    spectator = (await carol.get(f"/api/games/{game_id}")).json()
    assert spectator["you"] is None
    assert spectator["view"]["legal"] == []
    assert len(await store.read_all(game_id)) == 1


async def test_requests_from_another_site_are_refused_and_change_nothing(people: Any) -> None:
    ann = people()
    await ann.sign_in("Ann")
    forged = await ann.http.post("/api/challenges", json={"ruleset": "chess3d"},
                                 headers={"Origin": "https://evil.example"})  # fmt: skip
    assert forged.status_code == 403
    assert error_of(forged)["code"] == ErrorCode.FORBIDDEN
    form_type = {"Content-Type": "application/x-www-form-urlencoded"}
    form = await ann.http.post("/api/challenges", content=b"ruleset=chess3d", headers=form_type)
    assert form.status_code == 400
    me = (await ann.get("/api/session")).json()["id"]
    lobby = (await ann.get("/api/lobby")).json()["challenges"]
    assert [c for c in lobby if c["challenge"]["by"] == me] == []
    url = ann.base.replace("http", "ws", 1) + "/api/games/nope/ws"
    with pytest.raises(websockets.InvalidStatus):
        async with websockets.connect(url, origin="https://evil.example"):
            pass


async def test_a_challenge_with_a_bad_variant_is_a_typed_error(people: Any) -> None:
    ann = people()
    await ann.sign_in("Ann")
    reply = await ann.post("/api/challenges", {"ruleset": "chess3d", "variant": "queens=99"})
    assert reply.status_code == 400
    assert error_of(reply)["code"] == ErrorCode.BAD_VARIANT
    unknown = await ann.post("/api/challenges", {"ruleset": "nope"})
    assert error_of(unknown)["code"] == ErrorCode.UNKNOWN_RULESET


async def test_a_seat_is_taken_once(people: Any) -> None:
    ann, bob, carol = people(), people(), people()
    for p, name in ((ann, "Ann"), (bob, "Bob"), (carol, "Carol")):
        await p.sign_in(name)
    challenge = await ann.post("/api/challenges", {"ruleset": "race", "variant": "seats=3"})
    cid = challenge.json()["challenge"]["id"]
    mine = await ann.post(f"/api/challenges/{cid}/accept", {"seat": 1})  # Ann sits already
    assert [s["player"] for s in mine.json()["seated"]].count(
        mine.json()["seated"][0]["player"]
    ) == 1
    taken = await bob.post(f"/api/challenges/{cid}/accept", {"seat": 0})
    assert taken.status_code == 409
    assert error_of(taken)["code"] == ErrorCode.CONFLICT
    # two people race for the last two seats at once: both sit, the game is made once
    replies = await asyncio.gather(bob.post(f"/api/challenges/{cid}/accept"),
                                   carol.post(f"/api/challenges/{cid}/accept"))  # fmt: skip
    assert all(r.status_code == 200 for r in replies)
    shown = (await ann.get(f"/api/challenges/{cid}")).json()
    assert len(shown["seated"]) == 3
    assert shown["game_id"]


async def test_each_rules_page_has_an_anchor_for_the_clauses_refusals_cite(people: Any) -> None:
    page = await people().get("/rules/chess3d")
    assert page.status_code == 200
    assert 'id="C3-4.1"' in page.text
    # a variant ruleset's clauses are on its family's page (the UI links /rules/<ruleset>#id)
    variant = await people().get("/rules/spacewar-ha")
    assert variant.status_code == 200
    assert 'id="HA-5.6"' in variant.text
    assert (await people().get("/rules/nope")).status_code == 404
    assert (await people().get("/rules/..%2Fsecrets")).status_code == 404
    assert (await people().get("/rules/chess3d-")).status_code == 404


class Frame(msgspec.Struct):
    type: str
    events: list[StoredEvent] = []


async def test_nothing_hidden_reaches_the_opponent_or_a_spectator(
    people: Any, store: EventStore, redis: Any
) -> None:
    """A race (dice, private cards, a hidden setup) played through the gateway: every frame
    the opponent and a spectator receive before the end hides the other seat's cards, and no
    frame or reply ever holds a seat token."""
    from domain import fairplay
    from services.runtime import keys

    ann, bob, carol = people(), people(), people()
    for p, name in ((ann, "Ann"), (bob, "Bob"), (carol, "Carol")):
        await p.sign_in(name)
    cid = (await ann.post("/api/challenges", {"ruleset": "race"})).json()["challenge"]["id"]
    game_id = (await bob.post(f"/api/challenges/{cid}/accept")).json()["game_id"]
    table = await redis.hgetall(keys.table_key(game_id))
    tokens = [v for k, v in table.items() if k.startswith(b"token:")]
    assert len(tokens) == 2
    frames: dict[str, list[bytes]] = {"bob": [], "carol": []}
    replies: list[bytes] = []

    async def record(person: Person, who: str) -> None:
        """Every frame of the person's feed, until the game is sealed."""
        async with person.feed(game_id) as ws:
            while True:
                frames[who].append(await ws.recv())
                frame = msgspec.json.decode(frames[who][-1], type=Frame)
                if any(e.type == "GameSealed" for e in frame.events):
                    return

    listeners = [asyncio.create_task(record(bob, "bob")),
                 asyncio.create_task(record(carol, "carol"))]  # fmt: skip
    seeds = {0: "annseed0123456789ab", 1: "bobseed0123456789ab"}
    nonces = {0: secrets.token_hex(32), 1: secrets.token_hex(32)}
    setup = b'{"boost":1}'
    steps = {
        seat: [
            f"seed-commit {fairplay.client_seed_commitment(game_id, seat, seeds[seat])}",
            f"seed-reveal {seeds[seat]}",
            f"setup-commit {fairplay.setup_commitment(game_id, seat, nonces[seat], setup)}",
            f"setup-reveal {nonces[seat]} {setup.decode()}",
        ]
        for seat in (0, 1)
    }
    players = {0: ann, 1: bob}
    for _ in range(400):
        view = (await ann.get(f"/api/games/{game_id}")).json()["view"]
        if view["phase"] == "ended":
            break
        for seat in view["to_act"]:
            me = await players[seat].get(f"/api/games/{game_id}")
            replies.append(me.content)
            if steps[seat]:
                action = steps[seat].pop(0)
            else:  # draw cards when it may, play them, else roll
                legal = me.json()["view"]["legal"]
                action = next((a for a in legal if a.startswith("play")),
                              "draw" if "draw" in legal else "roll")  # fmt: skip
            reply = await players[seat].post(f"/api/games/{game_id}/actions",
                                             {"action": action,
                                              "command_id": secrets.token_hex(8)})  # fmt: skip
            replies.append(reply.content)
    else:
        pytest.fail("the race did not end")
    await asyncio.wait_for(asyncio.gather(*listeners), 60)
    stored = await store.read_all(game_id)
    assert audit(stored).ok
    assert any(s.type == "CardDealt" for s in stored)  # there were secrets to keep
    everything = b"".join(frames["bob"] + frames["carol"] + replies)
    for token in tokens:
        assert token not in everything
    ended = next(s.version for s in stored if s.type == "GameEnded")
    for who, hidden in (("bob", {0}), ("carol", {0, 1})):
        seen = [e for f in frames[who] for e in msgspec.json.decode(f, type=Frame).events]
        assert [e.version for e in seen] == [s.version for s in stored]
        for e in seen:
            body = msgspec.json.decode(bytes(e.body))
            if e.version < ended and e.type == "CardDealt" and body["seat"] in hidden:
                assert (body.get("card", ""), body.get("salt", "")) == ("", ""), (who, e)


async def test_the_waiting_player_claims_a_game_whose_mover_ran_out_of_time(people: Any) -> None:
    """A challenge with a time per move: the view says how long the mover has, a claim before
    it runs out is refused with its clause, and after it the waiting player wins on time."""
    ann, bob = people(), people()
    await ann.sign_in("Ann")
    await bob.sign_in("Bob")
    slow = await ann.post("/api/challenges", {"ruleset": "chess3d", "move_deadline_ms": 3_600_000})
    slow_game = (await bob.post(f"/api/challenges/{slow.json()['challenge']['id']}/accept")).json()
    view = (await bob.get(f"/api/games/{slow_game['game_id']}")).json()["view"]
    assert view["move_deadline_ms"] == 3_600_000
    assert view["last_event_ms"] > 0
    early = await bob.post(f"/api/games/{slow_game['game_id']}/actions",
                           {"action": "claim-timeout", "command_id": "early"})  # fmt: skip
    assert early.status_code == 422
    assert error_of(early)["clause"] == "move-deadline"
    # a time per move of 1 ms: gone by the time Bob's claim arrives
    fast = await ann.post("/api/challenges", {"ruleset": "chess3d", "move_deadline_ms": 1})
    game_id = (await bob.post(f"/api/challenges/{fast.json()['challenge']['id']}/accept")).json()
    claimed = await bob.post(f"/api/games/{game_id['game_id']}/actions",
                             {"action": "claim-timeout", "command_id": "late"})  # fmt: skip
    assert claimed.status_code == 200, claimed.text
    view = (await ann.get(f"/api/games/{game_id['game_id']}")).json()["view"]
    assert (view["result"], view["reason"]) == ("0-1", "timeout")


async def test_a_person_plays_house_bots_that_answer_every_move(people: Any) -> None:
    """A race against the house: the bot (seat 0) makes its seed and setup, moves, and answers
    Ann's move; Ann's seed and setup are her own."""
    from domain import fairplay

    ann = people()
    await ann.sign_in("Ann")
    made = await ann.post("/api/bots", {"ruleset": "race", "seat": 1})
    assert made.status_code == 201, made.text
    game_id = made.json()["game_id"]
    table = (await ann.get(f"/api/games/{game_id}")).json()
    seated = [(s["seat"], s["name"]) for s in table["seated"]]
    assert seated == [(0, "Bot, level 3 (club)"), (1, "Ann")]  # the default level
    assert table["you"] == 1
    seed, nonce, setup = "annseed0123456789ab", "cd" * 32, b'{"boost":0}'
    steps = [
        f"seed-commit {fairplay.client_seed_commitment(game_id, 1, seed)}",
        f"seed-reveal {seed}",
        f"setup-commit {fairplay.setup_commitment(game_id, 1, nonce, setup)}",
        f"setup-reveal {nonce} {setup.decode()}",
        "roll",
    ]
    async with ann.feed(game_id) as ws:

        async def until_ann_acts() -> None:
            while 1 not in (await ann.get(f"/api/games/{game_id}")).json()["view"]["to_act"]:
                await next_frame(ws)  # the bot's turn: wait for its events

        for i, action in enumerate(steps):
            await until_ann_acts()
            reply = await ann.post(f"/api/games/{game_id}/actions",
                                   {"action": action, "command_id": f"s{i}"})  # fmt: skip
            assert reply.status_code == 200, reply.text
        await until_ann_acts()  # the bot has answered Ann's roll (a roll or a card)
    log = (await ann.get(f"/api/games/{game_id}/events")).json()
    kinds = [(e["type"], e["body"].get("seat")) for e in log]
    assert kinds.count(("SetupRevealed", 0)) == 1  # the bot's own setup
    turns = [seat for kind, seat in kinds if kind in ("Advanced", "CardDealt")]
    assert turns[:3] == [0, 1, 0]  # the bot moved first, Ann rolled, the bot answered
