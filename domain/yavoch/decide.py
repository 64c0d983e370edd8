"""Deciding an action (`decide`): checked against the rules, it becomes the events that record
it and everything that follows from it (run.py). Setup (section 3), the actions of a turn (the
MOVE, shots, transfers, END: sections 4 and 5), [FULL] weapons, responses and discards; a
refusal cites the clause the action breaks.
"""

from collections.abc import Sequence
from typing import Final

from contracts.errors import ErrorCode
from contracts.events import CardRevealed
from contracts.yavoch import Discarded, FleetPlaced, LevelsChosen, Played
from domain.core import Decided, Decision, DrawResult, NeedDraws, Rejection, agreement
from domain.core.ruleset import with_state
from domain.yavoch import board as fx
from domain.yavoch.actions import (
    FLEET_ORDER,
    NAMES,
    Armed,
    ChooseLevels,
    Discard,
    PlaceFleet,
    YAction,
    a_or_an,
    action_text,
    names,
    placement_text,
    refuse,
)
from domain.yavoch.board import Board, capacity
from domain.yavoch.evolve import evolve
from domain.yavoch.field import Position, is_adjacent
from domain.yavoch.full import cards_for, response_window, shuffle_initial, weapon_check
from domain.yavoch.movement import (
    Landing,
    gate_destinations,
    reachable,
    returns_through_gate,
    ship_moves,
)
from domain.yavoch.notation import (
    Attack,
    BattleResult,
    Detonation,
    EndTurn,
    Kind,
    Move,
    NoResponse,
    Piece,
    Response,
    Shot,
    Transfer,
    WeaponUse,
    format_action,
    format_position,
)
from domain.yavoch.pieces import needs_energy_to_move
from domain.yavoch.run import Need, Run
from domain.yavoch.state import State
from domain.yavoch.turns import act, begin_turn, between_turns, end_turn, move_remains

_TURN = ErrorCode.NOT_YOUR_TURN
MOVE_CLAUSE: Final = {
    Kind.TRYCH: "Y-5.10",
    Kind.SQUAM: "Y-5.11",
    Kind.ARCHID: "Y-5.12",
    Kind.NEORNITH: "Y-5.13",
    Kind.COMMAND: "Y-5.14",
    Kind.GATE: "Y-5.16",
}


def decide(state: State, seat: int, action: YAction, draws: Sequence[DrawResult] = ()) -> Decision:
    if state.outcome is not None:
        return refuse("the game has ended", "Y-4.5", ErrorCode.GAME_ENDED)
    if seat not in (0, 1):
        return refuse(f"seat {seat} does not play Yavoch", "Y-0.2", ErrorCode.UNKNOWN_SEAT)
    if isinstance(action, str):  # Y-8.8
        if action != "resign" and state.phase in ("levels", "place"):
            return refuse("draws are offered in play", "Y-8.8")
        verdict = agreement.decide(action, seat, state.agreement, "Y-8.8",
                                   may_offer=seat == state.mover)  # fmt: skip
        return with_state(evolve, state, verdict)
    run = Run(state, draws)
    try:
        refused = _decide(run, seat, action)
    except Need as need:
        return NeedDraws((need.request,))
    return refused if refused is not None else Decided(run.events, run.state)


def _decide(run: Run, seat: int, action: YAction) -> Rejection | None:
    state = run.state
    phase = state.phase
    if phase in ("levels", "place"):
        return _setup(run, seat, action)
    if phase == "respond":
        assert state.window is not None
        if seat != state.window.seat:
            return refuse("the opponent is answering a response window", "Y-5.96", _TURN)
        if not isinstance(action, Armed | NoResponse) or (
            isinstance(action, Armed) and not isinstance(action.record, Response)
        ):
            return refuse("answer the window: R:DF:<ship>, R:SD:<ship> or R:none", "Y-5.96")
        return _respond(run, seat, action)
    if seat != state.mover:
        return refuse(f"it is player {state.mover + 1}'s turn", "Y-4.1", _TURN)
    if phase == "discard":
        if not isinstance(action, Discard):
            return refuse("discard a card first: you hold more than the hand limit", "Y-6.13")
        return _discard(run, seat, action)
    if isinstance(action, Discard):
        return refuse("a card is discarded only when a draw exceeds the hand limit", "Y-6.13")
    if isinstance(action, NoResponse) or (
        isinstance(action, Armed) and isinstance(action.record, Response)
    ):
        return refuse("no response window is open for you", "Y-5.96")
    if isinstance(action, ChooseLevels | PlaceFleet):
        return refuse("the setup is over", "Y-3.2")
    if isinstance(action, EndTurn):
        if not state.turn.moved:
            return refuse("make this turn's MOVE first: there is no pass", "Y-4.3")
        run.emit(Played(seat=seat, action="END"))
        end_turn(run)
        return None
    if isinstance(action, Transfer):
        return _transfer(run, seat, action)
    if isinstance(action, Shot):
        return _shot(run, seat, action)
    if state.turn.moved:
        return refuse("one MOVE per turn: this turn's MOVE is made", "Y-4.3")
    if isinstance(action, Armed):
        assert isinstance(action.record, WeaponUse)
        return _weapon(run, seat, action)
    if isinstance(action, Detonation):
        return _detonate(run, seat, action)
    assert isinstance(action, Move | Attack)
    return _move(run, seat, action)


