"""The rules service through NATS against real servers: creation, actions, bad input, replicas."""

import asyncio
import uuid
from collections.abc import Callable

import msgspec
import pytest
import structlog

from contracts import subjects
from contracts.commands import (
    Assignment,
    Created,
    CreateGame,
    Enqueue,
    Error,
    Events,
    Queued,
    ReadEvents,
)
from contracts.envelope import StoredEvent
from contracts.errors import ErrorCode
from domain import fairplay
from domain.audit import chain_entries
from domain.core import fold
from services.client.client import Client, TabulaError
from services.matchmaking.__main__ import build as matchmaking_build
from services.rules import handlers as rules_handlers
from services.rules.__main__ import build as rules_build
from services.runtime.codec import decode_log
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore
from services.runtime.sealing import new_reply_key, open_sealed
from tests.conftest import running


async def new_game(client: Client) -> tuple[str, list[str]]:
    created = await client.create_game("chess3d")
    assert [g.seat for g in created.seats] == [0, 1]
    return created.game_id, [g.token for g in created.seats]


async def log_length(store: EventStore, game_id: str) -> int:
    return len(await store.read(game_id))


async def test_create_game_starts_at_the_standard_position(client: Client) -> None:
    game_id, tokens = await new_game(client)
    view = await client.view(game_id, seat=0, token=tokens[0])
    assert view.version == 1
    assert view.to_act == [0]
    assert view.position.startswith("8/8/8/8/8/8/PPPPPPPP/RNBQKBNR|")
    assert len(view.legal) >= 76  # C3-9.1: 76 moves, plus non-move actions


async def test_a_legal_move_is_appended_published_and_receipted(
    client: Client, store: EventStore
) -> None:
    game_id, tokens = await new_game(client)
    seen: asyncio.Queue[StoredEvent] = asyncio.Queue()

    async def on_msg(msg) -> None:  # type: ignore[no-untyped-def]
        seen.put_nowait(msgspec.json.decode(msg.data, type=StoredEvent))

    sub = await client.nc.subscribe(subjects.game_events(game_id), cb=on_msg)
    receipt = await client.act(game_id, 0, tokens[0], "IE2-IE4")
    published = await asyncio.wait_for(seen.get(), 5)
    await sub.unsubscribe()
    stored = await store.read(game_id)
    assert [s.type for s in stored] == ["GameCreated", "MovePlayed"]
    assert (receipt.version, receipt.hash) == (2, stored[-1].hash)
    assert published == stored[-1]
    assert fairplay.verify_chain(game_id, chain_entries(stored)) is None


async def test_a_retried_command_is_applied_once(client: Client, store: EventStore) -> None:
    game_id, tokens = await new_game(client)
    first = await client.act(game_id, 0, tokens[0], "IE2-IE4", command_id="move-1")
    retry = await client.act(game_id, 0, tokens[0], "IE2-IE4", command_id="move-1")
    assert (retry.version, retry.hash, retry.duplicate) == (first.version, first.hash, True)
    assert await log_length(store, game_id) == 2


async def test_a_retried_create_returns_the_same_game_and_tokens(client: Client) -> None:
    """The same request again (as the client retries it: the same key) gets the same game,
    and the same tokens sealed to that key; the same command id with another key gets none."""
    private, public = new_reply_key()
    req = CreateGame(command_id="create-once", reply_key=public, ruleset="chess3d")
    a = await client.request(subjects.RULES_CREATE, req, Created)
    b = await client.request(subjects.RULES_CREATE, req, Created)
    assert (a.game_id, a.version, a.hash) == (b.game_id, b.version, b.hash)
    purpose = f"seats:{a.game_id}"
    assert open_sealed(private, purpose, a.tokens) == open_sealed(private, purpose, b.tokens)
    with pytest.raises(TabulaError) as exc:
        await client.create_game("chess3d", command_id="create-once")
    assert exc.value.code == ErrorCode.FORBIDDEN


