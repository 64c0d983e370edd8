"""The Spacewar Health/Ammo ruleset (`spacewar-ha`, ruling spacewar.md Part B): decide
(checked) and evolve (unchecked), the turn (HA-4), the end (HA-8), the bot."""

from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple

from contracts.errors import ErrorCode
from contracts.events import DrawDeclined, Event, GameCreated
from contracts.spacewar_ha import EVENTS, ActionPlayed, Resupplied
from domain.core import Capability, Decided, Decision, DrawResult, Outcome, Rejection, VariantError
from domain.core import agreement as agreements
from domain.core.agreement import Agreement
from domain.core.outcome import ended
from domain.core.ruleset import with_state
from domain.spacewar_ha import display
from domain.spacewar_ha.actions import apply, check, generate, releases
from domain.spacewar_ha.notation import (
    CRASH,
    FIRE,
    MOVE,
    PASS,
    RELEASE,
    VERBS,
    Action,
    Malformed,
    format_action,
    parse,
)
from domain.spacewar_ha.pieces import SIDE_NAMES
from domain.spacewar_ha.position import Position, format_position, parse_position, start_position
from domain.spacewar_ha.setup import VARIANTS, Config, parse_variant
from domain.spacewar_ha.turns import (
    Resupply,
    ends_turn,
    game_end,
    next_turn,
    resupplies,
    resupply,
)


class State(NamedTuple):
    config: Config
    pos: Position
    agreement: Agreement = Agreement()
    outcome: Outcome | None = None
    last: str = ""


def _illegal(reason: str, clause: str) -> Rejection:
    return Rejection(ErrorCode.ILLEGAL_ACTION, reason, clause)


def play(config: Config, pos: Position, action: Action) -> Position:
    """The position after `action` (unchecked), the turn passed on unless it was a release;
    the next side's resupply is not applied (it is its own event)."""
    after = apply(pos, action)
    return next_turn(after, action) if ends_turn(action) else after


def parse_start(text: str, config: Config) -> Position:
    """A starting position (`CreateGame.position`); raises VariantError."""
    try:
        return parse_position(text, config.geometry)
    except ValueError as exc:
        raise VariantError(ErrorCode.BAD_POSITION, f"bad spacewar-ha position: {exc}") from None


def already_over(pos: Position) -> Outcome | None:
    """HA-8.1: a player's Bases are all captured (the other ends follow an action)."""
    return game_end(pos, 0, False)


