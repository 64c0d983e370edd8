"""Play games through `domain.core.table` locally: no services, the randomness service
simulated with `domain.fairplay` and a fixed server seed.

`play_locally` plays one whole race game and returns its log; `LocalGame` is the step-by-step
driver it is built on, for tests that need to stop in the middle of a game.
"""

import random
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from contracts.events import Event, SeedCommitted, SeedRevealed
from domain import fairplay
from domain.core import Decision, DrawResult, NeedDraws, Rejection, Ruleset
from domain.core import table as tables
from domain.core.table import fulfil
from tests.rulesets.race import RACE

_SEED_ALPHABET = string.ascii_letters + string.digits + "_-"


def client_seed(rng: random.Random) -> str:
    """A valid client seed (fair-play 1.2) from `rng`."""
    return "".join(rng.choice(_SEED_ALPHABET) for _ in range(24))


def setup_bytes(setup: Any) -> bytes:
    """A setup as the client encodes it (fair-play 3)."""
    return msgspec.json.encode(setup, order="sorted")


@dataclass
class LocalGame:
    """One game at a table, driven step by step; `log` is every event appended so far."""

    table: tables.Table
    server_seed: str
    log: list[Event] = field(default_factory=list)

    @classmethod
    def create(
        cls, server_seed: str, game_id: str, ruleset: Ruleset[Any, Any] = RACE, variant: str = ""
    ) -> "LocalGame":
        """GameCreated, then (for a game with randomness) the server's SeedCommitted."""
        created = msgspec.structs.replace(ruleset.create(variant), game_id=game_id)
        game = cls(tables.open_table(ruleset, game_id, created), server_seed, [created])
        if created.randomness:
            game.apply([SeedCommitted(commitment=fairplay.seed_commitment(server_seed))])
        return game

    @property
    def game_id(self) -> str:
        return self.table.game_id

    def apply(self, events: Iterable[Event]) -> None:
        for event in events:
            self.table = tables.evolve(self.table, event)
            self.log.append(event)

    def act(self, seat: int, text: str) -> tuple[Event, ...] | Rejection:
        """Decide `text` for `seat`, answering any NeedDraws as the randomness service would,
        and append the events; returns them, or the rejection (nothing appended)."""
        decision: Decision = tables.decide(self.table, seat, text)
        draws: list[DrawResult] = []
        while isinstance(decision, NeedDraws):
            assert self.table.fair is not None
            draws += fulfil(decision.requests, self.server_seed, self.game_id, self.table.fair.mix)
            decision = tables.decide(self.table, seat, text, draws)
        if isinstance(decision, Rejection):
            return decision
        self.apply(decision)
        return decision

    def must(self, seat: int, text: str) -> tuple[Event, ...]:
        """`act`, expecting acceptance."""
        result = self.act(seat, text)
        assert not isinstance(result, Rejection), f"{text!r} by seat {seat}: {result}"
        return result

    def seed(self, seeds: Sequence[str]) -> None:
        """Every seat commits to its client seed, then every seat reveals it (fair-play 1.2-3)."""
        for seat, s in enumerate(seeds):
            self.must(seat, f"seed-commit {fairplay.client_seed_commitment(self.game_id, seat, s)}")
        for seat, s in enumerate(seeds):
            self.must(seat, f"seed-reveal {s}")

    def commit_setup(self, seat: int, nonce: str, setup: bytes) -> tuple[Event, ...]:
        commitment = fairplay.setup_commitment(self.game_id, seat, nonce, setup)
        return self.must(seat, f"setup-commit {commitment}")

    def reveal_setup(self, seat: int, nonce: str, setup: bytes) -> tuple[Event, ...]:
        return self.must(seat, f"setup-reveal {nonce} {setup.decode()}")

    def set_up(self, setups: Sequence[bytes], nonces: Sequence[str]) -> None:
        """Every seat commits to its setup, then every seat reveals it (fair-play 3)."""
        for seat, (setup, nonce) in enumerate(zip(setups, nonces, strict=True)):
            self.commit_setup(seat, nonce, setup)
        for seat, (setup, nonce) in enumerate(zip(setups, nonces, strict=True)):
            self.reveal_setup(seat, nonce, setup)

    def reveal_server_seed(self) -> None:
        """What the service appends once the game has ended (fair-play 1.6)."""
        assert tables.outcome(self.table) is not None, "the seed is revealed after the game"
        self.apply([SeedRevealed(server_seed=self.server_seed)])


def play_game(seed: int, server_seed: str, game_id: str, resign_chance: float = 0.02) -> LocalGame:
    """`play_locally`, returning the driver (its live table as well as its log)."""
    rng = random.Random(seed)
    game = LocalGame.create(server_seed, game_id)
    game.seed([client_seed(rng), client_seed(rng)])
    boosts = [setup_bytes({"boost": rng.randint(0, 3)}) for _ in range(2)]
    game.set_up(boosts, [rng.randbytes(32).hex() for _ in range(2)])
    rs = game.table.ruleset
    while tables.outcome(game.table) is None:
        (seat,) = tables.to_act(game.table)
        if rng.random() < resign_chance:  # either seat may resign, even out of turn
            game.must(rng.randrange(2), "resign")
            break
        moves = [a for a in rs.legal_actions(game.table.game, seat) if a.verb != "resign"]
        game.must(seat, rs.format_action(game.table.game, rng.choice(moves)))
    game.reveal_server_seed()
    return game


def play_locally(seed: int, server_seed: str, game_id: str) -> list[Event]:
    """The whole log of one race game played through the table with random legal actions.

    `seed` seeds Python's `random` for the client seeds, the setups (random boosts 0-3) and
    the actions (roll / draw / play, and a 2 % chance per turn that a random seat resigns);
    `server_seed` (64 hex) is the randomness service's seed and `game_id` the game's id. The
    log is GameCreated (with game_id), SeedCommitted, the client seeds' commits and reveals,
    the setups' commits and reveals, the play up to GameEnded, then SeedRevealed (not sealed:
    GameSealed needs the stored bytes' chain). Deterministic in its arguments.
    """
    return play_game(seed, server_seed, game_id).log


__all__ = ["LocalGame", "client_seed", "fulfil", "play_game", "play_locally", "setup_bytes"]
