"""Yiora events (ruling yiora.md). Moves are stored in canonical notation (YI-1.7).

Primary Basic uses the platform's draw, resignation and end events. A Secondary variation holds
two games (YI-8.1): its moves name their game, draw offers are made per game (YI-8.4.3) and
`GameFinished` records one game's result; the platform's `GameEnded` follows once both games
have ended, with the match's scores (YI-8.4.3).
"""

from contracts.events import DrawAccepted, DrawDeclined, DrawOffered, Event, Result


class MovePlayed(Event, tag="MovePlayed", frozen=True, kw_only=True):
    """A move, e.g. "O5-R10" or "A9xA19"; `game` is "bsq" or "wsq" in a Secondary variation
    ("" in Primary Basic); `check`: the opponent's Overlord is threatened after it (YI-6.1)."""

    seat: int
    move: str
    game: str = ""
    check: bool = False


class GameDrawOffered(Event, tag="GameDrawOffered", frozen=True, kw_only=True):
    """A draw offered in one game of a Secondary variation (YI-7.6, YI-8.4.3)."""

    seat: int
    game: str


class GameDrawDeclined(Event, tag="GameDrawDeclined", frozen=True, kw_only=True):
    """The offer in `game` is declined (by an answer, or by the opponent's move there)."""

    seat: int
    game: str


class GameDrawAccepted(Event, tag="GameDrawAccepted", frozen=True, kw_only=True):
    seat: int
    game: str


class GameFinished(Event, tag="GameFinished", frozen=True, kw_only=True):
    """One game of a Secondary variation has ended: `result` scores its sides, first side
    (White, Gold) first ("1-0", "0-1", "1/2-1/2"); `reason` as in YI-7 ("checkmate", …)."""

    game: str
    result: Result
    reason: str


# The draw events of Primary Basic are the platform's (contracts.events), re-exported here.
EVENTS: tuple[type[Event], ...] = (
    MovePlayed,
    GameDrawOffered,
    GameDrawDeclined,
    GameDrawAccepted,
    GameFinished,
)
__all__ = [
    "EVENTS",
    "DrawAccepted",
    "DrawDeclined",
    "DrawOffered",
    "GameDrawAccepted",
    "GameDrawDeclined",
    "GameDrawOffered",
    "GameFinished",
    "MovePlayed",
]
