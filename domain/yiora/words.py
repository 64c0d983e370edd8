"""Yiora in plain words (issue 23): its sides, by variation, and the reasons its games and
matches end (YI-7, YI-8)."""

import functools
from dataclasses import dataclass
from typing import Final

from contracts.events import GameCreated
from domain.core.ruleset import VariantError
from domain.core.words import Phrase, RulesetWords, by, drawn, every_side_opposes
from domain.yiora.variant import PRIMARY, SECONDARY_BASIC, parse_variant

REASONS: Final[dict[str, Phrase]] = {
    # YI-7.1. A Secondary Complex match of one checkmate each is drawn 1-1 (YI-8.4.3), its
    # reason the games' shared one (seats.match_reason).
    "checkmate": Phrase("by checkmate", drawn="with a checkmate in each game"),
    "stalemate": by("stalemate"),  # YI-7.2, YI-6.4: a draw, or a loss with stalemate_result
    "insufficient_material": drawn("only the two Overlords are left"),  # YI-7.3
    "repetition": by("repetition"),  # YI-7.4
    "no_capture": drawn("too many moves passed without a capture"),  # YI-7.5
    "agreement": by("agreement"),  # YI-7.6
    "resignation": by("resignation"),  # YI-7.7 (YI-8.4.3: it resigns every unfinished game)
}

# How each game's reason reads inside a match whose two games ended differently (YI-8.4.3:
# seats.match_reason writes "bsq checkmate, wsq repetition").
NOUNS: Final[dict[str, str]] = {
    "checkmate": "checkmate",
    "stalemate": "stalemate",
    "insufficient_material": "bare Overlords",
    "repetition": "a draw by repetition",
    "no_capture": "the no-capture limit",
    "agreement": "a draw by agreement",
    "resignation": "resignation",
}
GAMES: Final = {"bsq": "the black-square game", "wsq": "the white-square game"}  # YI-8.1

# Seat names by variation (seats.py): YI-0.1 White and Black; YI-8.3 four players, one side
# each (Gold and Silver in game wsq, YI-8.1); YI-8.4, YI-R23, YI-R25: player or team 1 holds
# White and Gold, player or team 2 Black and Silver (teams: seats 0 and 2, 1 and 3).
PRIMARY_SIDES: Final = ("White", "Black")
BASIC_SIDES: Final = ("White", "Black", "Gold", "Silver")
COMPLEX_SIDES: Final = ("Player 1 (White and Gold)", "Player 2 (Black and Silver)")
TEAM_SIDES: Final = ("Team 1 (White and Gold)", "Team 2 (Black and Silver)") * 2


@functools.lru_cache(maxsize=64)
def _variation(variant: str) -> tuple[str, bool]:
    """The variation and whether it is played by teams; Primary Basic for a variant this
    version cannot read (a page must still name the sides)."""
    try:
        config = parse_variant(variant)
    except VariantError:
        return PRIMARY, False
    return config.variation, config.teams


def games_reasons(reason: str) -> list[tuple[str, str]] | None:
    """The (game, reason) pairs of a match whose games ended differently ("bsq checkmate, wsq
    repetition"); None for any other reason."""
    parts = [part.strip().partition(" ") for part in reason.split(",")]
    if len(parts) < 2 or any(game not in GAMES for game, _, _ in parts):
        return None
    return [(game, why) for game, _, why in parts]


def compound(reason: str) -> Phrase | None:
    """The phrase of a match whose games ended differently: each game's reason, in order
    ("checkmate in the black-square game, a draw by repetition in the white-square game");
    None for any other reason."""
    parts = games_reasons(reason)
    if parts is None:
        return None
    said = [f"{NOUNS.get(why, why.replace('_', ' '))} in {GAMES[game]}" for game, why in parts]
    clause = ", ".join(said)
    return Phrase(clause, clause, clause)


@dataclass(frozen=True, slots=True)
class YioraWords(RulesetWords):
    """Yiora's words: side names by variation, a match's reasons by game."""

    def side(self, created: GameCreated, seat: int) -> str:
        variation, teams = _variation(created.variant)
        names: tuple[str, ...]
        if variation == PRIMARY:
            names = PRIMARY_SIDES
        elif variation == SECONDARY_BASIC:
            names = BASIC_SIDES
        else:
            names = TEAM_SIDES if teams else COMPLEX_SIDES
        return names[seat] if 0 <= seat < len(names) else f"Seat {seat + 1}"

    def reason(self, reason: str) -> Phrase:
        return compound(reason) or RulesetWords.reason(self, reason)

    def knows(self, reason: str) -> bool:
        parts = games_reasons(reason)
        if parts is not None:
            return all(why in NOUNS for _, why in parts)
        return RulesetWords.knows(self, reason)

    def reason_for(self, created: GameCreated, seat: int | None, reason: str) -> Phrase:
        """YI-8.3: a Secondary Basic player is told its own game's reason only (seats 0 and 1
        play game bsq, 2 and 3 game wsq; seats.side_in)."""
        parts = games_reasons(reason)
        if seat is None or parts is None or _variation(created.variant)[0] != SECONDARY_BASIC:
            return self.reason(reason)
        mine = ("bsq", "wsq")[seat // 2 % 2]
        return next((self.reason(why) for game, why in parts if game == mine), self.reason(reason))

    def opponents(self, created: GameCreated, seat: int) -> tuple[int, ...]:
        """YI-8.3: in Secondary Basic each player plays only the other side of its own game
        (seats 0 and 1 in game bsq, 2 and 3 in game wsq) and receives that game's result."""
        if _variation(created.variant)[0] == SECONDARY_BASIC:
            return (seat ^ 1,)
        return every_side_opposes(created, seat)


WORDS: Final = YioraWords(PRIMARY_SIDES, REASONS)
