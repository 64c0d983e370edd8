"""Which finished games are rated, in which class, and what each does to its players' ratings.

Pure: a game's GameCreated, its GameEnded and the time the log stored with the GameEnded in,
the players' ratings before it in, their ratings after it out. The read model's ratings pass
(services/projector/ratings.py) and `tabula ratings --verify` both fold these over the finished
rated games in ONE canonical order, (end time, game id) (`key`), so the two agree to the bit.

A game is rated when it was made `rated`, every seat has a player id, the game ended with a
GameEnded, and its result scores every seat. Not rated, too: the same player in two seats (a
player cannot win or lose against themself, and a pair of updates for one rating in one game
has no defined order), teammates with different scores (a side scores as one), fewer than two
sides, and a game whose players' ratings in its class are of the other system (below).

A rating is kept per class (ruleset, family, speed), as Lichess keeps one per variant and time
control: the family is the variant's named part (what precedes its "+" parameters; "" is the
ruleset's standard game), the speed Lichess's class of the clock (domain.ratings.classes).
Two sides of one seat each are rated by Glicko-2 (`glicko2`); more sides, or teams, by
Weng–Lin (`wenglin`). One family can be played both ways (Yiora's `secondary_complex` is two
seats, `secondary_complex+teams` four in two teams): a class's ratings are of the system of the
first game rated in it, and a game needing the other system is left unrated, so that one row
never holds two kinds of number.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from contracts.events import GameCreated, GameEnded
from domain.ratings.classes import speed
from domain.ratings.glicko2 import Glicko, rate
from domain.ratings.multi import SIGMA, Skill, rate_sides

GLICKO2: Final = "glicko2"
WENGLIN: Final = "wenglin"
STANDARD: Final = "standard"  # the family of a game whose variant is "" (every default)
# Lichess calls a Glicko-2 rating provisional at a deviation of 110 or more, 22% of a new
# player's 500: a Weng–Lin skill is provisional at the same share of a new player's σ.
PROVISIONAL_SIGMA: Final = SIGMA * 110.0 / 500.0

Rating = Glicko | Skill


@dataclass(frozen=True, slots=True, order=True)
class RatingClass:
    ruleset: str
    family: str
    speed: str


@dataclass(frozen=True, slots=True)
class Finished:
    """A finished game as its log states it: the GameEnded's stored time is when it ended."""

    game_id: str
    created: GameCreated
    ended: GameEnded
    ended_ms: int


@dataclass(frozen=True, slots=True)
class Change:
    player: str
    seat: int
    before: Rating
    after: Rating


@dataclass(frozen=True, slots=True)
class Update:
    """What one rated game does: each player's rating before and after, seat order."""

    game_id: str
    ended_ms: int
    rating_class: RatingClass
    system: str
    changes: tuple[Change, ...]


def key(game: Finished) -> tuple[int, str]:
    """The canonical order of the games rated: by end, then by id (two may end in one ms)."""
    return game.ended_ms, game.game_id


def family(variant: str) -> str:
    """The variant's named part: what precedes its "+" parameters ("standard" for "")."""
    return variant.split("+", 1)[0].strip() or STANDARD


def game_speed(created: GameCreated) -> str:
    clock = created.clock
    base, increment = (clock.base_ms, clock.increment_ms) if clock is not None else (0, 0)
    return speed(base, increment, created.move_deadline_ms)


def rating_class(created: GameCreated) -> RatingClass:
    """A team game is a family of its own ("+teams"): its players are rated by Weng-Lin, the
    same variant's games of single players by Glicko-2, and a class holds one system."""
    named = family(created.variant) + ("+teams" if created.teams else "")
    return RatingClass(created.ruleset, named, game_speed(created))


def sides(created: GameCreated) -> tuple[tuple[int, ...], ...]:
    """Each side's seats, in order of its first seat (a seat in no team is a side alone)."""
    of = {seat: tuple(team) for team in created.teams for seat in team}
    return tuple(sorted({of.get(seat, (seat,)) for seat in range(created.seats)}))


def system(created: GameCreated) -> str:
    return GLICKO2 if created.seats == 2 and not created.teams else WENGLIN


