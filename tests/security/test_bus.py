"""Attacks on the bus, run as an attacker would: a NATS connection with the player credential
that every player and bot holds (or none), against the services on closed servers. Each attack
fails with a typed refusal and nothing changes (issue 9: attacks 1, 2, 3, 4 and 8)."""

import asyncio
import uuid
from collections.abc import Callable
from urllib.parse import urlsplit

import msgspec
import nats
import pytest
from cryptography.exceptions import InvalidTag

from contracts import subjects
from contracts.commands import (
    Assignment,
    Cancel,
    Cancelled,
    Created,
    CreateGame,
    Draw,
    Enqueue,
    PlaySeat,
    Queued,
)
from contracts.errors import ErrorCode
from services.client.client import Client, TabulaError
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore
from services.runtime.keys import drawn_key, secret_key
from services.runtime.sealing import new_reply_key, open_sealed
from tests.conftest import Servers
from tests.security.conftest import Attacker, connect_as


async def test_without_a_credential_the_bus_is_closed(closed_servers: Servers) -> None:
    """The NATS protocol by hand, as the plainest client would speak it."""
    url = urlsplit(closed_servers.nats_url)
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    try:
        assert (await reader.readline()).startswith(b"INFO ")
        writer.write(b'CONNECT {"verbose":false}\r\nSUB tabula.> 1\r\nPING\r\n')
        await writer.drain()
        assert await reader.readline() == b"-ERR 'Authorization Violation'\r\n"
        assert await reader.read() == b""  # and the server hangs up
    finally:
        writer.close()
        await writer.wait_closed()


@pytest.mark.parametrize(
    "subject",
    [
        subjects.RULES_ACT,  # every act request holds a seat token
        f"{subjects.PREFIX}.rules.>",
        f"{subjects.PREFIX}.random.>",  # the rules service's draw requests
        subjects.MATCH_ENQUEUE,  # the tickets' owner secrets
        subjects.BOTS_PLAY,  # the bots' seat tokens, handed over by the gateway
        "_INBOX.rules.>",  # the randomness service's answers to the rules service
        "_INBOX.matchmaking.>",  # the rules service's answers to matchmaking
        "_INBOX.>",
        f"{subjects.PREFIX}.game.>",
        ">",
        "$SRV.>",
    ],
)
async def test_a_player_cannot_listen_to_requests_or_service_replies(
    attacker: Attacker, victim: Client, subject: str
) -> None:
    await attacker.listen(subject)
    refusal = await attacker.refusal()
    assert f'permissions violation for subscription to "{subject.lower()}"' in refusal
    created = await victim.create_game("chess3d")
    await victim.act(created.game_id, 0, created.seats[0].token, "IE2-IE4")
    await victim.view(created.game_id)
    await attacker.nc.flush()
    assert attacker.heard == []


@pytest.mark.parametrize(
    "subject",
    [
        subjects.RULES_ACT,
        f"{subjects.PREFIX}.random.>",
        subjects.MATCH_ENQUEUE,
        "_INBOX.rules.>",
        "_INBOX.player.>",  # bots' replies
        ">",
    ],
)
async def test_the_gateways_user_cannot_listen_to_requests_or_others_replies(
    closed_stack: Callable[[str], Settings], subject: str
) -> None:
    """Someone who took over the gateway gets what a player may ask, no more."""
    gateway = await connect_as(closed_stack("gateway"))
    try:
        await gateway.listen(subject)
        refusal = await gateway.refusal()
        assert f'permissions violation for subscription to "{subject.lower()}"' in refusal
    finally:
        await gateway.nc.close()


async def test_nobody_but_the_gateway_hands_the_bots_a_seat(
    attacker: Attacker, victim: Client, closed_stack: Callable[[str], Settings]
) -> None:
    """Issue 24: a player (or a bot, or anyone with the player credential) may not hand a bot
    a seat: the bus refuses the publish, and the bots' user never hears it. The gateway may."""
    gateway = await connect_as(closed_stack("gateway"))
    bots = await connect_as(closed_stack("bots"))
    try:
        await bots.listen(subjects.BOTS_PLAY)
        created = await victim.create_game("chess3d")
        ask = PlaySeat(game_id=created.game_id, seat=1, token=created.seats[1].token, level=1)
        await attacker.nc.publish(subjects.BOTS_PLAY, msgspec.json.encode(ask))
        refusal = await attacker.refusal()
        assert f'permissions violation for publish to "{subjects.BOTS_PLAY}"' in refusal
        await gateway.nc.publish(subjects.BOTS_PLAY, b"{}")
        async with asyncio.timeout(10):
            while True:  # the gateway's publish arrives; the player's never did
                if bots.heard:
                    break
                await asyncio.sleep(0.01)  # the listener's poll interval
        assert bots.heard == [f"{subjects.BOTS_PLAY} {{}}".encode()]
    finally:
        await gateway.nc.close()
        await bots.nc.close()


