"""Clocks in the rules service (issue 23, docs/clocks.md): a game made with a clock records it
and starts it at its creation, each action records the time charged and the lag given back, the
view shows the clocks, and a clock run out ends the game with nobody claiming (the replicas'
timer); the whole log then passes the audit, every clock recomputed from it. Real nats-server
and Valkey."""

import asyncio

import pytest

from contracts.commands import Clock
from contracts.errors import ErrorCode
from contracts.events import (
    ClockCharged,
    ClockFlagged,
    GameCreated,
    GameEnded,
    GameSealed,
    TimeControl,
)
from domain.audit import audit
from domain.chess3d import CHESS3D
from services.client.client import Client, TabulaError
from services.runtime import keys
from services.runtime.codec import decode_log
from services.runtime.eventstore import EventStore


async def test_a_clocked_game_records_each_charge_and_shows_its_clocks(
    client: Client, store: EventStore
) -> None:
    # docs/clocks.md "Charging"
    game = await client.create_game("chess3d", clock=Clock(base_ms=60_000, increment_ms=1_000),
                                    rated=True)  # fmt: skip
    white, black = (s.token for s in game.seats)
    start = CHESS3D.start(CHESS3D.create(""))
    move = CHESS3D.format_action(start, CHESS3D.legal_actions(start, 0)[0])
    await client.act(game.game_id, 0, white, move, lag_ms=250)
    _, (created, started, *played) = decode_log(await store.read_all(game.game_id))
    assert isinstance(created, GameCreated)
    assert (created.clock, created.rated) == (TimeControl(base_ms=60_000, increment_ms=1_000), True)
    assert isinstance(started, ClockCharged)
    assert (started.seat, started.remaining_ms) == (-1, [60_000, 60_000])
    charged = played[-1]
    assert isinstance(charged, ClockCharged)
    assert charged.seat == 0
    assert charged.lag_ms == 250
    # Its charge is the time since the creation, less the lag given back, plus the increment
    assert charged.compensation_ms == min(250, charged.at_ms - started.at_ms)
    assert charged.remaining_ms[0] == 61_000 - charged.charged_ms
    view = await client.view(game.game_id, 1, black)
    assert view.clock is not None
    assert view.clock.running == [1]
    assert view.clock.remaining_ms[0] == charged.remaining_ms[0]
    assert view.clock.remaining_ms[1] <= 60_000


async def test_a_clock_run_out_ends_the_game_with_nobody_claiming(
    client: Client, store: EventStore
) -> None:
    """A clock of 1 s: White never moves; the timer flags it past its grace (min(quota, 2 s))
    and Black wins on time. The audit decides every command again, the flag included."""
    # docs/clocks.md "Flag"
    game = await client.create_game("chess3d", clock=Clock(base_ms=1_000))
    async with asyncio.timeout(30):
        while True:
            _, log = decode_log(await store.read_all(game.game_id))
            if any(isinstance(e, GameSealed) for e in log):
                break
            await asyncio.sleep(0.1)  # polling the log: the exit is the game's end
    flagged = next(e for e in log if isinstance(e, ClockFlagged))
    ended = next(e for e in log if isinstance(e, GameEnded))
    assert flagged.seats == [0]
    assert (ended.result, ended.reason) == ("0-1", "time")
    assert await store.redis.zscore(keys.CLOCKS_DUE, game.game_id) is None  # nothing runs
    report = audit(await store.read_all(game.game_id))
    assert report.failure is None, report.failure


async def test_a_flag_before_time_is_refused_and_changes_nothing(
    client: Client, store: EventStore
) -> None:
    # docs/clocks.md "Flag"
    game = await client.create_game("chess3d", clock=Clock(base_ms=600_000))
    before = await store.read_all(game.game_id)
    with pytest.raises(TabulaError) as refused:
        await client.act(game.game_id, 1, game.seats[1].token, "flag")
    assert refused.value.code == ErrorCode.ILLEGAL_ACTION
    assert await store.read_all(game.game_id) == before


async def test_a_clock_of_no_time_is_refused(client: Client) -> None:
    # docs/clocks.md "Setting"
    with pytest.raises(TabulaError) as refused:
        await client.create_game("chess3d", clock=Clock(base_ms=0))
    assert refused.value.code == ErrorCode.MALFORMED
