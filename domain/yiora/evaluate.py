"""A cheap evaluation of a Yiora position for the search (issue 24): random playouts seldom
mate an Overlord (YI-7.1) before they are cut, so a playout cut short is scored by the men left
instead of as a draw.

Each game on the board scores its sides in [0, 1]: by its result once it has ended, else by a
logistic of the difference of the sides' men (the ruling gives no values: a Mage, which moves
along rings and columns and steps as the Overlord, YI-5.2, is counted above a Pawn, a diagonal
slider, YI-5.3). A seat scores the mean of its side's scores in the games it plays (YI-8.3: its
own game; YI-8.4: both, teammates alike), as the match is scored (seats.match_outcome).
`order(state, seat, actions)`: captures first, a Mage before a Pawn."""

import math
from collections.abc import Sequence
from typing import Final

from domain.yiora.geometry import MAGE, PAWN, kind_of, man
from domain.yiora.rules import Action, Game, Move, State
from domain.yiora.seats import seat_count, side_in

VALUE: Final = {MAGE: 3.0, PAWN: 2.0}  # the Overlord is never taken (YI-6.1)
SCALE: Final = 3.0  # lead at which the leader scores about 0.73 (1 / (1 + e^-1))
# A playout's plies before this evaluation scores it, at every level (domain.search.help): a
# few random plies and the evaluation say more than many random plies do, at a fraction of the
# cost. At 100 iterations, 8-ply playouts won all 8 games of Primary Yiora against
# 40-ply ones, at a quarter of the time a move.
PLAYOUT: Final = 8
# Per man code: its value to its side, positive for side 0 (White, Gold).
_WORTH: Final = [0.0] * 256
for _kind, _value in VALUE.items():
    _WORTH[man(0, _kind)], _WORTH[man(1, _kind)] = _value, -_value


def _side_zero(game: Game) -> float:
    """Side 0's score in one game: its result, else the logistic of its lead in men."""
    if game.result is not None:
        return float(game.result.scores[0])
    lead = sum(_WORTH[code] for code in game.pos.board)
    return 1.0 / (1.0 + math.exp(-lead / SCALE))


def evaluate(state: State) -> tuple[float, ...]:
    """Every seat's score (see the module); an ended match scores by its outcome."""
    if state.outcome is not None:
        return tuple(float(score) for score in state.outcome.scores)
    config = state.config
    zero = [_side_zero(game) for game in state.games]
    scores: list[float] = []
    for seat in range(seat_count(config)):
        mine = [zero[g] if side == 0 else 1.0 - zero[g] for g in range(len(state.games))
                if (side := side_in(config, seat, g)) is not None]  # fmt: skip
        scores.append(sum(mine) / len(mine))
    return tuple(scores)


def order(state: State, seat: int, actions: Sequence[Action]) -> Sequence[Action]:
    """Captures first, by the man taken (a Mage first); then the rest as given."""

    def victim(action: Action) -> float:
        if not isinstance(action, Move):
            return 0.0
        board = state.games[action.game].pos.board
        return VALUE.get(kind_of(board[action.to_square]), 0.0)

    return sorted(actions, key=victim, reverse=True)


__all__ = ["PLAYOUT", "evaluate", "order"]
