"""Whole random-bot games of every variation at the platform's table, stored and chained as the
event store does, pass the audit, which decides every recorded action again; a forged move
fails at its event."""

import random

import msgspec
import pytest

from contracts.envelope import StoredEvent
from contracts.events import Event, GameSealed
from domain import fairplay
from domain.audit import audit
from domain.core import Decided
from domain.core import table as tables
from domain.yiora import YIORA

VARIANTS = ["", "secondary_basic", "secondary_complex",
            "secondary_complex+teams+complex_turn_mode=parallel"]  # fmt: skip


class Log:
    """A game's stored log: each command's events under one command id and its action."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.stored: list[StoredEvent] = []
        self.prev = fairplay.genesis_hash(game_id)

    def append(self, events: tuple[Event, ...], action: str = "") -> None:
        command = f"c{len(self.stored) + 1}"
        for event in events:
            if isinstance(event, GameSealed):
                event = GameSealed(version=len(self.stored), hash=self.prev)  # noqa: PLW2901
            body = msgspec.json.encode(event)
            tag = type(event).__struct_config__.tag
            assert isinstance(tag, str)
            version = len(self.stored) + 1
            time_ms = 1_700_000_000_000 + version
            digest = fairplay.entry_hash(fairplay.CHAIN_V2, version, self.prev, tag, body, time_ms,
                                         command, action)  # fmt: skip
            self.stored.append(StoredEvent(game_id=self.game_id, version=version, type=tag,
                                           body=msgspec.Raw(body), time_ms=time_ms,
                                           command_id=command, hash=digest,
                                           action=action))  # fmt: skip
            self.prev = digest


def played(variant: str, seed: int) -> Log:
    rng = random.Random(seed)
    game_id = f"yiora-audit-{seed}"
    created = msgspec.structs.replace(YIORA.create(variant), game_id=game_id)
    table = tables.open_table(YIORA, game_id, created)
    log = Log(game_id)
    log.append((created,))
    while tables.outcome(table) is None:
        seat = rng.choice(sorted(tables.to_act(table)))
        action = YIORA.bot_action(table.game, seat, rng.randrange)
        text = YIORA.format_action(table.game, action)
        decided = tables.decide(table, seat, text)
        assert isinstance(decided, Decided), decided
        table = decided.state
        events = tuple(decided)
        if tables.seal_due(table):  # the store seals a decided end in the same append
            events = (*events, GameSealed(version=0, hash=""))
        log.append(events, f"{seat} {text}")
    return log


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_games_pass_the_audit(variant: str) -> None:
    """Every action is decided again and yields exactly its recorded events."""
    # YI-4.4, YI-8.3, YI-8.4, YI-8.4.3
    log = played(variant, 11)
    report = audit(log.stored)
    assert report.ok, report.failure
    assert log.stored[-1].type == "GameSealed"


def test_a_forged_move_fails_at_its_event() -> None:
    """A recorded action replaced by another legal one no longer yields its events."""
    # YI-4.2, YI-1.7
    log = played("", 4)
    forged = next(s for s in log.stored if s.version >= 3 and s.action)
    rebuilt: list[StoredEvent] = []
    prev = fairplay.genesis_hash(log.game_id)
    for s in log.stored:  # the same bodies, chained again with one action changed
        action = "0 A3-A13" if s.version == forged.version else s.action
        digest = fairplay.entry_hash(fairplay.CHAIN_V2, s.version, prev, s.type, bytes(s.body),
                                     s.time_ms, s.command_id, action)  # fmt: skip
        rebuilt.append(msgspec.structs.replace(s, action=action, hash=digest))
        prev = digest
    report = audit(rebuilt)
    assert not report.ok
    assert report.failure is not None
    assert report.failure.version == forged.version
