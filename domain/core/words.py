"""Plain words for a game's page (issue 23): the sides' names, who is to move, and how a game
ended, as a person says it ("You lost: your Command ship ran out of energy"), not as the log
records it ("0-1 (dead_command_ship)").

Each ruleset supplies its own `Words` in its rules package, beside the clauses it words: the
names its rules give the sides, and a `Phrase` for every reason code its games can end by. The
reasons every ruleset can end by (the platform's: resignation, agreement, a timeout, a loss on
time, a forfeited setup) are `PLATFORM_REASONS` here, which a ruleset's table extends
(`RulesetWords`). The sentences themselves are built here, once, by small pure functions:
`describe` (the end), `to_move` (whose move it is) and `you_play`.

A `Phrase` holds how one reason reads for each party, so the one code yields every sentence:
- `won` completes "<who> won …" and so must read for "You" and for a third person alike: it
  names the other party "the opponent", never "their" (which a spectator would read as the
  winner's);
- `lost` completes "You lost …", in the second person: it is said to the loser only (a spectator
  is told who won, not who lost);
- `drawn` completes "Drawn …".
A tail that starts with a preposition ("by checkmate", "on time") follows its head after a
space; any other tail is a clause of its own and follows a colon ("You lost: your Command ship
ran out of energy").

Several seats, teams and games: a seat wins with its side (`Outcome.winners`), loses when one of
its opponents won, and otherwise draws; a ruleset seating independent games at one table (Yiora's
Secondary Basic) says who plays whom (`Words.opponents`) and which game's reason a seat is told
(`Words.reason_for`).
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Final, Protocol

from contracts.events import GameCreated
from domain.core.outcome import Outcome, Sides

# The words a prepositional tail starts with (it then follows its head after a space).
_PREPOSITIONS: Final = frozenset({"by", "on", "in", "as", "because", "after", "with", "when"})


@dataclass(frozen=True, slots=True)
class Phrase:
    """How one ending reason reads for the winner, the loser and in a draw (module docstring).
    An empty `lost` or `drawn` reads as `won` does ("by checkmate" fits all three)."""

    won: str
    lost: str = ""
    drawn: str = ""

    def for_loser(self) -> str:
        return self.lost or self.won

    def for_draw(self) -> str:
        return self.drawn or self.won


def by(what: str) -> Phrase:
    """A reason that reads the same for everyone: "by checkmate", "by repetition"."""
    return Phrase(f"by {what}")


def drawn(clause: str) -> Phrase:
    """A reason that only ever draws ("Drawn: the turn limit was reached"); its winner's and
    loser's readings are there only so that no sentence is ever missing a tail."""
    return Phrase(clause, clause, clause)


class Words(Protocol):
    """What a ruleset says in plain words (issue 23)."""

    def side(self, created: GameCreated, seat: int) -> str:
        """The name the rules give `seat`'s side ("White", "Player one")."""
        ...

    def reason(self, reason: str) -> Phrase:
        """How the ending reason code `reason` reads (`GameEnded.reason`); never fails: a code
        the ruleset does not know reads as its own words ("by no progress")."""
        ...

    def opponents(self, created: GameCreated, seat: int) -> tuple[int, ...]:
        """The seats `seat` plays against: every seat of another side, unless the rules seat
        several independent games at one table (Yiora's Secondary Basic)."""
        ...

    def reason_for(self, created: GameCreated, seat: int | None, reason: str) -> Phrase:
        """How `reason` reads to `seat` (None: a spectator): `reason(reason)`, unless the
        reason covers several independent games and `seat` played only one of them."""
        ...

    def knows(self, reason: str) -> bool:
        """Whether `reason` has words of its own (else `reason` falls back on `unknown`)."""
        ...


