"""domain.audit: an honest log passes every check; each kind of tampering fails at its event.

The logs are built from platform events with a tiny test ruleset ("auditdice": a die, a deck of
ten cards, a hidden setup of three numbers) registered for the test, then chained exactly as the
event store chains them (hash chain v2 over the encoded bytes, time and command id; v1 where a
test says so).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import msgspec
import pytest
from msgspec.structs import replace

from contracts.envelope import StoredEvent
from contracts.errors import ErrorCode
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
)
from domain import fairplay, registry
from domain.audit import (
    IN_PLAY_NOTE,
    MISSING,
    NO_ACTIONS_NOTE,
    NO_HEAD_NOTE,
    AuditReport,
    StoreHead,
    audit,
)
from domain.core import Capability, Outcome, Rejection, outcome
from domain.core.ruleset import check_capabilities
from tests.rulesets import register
from tests.rulesets.driver import LocalGame, play_locally, setup_bytes

GAME = "g-audit"
SERVER_SEED = "9f2c" * 16
CLIENT_SEEDS = ("alice0123456789ab", "bob0123456789abcd")
MIX = fairplay.mix(CLIENT_SEEDS)
SETUP_NONCES = ("ab" * 32, "cd" * 32)
SETUPS = ("[1,2,3]", "[4,5,6]")
DECK = 10


# -- a ruleset that only keeps score of the end ---------------------------------------------


class Step(Event, tag="AuditStep", frozen=True, kw_only=True):
    seat: int


@dataclass(frozen=True)
class State:
    ended: Outcome | None = None
    order: tuple[int, ...] = ()  # the latest shuffle


class AuditDice:
    """Just enough of a ruleset for the table: it ends on GameEnded, checks setups (three
    numbers) and deals from a shuffled deck c0..c9."""

    name = "auditdice"
    capabilities = frozenset({Capability.FORFEIT, Capability.HIDDEN_SETUP, Capability.CARDS})
    events = (Step,)

    def start(self, created: GameCreated) -> State:
        return State()

    def evolve(self, state: State, event: Event) -> State:
        if isinstance(event, GameEnded):
            return State(outcome.of(event), state.order)
        if isinstance(event, DeckShuffled):
            return State(state.ended, tuple(event.order))
        return state

    def outcome(self, state: State) -> Outcome | None:
        return state.ended

    def to_act(self, state: State) -> frozenset[int]:
        return frozenset() if state.ended else frozenset({0, 1})

    def check_setup(self, state: State, seat: int, setup: bytes) -> Rejection | None:
        try:
            numbers = msgspec.json.decode(setup, type=list[int])
        except msgspec.DecodeError:
            numbers = []
        if len(numbers) != 3:
            return Rejection(ErrorCode.ILLEGAL_ACTION, "a setup is three numbers")
        return None

    def combined_setup_problem(self, state: State) -> str | None:
        return None

    def forfeit(self, state: State, losers: Sequence[int], reason: str) -> tuple[Event, ...]:
        return (outcome.ended(outcome.lose(losers, reason)),)

    def card_at(self, state: State, position: int) -> str | None:
        if not 0 <= position < len(state.order):
            return None
        return f"c{state.order[position]}"


@pytest.fixture(autouse=True)
def ruleset(monkeypatch: pytest.MonkeyPatch) -> AuditDice:
    rs = AuditDice()
    check_capabilities(rs)  # type: ignore[arg-type]  # just enough of a ruleset
    monkeypatch.setitem(registry.RULESETS, rs.name, rs)
    return rs


# -- building chained logs ------------------------------------------------------------------


def chained(
    events: Sequence[Event], game_id: str = GAME, chain: int = fairplay.CHAIN_V2
) -> list[StoredEvent]:
    """Store `events` as the event store would; a GameSealed records the event before it."""
    stored: list[StoredEvent] = []
    prev = fairplay.genesis_hash(game_id)
    for i, given in enumerate(events, 1):
        event = GameSealed(version=i - 1, hash=prev) if isinstance(given, GameSealed) else given
        body = msgspec.json.encode(event)
        tag = type(event).__struct_config__.tag
        assert isinstance(tag, str)
        stored.append(entry(game_id, i, tag, body, prev, chain))
        prev = stored[-1].hash
    return stored


def entry(
    game_id: str,
    version: int,
    type_: str,
    body: bytes,
    prev: str,
    chain: int = fairplay.CHAIN_V2,
) -> StoredEvent:
    time_ms, command_id = 1_700_000_000_000 + version, f"c{version}"
    return StoredEvent(
        game_id=game_id,
        version=version,
        type=type_,
        body=msgspec.Raw(body),
        time_ms=time_ms,
        command_id=command_id,
        hash=fairplay.entry_hash(chain, version, prev, type_, body, time_ms, command_id),
    )


def card(position: int, seat: int) -> CardDealt:
    order = fairplay.shuffle(SERVER_SEED, GAME, MIX, 1, DECK)
    card_id = f"c{order[position]}"
    salt = fairplay.card_salt(SERVER_SEED, GAME, position)
    commitment = fairplay.card_commitment(GAME, position, card_id, salt)
    return CardDealt(seat=seat, position=position, commitment=commitment, card=card_id, salt=salt)


def honest() -> list[Event]:
    """A whole game: seeds, hidden setup, two rolls, a shuffle, two cards, a reveal, the end,
    the seal and the seed reveal (versions 1..20)."""
    dealt = card(0, 0)
    return [
        GameCreated(ruleset="auditdice", game_id=GAME, seats=2, randomness=True, hidden_setup=True),
        SeedCommitted(commitment=fairplay.seed_commitment(SERVER_SEED)),
        *(
            ClientSeedCommitted(seat=s, commitment=fairplay.client_seed_commitment(GAME, s, c))
            for s, c in enumerate(CLIENT_SEEDS)
        ),
        *(ClientSeedRevealed(seat=s, seed=c) for s, c in enumerate(CLIENT_SEEDS)),
        *(
            SetupCommitted(
                seat=s,
                commitment=fairplay.setup_commitment(GAME, s, SETUP_NONCES[s], SETUPS[s].encode()),
            )
            for s in (0, 1)
        ),
        *(SetupRevealed(seat=s, nonce=SETUP_NONCES[s], setup=SETUPS[s]) for s in (0, 1)),
        RandomDrawn(
            nonce=0,
            kind="die",
            n=6,
            purpose="move",
            value=fairplay.die(SERVER_SEED, GAME, MIX, 0, 6),
        ),
        DeckShuffled(
            nonce=1, n=DECK, purpose="deck", order=fairplay.shuffle(SERVER_SEED, GAME, MIX, 1, DECK)
        ),
        dealt,
        card(1, 1),
        Step(seat=0),
        RandomDrawn(
            nonce=2,
            kind="die",
            n=10,
            purpose="fate",
            value=fairplay.die(SERVER_SEED, GAME, MIX, 2, 10),
        ),
        CardRevealed(seat=0, position=0, card=dealt.card, salt=dealt.salt),
        GameEnded(result="1-0", reason="points", winners=[0]),
        GameSealed(version=0, hash=""),  # filled in by `chained`
        SeedRevealed(server_seed=SERVER_SEED),
    ]


def with_event(version: int, event: Event, events: list[Event] | None = None) -> list[Event]:
    """The honest game with the event at `version` replaced (the chain is then rebuilt)."""
    out = list(honest() if events is None else events)
    out[version - 1] = event
    return out


def failed_at(report: AuditReport, version: int, type_: str, *words: str) -> None:
    assert not report.ok
    assert report.failure is not None
    assert (report.failure.version, report.failure.type) == (version, type_), report.failure
    for word in words:
        assert word in report.failure.message, report.failure.message


# -- an honest game -------------------------------------------------------------------------


def head_of(stored: list[StoredEvent], result: str = "1-0") -> StoreHead:
    """The head the store keeps for `stored` (its meta): last version and hash, the result."""
    return StoreHead(stored[-1].version, stored[-1].hash, result)


def test_honest_game_passes_every_check_with_counts() -> None:
    """Every check of a finished honest game passes; the report counts what it covered."""
    stored = chained(honest())
    report = audit(stored, head_of(stored))
    assert report.ok, report.failure
    assert report.failure is None
    assert (report.game_id, report.ruleset, report.events, report.status) == (
        GAME,
        "auditdice",
        20,
        "ended",
    )
    lines = [str(c) for c in report.checks]
    assert (
        "chain: 20 events, hashes and versions "
        "(hash chain v2, times, command ids and actions included)" in lines
    )
    assert report.chain == fairplay.CHAIN_V2
    assert "dice: 2 rolls recomputed" in lines
    assert "shuffles: 1 recomputed" in lines
    assert "nonces: 0..2, no gap or repeat" in lines
    assert "cards: 2 commitments (2 salts, 2 against the shuffled deck)" in lines
    assert "card reveals: 1 match" in lines
    assert "setups: 2" in lines
    assert "seal: records version 18" in lines
    assert any(line.startswith("replay: 20 events folded, 1-0 by points") for line in lines)
    assert any(line.startswith("store head: the log ends at the store's head, version 20 ")
               and line.endswith("result 1-0") for line in lines)  # fmt: skip
    assert report.notes == (NO_ACTIONS_NOTE,)  # built by hand: no commands to decide again


# -- the store's head: a tail cut off ------------------------------------------------------------


def test_without_a_head_the_report_says_the_tail_is_unchecked() -> None:
    """An export has no store head: the audit passes as before and says what it could not see."""
    report = audit(chained(honest()))
    assert report.ok, report.failure
    assert report.notes == (NO_HEAD_NOTE, NO_ACTIONS_NOTE)
    assert "store head" not in {c.name for c in report.checks}


@pytest.mark.parametrize(("cut", "missing"), [(1, "event 20 is missing"),
                                              (3, "events 18..20 are missing")])  # fmt: skip
def test_a_log_cut_short_of_the_store_head_fails_naming_the_missing_events(
    cut: int, missing: str
) -> None:
    """The last event, or the last three (end, seal, seed reveal), deleted: the rest is a
    valid chain, but the store's head is further on."""
    stored = chained(honest())
    head = head_of(stored)
    report = audit(stored[:-cut], head)
    failed_at(report, 21 - cut, MISSING, f"the store's head is at version 20 but the log ends "
              f"at {20 - cut}: {missing}")  # fmt: skip
    assert report.notes == ()
    assert "store head" not in {c.name for c in report.checks}