# -- setup (section 3) -----------------------------------------------------------------------


def _setup(run: Run, seat: int, action: YAction) -> Rejection | None:
    state = run.state
    if state.phase == "levels":
        if seat != 0:
            return refuse("player one chooses the home levels first", "Y-3.1", _TURN)
        if not isinstance(action, ChooseLevels):
            return refuse("choose your home levels: `levels 12` or `levels 45`", "Y-3.1")
        run.emit(LevelsChosen(seat=0, levels=list(action.levels)))
        return None
    placer = 0 if not state.placed[0] else 1
    if seat != placer:
        return refuse("player one places first, then player two", "Y-3.3", _TURN)
    if not isinstance(action, PlaceFleet):
        return refuse("place your whole fleet: `place C111 N112 ...`", "Y-3.2")
    problem = _check_placement(state, seat, action.pieces)
    if problem is not None:
        return problem
    run.emit(FleetPlaced(seat=seat, placement=placement_text(action.pieces)))
    if seat == 1:
        if state.cfg.full:
            shuffle_initial(run)
        begin_turn(run, 0)
    return None


def _check_placement(
    state: State, seat: int, pieces: Sequence[tuple[Kind, Position]]
) -> Rejection | None:
    levels = state.home(seat)
    for _, p in pieces:
        if p.level not in levels:
            return refuse(
                f"{format_position(p)} is not on your home levels {levels[0]} and {levels[1]}",
                "Y-3.1",
            )
    if len({p for _, p in pieces}) != len(pieces):
        return refuse("one piece per position (a ship does not start on a gate)", "Y-3.2")
    counts = {k: sum(1 for kind, _ in pieces if kind is k) for k in FLEET_ORDER}
    expected = state.cfg.fleet.counts()
    if counts != expected:
        want = " ".join(f"{n} {k.value}" for k, n in expected.items())
        return refuse(f"place the whole fleet, every piece once: {want}", "Y-3.2")
    return None


# -- the MOVE (sections 5.1 to 5.4, 5.10), shots and transfers -------------------------------


def _own_piece(state: State, seat: int, piece: Piece, at: Position) -> Rejection | None:
    if piece.owner is not None and piece.owner != seat + 1:
        return refuse(f"you are player {seat + 1}, not {piece.owner}", "Y-1.13")
    board = state.board
    if piece.kind is Kind.GATE:
        gate = board.gates.get(at)
        if gate is None or gate.owner != seat + 1:
            return refuse(f"you have no gate at {format_position(at)}", "Y-5.16")
        return None
    ship = board.ships.get(at)
    if ship is None or ship.owner != seat + 1 or ship.kind is not piece.kind:
        return refuse(f"you have no {NAMES[piece.kind]} at {format_position(at)}", "Y-5.15")
    return None


