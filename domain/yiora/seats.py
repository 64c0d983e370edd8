"""Who plays which side of which game, who is to move, and the match's result (YI-8).

Seats by variation:
- `primary`: 2 seats, 0 White, 1 Black (game bsq only);
- `secondary_basic`: 4 seats, 0 White, 1 Black (game bsq), 2 Gold, 3 Silver (game wsq), YI-8.3;
- `secondary_complex`: 2 seats, 0 White and Gold, 1 Black and Silver (YI-8.4, YI-R23); with
  `teams`, 4 seats in two teams, seats 0 and 2 White and Gold, seats 1 and 3 Black and Silver,
  each member moving either of the team's sides (YI-8.4's shared control).

A side is 0 (White in game bsq, Gold in game wsq) or 1 (Black, Silver); a game is indexed by its
colour, 0 bsq and 1 wsq (geometry.BLACK / WHITE).
"""

from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from domain.core.outcome import WIN, Outcome, Sides, scored
from domain.yiora.variant import PRIMARY, SECONDARY_BASIC, Config

TEAMS: Final = ((0, 2), (1, 3))


def seat_count(config: Config) -> int:
    if config.variation == SECONDARY_BASIC or config.teams:
        return 4
    return 2


def teams(config: Config) -> tuple[tuple[int, ...], ...]:
    return TEAMS if config.teams else ()


def sides(config: Config) -> Sides:
    return Sides(seat_count(config), teams(config))


def side_in(config: Config, seat: int, game: int) -> int | None:
    """The side `seat` plays in `game`, or None if it plays no side there."""
    if config.variation == PRIMARY:
        return seat if game == 0 else None
    if config.variation == SECONDARY_BASIC:
        return seat % 2 if seat // 2 == game else None
    return seat % 2  # Secondary Complex: each player (team) owns one side in each game


def seats_of(config: Config, game: int, side: int) -> tuple[int, ...]:
    """The seats that may move `side` in `game`."""
    return tuple(s for s in range(seat_count(config)) if side_in(config, s, game) == side)


def games_of(config: Config, seat: int) -> tuple[int, ...]:
    """The games in which `seat` plays a side."""
    return tuple(g for g in range(config.games) if side_in(config, seat, g) is not None)


def next_game(config: Config, turns: Sequence[int | None]) -> int | None:
    """In lockstep (YI-8.4.1), the game whose move is due, from each game's side to move (None:
    the game has ended): game bsq while the same player is to move in both games (a turn
    begins), game wsq once bsq has had its move of the turn; the unfinished game alone once the
    other has ended."""
    unfinished = [g for g, turn in enumerate(turns) if turn is not None]
    if len(unfinished) <= 1:
        return unfinished[0] if unfinished else None
    return 0 if turns[0] == turns[1] else 1


def match_outcome(config: Config, results: Sequence[Outcome], reason: str) -> Outcome:
    """The match's result once both games have ended (YI-8.4.3): each seat's score is its own
    game's (Secondary Basic, YI-8.3) or the sum of its side's scores in both games (Secondary
    Complex); the highest score wins, equal scores are a drawn match."""
    points: list[Fraction] = []
    for seat in range(seat_count(config)):
        points.append(sum((results[g].scores[side] for g in range(config.games)
                           if (side := side_in(config, seat, g)) is not None),
                          Fraction(0)))  # fmt: skip
    if config.variation == SECONDARY_BASIC:  # four results, not a contest of all four seats
        return Outcome(tuple(points), reason, tuple(s for s, p in enumerate(points) if p == WIN))
    return scored(points, reason)


def match_reason(reasons: Sequence[str]) -> str:
    """One reason for the match: the games' own if they agree, else each game's."""
    if len(set(reasons)) == 1:
        return reasons[0]
    return ", ".join(f"{game} {why}" for game, why in zip(("bsq", "wsq"), reasons, strict=True))
