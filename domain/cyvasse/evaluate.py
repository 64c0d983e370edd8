"""A cheap evaluation of a Cyvasse position for the search (issue 24): random playouts seldom
take a King (CY-7.3) before they are cut, so a playout cut short is scored by the men left
instead of as a draw.

`evaluate(state)`: White's and Black's scores in [0, 1], a logistic of the difference of the
sides' values (CY-2.1's values, used in every version: version A has no values of its own, but
a Dragon is worth more than a Rabble there too), a Dragon in reserve (CY-6.4.2) counted; the
two sum to 1. `order(state, seat, actions)`: captures first, the most valuable victim first."""

import math
from collections.abc import Sequence
from typing import Final

from domain.cyvasse.board import BLACK, DRAGON, KIND, KING, MOUNTAIN, VALUE, WHITE
from domain.cyvasse.move import CAPTURE, SHOOT, Move
from domain.cyvasse.rules import Action, State

SCALE: Final = 4.0  # value lead at which the leader scores about 0.73 (1 / (1 + e^-1))
# A playout's plies before this evaluation scores it, at every level (domain.search.help): a
# few random plies and the evaluation say more than many random plies do, at a fraction of the
# cost. At 100 iterations, 8-ply playouts scored 90% against 40-ply ones in version A
# and 62% in C, over 10 and 8 games, at a quarter of the time a move.
PLAYOUT: Final = 8
# Per man (colour | kind): its value to its side, positive for White; Mountains and Kings none
# (a King is never counted: its capture ends the game, CY-7.3).
_WORTH: Final = [0.0] * 256
for _kind in range(1, MOUNTAIN):
    if _kind != KING:
        _WORTH[WHITE | _kind] = float(VALUE[_kind])
        _WORTH[BLACK | _kind] = -float(VALUE[_kind])


def evaluate(state: State) -> tuple[float, float]:
    """White's and Black's scores (see the module); an ended game scores by its outcome."""
    if state.outcome is not None:
        return (float(state.outcome.scores[0]), float(state.outcome.scores[1]))
    pos = state.pos
    lead = sum(_WORTH[man] for man in pos.board)
    lead += VALUE[DRAGON] * ((pos.reserve & 1) - (pos.reserve >> 1 & 1))
    white = 1.0 / (1.0 + math.exp(-lead / SCALE))
    return (white, 1.0 - white)


def order(state: State, seat: int, actions: Sequence[Action]) -> Sequence[Action]:
    """Captures first (a King above all), by the victim's value; then the rest as given."""
    board = state.pos.board

    def victim(action: Action) -> int:
        if not isinstance(action, Move) or action.mode not in (CAPTURE, SHOOT):
            return 0
        kind = board[action.to_square] & KIND
        return 100 if kind == KING else VALUE[kind]

    return sorted(actions, key=victim, reverse=True)


__all__ = ["PLAYOUT", "evaluate", "order"]
