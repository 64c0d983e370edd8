"""The end of the walk: what the log's end still requires (a game that has ended reveals its
seed) and the notes for what cannot be checked yet, then the checks passed, each with what it
covered, for the report.
"""

from __future__ import annotations

from domain import fairplay
from domain.audit.chain import head_detail
from domain.audit.report import IN_PLAY_NOTE, Check, Failure, short
from domain.audit.state import AuditState
from domain.core.table import outcome


class Verdict(AuditState):
    """The notes, a last failure, and the checks passed."""

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
        if self.readable_checked:
            n = self.readable_checked
            checks.append(Check("export", n, f"{n} readable copies (event) match body_b64"))
        if created is None:
            return tuple(checks)
        checks.append(Check("types", self.folded, f"{self.folded} events decode, tags match"))
        if created.randomness and self.commitment:
            state = "revealed, matches" if self.seed_revealed_at else "committed, not yet revealed"
            checks.append(Check("seed", 1, f"{state} {short(self.commitment)}"))
        revealed = sum(1 for c in self.client_seeds if c)
        if revealed:
            mix = f", mix {short(self.mix)}" if self.mix else ""
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
            checks.append(Check("store head", 1, head_detail(self.head)))
        if self.table is not None:
            result = outcome(self.table)
            end = f"{result.result} by {result.reason}" if result else "in play"
            checks.append(Check("replay", self.folded, f"{self.folded} events folded, {end}"))
        return tuple(checks)