async def test_creating_an_existing_game_id_is_refused(client: Client) -> None:
    game_id = f"g-{uuid.uuid4().hex[:8]}"
    await client.create_game("chess3d", game_id=game_id)
    with pytest.raises(TabulaError) as exc:
        await client.create_game("chess3d", game_id=game_id)
    assert exc.value.code == ErrorCode.GAME_EXISTS


async def expect_error(
    client: Client, store: EventStore, game_id: str, code: ErrorCode, coro
) -> TabulaError:  # type: ignore[no-untyped-def]
    """The request fails with `code`, appends nothing and logs exactly one line."""
    before = await log_length(store, game_id)
    with structlog.testing.capture_logs() as logs, pytest.raises(TabulaError) as exc:
        await coro
    assert exc.value.code == code, exc.value
    assert await log_length(store, game_id) == before
    lines = [entry for entry in logs if entry.get("code") == code]
    assert len(lines) == 1, logs
    return exc.value


async def test_bad_input_gets_typed_errors_and_appends_nothing(
    client: Client, store: EventStore
) -> None:
    game_id, tokens = await new_game(client)
    await expect_error(
        client,
        store,
        game_id,
        ErrorCode.NOT_YOUR_TURN,
        client.act(game_id, 1, tokens[1], "IIIE7-IIIE5"),
    )
    await expect_error(
        client, store, game_id, ErrorCode.BAD_TOKEN, client.act(game_id, 0, tokens[1], "IE2-IE4")
    )
    await expect_error(
        client, store, game_id, ErrorCode.BAD_TOKEN, client.act(game_id, 0, "", "IE2-IE4")
    )
    await expect_error(
        client, store, game_id, ErrorCode.UNKNOWN_SEAT, client.act(game_id, 2, tokens[0], "IE2-IE4")
    )
    illegal = await expect_error(
        client,
        store,
        game_id,
        ErrorCode.ILLEGAL_ACTION,
        client.act(game_id, 0, tokens[0], "IE2-IE5"),
    )
    assert illegal.clause.startswith("C3-")
    malformed = await expect_error(
        client,
        store,
        game_id,
        ErrorCode.MALFORMED_ACTION,
        client.act(game_id, 0, tokens[0], "castle please"),
    )
    assert malformed.clause == "C3-1.7"
    await expect_error(
        client,
        store,
        game_id,
        ErrorCode.CONFLICT,
        client.act(game_id, 0, tokens[0], "IE2-IE4", expected_version=7),
    )
    await expect_error(
        client,
        store,
        "no-such-game",
        ErrorCode.UNKNOWN_GAME,
        client.act("no-such-game", 0, tokens[0], "IE2-IE4"),
    )


async def test_unknown_ruleset_and_bad_variant_are_typed_errors(client: Client) -> None:
    with pytest.raises(TabulaError) as exc:
        await client.create_game("checkers")
    assert exc.value.code == ErrorCode.UNKNOWN_RULESET
    with pytest.raises(TabulaError) as exc:
        await client.create_game("chess3d", "queen_directions=7")
    assert exc.value.code == ErrorCode.BAD_VARIANT


async def test_malformed_messages_get_a_typed_error(client: Client) -> None:
    for payload in (
        b"not json",
        b'{"game_id": 5}',
        b'{"game_id":"g","seat":0,"token":"t","command_id":"c","action":"resign","surprise":1}',
    ):
        msg = await client.nc.request(subjects.RULES_ACT, payload, timeout=5)
        reply = msgspec.json.decode(msg.data, type=Error)
        assert reply.code == ErrorCode.MALFORMED


async def test_an_action_after_the_game_ended_is_refused(client: Client, store: EventStore) -> None:
    game_id, tokens = await new_game(client)
    await client.act(game_id, 1, tokens[1], "resign")
    stored = await store.read(game_id)
    assert [s.type for s in stored][-3:] == ["Resigned", "GameEnded", "GameSealed"]
    await expect_error(
        client, store, game_id, ErrorCode.GAME_ENDED, client.act(game_id, 0, tokens[0], "IE2-IE4")
    )
    view = await client.view(game_id)
    assert (view.result, view.reason) == ("1-0", "resignation")


