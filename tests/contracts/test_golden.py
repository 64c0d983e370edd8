"""Schema evolution: committed sample logs must decode, verify and replay forever.

Each `golden/*.jsonl` holds one game's stored events exactly as the store returned them (the
body's bytes embedded verbatim); `<name>.position` holds the position its replay must reach.
`chess3d-v0.jsonl` was written by hand in the shape of the first release's GameCreated (no
teams, players or position fields), as an older writer would have stored it.
"""

from pathlib import Path

import msgspec
import pytest

from contracts.envelope import StoredEvent
from contracts.schemas import REPLIES, REQUESTS, all_schemas
from domain import fairplay
from domain.audit import audit, chain_entries
from domain.core import fold
from services.runtime.codec import decode_log

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.jsonl"))


def load(path: Path) -> list[StoredEvent]:
    dec = msgspec.json.Decoder(StoredEvent)
    return [dec.decode(line) for line in path.read_bytes().splitlines() if line.strip()]


def test_there_are_golden_logs() -> None:
    assert len(GOLDEN) >= 2


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_log_decodes_verifies_and_replays(path: Path) -> None:
    stored = load(path)
    game_id = stored[0].game_id
    entries = chain_entries(stored)
    assert fairplay.verify_chain(game_id, entries) is None
    # The -v2 logs were recorded with hash chain v2 (actions inside); the others before it.
    chain = fairplay.CHAIN_V2 if path.stem.endswith("-v2") else fairplay.CHAIN_V1
    assert fairplay.chain_version(game_id, entries) == chain
    ruleset, events = decode_log(stored)
    assert [type(e).__name__ for e in events] == [s.type for s in stored]
    state = fold(ruleset, events)
    expected = path.with_suffix(".position").read_text().strip()
    assert ruleset.position(state) == expected


def test_newer_fields_are_ignored_by_this_reader() -> None:
    """A field added by a later release must not break decoding here (no forbid_unknown)."""
    stored = load(GOLDEN[0])
    body = msgspec.json.decode(stored[0].body)
    body["added_later"] = {"x": 1}
    _, events = decode_log(
        [msgspec.structs.replace(stored[0], body=msgspec.Raw(msgspec.json.encode(body)))]
    )
    assert type(events[0]).__name__ == "GameCreated"


def test_schema_covers_every_message_and_docs_are_current() -> None:
    schemas = all_schemas()
    for t in REQUESTS:
        assert t.__name__ in schemas
    reply_schema = msgspec.json.encode(schemas["Reply"]).decode()
    for t in REPLIES:
        assert f'"{t.__name__}"' in reply_schema
    docs = Path(__file__).parents[2] / "docs" / "schemas"
    for name, doc in schemas.items():
        committed = (docs / f"{name}.json").read_bytes()
        assert committed == msgspec.json.format(msgspec.json.encode(doc)), (
            f"docs/schemas/{name}.json is stale: run `make schema`"
        )


@pytest.mark.parametrize("path", [p for p in GOLDEN if p.stem.startswith("yavoch")],
                         ids=lambda p: p.stem)  # fmt: skip
def test_golden_yavoch_games_pass_the_audit(path: Path) -> None:
    """Y-6.1: a recorded game of each ruleset, every die of fate and (full) every card
    recomputed from the revealed seed, offline."""
    report = audit(load(path))
    assert report.ok, report.failure
    assert report.status == "ended"
    names = {c.name for c in report.checks}
    assert "dice" in names or "shuffles" in names


@pytest.mark.parametrize("path", [p for p in GOLDEN if p.stem.endswith("-v2")],
                         ids=lambda p: p.stem)  # fmt: skip
def test_golden_v2_games_pass_the_audit_deciding_every_action_again(path: Path) -> None:
    """A Secondary Complex Yiora game of two teams (YI-8.4), recorded through the services:
    every recorded action decided again yields exactly its events."""
    stored = load(path)
    report = audit(stored)
    assert report.ok, report.failure
    assert report.status == "ended"
    commands = {s.command_id for s in stored if s.action}
    assert next(c for c in report.checks if c.name == "commands").count == len(commands)