# The platform's reasons, which any ruleset's game may end by (domain/core/table.py,
# domain/core/agreement.py, docs/fair-play.md); a ruleset's own table extends them.
PLATFORM_REASONS: Final[Mapping[str, Phrase]] = {
    # agreement.py: the last side left after the others resigned wins.
    "resignation": by("resignation"),
    # agreement.py: every seat still in the game accepted the draw.
    "agreement": by("agreement"),
    # table.py `_claim_timeout`: the seats owing a move, a seed or a setup step kept the others
    # waiting past the game's deadline (fair-play 1.3, 3; the move deadline).
    "timeout": Phrase(
        "because the opponent did not act in time",
        "you did not act in time",
        "nobody acted in time",
    ),
    # table.py `_flag` (docs/clocks.md): a seat's game clock ran out (its flag fell; the
    # rules leave time to the platform, C3-7.8, CY-7.8), so its side loses on time ...
    "time": Phrase("on time"),
    # ... unless no other side could have won (the ruleset's `can_win`): a draw.
    "time_vs_insufficient_material": drawn("time ran out, but the other side could not have won"),
    # fair-play 3: a revealed setup broke the placement rules or its commitment (the forfeit of
    # docs/writing-a-ruleset.md section 5).
    "illegal_setup": Phrase(
        "because the opponent's setup broke the rules",
        "your setup broke the rules",
        "a setup broke the rules",
    ),
}


def unknown(reason: str) -> Phrase:
    """A code no table words: its own words, so the page still says something true."""
    return by(reason.replace("_", " ").replace("-", " ") or "an unstated reason")


def every_side_opposes(created: GameCreated, seat: int) -> tuple[int, ...]:
    """The default opponents: every seat outside `seat`'s side (its team)."""
    mine = Sides.of(created).side(seat)
    return tuple(s for s in range(created.seats) if s not in mine)


@dataclass(frozen=True, slots=True)
class RulesetWords:
    """A ruleset's words as data: its sides' names by seat and its reasons' phrases (over the
    platform's). A ruleset whose side names depend on its variant subclasses it."""

    sides: tuple[str, ...]
    reasons: Mapping[str, Phrase] = field(default_factory=dict)

    def side(self, created: GameCreated, seat: int) -> str:
        return self.sides[seat] if 0 <= seat < len(self.sides) else f"Seat {seat + 1}"

    def reason(self, reason: str) -> Phrase:
        return self.reasons.get(reason) or PLATFORM_REASONS.get(reason) or unknown(reason)

    def opponents(self, created: GameCreated, seat: int) -> tuple[int, ...]:
        return every_side_opposes(created, seat)

    def reason_for(self, created: GameCreated, seat: int | None, reason: str) -> Phrase:
        return self.reason(reason)

    def knows(self, reason: str) -> bool:
        return reason in self.reasons or reason in PLATFORM_REASONS

    def codes(self) -> frozenset[str]:
        """Every reason code worded, the platform's included."""
        return frozenset(self.reasons) | frozenset(PLATFORM_REASONS)


# -- sentences -------------------------------------------------------------------------------


def join(head: str, tail: str) -> str:
    """ "You won" + "by checkmate", or "You lost" + ": your Command ship ran out of energy"."""
    if not tail:
        return head
    first = tail.split(" ", 1)[0]
    return f"{head} {tail}" if first in _PREPOSITIONS else f"{head}: {tail}"


