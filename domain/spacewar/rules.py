"""The Spacewar ruleset (rulings spacewar.md Part A): decide (checked), evolve (unchecked), the
automatic steps the engine records (SW-R53) and the end of the game (SW-8)."""

from collections.abc import Callable, Sequence
from typing import Any, Final

from contracts.errors import ErrorCode
from contracts.events import DrawDeclined, Event, GameCreated, GameEnded
from contracts.spacewar import (
    EVENTS,
    ActionPlayed,
    AutoPassed,
    MissilesMoved,
    ReplacementLost,
    StepBegan,
)
from domain.core import Capability, Decided, Decision, DrawResult, Outcome, Rejection, VariantError
from domain.core import agreement as agreements
from domain.core.outcome import draw, ended
from domain.core.outcome import of as outcome_of
from domain.core.ruleset import with_state
from domain.spacewar import display
from domain.spacewar.actions import (
    Action,
    Beam,
    Command,
    Counter,
    EndMovement,
    Field,
    FieldResponse,
    Launch,
    Malformed,
    MoveShip,
    Pass,
    PlaceReplacement,
    format_action,
    parse,
)
from domain.spacewar.combat import (
    apply_beam,
    apply_counter,
    apply_field,
    apply_response,
    check_beam,
    check_counter,
    check_field,
    check_response,
    legal_combat,
)
from domain.spacewar.missiles import (
    apply_launch,
    apply_place,
    check_launch,
    check_place,
    legal_launches,
    place_squares,
)
from domain.spacewar.movement import apply_move, check_move, legal_moves
from domain.spacewar.phases import automatic, end_of_game, enter, fly, next_placer
from domain.spacewar.pieces import setup
from domain.spacewar.position import format_position, parse_position
from domain.spacewar.state import COMBAT, LAUNCH, MOVE, REPLACE, State
from domain.spacewar.variant import VARIANTS, Config, parse_variant

Problem = tuple[str, str]


def _wrong_step(state: State, action: Action) -> Problem | None:
    """The clause an action breaks when played in the wrong phase or step."""
    step = state.step
    if isinstance(action, MoveShip | EndMovement):
        if step != MOVE:
            return "SW-4.1", "ships move only in their owner's movement phase (1 or 5)"
        if isinstance(action, EndMovement) and state.moves == 0:
            return "SW-5.4", "END comes after at least one move"
        return None
    if isinstance(action, Beam | Counter | Field | FieldResponse):
        if step != COMBAT:
            return "SW-5.40", "beams and fields are used only in force-combat phases"
        return None
    if isinstance(action, Launch):
        if step != LAUNCH:
            return "SW-5.61", "launches are made only in the launch step of a missile phase"
        return None
    if isinstance(action, Pass):
        if step == MOVE:
            return "SW-5.4", "a movement phase is ended by END after at least one move"
        if step == REPLACE:
            return "SW-5.77", "each replacement is placed on your back rank: P@<square>"
        return None
    if isinstance(action, PlaceReplacement) and step != REPLACE:
        return "SW-5.77", "replacements are placed only in a replacement step"
    return None


def check(state: State, side: int, action: Action) -> Problem | None:
    """(clause, reason) when `action` by `side`, the side to act, is illegal."""
    wrong = _wrong_step(state, action)
    if wrong:
        return wrong
    if isinstance(action, MoveShip):
        return check_move(state, side, action)
    if isinstance(action, Beam):
        return check_beam(state, side, action)
    if isinstance(action, Counter):
        return check_counter(state, side, action)
    if isinstance(action, Field):
        return check_field(state, side, action)
    if isinstance(action, FieldResponse):
        return check_response(state, side, action)
    if isinstance(action, Launch):
        return check_launch(state, side, action)
    if isinstance(action, PlaceReplacement):
        return check_place(state, side, action)
    return None


