"""What an audit reports: the first discrepancy (`Failure`), the checks passed (`Check`), the
report itself (`AuditReport`) and the notes it may carry; the store's head it may be given
(`StoreHead`); and `Discrepancy`, which a check raises for the walk to turn into the `Failure`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from contracts.envelope import StoredEvent

IN_PLAY_NOTE = "in play, seed not yet revealed: draws cannot be checked yet"
NO_HEAD_NOTE = "no store head to compare with: events cut from the end would go unnoticed"
MISSING = "missing"  # the type named by a Failure at an event that is not in the log
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


class Discrepancy(Exception):
    """What a check found wrong; the walk reports it as the `Failure` at `at` (or at the
    event being checked)."""

    def __init__(self, message: str, at: StoredEvent | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.at = at  # the event to name, when not the one being checked


def short(text: str, limit: int = 16) -> str:
    return text if len(text) <= limit else text[:limit] + "…"
