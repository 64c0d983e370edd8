"""Yavoch rules tests: hand-set positions and actions with chosen dice.

`game(position)` starts a game from a position record (record.format_record's form, e.g.
`1C111:3 1S112:2 2C555:1 2T554 1G125 1G135 2M333 E244:1 / 1`); `act` decides and applies an
action, answering the ruleset's draws from `rolls` (dice, in order), `shuffles` (permutations;
identity when not given) and the server seed's salts; `refused` expects a rejection.
"""

from collections.abc import Sequence
from dataclasses import replace

from contracts.events import Event
from domain.core import Rejection
from domain.yavoch.cards import Cards, Held
from domain.yavoch.rules import YAVOCH
from domain.yavoch.state import State
from tests.rulesets.referee import Referee

SERVER_SEED = "5e" * 32
GAME = "yavoch-test"
REFEREE = Referee(YAVOCH, game_id=GAME, server_seed=SERVER_SEED)


def game(position: str, variant: str = "decker") -> State:
    return REFEREE.start(variant, position)


def with_hands(state: State, *hands: Sequence[str], pile: Sequence[str] = ()) -> State:
    """Give the seats these cards (dealt at positions 0, 1, 2 ... in order) and this draw pile
    (top first); the deck counts as shuffled."""
    held: list[tuple[Held, ...]] = []
    p = 0
    for cards in hands:
        row = []
        for card in cards:
            row.append(Held(p, card, REFEREE.salt(p)))
            p += 1
        held.append(tuple(row))
    while len(held) < 2:
        held.append(())
    deck = Cards(shuffled=True, pile=tuple(pile), hands=(held[0], held[1]), dealt=p)
    return replace(state, cards=deck)


def decide(
    state: State,
    seat: int,
    text: str,
    rolls: Sequence[int] = (),
    shuffles: Sequence[Sequence[int]] = (),
) -> tuple[Event, ...] | Rejection:
    """The events (with their RandomDrawn / DeckShuffled in place) or the Rejection."""
    return REFEREE.decide(state, text, seat, rolls=rolls, shuffles=shuffles)


def act(
    state: State,
    seat: int,
    text: str,
    rolls: Sequence[int] = (),
    shuffles: Sequence[Sequence[int]] = (),
) -> tuple[State, tuple[Event, ...]]:
    """Decide and apply; fails the test on a rejection."""
    return REFEREE.act(state, text, seat, rolls=rolls, shuffles=shuffles)


def refused(state: State, seat: int, text: str, rolls: Sequence[int] = ()) -> Rejection:
    return REFEREE.refuse(state, text, seat, rolls=rolls)
