"""Race: a small test ruleset for 2-4 seats that exercises every part of the fair-play table.

Rules (clauses are cited by rejections):

- RACE-0 Notation: the actions are ``roll``, ``draw``, ``play <position>`` and ``resign``.
- RACE-1 Setup (hidden, simultaneous, via the table): each seat's setup is the JSON object
  ``{"boost": k}`` with an integer ``0 <= k <= 3``; the seat starts ``k`` squares ahead. An
  illegal reveal loses the game (result reason ``illegal_setup``; a missing one, ``timeout``).
- RACE-2 Turns: the seats in the race take turns in seat order, seat 0 first; on its turn a
  seat does exactly one of ``roll``, ``draw`` or ``play``, which ends its turn.
- RACE-3 Roll: die(6); the seat advances by the face + 1 (1-6 squares).
- RACE-4 Draw: the seat takes the next card of a 10-card deck, privately. The deck is shuffled
  (one nonce) on the game's first ``draw``. At most 3 cards in hand; no draw from an empty deck.
- RACE-5 Play: the seat reveals a card it holds (``play <deck position>``) and advances by the
  card's value.
- RACE-6 Resign: any seat, at any time; it leaves the race (with its team, in team play).
  When one side is left, it wins (reason ``resignation``).
- RACE-7 Finish: the first seat on square 20 or beyond wins, with its team (reason ``finish``).
- RACE-8 Variants: ``seats=N`` races 2 (the default), 3 or 4 seats; ``teams`` (with 4 seats)
  pairs seats 0 and 2 against 1 and 3.

The canonical deck is ``c1`` .. ``c10``; card ``cN`` is worth ``N mod 5 + 1`` squares (c1 = 2,
c4 = 5, c5 = 1, c10 = 1). Deck position ``p`` holds the card of canonical index ``order[p]``,
``order`` being the deck's ``DeckShuffled`` permutation.
"""

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final

import msgspec

from contracts.errors import ErrorCode
from contracts.events import (
    CardDealt,
    CardRevealed,
    DeckShuffled,
    Event,
    GameCreated,
    SetupRevealed,
)
from domain import fairplay
from domain.core import (
    Capability,
    Decision,
    DrawRequest,
    DrawResult,
    NeedDraws,
    Outcome,
    Rejection,
    VariantError,
    agreement,
)
from domain.core import variant as shared
from domain.core.agreement import Agreement
from domain.core.outcome import Sides, ended, lose, win
from domain.core.variant import Parameter, ParamType, VariantSpec

TARGET: Final = 20
DECK_SIZE: Final = 10
HAND_LIMIT: Final = 3
MAX_BOOST: Final = 3
DECK: Final = tuple(f"c{i}" for i in range(1, DECK_SIZE + 1))


def card_value(card: str) -> int:
    """Squares a card is worth: its number mod 5, plus 1."""
    return int(card[1:]) % 5 + 1


class Advanced(Event, tag="Advanced", frozen=True, kw_only=True):
    """`seat` moved `by` squares; `reason` is "roll" or "card". Ends the seat's turn."""

    seat: int
    by: int
    reason: str


EVENTS: Final[tuple[type[Event], ...]] = (Advanced,)


class Verb(StrEnum):
    ROLL = "roll"
    DRAW = "draw"
    PLAY = "play"
    RESIGN = "resign"


@dataclass(frozen=True, slots=True)
class RaceAction:
    verb: Verb
    position: int = -1  # the deck position of the card, for `play`


@dataclass(frozen=True, slots=True)
class Held:
    """A card in a seat's hand, as dealt (the log holds card and salt)."""

    position: int
    card: str
    salt: str


@dataclass(frozen=True, slots=True)
class Config:
    seats: int = 2
    teams: bool = False


VARIANTS: Final = VariantSpec(
    parameters=(
        Parameter("seats", "how many seats race", ParamType.INT, 2, minimum=2, maximum=4),
        Parameter(
            "teams",
            "seats 0 and 2 race against 1 and 3",
            ParamType.BOOL,
            False,
            bare=True,
            needs=("seats", "4"),
        ),
    ),
    to_config=lambda values: Config(values.number("seats"), values.flag("teams")),
    from_config=lambda config: {"seats": config.seats, "teams": config.teams},
)
TEAMS: Final = ((0, 2), (1, 3))


