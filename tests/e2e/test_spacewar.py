"""Spacewar through the services: random bots queue in matchmaking, are seated, play to the end
(bounded by `turn_limit`, SW-8.4), and the audit decides every action again."""

import pytest

from contracts.events import GameEnded
from contracts.spacewar import ActionPlayed, StepBegan
from domain.audit import audit
from services.client.client import Client
from services.runtime.eventstore import EventStore
from tests.conftest import bot_game


@pytest.mark.parametrize("variant", ["turn_limit=2", "turn_limit=2+missile_step=1+range_tp=2"])
async def test_bot_games_end_and_pass_the_audit(
    client: Client, store: EventStore, variant: str
) -> None:
    """SW-4.1, SW-8.4: two bots play a whole game; every action is audited."""
    stored, events = await bot_game(client, store, "spacewar", variant, seed=5)
    assert any(isinstance(e, ActionPlayed) for e in events)
    assert any(isinstance(e, StepBegan) for e in events)  # SW-R53: the engine's own steps
    assert any(isinstance(e, GameEnded) for e in events)
    report = audit(stored)
    assert report.ok, report.failure
    assert report.status == "ended"
