"""Audit a stored game log against the fair-play protocol (docs/fair-play.md).

`audit(stored)` takes a game's stored events (the exact bytes, as `StoredEvent`s) and checks, in
log order, stopping at the first discrepancy:

- the hash chain over the exact stored bytes (section 4), versions 1, 2, 3 ... without gaps,
  one game id throughout, and each stored `type` equal to the body's tag; under chain v2 (the
  version whose formula gives h_1) each entry's time and command id too;
- given an export's readable copies (`event`), each at its event, that it is its body decoded;
- `GameCreated` first; for a game with randomness a `SeedCommitted` before any player input,
  and once the game has ended a `SeedRevealed` matching it (section 1);
- every client seed reveal against its commitment; the mix from the seeds in seat order;
- every `RandomDrawn` and `DeckShuffled` recomputed from (server seed, game id, mix, nonce, n),
  their nonces together 0, 1, 2 ... (section 2);
- every `CardDealt`: salt and commitment, and, when the ruleset declares cards
  (`Capability.CARDS`), the card the recorded shuffles put there; every `CardRevealed` against
  its deal;
- every `SetupRevealed` against its `SetupCommitted` (section 3): a reveal that does not match
  must be rejected and the game lost by it;
- `GameSealed` records the (version, hash) of the event before it; nothing but the seed reveal
  follows a seal;
- replay: every event decodes as a platform or ruleset event and folds through the table;
- given the store's own head (`StoreHead`, from the game's meta), that the log ends exactly
  there with the same hash, and holds a GameEnded with the result the store records. Every
  prefix of a chain verifies, so only the head shows a tail cut off; without it (an export)
  the report says so.

Pure: no I/O, no clock. The services read the log and the head; this package only judges them.

Its parts: the report and its types (report.py); the hash chain, its entries and the store's
head (chain.py); what the walk has seen so far (state.py); the seeds, client seeds, draws and
shuffles (randomness.py); dealt cards and hidden setups (hidden.py); decoding, folding and
deciding every command again (replay.py, with domain/redecide.py); an export's readable
copies (readable.py); the checks passed and the notes at the end (verdict.py); and the walk
that drives them all, `audit` (walk.py).
"""

from domain.audit.chain import chain_entries, check_head
from domain.audit.readable import Readable
from domain.audit.report import (
    IN_PLAY_NOTE,
    MISSING,
    NO_ACTIONS_NOTE,
    NO_HEAD_NOTE,
    AuditReport,
    Check,
    Failure,
    StoreHead,
)
from domain.audit.walk import audit

__all__ = [
    "IN_PLAY_NOTE",
    "MISSING",
    "NO_ACTIONS_NOTE",
    "NO_HEAD_NOTE",
    "AuditReport",
    "Check",
    "Failure",
    "Readable",
    "StoreHead",
    "audit",
    "chain_entries",
    "check_head",
]