def test_a_race_game_cut_by_its_last_three_events_fails() -> None:
    """A race game sealed after its seed reveal: GameEnded, SeedRevealed, GameSealed deleted."""
    game_id, events = race_log(0)
    stored = chained(events, game_id)
    assert [s.type for s in stored[-3:]] == ["GameEnded", "SeedRevealed", "GameSealed"]
    n = len(stored)
    assert audit(stored[:-3]).ok  # the chain alone cannot tell
    failed_at(audit(stored[:-3], head_of(stored, "")), n - 2, MISSING,
              f"events {n - 2}..{n} are missing")  # fmt: skip


def test_a_head_hash_other_than_the_log_fails_at_the_head() -> None:
    """Same length, another hash: the log is not the one the store appended."""
    stored = chained(honest())
    head = StoreHead(20, "ab" * 32, "1-0")
    failed_at(audit(stored, head), 20, "SeedRevealed", "the store's head hash at version 20")


def test_a_log_running_past_the_store_head_fails_at_the_first_extra_event() -> None:
    """Events the store's head does not cover were not appended through it."""
    stored = chained(honest())
    failed_at(audit(stored, head_of(stored[:17], "")), 18, "GameEnded",
              "runs past the store's head at version 17: events 18..20 are")  # fmt: skip


def test_a_result_in_the_store_without_a_game_ended_fails() -> None:
    """The meta says the game ended, the log (cut and re-headed) never says so."""
    stored = chained(honest())[:17]
    failed_at(audit(stored, head_of(stored, "1-0")), 17, "CardRevealed",
              "the store records the result 1-0, but the log has no GameEnded")  # fmt: skip