def _move(run: Run, seat: int, action: Move | Attack) -> Rejection | None:
    state, cfg = run.state, run.state.cfg
    board = state.board
    origin, destination = action.origin, action.destination
    if (problem := _own_piece(state, seat, action.piece, origin)) is not None:
        return problem
    if action.piece.kind is Kind.GATE:
        if isinstance(action, Attack) or action.exit or action.mine:
            return refuse("a gate only moves: never attacks, teleports or lays mines", "Y-5.16")
        if origin in board.ships:
            return refuse("a gate with a ship on it cannot move", "Y-5.16")
        if destination not in gate_destinations(board.occupancy, origin):
            return refuse(
                f"the gate cannot move to {format_position(destination)}: one step "
                "of the 12 line directions to an unoccupied position",
                "Y-5.16",
            )
        run.emit(
            Played(seat=seat, action=format_action(Move(Piece(Kind.GATE), origin, destination)))
        )
        return None
    ship = board.ships[origin]
    if isinstance(action, Attack) and action.result is not None:
        return refuse(
            "the result is the die's to write, not yours", "Y-1.14", ErrorCode.MALFORMED_ACTION
        )
    if needs_energy_to_move(ship.kind) and ship.energy < 1:
        return refuse(
            f"{NAMES[ship.kind]} at {format_position(origin)} has no energy (stasis)", "Y-5.51"
        )
    move = next(
        (
            m
            for m in ship_moves(board.occupancy, origin, cfg.neornith_intermediate_on_field)
            if m.destination == destination
        ),
        None,
    )
    if move is None:
        return _why_not(state, origin, destination)
    if isinstance(action, Move) and action.exit is not None and action.exit != move.exit:
        return refuse("the ship does not teleport to that exit", "Y-5.5")
    mine = action.mine
    if mine and origin in board.gates:
        return refuse("no mine on a gate's position", "Y-5.40")
    if mine and ship.energy < 1:
        return refuse("laying a mine takes 1 unit", "Y-5.40")
    roll = None
    defender = board.ships.get(destination)
    if move.landing is Landing.BATTLE and defender is not None:
        if fx.needs_roll(cfg, ship, defender):
            roll = run.die(10, "battle")
        won = fx.attacker_wins(cfg, ship, defender, roll)
        text = format_action(
            Attack(Piece(ship.kind), origin, destination, BattleResult(roll, won), mine)
        )
        window = response_window(state, seat, [destination], battle_lost=won)
    elif move.landing is Landing.GATE_CLASH and defender is not None and \
            defender.kind is Kind.COMMAND:  # fmt: skip  # Y-5.8 / Y-R66
        roll = run.die(10, "battle")
        won = roll >= cfg.command_ship_defence
        text = format_action(
            Attack(Piece(ship.kind), origin, destination, BattleResult(roll, won), mine)
        )
        window = ()
    else:
        text = format_action(Move(Piece(ship.kind), origin, destination, move.exit, mine))
        window = ()
    act(run, Played(seat=seat, action=text, window=names(window)))
    return None


def _why_not(state: State, origin: Position, destination: Position) -> Rejection:
    """The clause a ship move breaks (the move shape, or what the destination holds)."""
    board, cfg = state.board, state.cfg
    ship = board.ships[origin]
    shape = reachable(ship.kind, origin, board.occupancy, cfg.neornith_intermediate_on_field)
    if destination not in shape:
        if ship.kind in (Kind.SQUAM, Kind.ARCHID):
            free = reachable(ship.kind, origin, Board().occupancy)
            if destination in free:
                return refuse(
                    "the path is blocked: every position between must be unoccupied", "Y-5.2"
                )
        if ship.kind is Kind.NEORNITH and destination in reachable(
            ship.kind, origin, board.occupancy, False
        ):
            return refuse("no on-field intermediate position for this hop", "Y-R8")
        return refuse(
            f"{a_or_an(ship.kind)} cannot reach {format_position(destination)} from "
            f"{format_position(origin)}",
            MOVE_CLAUSE[ship.kind],
        )
    if returns_through_gate(board.occupancy, origin, destination):  # Y-R67 / Y-R70
        return refuse("not from an own gate onto its partner", "Y-R67")
    target = board.ships.get(destination)
    if ship.kind is Kind.TRYCH:
        return refuse("a Trych never ends a move on a ship or a mine", "Y-5.10")
    if destination in board.mines:
        return refuse("a Command ship may not enter an enemy mine", "Y-R25")
    if target is not None and target.kind is Kind.COMMAND and target.owner == ship.owner:
        return refuse("no attack on your own Command ship", "Y-R15")
    return refuse("that landing is not allowed", "Y-5.3")


def _detonate(run: Run, seat: int, action: Detonation) -> Rejection | None:
    state = run.state
    if (problem := _own_piece(state, seat, action.piece, action.position)) is not None:
        return problem
    zone = [q for q in fx.blast_zone(action.position) if q in state.board.ships]
    window = response_window(state, seat, zone)
    act(run, Played(seat=seat, action=format_action(action), window=names(window)))
    return None


