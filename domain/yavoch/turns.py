"""Turns (section 4, Y-4.2 steps 4 to 6) and the end of the game (section 8): who acts now, what
follows an action at once (the game's end, or the turn's), the end-of-turn checks, then [FULL]
the card draw and the impact events between turns (the cards themselves: full.py), the next
turn and its start check (Y-8.5: `has_valid_move`).
"""

from dataclasses import replace

from contracts.events import CardRevealed
from contracts.yavoch import Played, TurnBegan
from domain.core import Outcome
from domain.core.outcome import draw, ended, lose
from domain.yavoch import board as fx
from domain.yavoch.board import Board
from domain.yavoch.cards import is_impact
from domain.yavoch.evolve import resolve
from domain.yavoch.full import deal, draw_card, impact, weapon_uses
from domain.yavoch.movement import gate_destinations, ship_moves
from domain.yavoch.notation import Kind, Shot
from domain.yavoch.run import Run
from domain.yavoch.state import State, commands


def to_act(state: State) -> frozenset[int]:
    """The seat expected to act now (Yavoch has no simultaneous phase)."""
    phase = state.phase
    if phase == "ended":
        return frozenset()
    if phase == "levels":
        return frozenset((0,))
    if phase == "place":
        return frozenset((0 if not state.placed[0] else 1,))
    if phase == "respond":
        assert state.window is not None
        return frozenset((state.window.seat,))
    return frozenset((state.mover,))


def act(run: Run, played: Played) -> None:
    """Emit an action, then what follows at once: the end of the game, or of the turn."""
    run.emit(played)
    state = run.state
    if state.window is not None:
        return
    if state.casualties:
        run.emit(ended(command_lost(state, state.casualties)))
    elif state.turn.over:
        end_turn(run)


def end_turn(run: Run) -> None:
    """Y-4.2 step 4 (Y-8.3, Y-8.4, Y-8.7, Y-8.9), then step 5 and 6."""
    state = run.state
    mover = state.mover
    dead = any(s.energy == 0 for _, s in commands(state.board, mover))  # Y-8.3
    losers = {s for s in (0, 1) if _lost_fleet(state.board, s)} | ({mover} if dead else set())
    if len(losers) == 2:  # Y-8.7
        run.emit(ended(draw("both_lost")))
        return
    if losers:
        loser = losers.pop()
        reason = "dead_command_ship" if loser == mover and dead else "lost_fleet"
        run.emit(ended(lose((loser,), reason)))
        return
    limit = state.cfg.turn_limit
    if limit and state.number >= 2 * limit:
        run.emit(ended(draw("turn_limit")))
        return
    if state.cfg.full:
        draw_card(run)
        if len(run.state.cards.hand(mover)) > state.cfg.hand_limit:
            return  # the mover discards first (Y-6.13)
        between_turns(run)
    else:
        begin_turn(run, mover ^ 1)


def between_turns(run: Run) -> None:
    """Y-6.14 to Y-6.16, Y-8.6: found impact cards face up and resolved, in order."""
    mover = run.state.mover
    while True:
        cards = run.state.cards
        if cards.found:
            card = cards.found[0]
        elif cards.pile and is_impact(cards.pile[0]):
            card = cards.pile[0]
        else:
            break
        held = deal(run, mover, card)
        run.emit(CardRevealed(seat=mover, position=held.position, card=card, salt=held.salt))
        impact(run, held)
        if run.state.casualties:
            run.emit(ended(command_lost(run.state, run.state.casualties)))
            return
    board = run.state.board
    losers = [s for s in (0, 1) if _lost_fleet(board, s)]  # Y-8.6
    if losers:
        run.emit(ended(draw("both_lost") if len(losers) == 2 else lose(losers, "lost_fleet")))
        return
    begin_turn(run, mover ^ 1)


def begin_turn(run: Run, seat: int) -> None:
    """Y-4.1, then the start check of Y-8.5."""
    run.emit(TurnBegan(seat=seat, turn=run.state.number + 1))
    if not has_valid_move(run.state, seat):
        run.emit(ended(lose((seat,), "immobilized")))


def has_valid_move(state: State, seat: int, gates: bool = False) -> bool:
    """Y-8.5 / Y-R7: a ship move, a detonation or [FULL] an offensive weapon (with
    `gates`, also a gate move: Y-R68's MOVE)."""
    board, cfg = state.board, state.cfg
    for p, ship in board.owned(seat + 1):
        if ship.kind is Kind.TRYCH:
            return True
        if ship_moves(board.occupancy, p, cfg.neornith_intermediate_on_field):
            return True
    if gates and any(
        g.owner == seat + 1 and gate_destinations(board.occupancy, p)
        for p, g in board.gates.items()
    ):
        return True
    return cfg.full and any(True for _ in weapon_uses(state, seat))


def move_remains(state: State, seat: int, shot: Shot) -> bool:
    """Y-R68: after the shot (undeflected) a MOVE remains, or the enemy Command ship died."""
    spent = replace(state, board=fx.spend(state.board, shot.origin))
    after = resolve(spent, seat, shot)
    if after.casualties - {seat + 1}:
        return True
    return has_valid_move(after, seat, gates=True)


def _lost_fleet(board: Board, seat: int) -> bool:
    """Y-8.4 / Y-R7: only Command ships left (gates and mines do not count)."""
    return all(s.kind is Kind.COMMAND for _, s in board.owned(seat + 1))


def command_lost(state: State, owners: frozenset[int]) -> Outcome:
    """Y-8.1 / Y-8.2 / Y-R21."""
    if len(owners) == 2:
        return draw("command_ships_destroyed")
    loser = next(iter(owners)) - 1
    if not any(s.energy >= 1 for _, s in commands(state.board, loser ^ 1)):
        return draw("surviving_command_ship_without_energy")
    return lose((loser,), "command_ship_destroyed")