def test_a_result_in_the_store_other_than_the_game_ended_fails() -> None:
    """The meta and the log's GameEnded disagree on who won."""
    stored = chained(honest())
    failed_at(audit(stored, head_of(stored, "0-1")), 18, "GameEnded", "says 1-0")


def test_a_game_in_play_at_its_head_passes() -> None:
    """In play, no result yet: the log at the store's head passes, with the in-play note."""
    stored = chained(honest()[:17])
    report = audit(stored, head_of(stored, ""))
    assert report.ok, report.failure
    assert report.notes == (IN_PLAY_NOTE, NO_ACTIONS_NOTE)
    assert "store head" in {c.name for c in report.checks}


def test_an_empty_log_with_a_head_names_every_missing_event() -> None:
    """Every entry deleted: the head still names what was there."""
    report = audit([], StoreHead(20, "ab" * 32, "1-0"))
    assert report.failure is not None
    assert report.failure.message.endswith("events 1..20 are missing")


def test_game_in_play_is_not_a_failure_and_says_draws_wait_for_the_seed() -> None:
    """Before the end the seed is secret: the audit passes and says draws are not checkable yet,
    while commitments that need no seed (cards, setups, client seeds) are still checked."""
    report = audit(chained(honest()[:17]))
    assert report.ok, report.failure
    assert report.status == "in play"
    assert IN_PLAY_NOTE in report.notes
    lines = [str(c) for c in report.checks]
    assert "dice: 2 rolls recorded, not yet checkable" in lines
    assert "cards: 2 commitments (2 against the shuffled deck)" in lines


