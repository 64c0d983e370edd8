"""Replay: folding a game's events gives the live state (seeded random games)."""

import random

from contracts.events import Event
from domain.chess3d import CHESS3D, Command, Move
from domain.core import fold


def test_fold_equals_live_state_in_random_games() -> None:
    """evolve is a faithful, deterministic replay of decide's events, including draw offers,
    demands and the end of the game."""
    # C3-4.3, C3-7.6.2, C3-7.7
    rng = random.Random(2024)
    for game in range(6):
        variant = ("", "queen_directions=18", "fifty_move_mode=automatic")[game % 3]
        created = CHESS3D.create(variant)
        state = CHESS3D.start(created)
        log: list[Event] = [created]
        for _ in range(150):
            if CHESS3D.outcome(state):
                break
            seat = rng.choice((0, 1, state.pos.turn, state.pos.turn))
            actions = CHESS3D.legal_actions(state, seat)
            moves = [a for a in actions if isinstance(a, Move)]
            commands = [a for a in actions if isinstance(a, Command) and a is not Command.RESIGN]
            if commands and rng.random() < 0.1:
                action: Move | Command = rng.choice(commands)
            elif moves:
                action = rng.choice(moves)
            else:
                continue
            events = CHESS3D.decide(state, seat, action)
            assert isinstance(events, tuple), events
            for event in events:
                state = CHESS3D.evolve(state, event)
            log.extend(events)
        replayed = fold(CHESS3D, log)
        assert replayed == state
        assert CHESS3D.position(replayed) == CHESS3D.position(state)
