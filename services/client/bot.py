"""Bots: play one seat of a game through the services, folding the game locally.

A bot keeps its own copy of the table by folding the events it watches as its seat sees them
(the same pure rules the service runs), takes part in the fair-play protocol (a client seed
committed then revealed; a hidden setup committed then revealed), picks game actions with a
policy, and submits each at the version it saw: if the game moved on meanwhile, the service
answers with a conflict and the bot simply reads on.

Each command's id comes from the seat's secret and the version it is sent at, so a retry after
a transient error (a service or the store away) is the same command, applied once; so is the
command of a bot resumed elsewhere from the same secret. A bot kept waiting past the game's
deadline claims the game (`claim-timeout`).
"""

import asyncio
import base64
import hashlib
import hmac
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NATSTimeout

from contracts.errors import ErrorCode
from domain import fairplay
from domain.core import Outcome, Ruleset
from domain.core import table as tables
from domain.core.ruleset import bot_policy_of, random_setup_of
from domain.registry import event_decoder, find_ruleset
from services.client.client import Client
from services.runtime import bus
from services.runtime.bus import TabulaError
from services.runtime.codec import created

Policy = Callable[[Ruleset[Any, Any], Any, int, random.Random], Any]
# The game action of `seat` at the table as it sees it, at version `version` (its text, None:
# nothing to do now): a policy that takes time (a search in another process).
Think = Callable[[tables.Table, int, int], Awaitable[str | None]]
NON_MOVES = frozenset({"resign", "offer-draw", "accept-draw", "decline-draw"})
# Worth retrying with the same command: a service (randomness, the rules, the store) is briefly
# away, or did not say whether it applied it.
TRANSIENT = frozenset({ErrorCode.NO_DRAW, ErrorCode.UNAVAILABLE, ErrorCode.UNKNOWN_OUTCOME})
CLAIM_MARGIN_S = 0.2  # past the deadline by the bot's clock, before it claims on the service's
CLAIM_TRIES = 5  # a claim the service finds early (its clock behind ours), tried a second apart


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


def by_policy(policy: Policy, rng: random.Random) -> Think:
    """A policy's choice, as `play_seat` asks for one."""

    async def think(table: tables.Table, seat: int, _version: int) -> str | None:
        action = policy(table.ruleset, table.game, seat, rng)
        return None if action is None else table.ruleset.format_action(table.game, action)

    return think


@dataclass
class BotResult:
    game_id: str
    seat: int
    outcome: Outcome
    moves: int  # actions this bot had accepted
    version: int


class Seat:
    """What one seat keeps to itself: its client seed and its hidden setup until revealed,
    and its command ids. All come from the seat's secret (random unless given), so whoever
    holds the secret (a gateway resuming the bot) recomputes exactly what the seat committed
    to, and sends the same commands."""

    def __init__(self, game_id: str, seat: int, secret: bytes | None = None) -> None:
        self.game_id, self.seat = game_id, seat
        self.secret = secret if secret is not None else secrets.token_bytes(32)
        # 24 bytes, base64url: the protocol's default form of a client seed (32 characters)
        self.client_seed = base64.urlsafe_b64encode(self._derive("client-seed")[:24]).decode()
        self.setup_nonce = self._derive("setup-nonce").hex()
        self.setup = b""

    def _derive(self, purpose: str) -> bytes:
        message = f"tabula-bot:{purpose}:{self.game_id}:{self.seat}".encode()
        return hmac.new(self.secret, message, hashlib.sha256).digest()

    def command_id(self, version: int, kind: str = "act") -> str:
        """The id of the seat's command at `version`: one command, however often it is sent."""
        return f"bot{self.seat}-{kind}-{version}-{self._derive(f'{kind}:{version}').hex()[:16]}"

    def move_seed(self, version: int) -> int:
        """The seed of the seat's game action at `version`, as unguessable as the secret and
        the same wherever the seat is resumed."""
        return int.from_bytes(self._derive(f"move:{version}")[:8], "big")

    def make_setup(self, table: tables.Table) -> bytes:
        """The seat's hidden setup: drawn from the secret, so the same on every computation."""
        maker = random_setup_of(table.ruleset)
        assert maker is not None, f"{table.ruleset.name} makes no random setup for bots"
        rng = random.Random(self._derive("setup"))  # seeded by a secret: unguessable
        return maker.random_setup(table.game, self.seat, rng.randrange)

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
        self.setup = self.setup or self.make_setup(table)
        if not screen.commitments[self.seat]:
            digest = fairplay.setup_commitment(self.game_id, self.seat, self.setup_nonce,
                                               self.setup)  # fmt: skip
            return f"setup-commit {digest}"
        return f"setup-reveal {self.setup_nonce} {self.setup.decode()}"


