"""Audit a stored game log against the fair-play protocol (docs/fair-play.md).

`audit(stored)` takes a game's stored events (the exact bytes, as `StoredEvent`s) and checks, in
log order, stopping at the first discrepancy:

- the hash chain over the exact stored bytes (section 4), versions 1, 2, 3 ... without gaps,
  one game id throughout, and each stored `type` equal to the body's tag; under chain v2 (the
  version whose formula gives h_1) each entry's time and command id too;
- `GameCreated` first; for a game with randomness a `SeedCommitted` before any player input,
  and once the game has ended a `SeedRevealed` matching it (section 1);
- every client seed reveal against its commitment; the mix from the seeds in seat order;
- every `RandomDrawn` and `DeckShuffled` recomputed from (server seed, game id, mix, nonce, n),
  their nonces together 0, 1, 2 ... (section 2);
- every `CardDealt`: salt and commitment, and, when the ruleset has `card_at(state, position)`,
  the card the recorded shuffles put there; every `CardRevealed` against its deal;
- every `SetupRevealed` against its `SetupCommitted` (section 3): a reveal that does not match
  must be rejected and the game lost by it;
- `GameSealed` records the (version, hash) of the event before it; nothing but the seed reveal
  follows a seal;
- replay: every event decodes as a platform or ruleset event and folds through the table;
- given the store's own head (`StoreHead`, from the game's meta), that the log ends exactly
  there with the same hash, and holds a GameEnded with the result the store records. Every
  prefix of a chain verifies, so only the head shows a tail cut off; without it (an export)
  the report says so.

Pure: no I/O, no clock. The services read the log and the head; this module only judges them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

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
from domain.core.ruleset import Rejection, Ruleset, cards_of, hidden_setup_of
from domain.core.table import Table, evolve, open_table, outcome
from domain.redecide import parse_command, redecide
from domain.registry import event_decoder, find_ruleset

__all__ = ["AuditReport", "Check", "Failure", "StoreHead", "audit", "chain_entries", "check_head"]

_HEX64 = re.compile(r"[0-9a-f]{64}")
IN_PLAY_NOTE = "in play, seed not yet revealed: draws cannot be checked yet"
NO_HEAD_NOTE = "no store head to compare with: events cut from the end would go unnoticed"
MISSING = "missing"  # the type named by a Failure at an event that is not in the log

# Events that are not player input: allowed before the server's seed commitment.
_NOT_INPUT = frozenset({"GameCreated", "SeedCommitted", "GameEnded", "GameSealed"})
# What may follow a GameSealed: the seed reveal (the randomness service's, after the end).
_AFTER_SEAL = frozenset({"SeedRevealed", "GameSealed"})
# What the platform appends without a player's command: the creation, then the seed reveal and
# the seal once the game has ended. Everything else must come from a recorded action.
_CREATION = frozenset({"GameCreated", "SeedCommitted"})
_FINISH = frozenset({"SeedRevealed", "GameSealed"})
NO_ACTIONS_NOTE = "commands not recorded (a log from before they were): not decided again"


class Failure(NamedTuple):
    """The first discrepancy: the event (version and stored type) and what is wrong."""

    version: int
    type: str
    message: str


class StoreHead(NamedTuple):
    """What the store records of a game beside its log (the meta hash): the version and chain
    hash of its last append, and the result once the game has ended ("" before)."""

    version: int
    hash: str
    result: str = ""


@dataclass(frozen=True, slots=True)
class Check:
    """One kind of check that passed, with how many items it covered."""

    name: str
    count: int
    detail: str

    def __str__(self) -> str:
        return f"{self.name}: {self.detail}"


@dataclass(frozen=True, slots=True)
class AuditReport:
    """What `audit` found. `checks` are the checks passed (up to the failure, if any)."""

    game_id: str
    ruleset: str
    events: int
    head: str  # h_n of the last event ("" for an empty log)
    status: str  # "ended", "in play" or "unknown" (the log could not be read that far)
    checks: tuple[Check, ...]
    notes: tuple[str, ...]
    failure: Failure | None
    chain: int = 0  # the hash chain version the log verified under (0: not determined)

    @property
    def ok(self) -> bool:
        return self.failure is None


class _Discrepancy(Exception):
    def __init__(self, message: str, at: StoredEvent | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.at = at  # the event to name, when not the one being checked


def _tag(event: Event) -> str:
    return str(type(event).__struct_config__.tag)


def _short(text: str, limit: int = 16) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


class _Auditor:
    """The walk over one log. Each `_on_*` method checks one event before it is folded."""

    def __init__(self, stored: Sequence[StoredEvent], head: StoreHead | None) -> None:
        self.stored = stored
        self.head = head
        self.game_id = stored[0].game_id
        self.ruleset: Ruleset[Any, Any] | None = None
        self.created: GameCreated | None = None
        self.table: Table | None = None
        self.decode: Callable[[bytes], Event] | None = None
        self.index = 0  # position in `stored` of the event being checked
        self.created_problem = ""
        # seeds
        self.commitment = ""
        self.server_seed = ""  # the revealed seed, when it matches the commitment
        self.seed_revealed_at = 0
        self.client_commitments: list[str] = []
        self.client_seeds: list[str] = []
        self.mix = ""
        # draws
        self.next_nonce = 0
        self.dice_checked = 0
        self.dice_pending = 0
        self.shuffles_checked = 0
        self.shuffles_pending = 0
        # cards
        self.dealt: dict[int, CardDealt] = {}
        self.cards = 0
        self.salts_checked = 0
        self.canonical_checked = 0
        self.card_reveals = 0
        # setups
        self.setup_commitments: list[str] = []
        self.setups_revealed: list[bool] = []
        self.setups = 0
        self.setups_rejected = 0
        # end
        self.ended_at: tuple[int, str] | None = None
        self.sealed = 0
        self.sealed_at = 0
        self.folded = 0
        self.head_ok = False
        # commands: a log that records actions has every other command decided again
        self.actions = any(s.action for s in stored)
        self.redecided = 0
        self.decoded: dict[int, Event] = {}  # a command's events, decoded once for both walks
        self.chain = 0  # the log's hash chain version, decided by h_1 (0: neither formula)

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
        except _Discrepancy as exc:
            failure = Failure(stored[0].version, stored[0].type, exc.message)
        except ValueError as exc:  # e.g. a game id the protocol does not allow
            failure = Failure(stored[0].version, stored[0].type, f"cannot check the chain: {exc}")
        if failure is None:
            self._find_seed(len(stored) if bad is None else bad - 1)
            for i, s in enumerate(stored):
                self.index = i
                try:
                    if bad == i + 1:
                        self._chain_failure(i)
                    if self.actions and (i == 0 or stored[i - 1].command_id != s.command_id):
                        self._command(i)
                    self._check(s)
                except _Discrepancy as exc:
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

    def _status(self) -> str:
        if self.table is None:
            return "unknown"
        return "ended" if self._ended() else "in play"

    def _ended(self) -> bool:
        return self.ended_at is not None or (
            self.table is not None and outcome(self.table) is not None
        )

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

    def _find_seed(self, upto: int) -> None:
        """Look ahead (within the verified chain) for the commitment and the revealed seed, so
        draws can be recomputed where they stand. A seed that does not match is not used: the
        walk reports it at its own event."""
        commitment = seed = ""
        for s in self.stored[:upto]:
            try:
                if s.type == "SeedCommitted" and not commitment:
                    commitment = msgspec.json.decode(bytes(s.body), type=SeedCommitted).commitment
                elif s.type == "SeedRevealed" and commitment and not seed:
                    seed = msgspec.json.decode(bytes(s.body), type=SeedRevealed).server_seed
            except msgspec.DecodeError:
                return  # the walk reports it
        try:
            if seed and fairplay.verify_seed(seed, commitment):
                self.server_seed = seed
        except ValueError:
            pass

    def _chain_failure(self, i: int) -> None:
        s = self.stored[i]
        expected = i + 1
        if s.version != expected:
            raise _Discrepancy(
                f"hash chain: version {s.version} stored where {expected} was expected "
                "(a gap, a repeat or a reordering)"
            )
        prev = self.stored[i - 1].hash if i else fairplay.genesis_hash(self.game_id)
        # h_1 decides the log's chain version; a first entry that matches neither names both.
        chains = (self.chain,) if self.chain else fairplay.CHAIN_VERSIONS
        computed: list[str] = []
        for chain in chains:
            try:
                digest = fairplay.entry_hash(chain, s.version, prev, s.type, bytes(s.body),
                                             s.time_ms, s.command_id, s.action)  # fmt: skip
            except ValueError as exc:  # e.g. a type or command id that is not ASCII
                computed.append(f"v{chain}: {exc}")
                continue
            computed.append(f"v{chain} {_short(digest)}")
        what = ("the event, its time (ts), its command id (cmd) or its hash"
                if self.chain != fairplay.CHAIN_V1 else "the event or its hash")  # fmt: skip
        raise _Discrepancy(
            f"hash chain: the stored hash {_short(s.hash)} is not h_{s.version} of the stored "
            f"entry ({' nor '.join(computed)}): {what} was altered"
        )

    def _check(self, s: StoredEvent) -> None:
        if s.game_id != self.stored[0].game_id:
            raise _Discrepancy(f"belongs to game {s.game_id!r}, not {self.stored[0].game_id!r}")
        if self.sealed and s.type not in _AFTER_SEAL:
            raise _Discrepancy(f"recorded after the game was sealed at version {self.sealed_at}")
        event = self.decoded.pop(s.version, None) or self._decode(s)
        name = _tag(event)
        if name != s.type:
            raise _Discrepancy(f"stored type {s.type!r} but the body's tag is {name!r}")
        self._protocol(s, event)
        self._fold(event)

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
                raise _Discrepancy("no player's command produced this event: without one only "
                                   "the creation, the seed reveal and the seal are appended",
                                   strays[0])  # fmt: skip
            return
        parsed = parse_command(first.action)
        if parsed is None or any(g.action != first.action for g in group):
            raise _Discrepancy(f"the recorded command {first.action!r} is not one "
                               "'<seat> <action>' for the whole command")  # fmt: skip
        if self.table is None:
            raise _Discrepancy("a command before the game was created")
        events = [self._decode(g) for g in group]
        self.decoded = {g.version: e for g, e in zip(group, events, strict=True)}
        if group[-1].type == "GameSealed":  # the store seals a decided end in the same append
            events.pop()
        mismatch = redecide(self.table, *parsed, first.time_ms - stored[i - 1].time_ms, events)
        if mismatch is not None:
            raise _Discrepancy(mismatch.message, group[min(mismatch.offset, len(group) - 1)])
        self.redecided += 1

    def _decode(self, s: StoredEvent) -> Event:
        if self.decode is None:  # the first event: GameCreated, already decoded
            if self.created_problem or self.created is None:
                raise _Discrepancy(self.created_problem)
            try:
                ruleset = find_ruleset(self.created.ruleset)
            except ValueError as exc:
                raise _Discrepancy(f"cannot replay: {exc}") from None
            self.ruleset = ruleset
            self.decode = event_decoder(ruleset.name).decode
            return self.created
        try:
            return self.decode(bytes(s.body))
        except msgspec.DecodeError as exc:
            name = self.ruleset.name if self.ruleset else "?"
            raise _Discrepancy(f"the body does not decode as a {name} event: {exc}") from None

    def _fold(self, event: Event) -> None:
        try:
            if self.table is None:
                assert self.ruleset is not None
                assert isinstance(event, GameCreated)
                self.table = open_table(self.ruleset, self.game_id, event)
            else:
                self.table = evolve(self.table, event)
        except Exception as exc:
            raise _Discrepancy(f"replay: the table cannot fold it: {exc!r}") from None
        self.folded += 1

    # -- protocol checks -------------------------------------------------------------------

    def _protocol(self, s: StoredEvent, event: Event) -> None:
        created = self.created
        assert created is not None
        if isinstance(event, GameCreated):
            if s.version != 1:
                raise _Discrepancy("a second GameCreated")
            seats = created.seats
            self.client_commitments = [""] * seats
            self.client_seeds = [""] * seats
            self.setup_commitments = [""] * seats
            self.setups_revealed = [False] * seats
            return
        if created.randomness and not self.commitment and s.type not in _NOT_INPUT:
            raise _Discrepancy(
                "player input before the server's seed commitment (SeedCommitted must come "
                "before any player input)"
            )
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            try:
                handler(self, s, event)
            except ValueError as exc:  # a malformed value fairplay refuses to hash
                raise _Discrepancy(str(exc)) from None

    def _seat(self, seat: int) -> int:
        assert self.created is not None
        if not 0 <= seat < self.created.seats:
            raise _Discrepancy(f"seat {seat} does not exist (seats: {self.created.seats})")
        return seat

    def _on_seed_committed(self, s: StoredEvent, event: SeedCommitted) -> None:
        assert self.created is not None
        if not self.created.randomness:
            raise _Discrepancy("a seed commitment in a game created without randomness")
        if self.commitment:
            raise _Discrepancy("a second SeedCommitted (protocol v1 has one seed per game)")
        if not _HEX64.fullmatch(event.commitment):
            raise _Discrepancy("the commitment is not a SHA-256 (64 hex)")
        self.commitment = event.commitment

    def _on_client_seed_committed(self, s: StoredEvent, event: ClientSeedCommitted) -> None:
        if not self.commitment:
            raise _Discrepancy("a client seed commitment in a game without a server commitment")
        seat = self._seat(event.seat)
        if self.client_commitments[seat]:
            raise _Discrepancy(f"seat {seat} committed a client seed twice")
        self.client_commitments[seat] = event.commitment

    def _on_client_seed_revealed(self, s: StoredEvent, event: ClientSeedRevealed) -> None:
        seat = self._seat(event.seat)
        if not all(self.client_commitments):
            raise _Discrepancy(f"seat {seat} revealed its client seed before every seat committed")
        if self.client_seeds[seat]:
            raise _Discrepancy(f"seat {seat} revealed a client seed twice")
        if not fairplay.is_valid_client_seed(event.seed):
            raise _Discrepancy(f"seat {seat}'s client seed {event.seed!r} is not valid")
        if not fairplay.verify_client_seed(
            self.game_id, seat, event.seed, self.client_commitments[seat]
        ):
            raise _Discrepancy(
                f"seat {seat}'s revealed client seed does not match its commitment "
                f"{_short(self.client_commitments[seat])}"
            )
        self.client_seeds[seat] = event.seed
        if all(self.client_seeds):
            self.mix = fairplay.mix(self.client_seeds)

    def _draw_preconditions(self, nonce: int) -> None:
        assert self.created is not None
        if not self.created.randomness:
            raise _Discrepancy("a random draw in a game created without randomness")
        if not self.commitment:
            raise _Discrepancy("a random draw before the server's seed commitment")
        if not self.mix:
            raise _Discrepancy("a random draw before every seat revealed its client seed")
        if self.seed_revealed_at:
            raise _Discrepancy(
                f"a random draw after the seed was revealed at version {self.seed_revealed_at} "
                "(a revealed seed is never used again)"
            )
        if nonce != self.next_nonce:
            what = "repeats an earlier nonce" if nonce < self.next_nonce else "skips nonces"
            raise _Discrepancy(f"nonce {nonce} where {self.next_nonce} is next: it {what}")
        self.next_nonce += 1

    def _on_random_drawn(self, s: StoredEvent, event: RandomDrawn) -> None:
        self._draw_preconditions(event.nonce)
        if event.kind == "die":
            if not 2 <= event.n <= 256:
                raise _Discrepancy(f"die({event.n}): a die has 2 to 256 faces")
            draw: Callable[[str, str, str, int, int], int] = fairplay.die
        elif event.kind == "uniform":
            if not 1 <= event.n <= 1 << 32:
                raise _Discrepancy(f"uniform({event.n}): the range is 1 to 2**32")
            draw = fairplay.uniform
        else:
            raise _Discrepancy(f"unknown draw kind {event.kind!r} (die or uniform)")
        if not 0 <= event.value < event.n:
            raise _Discrepancy(f"{event.kind}({event.n}) value {event.value} is out of range")
        if not self.server_seed:
            self.dice_pending += 1
            return
        value = draw(self.server_seed, self.game_id, self.mix, event.nonce, event.n)
        if value != event.value:
            raise _Discrepancy(
                f"{event.kind}({event.n}) at nonce {event.nonce} ({event.purpose}) recorded "
                f"{event.value}, but the seeds give {value}"
            )
        self.dice_checked += 1

    def _on_deck_shuffled(self, s: StoredEvent, event: DeckShuffled) -> None:
        self._draw_preconditions(event.nonce)
        if sorted(event.order) != list(range(event.n)):
            raise _Discrepancy(f"the order is not a permutation of 0..{event.n - 1}")
        if self.server_seed:
            order = fairplay.shuffle(self.server_seed, self.game_id, self.mix, event.nonce, event.n)
            if order != event.order:
                p = next(
                    i for i, (a, b) in enumerate(zip(order, event.order, strict=True)) if a != b
                )
                raise _Discrepancy(
                    f"shuffle of {event.n} at nonce {event.nonce} ({event.purpose}) differs "
                    f"from the seeds' from position {p} on ({event.order[p]} instead of {order[p]})"
                )
            self.shuffles_checked += 1
        else:
            self.shuffles_pending += 1

    def _on_card_dealt(self, s: StoredEvent, event: CardDealt) -> None:
        self._seat(event.seat)
        p = event.position
        if not (event.card and event.salt):
            raise _Discrepancy(f"the stored deal of position {p} lacks its card or salt")
        if self.server_seed:
            salt = fairplay.card_salt(self.server_seed, self.game_id, p)
            if salt != event.salt:
                raise _Discrepancy(f"the salt of position {p} is not the seed's salt_{p}")
            self.salts_checked += 1
        commitment = fairplay.card_commitment(self.game_id, p, event.card, event.salt)
        if commitment != event.commitment:
            raise _Discrepancy(
                f"the commitment of position {p} does not open to card {event.card!r} with its salt"
            )
        assert self.ruleset is not None  # after GameCreated
        assert self.table is not None
        cards = cards_of(self.ruleset)
        if cards is not None:
            expected = cards.card_at(self.table.game, p)
            if expected is None:
                raise _Discrepancy(f"no card can be dealt at position {p} here")
            if event.card != expected:
                raise _Discrepancy(
                    f"the shuffled deck puts {expected!r} at position {p}, but "
                    f"{event.card!r} was dealt"
                )
            self.canonical_checked += 1
        self.dealt[p] = event
        self.cards += 1

    def _on_card_revealed(self, s: StoredEvent, event: CardRevealed) -> None:
        p = event.position
        dealt = self.dealt.get(p)
        if dealt is None:
            raise _Discrepancy(f"reveals position {p}, which was never dealt")
        if not fairplay.verify_card(self.game_id, p, event.card, event.salt, dealt.commitment):
            raise _Discrepancy(
                f"card {event.card!r} does not match the commitment of position {p} dealt earlier"
            )
        self.card_reveals += 1

    def _on_setup_committed(self, s: StoredEvent, event: SetupCommitted) -> None:
        assert self.created is not None
        if not self.created.hidden_setup:
            raise _Discrepancy("a setup commitment in a game created without hidden setup")
        seat = self._seat(event.seat)
        if self.setup_commitments[seat]:
            raise _Discrepancy(f"seat {seat} committed its setup twice")
        self.setup_commitments[seat] = event.commitment

    def _on_setups_discarded(self, s: StoredEvent, event: SetupsDiscarded) -> None:
        """Every seat had revealed; all commit and reveal again (the table replays it)."""
        if not all(self.setups_revealed):
            raise _Discrepancy("setups discarded before every seat had revealed")
        seats = len(self.setup_commitments)
        self.setup_commitments = [""] * seats
        self.setups_revealed = [False] * seats

    def _on_setup_revealed(self, s: StoredEvent, event: SetupRevealed) -> None:
        assert self.created is not None
        assert self.table is not None
        if not self.created.hidden_setup:
            raise _Discrepancy("a setup reveal in a game created without hidden setup")
        seat = self._seat(event.seat)
        if not all(self.setup_commitments):
            raise _Discrepancy(f"seat {seat} revealed its setup before every seat committed")
        if self.setups_revealed[seat]:
            raise _Discrepancy(f"seat {seat} revealed its setup twice")
        data = event.setup.encode()
        try:
            matches = fairplay.verify_setup(
                self.game_id, seat, event.nonce, data, self.setup_commitments[seat]
            )
        except ValueError:
            matches = False
        assert self.ruleset is not None  # after GameCreated
        hidden = hidden_setup_of(self.ruleset)
        if matches and hidden is not None:
            problem: Rejection | None = hidden.check_setup(self.table.game, seat, data)
            if problem is None and event.rejected:
                raise _Discrepancy(
                    f"seat {seat}'s setup was rejected ({event.rejected!r}) although it matches "
                    "its commitment and obeys the placement rules"
                )
            if problem is not None and not event.rejected:
                raise _Discrepancy(
                    f"seat {seat}'s setup was accepted although the placement rules reject it: "
                    f"{problem.reason}"
                )
        if not matches and not event.rejected:
            raise _Discrepancy(
                f"seat {seat}'s revealed setup does not match its commitment, yet it was not "
                "rejected"
            )
        if event.rejected:
            self._lost_by(seat)
            self.setups_rejected += 1
        self.setups_revealed[seat] = True
        self.setups += 1

    def _lost_by(self, seat: int) -> None:
        """A rejected reveal loses the game: a GameEnded must follow that `seat` did not win."""
        for later in self.stored[self.index + 1 :]:
            if later.type != "GameEnded":
                continue
            try:
                ended = msgspec.json.decode(bytes(later.body), type=GameEnded)
            except msgspec.DecodeError:
                return  # the walk reports it there
            if seat in ended.winners:
                raise _Discrepancy(
                    f"seat {seat}'s setup was rejected, yet seat {seat} wins at version "
                    f"{later.version}"
                )
            return
        raise _Discrepancy(f"seat {seat}'s setup was rejected but the game did not end by it")

    def _on_seed_revealed(self, s: StoredEvent, event: SeedRevealed) -> None:
        if not self.commitment:
            raise _Discrepancy("a seed reveal without a seed commitment")
        if self.seed_revealed_at:
            raise _Discrepancy(f"the seed was already revealed at version {self.seed_revealed_at}")
        try:
            matches = fairplay.verify_seed(event.server_seed, self.commitment)
        except ValueError:
            matches = False
        if not matches:
            raise _Discrepancy(
                f"SHA256 of the revealed seed is not the commitment {_short(self.commitment)}"
            )
        if not self._ended():
            raise _Discrepancy("the seed was revealed while the game is in play")
        self.server_seed = event.server_seed
        self.seed_revealed_at = s.version

    def _on_game_ended(self, s: StoredEvent, event: GameEnded) -> None:
        if self.ended_at is None:
            self.ended_at = (s.version, s.type)

    def _on_game_sealed(self, s: StoredEvent, event: GameSealed) -> None:
        before = self.stored[self.index - 1]
        if (event.version, event.hash) != (before.version, before.hash):
            raise _Discrepancy(
                f"the seal records ({event.version}, {_short(event.hash)}), but the event "
                f"before it is ({before.version}, {_short(before.hash)})"
            )
        self.sealed += 1
        self.sealed_at = s.version

    # -- the end -----------------------------------------------------------------------------

    def _finish(self, notes: list[str]) -> Failure | None:
        assert self.created is not None
        if self.created.randomness:
            if not self.commitment:
                notes.append("the server seed was never committed (no draws were possible)")
            elif not self.seed_revealed_at:
                if self._ended():
                    version, type_ = self.ended_at or (
                        self.stored[-1].version,
                        self.stored[-1].type,
                    )
                    return Failure(
                        version,
                        type_,
                        "the game has ended but the server seed was never revealed: its draws "
                        "cannot be checked",
                    )
                notes.append(IN_PLAY_NOTE)
            if self.commitment and not self.mix:
                notes.append("the client seeds were not all revealed: no mix, no draws")
        return None

    def _checks(self, checked: int) -> tuple[Check, ...]:
        created = self.created
        covered = {fairplay.CHAIN_V1: "times, command ids and actions not included",
                   fairplay.CHAIN_V2: "times, command ids and actions included"}  # fmt: skip
        detail = f"{checked} events, hashes and versions"
        if self.chain in covered:
            detail += f" (hash chain v{self.chain}, {covered[self.chain]})"
        checks = [Check("chain", checked, detail)]
        if created is None:
            return tuple(checks)
        checks.append(Check("types", self.folded, f"{self.folded} events decode, tags match"))
        if created.randomness and self.commitment:
            state = "revealed, matches" if self.seed_revealed_at else "committed, not yet revealed"
            checks.append(Check("seed", 1, f"{state} {_short(self.commitment)}"))
        revealed = sum(1 for c in self.client_seeds if c)
        if revealed:
            mix = f", mix {_short(self.mix)}" if self.mix else ""
            checks.append(Check("client seeds", revealed, f"{revealed} reveals match{mix}"))
        draws = self.dice_checked + self.dice_pending
        if draws:
            detail = f"{self.dice_checked} rolls recomputed"
            if self.dice_pending:
                detail = f"{draws} rolls recorded, not yet checkable"
            checks.append(Check("dice", draws, detail))
        shuffles = self.shuffles_checked + self.shuffles_pending
        if shuffles:
            detail = f"{self.shuffles_checked} recomputed"
            if self.shuffles_pending:
                detail = f"{shuffles} recorded, permutations, not yet recomputable"
            checks.append(Check("shuffles", shuffles, detail))
        if self.next_nonce:
            checks.append(
                Check("nonces", self.next_nonce, f"0..{self.next_nonce - 1}, no gap or repeat")
            )
        if self.cards:
            extra = [f"{self.salts_checked} salts"] if self.salts_checked else []
            if self.canonical_checked:
                extra.append(f"{self.canonical_checked} against the shuffled deck")
            more = f" ({', '.join(extra)})" if extra else ""
            checks.append(Check("cards", self.cards, f"{self.cards} commitments{more}"))
        if self.card_reveals:
            checks.append(Check("card reveals", self.card_reveals, f"{self.card_reveals} match"))
        if self.setups:
            rejected = (
                f" ({self.setups_rejected} rejected, game lost)" if self.setups_rejected else ""
            )
            checks.append(Check("setups", self.setups, f"{self.setups}{rejected}"))
        if self.redecided:
            detail = f"{self.redecided} decided again, each yielding exactly its events"
            checks.append(Check("commands", self.redecided, detail))
        if self.sealed:
            checks.append(Check("seal", self.sealed, f"records version {self.sealed_at - 1}"))
        if self.head_ok:
            assert self.head is not None
            checks.append(Check("store head", 1, _head_detail(self.head)))
        if self.table is not None:
            result = outcome(self.table)
            end = f"{result.result} by {result.reason}" if result else "in play"
            checks.append(Check("replay", self.folded, f"{self.folded} events folded, {end}"))
        return tuple(checks)


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


def _missing(first: int, last: int) -> str:
    return f"event {first} is missing" if first == last else f"events {first}..{last} are missing"


def _head_detail(head: StoreHead) -> str:
    result = f", result {head.result}" if head.result else ""
    return f"the log ends at the store's head, version {head.version} {_short(head.hash)}{result}"


def _ended_result(s: StoredEvent) -> str | None:
    try:
        return msgspec.json.decode(bytes(s.body), type=GameEnded).result
    except msgspec.DecodeError:
        return None  # the audit's walk names it; `verify` checks only the chain


def check_head(stored: Sequence[StoredEvent], head: StoreHead) -> Failure | None:
    """The log against the store's head: it must end at the head's version with the head's
    hash, and hold a GameEnded with the result the store records, if any. (A chain cut short
    still verifies; the head, written in the same script as each append, does not move back.)

    `stored` must already be a verified chain (versions 1..n in order).
    """
    n, v = len(stored), head.version
    if n < v:
        return Failure(
            n + 1,
            MISSING,
            f"the store's head is at version {v} but the log ends at {n}: {_missing(n + 1, v)}",
        )
    if v and stored[v - 1].hash != head.hash:
        s = stored[v - 1]
        return Failure(
            v,
            s.type,
            f"the store's head hash at version {v} is {_short(head.hash)}, but the log's "
            f"h_{v} is {_short(s.hash)}",
        )
    if n > v:
        s = stored[v]
        what = f"event {n} is" if n == v + 1 else f"events {v + 1}..{n} are"
        where = f"the store's head at version {v}" if v else "the store, which has no head for it"
        return Failure(
            s.version, s.type, f"the log runs past {where}: {what} not in the store's head"
        )
    if head.result and stored:
        ended = next((s for s in stored if s.type == "GameEnded"), None)
        if ended is None:
            last = stored[-1]
            return Failure(
                last.version,
                last.type,
                f"the store records the result {head.result}, but the log has no GameEnded",
            )
        result = _ended_result(ended)
        if result is not None and result != head.result:
            return Failure(
                ended.version,
                ended.type,
                f"the store records the result {head.result}, but the log's GameEnded says "
                f"{result}",
            )
    return None


def audit(stored: Sequence[StoredEvent], head: StoreHead | None = None) -> AuditReport:
    """Check a game's stored log against the fair-play protocol; stop at the first discrepancy.

    `stored` is the game's whole log in version order, with the exact stored bytes. The game id
    is `GameCreated.game_id`, or the envelope's for logs written before it was recorded. `head`
    is the store's own record of the game (its meta), when the log comes from a store: without
    it a log cut short cannot be told from a game in play.
    """
    if not stored:
        failure = (check_head(stored, head) if head else None) or Failure(0, "", "the log is empty")
        return AuditReport("", "", 0, "", "unknown", (), (), failure)
    return _Auditor(stored, head).run()


def chain_entries(stored: Iterable[StoredEvent]) -> list[fairplay.ChainEntry]:
    """Stored events as the hash chain sees them (`fairplay.verify_chain`'s entries): version,
    type, the exact stored bytes, time (`ts`), command id (`cmd`), `h_n` and the action."""
    return [fairplay.ChainEntry(s.version, s.type, bytes(s.body), s.time_ms, s.command_id,
                                s.hash, s.action) for s in stored]  # fmt: skip
