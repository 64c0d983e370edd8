"""`tabula duel`: games between two bot levels, in process, to measure one against the other.

Each game runs through `domain.core.table` as a hosted game does, with no services: the
randomness service is simulated from a server seed made per game, the seats' client seeds and
hidden setups are made as bots make them (services.client.bot.Seat, from a secret derived per
game and seat), and every draw is answered from the server seed and the seats' mix
(domain.fairplay). Everything derives from `--seed`: a duel is repeatable.

Each level plays from its own seat's view, as a hosted bot does: beside the true table the duel
keeps one table per seat, folded from each event as `domain.core.table.visible` shows it to
that seat (what the rules service sends the seat: the public form, or the whole event to the
seats in its audience), so a level never reads another seat's cards or the deck's order.

Side A plays seat 0 in odd-numbered games and seat 1 in even ones; with more than two seats,
A plays the even seats in odd-numbered games and the odd seats in even ones. A game's share
of its points (draws count 1/2) goes to `score A: X/N`, the last line.
"""

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Annotated, Any

import msgspec
import typer
from rich.markup import escape

from contracts.events import Event, SeedCommitted
from domain import fairplay
from domain.core import DrawResult, NeedDraws, Rejection, Ruleset, VariantError
from domain.core import table as tables
from domain.registry import find_ruleset
from domain.search.levels import LEVELS, Level, choose, level
from services.cli.common import err, out
from services.client.bot import Seat

MAX_PLIES = 5000  # game actions; far past any game the levels finish, a guard against loops
PLATFORM_STEPS = 10_000  # seed and setup steps: a setup discarded this often is a bug


@dataclass(frozen=True, slots=True)
class Played:
    """One game's end: its result and reason (as the outcome says, or why it was cut short),
    the seats' scores, and the game actions played."""

    result: str
    reason: str
    scores: tuple[Fraction, ...]
    plies: int
    cut: bool = False


def derive(seed: int, *parts: object) -> bytes:
    """32 bytes for one purpose of one duel (a server seed, a seat's secret, a move's seed)."""
    return hashlib.sha256(":".join(map(str, ("tabula-duel", seed, *parts))).encode()).digest()


def move_seed(seed: int, game: int, ply: int) -> int:
    """The seed of the choice at `ply` of game `game`: every choice is seeded apart."""
    return int.from_bytes(derive(seed, game, ply, "move")[:8], "big")


class DuelGame:
    """One game at a table, its seats played by levels: `levels[seat]`."""

    def __init__(
        self, rs: Ruleset[Any, Any], variant: str, seed: int, game: int, levels: Sequence[Level]
    ) -> None:
        self.game_id = f"duel-{seed}-{game}"
        self.seed, self.game, self.levels = seed, game, levels
        self.server_seed = derive(seed, game, "server-seed").hex()
        created = msgspec.structs.replace(rs.create(variant), game_id=self.game_id)
        self.table = tables.open_table(rs, self.game_id, created)
        self.views = [self.table] * created.seats  # each seat's table, as it sees the game
        if created.randomness:  # the randomness service's commitment comes first
            commitment = fairplay.seed_commitment(self.server_seed)
            self.apply((SeedCommitted(commitment=commitment),))
        self.seats = [Seat(self.game_id, s, derive(seed, game, s, "seat"))
                      for s in range(created.seats)]  # fmt: skip
        self.plies = 0
        self.last = -1  # the seat that acted last: simultaneous seats take turns after it

    def act(self, seat: int, text: str) -> None:
        """Decide `text` at the table, its draws answered from the server seed, and apply it;
        a refusal is a bug (of the level or of the ruleset): raised."""
        decision = tables.decide(self.table, seat, text)
        draws: list[DrawResult] = []
        while isinstance(decision, NeedDraws):
            assert self.table.fair is not None
            mix = self.table.fair.mix
            draws += tables.fulfil(decision.requests, self.server_seed, self.game_id, mix)
            decision = tables.decide(self.table, seat, text, draws)
        if isinstance(decision, Rejection):
            raise RuntimeError(f"{self.game_id}: seat {seat}'s {text!r} refused: {decision}")
        self.apply(decision)
        self.last = seat

    def apply(self, events: Sequence[Event]) -> None:
        """Fold `events` into the true table, then each as its seat sees it into the seat's
        table (seen from the table after them all, as the service publishes an append)."""
        for event in events:
            self.table = tables.evolve(self.table, event)
        for seat in range(len(self.views)):
            for event in events:
                shown = tables.visible(self.table, event, seat)
                if shown is not None:
                    self.views[seat] = tables.evolve(self.views[seat], shown)

    def order(self, waiting: frozenset[int]) -> list[int]:
        """The seats waiting, round robin from the one after the last to act (fair to the
        parallel games of one board)."""
        return sorted(waiting, key=lambda s: (s <= self.last, s))

    def step(self) -> bool:
        """One step of some seat: a seed or setup step, or a game action. False: no seat
        waiting has anything to do (the game is stuck)."""
        waiting = tables.to_act(self.table)
        if tables.phase(self.table) != "play":
            if not waiting:
                return False
            seat = self.order(waiting)[0]
            self.act(seat, self.seats[seat].fair_play_action(self.views[seat]))
            return True
        rs = self.table.ruleset
        for seat in self.order(waiting):
            seed = move_seed(self.seed, self.game, self.plies)
            state = self.views[seat].game
            action = choose(rs, state, seat, self.levels[seat], seed)
            if action is not None:
                self.act(seat, rs.format_action(state, action))
                self.plies += 1
                return True
        return False

    def play(self, max_plies: int) -> Played:
        """Play to the end, or to `max_plies` game actions (then counted a draw)."""
        seats = self.table.created.seats
        steps = 0
        while (ended := tables.outcome(self.table)) is None:
            if self.plies >= max_plies:
                return self.cut(seats, f"cut short at {max_plies} plies, counted a draw")
            if not self.step():
                return self.cut(seats, "stuck: no seat to act has an action, counted a draw")
            steps += 1
            if steps - self.plies > PLATFORM_STEPS:
                raise RuntimeError(f"{self.game_id}: the seed and setup steps never end")
        return Played(ended.result, ended.reason, ended.scores, self.plies)

    def cut(self, seats: int, reason: str) -> Played:
        half = (Fraction(1, 2),) * seats
        return Played("-".join(map(str, half)), reason, half, self.plies, cut=True)


