"""Yavoch in plain words (issue 23): its sides and the reasons its games end (Y-8)."""

from typing import Final

from domain.core.words import Phrase, RulesetWords, by, drawn

REASONS: Final[dict[str, Phrase]] = {
    # Y-8.1: a Command ship destroyed (battle, Trych blast, HEP CAT, a weapon, an event).
    "command_ship_destroyed": Phrase(
        "by destroying the opponent's Command ship", "your Command ship was destroyed"
    ),
    # Y-8.2, Y-R21: both Command ships destroyed at the same moment.
    "command_ships_destroyed": drawn("both Command ships were destroyed at once"),
    # Y-8.2: the surviving Command ship carries no energy at that moment.
    "surviving_command_ship_without_energy": drawn(
        "a Command ship was destroyed, and the surviving one had no energy left"
    ),
    # Y-8.3: the mover's Command ship carries 0 units at the end of its turn.
    "dead_command_ship": Phrase(
        "because the opponent's Command ship ran out of energy",
        "your Command ship ran out of energy",
    ),
    # Y-8.4, Y-8.6: a player whose only ship left is its Command ship.
    "lost_fleet": Phrase(
        "because the opponent had only its Command ship left",
        "you had only your Command ship left",
    ),
    # Y-8.7: one check finds both players losing at the same moment.
    "both_lost": drawn("both sides lost at the same moment"),
    # Y-8.5: the mover has no valid move at the start of its turn.
    "immobilized": Phrase("because the opponent had no valid move", "you had no valid move left"),
    "turn_limit": drawn("the turn limit was reached"),  # Y-8.9
    "agreement": by("agreement"),  # Y-8.8
    "resignation": by("resignation"),  # Y-8.8
    # `forfeit` (rules.py): a client seed not revealed in time (fair-play 1.3) is "timeout",
    # the platform's words (domain/core/words.py PLATFORM_REASONS).
}

# Y-0.2: player one (P1) is seat 0, player two (P2) seat 1. Their home levels are P1's choice
# in play (Y-3.1), so the names cannot carry them: `GameCreated` does not know them yet.
WORDS: Final = RulesetWords(("Player one", "Player two"), REASONS)
