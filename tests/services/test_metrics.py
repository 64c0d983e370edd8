"""Metrics (issue 22): what a service counts is what happened, in Prometheus's registry and in
$SRV.STATS alike; a service process serves them over HTTP. The services run in this process
(tests.conftest.stack), so the default registry holds their figures."""

import urllib.request

import msgspec
import pytest
from nats.aio.client import Client as NATS
from prometheus_client import REGISTRY

from contracts import subjects
from contracts.errors import ErrorCode
from domain.registry import find_ruleset
from services.client.client import Client, TabulaError
from services.runtime import metrics
from services.runtime.embedded import free_port


def value(name: str, **labels: str) -> float:
    """A sample's value now (0 when it was never set)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def stats(admin_bus: NATS, endpoint: str) -> dict[str, object]:
    reply = await admin_bus.request(f"$SRV.STATS.{subjects.RULES_SERVICE}", b"")
    found = msgspec.json.decode(reply.data)["endpoints"]
    return next(e for e in found if e["name"] == endpoint)  # type: ignore[no-any-return]


async def test_commands_are_counted_by_ruleset_and_outcome(client: Client) -> None:
    ok = {"ruleset": "chess3d", "command": "act", "outcome": "ok"}
    illegal = {**ok, "outcome": ErrorCode.ILLEGAL_ACTION.value}
    created = {"ruleset": "chess3d", "command": "create", "outcome": "ok"}
    before = {k: value("tabula_commands_total", **v) for k, v in
              (("ok", ok), ("illegal", illegal), ("created", created))}  # fmt: skip
    decides = value("tabula_decide_seconds_count", ruleset="chess3d")
    appends = value("tabula_append_seconds_count")
    started = value("tabula_games_started_total", ruleset="chess3d")

    game = await client.create_game("chess3d")
    rs = find_ruleset("chess3d")
    start = rs.start(rs.create(""))
    move = rs.format_action(start, rs.legal_actions(start, 0)[0])
    await client.act(game.game_id, 0, game.seats[0].token, move)
    with pytest.raises(TabulaError) as refused:
        await client.act(game.game_id, 1, game.seats[1].token, "IIIE7-IIIE3")
    assert refused.value.code == ErrorCode.ILLEGAL_ACTION

    assert value("tabula_commands_total", **created) == before["created"] + 1
    assert value("tabula_commands_total", **ok) == before["ok"] + 1
    assert value("tabula_commands_total", **illegal) == before["illegal"] + 1
    assert value("tabula_games_started_total", ruleset="chess3d") == started + 1
    # The move and the refusal were each decided (a refusal is decided again once the game is
    # caught up, so at least once); the create and the move were appended.
    assert value("tabula_decide_seconds_count", ruleset="chess3d") >= decides + 2
    assert value("tabula_append_seconds_count") >= appends + 2


async def test_stats_count_refusals_as_errors_with_the_time_taken(
    client: Client, admin_bus: NATS
) -> None:
    before = await stats(admin_bus, "act")
    game = await client.create_game("chess3d")
    with pytest.raises(TabulaError):
        await client.act(game.game_id, 0, "00" * 32, "IE2-IE4")  # not its token
    after = await stats(admin_bus, "act")
    assert after["num_requests"] == before["num_requests"] + 1  # type: ignore[operator]
    assert after["num_errors"] == before["num_errors"] + 1  # type: ignore[operator]
    assert str(after["last_error"]).startswith(ErrorCode.BAD_TOKEN.value)
    assert after["processing_time"] > before["processing_time"]  # type: ignore[operator]
    code = {"service": subjects.RULES_SERVICE, "endpoint": "act",
            "outcome": ErrorCode.BAD_TOKEN.value}  # fmt: skip
    assert value("tabula_requests_total", **code) >= 1


def test_a_process_serves_its_metrics_over_http() -> None:
    port = free_port()
    server, _ = metrics.serve(port)
    try:
        metrics.ARCHIVE_BACKLOG.set(7)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as page:
            text = page.read().decode()
    finally:
        server.shutdown()
        server.server_close()
    assert "tabula_archive_backlog 7.0" in text.splitlines()
    assert "# TYPE tabula_requests_total counter" in text
