"""The checks of hidden information: every `CardDealt` (its salt and commitment, and the card
the recorded shuffles put at its position when the ruleset deals from a deck) and every
`CardRevealed` against its deal; every `SetupRevealed` against its `SetupCommitted`
(docs/fair-play.md, "Hidden simultaneous setup"), where a reveal that does not match must be
rejected and the game lost by it.
"""

from __future__ import annotations

import msgspec

from contracts.envelope import StoredEvent
from contracts.events import (
    CardDealt,
    CardRevealed,
    GameEnded,
    SetupCommitted,
    SetupRevealed,
    SetupsDiscarded,
)
from domain import fairplay
from domain.audit.report import Discrepancy
from domain.audit.state import AuditState
from domain.core.ruleset import Rejection, cards_of, hidden_setup_of


class HiddenChecks(AuditState):
    """Dealt cards and hidden setups, each checked at its event."""

    def _on_card_dealt(self, s: StoredEvent, event: CardDealt) -> None:
        self._seat(event.seat)
        p = event.position
        if not (event.card and event.salt):
            raise Discrepancy(f"the stored deal of position {p} lacks its card or salt")
        if self.server_seed:
            salt = fairplay.card_salt(self.server_seed, self.game_id, p)
            if salt != event.salt:
                raise Discrepancy(f"the salt of position {p} is not the seed's salt_{p}")
            self.salts_checked += 1
        commitment = fairplay.card_commitment(self.game_id, p, event.card, event.salt)
        if commitment != event.commitment:
            raise Discrepancy(
                f"the commitment of position {p} does not open to card {event.card!r} with its salt"
            )
        assert self.ruleset is not None  # after GameCreated
        assert self.table is not None
        cards = cards_of(self.ruleset)
        if cards is not None:
            expected = cards.card_at(self.table.game, p)
            if expected is None:
                raise Discrepancy(f"no card can be dealt at position {p} here")
            if event.card != expected:
                raise Discrepancy(
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
            raise Discrepancy(f"reveals position {p}, which was never dealt")
        if not fairplay.verify_card(self.game_id, p, event.card, event.salt, dealt.commitment):
            raise Discrepancy(
                f"card {event.card!r} does not match the commitment of position {p} dealt earlier"
            )
        self.card_reveals += 1

    def _on_setup_committed(self, s: StoredEvent, event: SetupCommitted) -> None:
        assert self.created is not None
        if not self.created.hidden_setup:
            raise Discrepancy("a setup commitment in a game created without hidden setup")
        seat = self._seat(event.seat)
        if self.setup_commitments[seat]:
            raise Discrepancy(f"seat {seat} committed its setup twice")
        self.setup_commitments[seat] = event.commitment

    def _on_setups_discarded(self, s: StoredEvent, event: SetupsDiscarded) -> None:
        """Every seat had revealed; all commit and reveal again (the table replays it)."""
        if not all(self.setups_revealed):
            raise Discrepancy("setups discarded before every seat had revealed")
        seats = len(self.setup_commitments)
        self.setup_commitments = [""] * seats
        self.setups_revealed = [False] * seats

    def _on_setup_revealed(self, s: StoredEvent, event: SetupRevealed) -> None:
        assert self.created is not None
        assert self.table is not None
        if not self.created.hidden_setup:
            raise Discrepancy("a setup reveal in a game created without hidden setup")
        seat = self._seat(event.seat)
        if not all(self.setup_commitments):
            raise Discrepancy(f"seat {seat} revealed its setup before every seat committed")
        if self.setups_revealed[seat]:
            raise Discrepancy(f"seat {seat} revealed its setup twice")
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
                raise Discrepancy(
                    f"seat {seat}'s setup was rejected ({event.rejected!r}) although it matches "
                    "its commitment and obeys the placement rules"
                )
            if problem is not None and not event.rejected:
                raise Discrepancy(
                    f"seat {seat}'s setup was accepted although the placement rules reject it: "
                    f"{problem.reason}"
                )
        if not matches and not event.rejected:
            raise Discrepancy(
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
                raise Discrepancy(
                    f"seat {seat}'s setup was rejected, yet seat {seat} wins at version "
                    f"{later.version}"
                )
            return
        raise Discrepancy(f"seat {seat}'s setup was rejected but the game did not end by it")
