"""The bots' policy (docs/rules/yavoch.md, "Bots"): random legal actions, setup included, that
do not throw away the Command ship's last unit.
"""

from collections.abc import Callable

from domain.yavoch.actions import ChooseLevels, YAction, parse, placement_text
from domain.yavoch.field import POSITIONS, Position
from domain.yavoch.legal import legal_actions
from domain.yavoch.notation import Attack, EndTurn, Kind, Move, Shot, Transfer
from domain.yavoch.state import State, commands
from domain.yavoch.turns import to_act


def random_placement(state: State, seat: int, choose: Callable[[int], int]) -> str:
    """A legal `place ...` for `seat` (Y-3.2), its choices made by `choose(n)` in [0, n)."""
    levels = state.home(seat)
    free = [p for p in POSITIONS if p.level in levels]
    pieces = []
    for kind, n in state.cfg.fleet.counts().items():
        for _ in range(n):
            pieces.append((kind, free.pop(choose(len(free)))))
    return "place " + placement_text(pieces)


def bot_action(state: State, seat: int, choose: Callable[[int], int]) -> YAction | None:
    """A random legal action for bots, its choices made by `choose(n)` in [0, n); None when
    `seat` has nothing to do. Random but not suicidal: it does not spend its Command ship's
    last unit (a shot, a mine, a transfer), and ends no turn with a dead
    Command ship it could still feed (Y-8.3)."""
    if state.phase == "levels":
        return ChooseLevels(((1, 2), (4, 5))[choose(2)]) if seat == 0 else None
    if state.phase == "place":
        if seat not in to_act(state):
            return None
        return parse(random_placement(state, seat, choose))  # type: ignore[return-value]
    actions = [a for a in legal_actions(state, seat) if not isinstance(a, str)]
    board = state.board

    def last_unit(p: Position) -> bool:
        ship = board.ships.get(p)
        return ship is not None and ship.kind is Kind.COMMAND and ship.energy <= 1

    def prudent(a: YAction) -> bool:
        if isinstance(a, Shot):  # the last unit on the enemy Command ship only draws (Y-8.2)
            return not last_unit(a.origin)
        if isinstance(a, Move | Attack) and a.mine:
            return not last_unit(a.origin)
        if isinstance(a, Transfer):
            return not last_unit(a.origin)
        if isinstance(a, EndTurn):
            starving = any(s.energy == 0 for _, s in commands(board, seat))
            return not (starving and any(isinstance(x, Transfer) for x in actions))
        return True

    pool = [a for a in actions if prudent(a)] or actions
    return pool[choose(len(pool))] if pool else None
