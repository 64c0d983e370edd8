"""Cyvasse in plain words (issue 23): its sides and the reasons its games end (CY-7)."""

from typing import Final

from domain.core.words import Phrase, RulesetWords, by, drawn

REASONS: Final[dict[str, Phrase]] = {
    "checkmate": by("checkmate"),  # CY-7.1 (version A)
    "stalemate": by("stalemate"),  # CY-7.2 (version A): a draw
    # CY-7.3 (versions B and C): the side whose King is captured loses at once.
    "king_captured": Phrase("by capturing the opponent's King", "your King was captured"),
    "repetition": by("repetition"),  # CY-7.4
    # CY-7.5: `no_progress_limit` moves by each side without a capture, Dragon, ruin, burning
    # or promotion.
    "no_progress": drawn("too many moves passed without progress"),
    "no_moves": drawn("both sides had to pass"),  # CY-7.6 (B/C): two forced passes in a row
    "insufficient_material": drawn("only the Kings are left"),  # CY-7.7 (version A)
    "agreement": by("agreement"),  # CY-7.8
    "resignation": by("resignation"),  # CY-7.8
    # `forfeit` (rules.py) ends a game whose revealed setup broke the placement rules (CY-3,
    # fair-play 3) as "illegal_setup", or a setup or seed owed too long as "timeout": both are
    # the platform's words (domain/core/words.py PLATFORM_REASONS).
}

# CY-3.7, CY-R39: the platform assigns White (seat 0, moving first) and Black.
WORDS: Final = RulesetWords(("White", "Black"), REASONS)
