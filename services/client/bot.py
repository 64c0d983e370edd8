"""Bots: play one seat of a game through the services, folding the game locally.

A bot keeps its own copy of the table by folding the events it watches as its seat sees them
(the same pure rules the service runs), takes part in the fair-play protocol (a client seed
committed then revealed; a hidden setup committed then revealed), picks game actions with a
policy, and submits each at the version it saw: if the game moved on meanwhile, the service
answers with a conflict and the bot simply reads on.
"""

import asyncio
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from contracts.errors import ErrorCode
from domain import fairplay
from domain.core import Outcome, Ruleset
from domain.core import table as tables
from domain.core.ruleset import bot_policy_of, random_setup_of
from domain.registry import event_decoder, find_ruleset
from services.client.client import Client
from services.runtime.bus import TabulaError
from services.runtime.codec import created

Policy = Callable[[Ruleset[Any, Any], Any, int, random.Random], Any]
NON_MOVES = frozenset({"resign", "offer-draw", "accept-draw", "decline-draw"})
# Worth retrying with the same action: a service (randomness) is briefly away.
TRANSIENT = frozenset({ErrorCode.NO_DRAW, ErrorCode.UNAVAILABLE})
RETRIES = 8


def greedy_policy(rs: Ruleset[Any, Any], state: Any, seat: int, rng: random.Random) -> Any:
    """Demand the fifty-move count once (so games end), prefer captures, else any move; None
    when there is no move (the game's end is then in the events still to come). A ruleset
    with its own bot policy (Yavoch: setup and turns) is asked that."""
    own = bot_policy_of(rs)
    if own is not None:
        return own.bot_action(state, seat, rng.randrange)
    actions = [(a, rs.format_action(state, a)) for a in rs.legal_actions(state, seat)]
    moves = [(a, t) for a, t in actions if t not in NON_MOVES and t != "demand-mate"]
    if not moves:
        return None
    for a, text in actions:
        if text == "demand-mate":
            return a
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


class Seat:
    """What one seat keeps to itself: its client seed and its hidden setup until revealed."""

    def __init__(self, game_id: str, seat: int, rng: random.Random) -> None:
        self.client_seed = secrets.token_urlsafe(24)  # the protocol's default: 32 chars
        self.setup_nonce = secrets.token_hex(32)
        self.setup = b""
        self.game_id, self.seat, self.rng = game_id, seat, rng

    def fair_play_action(self, table: tables.Table) -> str:
        """The seed or setup step this seat owes now."""
        fair, screen = table.fair, table.screen
        if fair is not None and not fair.ready:
            if not fair.client_commitments[self.seat]:
                digest = fairplay.client_seed_commitment(self.game_id, self.seat,
                                                         self.client_seed)  # fmt: skip
                return f"seed-commit {digest}"
            return f"seed-reveal {self.client_seed}"
        assert screen is not None
        if not screen.commitments[self.seat]:
            maker = random_setup_of(table.ruleset)
            assert maker is not None, f"{table.ruleset.name} makes no random setup for bots"
            self.setup = maker.random_setup(table.game, self.seat, self.rng.randrange)
            digest = fairplay.setup_commitment(self.game_id, self.seat, self.setup_nonce,
                                               self.setup)  # fmt: skip
            return f"setup-commit {digest}"
        return f"setup-reveal {self.setup_nonce} {self.setup.decode()}"


async def play_seat(client: Client, game_id: str, seat: int, token: str, *,
                    policy: Policy = greedy_policy, seed: int | None = None,
                    on_event: Callable[[], None] | None = None) -> BotResult:  # fmt: skip
    rng = random.Random(seed)
    me = Seat(game_id, seat, rng)
    table: tables.Table | None = None
    moves = 0
    async for batch in client.watch_batches(game_id, seat=seat, token=token):
        for stored in batch:  # act once per run of events at hand, not once per event
            if table is None:
                first = created(stored)
                rs = find_ruleset(first.ruleset)
                dec = event_decoder(rs.name)
                table = tables.open_table(rs, game_id, first)
            else:
                table = tables.evolve(table, dec.decode(stored.body))
            if on_event:
                on_event()
        assert table is not None
        outcome = tables.outcome(table)
        if outcome is not None:
            if table.sealed:
                return BotResult(game_id, seat, outcome, moves, stored.version)
            continue
        if seat not in tables.to_act(table):
            continue
        if tables.phase(table) == "play":
            # The events of one append arrive one by one: after a mating move the mated side
            # may be "to act" until the GameEnded that follows it is read. Nothing to play:
            # read on.
            action = policy(rs, table.game, seat, rng)
            if action is None:
                continue
            text = rs.format_action(table.game, action)
        else:
            text = me.fair_play_action(table)
        for attempt in range(RETRIES):
            try:
                await client.act(game_id, seat, token, text, expected_version=stored.version)
                moves += 1
            except TabulaError as exc:
                if exc.code == ErrorCode.CONFLICT:  # newer events are on their way: read on
                    break
                if exc.code not in TRANSIENT or attempt == RETRIES - 1:
                    raise
                await asyncio.sleep(0.2 * 2**attempt)  # back off while a service restarts
                continue
            break
    raise RuntimeError(f"{game_id}: the event feed ended before the game did")