@dataclass(frozen=True, slots=True)
class RaceState:
    game_id: str
    squares: tuple[int, ...] = (0, 0)
    turn: int = 0
    order: tuple[int, ...] = ()  # the deck's shuffle; () until the first draw
    dealt: int = 0  # cards dealt so far = the next deck position
    hands: tuple[tuple[Held, ...], ...] = ((), ())
    agreement: Agreement = Agreement()  # noqa: RUF009  # immutable; who has resigned (RACE-6)
    outcome: Outcome | None = None

    @property
    def seats(self) -> int:
        return len(self.squares)

    def after(self, seat: int) -> int:
        """The next seat in the race after `seat` (RACE-2)."""
        following = ((seat + k) % self.seats for k in range(1, self.seats))
        return next((s for s in following if self.agreement.in_play(s)), seat)


def _illegal(reason: str, clause: str) -> Rejection:
    return Rejection(ErrorCode.ILLEGAL_ACTION, reason, clause)


def _put(values: tuple[Any, ...], seat: int, value: Any) -> tuple[Any, ...]:
    return (*values[:seat], value, *values[seat + 1 :])


def _find(draws: Sequence[DrawResult], kind: str, n: int | None = None) -> DrawResult | None:
    return next((d for d in draws if d.kind == kind and (n is None or d.n == n)), None)