class SpacewarHa:
    """Spacewar Health/Ammo per the Spacewar ruling v1.1, Part B."""

    name = "spacewar-ha"
    capabilities = frozenset({Capability.BOT_POLICY})
    variants = VARIANTS
    events: tuple[type[Event], ...] = EVENTS

    def create(self, variant: str, position: str = "") -> GameCreated:
        config = parse_variant(variant)
        if position:
            pos = parse_start(position, config)
            if already_over(pos) is not None:
                reason = "a player's Bases are all captured, so the game is over (HA-8.1)"
                raise VariantError(ErrorCode.BAD_POSITION, f"bad spacewar-ha position: {reason}")
            position = format_position(pos)
        return GameCreated(ruleset=self.name, variant=config.variant, seats=2, position=position)

    def start(self, created: GameCreated) -> State:
        """The first state; a position whose game is over (which `create` refuses for a new
        game) is loaded with its outcome, as a chess tool loads a mate."""
        config = parse_variant(created.variant)
        pos = parse_start(created.position, config) if created.position else start_position(config)
        return State(config, pos, outcome=already_over(pos))

    def to_act(self, state: State) -> frozenset[int]:
        return frozenset() if state.outcome else frozenset({state.pos.turn})

    # Actions ------------------------------------------------------------------------------

    def game_actions(self, state: State) -> list[Action]:
        """HA-4.1, HA-4.2, HA-R24: the side to act's releases and HA-5 actions, or `pass` when
        it has no HA-5 action, sorted by their text."""
        config, pos = state.config, state.pos
        actions = generate(pos, config.cap_at_start, config.medic_can_jump)
        actions += releases(pos)
        if not any(a.kind != RELEASE for a in actions):
            actions.append(Action(PASS))
        return sorted(actions, key=lambda a: format_action(a, pos.board))

    def legal_actions(self, state: State, seat: int) -> Sequence[Action]:
        if state.outcome or seat not in (0, 1):
            return []
        actions = self.game_actions(state) if seat == state.pos.turn else []
        for verb in VERBS:
            if not isinstance(self._verb(state, seat, verb), Rejection):
                actions.append(Action(verb))
        return actions

    def parse_action(self, state: State, seat: int, text: str) -> Action | Rejection:
        action = parse(text, state.pos.board)
        if isinstance(action, Malformed):
            return Rejection(ErrorCode.MALFORMED_ACTION, action.reason, "HA-1.4")
        return action

    def format_action(self, state: State, action: Action) -> str:
        return format_action(action, state.pos.board)

    def decide(
        self, state: State, seat: int, action: Action, draws: Sequence[DrawResult] = ()
    ) -> Decision:
        if state.outcome:
            return Rejection(ErrorCode.GAME_ENDED, "the game has ended")
        if seat not in (0, 1):
            return Rejection(ErrorCode.UNKNOWN_SEAT, f"seat {seat} does not play this game")
        if action.kind in VERBS:
            return with_state(self.evolve, state, self._verb(state, seat, action.kind))
        pos = state.pos
        if seat != pos.turn:
            return Rejection(ErrorCode.NOT_YOUR_TURN, f"it is {SIDE_NAMES[pos.turn]}'s turn",
                             "HA-4.1")  # fmt: skip
        config = state.config
        problem = check(pos, action, config.cap_at_start, config.medic_can_jump)
        if problem is not None:
            return problem
        events: list[Event] = []
        after = state
        if agreements.pending(state.agreement, seat):  # acting declines the offer
            events.append(DrawDeclined(seat=seat))
            after = self.evolve(after, events[-1])
        events.append(ActionPlayed(seat=seat, action=format_action(action, pos.board)))
        after = self.evolve(after, events[-1])
        if not ends_turn(action):
            return Decided(events, after)
        end = game_end(after.pos, config.turn_limit, action.kind == PASS and pos.passed)
        if end is not None:  # HA-4.1 step 3, HA-8
            events.append(ended(end))
            after = self.evolve(after, events[-1])
            return Decided(events, after)
        for taken in resupplies(after.pos):  # HA-4.1 step 1 of the next turn, HA-R27
            b = after.pos.board
            events.append(Resupplied(seat=after.pos.turn, medic=b.name(taken.medic),
                                     repair=taken.repair, supply=taken.supply))  # fmt: skip
            after = self.evolve(after, events[-1])
        return Decided(events, after)

    def _verb(self, state: State, seat: int, verb: str) -> Decision:
        decision = agreements.decide(verb, seat, state.agreement, "HA-8.3",
                                     may_offer=seat == state.pos.turn)  # fmt: skip
        if isinstance(decision, Rejection) and decision.code is ErrorCode.NOT_YOUR_TURN:
            return Rejection(decision.code, decision.reason, "HA-4.1")
        return decision

    # Events -------------------------------------------------------------------------------

    def evolve(self, state: State, event: Event) -> State:
        if isinstance(event, ActionPlayed):
            action = parse(event.action, state.pos.board)
            assert not isinstance(action, Malformed), action
            pos = play(state.config, state.pos, action)
            agreement = agreements.moved(state.agreement, event.seat)
            return state._replace(pos=pos, agreement=agreement, last=event.action)
        if isinstance(event, Resupplied):
            square = state.pos.board.parse(event.medic)
            assert square is not None
            taken = Resupply(square, event.repair, event.supply)
            return state._replace(pos=resupply(state.pos, taken))
        changed = agreements.changes(state.agreement, event)
        if changed is not None:
            return state._replace(**changed)
        return state

    # Projections --------------------------------------------------------------------------

    def outcome(self, state: State) -> Outcome | None:
        return state.outcome

    def position(self, state: State) -> str:
        return format_position(state.pos)

    def render(self, state: State) -> str:
        result = ""
        if state.outcome:
            result = f"{state.outcome.result} ({state.outcome.reason})"
        return display.render(state.pos, self.position(state), result)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        result = state.outcome.result if state.outcome else None
        return display.view(state.pos, self.position(state), sorted(self.to_act(state)),
                            result, state.last)  # fmt: skip

    def visible(self, event: Event, seat: int | None) -> Event | None:
        return event  # HA-7.1: no hidden information

    def bot_action(self, state: State, seat: int, choose: Callable[[int], int]) -> Any:
        """A random legal action for a bot (None when `seat` is not to act): four times in five
        one that captures an enemy Base when there is one, else any action but a release."""
        if state.outcome or seat != state.pos.turn:
            return None
        actions = [a for a in self.game_actions(state) if a.kind != RELEASE]
        if not actions:  # only releases and no action: impossible, pass is then legal
            return None
        pos = state.pos
        enemy = {x.square for x in pos.bases if x.owner != seat and not x.captured}
        onto = [a for a in actions if a.dst in enemy and a.kind in (MOVE, CRASH, FIRE)]
        pool = onto if onto and choose(5) < 4 else actions
        return pool[choose(len(pool))]


SPACEWAR_HA: Final = SpacewarHa()

__all__ = ["SPACEWAR_HA", "SpacewarHa", "State", "play"]
