"""The walk over one log (`audit`): the game id from `GameCreated`, the chain verified, then
each event in log order, stopping at the first discrepancy: its game and place after a seal,
its command decided again, its body decoded with the stored type its tag, the protocol's
checks for its kind (the handlers of randomness.py and hidden.py, and the end and seal here),
and its fold; then the store's head and the verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from contracts.envelope import StoredEvent
from contracts.events import (
    CardDealt,
    CardRevealed,
    ClientSeedCommitted,
    ClientSeedRevealed,
    DeckShuffled,
    Event,
    GameCreated,
    GameEnded,
    GameSealed,
    RandomDrawn,
    SeedCommitted,
    SeedRevealed,
    SetupCommitted,
    SetupRevealed,
    SetupsDiscarded,
)
from domain import fairplay
from domain.audit.chain import chain_entries, chain_failure, check_head
from domain.audit.hidden import HiddenChecks
from domain.audit.randomness import RandomnessChecks
from domain.audit.readable import Readable, check_readable
from domain.audit.replay import Replay
from domain.audit.report import (
    NO_ACTIONS_NOTE,
    NO_HEAD_NOTE,
    AuditReport,
    Discrepancy,
    Failure,
    StoreHead,
    short,
)
from domain.audit.verdict import Verdict

# Events that are not player input: allowed before the server's seed commitment.
_NOT_INPUT = frozenset({"GameCreated", "SeedCommitted", "GameEnded", "GameSealed"})
# What may follow a GameSealed: the seed reveal (the randomness service's, after the end).
_AFTER_SEAL = frozenset({"SeedRevealed", "GameSealed"})


def _tag(event: Event) -> str:
    return str(type(event).__struct_config__.tag)


class _Auditor(RandomnessChecks, HiddenChecks, Replay, Verdict):
    """The walk over one log, over the state of state.py with the checks of randomness.py,
    hidden.py, replay.py and verdict.py. Each `_on_*` method (here, in randomness.py and in
    hidden.py) checks one event before it is folded."""

    # -- the walk ----------------------------------------------------------------------------

    def run(self) -> AuditReport:
        stored = self.stored
        failure: Failure | None = None
        bad: int | None = None
        try:
            self._read_created()
            entries = chain_entries(stored)
            bad = fairplay.verify_chain(self.game_id, entries)
            self.chain = fairplay.chain_version(self.game_id, entries) or 0
        except Discrepancy as exc:
            failure = Failure(stored[0].version, stored[0].type, exc.message)
        except ValueError as exc:  # e.g. a game id the protocol does not allow
            failure = Failure(stored[0].version, stored[0].type, f"cannot check the chain: {exc}")
        if failure is None:
            self._find_seed(len(stored) if bad is None else bad - 1)
            for i, s in enumerate(stored):
                self.index = i
                try:
                    if bad == i + 1:
                        chain_failure(stored, i, self.game_id, self.chain)
                    self._readable(i)
                    if self.actions and (i == 0 or stored[i - 1].command_id != s.command_id):
                        self._command(i)
                    self._check(s)
                except Discrepancy as exc:
                    at = exc.at or s
                    failure = Failure(at.version, at.type, exc.message)
                    break
        checked = len(stored) if failure is None else self.index
        notes: list[str] = []
        if failure is None and self.head is not None:
            failure = check_head(stored, self.head)
            self.head_ok = failure is None
        if failure is None:
            failure = self._finish(notes)
            if self.head is None:
                notes.append(NO_HEAD_NOTE)
            if not self.actions:
                notes.append(NO_ACTIONS_NOTE)
        return AuditReport(
            game_id=self.game_id,
            ruleset=self.created.ruleset if self.created else "",
            events=len(stored),
            head=stored[-1].hash,
            status=self._status(),
            checks=self._checks(checked),
            notes=tuple(notes),
            failure=failure,
            chain=self.chain,
        )

    def _readable(self, i: int) -> None:
        """An export line's readable copy of event `i`, if it has one, against its bytes."""
        copy = self.readable[i] if i < len(self.readable) else None
        if copy is not None:
            check_readable(bytes(self.stored[i].body), copy)
            self.readable_checked += 1

    def _status(self) -> str:
        if self.table is None:
            return "unknown"
        return "ended" if self._ended() else "in play"

    def _read_created(self) -> None:
        """Decode GameCreated early, for the game id the chain hashes under. A problem with it is
        kept for its turn in the walk, so a broken chain at version 1 is reported first."""
        first = self.stored[0]
        if first.version != 1 or first.type != "GameCreated":
            self.created_problem = "the log does not start with GameCreated at version 1"
            return
        try:
            created = msgspec.json.decode(bytes(first.body), type=GameCreated)
        except msgspec.DecodeError as exc:
            self.created_problem = f"GameCreated does not decode: {exc}"
            return
        self.created = created
        game_id = created.game_id or first.game_id
        if fairplay.is_valid_game_id(game_id):
            self.game_id = game_id
        else:
            self.created_problem = f"game id {game_id!r} does not match [a-z0-9-]{{1,64}}"

    def _check(self, s: StoredEvent) -> None:
        if s.game_id != self.stored[0].game_id:
            raise Discrepancy(f"belongs to game {s.game_id!r}, not {self.stored[0].game_id!r}")
        if self.sealed and s.type not in _AFTER_SEAL:
            raise Discrepancy(f"recorded after the game was sealed at version {self.sealed_at}")
        event = self.decoded.pop(s.version, None) or self._decode(s)
        name = _tag(event)
        if name != s.type:
            raise Discrepancy(f"stored type {s.type!r} but the body's tag is {name!r}")
        self._protocol(s, event)
        self._fold(event)

    # -- protocol checks -------------------------------------------------------------------

    def _protocol(self, s: StoredEvent, event: Event) -> None:
        created = self.created
        assert created is not None
        if isinstance(event, GameCreated):
            if s.version != 1:
                raise Discrepancy("a second GameCreated")
            seats = created.seats
            self.client_commitments = [""] * seats
            self.client_seeds = [""] * seats
            self.setup_commitments = [""] * seats
            self.setups_revealed = [False] * seats
            return
        if created.randomness and not self.commitment and s.type not in _NOT_INPUT:
            raise Discrepancy(
                "player input before the server's seed commitment (SeedCommitted must come "
                "before any player input)"
            )
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            try:
                handler(self, s, event)
            except ValueError as exc:  # a malformed value fairplay refuses to hash
                raise Discrepancy(str(exc)) from None

    def _on_game_ended(self, s: StoredEvent, event: GameEnded) -> None:
        if self.ended_at is None:
            self.ended_at = (s.version, s.type)

    def _on_game_sealed(self, s: StoredEvent, event: GameSealed) -> None:
        before = self.stored[self.index - 1]
        if (event.version, event.hash) != (before.version, before.hash):
            raise Discrepancy(
                f"the seal records ({event.version}, {short(event.hash)}), but the event "
                f"before it is ({before.version}, {short(before.hash)})"
            )
        self.sealed += 1
        self.sealed_at = s.version


