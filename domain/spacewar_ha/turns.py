"""Turns (HA-4) and the end of the game (HA-8): passing the turn, the Base resupply at the start
of a turn (HA-5.60, HA-R27), the win by Bases, the double pass and the turn limit."""

from typing import NamedTuple

from domain.core.outcome import Outcome, draw, win
from domain.spacewar_ha.notation import PASS, RELEASE, Action
from domain.spacewar_ha.pieces import MEDIC, STARTING
from domain.spacewar_ha.position import Position


class Resupply(NamedTuple):
    medic: int  # the Medic's square, which is its Base's
    repair: int
    supply: int


def ends_turn(action: Action) -> bool:
    """Every action ends the turn but a release, a free declaration (HA-R24)."""
    return action.kind != RELEASE


def next_turn(pos: Position, action: Action) -> Position:
    """After the side to act's action (HA-4.1): the other side to act, the pass noted, this
    turn's releases forgotten (HA-R28 lasts the turn)."""
    number = pos.number + 1 if pos.turn == 1 else pos.number
    return pos._replace(turn=1 - pos.turn, number=number, passed=action.kind == PASS,
                        released=())  # fmt: skip


def resupplies(pos: Position) -> list[Resupply]:
    """HA-5.60: what each Medic of the side to act standing on one of its own uncaptured Bases
    takes: up to its starting Repair and Supply, as far as the Base's pools last."""
    out = []
    start = STARTING[MEDIC]
    for piece in pos.pieces:
        if piece.owner != pos.turn or piece.kind != MEDIC:
            continue
        base = pos.base_at(piece.square)
        if base is None or base.owner != pos.turn or base.captured:
            continue
        repair = max(0, min(start.repair - piece.repair, base.repair))
        supply = max(0, min(start.supply - piece.supply, base.supply))
        if repair or supply:
            out.append(Resupply(piece.square, repair, supply))
    return out


def resupply(pos: Position, taken: Resupply) -> Position:
    """The position after a Medic took `taken` from its Base."""
    pieces = tuple(p._replace(repair=p.repair + taken.repair, supply=p.supply + taken.supply)
                   if p.square == taken.medic else p for p in pos.pieces)  # fmt: skip
    bases = tuple(x._replace(repair=x.repair - taken.repair, supply=x.supply - taken.supply)
                  if x.square == taken.medic else x for x in pos.bases)  # fmt: skip
    return pos._replace(pieces=pieces, bases=bases)


def bases_lost(pos: Position, side: int) -> bool:
    """HA-8.1: all of `side`'s Bases are captured (a side without Bases has none to lose)."""
    own = [x for x in pos.bases if x.owner == side]
    return bool(own) and all(x.captured for x in own)


def game_end(pos: Position, turn_limit: int, passed_twice: bool) -> Outcome | None:
    """The end after an action, if any: the win by Bases (HA-8.1, HA-R18), the double pass
    (HA-8.2, HA-R20), the turn limit (HA-8.4)."""
    for side in (0, 1):
        if bases_lost(pos, side):
            return win(1 - side, "bases")
    if passed_twice:
        return draw("double pass")
    if turn_limit and min(pos.turns_done(0), pos.turns_done(1)) >= turn_limit:
        return draw("turn limit")
    return None
