"""Deciding a recorded command again: the audit's proof that every event came from a legal action.

A log records, with each command's events, the action that produced them (`<seat> <action>`,
inside the hash chain) and the time it was decided. Given the table as it stood before the
command, `decide` must accept that action and produce exactly the recorded events: an illegal
move, a forged result or an invented end fails here. The random outcomes the decision needs are
taken from the command's own recorded draws (their fairness is the audit's other business), so
this never draws and never asks a service.

Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from contracts.events import CardDealt, ClockCharged, DeckShuffled, Event, RandomDrawn
from domain.core.ruleset import DrawRequest, DrawResult, NeedDraws, Rejection
from domain.core.table import NONCED, Table, decide

__all__ = ["Mismatch", "parse_command", "redecide"]

MAX_ROUNDS = 64  # a ruleset asking for draws again and again is broken, not patient


class Mismatch(NamedTuple):
    """Where the recorded events part from the decision: an offset into the command's events
    (its length when the decision has more), and what differs."""

    offset: int
    message: str


def parse_command(recorded: str) -> tuple[int, str] | None:
    """`<seat> <action>` as recorded; None if it is not of that form."""
    seat, _, action = recorded.partition(" ")
    if not seat.isdigit() or not action:
        return None
    return int(seat), action


def _recorded_draw(request: DrawRequest, recorded: Sequence[Event]) -> DrawResult | None:
    for e in recorded:
        if request.kind in NONCED and isinstance(e, RandomDrawn | DeckShuffled):
            if e.nonce != request.nonce:
                continue
            values = (e.value,) if isinstance(e, RandomDrawn) else tuple(e.order)
            return DrawResult(nonce=e.nonce, kind=request.kind, n=request.n,
                              purpose=request.purpose, values=values)  # fmt: skip
        if request.kind == "salt" and isinstance(e, CardDealt) and e.position == request.n:
            return DrawResult(nonce=None, kind="salt", n=request.n, purpose=request.purpose,
                              salt=e.salt)  # fmt: skip
    return None


def redecide(
    table: Table, seat: int, action: str, idle_ms: int, recorded: Sequence[Event], now_ms: int = 0
) -> Mismatch | None:
    """None if `decide(table, seat, action)` yields exactly `recorded`, else where it does not.

    `idle_ms` is how long the table had waited and `now_ms` when the command was decided, from
    the recorded times (a timeout claim and the clocks look at them); the lag its client
    reported is the one recorded with the clocks. Draws come from `recorded`, round after
    round, as the service supplied them.
    """
    draws: list[DrawResult] = []
    lag_ms = next((e.lag_ms for e in recorded if isinstance(e, ClockCharged)), 0)
    try:
        decision = decide(table, seat, action, idle_ms=idle_ms, now_ms=now_ms, lag_ms=lag_ms)
        for _round in range(MAX_ROUNDS):
            if not isinstance(decision, NeedDraws):
                break
            for request in decision.requests:
                found = _recorded_draw(request, recorded)
                if found is None:
                    at = f" at nonce {request.nonce}" if request.nonce is not None else ""
                    what = f"{request.kind}({request.n}){at} ({request.purpose})"
                    return Mismatch(0, f"{action!r} by seat {seat} draws {what}, "
                                       "which the command does not record")  # fmt: skip
                draws.append(found)
            decision = decide(table, seat, action, draws, idle_ms, now_ms, lag_ms)
    except ValueError as exc:  # the table refuses the recorded draws (order, nonces)
        return Mismatch(0, f"{action!r} by seat {seat}: {exc}")
    if isinstance(decision, NeedDraws):
        return Mismatch(0, f"{action!r} by seat {seat} keeps asking for draws")
    if isinstance(decision, Rejection):
        clause = f" [{decision.clause}]" if decision.clause else ""
        return Mismatch(0, f"{action!r} by seat {seat} is refused by the rules: "
                           f"{decision.code}: {decision.reason}{clause}")  # fmt: skip
    for offset, (made, kept) in enumerate(zip(decision, recorded, strict=False)):
        if made != kept:
            return Mismatch(offset, f"{action!r} by seat {seat} yields {_name(made)} here, "
                                    f"not the recorded {_name(kept)}")  # fmt: skip
    if len(decision) != len(recorded):
        offset = min(len(decision), len(recorded))
        return Mismatch(offset, f"{action!r} by seat {seat} yields {len(decision)} events; "
                                f"the log records {len(recorded)}")  # fmt: skip
    return None


def _name(event: Event) -> str:
    return str(event.__struct_config__.tag)
