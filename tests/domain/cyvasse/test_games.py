"""Random bot games through the table: hidden setup by commitments, random legal actions,
replay equal to the live table, every game ending by the rules or at the ply cap."""

import random
import time

import pytest

from contracts.events import GameEnded
from domain.core import Decided
from domain.core import table as tables
from domain.cyvasse import CYVASSE, Command, Move
from tests.rulesets.driver import LocalGame

PLY_CAP = 400
ENDINGS = {"checkmate", "stalemate", "insufficient_material", "king_captured", "no_moves",
           "repetition", "no_progress", "resignation", "agreement"}  # fmt: skip


def _nonce(rng: random.Random) -> str:
    return f"{rng.getrandbits(256):064x}"


def play_random_game(variant: str, seed: int, timings: list[float] | None = None) -> LocalGame:
    """One game: random setups for both seats, then random legal actions (rarely a draw offer
    or its answer), up to PLY_CAP plies."""
    rng = random.Random(seed)
    game = LocalGame.create("0" * 64, f"cy-{seed}", CYVASSE, variant)
    nonces = [_nonce(rng), _nonce(rng)]
    setups = [CYVASSE.random_setup(game.table.game, seat, rng.randrange) for seat in (0, 1)]
    for seat in (0, 1):
        game.commit_setup(seat, nonces[seat], setups[seat])
    for seat in (1, 0):
        game.reveal_setup(seat, nonces[seat], setups[seat])
    for _ in range(PLY_CAP):
        acting = tables.to_act(game.table)
        if not acting:
            break
        seat = next(iter(acting))
        state = game.table.game
        actions = CYVASSE.legal_actions(state, seat)
        moves = [a for a in actions if isinstance(a, Move)]
        answers = [a for a in actions if a in (Command.ACCEPT_DRAW, Command.DECLINE_DRAW)]
        if answers and rng.random() < 0.5:
            action: Move | Command = Command.DECLINE_DRAW
        elif Command.OFFER_DRAW in actions and rng.random() < 0.01:
            action = Command.OFFER_DRAW
        else:
            action = rng.choice(moves)
        text = CYVASSE.format_action(state, action)
        start = time.perf_counter()
        decision = CYVASSE.decide(state, seat, action)
        assert isinstance(decision, Decided), (text, decision)
        state = decision.state  # as the service does; the table below folds the events
        if timings is not None:
            timings.append(time.perf_counter() - start)
        events = game.must(seat, text)
        assert events == decision
        assert game.table.game == state
    return game


@pytest.mark.parametrize(
    "variant",
    [
        "A",
        "B",
        "B+square10",
        "A+dragon-reserve+dragonfyre+super-trebuchet",
        "B+dragon-reserve+dragonfyre+super-trebuchet",
        "C",
        "C+square10",
        "C+fortress-promotion+fortress-storming+wildfyre",
        (
            "C+dragon-reserve+dragonfyre+fortress-promotion+fortress-storming+super-trebuchet"
            "+wildfyre+fortress_bonus_mode=cap"
        ),
        "A+hex91",
        "B+hex91",
        "C+hex91",
        "A+hex91+dragon-reserve+dragonfyre+sea-movement+super-trebuchet",
        "B+hex91+dragon-reserve+dragonfyre+sea-movement+super-trebuchet",
        (
            "C+hex91+dragon-reserve+dragonfyre+fortress-promotion+fortress-storming+sea-movement"
            "+super-trebuchet+wildfyre"
        ),
    ],
)
def test_random_games_replay_and_end(variant: str) -> None:
    """Random games through the table: both setups legal and placed, every action accepted,
    replay from the log equals the live table, and a game either ends by a rule of CY-7 or
    reaches the ply cap."""
    # CY-3.1, CY-4, CY-7, CY-R38; version C: CY-3.6, CY-R36, CY-6.3, CY-6.4.5-6.4.7;
    # hex91: CY-1.2, CY-5.1.2, CY-6.5, CY-R47..R53
    for seed in range(3):
        game = play_random_game(variant, seed)
        replayed = tables.fold(CYVASSE, game.game_id, game.log)
        assert replayed.game == game.table.game
        assert CYVASSE.position(replayed.game) == CYVASSE.position(game.table.game)
        outcome = tables.outcome(game.table)
        if outcome is not None:
            assert outcome.reason in ENDINGS
            assert isinstance(game.log[-1], GameEnded)
