"""Yavoch, `decker` and `full`, as a ruleset (rulings/yavoch.md v1).

`decide` checks an action and returns the events; `evolve` applies one event, unchecked. A
decision is worked out by emitting events into a running copy of the state (`_Run`), so every
consequence (a battle's end of turn, the card draw, impact events between turns, the next
turn's start check) is computed by the same `evolve` that replays the log. Random outcomes
arrive as draws (`NeedDraws`, one at a time, in the order they occur in play: Y-6.4), and are
recorded (`RandomDrawn`, `DeckShuffled`) where they fall in the action.
"""

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from contracts.errors import ErrorCode
from contracts.events import (
    CardDealt,
    CardRevealed,
    DeckShuffled,
    Event,
    GameCreated,
    RandomDrawn,
)
from contracts.yavoch import (
    EVENTS,
    CardTaken,
    Discarded,
    FleetPlaced,
    ImpactResolved,
    LevelsChosen,
    Played,
    TurnBegan,
)
from domain import fairplay
from domain.core import (
    Decision,
    DrawRequest,
    DrawResult,
    NeedDraws,
    Outcome,
    Rejection,
    VariantError,
    agreement,
)
from domain.yavoch import board as fx
from domain.yavoch.board import Board, Effect, Ship, capacity
from domain.yavoch.cards import Cards, Held, canonical_key, card_sets, is_impact, matching_marking
from domain.yavoch.field import (
    LINE_DIRECTIONS,
    POSITIONS,
    Position,
    adjacent_positions,
    is_adjacent,
)
from domain.yavoch.movement import (
    Landing,
    gate_destinations,
    landing,
    one_steps,
    reachable,
    ship_moves,
)
from domain.yavoch.notation import (
    Action,
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
    parse_action,
    parse_position,
)
from domain.yavoch.pieces import Gate, needs_energy_to_move
from domain.yavoch.render import render
from domain.yavoch.variant import Config, parse_variant

_ILLEGAL, _TURN = ErrorCode.ILLEGAL_ACTION, ErrorCode.NOT_YOUR_TURN
_win, _draw, _ended = agreement.win, agreement.draw, agreement.ended
LETTERS: Final = {k.value: k for k in Kind}
FLEET_ORDER: Final = (Kind.COMMAND, Kind.NEORNITH, Kind.SQUAM, Kind.ARCHID, Kind.TRYCH, Kind.GATE)
EVOLVABLE: Final = (Kind.TRYCH, Kind.SQUAM, Kind.NEORNITH, Kind.ARCHID)  # Y-5.83
MOVE_CLAUSE: Final = {
    Kind.TRYCH: "Y-5.10",
    Kind.SQUAM: "Y-5.11",
    Kind.ARCHID: "Y-5.12",
    Kind.NEORNITH: "Y-5.13",
    Kind.COMMAND: "Y-5.14",
    Kind.GATE: "Y-5.16",
}


def _no(reason: str, clause: str, code: ErrorCode = _ILLEGAL) -> Rejection:
    return Rejection(code, reason, clause)


# -- state -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Turn:
    """What the mover has done this turn (Y-4.2, Y-5.54, Y-5.60)."""

    moved: bool = False
    fired: bool = False
    gave: frozenset[Position] = frozenset()
    received: frozenset[Position] = frozenset()
    over: bool = False  # END, or an early end (Y-4.4)
    drawn: bool = False  # [FULL] the turn's card is drawn (Y-6.12)


@dataclass(frozen=True, slots=True)
class Window:
    """[FULL] Y-5.96: `seat` may answer `action` with one of `ships`."""

    seat: int
    action: str
    ships: tuple[Position, ...]
    battle_lost: bool = False  # the defender lost a battle: Self Destruct may answer (Y-5.92)


@dataclass(frozen=True, slots=True)
class State:
    cfg: Config
    game_id: str
    board: Board = Board()  # noqa: RUF009  # immutable values: sharing them is safe
    levels: tuple[int, int] | None = None  # player one's (Y-3.1)
    placed: tuple[bool, bool] = (False, False)
    mover: int = 0
    number: int = 0  # turns begun (0: in setup)
    turn: Turn = Turn()
    window: Window | None = None
    cards: Cards = Cards()  # noqa: RUF009
    rolls: tuple[int, ...] = ()  # die outcomes recorded and not yet used by an action
    casualties: frozenset[int] = frozenset()  # owners whose Command ship the last action destroyed
    # [FULL] what an impact event's rolls oblige the next events to be (Engineering Failure's
    # discards, Enemy Defector's picks): replay checks them, so a log cannot disagree with its dice
    expected: tuple[Event, ...] = ()
    offer: int = -1
    offered: int = 0
    outcome: Outcome | None = None

    @property
    def phase(self) -> str:
        if self.outcome is not None:
            return "ended"
        if self.levels is None:
            return "levels"
        if not all(self.placed):
            return "place"
        if self.window is not None:
            return "respond"
        if self.turn.over:
            return "discard"
        return "play"

    def home(self, seat: int) -> tuple[int, int]:
        assert self.levels is not None
        other: tuple[int, int] = (4, 5) if self.levels == (1, 2) else (1, 2)
        return self.levels if seat == 0 else other


# -- actions beyond Y-1.14 -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChooseLevels:
    """Y-3.1: `levels 12` or `levels 45`."""

    levels: tuple[int, int]


@dataclass(frozen=True, slots=True)
class PlaceFleet:
    """Y-3.2: `place C111 N112 ...`, every piece of the fleet once."""

    pieces: tuple[tuple[Kind, Position], ...]


@dataclass(frozen=True, slots=True)
class Discard:
    """[FULL] Y-6.13: `discard <deal position>`."""

    position: int


@dataclass(frozen=True, slots=True)
class Armed:
    """[FULL] A weapon or response with the cards that make it (`@p,q,r`; () lets the engine
    choose: the first three by deal position that fit)."""

    record: WeaponUse | Response
    cards: tuple[int, ...] = ()


YAction = Action | ChooseLevels | PlaceFleet | Discard | Armed | str


def _format(action: YAction) -> str:
    if isinstance(action, str):
        return action
    if isinstance(action, ChooseLevels):
        return f"levels {action.levels[0]}{action.levels[1]}"
    if isinstance(action, PlaceFleet):
        return "place " + _placement_text(action.pieces)
    if isinstance(action, Discard):
        return f"discard {action.position}"
    if isinstance(action, Armed):
        cards = "@" + ",".join(map(str, action.cards)) if action.cards else ""
        return format_action(action.record) + cards
    return format_action(action)


def _placement_text(pieces: Sequence[tuple[Kind, Position]]) -> str:
    """Canonical: by kind in fleet order, then position (gates: in the order given, as they
    pair up two by two)."""
    order = {k: i for i, k in enumerate(FLEET_ORDER)}
    ranked = sorted(
        enumerate(pieces),
        key=lambda ip: (order[ip[1][0]], ip[0] if ip[1][0] is Kind.GATE else ip[1][1]),
    )
    return " ".join(f"{k.value}{format_position(p)}" for _, (k, p) in ranked)


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> YAction | Rejection:
    """An action as a player writes it (docs/rules/yavoch.md, "Actions"). Cached: replay reads
    every stored action again, and the records are immutable."""
    text = text.strip()
    word, _, rest = text.partition(" ")
    if word in agreement.VERBS and not rest:
        return word
    try:
        if word == "levels":
            if rest not in ("12", "45"):
                return _no(
                    "home levels are `levels 12` or `levels 45`",
                    "Y-3.1",
                    ErrorCode.MALFORMED_ACTION,
                )
            return ChooseLevels((int(rest[0]), int(rest[1])))
        if word == "place":
            pieces = []
            for item in rest.split():
                kind = LETTERS.get(item[:1])
                if kind is None or kind in (Kind.MINE, Kind.ENERGY) or len(item) != 4:
                    return _no(
                        f"{item!r} is not a piece and position like S112",
                        "Y-3.2",
                        ErrorCode.MALFORMED_ACTION,
                    )
                pieces.append((kind, parse_position(item[1:])))
            return PlaceFleet(tuple(pieces))
        if word == "discard":
            if not rest.isdigit():
                return _no("write `discard <deal position>`", "Y-6.13", ErrorCode.MALFORMED_ACTION)
            return Discard(int(rest))
        body, at, cards = text.partition("@")
        record = parse_action(body)
        if isinstance(record, WeaponUse | Response):
            positions = tuple(int(c) for c in cards.split(",")) if at else ()
            if at and (len(positions) != 3 or len(set(positions)) != 3):
                raise ValueError("Y-5.70: a weapon is three different cards, @p,q,r")
            return Armed(record, positions)
        if at:
            raise ValueError("Y-1.14: only a weapon or a response names cards (@p,q,r)")
        return record
    except ValueError as exc:
        message = str(exc)
        clause = message.split(":", maxsplit=1)[0] if message.startswith("Y-") else "Y-1.14"
        return _no(message, clause, ErrorCode.MALFORMED_ACTION)


