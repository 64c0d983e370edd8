"""Yiora through the services: random bots of every variation queue in matchmaking (four of
them for Secondary Basic and for the teams), are seated, play both games to the end, and the
audit decides every action again."""

import asyncio

import pytest

from contracts.events import GameCreated, GameEnded
from contracts.yiora import GameFinished, MovePlayed
from domain.audit import audit
from services.client.bot import play_seat
from services.client.client import Client
from services.runtime.codec import decode_log
from services.runtime.eventstore import EventStore


async def play(client: Client, variant: str, seats: int) -> str:
    tickets = await asyncio.gather(*(client.find_match("yiora", variant, player=f"p{i}")
                                     for i in range(seats)))  # fmt: skip
    assert len({t.game_id for t in tickets}) == 1
    assert sorted(t.seat for t in tickets) == list(range(seats))
    results = await asyncio.gather(*(play_seat(client, t.game_id, t.seat, t.token, seed=t.seat + 7)
                                     for t in tickets))  # fmt: skip
    assert len({r.outcome for r in results}) == 1
    return tickets[0].game_id


@pytest.mark.parametrize(
    ("variant", "seats"),
    [
        ("primary", 2),
        ("secondary_basic", 4),
        ("secondary_complex", 2),
        ("secondary_complex+complex_turn_mode=parallel", 2),
        ("secondary_complex+teams", 4),
    ],
)
async def test_bot_games_of_every_variation_end_and_pass_the_audit(
    client: Client, store: EventStore, variant: str, seats: int
) -> None:
    """YI-8.3, YI-8.4: the seats are filled by matchmaking, the games end (YI-4.4, YI-8.4.3)
    with a score per seat, and every recorded action is decided again by the audit."""
    game_id = await play(client, variant, seats)
    stored = await store.read_all(game_id)
    _, events = decode_log(stored)
    created = events[0]
    assert isinstance(created, GameCreated)
    assert created.seats == seats
    ended = next(e for e in events if isinstance(e, GameEnded))
    assert len(ended.result.split("-")) == seats
    if variant != "primary":
        assert sorted(e.game for e in events if isinstance(e, GameFinished)) == ["bsq", "wsq"]
        assert {e.game for e in events if isinstance(e, MovePlayed)} == {"bsq", "wsq"}
    report = audit(stored)
    assert report.ok, report.failure
    assert report.status == "ended"
