"""Replay: every event decoded as a platform or ruleset event and folded through the table;
every recorded command decided again from the table as it stood (domain/redecide.py), yielding
exactly its events, and every event without a command the platform's own.
"""

from __future__ import annotations

import msgspec

from contracts.envelope import StoredEvent
from contracts.events import ClockCharged, Event, GameCreated
from domain.audit.report import Discrepancy
from domain.audit.state import AuditState
from domain.core.table import evolve, open_table, start_clocks
from domain.redecide import parse_command, redecide
from domain.registry import event_decoder, find_ruleset

# What the platform appends without a player's command: the creation, then the seed reveal and
# the seal once the game has ended. Everything else must come from a recorded action.
_CREATION = frozenset({"GameCreated", "SeedCommitted", "ClockCharged"})
_FINISH = frozenset({"SeedRevealed", "GameSealed"})


class Replay(AuditState):
    """Decoding, folding, and deciding each command again."""

    def _command(self, i: int) -> None:
        """At the first event of a command: decide its recorded action again from the table as
        it stands, and require exactly the recorded events (domain.redecide). A command
        without an action may only be the platform's: the creation, or the seed reveal and
        seal after the end."""
        stored = self.stored
        first = stored[i]
        j = i
        while j + 1 < len(stored) and stored[j + 1].command_id == first.command_id:
            j += 1
        group = stored[i : j + 1]
        if not first.action:
            allowed = _CREATION if i == 0 else _FINISH
            strays = [g for g in group if g.type not in allowed]
            if strays:
                raise Discrepancy("no player's command produced this event: without one only "
                                   "the creation, the seed reveal and the seal are appended",
                                   strays[0])  # fmt: skip
            return
        parsed = parse_command(first.action)
        if parsed is None or any(g.action != first.action for g in group):
            raise Discrepancy(f"the recorded command {first.action!r} is not one "
                               "'<seat> <action>' for the whole command")  # fmt: skip
        if self.table is None:
            raise Discrepancy("a command before the game was created")
        events = [self._decode(g) for g in group]
        self.decoded = {g.version: e for g, e in zip(group, events, strict=True)}
        if group[-1].type == "GameSealed":  # the store seals a decided end in the same append
            events.pop()
        idle_ms = first.time_ms - stored[i - 1].time_ms
        mismatch = redecide(self.table, *parsed, idle_ms, events, first.time_ms)
        if mismatch is not None:
            raise Discrepancy(mismatch.message, group[min(mismatch.offset, len(group) - 1)])
        self.redecided += 1

    def _decode(self, s: StoredEvent) -> Event:
        if self.decode is None:  # the first event: GameCreated, already decoded
            if self.created_problem or self.created is None:
                raise Discrepancy(self.created_problem)
            try:
                ruleset = find_ruleset(self.created.ruleset)
            except ValueError as exc:
                raise Discrepancy(f"cannot replay: {exc}") from None
            self.ruleset = ruleset
            self.decode = event_decoder(ruleset.name).decode
            return self.created
        try:
            return self.decode(bytes(s.body))
        except msgspec.DecodeError as exc:
            name = self.ruleset.name if self.ruleset else "?"
            raise Discrepancy(f"the body does not decode as a {name} event: {exc}") from None

    def _fold(self, event: Event) -> None:
        stored = self.stored[self.index]
        # The creation's clocks: a game made in play starts them when it is made.
        if (isinstance(event, ClockCharged) and not stored.action and self.table is not None
                and start_clocks(self.table, stored.time_ms) != (event,)):  # fmt: skip
            raise Discrepancy("the clocks do not start at the game's creation as recorded")
        try:
            if self.table is None:
                assert self.ruleset is not None
                assert isinstance(event, GameCreated)
                self.table = open_table(self.ruleset, self.game_id, event)
            else:
                self.table = evolve(self.table, event)
        except Exception as exc:  # noqa: BLE001  # whatever a damaged log breaks is a finding
            raise Discrepancy(f"replay: the table cannot fold it: {exc!r}") from None
        self.folded += 1
