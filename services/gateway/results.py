"""A finished game's result in words for the gateway's lists (the lobby's, a profile's):
"Won by checkmate", "Lost: your Command ship ran out of energy" for a player; "Ann won by
checkmate", "Drawn by agreement" for anyone. The ruleset's phrases (domain/words.py); the read
model's rows carry the result, the reason and, where known, the winners."""

from collections.abc import Sequence

from domain.core.words import and_list, join
from domain.words import words_for


def outcome(seat: int, winners: Sequence[int] | None, result: str | None) -> str | None:
    """Won, lost or drawn, for `seat`: among the winners, or not while others won, or neither.
    (A seat wins with its side; Yiora's independent games at one table are not told apart.)"""
    if result is None:
        return None
    won = list(winners or [])
    if seat in won:
        return "won"
    return "lost" if won else "drawn"


def result_words(ruleset: str, seat: int, winners: Sequence[int] | None, result: str | None,
                 reason: str | None) -> str | None:  # fmt: skip
    """ "Won by checkmate", "Lost: your Command ship ran out of energy", "Drawn by agreement":
    the ruleset's phrase for the reason, as the seat's player reads it."""
    how = outcome(seat, winners, result)
    if how is None:
        return None
    phrase = words_for(ruleset).reason(reason) if reason else None
    if how == "won":
        return join("Won", phrase.won if phrase else "")
    if how == "lost":
        return join("Lost", phrase.for_loser() if phrase else "")
    return join("Drawn", phrase.for_draw() if phrase else "")


def spectator_words(ruleset: str, result: str | None, reason: str | None,
                    winners: Sequence[int] | None, names: Sequence[str]) -> str | None:  # fmt: skip
    """ "Ann won by checkmate", "Ann and Cy won: ...", "Drawn by agreement": the end as anyone
    reads it, the winners by the names given per seat."""
    if result is None:
        return None
    won = list(winners or [])
    phrase = words_for(ruleset).reason(reason) if reason else None
    if not won:
        return join("Drawn", phrase.for_draw() if phrase else "")
    who = and_list([names[s] if s < len(names) and names[s] else f"seat {s}" for s in won])
    return join(f"{who} won", phrase.won if phrase else "")
