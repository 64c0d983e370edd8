"""A cheap evaluation of a Spacewar position for the search (issue 24): random play rarely
destroys both Motherships of a side (SW-8.1) before a playout is cut, so a playout cut short is
scored by the fleets left instead of as a draw.

`evaluate(state)`: White's and Black's scores in [0, 1], a logistic of the difference of the
fleets' values, the two summing to 1. The values are the chess men each piece stands for
(SW-2.1, SW-R3: Tractor = queen, Gunboat = rook, Pressor = bishop, Immobilizer = knight,
Missile = pawn); a Mothership (the king) is worth more than any other ship: losing both loses
the game.

`order(state, seat, actions)`: attacks first, by what they gain (a ram that destroys the
rammer too gains the difference, SW-5.20), then a spread of the other actions, at most `QUIET`
of them, the end of the movement phase, a pass and the replies to an attack always among them;
a ram that costs more than it takes only when nothing else is left.
Spacewar's levels search few iterations (levels.COSTLY) and a movement phase offers many dozen
actions: without the cut, a level-3 search would not even try most of them once."""

import math
from collections.abc import Sequence
from typing import Final

from domain.spacewar.actions import (
    Action,
    Beam,
    Command,
    Field,
    Launch,
    MoveShip,
    PlaceReplacement,
)
from domain.spacewar.board import BLACK, DISTANCE, FILES, WHITE
from domain.spacewar.pieces import (
    GUNBOAT,
    IMMOBILIZER,
    MISSILE,
    MOTHERSHIP,
    PRESSOR,
    TRACTOR,
)
from domain.spacewar.state import State

VALUE: Final = {MOTHERSHIP: 12.0, TRACTOR: 9.0, GUNBOAT: 5.0, PRESSOR: 3.0, IMMOBILIZER: 3.0,
                MISSILE: 1.0}  # fmt: skip
QUIET: Final = 10  # actions kept besides the attacks
_MOVES: Final = (MoveShip, Field, PlaceReplacement)  # the actions `order` spreads
SCALE: Final = 4.0  # fleet lead at which the leader scores about 0.73 (1 / (1 + e^-1))
# What a ship at an enemy Mothership's side adds to its fleet's value, falling to nothing at the
# board's width: the game is won by destroying both Motherships (SW-8.1), and a search that
# counts material alone keeps its ships home and draws at the turn limit.
PRESSURE: Final = 0.5
# A playout's plies before this evaluation scores it, at every level (domain.search.help).
# Against random play, level 3 (12 iterations) scored 85% with 8-ply playouts and this
# evaluation, against 62% (16 games) with material alone, and 65% with 40-ply ones (90% with
# material alone): the pressure is a plan that random plies undo. 10 games each.
PLAYOUT: Final = 8


def evaluate(state: State) -> tuple[float, float]:
    """White's and Black's scores (see the module); an ended game scores by its outcome."""
    if state.outcome is not None:
        return (float(state.outcome.scores[WHITE]), float(state.outcome.scores[BLACK]))
    lead = 0.0
    ships: list[tuple[int, int]] = []
    motherships: tuple[list[int], list[int]] = ([], [])
    for sq, piece in enumerate(state.board):
        if piece is None:
            continue
        lead += VALUE[piece.kind] if piece.owner == WHITE else -VALUE[piece.kind]
        if piece.kind == MOTHERSHIP:
            motherships[piece.owner].append(sq)
        elif piece.kind != MISSILE:
            ships.append((sq, piece.owner))
    for sq, owner in ships:
        targets = motherships[1 - owner]
        if targets:
            near = min(DISTANCE[sq][t] for t in targets)
            press = PRESSURE * max(0, FILES - near) / FILES
            lead += press if owner == WHITE else -press
    white = 1.0 / (1.0 + math.exp(-lead / SCALE))
    return (white, 1.0 - white)


def _gain(state: State, seat: int, action: Action) -> float:
    """What an attack takes from the other side, less what it costs (0: no attack)."""
    board = state.board
    if isinstance(action, MoveShip):
        mover, victim = board[action.path[0]], board[action.path[-1]]
        if mover is None or victim is None or victim.owner == seat:
            return 0.0
        survives = (mover.kind == GUNBOAT and victim.kind != GUNBOAT) or (
            mover.kind == MOTHERSHIP and victim.kind not in (MOTHERSHIP, MISSILE))  # fmt: skip
        return VALUE[victim.kind] - (0.0 if survives else VALUE[mover.kind])
    if isinstance(action, Beam) or (isinstance(action, Field) and action.destination is None):
        target = board[action.target]  # a field moving it off the board destroys it (SW-5.44)
        return 0.0 if target is None or target.owner == seat else VALUE[target.kind]
    return VALUE[MISSILE] if isinstance(action, Launch) else 0.0


def order(state: State, seat: int, actions: Sequence[Action]) -> Sequence[Action]:
    """Attacks first, by their gain; then ending, passing and the replies to an attack; then at
    most QUIET - those of the other moves, spread over them (every k-th, so that every ship
    keeps some). A ram that costs more than it takes is left out while anything else is left;
    agreements always: the search never plays them."""
    gains = [(_gain(state, seat, a), a) for a in actions if not isinstance(a, Command)]
    attacks = [a for gain, a in sorted(gains, key=lambda ga: -ga[0]) if gain > 0]
    moves = [a for gain, a in gains if gain == 0 and isinstance(a, _MOVES)]
    kept = [a for gain, a in gains if gain == 0 and not isinstance(a, _MOVES)]
    room = max(0, QUIET - len(kept))
    spread = moves[:: max(1, -(-len(moves) // room))][:room] if room else []
    return [*attacks, *kept, *spread] or [a for gain, a in gains if gain < 0]


__all__ = ["PLAYOUT", "evaluate", "order"]