class Race:
    """The race ruleset (see the module docstring), with every capability a game with seeds,
    a hidden setup and cards may have but perft and a bot policy."""

    name = "race"
    capabilities = frozenset(
        {Capability.FORFEIT, Capability.HIDDEN_SETUP, Capability.RANDOM_SETUP, Capability.CARDS}
    )
    variants: VariantSpec[Any] = VARIANTS
    events: tuple[type[Event], ...] = EVENTS

    # Game lifecycle -----------------------------------------------------------------------

    def create(self, variant: str, position: str = "") -> GameCreated:
        config = shared.parse(VARIANTS, variant)
        if position:
            raise VariantError(ErrorCode.BAD_POSITION, "race always starts from square 0")
        teams = [list(team) for team in TEAMS] if config.teams else []
        return GameCreated(ruleset=self.name, variant=shared.format_variant(VARIANTS, config),
                           seats=config.seats, teams=teams, randomness=True,
                           hidden_setup=True)  # fmt: skip

    def start(self, created: GameCreated) -> RaceState:
        n = created.seats
        return RaceState(created.game_id, (0,) * n, hands=((),) * n,
                         agreement=Agreement(Sides.of(created)))  # fmt: skip

    def to_act(self, state: RaceState) -> frozenset[int]:
        return frozenset() if state.outcome else frozenset((state.turn,))

    def card_at(self, state: RaceState, position: int) -> str | None:
        """The card the deck's shuffle put at `position` (None before the shuffle)."""
        if not 0 <= position < len(state.order):
            return None
        return DECK[state.order[position]]

    # Hidden setup -------------------------------------------------------------------------

    def check_setup(self, state: RaceState, seat: int, setup: bytes) -> Rejection | None:
        try:
            value = json.loads(setup)
        except ValueError:
            return _illegal('a setup is the JSON object {"boost": k}', "RACE-1")
        if not isinstance(value, dict) or set(value) != {"boost"}:
            return _illegal('a setup has exactly one key, "boost"', "RACE-1")
        boost = value["boost"]
        if isinstance(boost, bool) or not isinstance(boost, int):
            return _illegal("the boost is an integer", "RACE-1")
        if not 0 <= boost <= MAX_BOOST:
            return _illegal(f"the boost is 0 to {MAX_BOOST}, got {boost}", "RACE-1")
        return None

    def combined_setup_problem(self, state: RaceState) -> str | None:
        """Boosts never conflict."""
        return None

    def random_setup(self, state: RaceState, seat: int, choose: Callable[[int], int]) -> bytes:
        """A legal setup for bots: a boost of 0-3 picked by `choose`."""
        return msgspec.json.encode({"boost": choose(4)}, order="sorted")

    def forfeit(self, state: RaceState, losers: Sequence[int], reason: str) -> tuple[Event, ...]:
        why = "timeout" if reason == "timeout" else "illegal_setup"
        return (ended(lose(losers, why, state.agreement.sides)),)

    # Actions ------------------------------------------------------------------------------

    def legal_actions(self, state: RaceState, seat: int) -> Sequence[RaceAction]:
        if state.outcome or not 0 <= seat < state.seats or not state.agreement.in_play(seat):
            return []
        actions: list[RaceAction] = []
        if seat == state.turn:
            actions.append(RaceAction(Verb.ROLL))
            if state.dealt < DECK_SIZE and len(state.hands[seat]) < HAND_LIMIT:
                actions.append(RaceAction(Verb.DRAW))
            actions.extend(RaceAction(Verb.PLAY, h.position) for h in state.hands[seat])
        actions.append(RaceAction(Verb.RESIGN))
        return actions

    def parse_action(self, state: RaceState, seat: int, text: str) -> RaceAction | Rejection:
        words = text.strip().lower().split()
        if len(words) == 1 and words[0] in (Verb.ROLL, Verb.DRAW, Verb.RESIGN):
            return RaceAction(Verb(words[0]))
        if len(words) == 2 and words[0] == Verb.PLAY and words[1].isdecimal():
            return RaceAction(Verb.PLAY, int(words[1]))
        return Rejection(ErrorCode.MALFORMED_ACTION,
                         "actions: roll, draw, play <position>, resign", "RACE-0")  # fmt: skip

    def format_action(self, state: RaceState, action: RaceAction) -> str:
        if action.verb is Verb.PLAY:
            return f"play {action.position}"
        return action.verb.value

    def decide(
        self, state: RaceState, seat: int, action: RaceAction, draws: Sequence[DrawResult] = ()
    ) -> Decision:
        if state.outcome:
            return Rejection(ErrorCode.GAME_ENDED, "the game has ended")
        if not 0 <= seat < state.seats:
            return Rejection(ErrorCode.UNKNOWN_SEAT, f"seat {seat} does not race")
        if action.verb is Verb.RESIGN:  # RACE-6
            return agreement.decide("resign", seat, state.agreement, "RACE-6", may_offer=False)
        if seat != state.turn:
            return Rejection(ErrorCode.NOT_YOUR_TURN, f"it is seat {state.turn}'s turn", "RACE-2")
        if action.verb is Verb.ROLL:
            return self._roll(state, seat, draws)
        if action.verb is Verb.DRAW:
            return self._draw(state, seat, draws)
        return self._play(state, seat, action.position)

    def _roll(self, state: RaceState, seat: int, draws: Sequence[DrawResult]) -> Decision:
        die = _find(draws, "die", 6)
        if die is None:
            return NeedDraws((DrawRequest("die", 6, "roll"),))
        return self._advance(state, seat, die.values[0] + 1, "roll")

    def _draw(self, state: RaceState, seat: int, draws: Sequence[DrawResult]) -> Decision:
        if state.dealt >= DECK_SIZE:
            return _illegal("the deck is empty", "RACE-4")
        if len(state.hands[seat]) >= HAND_LIMIT:
            return _illegal(f"you may hold at most {HAND_LIMIT} cards", "RACE-4")
        position = state.dealt
        shuffle = _find(draws, "shuffle", DECK_SIZE)
        salt = _find(draws, "salt", position)
        if (not state.order and shuffle is None) or salt is None:
            salt_request = DrawRequest("salt", position, "deal")
            if state.order:
                return NeedDraws((salt_request,))
            return NeedDraws((DrawRequest("shuffle", DECK_SIZE, "deck"), salt_request))
        order = state.order or (shuffle.values if shuffle else ())
        card = DECK[order[position]]
        commitment = fairplay.card_commitment(state.game_id, position, card, salt.salt)
        return (CardDealt(seat=seat, position=position, commitment=commitment, card=card,
                          salt=salt.salt),)  # fmt: skip

    def _play(self, state: RaceState, seat: int, position: int) -> Decision:
        held = next((h for h in state.hands[seat] if h.position == position), None)
        if held is None:
            return _illegal(f"you hold no card from deck position {position}", "RACE-5")
        revealed = CardRevealed(seat=seat, position=position, card=held.card, salt=held.salt)
        advance = self._advance(state, seat, card_value(held.card), "card")
        return (revealed, *advance)

    def _advance(self, state: RaceState, seat: int, by: int, reason: str) -> tuple[Event, ...]:
        events: list[Event] = [Advanced(seat=seat, by=by, reason=reason)]
        if state.squares[seat] + by >= TARGET:  # RACE-7
            events.append(ended(win(seat, "finish", state.agreement.sides)))
        return tuple(events)

    # Events -------------------------------------------------------------------------------

    def evolve(self, state: RaceState, event: Event) -> RaceState:
        if isinstance(event, Advanced):
            squares = _put(state.squares, event.seat, state.squares[event.seat] + event.by)
            return replace(state, squares=squares, turn=state.after(event.seat))
        if isinstance(event, CardDealt):
            hand = (*state.hands[event.seat], Held(event.position, event.card, event.salt))
            return replace(state, hands=_put(state.hands, event.seat, hand),
                           dealt=event.position + 1, turn=state.after(event.seat))  # fmt: skip
        if isinstance(event, CardRevealed):
            hand = tuple(h for h in state.hands[event.seat] if h.position != event.position)
            return replace(state, hands=_put(state.hands, event.seat, hand))
        if isinstance(event, DeckShuffled) and event.purpose == "deck":
            return replace(state, order=tuple(event.order))
        if isinstance(event, SetupRevealed) and not event.rejected:
            setup = json.loads(event.setup)
            boost = setup.get("boost", 0) if isinstance(setup, dict) else 0
            squares = _put(state.squares, event.seat, state.squares[event.seat] + boost)
            return replace(state, squares=squares)
        if (changed := agreement.changes(state.agreement, event)) is not None:
            state = replace(state, **changed)
            if not state.agreement.in_play(state.turn):  # a resignation on one's turn
                state = replace(state, turn=state.after(state.turn))
        return state  # RandomDrawn (Advanced follows), the rest

    # Projections --------------------------------------------------------------------------

    def outcome(self, state: RaceState) -> Outcome | None:
        return state.outcome

    def position(self, state: RaceState) -> str:
        squares = "-".join(map(str, state.squares))
        hands = "/".join(str(len(hand)) for hand in state.hands)
        to_move = "-" if state.outcome else str(state.turn)
        return f"race {squares} hands {hands} deck {DECK_SIZE - state.dealt} to-move {to_move}"

    def render(self, state: RaceState) -> str:
        lines = []
        for seat in range(state.seats):
            square = min(state.squares[seat], TARGET)
            track = "#" * square + "." * (TARGET - square)
            lines.append(f"seat {seat} |{track}| {state.squares[seat]:>2}  "
                         f"hand {len(state.hands[seat])}")  # fmt: skip
        lines.append(f"deck {DECK_SIZE - state.dealt} cards")
        out = state.outcome
        lines.append(f"{out.result} ({out.reason})" if out else f"seat {state.turn} to move")
        return "\n".join(lines)

    def view(self, state: RaceState, seat: int | None) -> dict[str, Any]:
        out = state.outcome
        hands: list[Any] = []
        for s in range(state.seats):
            if s == seat or out is not None:
                hands.append([{"position": h.position, "card": h.card,
                               "value": card_value(h.card)} for h in state.hands[s]])  # fmt: skip
            else:
                hands.append(len(state.hands[s]))
        return {
            "squares": list(state.squares),
            "target": TARGET,
            "hands": hands,
            "deck": DECK_SIZE - state.dealt,
            "to_move": None if out else state.turn,
            "result": out.result if out else None,
            "reason": out.reason if out else None,
            "winners": list(out.winners) if out else [],
        }

    def visible(self, event: Event, seat: int | None) -> Event | None:
        return event  # the table redacts CardDealt and DeckShuffled


RACE: Final = Race()

__all__ = ["DECK", "RACE", "Advanced", "Held", "Race", "RaceAction", "RaceState", "Verb"]
