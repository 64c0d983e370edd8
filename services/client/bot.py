"""Bots: play one seat of a game through the services, folding the game locally.

A bot keeps its own copy of the state by folding the events it watches (the same pure rules the
service runs), picks an action with a policy, and submits it at the version it saw: if the game
moved on meanwhile, the service answers with a conflict and the bot simply reads on.
"""

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from contracts.errors import ErrorCode
from domain.core import Outcome, Ruleset
from domain.registry import find_ruleset
from services.client.client import Client, TabulaError
from services.runtime.codec import created, decoder

Policy = Callable[[Ruleset[Any, Any], Any, int, random.Random], Any]
NON_MOVES = frozenset({"resign", "offer-draw", "accept-draw", "decline-draw"})


def greedy_policy(rs: Ruleset[Any, Any], state: Any, seat: int, rng: random.Random) -> Any:
    """Demand the fifty-move count once (so games end), prefer captures, else any move."""
    actions = [(a, rs.format_action(state, a)) for a in rs.legal_actions(state, seat)]
    for a, text in actions:
        if text == "demand-mate":
            return a
    moves = [(a, t) for a, t in actions if t not in NON_MOVES]
    captures = [m for m in moves if "x" in m[1]]
    pool = captures if captures and rng.random() < 0.8 else moves
    return rng.choice(pool)[0]


@dataclass
class BotResult:
    game_id: str
    seat: int
    outcome: Outcome
    moves: int  # actions this bot had accepted
    version: int


async def play_seat(
    client: Client,
    game_id: str,
    seat: int,
    token: str,
    *,
    policy: Policy = greedy_policy,
    seed: int | None = None,
    on_event: Callable[[], None] | None = None,
) -> BotResult:
    rng = random.Random(seed)
    rs: Ruleset[Any, Any] | None = None
    state: Any = None
    moves = 0
    async for stored in client.watch(game_id):
        if rs is None:
            rs = find_ruleset(created(stored).ruleset)
            dec = decoder(rs.name)
            state = rs.start(created(stored))
        else:
            state = rs.evolve(state, dec.decode(stored.body))
        if on_event:
            on_event()
        outcome = rs.outcome(state)
        if outcome is not None:
            if stored.type == "GameSealed":
                return BotResult(game_id, seat, outcome, moves, stored.version)
            continue
        if seat not in rs.to_act(state):
            continue
        action = policy(rs, state, seat, rng)
        try:
            await client.act(
                game_id,
                seat,
                token,
                rs.format_action(state, action),
                expected_version=stored.version,
            )
            moves += 1
        except TabulaError as exc:
            if exc.code != ErrorCode.CONFLICT:  # a conflict: newer events are on their way
                raise
    raise RuntimeError(f"{game_id}: the event feed ended before the game did")