def and_list(items: Sequence[str]) -> str:
    """ "Bob", "Bob and Ann", "Bob, Ann and Cy"."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def label(words: Words, created: GameCreated, seat: int, names: Sequence[str]) -> str:
    """A seat as a person reads it: its player's name, or its side's when the name is ""."""
    name = names[seat] if 0 <= seat < len(names) else ""
    return name or words.side(created, seat)


def _group(created: GameCreated, seats: Sequence[int]) -> list[tuple[int, ...]]:
    """`seats` by side (team), in seat order, each side once."""
    sides = Sides.of(created)
    grouped: list[tuple[int, ...]] = []
    for seat in sorted(seats):
        side = tuple(s for s in sides.side(seat) if s in seats)
        if side not in grouped:
            grouped.append(side)
    return grouped


def who(words: Words, created: GameCreated, seats: Sequence[int], names: Sequence[str]) -> str:
    """Several seats as one subject: "Bob and Ann", or the side's name for a side not every
    player of which is named (once for a team: "Team 1 (White and Gold)")."""
    parts: list[str] = []
    for side in _group(created, seats):
        named = [names[s] for s in side if s < len(names) and names[s]]
        if len(named) == len(side):
            parts += named
        elif words.side(created, side[0]) not in parts:
            parts.append(words.side(created, side[0]))
    return and_list(parts)


def _score(scores: Sequence[Fraction], mine: int, rivals: Sequence[int]) -> str:
    """ "3/2–1/2": the score of `mine`'s side, then its best rival's, when the two come to more
    than one game's point (a match of several games, YI-8.4.3); "" for a single game, whose
    1-0 says nothing the sentence does not."""
    if not 0 <= mine < len(scores):
        return ""
    theirs = max((scores[s] for s in rivals if s < len(scores)), default=Fraction(0))
    if scores[mine] + theirs <= 1:
        return ""
    return f" {scores[mine]}–{theirs}"


def describe(
    words: Words,
    created: GameCreated,
    result: str,
    reason: str,
    winners: Sequence[int],
    seat: int | None,
    names: Sequence[str] = (),
) -> str:
    """How the game ended, for `seat` (None: a spectator): "You won by checkmate", "You lost:
    your Command ship ran out of energy", "Bob won by checkmate", "Drawn by agreement", "Ann and
    Cy won 3/2–1/2: checkmate in the black-square game, …" (a match of games shows its score).
    `result`, `reason` and `winners` are `GameEnded`'s; `names` the players' by seat ("" for an
    anonymous one, who is then named by side). A seat wins if it is among the winners, loses if
    one of its opponents is (`Words.opponents`), else draws its game."""
    scores = tuple(Fraction(score) for score in result.split("-"))
    phrase = words.reason_for(created, seat, reason)
    won = tuple(winners)
    if seat is not None:
        rivals = words.opponents(created, seat)
        beaten_by = [s for s in rivals if s in won]
        if seat in won:
            return join("You won" + _score(scores, seat, rivals), phrase.won)
        if beaten_by:
            return join("You lost" + _score(scores, seat, beaten_by), phrase.for_loser())
        return join("Drawn" + _score(scores, seat, rivals), phrase.for_draw())
    if won:
        head = f"{who(words, created, won, names)} won"
        return join(head + _score(scores, won[0], words.opponents(created, won[0])), phrase.won)
    return join("Drawn" + _score(scores, 0, words.opponents(created, 0)), phrase.for_draw())


def describe_outcome(
    words: Words, created: GameCreated, outcome: Outcome, seat: int | None,
    names: Sequence[str] = (),
) -> str:  # fmt: skip
    """`describe` for an `Outcome` (a state's, before its `GameEnded` is read back)."""
    return describe(words, created, outcome.result, outcome.reason, outcome.winners, seat, names)


def to_move(
    words: Words,
    created: GameCreated,
    to_act: Iterable[int],
    seat: int | None,
    names: Sequence[str] = (),
) -> str:
    """Whose move it is, for `seat` (None: a spectator): "Your move", "Bob to move", "Bob and
    Ann to move", "You and Carol to move" (teammates who may both move); "" when nobody is to
    act (the game has ended, or waits on the server). Others to act at once who are not the
    seat's teammates (each their own setup, the other game of Yiora's Secondary Basic) are
    not the seat's business: "Your move"."""
    acting = sorted(to_act)
    if not acting:
        return ""
    others = [s for s in acting if s != seat]
    if seat is not None and seat in acting:
        mates = [s for s in others if s in Sides.of(created).side(seat)]
        return f"You and {who(words, created, mates, names)} to move" if mates else "Your move"
    return f"{who(words, created, others, names)} to move"


def you_play(
    words: Words, created: GameCreated, seat: int, names: Sequence[str] = ()
) -> str:  # fmt: skip
    """ "You play White"; with teammates, who they are: "You play White and Gold, with Carol"."""
    mates = [s for s in Sides.of(created).side(seat) if s != seat]
    text = f"You play {words.side(created, seat)}"
    if not mates:
        return text
    return f"{text}, with {and_list([label(words, created, s, names) for s in mates])}"
