"""Every service is a NATS micro service: $SRV.PING, INFO and STATS answer (the operator's;
players may not ask)."""

import msgspec
import pytest
from nats.aio.client import Client as NATS

from contracts import subjects
from services.client.client import Client


@pytest.mark.parametrize(
    ("name", "endpoints"),
    [
        (subjects.RULES_SERVICE, {"create", "act", "read", "view", "keys", "forget"}),
        (subjects.RANDOM_SERVICE, {"seed", "draw", "reveal", "forget"}),
        (subjects.MATCH_SERVICE, {"enqueue", "cancel"}),
    ],
)
async def test_ping_info_and_stats(admin_bus: NATS, name: str, endpoints: set[str]) -> None:
    ping = msgspec.json.decode((await admin_bus.request(f"$SRV.PING.{name}", b"")).data)
    assert ping["name"] == name
    info = msgspec.json.decode((await admin_bus.request(f"$SRV.INFO.{name}", b"")).data)
    assert {e["name"] for e in info["endpoints"]} == endpoints
    assert all(e["subject"].startswith("tabula.") for e in info["endpoints"])
    stats = msgspec.json.decode((await admin_bus.request(f"$SRV.STATS.{name}", b"")).data)
    assert {e["name"] for e in stats["endpoints"]} == endpoints


async def test_stats_count_requests(client: Client, admin_bus: NATS) -> None:
    await client.create_game("chess3d")
    stats = msgspec.json.decode(
        (await admin_bus.request(f"$SRV.STATS.{subjects.RULES_SERVICE}", b"")).data
    )
    create = next(e for e in stats["endpoints"] if e["name"] == "create")
    assert create["num_requests"] >= 1