def _shot(run: Run, seat: int, action: Shot) -> Rejection | None:
    state = run.state
    if (problem := _own_piece(state, seat, action.piece, action.origin)) is not None:
        return problem
    if state.turn.fired:
        return refuse("the HEP CAT fires at most once per turn", "Y-5.60")
    if state.board.ships[action.origin].energy < 1:
        return refuse("firing takes 1 unit of the Command ship's energy", "Y-5.61")
    if not fx.shot_target(state.board, action.origin, action.target):
        return refuse(
            f"{format_position(action.target)} is not the first occupant of a line "
            "from the Command ship, or is an empty gate",
            "Y-5.63",
        )
    if not state.turn.moved and not move_remains(state, seat, action):
        return refuse("a shot before the MOVE must leave a MOVE possible", "Y-R68")
    window = response_window(state, seat, [action.target])
    act(run, Played(seat=seat, action=format_action(action), window=names(window)))
    return None


def _transfer(run: Run, seat: int, action: Transfer) -> Rejection | None:
    state = run.state
    turn, board = state.turn, state.board
    a, b = board.ships.get(action.origin), board.ships.get(action.destination)
    if not turn.moved:
        return refuse("transfers come after the MOVE", "Y-5.54")
    if a is None or b is None or a.owner != seat + 1 or b.owner != seat + 1:
        return refuse("a transfer is between two of your ships", "Y-5.54")
    if not is_adjacent(action.origin, action.destination):
        return refuse("the two ships must be adjacent on one level", "Y-5.54")
    if a.energy < 1:
        return refuse(f"{format_position(action.origin)} has no unit to give", "Y-5.54")
    if b.energy >= capacity(state.cfg, b.kind):
        return refuse(f"{format_position(action.destination)} is full", "Y-5.54")
    if action.origin in turn.gave:
        return refuse("that ship has already given a unit this turn", "Y-5.54")
    if action.destination in turn.received:
        return refuse("that ship has already received a unit this turn", "Y-5.54")
    run.emit(Played(seat=seat, action=format_action(action)))
    return None


# -- [FULL] secret weapons, responses (sections 5.9 to 5.11), discards (Y-6.13) --------------


def _weapon(run: Run, seat: int, action: Armed) -> Rejection | None:
    state, cfg = run.state, run.state.cfg
    use = action.record
    assert isinstance(use, WeaponUse)
    if not cfg.full:
        return refuse("secret weapons belong to the Full Yavoch", "Y-0.1")
    if (problem := _own_piece(state, seat, use.piece, use.user)) is not None:
        return problem
    ship = state.board.ships[use.user]
    need = 2 if use.code == "CL" else 1
    if ship.energy < need:
        return refuse(
            f"the user needs at least {need} unit(s)", "Y-5.72" if need == 1 else "Y-5.84"
        )
    cards = cards_for(state, seat, use.code, ship.kind, action.cards)
    if isinstance(cards, Rejection):
        return cards
    target = weapon_check(state, seat, use)
    if isinstance(target, Rejection):
        return target
    positions = tuple(h.position for h in cards)
    text = action_text(Armed(use, positions))
    window = response_window(state, seat, [target]) if target is not None else ()
    run.emit(
        *(CardRevealed(seat=seat, position=h.position, card=h.card, salt=h.salt) for h in cards)
    )
    act(run, Played(seat=seat, action=text, window=names(window)))
    return None


def _respond(run: Run, seat: int, action: Armed | NoResponse) -> Rejection | None:
    state = run.state
    window = state.window
    assert window is not None
    if isinstance(action, NoResponse):
        act(run, Played(seat=seat, action="R:none"))
        return None
    answer = action.record
    assert isinstance(answer, Response)
    if answer.ship not in window.ships:
        return refuse(f"{format_position(answer.ship)} is not a ship this window is for", "Y-5.90")
    ship = state.board.ships[answer.ship]
    if answer.piece.kind is not ship.kind:
        return refuse(
            f"the ship at {format_position(answer.ship)} is {a_or_an(ship.kind)}", "Y-5.90"
        )
    if answer.code == "SD" and not window.battle_lost:
        return refuse("Self Destruct answers only a battle the ship lost", "Y-5.92")
    cards = cards_for(state, seat, answer.code, ship.kind, action.cards)
    if isinstance(cards, Rejection):
        return cards
    text = action_text(Armed(answer, tuple(h.position for h in cards)))
    run.emit(
        *(CardRevealed(seat=seat, position=h.position, card=h.card, salt=h.salt) for h in cards)
    )
    act(run, Played(seat=seat, action=text))
    return None


def _discard(run: Run, seat: int, action: Discard) -> Rejection | None:
    if all(h.position != action.position for h in run.state.cards.hand(seat)):
        return refuse(f"you hold no card dealt at {action.position}", "Y-6.13")
    run.emit(Discarded(seat=seat, positions=[action.position], reason="hand_limit"))
    between_turns(run)
    return None