async def test_replay_from_the_log_equals_the_service_state(
    client: Client, store: EventStore
) -> None:
    game_id, tokens = await new_game(client)
    for seat, move in [(0, "IE2-IE4"), (1, "IIIE7-IIIE5"), (0, "IG1-IF3"), (1, "IIIB8-IIIC6")]:
        await client.act(game_id, seat, tokens[seat], move)
    ruleset, events = decode_log(await store.read_all(game_id))
    state = fold(ruleset, events)
    view = await client.view(game_id)
    assert (view.position, view.version) == (ruleset.position(state), 5)


async def test_a_fresh_replica_rebuilds_a_game_from_the_log(
    role_settings: Callable[[str], Settings], client: Client
) -> None:
    """A second replica, which never saw the game, answers from a fold of the log."""
    game_id, tokens = await new_game(client)
    await client.act(game_id, 0, tokens[0], "IE2-IE4")
    async with running(rules_build, role_settings("rules")):
        # Both replicas now share the queue group; whichever answers, the view is the same.
        views = {(await client.view(game_id)).position for _ in range(10)}
        await client.act(game_id, 1, tokens[1], "IIIE7-IIIE5")
        after = {(await client.view(game_id)).version for _ in range(10)}
    assert len(views) == 1
    assert after == {3}


async def test_a_thousand_concurrent_submissions_for_one_turn_accept_exactly_one(
    role_settings: Callable[[str], Settings], client: Client, store: EventStore
) -> None:
    """1,000 different moves for the same turn, over two replicas: one lands, one event."""
    game_id, tokens = await new_game(client)
    view = await client.view(game_id, seat=0, token=tokens[0])
    moves = [m for m in view.legal if "-" in m and m not in {"offer-draw", "demand-mate"}]
    async with running(rules_build, role_settings("rules")):
        results = await asyncio.gather(
            *(
                client.act(game_id, 0, tokens[0], moves[i % len(moves)], expected_version=1)
                for i in range(1000)
            ),
            return_exceptions=True,
        )
    accepted = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, TabulaError)]
    assert len(accepted) == 1
    assert len(refused) == 999
    assert {r.code for r in refused} <= {ErrorCode.CONFLICT, ErrorCode.NOT_YOUR_TURN}
    assert await log_length(store, game_id) == 2


async def test_watch_catches_up_then_follows(client: Client) -> None:
    game_id, tokens = await new_game(client)
    await client.act(game_id, 0, tokens[0], "IE2-IE4")
    versions: list[int] = []

    async def watch() -> None:
        async for event in client.watch(game_id):
            versions.append(event.version)
            if event.version == 3:
                return

    watcher = asyncio.create_task(watch())
    await client.act(game_id, 1, tokens[1], "IIIE7-IIIE5")
    await asyncio.wait_for(watcher, 10)
    assert versions == [1, 2, 3]


async def test_matchmaking_pairs_two_players_into_one_game(client: Client) -> None:
    a, b = await asyncio.gather(
        client.find_match("chess3d", player="ann"), client.find_match("chess3d", player="bob")
    )
    assert a.game_id == b.game_id
    assert {a.seat, b.seat} == {0, 1}
    first = a if a.seat == 0 else b
    receipt = await client.act(first.game_id, 0, first.token, "IE2-IE4")
    assert receipt.version == 2


async def test_matchmaking_refuses_an_unknown_ruleset(client: Client) -> None:
    with pytest.raises(TabulaError) as exc:
        await client.find_match("no-such-game")
    assert exc.value.code == ErrorCode.UNKNOWN_RULESET