def a_seats(game: int, seats: int) -> tuple[int, ...]:
    """Side A's seats in game `game` (from 0): the even seats in even games, the odd ones in
    odd games (for two seats: seat 0, then seat 1)."""
    return tuple(s for s in range(seats) if s % 2 == game % 2)


def a_share(scores: Sequence[Fraction], mine: Sequence[int]) -> Fraction:
    """A's share of the game's points: 1 for a win, 1/2 for a draw, in any number of seats."""
    total = sum(scores, Fraction(0))
    if total == 0:
        return Fraction(1, 2)
    return sum((scores[s] for s in mine), Fraction(0)) / total


def show(points: Fraction) -> str:
    """A score as the last line writes it: 7, 7.5, or a fraction when not in halves."""
    if points.denominator == 1:
        return str(points.numerator)
    if points.denominator == 2:
        return f"{float(points):g}"
    return str(points)


def level_option(side: str) -> Any:
    numbers = f"{LEVELS[0].number} to {LEVELS[-1].number}"
    names = ", ".join(f"{lv.number} {lv.name}" for lv in LEVELS)
    return typer.Option(f"--{side}", min=LEVELS[0].number, max=LEVELS[-1].number,
                        help=f"Side {side.upper()}'s level, {numbers} ({names}).")  # fmt: skip


def duel(
    ruleset: str,
    a: Annotated[int, level_option("a")],
    b: Annotated[int, level_option("b")],
    games: Annotated[int, typer.Option("--games", min=1, help="Games to play.")] = 2,
    variant: Annotated[str, typer.Option(help="Variant string.")] = "",
    seed: Annotated[int, typer.Option(min=0, help="Seeds every game of the duel.")] = 0,
    max_plies: Annotated[
        int, typer.Option(min=1, help="Game actions before a game is cut short as a draw.")
    ] = MAX_PLIES,
) -> None:
    """Play GAMES games between bot levels A and B in process (seats alternating, every
    choice seeded), each result as it comes, then `score A: X/N` (draws count 1/2)."""
    try:
        rs = find_ruleset(ruleset)
        seats = rs.create(variant).seats
    except VariantError as exc:
        err.print(f"[red]{exc.code}: {escape(exc.reason)}[/]")
        raise typer.Exit(2) from None
    side_a, side_b = level(a), level(b)
    score = Fraction(0)
    for game in range(games):
        mine = a_seats(game, seats)
        levels = [side_a if s in mine else side_b for s in range(seats)]
        try:
            played = DuelGame(rs, variant, seed, game, levels).play(max_plies)
        except RuntimeError as exc:  # a level's action refused: a bug, said in one line
            err.print(f"[red]game {game + 1}: {escape(str(exc))}[/]")
            raise typer.Exit(1) from None
        share = a_share(played.scores, mine)
        score += share
        out.print(game_line(game, games, mine, levels, played, share), markup=False,
                  highlight=False)  # fmt: skip
    out.print(f"score A: {show(score)}/{games}", markup=False, highlight=False)


def game_line(
    game: int, games: int, mine: Sequence[int], levels: Sequence[Level], played: Played,
    share: Fraction,
) -> str:  # fmt: skip
    """A game's line: its number, who played which seat (`A3@0`: side A, level 3, seat 0),
    the result and its reason, the game actions played, and A's points."""
    who = ", ".join(f"{'A' if s in mine else 'B'}{lv.number}@{s}" for s, lv in enumerate(levels))
    return (f"game {game + 1}/{games}: seats {who}: {played.result} ({played.reason}), "
            f"{played.plies} plies, A {show(share)}")  # fmt: skip