async def test_tokens_never_cross_the_bus_readable(
    attacker: Attacker, victim: Client, closed_stack: Callable[[str], Settings]
) -> None:
    """Attacks 1 and 8's assignment: everything a player may listen to (every player's
    replies, every assignment, every game's public and sealed notices) holds no seat token in
    the clear; the sealed ones do not open with another key, and a token guessed fails."""
    for subject in ("_INBOX.player.>", subjects.all_match_assignments(),
                    subjects.all_game_events(), subjects.all_seat_events()):  # fmt: skip
        await attacker.listen(subject)
    created = await victim.create_game("chess3d")
    a, b = await asyncio.gather(victim.find_match("cyvasse", "A", player="a"),
                                victim.find_match("cyvasse", "A", player="b"))  # fmt: skip
    await victim.act(created.game_id, 0, created.seats[0].token, "IE2-IE4")
    await attacker.nc.flush()
    tokens = [g.token for g in created.seats] + [a.token, b.token]
    heard = b"\n".join(attacker.heard)
    assert created.game_id.encode() in heard  # it did listen
    assert a.game_id.encode() in heard
    assert not [t for t in tokens if t.encode() in heard]

    replies = [m.split(b" ", 1)[1] for m in attacker.heard if b'"reply":"created"' in m]
    sealed = msgspec.json.decode(replies[0], type=Created)
    notes = [m.split(b" ", 1)[1] for m in attacker.heard if b'"reply":"assignment"' in m]
    note = msgspec.json.decode(notes[0], type=Assignment)
    own, _ = new_reply_key()
    with pytest.raises(InvalidTag):
        open_sealed(own, f"seats:{sealed.game_id}", sealed.tokens)
    with pytest.raises(InvalidTag):
        open_sealed(own, f"assignment:{note.ticket}:{note.game_id}:{note.seat}", note.token)

    thief = Client(attacker.nc)
    before = await thief.read(created.game_id)
    with pytest.raises(TabulaError) as exc:
        await thief.act(created.game_id, 1, uuid.uuid4().hex, "IE7-IE5")
    assert exc.value.code == ErrorCode.BAD_TOKEN
    assert await thief.read(created.game_id) == before


@pytest.mark.parametrize("matchmade", [False, True])
async def test_a_public_command_id_obtains_no_tokens(
    attacker: Attacker, victim: Client, matchmade: bool
) -> None:
    """Attack 2: CreateGame again with the game's public command id (read from its log), with or
    without the game id, is refused; the game is unchanged."""
    if matchmade:
        seated = await asyncio.gather(victim.find_match("chess3d", player="a"),
                                      victim.find_match("chess3d", player="b"))  # fmt: skip
        game_id = seated[0].game_id
    else:
        game_id = (await victim.create_game("chess3d")).game_id
    thief = Client(attacker.nc)
    log = await thief.read(game_id)
    command_id = log[0].command_id
    assert command_id
    _, key = new_reply_key()
    for explicit in (None, game_id):
        replay = CreateGame(command_id=command_id, reply_key=key, ruleset="chess3d",
                            game_id=explicit)  # fmt: skip
        with pytest.raises(TabulaError) as exc:
            await thief.request(subjects.RULES_CREATE, replay, Created)
        assert exc.value.code == ErrorCode.FORBIDDEN
    assert await thief.read(game_id) == log


async def test_a_player_gets_no_dice_and_rewrites_no_shuffle(
    attacker: Attacker, victim: Client, store: EventStore
) -> None:
    """Attacks 3 and 4: the randomness service answers the rules service only; a player's draw
    request (the next die, or a shuffle with a bogus mix), or its ForgetSeed, is refused by
    the bus and nothing is drawn, stored or removed."""
    game_id = (await victim.create_game("yavoch", "full")).game_id
    secrets_before = await store.redis.hgetall(secret_key(game_id))
    for req in (Draw(game_id=game_id, nonce=0, kind="die", n=10),
                Draw(game_id=game_id, nonce=0, kind="shuffle", n=56, mix="0" * 64)):  # fmt: skip
        await attacker.nc.publish(subjects.RANDOM_DRAW, msgspec.json.encode(req))
        assert "permissions violation for publish" in await attacker.refusal()
    await attacker.nc.publish(subjects.RANDOM_FORGET, b'{"game_id":"' + game_id.encode() + b'"}')
    assert "permissions violation for publish" in await attacker.refusal()
    with pytest.raises(nats.errors.TimeoutError):  # no answer ever comes: the bus dropped it
        await attacker.nc.request(subjects.RANDOM_SEED, b"{}", timeout=0.5)
    assert await store.redis.hgetall(secret_key(game_id)) == secrets_before
    assert not await store.redis.exists(drawn_key(game_id))