def apply(state: State, side: int, action: Action) -> State:
    """An accepted action, unchecked. Every action closes the response window (SW-R54)."""
    if not isinstance(action, FieldResponse):
        state = state._replace(window=None)
    if isinstance(action, MoveShip):
        return apply_move(state, side, action)
    if isinstance(action, EndMovement):
        return state._replace(closed=True)
    if isinstance(action, PlaceReplacement):
        return next_placer(apply_place(state, side, action))
    if isinstance(action, Pass):
        return state._replace(passes=state.passes + 1, actor=1 - side)
    if isinstance(action, Beam):
        state = apply_beam(state, action)
    elif isinstance(action, Counter):
        state = apply_counter(state, action)
    elif isinstance(action, Field):
        state = apply_field(state, action)
    elif isinstance(action, FieldResponse):
        state = apply_response(state, action)._replace(window=None)
    elif isinstance(action, Launch):
        state = apply_launch(state, side, action)
    return state._replace(passes=0, actor=1 - side)


class Spacewar:
    """Spacewar (Joe Joyce) per the rulings spacewar.md Part A v1.1."""

    name = "spacewar"
    capabilities = frozenset({Capability.BOT_POLICY})
    variants = VARIANTS
    events: tuple[type[Event], ...] = EVENTS

    # Game lifecycle -----------------------------------------------------------------------

    def create(self, variant: str, position: str = "") -> GameCreated:
        config = parse_variant(variant)
        over = _parse(position, config).outcome if position else None
        if over is not None:
            raise VariantError(ErrorCode.BAD_POSITION, "bad Spacewar position: it is already over "
                               f"({over.result}): a side has no Mothership")  # fmt: skip
        return GameCreated(ruleset=self.name, variant=config.variant, seats=2, position=position)

    def start(self, created: GameCreated) -> State:
        config = parse_variant(created.variant)
        if created.position:
            return _parse(created.position, config)
        return State(config, setup(config.king_placement, config.fleet_counts()))

    def to_act(self, state: State) -> frozenset[int]:
        return frozenset() if state.outcome else frozenset({state.actor})

    # Actions ------------------------------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> Sequence[Action]:
        """The game actions of `seat` now; in a movement phase the legal next single action
        (SW-1.5): one ship move with the anchors it names, or END after at least one move."""
        if state.outcome or seat != state.actor:
            return []
        if state.step == MOVE:
            moves: list[Action] = list(legal_moves(state, seat))
            return [*moves, EndMovement()] if state.moves else moves
        if state.step == COMBAT:
            return [*legal_combat(state, seat), Pass()]
        if state.step == LAUNCH:
            return [*legal_launches(state, seat), Pass()]
        if state.step == REPLACE and state.pending[seat]:
            return [PlaceReplacement(sq) for sq in place_squares(state, seat)]
        return []

    def parse_action(self, state: State, seat: int, text: str) -> Action | Rejection:
        action = parse(text)
        if isinstance(action, Malformed):
            return Rejection(ErrorCode.MALFORMED_ACTION, action.reason, "SW-1.5")
        return action

    def format_action(self, state: State, action: Action) -> str:
        return format_action(state.board, action)

    def decide(
        self, state: State, seat: int, action: Action, draws: Sequence[DrawResult] = ()
    ) -> Decision:
        if state.outcome:
            return Rejection(ErrorCode.GAME_ENDED, "the game has ended")
        if seat not in (0, 1):
            return Rejection(ErrorCode.UNKNOWN_SEAT, f"seat {seat} does not play this game")
        if isinstance(action, Command):
            decision = agreements.decide(action.verb, seat, state.agreement, "SW-8.3",
                                         may_offer=seat == state.actor)  # fmt: skip
            return with_state(self.evolve, state, decision)
        if seat != state.actor:
            return Rejection(ErrorCode.NOT_YOUR_TURN, "it is your opponent's action (SW-4.3)",
                             "SW-4.1")  # fmt: skip
        problem = check(state, seat, action)
        if problem:
            return Rejection(ErrorCode.ILLEGAL_ACTION, problem[1], problem[0])
        events: list[Event] = []
        after = state
        if agreements.pending(state.agreement, seat):  # acting declines a standing offer
            events.append(DrawDeclined(seat=seat))
            after = self.evolve(after, events[-1])
        events.append(ActionPlayed(seat=seat, action=format_action(state.board, action)))
        after = self.evolve(after, events[-1])
        after = self._settle(after, events)
        return Decided(events, after)

    def _settle(self, state: State, events: list[Event]) -> State:
        """The steps the engine takes by itself after an action (SW-R53), and the end of the
        game (SW-4.6, SW-8). Steps that come back to a position they passed through (the turn
        number aside) with no decision on the way can only go round for ever: nobody can act
        again, and the game is drawn as a dead position (SW-R58)."""
        passed: set[State] = set()
        while True:
            if state.outcome is None:
                over = end_of_game(state)
                if over is not None:
                    event: Event = ended(over)
                    events.append(event)
                    return self.evolve(state, event)
            auto = automatic(state)
            if auto is None:
                return state
            if auto.kind == "pass":
                event = AutoPassed(seat=auto.seat)
            elif auto.kind == "missiles":
                event = MissilesMoved(
                    turn=state.turn, phase=state.phase, results=tuple(fly(state)[1])
                )
            elif auto.kind == "lost":
                event = ReplacementLost(seat=auto.seat, count=state.pending[auto.seat])
            elif auto.to is None:
                event = ended(draw("turn limit"))
            else:
                seen = state._replace(turn=0)  # the turn number aside
                if seen in passed:
                    event = ended(draw("dead position"))
                    events.append(event)
                    return self.evolve(state, event)
                passed.add(seen)
                event = StepBegan(turn=auto.to.turn, phase=auto.to.phase, step=auto.to.step)
            events.append(event)
            state = self.evolve(state, event)

    # Events -------------------------------------------------------------------------------

    def evolve(self, state: State, event: Event) -> State:
        if isinstance(event, ActionPlayed):
            action = parse(event.action)
            assert not isinstance(action, Malformed), event.action
            agreement = agreements.moved(state.agreement, event.seat)
            return apply(state._replace(agreement=agreement), event.seat, action)
        if isinstance(event, AutoPassed):
            return state._replace(passes=state.passes + 1, actor=1 - event.seat, window=None)
        if isinstance(event, StepBegan):
            return enter(state, event.turn, event.phase, event.step)
        if isinstance(event, MissilesMoved):
            return fly(state)[0]
        if isinstance(event, ReplacementLost):
            pending = (0, state.pending[1]) if event.seat == 0 else (state.pending[0], 0)
            return next_placer(state._replace(pending=pending))
        if isinstance(event, GameEnded):
            return state._replace(outcome=outcome_of(event))
        changed = agreements.changes(state.agreement, event)
        if changed is not None:
            return state._replace(**changed)
        return state

    # Projections --------------------------------------------------------------------------

    def outcome(self, state: State) -> Outcome | None:
        return state.outcome

    def position(self, state: State) -> str:
        return format_position(state)

    def render(self, state: State) -> str:
        return display.render(state)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return display.view(state, self.position(state), sorted(self.to_act(state)))

    def visible(self, event: Event, seat: int | None) -> Event | None:
        return event  # SW-7.1: no hidden information

    def bot_action(self, state: State, seat: int, choose: Callable[[int], int]) -> Any:
        """A random legal action (None when `seat` is not to act). It ends a movement phase
        with END one time in three once it may, so that bot games move on."""
        actions = list(self.legal_actions(state, seat))
        if not actions:
            return None
        if state.step == MOVE and state.moves and choose(3) == 0:
            return EndMovement()
        return actions[choose(len(actions))]


def _parse(text: str, config: Config) -> State:
    """The state a position names; one whose game is over (SW-8.1) is read with its outcome,
    as a chess tool loads a mate (`create` refuses it for a new game)."""
    try:
        state = parse_position(text, config)
    except ValueError as exc:
        raise VariantError(ErrorCode.BAD_POSITION, f"bad Spacewar position: {exc}") from None
    over = end_of_game(state)
    if over is not None:
        return state._replace(outcome=over)
    if automatic(state) is not None:
        raise VariantError(ErrorCode.BAD_POSITION, "bad Spacewar position: the engine would act "
                           "first (a forced pass, a finished step): record the position where "
                           "a player decides (SW-R53)")  # fmt: skip
    return state


SPACEWAR: Final = Spacewar()

__all__ = ["SPACEWAR", "Spacewar", "State", "check"]
