"""Notices come from the log, not from the request path (issue 10): a watcher whose last
notice was lost reads the log once the game is quiet, and a retry that finds its command
applied announces its events again. No watcher waits for ever."""

import asyncio
from collections.abc import AsyncIterator

import msgspec
import pytest

from contracts.chess3d import MovePlayed
from contracts.envelope import StoredEvent
from services.client.client import Client
from services.runtime.eventstore import EventStore, NewEvent


@pytest.fixture
async def watched(client: Client, request: pytest.FixtureRequest
                  ) -> AsyncIterator[tuple[str, list[str], asyncio.Queue]]:  # fmt: skip
    """A new 3-D Chess game, watched by a spectator from the start (quiet past the test's
    `quiet` parameter); yields (game id, tokens, the queue of events the watcher delivers)."""
    client.quiet = request.param
    created = await client.create_game("chess3d")
    seen: asyncio.Queue[StoredEvent] = asyncio.Queue()

    async def watch() -> None:
        async for e in client.watch(created.game_id):
            seen.put_nowait(e)

    task = asyncio.create_task(watch())
    assert (await asyncio.wait_for(seen.get(), 10)).type == "GameCreated"
    yield created.game_id, [s.token for s in created.seats], seen
    task.cancel()


async def append_unannounced(store: EventStore, game_id: str, command_id: str) -> None:
    """White's first move, stored as the rules service would, but never announced: the
    notice lost, as when a replica dies between its append and its publish."""
    head = (await store.read_all(game_id))[-1]
    body = msgspec.json.encode(MovePlayed(seat=0, move="IE2-IE4"))
    await store.append(game_id, head.version, head.hash, command_id,
                       [NewEvent("MovePlayed", body)], action="0 IE2-IE4")  # fmt: skip


@pytest.mark.parametrize("watched", [0.2], indirect=True)  # quiet this long: read the log
async def test_a_watcher_reads_a_lost_last_notice_from_the_log(
    client: Client, store: EventStore, watched: tuple[str, list[str], asyncio.Queue]
) -> None:
    game_id, _tokens, seen = watched
    await append_unannounced(store, game_id, "lost-notice")
    got = await asyncio.wait_for(seen.get(), 10)
    assert (got.version, got.command_id) == (2, "lost-notice")


# Silence is no help here: only the announcement can deliver the event in time.
@pytest.mark.parametrize("watched", [3600.0], indirect=True)
async def test_a_retry_announces_what_its_first_attempt_applied(
    client: Client, store: EventStore, watched: tuple[str, list[str], asyncio.Queue]
) -> None:
    game_id, tokens, seen = watched
    await append_unannounced(store, game_id, "m1")  # the first attempt, applied, unannounced
    receipt = await client.act(game_id, 0, tokens[0], "IE2-IE4", command_id="m1")
    assert (receipt.version, receipt.duplicate) == (2, True)
    got = await asyncio.wait_for(seen.get(), 10)
    assert (got.version, got.command_id) == (2, "m1")