def provisional(rating: Rating) -> bool:
    if isinstance(rating, Glicko):
        return rating.provisional
    return rating.sigma >= PROVISIONAL_SIGMA


def unrated(game: Finished) -> str | None:
    """Why the game leaves ratings alone, None when it is rated (the players' current ratings
    aside: see `rate_game`)."""
    created, ended = game.created, game.ended
    if not created.rated:
        return "casual"
    players = list(created.players)
    if len(players) != created.seats or "" in players:
        return "a seat without a player id"
    if len(set(players)) != len(players):
        return "one player in two seats"
    scores = _scores(ended)
    if scores is None or len(scores) != created.seats:
        return f"the result {ended.result!r} does not score each of {created.seats} seats"
    groups = sides(created)
    if len(groups) < 2 or sorted(s for side in groups for s in side) != list(range(created.seats)):
        return "fewer than two sides, or teams that are not the seats"
    if any(len({scores[s] for s in side}) != 1 for side in groups):
        return "teammates with different scores"
    return None


def rate_game(game: Finished, current: Mapping[str, Rating]) -> Update | str:
    """The update a finished game makes, given its players' ratings in its class (`current`,
    by player id; absent: a new player's), or why it makes none."""
    why = unrated(game)
    if why is not None:
        return why
    created = game.created
    kind = system(created)
    wanted = Glicko if kind == GLICKO2 else Skill
    players = list(created.players)
    before: list[Rating] = [r if (r := current.get(p)) is not None else wanted() for p in players]
    if any(not isinstance(r, wanted) for r in before):
        return f"the class is rated by the other system than {kind}"
    scores = _scores(game.ended)
    assert scores is not None  # unrated() checked it
    after: list[Rating]
    if kind == GLICKO2:
        first, second = before
        assert isinstance(first, Glicko)
        assert isinstance(second, Glicko)
        total = scores[0] + scores[1]
        # One game's scores sum to 1; a match's (summed games) are its share of the points.
        share = float(scores[0] / total) if total else 0.5
        try:
            after = [rate(first, second, share, game.ended_ms),
                     rate(second, first, 1.0 - share, game.ended_ms)]  # fmt: skip
        except ArithmeticError:  # lila leaves a game whose volatility diverges unrated
            return "the Glicko-2 volatility did not converge"
    else:
        groups = sides(created)
        skills = [[_skill(before[s]) for s in side] for side in groups]
        rated = rate_sides(skills, [float(scores[side[0]]) for side in groups])
        by_seat = {s: r for side, new in zip(groups, rated, strict=True)
                   for s, r in zip(side, new, strict=True)}  # fmt: skip
        after = [by_seat[s] for s in range(created.seats)]
    changes = tuple(Change(p, seat, before[seat], after[seat]) for seat, p in enumerate(players))
    return Update(game.game_id, game.ended_ms, rating_class(created), kind, changes)


def replay(
    games: Iterable[Finished],
) -> tuple[dict[tuple[str, RatingClass], tuple[Rating, int]], list[Update]]:
    """Every rating from nothing: the games in the canonical order, each rated over the
    ratings the games before it left. (player, class) -> (rating, end of its last game), and
    the updates in the order applied (the n-th is the n-th rated game, `seq` n)."""
    ratings: dict[tuple[str, RatingClass], tuple[Rating, int]] = {}
    updates: list[Update] = []
    for game in sorted(games, key=key):
        klass = rating_class(game.created)
        current = {p: r for p in game.created.players if (r := _get(ratings, p, klass)) is not None}
        update = rate_game(game, current)
        if isinstance(update, str):
            continue
        for change in update.changes:
            ratings[(change.player, klass)] = (change.after, update.ended_ms)
        updates.append(update)
    return ratings, updates


def _get(
    ratings: Mapping[tuple[str, RatingClass], tuple[Rating, int]], player: str, klass: RatingClass
) -> Rating | None:
    found = ratings.get((player, klass))
    return found[0] if found is not None else None


def _skill(rating: Rating) -> Skill:
    assert isinstance(rating, Skill)
    return rating


def _scores(ended: GameEnded) -> Sequence[Fraction] | None:
    try:
        return [Fraction(score) for score in ended.result.split("-")]
    except (ValueError, ZeroDivisionError):
        return None
