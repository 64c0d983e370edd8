"""Yavoch, `decker` and `full`, as a ruleset (the Yavoch rulings v1, clauses Y-...; the engine's
own decisions in docs/rules/yavoch.md).

`Yavoch` implements the `Ruleset` protocol (domain/core/ruleset.py) by delegating to the modules
that hold the rules: `decide` (decide.py) checks an action and returns the events, worked out
through a running copy of the state (run.py); `evolve` (evolve.py) applies one event, unchecked.
Turns and the end of the game are in turns.py, legal actions in legal.py, the Full Yavoch's
cards and weapons in full.py, the bots' policy in bot.py, the position record in record.py.
"""

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Final

from contracts.errors import ErrorCode
from contracts.events import Event, GameCreated
from contracts.yavoch import EVENTS
from domain.core import (
    Capability,
    Decision,
    DrawResult,
    Outcome,
    Rejection,
    VariantError,
)
from domain.core.outcome import ended, lose
from domain.yavoch.actions import YAction, action_text, names, parse
from domain.yavoch.bot import bot_action, random_placement
from domain.yavoch.decide import decide
from domain.yavoch.evolve import evolve
from domain.yavoch.full import card_at
from domain.yavoch.legal import legal_actions
from domain.yavoch.notation import format_position
from domain.yavoch.record import format_record, read_position
from domain.yavoch.render import render
from domain.yavoch.state import State, commands
from domain.yavoch.turns import command_lost, has_valid_move, to_act
from domain.yavoch.variant import VARIANTS, parse_variant


class Yavoch:
    """Yavoch: Captain Decker's (`decker`) and the Full Yavoch (`full`)."""

    name = "yavoch"
    capabilities = frozenset({Capability.FORFEIT, Capability.CARDS, Capability.BOT_POLICY})
    variants = VARIANTS
    events: tuple[type[Event], ...] = EVENTS

    # Lifecycle ------------------------------------------------------------------------------

    def create(self, variant: str, position: str = "") -> GameCreated:
        cfg = parse_variant(variant)
        over = _loaded(read_position(State(cfg, ""), position)).outcome if position else None
        if over is not None and over.reason == "immobilized":
            raise VariantError(
                ErrorCode.BAD_POSITION, "the mover has no valid move: the game is over (Y-8.5)"
            )
        if over is not None:
            raise VariantError(ErrorCode.BAD_POSITION, "each player needs its Command ship (Y-8.1)")
        return GameCreated(
            ruleset=self.name, variant=cfg.variant, seats=2, randomness=True, position=position
        )

    def start(self, created: GameCreated) -> State:
        """The first state; a hand-set position whose game is over (which `create` refuses for
        a new game) is loaded with its outcome, as a chess tool loads a mate."""
        state = State(parse_variant(created.variant), created.game_id)
        return _loaded(read_position(state, created.position)) if created.position else state

    def forfeit(self, state: State, losers: Sequence[int], reason: str) -> tuple[Event, ...]:
        """A seat that never revealed its client seed loses (fair-play 1.3)."""
        return (ended(lose(losers, "timeout")),)

    def to_act(self, state: State) -> frozenset[int]:
        return to_act(state)

    def card_at(self, state: State, position: int) -> str | None:
        """The card a deal at `position` must show (the audit's check; full.py)."""
        return card_at(state, position)

    # Actions --------------------------------------------------------------------------------

    def parse_action(self, state: State, seat: int, text: str) -> YAction | Rejection:
        return parse(text)

    def format_action(self, state: State, action: YAction) -> str:
        return action_text(action)

    def decide(
        self, state: State, seat: int, action: YAction, draws: Sequence[DrawResult] = ()
    ) -> Decision:
        return decide(state, seat, action, draws)

    # Events ---------------------------------------------------------------------------------

    def evolve(self, state: State, event: Event) -> State:
        return evolve(state, event)

    # Legal actions --------------------------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> Sequence[YAction]:
        return legal_actions(state, seat)

    # Setup and play for bots (bot.py) -------------------------------------------------------

    def random_placement(self, state: State, seat: int, choose: Callable[[int], int]) -> str:
        """A legal `place ...` for `seat` (Y-3.2), its choices made by `choose(n)` in [0, n)."""
        return random_placement(state, seat, choose)

    def bot_action(self, state: State, seat: int, choose: Callable[[int], int]) -> YAction | None:
        """A random, not suicidal, legal action (None: nothing to do); services/client/bot.py
        asks a ruleset for it when it has one."""
        return bot_action(state, seat, choose)

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
            "window": {"seat": window.seat, "action": window.action, "ships": names(window.ships)}
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
            "draw_offer": state.agreement.offer if state.agreement.offer >= 0 else None,
            "result": out.result if out else None,
            "reason": out.reason if out else None,
            "winners": list(out.winners) if out else [],
        }

    def visible(self, event: Event, seat: int | None) -> Event | None:
        return event  # hidden faces travel only in the platform's CardDealt (the table redacts)


def _loaded(state: State) -> State:
    """A hand-set position with its outcome if its game is over: a Command ship is gone (Y-8.1,
    Y-8.2), or the mover has no valid move (the start check of Y-8.5)."""
    lost = frozenset(seat + 1 for seat in (0, 1) if not commands(state.board, seat))
    if lost:
        return replace(state, outcome=command_lost(state, lost))
    if not has_valid_move(state, state.mover):
        return replace(state, outcome=lose((state.mover,), "immobilized"))
    return state


YAVOCH: Final = Yavoch()