_HANDLERS: dict[type[Event], Callable[[_Auditor, StoredEvent, Any], None]] = {
    SeedCommitted: _Auditor._on_seed_committed,
    ClientSeedCommitted: _Auditor._on_client_seed_committed,
    ClientSeedRevealed: _Auditor._on_client_seed_revealed,
    RandomDrawn: _Auditor._on_random_drawn,
    DeckShuffled: _Auditor._on_deck_shuffled,
    CardDealt: _Auditor._on_card_dealt,
    CardRevealed: _Auditor._on_card_revealed,
    SetupCommitted: _Auditor._on_setup_committed,
    SetupRevealed: _Auditor._on_setup_revealed,
    SetupsDiscarded: _Auditor._on_setups_discarded,
    SeedRevealed: _Auditor._on_seed_revealed,
    GameEnded: _Auditor._on_game_ended,
    GameSealed: _Auditor._on_game_sealed,
}


def audit(
    stored: Sequence[StoredEvent],
    head: StoreHead | None = None,
    readable: Sequence[Readable | None] = (),
) -> AuditReport:
    """Check a game's stored log against the fair-play protocol; stop at the first discrepancy.

    `stored` is the game's whole log in version order, with the exact stored bytes. The game id
    is `GameCreated.game_id`, or the envelope's for logs written before it was recorded. `head`
    is the store's own record of the game (its meta), when the log comes from a store: without
    it a log cut short cannot be told from a game in play. `readable` are an export's readable
    copies (`event`), by position in `stored` (None: a line without one); each must be its
    body decoded.
    """
    if not stored:
        failure = (check_head(stored, head) if head else None) or Failure(0, "", "the log is empty")
        return AuditReport("", "", 0, "", "unknown", (), (), failure)
    return _Auditor(stored, head, readable).run()
