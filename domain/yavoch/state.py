"""The state of a Yavoch game: `State`, with the mover's `Turn` and [FULL] an open response
`Window`. Every field is an immutable value, so `evolve` returns a new state and a decision can
work on a copy. Also `commands`, a seat's Command ships (the end of the game reads them).
"""

from dataclasses import dataclass

from contracts.events import Event
from domain.core import Outcome
from domain.core.agreement import Agreement
from domain.yavoch.board import Board, Ship
from domain.yavoch.cards import Cards
from domain.yavoch.field import Position
from domain.yavoch.notation import Kind
from domain.yavoch.variant import Config


@dataclass(frozen=True, slots=True)
class Turn:
    """What the mover has done this turn (Y-4.2, Y-5.54, Y-5.60)."""

    moved: bool = False
    fired: bool = False
    gave: frozenset[Position] = frozenset()
    received: frozenset[Position] = frozenset()
    over: bool = False  # END, or an early end (Y-4.4)
    drawn: bool = False  # [FULL] the turn's card is drawn (Y-6.12)


@dataclass(frozen=True, slots=True)
class Window:
    """[FULL] Y-5.96: `seat` may answer `action` with one of `ships`."""

    seat: int
    action: str
    ships: tuple[Position, ...]
    battle_lost: bool = False  # the defender lost a battle: Self Destruct may answer (Y-5.92)


@dataclass(frozen=True, slots=True)
class State:
    cfg: Config
    game_id: str
    board: Board = Board()  # noqa: RUF009  # immutable values: sharing them is safe
    levels: tuple[int, int] | None = None  # player one's (Y-3.1)
    placed: tuple[bool, bool] = (False, False)
    mover: int = 0
    number: int = 0  # turns begun (0: in setup)
    turn: Turn = Turn()
    window: Window | None = None
    cards: Cards = Cards()  # noqa: RUF009
    rolls: tuple[int, ...] = ()  # die outcomes recorded and not yet used by an action
    casualties: frozenset[int] = frozenset()  # owners whose Command ship the last action destroyed
    # [FULL] what an impact event's rolls oblige the next events to be (Engineering Failure's
    # discards, Enemy Defector's picks): replay checks them, so a log cannot disagree with its dice
    expected: tuple[Event, ...] = ()
    agreement: Agreement = Agreement()  # noqa: RUF009  # draw offers and resignation (Y-8.8)
    outcome: Outcome | None = None

    @property
    def phase(self) -> str:
        if self.outcome is not None:
            return "ended"
        if self.levels is None:
            return "levels"
        if not all(self.placed):
            return "place"
        if self.window is not None:
            return "respond"
        if self.turn.over:
            return "discard"
        return "play"

    def home(self, seat: int) -> tuple[int, int]:
        assert self.levels is not None
        other: tuple[int, int] = (4, 5) if self.levels == (1, 2) else (1, 2)
        return self.levels if seat == 0 else other


def commands(board: Board, seat: int) -> list[tuple[Position, Ship]]:
    """`seat`'s Command ships (one unless `fleet.command` says more)."""
    return [(p, s) for p, s in board.owned(seat + 1) if s.kind is Kind.COMMAND]
