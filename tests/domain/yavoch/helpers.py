"""Yavoch rules tests: hand-set positions and actions with chosen dice.

`game(position)` starts a game from a position record (record.format_record's form, e.g.
`1C111:3 1S112:2 2C555:1 2T554 1G125 1G135 2M333 E244:1 / 1`); `act` decides and applies an
action, answering the ruleset's draws from `rolls` (dice, in order), `shuffles` (permutations;
identity when not given) and the server seed's salts; `refused` expects a rejection.
"""

from collections.abc import Sequence
from dataclasses import replace

import msgspec

from contracts.events import Event
from domain import fairplay
from domain.core import DrawResult, NeedDraws, Rejection
from domain.yavoch.cards import Cards, Held
from domain.yavoch.rules import YAVOCH
from domain.yavoch.state import State

SERVER_SEED = "5e" * 32
GAME = "yavoch-test"


def game(position: str, variant: str = "decker") -> State:
    created = msgspec.structs.replace(YAVOCH.create(variant, position), game_id=GAME)
    return YAVOCH.start(created)


def with_hands(state: State, *hands: Sequence[str], pile: Sequence[str] = ()) -> State:
    """Give the seats these cards (dealt at positions 0, 1, 2 ... in order) and this draw pile
    (top first); the deck counts as shuffled."""
    held: list[tuple[Held, ...]] = []
    p = 0
    for cards in hands:
        row = []
        for card in cards:
            row.append(Held(p, card, fairplay.card_salt(SERVER_SEED, GAME, p)))
            p += 1
        held.append(tuple(row))
    while len(held) < 2:
        held.append(())
    cards = Cards(shuffled=True, pile=tuple(pile), hands=(held[0], held[1]), dealt=p)
    return replace(state, cards=cards)


def decide(
    state: State,
    seat: int,
    text: str,
    rolls: Sequence[int] = (),
    shuffles: Sequence[Sequence[int]] = (),
) -> tuple[Event, ...] | Rejection:
    action = YAVOCH.parse_action(state, seat, text)
    if isinstance(action, Rejection):
        return action
    rolls, shuffles = list(rolls), [list(s) for s in shuffles]
    draws: list[DrawResult] = []
    nonce = 0
    while True:
        decision = YAVOCH.decide(state, seat, action, draws)
        if not isinstance(decision, NeedDraws):
            break
        for r in decision.requests:
            if r.kind == "salt":
                salt = fairplay.card_salt(SERVER_SEED, GAME, r.n)
                draws.append(DrawResult(None, "salt", r.n, r.purpose, salt=salt))
                continue
            if r.kind == "shuffle":
                values = tuple(shuffles.pop(0)) if shuffles else tuple(range(r.n))
            else:
                assert rolls, f"{text!r} needs a {r.kind}({r.n}) for {r.purpose}: give rolls="
                values = (rolls.pop(0),)
            draws.append(DrawResult(nonce, r.kind, r.n, r.purpose, values))
            nonce += 1
    assert not rolls, f"rolls left unused: {rolls}"
    if isinstance(decision, Rejection):
        return decision
    return decision  # with its RandomDrawn / DeckShuffled in place (run.Run.draw)


def act(
    state: State,
    seat: int,
    text: str,
    rolls: Sequence[int] = (),
    shuffles: Sequence[Sequence[int]] = (),
) -> tuple[State, tuple[Event, ...]]:
    """Decide and apply; fails the test on a rejection."""
    events = decide(state, seat, text, rolls, shuffles)
    assert not isinstance(events, Rejection), f"{text!r} by seat {seat}: {events}"
    for event in events:
        state = YAVOCH.evolve(state, event)
    return state, events


def refused(state: State, seat: int, text: str, rolls: Sequence[int] = ()) -> Rejection:
    result = decide(state, seat, text, rolls)
    assert isinstance(result, Rejection), f"{text!r} by seat {seat} was accepted: {result}"
    return result
