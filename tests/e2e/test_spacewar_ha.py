"""Spacewar Health/Ammo through the services: random bots queue in matchmaking, are seated,
play to the end, and the audit decides every action again (HA-8)."""

import pytest

from contracts.events import GameEnded
from contracts.spacewar_ha import ActionPlayed
from domain.audit import audit
from services.client.client import Client
from services.runtime.eventstore import EventStore
from tests.conftest import bot_game


@pytest.mark.parametrize(
    "variant",
    # turn_limit bounds bot games: the rules alone do not end every game (docs/rules/spacewar.md)
    ["turn_limit=300", "turn_limit=30", "board=6x6+setup=Ra1/Qc1/Kd1/Bf1+bases=c2+turn_limit=300"],
)
async def test_bot_games_end_and_pass_the_audit(
    client: Client, store: EventStore, variant: str
) -> None:
    """HA-4.1, HA-8.1, HA-8.4: two bots play a whole game; every action is audited."""
    stored, events = await bot_game(client, store, "spacewar-ha", variant, seed=3)
    assert any(isinstance(e, ActionPlayed) for e in events)
    assert any(isinstance(e, GameEnded) for e in events), [type(e).__name__ for e in events[-3:]]
    report = audit(stored)
    assert report.ok, report.failure
    assert report.status == "ended"
