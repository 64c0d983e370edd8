"""Attack 5: whoever holds the store rewrites a finished game's events and recomputes the whole
hash chain (and the seal) so that `verify` passes. The audit decides every recorded command
again from the state before it, so a forged result, an illegal move or an invented end is
named, at its event."""

from collections.abc import Callable

import msgspec
import pytest

from contracts.chess3d import MovePlayed
from contracts.envelope import StoredEvent
from contracts.events import GameEnded, GameSealed
from domain import fairplay
from domain.audit import audit, chain_entries
from services.client.client import Client, TabulaError
from services.runtime.config import Settings
from services.runtime.eventstore import EventStore


def rechain(stored: list[StoredEvent]) -> list[StoredEvent]:
    """What a forger does after editing: every h_n recomputed, each seal recording its new
    head, so the chain verifies again."""
    out: list[StoredEvent] = []
    prev = fairplay.genesis_hash(stored[0].game_id)
    for s in stored:
        body = bytes(s.body)
        if s.type == "GameSealed":
            seal = msgspec.json.decode(body, type=GameSealed)
            body = msgspec.json.encode(msgspec.structs.replace(seal, hash=prev))
        prev = fairplay.entry_hash(fairplay.CHAIN_V2, s.version, prev, s.type, body, s.time_ms,
                                   s.command_id, s.action)  # fmt: skip
        out.append(msgspec.structs.replace(s, body=msgspec.Raw(body), hash=prev))
    assert fairplay.verify_chain(out[0].game_id, chain_entries(out)) is None
    return out


def edit(stored: list[StoredEvent], version: int, event: object, action: str | None = None
         ) -> list[StoredEvent]:  # fmt: skip
    s = stored[version - 1]
    changed = msgspec.structs.replace(s, body=msgspec.Raw(msgspec.json.encode(event)))
    if action is not None:  # the same command's entries all record it
        return rechain([msgspec.structs.replace(e, action=action)
                        if e.command_id == s.command_id else e
                        for e in [*stored[: version - 1], changed, *stored[version:]]])  # fmt: skip
    return rechain([*stored[: version - 1], changed, *stored[version:]])


@pytest.fixture
async def finished(closed_stack: Callable[[str], Settings], store: EventStore
                   ) -> list[StoredEvent]:  # fmt: skip
    """A 3-D Chess game through the services: two moves, then black resigns (1-0)."""
    client = await Client.connect(closed_stack("player").nats_url)
    try:
        created = await client.create_game("chess3d")
        g, tokens = created.game_id, [s.token for s in created.seats]
        await client.act(g, 0, tokens[0], "IE2-IE4")
        await client.act(g, 1, tokens[1], "IIIE7-IIIE5")
        await client.act(g, 1, tokens[1], "resign")
    finally:
        await client.close()
    stored = await store.read_all(g)
    assert [s.type for s in stored] == ["GameCreated", "MovePlayed", "MovePlayed", "Resigned",
                                        "GameEnded", "GameSealed"]  # fmt: skip
    return stored


def test_the_honest_log_is_decided_again_command_by_command(finished: list[StoredEvent]) -> None:
    report = audit(finished)
    assert report.ok, report.failure
    assert next(c for c in report.checks if c.name == "commands").count == 3
    assert [s.action for s in finished] == ["", "0 IE2-IE4", "1 IIIE7-IIIE5", "1 resign",
                                            "1 resign", "1 resign"]  # fmt: skip


def test_a_flipped_result_is_named(finished: list[StoredEvent]) -> None:
    ended = msgspec.json.decode(finished[4].body, type=GameEnded)
    forged = edit(finished, 5, msgspec.structs.replace(ended, result="0-1", winners=[1]))
    report = audit(forged)
    assert report.failure is not None
    assert report.failure.version == 5
    assert "'resign' by seat 1 yields GameEnded here, not the recorded GameEnded" in (
        report.failure.message
    )


def test_an_illegal_move_with_its_recorded_action_is_named(finished: list[StoredEvent]) -> None:
    """White's pawn three squares up: the action and its event agree, the rules do not."""
    illegal = MovePlayed(seat=0, move="IE2-IE5")
    report = audit(edit(finished, 2, illegal, action="0 IE2-IE5"))
    assert report.failure is not None
    assert report.failure.version == 2
    assert "'IE2-IE5' by seat 0 is refused by the rules" in report.failure.message


def test_an_event_that_its_action_does_not_yield_is_named(finished: list[StoredEvent]) -> None:
    """The recorded action kept, the event swapped for another legal move."""
    report = audit(edit(finished, 2, MovePlayed(seat=0, move="IE2-IE3")))
    assert report.failure is not None
    assert report.failure.version == 2
    assert "yields MovePlayed here, not the recorded MovePlayed" in report.failure.message


def test_an_invented_end_without_a_command_is_named(finished: list[StoredEvent]) -> None:
    """The resignation taken out and a win for black appended by itself, then sealed."""
    cut = [s for s in finished if s.action != "1 resign"]
    last = cut[-1]
    ended = GameEnded(result="0-1", reason="resignation", winners=[1])
    invented = [
        msgspec.structs.replace(last, version=last.version + 1 + k, type=tag, action="",
                                command_id="forged", body=msgspec.Raw(msgspec.json.encode(e)))
        for k, (tag, e) in enumerate([("GameEnded", ended),
                                      ("GameSealed", GameSealed(version=0, hash="0" * 64))])
    ]  # fmt: skip
    report = audit(rechain([*cut, *invented]))
    assert report.failure is not None
    assert report.failure.version == 4
    assert "no player's command produced this event" in report.failure.message


async def test_a_timeout_claim_is_judged_by_the_recorded_times(
    closed_stack: Callable[[str], Settings], store: EventStore
) -> None:
    """fair-play 1.3: a seat that owes its client seed past the deadline loses to a claim. The
    audit gives `decide` the idle time between the recorded times, so moving the claim back
    before the deadline (chain recomputed) is named."""
    client = await Client.connect(closed_stack("player").nats_url)
    try:
        created = await client.create_game("yavoch", "full", reveal_deadline_ms=5)
        g, tokens = created.game_id, [s.token for s in created.seats]
        await client.act(g, 0, tokens[0], "seed-commit " + "ab" * 32)
        early: list[str] = []
        for _attempt in range(1000):  # until the service's clock has passed the deadline
            try:
                await client.act(g, 0, tokens[0], "claim-timeout")
                break
            except TabulaError as exc:
                early.append(exc.reason)
    finally:
        await client.close()
    assert all(r.startswith("the deadline is 5 ms") for r in early), early
    stored = await store.read_all(g)
    assert audit(stored).ok
    claim = next(s for s in stored if s.action == "0 claim-timeout")
    before = stored[claim.version - 2]
    assert claim.time_ms - before.time_ms >= 5
    moved = [msgspec.structs.replace(s, time_ms=before.time_ms) if s.action == claim.action
             else s for s in stored]  # fmt: skip
    report = audit(rechain(moved))
    assert report.failure is not None
    assert report.failure.version == claim.version
    assert "'claim-timeout' by seat 0 is refused by the rules" in report.failure.message