async def test_a_long_log_is_read_in_pages_that_fit_the_bus(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read's reply is cut before it would pass READ_REPLY_BYTES (well under the bus's
    message limit, which a long game's log once could exceed); the reader asks on from the
    last version it got and receives every event once, in order."""
    game_id, tokens = await new_game(client)
    for seat, move in [(0, "IE2-IE4"), (1, "IIIE7-IIIE5"), (0, "IG1-IF3"), (1, "IIIB8-IIIC6")]:
        await client.act(game_id, seat, tokens[seat], move)
    monkeypatch.setattr(rules_handlers, "READ_REPLY_BYTES", 1)  # one event a page
    page = await client.request(subjects.RULES_READ, ReadEvents(game_id=game_id), Events)
    assert [e.version for e in page.events] == [1]
    assert page.head == 5
    assert [e.version for e in await client.read(game_id)] == [1, 2, 3, 4, 5]


async def test_a_retried_enqueue_pairs_the_table_whose_creation_failed(
    role_settings: Callable[[str], Settings],
) -> None:
    """The rules service is away when a table fills: the filling request is answered
    service/unavailable and both tickets stay queued; its retry (same ticket) creates the game
    once the rules service is back, and both players get their seats."""
    player = await Client.connect(role_settings("player").nats_url)
    keys = [new_reply_key() for _ in range(2)]
    tickets = [
        Enqueue(
            ticket=uuid.uuid4().hex,
            ruleset="chess3d",
            player=name,
            reply_key=public,
            owner=uuid.uuid4().hex,
        )
        for name, (_private, public) in zip(("ann", "bob"), keys, strict=True)
    ]

    async def enqueue(ticket: Enqueue) -> Queued | Error:
        raw = await player.nc.request(subjects.MATCH_ENQUEUE, msgspec.json.encode(ticket), 30)
        return msgspec.json.decode(raw.data, type=Queued | Error)

    try:
        subs = [await player.nc.subscribe(subjects.match_assigned(t.ticket), max_msgs=1)
                for t in tickets]  # fmt: skip
        async with running(matchmaking_build, role_settings("matchmaking")):
            assert await enqueue(tickets[0]) == Queued(ticket=tickets[0].ticket, waiting=1)
            refused = await enqueue(tickets[1])  # the table is full; rules is away
            assert isinstance(refused, Error)
            assert refused.code == ErrorCode.UNAVAILABLE
            async with running(rules_build, role_settings("rules")):
                assert await enqueue(tickets[1]) == Queued(ticket=tickets[1].ticket, waiting=0)
                notes = [msgspec.json.decode((await sub.next_msg(30)).data, type=Assignment)
                         for sub in subs]  # fmt: skip
    finally:
        await player.close()
    assert notes[0].game_id == notes[1].game_id
    assert {n.seat for n in notes} == {0, 1}
    for note, ticket, (private, _public) in zip(notes, tickets, keys, strict=True):
        open_sealed(private, f"assignment:{ticket.ticket}:{note.game_id}:{note.seat}",
                    note.token)  # fmt: skip


async def test_tickets_used_again_make_a_new_game_and_block_no_queue(client: Client) -> None:
    """Tickets are the players' to choose and to use again. Once, the matchmaker named its
    create after the tickets: the same two tickets queued again got `request/forbidden` (the
    command id was another key's game), and their table, put back at the front, blocked that
    queue for every later player. Now each table's create has a fresh command id."""

    async def pair(tickets: list[str]) -> str:
        subs = [await client.nc.subscribe(subjects.match_assigned(t), max_msgs=1)
                for t in tickets]  # fmt: skip
        for t in tickets:
            ticket = Enqueue(ticket=t, ruleset="chess3d", reply_key=new_reply_key()[1],
                             owner=uuid.uuid4().hex)  # fmt: skip
            await client.request(subjects.MATCH_ENQUEUE, ticket, Queued)
        games = {msgspec.json.decode((await s.next_msg(10)).data, type=Assignment).game_id
                 for s in subs}  # fmt: skip
        assert len(games) == 1
        return games.pop()

    first = await pair(["again-a", "again-b"])
    second = await pair(["again-a", "again-b"])
    third = await pair([uuid.uuid4().hex, uuid.uuid4().hex])
    assert len({first, second, third}) == 3
