"""Spacewar's Health/Ammo variant in plain words (issue 23): its sides and the reasons its games
end (HA-8)."""

from typing import Final

from domain.core.words import Phrase, RulesetWords, by, drawn

REASONS: Final[dict[str, Phrase]] = {
    # HA-8.1, HA-R18: all of a player's Bases are captured, whoever made the last capture.
    "bases": Phrase("by capturing all the opponent's Bases", "all your Bases were captured"),
    # HA-8.2, HA-R20: both players passed in consecutive turns (neither could act).
    "double pass": drawn("neither side could act"),
    "turn limit": drawn("the turn limit was reached"),  # HA-8.4
    "agreement": by("agreement"),  # HA-8.3
    "resignation": by("resignation"),  # HA-8.3
}

# HA-0.1: White is seat 0 and moves first, Black seat 1.
WORDS: Final = RulesetWords(("White", "Black"), REASONS)
