"""The randomness checks (docs/fair-play.md, "What is committed, and when" and "Turning bytes
into outcomes"): the server's seed commitment and its reveal after the end, each client seed
against its commitment and the mix from them in seat order, and every `RandomDrawn` and
`DeckShuffled` recomputed from (server seed, game id, mix, nonce, n) with the nonces 0, 1, 2 ...
"""

from __future__ import annotations

import re
from collections.abc import Callable

import msgspec

from contracts.envelope import StoredEvent
from contracts.events import (
    ClientSeedCommitted,
    ClientSeedRevealed,
    DeckShuffled,
    RandomDrawn,
    SeedCommitted,
    SeedRevealed,
)
from domain import fairplay
from domain.audit.report import Discrepancy, short
from domain.audit.state import AuditState

_HEX64 = re.compile(r"[0-9a-f]{64}")


class RandomnessChecks(AuditState):
    """The seeds, the draws and the shuffles, each checked at its event."""

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

    def _on_seed_committed(self, s: StoredEvent, event: SeedCommitted) -> None:
        assert self.created is not None
        if not self.created.randomness:
            raise Discrepancy("a seed commitment in a game created without randomness")
        if self.commitment:
            raise Discrepancy("a second SeedCommitted (protocol v1 has one seed per game)")
        if not _HEX64.fullmatch(event.commitment):
            raise Discrepancy("the commitment is not a SHA-256 (64 hex)")
        self.commitment = event.commitment

    def _on_client_seed_committed(self, s: StoredEvent, event: ClientSeedCommitted) -> None:
        if not self.commitment:
            raise Discrepancy("a client seed commitment in a game without a server commitment")
        seat = self._seat(event.seat)
        if self.client_commitments[seat]:
            raise Discrepancy(f"seat {seat} committed a client seed twice")
        self.client_commitments[seat] = event.commitment

    def _on_client_seed_revealed(self, s: StoredEvent, event: ClientSeedRevealed) -> None:
        seat = self._seat(event.seat)
        if not all(self.client_commitments):
            raise Discrepancy(f"seat {seat} revealed its client seed before every seat committed")
        if self.client_seeds[seat]:
            raise Discrepancy(f"seat {seat} revealed a client seed twice")
        if not fairplay.is_valid_client_seed(event.seed):
            raise Discrepancy(f"seat {seat}'s client seed {event.seed!r} is not valid")
        if not fairplay.verify_client_seed(
            self.game_id, seat, event.seed, self.client_commitments[seat]
        ):
            raise Discrepancy(
                f"seat {seat}'s revealed client seed does not match its commitment "
                f"{short(self.client_commitments[seat])}"
            )
        self.client_seeds[seat] = event.seed
        if all(self.client_seeds):
            self.mix = fairplay.mix(self.client_seeds)

    def _draw_preconditions(self, nonce: int) -> None:
        assert self.created is not None
        if not self.created.randomness:
            raise Discrepancy("a random draw in a game created without randomness")
        if not self.commitment:
            raise Discrepancy("a random draw before the server's seed commitment")
        if not self.mix:
            raise Discrepancy("a random draw before every seat revealed its client seed")
        if self.seed_revealed_at:
            raise Discrepancy(
                f"a random draw after the seed was revealed at version {self.seed_revealed_at} "
                "(a revealed seed is never used again)"
            )
        if nonce != self.next_nonce:
            what = "repeats an earlier nonce" if nonce < self.next_nonce else "skips nonces"
            raise Discrepancy(f"nonce {nonce} where {self.next_nonce} is next: it {what}")
        self.next_nonce += 1

    def _on_random_drawn(self, s: StoredEvent, event: RandomDrawn) -> None:
        self._draw_preconditions(event.nonce)
        if event.kind == "die":
            if not 2 <= event.n <= 256:
                raise Discrepancy(f"die({event.n}): a die has 2 to 256 faces")
            draw: Callable[[str, str, str, int, int], int] = fairplay.die
        elif event.kind == "uniform":
            if not 1 <= event.n <= 1 << 32:
                raise Discrepancy(f"uniform({event.n}): the range is 1 to 2**32")
            draw = fairplay.uniform
        else:
            raise Discrepancy(f"unknown draw kind {event.kind!r} (die or uniform)")
        if not 0 <= event.value < event.n:
            raise Discrepancy(f"{event.kind}({event.n}) value {event.value} is out of range")
        if not self.server_seed:
            self.dice_pending += 1
            return
        value = draw(self.server_seed, self.game_id, self.mix, event.nonce, event.n)
        if value != event.value:
            raise Discrepancy(
                f"{event.kind}({event.n}) at nonce {event.nonce} ({event.purpose}) recorded "
                f"{event.value}, but the seeds give {value}"
            )
        self.dice_checked += 1

    def _on_deck_shuffled(self, s: StoredEvent, event: DeckShuffled) -> None:
        self._draw_preconditions(event.nonce)
        if sorted(event.order) != list(range(event.n)):
            raise Discrepancy(f"the order is not a permutation of 0..{event.n - 1}")
        if self.server_seed:
            order = fairplay.shuffle(self.server_seed, self.game_id, self.mix, event.nonce, event.n)
            if order != event.order:
                p = next(
                    i for i, (a, b) in enumerate(zip(order, event.order, strict=True)) if a != b
                )
                raise Discrepancy(
                    f"shuffle of {event.n} at nonce {event.nonce} ({event.purpose}) differs "
                    f"from the seeds' from position {p} on ({event.order[p]} instead of {order[p]})"
                )
            self.shuffles_checked += 1
        else:
            self.shuffles_pending += 1

    def _on_seed_revealed(self, s: StoredEvent, event: SeedRevealed) -> None:
        if not self.commitment:
            raise Discrepancy("a seed reveal without a seed commitment")
        if self.seed_revealed_at:
            raise Discrepancy(f"the seed was already revealed at version {self.seed_revealed_at}")
        try:
            matches = fairplay.verify_seed(event.server_seed, self.commitment)
        except ValueError:
            matches = False
        if not matches:
            raise Discrepancy(
                f"SHA256 of the revealed seed is not the commitment {short(self.commitment)}"
            )
        if not self._ended():
            raise Discrepancy("the seed was revealed while the game is in play")
        self.server_seed = event.server_seed
        self.seed_revealed_at = s.version