# -- the running decision ---------------------------------------------------------------------


class _Need(Exception):
    def __init__(self, request: DrawRequest) -> None:
        self.request = request


class _Run:
    """A decision in progress: the events so far, the state after them, the draws used."""

    def __init__(self, rs: "Yavoch", state: State, draws: Sequence[DrawResult]) -> None:
        self.rs, self.state, self.draws, self.used = rs, state, draws, 0
        self.events: list[Event] = []

    def emit(self, *events: Event) -> None:
        for event in events:
            self.events.append(event)
            self.state = self.rs.evolve(self.state, event)

    def draw(self, kind: str, n: int, purpose: str) -> DrawResult:
        """The next draw, recorded where it falls in the action (a reshuffle takes the cards
        discarded before it in the same action: Y-6.11); salts are not events."""
        if self.used == len(self.draws):
            raise _Need(DrawRequest(kind, n, purpose))
        d = self.draws[self.used]
        self.used += 1
        if (d.kind, d.n) != (kind, n):
            raise ValueError(f"draw {d.kind}({d.n}) given where {kind}({n}) is needed")
        nonce = d.nonce if d.nonce is not None else -1
        if kind == "die":
            self.emit(RandomDrawn(nonce=nonce, kind=kind, n=n, purpose=d.purpose,
                                  value=d.values[0]))  # fmt: skip
        elif kind == "shuffle":
            self.emit(DeckShuffled(nonce=nonce, n=n, purpose=d.purpose, order=list(d.values)))
        return d

    def die(self, n: int, purpose: str) -> int:
        return self.draw("die", n, purpose).values[0]


# -- the ruleset -------------------------------------------------------------------------------