async def test_only_a_tickets_owner_cancels_it(attacker: Attacker, victim: Client) -> None:
    """Attack 8: cancelling another player's ticket (or queueing under it) is refused, and the
    ticket stays in its queue: the next player is paired with it."""
    ticket, owner = uuid.uuid4().hex, uuid.uuid4().hex
    _, key = new_reply_key()
    assigned = await victim.nc.subscribe(subjects.match_assigned(ticket), max_msgs=1)
    queued = Enqueue(ticket=ticket, ruleset="chess3d", reply_key=key, owner=owner)
    await victim.request(subjects.MATCH_ENQUEUE, queued, Queued)
    thief = Client(attacker.nc)
    with pytest.raises(TabulaError) as exc:
        await thief.request(subjects.MATCH_CANCEL, Cancel(ticket=ticket, owner="x" * 32),
                            Cancelled)  # fmt: skip
    assert exc.value.code == ErrorCode.FORBIDDEN
    taken = msgspec.structs.replace(queued, owner="y" * 32)
    with pytest.raises(TabulaError) as exc:
        await thief.request(subjects.MATCH_ENQUEUE, taken, Queued)
    assert exc.value.code == ErrorCode.FORBIDDEN
    other = await asyncio.gather(victim.find_match("chess3d", player="next"), assigned.next_msg(10))
    note = msgspec.json.decode(other[1].data, type=Assignment)
    assert note.game_id == other[0].game_id


async def test_the_owner_cancels_its_ticket(victim: Client) -> None:
    ticket, owner = uuid.uuid4().hex, uuid.uuid4().hex
    _, key = new_reply_key()
    queued = Enqueue(ticket=ticket, ruleset="cyvasse", variant="B", reply_key=key, owner=owner)
    await victim.request(subjects.MATCH_ENQUEUE, queued, Queued)
    cancel = Cancel(ticket=ticket, owner=owner)
    assert (await victim.request(subjects.MATCH_CANCEL, cancel, Cancelled)).found
    assert not (await victim.request(subjects.MATCH_CANCEL, cancel, Cancelled)).found


COMMON = [
    ("subscribe", subjects.RULES_ACT),
    ("subscribe", subjects.all_seat_events()),
    ("subscribe", subjects.all_match_assignments()),
    ("subscribe", "_INBOX.>"),
    ("publish", subjects.RULES_ACT),
    ("publish", subjects.RULES_CREATE),
    ("publish", subjects.game_events("g-forged")),
]


@pytest.mark.parametrize(
    ("role", "verb", "subject"),
    [
        *(("archiver", *case) for case in COMMON),
        ("archiver", "subscribe", f"{subjects.PREFIX}.random.>"),
        ("archiver", "publish", subjects.game_sealed("g-forged")),
        ("archiver", "subscribe", ">"),
        ("archiver", "publish", subjects.RANDOM_DRAW),
        ("archiver", "publish", subjects.RANDOM_FORGET),
        *(("projector", *case) for case in COMMON),
        ("projector", "publish", subjects.RULES_FORGET),
    ],
)
async def test_the_archiver_and_the_projector_only_hear_the_games_notices(
    closed_stack: Callable[[str], Settings], role: str, verb: str, subject: str
) -> None:
    """Someone who took over the archiver or the projector may hear the public notices of
    their cue (the seals, every committed event), answer $SRV, and (the archiver alone) ask the
    rules service to remove an archived game (Forget, whose attacks are in
    tests/services/test_forget.py); neither asks anything else, publishes anything else or
    hears a request, seat or reply."""
    user = await connect_as(closed_stack(role))
    try:
        cue = subjects.all_games_sealed() if role == "archiver" else subjects.all_game_events()
        await user.listen(cue)  # its own work: allowed
        if verb == "subscribe":
            await user.listen(subject)
        else:
            await user.nc.publish(subject, b"{}")
            await user.nc.flush()
        refusal = await user.refusal()
        what = "subscription" if verb == "subscribe" else "publish"
        assert f'permissions violation for {what} to "{subject.lower()}"' in refusal
        assert len(user.refused) == 1  # the notices' subscription was not refused
    finally:
        await user.nc.close()
