"""What the walk over one log has seen so far (`AuditState`): the game, the table as folded,
the seeds, draws, cards, setups, the end and the counts the report gives. The checks
(randomness.py, hidden.py, replay.py, verdict.py) each add their methods to it; walk.py
drives them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from contracts.envelope import StoredEvent
from contracts.events import CardDealt, Event, GameCreated
from domain.audit.readable import Readable
from domain.audit.report import Discrepancy, StoreHead
from domain.core.ruleset import Ruleset
from domain.core.table import Table, outcome


class AuditState:
    """The state of the walk over one log, and what every kind of check asks of it."""

    def __init__(self, stored: Sequence[StoredEvent], head: StoreHead | None,
                 readable: Sequence[Readable | None] = ()) -> None:  # fmt: skip
        self.stored = stored
        self.head = head
        self.readable = readable  # an export's readable copies, by position in `stored`
        self.readable_checked = 0
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

    def _ended(self) -> bool:
        return self.ended_at is not None or (
            self.table is not None and outcome(self.table) is not None
        )

    def _seat(self, seat: int) -> int:
        assert self.created is not None
        if not 0 <= seat < self.created.seats:
            raise Discrepancy(f"seat {seat} does not exist (seats: {self.created.seats})")
        return seat