class Yavoch:
    """Yavoch: Captain Decker's (`decker`) and the Full Yavoch (`full`)."""

    name = "yavoch"
    events: tuple[type[Event], ...] = EVENTS

    # Lifecycle ------------------------------------------------------------------------------

    def create(self, variant: str, position: str = "") -> GameCreated:
        cfg = parse_variant(variant)
        if position:
            state = _read_position(State(cfg, ""), position)
            if not self.has_valid_move(state, state.mover):
                raise VariantError(
                    ErrorCode.BAD_POSITION, "the mover has no valid move: the game is over (Y-8.5)"
                )
        return GameCreated(
            ruleset=self.name, variant=cfg.variant, seats=2, randomness=True, position=position
        )

    def start(self, created: GameCreated) -> State:
        state = State(parse_variant(created.variant), created.game_id)
        return _read_position(state, created.position) if created.position else state

    def forfeit(self, state: State, seat: int, reason: str) -> tuple[Event, ...]:
        """A seat that never revealed its client seed loses (fair-play 1.3)."""
        return (_ended(_win(seat ^ 1, "timeout")),)

    def to_act(self, state: State) -> frozenset[int]:
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

    def card_at(self, state: State, position: int) -> str | None:
        """The card a deal at `position` must show (for the audit): a re-dealt card in a hand
        (Enemy Defector), a found impact card, or the pile's next card for the draw."""
        cards = state.cards
        if position < cards.dealt:
            held = cards.held(position)
            return held[1].card if held else None
        if position > cards.dealt:
            return None
        if cards.found:
            return cards.found[0]
        i = cards.next_component()
        if state.turn.drawn or i == len(cards.pile):  # impacts turned up between turns
            i = 0
        return cards.pile[i] if i < len(cards.pile) else None

    # Actions --------------------------------------------------------------------------------

    def parse_action(self, state: State, seat: int, text: str) -> YAction | Rejection:
        return parse(text)

    def format_action(self, state: State, action: YAction) -> str:
        return _format(action)

    def decide(
        self, state: State, seat: int, action: YAction, draws: Sequence[DrawResult] = ()
    ) -> Decision:
        if state.outcome is not None:
            return _no("the game has ended", "Y-4.5", ErrorCode.GAME_ENDED)
        if seat not in (0, 1):
            return _no(f"seat {seat} does not play Yavoch", "Y-0.2", ErrorCode.UNKNOWN_SEAT)
        if isinstance(action, str):  # Y-8.8
            if action != "resign" and state.phase in ("levels", "place"):
                return _no("draws are offered in play", "Y-8.8")
            return agreement.decide(action, seat, state.mover, state.offer, state.offered, "Y-8.8")
        run = _Run(self, state, draws)
        try:
            refused = self._decide(run, seat, action)
        except _Need as need:
            return NeedDraws((need.request,))
        return refused if refused is not None else tuple(run.events)

    def _decide(self, run: _Run, seat: int, action: YAction) -> Rejection | None:
        state = run.state
        phase = state.phase
        if phase in ("levels", "place"):
            return self._setup(run, seat, action)
        if phase == "respond":
            assert state.window is not None
            if seat != state.window.seat:
                return _no("the opponent is answering a response window", "Y-5.96", _TURN)
            if not isinstance(action, Armed | NoResponse) or (
                isinstance(action, Armed) and not isinstance(action.record, Response)
            ):
                return _no("answer the window: R:DF:<ship>, R:SD:<ship> or R:none", "Y-5.96")
            return self._respond(run, seat, action)
        if seat != state.mover:
            return _no(f"it is player {state.mover + 1}'s turn", "Y-4.1", _TURN)
        if phase == "discard":
            if not isinstance(action, Discard):
                return _no("discard a card first: you hold more than the hand limit", "Y-6.13")
            return self._discard(run, seat, action)
        if isinstance(action, Discard):
            return _no("a card is discarded only when a draw exceeds the hand limit", "Y-6.13")
        if isinstance(action, NoResponse) or (
            isinstance(action, Armed) and isinstance(action.record, Response)
        ):
            return _no("no response window is open for you", "Y-5.96")
        if isinstance(action, ChooseLevels | PlaceFleet):
            return _no("the setup is over", "Y-3.2")
        if isinstance(action, EndTurn):
            if not state.turn.moved:
                return _no("make this turn's MOVE first: there is no pass", "Y-4.3")
            run.emit(Played(seat=seat, action="END"))
            self._end_turn(run)
            return None
        if isinstance(action, Transfer):
            return self._transfer(run, seat, action)
        if isinstance(action, Shot):
            return self._shot(run, seat, action)
        if state.turn.moved:
            return _no("one MOVE per turn: this turn's MOVE is made", "Y-4.3")
        if isinstance(action, Armed):
            assert isinstance(action.record, WeaponUse)
            return self._weapon(run, seat, action)
        if isinstance(action, Detonation):
            return self._detonate(run, seat, action)
        assert isinstance(action, Move | Attack)
        return self._move(run, seat, action)

    # Setup (section 3) ------------------------------------------------------------------

    def _setup(self, run: _Run, seat: int, action: YAction) -> Rejection | None:
        state = run.state
        if state.phase == "levels":
            if seat != 0:
                return _no("player one chooses the home levels first", "Y-3.1", _TURN)
            if not isinstance(action, ChooseLevels):
                return _no("choose your home levels: `levels 12` or `levels 45`", "Y-3.1")
            run.emit(LevelsChosen(seat=0, levels=list(action.levels)))
            return None
        placer = 0 if not state.placed[0] else 1
        if seat != placer:
            return _no("player one places first, then player two", "Y-3.3", _TURN)
        if not isinstance(action, PlaceFleet):
            return _no("place your whole fleet: `place C111 N112 ...`", "Y-3.2")
        problem = _check_placement(state, seat, action.pieces)
        if problem is not None:
            return problem
        run.emit(FleetPlaced(seat=seat, placement=_placement_text(action.pieces)))
        if seat == 1:
            if state.cfg.full:
                self._shuffle_initial(run)
            self._begin_turn(run, 0)
        return None

    def _shuffle_initial(self, run: _Run) -> None:
        """Y-3.6 / Y-R39: shuffled until the top card is a component card."""
        n = len(run.state.cfg.deck)
        while True:
            run.draw("shuffle", n, "shuffle_initial")
            if not run.state.cards.top_is_impact:
                return

    # The MOVE (sections 5.1 to 5.4, 5.10) ----------------------------------------------

    def _own_piece(self, state: State, seat: int, piece: Piece, at: Position) -> Rejection | None:
        if piece.owner is not None and piece.owner != seat + 1:
            return _no(f"you are player {seat + 1}, not {piece.owner}", "Y-1.13")
        board = state.board
        if piece.kind is Kind.GATE:
            gate = board.gates.get(at)
            if gate is None or gate.owner != seat + 1:
                return _no(f"you have no gate at {format_position(at)}", "Y-5.16")
            return None
        ship = board.ships.get(at)
        if ship is None or ship.owner != seat + 1 or ship.kind is not piece.kind:
            return _no(f"you have no {_NAMES[piece.kind]} at {format_position(at)}", "Y-5.15")
        return None

    def _move(self, run: _Run, seat: int, action: Move | Attack) -> Rejection | None:
        state, cfg = run.state, run.state.cfg
        board = state.board
        origin, destination = action.origin, action.destination
        if (problem := self._own_piece(state, seat, action.piece, origin)) is not None:
            return problem
        if action.piece.kind is Kind.GATE:
            if isinstance(action, Attack) or action.exit or action.mine:
                return _no("a gate only moves: never attacks, teleports or lays mines", "Y-5.16")
            if origin in board.ships:
                return _no("a gate with a ship on it cannot move", "Y-5.16")
            if destination not in gate_destinations(board.occupancy, origin):
                return _no(
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
            return _no(
                "the result is the die's to write, not yours", "Y-1.14", ErrorCode.MALFORMED_ACTION
            )
        if needs_energy_to_move(ship.kind) and ship.energy < 1:
            return _no(
                f"{_NAMES[ship.kind]} at {format_position(origin)} has no energy (stasis)", "Y-5.51"
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
            return _no("the ship does not teleport to that exit", "Y-5.5")
        mine = action.mine
        if mine and origin in board.gates:
            return _no("no mine on a gate's position", "Y-5.40")
        if mine and ship.energy < 1:
            return _no("laying a mine takes 1 unit", "Y-5.40")
        roll = None
        defender = board.ships.get(destination)
        if move.landing is Landing.BATTLE and defender is not None:
            if fx.needs_roll(cfg, ship, defender):
                roll = run.die(10, "battle")
            won = fx.attacker_wins(cfg, ship, defender, roll)
            text = format_action(
                Attack(Piece(ship.kind), origin, destination, BattleResult(roll, won), mine)
            )
            window = self._window(state, seat, [destination], battle_lost=won)
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
        self._act(run, Played(seat=seat, action=text, window=_names(window)))
        return None

    def _detonate(self, run: _Run, seat: int, action: Detonation) -> Rejection | None:
        state = run.state
        if (problem := self._own_piece(state, seat, action.piece, action.position)) is not None:
            return problem
        zone = [q for q in fx.blast_zone(action.position) if q in state.board.ships]
        window = self._window(state, seat, zone)
        self._act(run, Played(seat=seat, action=format_action(action), window=_names(window)))
        return None

    def _shot(self, run: _Run, seat: int, action: Shot) -> Rejection | None:
        state = run.state
        if (problem := self._own_piece(state, seat, action.piece, action.origin)) is not None:
            return problem
        if state.turn.fired:
            return _no("the HEP CAT fires at most once per turn", "Y-5.60")
        if state.board.ships[action.origin].energy < 1:
            return _no("firing takes 1 unit of the Command ship's energy", "Y-5.61")
        if not fx.shot_target(state.board, action.origin, action.target):
            return _no(
                f"{format_position(action.target)} is not the first occupant of a line "
                "from the Command ship, or is an empty gate",
                "Y-5.63",
            )
        if not state.turn.moved and not self._move_remains(state, seat, action):
            return _no("a shot before the MOVE must leave a MOVE possible", "Y-R68")
        window = self._window(state, seat, [action.target])
        self._act(run, Played(seat=seat, action=format_action(action), window=_names(window)))
        return None

    def _move_remains(self, state: State, seat: int, shot: Shot) -> bool:
        """Y-R68: after the shot (undeflected) a MOVE remains, or the enemy Command ship died."""
        spent = replace(state, board=fx.spend(state.board, shot.origin))
        after = self._resolve(spent, seat, shot)
        if after.casualties - {seat + 1}:
            return True
        return self.has_valid_move(after, seat, gates=True)

    def _transfer(self, run: _Run, seat: int, action: Transfer) -> Rejection | None:
        state = run.state
        turn, board = state.turn, state.board
        a, b = board.ships.get(action.origin), board.ships.get(action.destination)
        if not turn.moved:
            return _no("transfers come after the MOVE", "Y-5.54")
        if a is None or b is None or a.owner != seat + 1 or b.owner != seat + 1:
            return _no("a transfer is between two of your ships", "Y-5.54")
        if not is_adjacent(action.origin, action.destination):
            return _no("the two ships must be adjacent on one level", "Y-5.54")
        if a.energy < 1:
            return _no(f"{format_position(action.origin)} has no unit to give", "Y-5.54")
        if b.energy >= capacity(state.cfg, b.kind):
            return _no(f"{format_position(action.destination)} is full", "Y-5.54")
        if action.origin in turn.gave:
            return _no("that ship has already given a unit this turn", "Y-5.54")
        if action.destination in turn.received:
            return _no("that ship has already received a unit this turn", "Y-5.54")
        run.emit(Played(seat=seat, action=format_action(action)))
        return None

    # [FULL] secret weapons (sections 5.9 to 5.11) ---------------------------------------

    def _cards_for(
        self, state: State, seat: int, code: str, kind: Kind, chosen: tuple[int, ...]
    ) -> tuple[Held, ...] | Rejection:
        """Y-5.70 / Y-5.71: the three cards making `code` for a ship of `kind`."""
        hand = {h.position: h for h in state.cards.hand(seat)}
        if chosen:
            if not set(chosen) <= set(hand):
                return _no("you do not hold those cards", "Y-5.70")
            mark = matching_marking(state.cfg, [hand[p].card for p in chosen], code)
            if mark is None:
                return _no(f"those cards do not make the {code} recipe", "Y-5.70")
            if mark not in ("X", kind.value):
                return _no(f"those cards are for {_a(LETTERS[mark])}", "Y-5.71")
            return tuple(hand[p] for p in chosen)
        for positions, mark in card_sets(state.cfg, state.cards.hand(seat), code):
            if mark in ("X", kind.value):
                return tuple(hand[p] for p in positions)
        return _no(f"your hand does not make {code} for {_a(kind)}", "Y-5.70")

    def _weapon(self, run: _Run, seat: int, action: Armed) -> Rejection | None:
        state, cfg = run.state, run.state.cfg
        use = action.record
        assert isinstance(use, WeaponUse)
        if not cfg.full:
            return _no("secret weapons belong to the Full Yavoch", "Y-0.1")
        if (problem := self._own_piece(state, seat, use.piece, use.user)) is not None:
            return problem
        ship = state.board.ships[use.user]
        need = 2 if use.code == "CL" else 1
        if ship.energy < need:
            return _no(
                f"the user needs at least {need} unit(s)", "Y-5.72" if need == 1 else "Y-5.84"
            )
        cards = self._cards_for(state, seat, use.code, ship.kind, action.cards)
        if isinstance(cards, Rejection):
            return cards
        target = _weapon_check(state, seat, use)
        if isinstance(target, Rejection):
            return target
        positions = tuple(h.position for h in cards)
        text = _format(Armed(use, positions))
        window = self._window(state, seat, [target]) if target is not None else ()
        run.emit(
            *(CardRevealed(seat=seat, position=h.position, card=h.card, salt=h.salt) for h in cards)
        )
        self._act(run, Played(seat=seat, action=text, window=_names(window)))
        return None

    def _window(
        self, state: State, seat: int, targets: Sequence[Position], battle_lost: bool = False
    ) -> tuple[Position, ...]:
        """[FULL] Y-5.96: the opponent's ships among `targets` that may answer; a window opens
        when there is one (with `defence_window_always`, whatever the hand holds)."""
        cfg = state.cfg
        if not cfg.full:
            return ()
        board, other = state.board, seat ^ 1
        ships = [
            q
            for q in targets
            if (s := board.ships.get(q)) is not None
            and s.owner == other + 1
            and s.kind is not Kind.COMMAND
            and s.energy >= 1
        ]
        if cfg.defence_window_always or not ships:
            return tuple(ships)
        hand = state.cards.hand(other)
        codes = ("DF", "SD") if battle_lost else ("DF",)
        able = [
            q
            for q in ships
            if any(
                mark in ("X", board.ships[q].kind.value)
                for code in codes
                for _, mark in card_sets(cfg, hand, code)
            )
        ]
        return tuple(able)

    def _respond(self, run: _Run, seat: int, action: Armed | NoResponse) -> Rejection | None:
        state = run.state
        window = state.window
        assert window is not None
        if isinstance(action, NoResponse):
            self._act(run, Played(seat=seat, action="R:none"))
            return None
        answer = action.record
        assert isinstance(answer, Response)
        if answer.ship not in window.ships:
            return _no(f"{format_position(answer.ship)} is not a ship this window is for", "Y-5.90")
        ship = state.board.ships[answer.ship]
        if answer.piece.kind is not ship.kind:
            return _no(f"the ship at {format_position(answer.ship)} is {_a(ship.kind)}", "Y-5.90")
        if answer.code == "SD" and not window.battle_lost:
            return _no("Self Destruct answers only a battle the ship lost", "Y-5.92")
        cards = self._cards_for(state, seat, answer.code, ship.kind, action.cards)
        if isinstance(cards, Rejection):
            return cards
        text = _format(Armed(answer, tuple(h.position for h in cards)))
        run.emit(
            *(CardRevealed(seat=seat, position=h.position, card=h.card, salt=h.salt) for h in cards)
        )
        self._act(run, Played(seat=seat, action=text))
        return None

    # Consequences (section 8, Y-4.2 steps 4 to 6) ---------------------------------------

    def _act(self, run: _Run, played: Played) -> None:
        """Emit an action, then what follows at once: the end of the game, or of the turn."""
        run.emit(played)
        state = run.state
        if state.window is not None:
            return
        if state.casualties:
            run.emit(_ended(_command_lost(state, state.casualties)))
        elif state.turn.over:
            self._end_turn(run)

    def _end_turn(self, run: _Run) -> None:
        """Y-4.2 step 4 (Y-8.3, Y-8.4, Y-8.7, Y-8.9), then step 5 and 6."""
        state = run.state
        mover = state.mover
        dead = any(s.energy == 0 for _, s in _commands(state.board, mover))  # Y-8.3
        losers = {s for s in (0, 1) if _lost_fleet(state.board, s)} | ({mover} if dead else set())
        if len(losers) == 2:  # Y-8.7
            run.emit(_ended(_draw("both_lost")))
            return
        if losers:
            loser = losers.pop()
            reason = "dead_command_ship" if loser == mover and dead else "lost_fleet"
            run.emit(_ended(_win(loser ^ 1, reason)))
            return
        limit = state.cfg.turn_limit
        if limit and state.number >= 2 * limit:
            run.emit(_ended(_draw("turn_limit")))
            return
        if state.cfg.full:
            self._draw_card(run)
            if len(run.state.cards.hand(mover)) > state.cfg.hand_limit:
                return  # the mover discards first (Y-6.13)
            self._between_turns(run)
        else:
            self._begin_turn(run, mover ^ 1)

    def _draw_card(self, run: _Run) -> None:
        """Y-6.11 / Y-6.12: the mover takes the topmost component card."""
        if not run.state.cards.shuffled:  # a game from a set position: shuffled on first need
            self._shuffle_initial(run)
        cards = run.state.cards
        if cards.next_component() == len(cards.pile) and cards.discard:
            run.draw("shuffle", len(cards.discard), "reshuffle")
            cards = run.state.cards
        i = cards.next_component()
        if i == len(cards.pile):
            return  # Y-6.11: both piles are empty (impacts passed over are still found)
        self._deal(run, run.state.mover, cards.pile[i])

    def _deal(self, run: _Run, seat: int, card: str, position: int | None = None) -> Held:
        p = run.state.cards.dealt if position is None else position
        salt = run.draw("salt", p, "deal").salt
        commitment = fairplay.card_commitment(run.state.game_id, p, card, salt)
        run.emit(CardDealt(seat=seat, position=p, commitment=commitment, card=card, salt=salt))
        return Held(p, card, salt)

    def _discard(self, run: _Run, seat: int, action: Discard) -> Rejection | None:
        if all(h.position != action.position for h in run.state.cards.hand(seat)):
            return _no(f"you hold no card dealt at {action.position}", "Y-6.13")
        run.emit(Discarded(seat=seat, positions=[action.position], reason="hand_limit"))
        self._between_turns(run)
        return None

    def _between_turns(self, run: _Run) -> None:
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
            held = self._deal(run, mover, card)
            run.emit(CardRevealed(seat=mover, position=held.position, card=card, salt=held.salt))
            self._impact(run, held)
            if run.state.casualties:
                run.emit(_ended(_command_lost(run.state, run.state.casualties)))
                return
        board = run.state.board
        losers = [s for s in (0, 1) if _lost_fleet(board, s)]  # Y-8.6
        if losers:
            run.emit(
                _ended(
                    _draw("both_lost") if len(losers) == 2 else _win(losers[0] ^ 1, "lost_fleet")
                )
            )
            return
        self._begin_turn(run, mover ^ 1)

    def _impact(self, run: _Run, held: Held) -> None:
        """Section 6.3: one impact card's event, with its rolls (Y-6.4 order)."""
        state = run.state
        code = held.card[2:]
        mover, other = state.mover, state.mover ^ 1
        rolls: list[int] = []
        follow: list[Event] = []
        if code == "EF":  # Y-6.21 / Y-R41: mover first
            for seat in (mover, other):
                rolls.append(run.die(10, "engineering_failure"))
                hand = state.cards.hand(seat)
                if rolls[-1] % 2 and hand:
                    follow.append(
                        Discarded(
                            seat=seat,
                            positions=[h.position for h in hand],
                            reason="engineering_failure",
                        )
                    )
        elif code == "ED":  # Y-6.22 / Y-R42: from the hands before the event
            hands = {
                s: sorted(state.cards.hand(s), key=lambda h: canonical_key(state.cfg, h))
                for s in (0, 1)
            }
            picks = []
            for taker in (mover, other):
                source = hands[taker ^ 1]
                if not source:
                    continue
                index = run.die(len(source), "enemy_defector") if len(source) > 1 else 0
                if len(source) > 1:
                    rolls.append(index)
                picks.append((taker, source[index]))
            run.emit(ImpactResolved(card=held.card, position=held.position, rolls=rolls))
            for taker, card in picks:
                run.emit(CardTaken(seat=taker, from_seat=taker ^ 1, position=card.position))
                self._deal(run, taker, card.card, card.position)
            return
        elif code == "UAI":  # Y-6.27
            rolls.append(run.die(10, "asteroid_impact"))
        run.emit(ImpactResolved(card=held.card, position=held.position, rolls=rolls), *follow)

    def _begin_turn(self, run: _Run, seat: int) -> None:
        """Y-4.1, then the start check of Y-8.5."""
        run.emit(TurnBegan(seat=seat, turn=run.state.number + 1))
        if not self.has_valid_move(run.state, seat):
            run.emit(_ended(_win(seat ^ 1, "immobilized")))

    def has_valid_move(self, state: State, seat: int, gates: bool = False) -> bool:
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
        return cfg.full and any(True for _ in self._weapon_uses(state, seat))

    # Events ---------------------------------------------------------------------------------

    def evolve(self, state: State, event: Event) -> State:
        if isinstance(event, Played):
            return self._played(state, event)
        if isinstance(event, RandomDrawn):
            return replace(state, rolls=(*state.rolls, event.value))
        if isinstance(event, Discarded | CardTaken) and state.expected:
            if event != state.expected[0]:
                raise ValueError(f"{event} where the impact's rolls give {state.expected[0]}")
            state = replace(state, expected=state.expected[1:])
        if isinstance(event, CardDealt | CardRevealed | DeckShuffled | Discarded | CardTaken):
            return _cards_evolve(state, event)
        if isinstance(event, ImpactResolved):
            return _impact_evolve(state, event)
        if isinstance(event, TurnBegan):
            if state.expected:
                raise ValueError(f"missing before the next turn: {state.expected[0]}")
            offered = state.offered & ~(1 << state.mover) if state.number else state.offered
            return replace(state, mover=event.seat, number=event.turn, turn=Turn(), offered=offered)
        if isinstance(event, FleetPlaced):
            pieces = [(LETTERS[i[0]], parse_position(i[1:])) for i in event.placement.split()]
            board = fx.place(state.cfg, state.board, event.seat + 1, pieces)
            placed = (True, state.placed[1]) if event.seat == 0 else (state.placed[0], True)
            return replace(state, board=board, placed=placed)
        if isinstance(event, LevelsChosen):
            levels: tuple[int, int] = (event.levels[0], event.levels[1])
            return replace(state, levels=levels)
        if (changed := agreement.changes(state.offered, event)) is not None:
            return replace(state, **changed)
        return state

    def _played(self, state: State, event: Played) -> State:
        record = parse(event.action)
        assert not isinstance(record, Rejection | str | ChooseLevels | PlaceFleet | Discard)
        state = replace(state, casualties=frozenset())
        if isinstance(record, NoResponse) or (
            isinstance(record, Armed) and isinstance(record.record, Response)
        ):
            return self._answered(state, record)
        if isinstance(record, Attack) and record.result:
            _check_result(state, record)
            if record.result.roll is not None:
                state = _use_roll(state, record.result.roll)
        if isinstance(record, Shot):  # Y-5.61: spent when declared, whatever the result
            state = replace(state, board=fx.spend(state.board, record.origin))
        if event.window:
            ships = tuple(parse_position(p) for p in event.window)
            lost = isinstance(record, Attack) and record.result is not None and record.result.won
            window = Window(event.seat ^ 1, event.action, ships, lost)
            return replace(state, window=window, turn=_mark(state.turn, record))
        return self._resolve(state, event.seat, record)

    def _answered(self, state: State, answer: Armed | NoResponse) -> State:
        window = state.window
        assert window is not None
        seat = window.seat ^ 1
        record = parse(window.action)
        assert not isinstance(record, Rejection | str | ChooseLevels | PlaceFleet | Discard)
        state = replace(state, window=None)
        if isinstance(answer, NoResponse):
            return self._resolve(state, seat, record, marked=True)
        assert isinstance(answer.record, Response)
        ship = answer.record.ship
        if answer.record.code == "SD":  # Y-5.92: both ships destroyed
            assert isinstance(record, Attack)
            effect = fx.self_destruct(state.board, record.origin, ship)
            board = effect.board
            if record.mine:  # the attacker had left its origin: its mine stays (Y-5.40)
                board = replace(board, mines={**board.mines, record.origin: seat + 1})
            return replace(state, board=board, casualties=effect.lost_command)
        if isinstance(record, Detonation):  # Y-5.91: that one ship survives
            return self._resolve(state, seat, record, spared=ship, marked=True)
        # Y-5.91 / Y-4.4 (b): a tie; the attacker's turn ends
        return replace(state, turn=replace(state.turn, over=True))

    def _resolve(
        self,
        state: State,
        seat: int,
        record: Action | Armed,
        spared: Position | None = None,
        marked: bool = False,
    ) -> State:
        """Apply a MOVE, shot, transfer or END (already found legal)."""
        cfg, board = state.cfg, state.board
        turn = state.turn if marked else _mark(state.turn, record)
        effect = Effect(board)
        if isinstance(record, EndTurn):
            turn = replace(turn, over=True)
        elif isinstance(record, Transfer):
            effect = Effect(fx.transfer(cfg, board, record.origin, record.destination))
            turn = replace(
                turn,
                gave=turn.gave | {record.origin},
                received=turn.received | {record.destination},
            )
        elif isinstance(record, Shot):
            effect = fx.fire(board, record.target)
        elif isinstance(record, Detonation):
            effect = fx.detonate(board, record.position, spared)
        elif isinstance(record, Move) and record.piece.kind is Kind.GATE:
            effect = Effect(fx.move_gate(board, record.origin, record.destination))
        elif isinstance(record, Move | Attack):
            found = landing(board.occupancy, record.origin, record.destination)
            assert found is not None, f"{format_action(record)} is not a legal landing"
            roll = record.result.roll if isinstance(record, Attack) and record.result else None
            effect = fx.move_ship(
                cfg, board, record.origin, record.destination, found[0], found[1], record.mine, roll
            )
            if effect.attacker_lost:
                turn = replace(turn, over=True)  # Y-5.25 / Y-4.4 (a)
        elif isinstance(record, Armed):
            assert isinstance(record.record, WeaponUse)
            effect = _weapon_effect(state, seat, record.record)
        return replace(state, board=effect.board, turn=turn, casualties=effect.lost_command)

    # Legal actions --------------------------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> Sequence[YAction]:
        """Every legal action of `seat` now (setup placements excepted: see
        `random_placement`), platform verbs last."""
        phase = state.phase
        out: list[YAction] = []
        if phase == "ended" or (seat not in self.to_act(state) and phase != "play"):
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
                    cards = self._cards_for(state, seat, code, kind, ())
                    if not isinstance(cards, Rejection):
                        out.append(
                            Armed(
                                Response(code, Piece(kind), ship), tuple(h.position for h in cards)
                            )
                        )
            return out
        if phase == "discard":
            if seat == state.mover:
                out.extend(Discard(h.position) for h in state.cards.hand(seat))
            return out
        if seat == state.mover:
            out.extend(self._turn_actions(state, seat))
        out.extend(
            v
            for v in ("resign", "offer-draw", "accept-draw", "decline-draw")
            if not isinstance(
                agreement.decide(v, seat, state.mover, state.offer, state.offered, ""), Rejection
            )
        )
        return out

    def _turn_actions(self, state: State, seat: int) -> list[YAction]:
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
                            if turn.moved or self._move_remains(state, seat, shot):
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
                    m.landing is Landing.GATE_CLASH
                    and board.ships[m.destination].kind is Kind.COMMAND
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
            out.extend(self._weapon_uses(state, seat))
        return out

    def _weapon_uses(self, state: State, seat: int) -> list[Armed]:
        """[FULL] Every offensive weapon use the hand and the field allow (one card set per
        weapon and ship type)."""
        cfg, board = state.cfg, state.board
        hand = state.cards.hand(seat)
        if len(hand) < 3:
            return []
        out: list[Armed] = []
        for code in ("TB", "AT", "EV", "CL", "REA", "RD", "HD"):
            sets = card_sets(cfg, hand, code)
            if not sets:
                continue
            for p, ship in board.owned(seat + 1):
                if ship.kind is Kind.COMMAND or ship.energy < (2 if code == "CL" else 1):
                    continue
                cards = next((c for c, mark in sets if mark in ("X", ship.kind.value)), None)
                if cards is None:
                    continue
                for args in _weapon_args(state, seat, code, p):
                    out.append(Armed(WeaponUse(code, Piece(ship.kind), p, args), cards))
        return out

    # Setup for bots ---------------------------------------------------------------------

    def random_placement(self, state: State, seat: int, choose: Callable[[int], int]) -> str:
        """A legal `place ...` for `seat` (Y-3.2), its choices made by `choose(n)` in [0, n)."""
        levels = state.home(seat)
        free = [p for p in POSITIONS if p.level in levels]
        pieces = []
        for kind, n in state.cfg.fleet.counts().items():
            for _ in range(n):
                pieces.append((kind, free.pop(choose(len(free)))))
        return "place " + _placement_text(pieces)

    def bot_action(self, state: State, seat: int, choose: Callable[[int], int]) -> YAction | None:
        """A random legal action for bots, its choices made by `choose(n)` in [0, n); None when
        `seat` has nothing to do. Random but not suicidal: it does not spend its Command ship's
        last unit (a shot, a mine, a transfer), and ends no turn with a dead
        Command ship it could still feed (Y-8.3)."""
        if state.phase == "levels":
            return ChooseLevels(((1, 2), (4, 5))[choose(2)]) if seat == 0 else None
        if state.phase == "place":
            if seat not in self.to_act(state):
                return None
            return parse(self.random_placement(state, seat, choose))  # type: ignore[return-value]
        actions = [a for a in self.legal_actions(state, seat) if not isinstance(a, str)]
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
                starving = any(s.energy == 0 for _, s in _commands(board, seat))
                return not (starving and any(isinstance(x, Transfer) for x in actions))
            return True

        pool = [a for a in actions if prudent(a)] or actions
        return pool[choose(len(pool))] if pool else None

    # Projections ----------------------------------------------------------------------------

    def outcome(self, state: State) -> Outcome | None:
        return state.outcome

    def position(self, state: State) -> str:
        return format_record(state)

    def render(self, state: State) -> str:
        return render(state)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        out, cards, board = state.outcome, state.cards, state.board
        hands: list[Any] = []
        for s in (0, 1):
            if s == seat or out is not None:
                hands.append([{"position": h.position, "card": h.card} for h in cards.hand(s)])
            else:
                hands.append([{"position": h.position} for h in cards.hand(s)])
        window = state.window
        return {
            "variant": state.cfg.variant,
            "phase": state.phase,
            "position": format_record(state),
            "home_levels": [list(state.home(0)), list(state.home(1))] if state.levels else None,
            "to_move": state.mover if state.phase != "ended" and state.number else None,
            "turn": state.number,
            "moved": state.turn.moved,
            "fired": state.turn.fired,
            "window": {"seat": window.seat, "action": window.action, "ships": _names(window.ships)}
            if window
            else None,
            "ships": [
                {
                    "at": format_position(p),
                    "kind": s.kind.value,
                    "player": s.owner,
                    "energy": s.energy,
                }
                for p, s in sorted(board.ships.items())
            ],
            "gates": [
                {"at": format_position(p), "player": g.owner, "pair": g.pair}
                for p, g in sorted(board.gates.items())
            ],
            "mines": [
                {"at": format_position(p), "player": o} for p, o in sorted(board.mines.items())
            ],
            "tokens": [
                {"at": format_position(p), "count": k} for p, k in sorted(board.tokens.items())
            ],
            "hands": hands,
            "draw_pile": len(cards.pile) + len(cards.found),
            "top_card": None
            if not cards.pile
            else "impact"
            if cards.top_is_impact
            else "component",
            "discard_pile": len(cards.discard),
            "draw_offer": state.offer if state.offer >= 0 else None,
            "result": out.result if out else None,
            "reason": out.reason if out else None,
            "winners": list(out.winners) if out else [],
        }

    def visible(self, event: Event, seat: int | None) -> Event | None:
        return event  # hidden faces travel only in the platform's CardDealt (the table redacts)


YAVOCH: Final = Yavoch()

_NAMES: Final = {
    Kind.COMMAND: "Command ship",
    Kind.NEORNITH: "Neornith",
    Kind.SQUAM: "Squam",
    Kind.ARCHID: "Archid",
    Kind.TRYCH: "Trych",
    Kind.GATE: "gate",
}


def _a(kind: Kind) -> str:
    name = _NAMES[kind]
    return ("an " if name[0] in "AEIOU" else "a ") + name


def _names(ps: Sequence[Position]) -> list[str]:
    return [format_position(p) for p in ps]


def _mark(turn: Turn, record: Action | Armed) -> Turn:
    if isinstance(record, Shot):
        return replace(turn, fired=True)
    if isinstance(record, Move | Attack | Detonation | Armed):
        return replace(turn, moved=True)
    return turn


def _use_roll(state: State, roll: int) -> State:
    """A recorded die outcome is used by the action that names it; a log whose action names
    another roll is inconsistent (the audit's replay reports it)."""
    if not state.rolls or state.rolls[0] != roll:
        raise ValueError(
            f"the action names roll {roll}; the next recorded die is "
            f"{state.rolls[0] if state.rolls else 'missing'}"
        )
    return replace(state, rolls=state.rolls[1:])


def _commands(board: Board, seat: int) -> list[tuple[Position, Ship]]:
    return [(p, s) for p, s in board.owned(seat + 1) if s.kind is Kind.COMMAND]


def _lost_fleet(board: Board, seat: int) -> bool:
    """Y-8.4 / Y-R7: only Command ships left (gates and mines do not count)."""
    return all(s.kind is Kind.COMMAND for _, s in board.owned(seat + 1))


def _command_lost(state: State, owners: frozenset[int]) -> Outcome:
    """Y-8.1 / Y-8.2 / Y-R21."""
    if len(owners) == 2:
        return _draw("command_ships_destroyed")
    loser = next(iter(owners)) - 1
    if not any(s.energy >= 1 for _, s in _commands(state.board, loser ^ 1)):
        return _draw("surviving_command_ship_without_energy")
    return _win(loser ^ 1, "command_ship_destroyed")


def _why_not(state: State, origin: Position, destination: Position) -> Rejection:
    """The clause a ship move breaks (the move shape, or what the destination holds)."""
    board, cfg = state.board, state.cfg
    ship = board.ships[origin]
    shape = reachable(ship.kind, origin, board.occupancy, cfg.neornith_intermediate_on_field)
    if destination not in shape:
        if ship.kind in (Kind.SQUAM, Kind.ARCHID):
            free = reachable(ship.kind, origin, Board().occupancy)
            if destination in free:
                return _no(
                    "the path is blocked: every position between must be unoccupied", "Y-5.2"
                )
        if ship.kind is Kind.NEORNITH and destination in reachable(
            ship.kind, origin, board.occupancy, False
        ):
            return _no("no on-field intermediate position for this hop", "Y-R8")
        return _no(
            f"{_a(ship.kind)} cannot reach {format_position(destination)} from "
            f"{format_position(origin)}",
            MOVE_CLAUSE[ship.kind],
        )
    gate = board.gates.get(destination)
    if (
        gate is not None
        and gate.owner == ship.owner
        and board.occupancy.partner(destination) == origin
    ):
        return _no("not from an own gate onto its partner", "Y-R67")
    target = board.ships.get(destination)
    if ship.kind is Kind.TRYCH:
        return _no("a Trych never ends a move on a ship or a mine", "Y-5.10")
    if destination in board.mines:
        return _no("a Command ship may not enter an enemy mine", "Y-R25")
    if target is not None and target.kind is Kind.COMMAND and target.owner == ship.owner:
        return _no("no attack on your own Command ship", "Y-R15")
    return _no("that landing is not allowed", "Y-5.3")


def _check_placement(
    state: State, seat: int, pieces: Sequence[tuple[Kind, Position]]
) -> Rejection | None:
    levels = state.home(seat)
    for _, p in pieces:
        if p.level not in levels:
            return _no(
                f"{format_position(p)} is not on your home levels {levels[0]} and {levels[1]}",
                "Y-3.1",
            )
    if len({p for _, p in pieces}) != len(pieces):
        return _no("one piece per position (a ship does not start on a gate)", "Y-3.2")
    counts = {k: sum(1 for kind, _ in pieces if kind is k) for k in FLEET_ORDER}
    expected = state.cfg.fleet.counts()
    if counts != expected:
        want = " ".join(f"{n} {k.value}" for k, n in expected.items())
        return _no(f"place the whole fleet, every piece once: {want}", "Y-3.2")
    return None


# -- [FULL] weapons: arguments and effects ------------------------------------------------------


def _sight(state: State, user: Position, target: Position) -> bool:
    return target in state.board.in_sight(user)


def _weapon_check(state: State, seat: int, use: WeaponUse) -> Rejection | Position | None:
    """Y-5.81 to Y-5.87: the arguments; returns the targeted ship (None: no target)."""
    board, code, args = state.board, use.code, use.args or ""
    try:
        if code in ("AT", "REA", "RD"):
            target = parse_position(args)
            t = board.ships.get(target)
            if t is None or t.owner == seat + 1:
                return _no(
                    f"{code} targets an enemy ship",
                    {"AT": "Y-5.82", "REA": "Y-5.85", "RD": "Y-5.86"}[code],
                )
            if not _sight(state, use.user, target):
                return _no("the target is not in line of sight", "Y-5.74")
            if code == "RD" and (t.kind is Kind.COMMAND or target in board.gates):
                return _no("the Revenant Device converts a non-Command ship off the gates", "Y-R54")
            return target
        if code == "TB":
            t_text, _, d_text = args.partition(">")
            target, destination = parse_position(t_text), parse_position(d_text)
            if target == use.user or target not in board.ships:
                return _no("the Tractor Beam targets a ship other than its user", "Y-5.81")
            if not _sight(state, use.user, target):
                return _no("the target is not in line of sight", "Y-5.74")
            if destination not in one_steps(target, LINE_DIRECTIONS):
                return _no("the target shifts one step in a line direction", "Y-5.81")
            if board.is_occupied(destination):
                return _no("the Tractor Beam needs an unoccupied destination", "Y-R49")
            return target if board.ships[target].owner != seat + 1 else None
        if code == "EV":
            t_text, _, letter = args.partition("=")
            target, kind = parse_position(t_text), LETTERS.get(letter)
            t = board.ships.get(target)
            if (
                t is None
                or t.kind is Kind.COMMAND
                or (target != use.user and not _sight(state, use.user, target))
            ):
                return _no("Evolution targets its user or a non-Command ship in sight", "Y-R51")
            if kind not in EVOLVABLE or kind is t.kind:
                return _no("evolve into another of Trych, Squam, Neornith, Archid", "Y-5.83")
            return target if t.owner != seat + 1 else None
        if code == "CL":
            d_text, _, given = args.partition("=")
            destination = parse_position(d_text)
            ship = board.ships[use.user]
            if ship.kind is Kind.TRYCH:  # even with a larger `capacity.trych`
                return _no("a Trych cannot clone itself", "Y-R52")
            if not given.isdigit() or not 1 <= int(given) <= ship.energy - 1:
                return _no(f"the clone gets 1 to {ship.energy - 1} units (=k)", "Y-5.84")
            if destination not in _clone_destinations(state, use.user):
                return _no(
                    "the clone makes one unblocked move of its type to an unoccupied position",
                    "Y-R52",
                )
            return None
        assert code == "HD"
        destination = parse_position(args)
        if board.is_occupied(destination):
            return _no("the Hyperdrive goes to an unoccupied position", "Y-R55")
        return None
    except ValueError as exc:
        return _no(f"{code} arguments: {exc}", "Y-1.14", ErrorCode.MALFORMED_ACTION)


def _clone_destinations(state: State, user: Position) -> list[Position]:
    board, cfg = state.board, state.cfg
    kind = board.ships[user].kind
    shape = reachable(kind, user, board.occupancy, cfg.neornith_intermediate_on_field)
    return [q for q in shape if not board.is_occupied(q)]


def _weapon_args(state: State, seat: int, code: str, user: Position) -> list[str]:
    """Every argument string `code` takes from `user` now (for the legal action list)."""
    board = state.board
    sight = board.in_sight(user)
    enemies = [q for q in sight if board.ships[q].owner != seat + 1]
    f = format_position
    if code in ("AT", "REA"):
        return [f(q) for q in enemies]
    if code == "RD":
        return [
            f(q)
            for q in enemies
            if board.ships[q].kind is not Kind.COMMAND and q not in board.gates
        ]
    if code == "TB":
        return [
            f"{f(q)}>{f(d)}"
            for q in sight
            for d in sorted(one_steps(q, LINE_DIRECTIONS))
            if not board.is_occupied(d)
        ]
    if code == "EV":
        targets = [user, *(q for q in sight if board.ships[q].kind is not Kind.COMMAND)]
        return [
            f"{f(q)}={k.value}" for q in targets for k in EVOLVABLE if k is not board.ships[q].kind
        ]
    if code == "CL":
        if board.ships[user].kind is Kind.TRYCH:
            return []
        energy = board.ships[user].energy
        return [f"{f(q)}={k}" for q in _clone_destinations(state, user) for k in range(1, energy)]
    return [f(p) for p in POSITIONS if not board.is_occupied(p)]  # HD


def _weapon_effect(state: State, seat: int, use: WeaponUse) -> Effect:
    board, cfg, args = state.board, state.cfg, use.args or ""
    code = use.code
    if code == "AT":
        return fx.fire(board, parse_position(args))  # Y-5.82: as the HEP CAT, ships only
    if code == "REA":
        return Effect(fx.absorb(cfg, board, use.user, parse_position(args)))
    if code == "RD":
        return Effect(fx.convert(board, parse_position(args), seat + 1))
    if code == "TB":
        t, _, d = args.partition(">")
        return Effect(fx.tractor(cfg, board, parse_position(t), parse_position(d)))
    if code == "EV":
        t, _, letter = args.partition("=")
        return Effect(fx.evolve_ship(cfg, board, parse_position(t), LETTERS[letter]))
    if code == "CL":
        d, _, given = args.partition("=")
        return Effect(fx.clone(cfg, board, use.user, parse_position(d), int(given)))
    return Effect(fx.hyperdrive(cfg, board, use.user, parse_position(args)))


# -- cards and impact events: evolve --------------------------------------------------------


def _cards_evolve(state: State, event: Event) -> State:
    cards, cfg = state.cards, state.cfg
    if isinstance(event, DeckShuffled):
        if event.purpose == "shuffle_initial":
            source: tuple[str, ...] = cfg.deck
            found = cards.found
        else:  # Y-6.11: the discard pile, sorted canonically; impacts left above are found
            source = tuple(sorted(cards.discard, key=lambda c: cfg.deck.index(c) if c else 0))
            found = cards.found + cards.pile
        pile = tuple(source[i] for i in event.order) if event.order else ("",) * event.n
        return replace(
            state, cards=replace(cards, shuffled=True, pile=pile, discard=(), found=found)
        )
    if isinstance(event, CardDealt):
        held = Held(event.position, event.card, event.salt)
        if event.position < cards.dealt:  # a card changing hands (Enemy Defector)
            hand = tuple(
                held if h.position == event.position else h for h in cards.hand(event.seat)
            )
            return replace(state, cards=cards.with_hand(event.seat, hand))
        if event.card and is_impact(event.card):  # turned up between turns (Y-6.15)
            if cards.found:
                cards = replace(cards, found=cards.found[1:])
            else:
                cards = replace(cards, pile=cards.pile[1:])
            return replace(state, cards=replace(cards, dealt=event.position + 1))
        i = cards.next_component() if event.card else 0
        cards = replace(
            cards,
            found=cards.found + cards.pile[:i],
            pile=cards.pile[i + 1 :],
            dealt=event.position + 1,
        )
        cards = cards.with_hand(event.seat, (*cards.hand(event.seat), held))
        return replace(state, cards=cards, turn=replace(state.turn, drawn=True))
    if isinstance(event, CardRevealed):  # a weapon's card, or an impact card turned up
        hand = tuple(h for h in cards.hand(event.seat) if h.position != event.position)
        cards = cards.with_hand(event.seat, hand)
        if not is_impact(event.card):
            cards = replace(cards, discard=(*cards.discard, event.card))  # Y-5.73
        return replace(state, cards=cards)
    if isinstance(event, Discarded):  # face down (Y-6.13, Y-6.21)
        gone = set(event.positions)
        hand = cards.hand(event.seat)
        cards = cards.with_hand(event.seat, tuple(h for h in hand if h.position not in gone))
        faces = tuple(h.card for h in hand if h.position in gone)
        return replace(state, cards=replace(cards, discard=(*cards.discard, *faces)))
    assert isinstance(event, CardTaken)
    moved = next(
        (h for h in cards.hand(event.from_seat) if h.position == event.position),
        Held(event.position),
    )
    cards = cards.with_hand(
        event.from_seat,
        tuple(h for h in cards.hand(event.from_seat) if h.position != event.position),
    )
    cards = cards.with_hand(event.seat, (*cards.hand(event.seat), moved))
    return replace(state, cards=cards)


def _impact_evolve(state: State, event: ImpactResolved) -> State:
    cfg, board = state.cfg, state.board
    for roll in event.rolls:
        state = _use_roll(state, roll)
    code = event.card[2:]
    if code in ("EF", "ED"):
        state = replace(state, expected=_obliged(state, code, event.rolls))
    cards = replace(state.cards, discard=(*state.cards.discard, event.card))  # Y-R40
    effect = Effect(board)
    if code == "CA":
        effect = Effect(fx.core_anomaly(cfg, board))
    elif code == "CD":
        effect = fx.core_dump(cfg, board)
    elif code == "MAS":
        effect = fx.asteroid_swarm(board)
    elif code == "UAI":
        effect = fx.asteroid_impact(cfg, board, event.rolls[0])
    return replace(state, cards=cards, board=effect.board, casualties=effect.lost_command)


def _obliged(state: State, code: str, rolls: Sequence[int]) -> tuple[Event, ...]:
    """The discards (Engineering Failure, Y-6.21) or picks (Enemy Defector, Y-6.22) the rolls
    give, from the hands before the event; () where this state does not know the faces."""
    mover, hands = state.mover, state.cards.hands
    if code == "EF":
        return tuple(Discarded(seat=seat, positions=[h.position for h in hands[seat]],
                               reason="engineering_failure")
                     for seat, roll in zip((mover, mover ^ 1), rolls, strict=True)
                     if roll % 2 and hands[seat])  # fmt: skip
    if not all(h.card for hand in hands for h in hand):
        return ()
    left = list(rolls)
    picks: list[Event] = []
    for taker in (mover, mover ^ 1):
        source = sorted(hands[taker ^ 1], key=lambda h: canonical_key(state.cfg, h))
        if source:
            index = left.pop(0) if len(source) > 1 else 0
            picks.append(
                CardTaken(seat=taker, from_seat=taker ^ 1, position=source[index].position)
            )
    return tuple(picks)


def _check_result(state: State, record: Attack) -> None:
    """A stored battle result must be the rules' for its roll (Y-5.22, Y-5.8): a log whose text
    says otherwise does not replay."""
    assert record.result is not None
    cfg, board = state.cfg, state.board
    attacker, defender = board.ships.get(record.origin), board.ships.get(record.destination)
    found = landing(board.occupancy, record.origin, record.destination)
    if attacker is None or defender is None or found is None:
        raise ValueError(f"{format_action(record)}: no such battle here")
    roll = record.result.roll
    if found[0] is Landing.GATE_CLASH:
        rolled, won = True, roll is not None and roll >= cfg.command_ship_defence
    else:
        rolled = fx.needs_roll(cfg, attacker, defender)
        won = roll is not None and fx.attacker_wins(cfg, attacker, defender, roll)
        won = won or not rolled
    if rolled != (roll is not None) or won != record.result.won:
        raise ValueError(f"{format_action(record)}: the rules give another result")


# -- the position record ----------------------------------------------------------------------


def format_record(state: State) -> str:
    """The field as one line: `<player><letter><Lxy>[:<energy>]` for ships, gates (`1G125`,
    pairs in order) and mines (`2M333`), `E<Lxy>:<k>` for energy tokens; then the mover."""
    board = state.board
    items = [
        f"{s.owner}{s.kind.value}{format_position(p)}" + (f":{s.energy}" if s.energy else "")
        for p, s in sorted(board.ships.items())
    ]
    gates = sorted(board.gates.items(), key=lambda pg: (pg[1].owner, pg[1].pair, pg[0]))
    items += [f"{g.owner}G{format_position(p)}" for p, g in gates]
    items += [f"{o}M{format_position(p)}" for p, o in sorted(board.mines.items())]
    items += [f"E{format_position(p)}:{k}" for p, k in sorted(board.tokens.items())]
    return " ".join(items) + f" / {state.mover + 1}"


def _read_position(state: State, text: str) -> State:
    """A hand-set position (`format_record`'s form): setup skipped, levels 1-2 for player one."""
    body, _, mover = text.rpartition("/")
    if mover.strip() not in ("1", "2"):
        raise VariantError(ErrorCode.BAD_POSITION, "a position ends with ` / 1` or ` / 2`")
    ships: dict[Position, Ship] = {}
    gates: dict[Position, Gate] = {}
    mines: dict[Position, int] = {}
    tokens: dict[Position, int] = {}
    pairs: dict[int, int] = {}
    try:
        for item in body.split():
            head, _, energy = item.partition(":")
            if head[0] == "E":
                tokens[parse_position(head[1:])] = int(energy)
                continue
            owner, kind, p = int(head[0]), LETTERS[head[1]], parse_position(head[2:])
            if owner not in (1, 2):
                raise ValueError(f"player {owner}")
            if kind is Kind.GATE:
                gates[p] = Gate(owner, pairs.get(owner, 0) // 2)
                pairs[owner] = pairs.get(owner, 0) + 1
            elif kind is Kind.MINE:
                mines[p] = owner
            else:
                ships[p] = Ship(kind, owner, int(energy or 0))
                if ships[p].energy > capacity(state.cfg, kind):
                    raise ValueError(f"{item}: over capacity (Y-5.50)")
        board = Board(ships, gates, mines, tokens)
        board.occupancy  # noqa: B018  # validates what stands where (Y-0.3)
    except (ValueError, KeyError, IndexError) as exc:
        raise VariantError(ErrorCode.BAD_POSITION, f"bad Yavoch position: {exc}") from None
    if not _commands(board, 0) or not _commands(board, 1):
        raise VariantError(ErrorCode.BAD_POSITION, "each player needs its Command ship (Y-8.1)")
    seat = int(mover.strip()) - 1
    return replace(state, board=board, levels=(1, 2), placed=(True, True), mover=seat, number=1)