async def send(client: Client, me: Seat, token: str, text: str, version: int,
               kind: str = "act") -> bool:  # fmt: skip
    """Send the seat's command at `version`: True once applied (a retry's duplicate receipt
    included), False on a conflict (the game moved on: read on). A transient error is retried
    with the same command id until the client's retry deadline, counted from the first try;
    past it the error is raised (a bot resumed later sends the same command again)."""
    command_id = me.command_id(version, kind)
    give_up = time.monotonic() + client.retry_deadline
    attempt = 0
    while True:
        try:
            await client.act(me.game_id, me.seat, token, text, expected_version=version,
                             command_id=command_id)  # fmt: skip
            return True
        except TabulaError as exc:
            if exc.code == ErrorCode.CONFLICT:
                return False
            if exc.code not in TRANSIENT:
                raise
            error: Exception = exc
        except (NATSTimeout, NoRespondersError) as exc:
            error = exc
        left = give_up - time.monotonic()
        if left <= 0:
            raise error
        await asyncio.sleep(min(bus.backoff(attempt, 0.2), left))
        attempt += 1


def deadline_ms(table: tables.Table) -> int:
    """How long the seats to act have for their step: the time per move in play, the reveal
    deadline for a seed or setup step (0: no deadline)."""
    if tables.phase(table) == "play":
        return table.created.move_deadline_ms
    return table.created.reveal_deadline_ms


async def claim_when_due(client: Client, me: Seat, token: str, version: int,
                         due_ms: int) -> None:  # fmt: skip
    """Claim the game once the seats to act are past `due_ms` (ms since the epoch, the time
    of event `version` on the service's clock plus the deadline). Cancelled when the game
    moves on; a claim the service finds early (clocks differ) is tried again a second later.
    Any other refusal (the game ended meanwhile) leaves it to the feed to tell."""
    for _ in range(CLAIM_TRIES):
        await asyncio.sleep(max(0.0, due_ms / 1000 - time.time()) + CLAIM_MARGIN_S)
        try:
            await send(client, me, token, "claim-timeout", version, kind="claim")
            return
        except TabulaError as exc:
            if exc.code in TRANSIENT:  # an outage past the deadline: the bot stops, resumable
                raise
            if exc.code != ErrorCode.ILLEGAL_ACTION:
                return
        due_ms = int(time.time() * 1000) + 1000


async def play_seat(client: Client, game_id: str, seat: int, token: str, *,
                    policy: Policy = greedy_policy, seed: int | None = None,
                    on_event: Callable[[], None] | None = None,
                    secret: bytes | None = None,
                    think: Think | None = None) -> BotResult:  # fmt: skip
    """Play the seat to the game's end (sealed). `secret`: the seat's own (see Seat), for a
    bot that may be resumed; `seed`: the policy's choices; `think`, when given, chooses the
    game actions instead of `policy`."""
    think = think or by_policy(policy, random.Random(seed))
    me = Seat(game_id, seat, secret)
    table: tables.Table | None = None
    moves = 0
    claim: asyncio.Task[None] | None = None
    try:
        async for batch in client.watch_batches(game_id, seat=seat, token=token):
            if claim is not None:  # the game moved on: the wait is over
                claim.cancel()
                if claim.done() and not claim.cancelled() and claim.exception():
                    raise claim.exception()  # type: ignore[misc]
                claim = None
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
            waiting_for = tables.to_act(table)
            if seat not in waiting_for:
                if waiting_for and (wait := deadline_ms(table)):
                    claim = asyncio.create_task(claim_when_due(client, me, token, stored.version,
                                                               stored.time_ms + wait))  # fmt: skip
                continue
            if tables.phase(table) == "play":
                # The events of one append arrive one by one: after a mating move the mated
                # side may be "to act" until the GameEnded that follows it is read. Nothing to
                # play: read on.
                found = await think(table, seat, stored.version)
                if found is None:
                    continue
                text = found
            else:
                text = me.fair_play_action(table)
            if await send(client, me, token, text, stored.version):
                moves += 1
    finally:
        if claim is not None:
            claim.cancel()
    raise RuntimeError(f"{game_id}: the event feed ended before the game did")