def test_envelope_game_id_is_used_when_game_created_has_none() -> None:
    """Logs written before GameCreated recorded its game id chain under the envelope's id."""
    events = with_event(
        1, GameCreated(ruleset="auditdice", seats=2, randomness=True, hidden_setup=True)
    )
    assert audit(chained(events)).ok


def test_rejected_setup_that_lost_the_game_passes() -> None:
    """A reveal that does not match its commitment, rejected and followed by the loss, is the
    protocol working as intended."""
    events = [
        *honest()[:9],
        SetupRevealed(
            seat=1,
            nonce=SETUP_NONCES[1],
            setup="[9,9,9]",
            rejected="the revealed setup does not match its commitment",
        ),
        GameEnded(result="1-0", reason="setup", winners=[0]),
        GameSealed(version=0, hash=""),
        SeedRevealed(server_seed=SERVER_SEED),
    ]
    report = audit(chained(events))
    assert report.ok, report.failure
    assert "setups: 2 (1 rejected, game lost)" in [str(c) for c in report.checks]


# -- tampering ------------------------------------------------------------------------------


def test_one_changed_byte_in_any_body_fails_the_chain_at_that_version() -> None:
    """Flipping one byte of any stored body (hashes left as stored) names that version."""
    stored = chained(honest())
    for i, s in enumerate(stored):
        body = bytearray(bytes(s.body))
        body[len(body) // 2] ^= 0x01
        tampered = [*stored[:i], replace(s, body=msgspec.Raw(bytes(body))), *stored[i + 1 :]]
        failed_at(audit(tampered), s.version, s.type, "hash chain")


def test_a_changed_time_or_command_id_fails_the_chain_at_that_version() -> None:
    """Under hash chain v2 each entry's `ts` and `cmd` are chained: changing either (hashes
    left as stored) names that version."""
    stored = chained(honest())
    for i, s in enumerate(stored):
        for changed in (replace(s, time_ms=s.time_ms + 1), replace(s, command_id="forged")):
            report = audit([*stored[:i], changed, *stored[i + 1 :]])
            failed_at(report, s.version, s.type, "hash chain", "time (ts), its command id (cmd)")


def test_a_v1_log_passes_and_ignores_time_and_command_id() -> None:
    """A log chained under v1 (written before v2) passes and says so; v1 never covered `ts`
    and `cmd`, so changing them changes nothing, while a changed body still fails."""
    stored = chained(honest(), chain=fairplay.CHAIN_V1)
    report = audit(stored, head_of(stored))
    assert report.ok, report.failure
    assert report.chain == fairplay.CHAIN_V1
    assert "(hash chain v1, times, command ids and actions not included)" in str(report.checks[0])
    moved = [replace(s, time_ms=s.time_ms + 7, command_id=f"x{s.version}") for s in stored]
    assert audit(moved, head_of(moved)).ok
    s = stored[9]
    forged = replace(s, body=msgspec.Raw(bytes(s.body).replace(b"1", b"2", 1)))
    report = audit([*stored[:9], forged, *stored[10:]])
    failed_at(report, s.version, s.type, "hash chain", "the event or its hash was altered")


def test_a_first_event_under_neither_chain_version_names_both() -> None:
    stored = chained(honest())
    first_event = replace(stored[0], command_id="c0")
    report = audit([first_event, *stored[1:]])
    failed_at(report, 1, "GameCreated", "is not h_1 of the stored entry (v2 ", " nor v1 ")
    assert report.chain == 0


def test_a_log_that_switches_chain_version_fails_where_it_switches() -> None:
    """h_1 decides the version: an event rehashed under the other version breaks the chain
    there, even with every later hash recomputed from it."""
    v2 = chained(honest())
    tail = chained(honest(), chain=fairplay.CHAIN_V1)  # only its shape; rehash from v2[4]
    mixed = list(v2[:5])
    for s in tail[5:]:
        mixed.append(entry(GAME, s.version, s.type, bytes(s.body), mixed[-1].hash,
                           fairplay.CHAIN_V1))  # fmt: skip
    failed_at(audit(mixed), 6, "ClientSeedRevealed", "hash chain")


def test_a_missing_event_fails_the_chain_at_the_gap() -> None:
    """Dropping an event leaves a version gap: the audit names the version that is missing."""
    stored = chained(honest())
    failed_at(audit(stored[:5] + stored[6:]), 7, "SetupCommitted", "where 6 was expected")


def test_stored_type_must_be_the_body_tag() -> None:
    """A stored type that differs from the body's tag (chain rehashed over it) fails."""
    stored = chained(honest())
    s = stored[14]
    forged = entry(GAME, s.version, "Resigned", bytes(s.body), stored[13].hash)
    failed_at(audit([*stored[:14], forged]), 15, "Resigned", "body's tag is 'AuditStep'")


def test_a_different_revealed_seed_fails_at_the_reveal() -> None:
    """A revealed seed whose SHA-256 is not the commitment fails at SeedRevealed."""
    events = with_event(20, SeedRevealed(server_seed="1234" * 16))
    failed_at(audit(chained(events)), 20, "SeedRevealed", "not the commitment")


def test_an_ended_game_without_the_seed_reveal_fails_at_its_end() -> None:
    """Once the game has ended the seed must be revealed: without it, the end is named."""
    failed_at(audit(chained(honest()[:19])), 18, "GameEnded", "never revealed")


def test_a_changed_card_fails_the_card_check() -> None:
    """A dealt card changed (chain rehashed) no longer opens its commitment."""
    events = with_event(14, replace(card(1, 1), card="c0" if card(1, 1).card != "c0" else "c1"))
    failed_at(audit(chained(events)), 14, "CardDealt", "does not open to card")


def test_a_consistently_recommitted_card_fails_the_deck_check() -> None:
    """A dealer who deals another card with a valid commitment is caught by the shuffled deck:
    the card at a position must be the canonical card the shuffle put there."""
    honest_card = card(1, 1)
    other = "c0" if honest_card.card != "c0" else "c1"
    forged = replace(
        honest_card,
        card=other,
        commitment=fairplay.card_commitment(GAME, 1, other, honest_card.salt),
    )
    failed_at(audit(chained(with_event(14, forged))), 14, "CardDealt", "was dealt")


def test_a_wrong_salt_fails_once_the_seed_is_known() -> None:
    """A salt not derived from the server seed (commitment recomputed with it) fails."""
    honest_card = card(1, 1)
    salt = "00" * 32
    forged = replace(
        honest_card, salt=salt, commitment=fairplay.card_commitment(GAME, 1, honest_card.card, salt)
    )
    failed_at(audit(chained(with_event(14, forged))), 14, "CardDealt", "salt")


def test_a_card_reveal_that_does_not_match_its_deal_fails() -> None:
    """A revealed card that is not the committed one fails at CardRevealed."""
    dealt = card(0, 0)
    forged = CardRevealed(
        seat=0, position=0, card="c9" if dealt.card != "c9" else "c8", salt=dealt.salt
    )
    failed_at(audit(chained(with_event(17, forged))), 17, "CardRevealed", "does not match")


def test_a_changed_roll_fails_the_dice_check() -> None:
    """One roll value changed (chain rehashed) fails at that RandomDrawn, naming both values."""
    value = fairplay.die(SERVER_SEED, GAME, MIX, 2, 10)
    forged = RandomDrawn(nonce=2, kind="die", n=10, purpose="fate", value=(value + 1) % 10)
    failed_at(
        audit(chained(with_event(16, forged))),
        16,
        "RandomDrawn",
        f"recorded {(value + 1) % 10}, but the seeds give {value}",
    )


def test_a_changed_shuffle_fails_the_shuffle_check() -> None:
    """A deck order that is a permutation but not the seeds' shuffle fails at DeckShuffled."""
    order = fairplay.shuffle(SERVER_SEED, GAME, MIX, 1, DECK)
    order[0], order[1] = order[1], order[0]
    forged = DeckShuffled(nonce=1, n=DECK, purpose="deck", order=order)
    failed_at(audit(chained(with_event(12, forged))), 12, "DeckShuffled", "differs")


def test_a_gap_in_nonces_fails_even_with_a_correct_value() -> None:
    """A skipped nonce fails although the value is right for the nonce it claims."""
    forged = RandomDrawn(
        nonce=3, kind="die", n=10, purpose="fate", value=fairplay.die(SERVER_SEED, GAME, MIX, 3, 10)
    )
    failed_at(audit(chained(with_event(16, forged))), 16, "RandomDrawn", "nonce 3 where 2")


def test_a_repeated_nonce_fails() -> None:
    """Reusing a nonce (a re-roll until the outcome suits) fails."""
    forged = RandomDrawn(
        nonce=1, kind="die", n=10, purpose="fate", value=fairplay.die(SERVER_SEED, GAME, MIX, 1, 10)
    )
    failed_at(audit(chained(with_event(16, forged))), 16, "RandomDrawn", "repeats")


def test_a_setup_reveal_not_matching_without_rejection_fails() -> None:
    """A setup that does not match its commitment but was accepted fails at the reveal."""
    forged = SetupRevealed(seat=1, nonce=SETUP_NONCES[1], setup="[7,8,9]")
    failed_at(
        audit(chained(with_event(10, forged))), 10, "SetupRevealed", "does not match its commitment"
    )


def test_a_rejected_setup_without_the_game_ending_fails() -> None:
    """A rejection must lose the game: a rejected reveal with play going on fails."""
    forged = SetupRevealed(seat=1, nonce=SETUP_NONCES[1], setup="[7,8,9]", rejected="mismatch")
    events = [*honest()[:9], forged, Step(seat=0)]
    failed_at(audit(chained(events)), 10, "SetupRevealed", "did not end")


def test_a_matching_legal_setup_rejected_fails() -> None:
    """The server cannot forfeit a seat whose setup matches and obeys the placement rules."""
    forged = SetupRevealed(seat=1, nonce=SETUP_NONCES[1], setup=SETUPS[1], rejected="illegal")
    events = [*honest()[:9], forged, GameEnded(result="1-0", reason="setup", winners=[0])]
    failed_at(audit(chained(events)), 10, "SetupRevealed", "obeys the placement rules")


def test_a_wrong_client_seed_reveal_fails() -> None:
    """A client seed that does not match the seat's commitment fails at its reveal."""
    forged = ClientSeedRevealed(seat=1, seed="mallory0123456789")
    failed_at(audit(chained(with_event(6, forged))), 6, "ClientSeedRevealed", "does not match")


def test_player_input_before_the_seed_commitment_fails() -> None:
    """The server must be bound before any player speaks."""
    events = honest()
    events[1], events[2] = events[2], events[1]
    failed_at(audit(chained(events)), 2, "ClientSeedCommitted", "before the server's seed")


def test_a_seal_recording_the_wrong_head_fails() -> None:
    """GameSealed must record the (version, hash) of the event before it."""
    stored = chained(honest())
    body = msgspec.json.encode(GameSealed(version=17, hash=stored[16].hash))
    forged = entry(GAME, 19, "GameSealed", body, stored[17].hash)
    failed_at(audit([*stored[:18], forged]), 19, "GameSealed", "the event before it")


def test_events_after_the_seal_other_than_the_seed_reveal_fail() -> None:
    """Nothing may be appended to a sealed game but the seed reveal."""
    events = [*honest()[:19], Step(seat=1), SeedRevealed(server_seed=SERVER_SEED)]
    failed_at(audit(chained(events)), 20, "AuditStep", "after the game was sealed")


def test_an_event_that_does_not_decode_fails_replay() -> None:
    """A body no ruleset event decodes from (chain rehashed) fails at that event."""
    stored = chained(honest())
    forged = entry(GAME, 15, "Bogus", b'{"type":"Bogus"}', stored[13].hash)
    failed_at(audit([*stored[:14], forged]), 15, "Bogus", "does not decode")


def test_an_unknown_ruleset_fails_at_game_created() -> None:
    """Replay needs the game's ruleset: an unknown one fails at version 1."""
    events = with_event(1, GameCreated(ruleset="nope", game_id=GAME, seats=2))
    failed_at(audit(chained(events[:1])), 1, "GameCreated", "unknown ruleset")


# -- whole race games played through the table (tests/rulesets) --------------------------------

RACE_SEEDS = range(12)


def _rolls_and_deals(seed: int) -> bool:
    kinds = {type(e) for e in play_locally(seed, SERVER_SEED, f"race-{seed}")}
    return {RandomDrawn, CardDealt} <= kinds


# Games that both rolled and dealt (a few end early by resignation).
TAMPER_SEEDS = [s for s in range(30) if _rolls_and_deals(s)][:8]


def race_log(seed: int) -> tuple[str, list[Event]]:
    """A race game played locally, then sealed after its seed reveal as the rules service
    seals a game with seeds (the honest game above seals before the reveal: both pass)."""
    register()
    game_id = f"race-{seed}"
    return game_id, [*play_locally(seed, SERVER_SEED, game_id), GameSealed(version=0, hash="")]


def first(events: list[Event], kind: type[Event]) -> int:
    """The version of the first event of `kind`."""
    return next(i for i, e in enumerate(events, 1) if isinstance(e, kind))


@pytest.mark.parametrize("seed", RACE_SEEDS)
def test_race_games_pass(seed: int) -> None:
    """Whole race games (dice, a shuffle, dealt and played cards, hidden setups) pass, also
    against the head the store keeps for them."""
    game_id, events = race_log(seed)
    stored = chained(events, game_id)
    ended = events[first(events, GameEnded) - 1]
    assert isinstance(ended, GameEnded)
    report = audit(stored, head_of(stored, ended.result))
    assert report.ok, report.failure
    assert report.status == "ended"
    names = {c.name for c in report.checks}
    assert {"chain", "seed", "client seeds", "setups", "seal", "store head", "replay"} <= names


@pytest.mark.parametrize("seed", RACE_SEEDS)
def test_race_in_play_passes_with_the_in_play_note(seed: int) -> None:
    """Any prefix of a race game before its end is 'in play', not a failure."""
    game_id, events = race_log(seed)
    end = first(events, GameEnded)
    report = audit(chained(events[: end - 1], game_id))
    assert report.ok, report.failure
    assert IN_PLAY_NOTE in report.notes


@pytest.mark.parametrize("seed", TAMPER_SEEDS)
def test_race_changed_roll_fails_at_it(seed: int) -> None:
    """One roll of a race game changed (chain rehashed) fails at that roll only."""
    game_id, events = race_log(seed)
    v = first(events, RandomDrawn)
    roll = events[v - 1]
    assert isinstance(roll, RandomDrawn)
    events[v - 1] = replace(roll, value=(roll.value + 1) % roll.n)
    failed_at(audit(chained(events, game_id)), v, "RandomDrawn", "but the seeds give")


@pytest.mark.parametrize("seed", TAMPER_SEEDS)
def test_race_redealt_card_fails_at_it(seed: int) -> None:
    """A race card swapped for another with a valid commitment fails at that deal."""
    game_id, events = race_log(seed)
    v = first(events, CardDealt)
    dealt = events[v - 1]
    assert isinstance(dealt, CardDealt)
    other = "c1" if dealt.card != "c1" else "c2"
    commitment = fairplay.card_commitment(game_id, dealt.position, other, dealt.salt)
    events[v - 1] = replace(dealt, card=other, commitment=commitment)
    failed_at(audit(chained(events, game_id)), v, "CardDealt", "was dealt")


def test_race_illegal_and_mismatched_setups_lose_and_pass() -> None:
    """The table's own rejections (a reveal not matching its commitment; an illegal boost)
    lose the game, and the audit accepts them as such."""
    register()
    for game_id, revealed in (("race-mismatch", {"boost": 2}), ("race-illegal", {"boost": 9})):
        game = LocalGame.create(SERVER_SEED, game_id)
        game.seed(CLIENT_SEEDS)
        committed = revealed if revealed["boost"] > 3 else {"boost": 1}
        game.commit_setup(0, SETUP_NONCES[0], setup_bytes({"boost": 0}))
        game.commit_setup(1, SETUP_NONCES[1], setup_bytes(committed))
        game.reveal_setup(0, SETUP_NONCES[0], setup_bytes({"boost": 0}))
        events = game.reveal_setup(1, SETUP_NONCES[1], setup_bytes(revealed))
        assert isinstance(events[0], SetupRevealed)
        assert events[0].rejected
        game.reveal_server_seed()
        report = audit(chained(game.log, game_id))
        assert report.ok, report.failure
        assert "setups: 2 (1 rejected, game lost)" in [str(c) for c in report.checks]


def test_an_empty_log_fails() -> None:
    """There is nothing to audit in an empty log."""
    report = audit([])
    assert not report.ok
    assert report.failure is not None
    assert report.failure.message == "the log is empty"


# -- an export's readable copies (issue 20, item 13) ---------------------------------------------


def copies(stored: list[StoredEvent]) -> list[tuple[int, object] | None]:
    """Each event's readable copy (`event`) as `tabula export` writes it, on line n for event n."""
    return [(s.version, msgspec.json.decode(s.body)) for s in stored]


def test_readable_copies_that_are_their_bodies_pass_and_are_counted() -> None:
    """A copy is compared as JSON, so the order of its members does not matter; a line without
    one (an older export) has nothing to compare."""
    stored = chained(honest())
    given = copies(stored)
    assert given[3] is not None
    line, event = given[3]
    assert isinstance(event, dict)
    given[3] = (line, dict(reversed(event.items())))
    given[5] = None
    report = audit(stored, readable=given)
    assert report.ok, report.failure
    assert "export: 19 readable copies (event) match body_b64" in [str(c) for c in report.checks]


def _roll(event: object) -> object:
    assert isinstance(event, dict)
    return {**event, "value": (event["value"] + 1) % 6}


def _as_float(event: object) -> object:
    assert isinstance(event, dict)
    return {**event, "value": float(event["value"])}


def _seat_as_bool(event: object) -> object:
    assert isinstance(event, dict)
    return {**event, "seat": bool(event["seat"])}


def _added(event: object) -> object:
    assert isinstance(event, dict)
    return {**event, "note": "agreed"}


EDITS = [(11, "RandomDrawn", _roll),  # the roll a person reads is not the one recorded
         (11, "RandomDrawn", _as_float),  # 3.0 is not the integer 3, though Python's == says so
         (3, "ClientSeedCommitted", _seat_as_bool),  # nor is false the seat 0
         (18, "GameEnded", _added),
         (5, "ClientSeedRevealed", lambda _: None)]  # fmt: skip


@pytest.mark.parametrize(("version", "type_", "edit"), EDITS)
def test_a_readable_copy_that_is_not_its_body_fails_naming_its_line(
    version: int, type_: str, edit: Callable[[object], object]
) -> None:
    """The chain covers body_b64, so the audit checks the bytes; a person reads `event`. A copy
    that differs means the file was edited to show a reader what was not audited: the audit
    fails there, naming the line, and counts the copies that matched before it."""
    stored = chained(honest())
    given = copies(stored)
    line, event = given[version - 1] or (0, None)
    given[version - 1] = (line + 100, edit(event))  # a line number of the file, not a version
    report = audit(stored, readable=given)
    failed_at(report, version, type_, f"line {line + 100}: its readable copy (event) is not its "
              "body_b64 decoded: the export was edited, and what it shows a reader is not what "
              "was audited")  # fmt: skip
    exports = [c for c in report.checks if c.name == "export"]
    assert [c.count for c in exports] == ([version - 1] if version > 1 else [])


def test_an_edited_body_fails_the_chain_before_its_readable_copy() -> None:
    """body_b64 changed and its copy kept: the bytes the chain covers are what was altered."""
    stored = chained(honest())
    given = copies(stored)
    s = stored[10]
    body = bytes(s.body).replace(b'"purpose":"move"', b'"purpose":"mood"')
    stored[10] = replace(s, body=msgspec.Raw(body))
    failed_at(audit(stored, readable=given), 11, "RandomDrawn", "hash chain")
