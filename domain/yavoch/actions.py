"""The actions a player writes: Y-1.14's forms (notation.py) and the ones beyond them (setup,
discards, weapons and responses with their cards), `parse` and `action_text` for the text; and
`refuse`, with the names of the pieces, for the reasons an action is refused.
"""

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from contracts.errors import ErrorCode
from domain.core import Rejection, agreement
from domain.yavoch.field import Position
from domain.yavoch.notation import (
    Action,
    Kind,
    Response,
    WeaponUse,
    format_action,
    format_position,
    parse_action,
    parse_position,
)

LETTERS: Final = {k.value: k for k in Kind}
FLEET_ORDER: Final = (Kind.COMMAND, Kind.NEORNITH, Kind.SQUAM, Kind.ARCHID, Kind.TRYCH, Kind.GATE)
NAMES: Final = {
    Kind.COMMAND: "Command ship",
    Kind.NEORNITH: "Neornith",
    Kind.SQUAM: "Squam",
    Kind.ARCHID: "Archid",
    Kind.TRYCH: "Trych",
    Kind.GATE: "gate",
}


def refuse(reason: str, clause: str, code: ErrorCode = ErrorCode.ILLEGAL_ACTION) -> Rejection:
    return Rejection(code, reason, clause)


def a_or_an(kind: Kind) -> str:
    name = NAMES[kind]
    return ("an " if name[0] in "AEIOU" else "a ") + name


def names(ps: Sequence[Position]) -> list[str]:
    return [format_position(p) for p in ps]


# -- actions beyond Y-1.14 -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChooseLevels:
    """Y-3.1: `levels 12` or `levels 45`."""

    levels: tuple[int, int]


@dataclass(frozen=True, slots=True)
class PlaceFleet:
    """Y-3.2: `place C111 N112 ...`, every piece of the fleet once."""

    pieces: tuple[tuple[Kind, Position], ...]


@dataclass(frozen=True, slots=True)
class Discard:
    """[FULL] Y-6.13: `discard <deal position>`."""

    position: int


@dataclass(frozen=True, slots=True)
class Armed:
    """[FULL] A weapon or response with the cards that make it (`@p,q,r`; () lets the engine
    choose: the first three by deal position that fit)."""

    record: WeaponUse | Response
    cards: tuple[int, ...] = ()


YAction = Action | ChooseLevels | PlaceFleet | Discard | Armed | str


def action_text(action: YAction) -> str:
    if isinstance(action, str):
        return action
    if isinstance(action, ChooseLevels):
        return f"levels {action.levels[0]}{action.levels[1]}"
    if isinstance(action, PlaceFleet):
        return "place " + placement_text(action.pieces)
    if isinstance(action, Discard):
        return f"discard {action.position}"
    if isinstance(action, Armed):
        cards = "@" + ",".join(map(str, action.cards)) if action.cards else ""
        return format_action(action.record) + cards
    return format_action(action)


def placement_text(pieces: Sequence[tuple[Kind, Position]]) -> str:
    """Canonical: by kind in fleet order, then position (gates: in the order given, as they
    pair up two by two)."""
    order = {k: i for i, k in enumerate(FLEET_ORDER)}
    ranked = sorted(
        enumerate(pieces),
        key=lambda ip: (order[ip[1][0]], ip[0] if ip[1][0] is Kind.GATE else ip[1][1]),
    )
    return " ".join(f"{k.value}{format_position(p)}" for _, (k, p) in ranked)


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> YAction | Rejection:
    """An action as a player writes it (docs/rules/yavoch.md, "Actions"). Cached: replay reads
    every stored action again, and the records are immutable."""
    text = text.strip()
    word, _, rest = text.partition(" ")
    if word in agreement.VERBS and not rest:
        return word
    try:
        if word == "levels":
            if rest not in ("12", "45"):
                return refuse(
                    "home levels are `levels 12` or `levels 45`",
                    "Y-3.1",
                    ErrorCode.MALFORMED_ACTION,
                )
            return ChooseLevels((int(rest[0]), int(rest[1])))
        if word == "place":
            pieces = []
            for item in rest.split():
                kind = LETTERS.get(item[:1])
                if kind is None or kind in (Kind.MINE, Kind.ENERGY) or len(item) != 4:
                    return refuse(
                        f"{item!r} is not a piece and position like S112",
                        "Y-3.2",
                        ErrorCode.MALFORMED_ACTION,
                    )
                pieces.append((kind, parse_position(item[1:])))
            return PlaceFleet(tuple(pieces))
        if word == "discard":
            if not rest.isdigit():
                return refuse(
                    "write `discard <deal position>`", "Y-6.13", ErrorCode.MALFORMED_ACTION
                )
            return Discard(int(rest))
        body, at, cards = text.partition("@")
        record = parse_action(body)
        if isinstance(record, WeaponUse | Response):
            positions = tuple(int(c) for c in cards.split(",")) if at else ()
            if at and (len(positions) != 3 or len(set(positions)) != 3):
                raise ValueError("Y-5.70: a weapon is three different cards, @p,q,r")
            return Armed(record, positions)
        if at:
            raise ValueError("Y-1.14: only a weapon or a response names cards (@p,q,r)")
        return record
    except ValueError as exc:
        message = str(exc)
        clause = message.split(":", maxsplit=1)[0] if message.startswith("Y-") else "Y-1.14"
        return refuse(message, clause, ErrorCode.MALFORMED_ACTION)
