"""Shared helpers for the Cyvasse rules tests."""

import msgspec

from contracts.events import Event
from domain.core import Rejection
from domain.cyvasse import CYVASSE, Move, State


def position(white: str, black: str, side: str = "w", reserve: str = "-", quiet: int = 0,
             terrain: str = "", storm: str = "-") -> str:  # fmt: skip
    """A CY-1.3.5 record from men lists like "Ke1 Td1" (terrain like "Xb4 Fd4")."""
    return (f"side={side}; white={white}; black={black}; terrain={terrain}; "
            f"reserve={reserve}; storm={storm}; plies_since_progress={quiet}")  # fmt: skip


def new(white: str, black: str, variant: str = "A", side: str = "w", reserve: str = "-",
        quiet: int = 0, terrain: str = "", storm: str = "-") -> State:  # fmt: skip
    record = position(white, black, side, reserve, quiet, terrain, storm)
    return CYVASSE.start(CYVASSE.create(variant, record))


def act(state: State, text: str, seat: int | None = None) -> tuple[State, tuple[Event, ...]]:
    """Parse, decide and evolve `text` for `seat` (default: the side to move); must succeed."""
    seat = state.pos.turn if seat is None else seat
    action = CYVASSE.parse_action(state, seat, text)
    assert not isinstance(action, Rejection), action
    events = CYVASSE.decide(state, seat, action)
    assert isinstance(events, tuple), events
    for event in events:
        state = CYVASSE.evolve(state, event)
    return state, events


def play(state: State, *texts: str) -> State:
    for text in texts:
        state, _ = act(state, text)
    return state


def refuse(state: State, text: str, seat: int | None = None) -> Rejection:
    """The Rejection `text` earns (from parsing or deciding)."""
    seat = state.pos.turn if seat is None else seat
    action = CYVASSE.parse_action(state, seat, text)
    if isinstance(action, Rejection):
        return action
    result = CYVASSE.decide(state, seat, action)
    assert isinstance(result, Rejection), result
    return result


def legal_texts(state: State) -> set[str]:
    """Canonical texts of the side to move's legal board actions."""
    return {
        CYVASSE.format_action(state, a)
        for a in CYVASSE.legal_actions(state, state.pos.turn)
        if isinstance(a, Move)
    }


def actions_from(state: State, square: str) -> set[str]:
    return {t for t in legal_texts(state) if t.startswith(square) and t[len(square)] in "-x*"}


def setup_bytes(men: dict[str, str], terrain: dict[str, str] | None = None) -> bytes:
    if terrain is None:
        return msgspec.json.encode({"men": men}, order="sorted")
    return msgspec.json.encode({"men": men, "terrain": terrain}, order="sorted")
