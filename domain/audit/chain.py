"""The hash chain as the audit sees it (docs/fair-play.md, "The game log is a hash chain" and
"Hash chain v2"): a log's entries for `fairplay.verify_chain`, the discrepancy at the entry
where it breaks, and the log against the store's own head (`check_head`), which alone shows a
tail cut off.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NoReturn

import msgspec

from contracts.envelope import StoredEvent
from contracts.events import GameEnded
from domain import fairplay
from domain.audit.report import MISSING, Discrepancy, Failure, StoreHead, short


def chain_entries(stored: Iterable[StoredEvent]) -> list[fairplay.ChainEntry]:
    """Stored events as the hash chain sees them (`fairplay.verify_chain`'s entries): version,
    type, the exact stored bytes, time (`ts`), command id (`cmd`), `h_n` and the action."""
    return [fairplay.ChainEntry(s.version, s.type, bytes(s.body), s.time_ms, s.command_id,
                                s.hash, s.action) for s in stored]  # fmt: skip


def chain_failure(stored: Sequence[StoredEvent], i: int, game_id: str, log_chain: int) -> NoReturn:
    """Entry `i` (0-based) is where `fairplay.verify_chain` found the chain broken: raise the
    discrepancy, naming a version out of place or the hash under each formula that could apply
    (`log_chain`: the log's version as h_1 decided it; 0 when neither formula gave h_1)."""
    s = stored[i]
    expected = i + 1
    if s.version != expected:
        raise Discrepancy(
            f"hash chain: version {s.version} stored where {expected} was expected "
            "(a gap, a repeat or a reordering)"
        )
    prev = stored[i - 1].hash if i else fairplay.genesis_hash(game_id)
    # h_1 decides the log's chain version; a first entry that matches neither names both.
    chains = (log_chain,) if log_chain else fairplay.CHAIN_VERSIONS
    computed: list[str] = []
    for chain in chains:
        try:
            digest = fairplay.entry_hash(chain, s.version, prev, s.type, bytes(s.body),
                                         s.time_ms, s.command_id, s.action)  # fmt: skip
        except ValueError as exc:  # e.g. a type or command id that is not ASCII
            computed.append(f"v{chain}: {exc}")
            continue
        computed.append(f"v{chain} {short(digest)}")
    what = ("the event, its time (ts), its command id (cmd) or its hash"
            if log_chain != fairplay.CHAIN_V1 else "the event or its hash")  # fmt: skip
    raise Discrepancy(
        f"hash chain: the stored hash {short(s.hash)} is not h_{s.version} of the stored "
        f"entry ({' nor '.join(computed)}): {what} was altered"
    )


def _missing(first: int, last: int) -> str:
    return f"event {first} is missing" if first == last else f"events {first}..{last} are missing"


def head_detail(head: StoreHead) -> str:
    result = f", result {head.result}" if head.result else ""
    return f"the log ends at the store's head, version {head.version} {short(head.hash)}{result}"


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
            f"the store's head hash at version {v} is {short(head.hash)}, but the log's "
            f"h_{v} is {short(s.hash)}",
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
