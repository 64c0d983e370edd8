"""Legal actions: every action a seat may take now, as `decide` would accept it (setup
placements excepted: bot.py's `random_placement` makes one).
"""

from collections.abc import Sequence

from domain.core import Rejection, agreement
from domain.yavoch.actions import Armed, ChooseLevels, Discard, YAction
from domain.yavoch.board import capacity
from domain.yavoch.field import LINE_DIRECTIONS, adjacent_positions
from domain.yavoch.full import cards_for, weapon_uses
from domain.yavoch.movement import Landing, gate_destinations, ship_moves
from domain.yavoch.notation import (
    Attack,
    Detonation,
    EndTurn,
    Kind,
    Move,
    NoResponse,
    Piece,
    Response,
    Shot,
    Transfer,
)
from domain.yavoch.state import State
from domain.yavoch.turns import move_remains, to_act


def legal_actions(state: State, seat: int) -> Sequence[YAction]:
    """Every legal action of `seat` now (setup placements excepted: see
    `random_placement`), platform verbs last."""
    phase = state.phase
    out: list[YAction] = []
    if phase == "ended" or (seat not in to_act(state) and phase != "play"):
        return out
    if phase == "levels":
        return [ChooseLevels((1, 2)), ChooseLevels((4, 5)), "resign"]
    if phase == "place":
        return ["resign"]
    if phase == "respond":
        assert state.window is not None
        out.append(NoResponse())
        for ship in state.window.ships:
            kind = state.board.ships[ship].kind
            for code in ("DF", "SD") if state.window.battle_lost else ("DF",):
                cards = cards_for(state, seat, code, kind, ())
                if not isinstance(cards, Rejection):
                    out.append(
                        Armed(Response(code, Piece(kind), ship), tuple(h.position for h in cards))
                    )
        return out
    if phase == "discard":
        if seat == state.mover:
            out.extend(Discard(h.position) for h in state.cards.hand(seat))
        return out
    if seat == state.mover:
        out.extend(_turn_actions(state, seat))
    out.extend(
        v
        for v in ("resign", "offer-draw", "accept-draw", "decline-draw")
        if not isinstance(
            agreement.decide(v, seat, state.agreement, "", may_offer=seat == state.mover),
            Rejection,
        )
    )
    return out


def _turn_actions(state: State, seat: int) -> list[YAction]:
    board, cfg, turn = state.board, state.cfg, state.turn
    out: list[YAction] = []
    owner = seat + 1
    if not turn.fired:
        for p, ship in board.owned(owner):
            if ship.kind is Kind.COMMAND and ship.energy >= 1:
                for d in LINE_DIRECTIONS:
                    q = board.first_occupant(p, d)  # Y-5.63: a ship or a mine, not a gate
                    if q is not None and (q in board.ships or q in board.mines):
                        shot = Shot(Piece(Kind.COMMAND), p, q)
                        if turn.moved or move_remains(state, seat, shot):
                            out.append(shot)
    if turn.moved:
        for p, ship in board.owned(owner):
            if ship.energy < 1 or p in turn.gave:
                continue
            for q in adjacent_positions(p):
                other = board.ships.get(q)
                if (
                    other is not None
                    and other.owner == owner
                    and q not in turn.received
                    and other.energy < capacity(cfg, other.kind)
                ):
                    out.append(Transfer(p, q))
        out.append(EndTurn())
        return out
    for p, ship in board.owned(owner):
        if ship.kind is Kind.TRYCH:
            out.append(Detonation(Piece(Kind.TRYCH), p))
        layer = ship.kind is not Kind.TRYCH and ship.energy >= 1 and p not in board.gates
        for m in ship_moves(board.occupancy, p, cfg.neornith_intermediate_on_field):
            battle = m.landing is Landing.BATTLE or (
                m.landing is Landing.GATE_CLASH and board.ships[m.destination].kind is Kind.COMMAND
            )
            for mine in (False, True) if layer else (False,):
                if battle:
                    out.append(Attack(Piece(ship.kind), p, m.destination, None, mine))
                else:
                    out.append(Move(Piece(ship.kind), p, m.destination, m.exit, mine))
    for p, g in board.gates.items():
        if g.owner == owner:
            for q in sorted(gate_destinations(board.occupancy, p)):
                out.append(Move(Piece(Kind.GATE), p, q))
    if cfg.full:
        out.extend(weapon_uses(state, seat))
    return out
