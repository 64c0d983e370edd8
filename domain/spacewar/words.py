"""Spacewar in plain words (issue 23): its sides and the reasons its games end (SW-8)."""

from typing import Final

from domain.core.words import Phrase, RulesetWords, by, drawn

REASONS: Final[dict[str, Phrase]] = {
    # SW-8.1: a player none of whose Motherships is on the board loses; SW-8.2: both at the
    # same moment, a draw.
    "motherships": Phrase(
        "by destroying the opponent's Motherships",
        "your Motherships were destroyed",
        "both sides lost their last Mothership at the same moment",
    ),
    "turn limit": drawn("the turn limit was reached"),  # SW-8.4
    # SW-R58: the automatic steps would go round for ever: nobody can ever act again.
    "dead position": drawn("nobody could ever act again"),
    "agreement": by("agreement"),  # SW-8.3
    "resignation": by("resignation"),  # SW-8.3
}

# SW-0.1: White is seat 0 (its phases come first), Black seat 1.
WORDS: Final = RulesetWords(("White", "Black"), REASONS)
