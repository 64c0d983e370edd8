"""The ruleset interface every game system implements, and `fold`.

A ruleset is a set of pure functions over an immutable state (boardgame.io / Equinox style):

    decide(state, seat, action, draws) -> events | Rejection | NeedDraws
    evolve(state, event) -> state

The events `decide` returns are a `Decided`: a tuple that also carries the state they lead to,
which `decide` worked out anyway, so the service does not fold the same events again (and no
ruleset keeps a memo of its last decision); replay folds with `evolve`.

The service wraps these; they never call out. What later games need is in the shape already:
- several seats may be expected to act at once (`to_act` returns a set: hidden simultaneous
  setup), and a seat may act outside its turn (resignation, a defender's response): `decide`
  alone says who may do what;
- a turn of several actions closed by an explicit end is just several `decide` calls while
  `to_act` stays the same;
- random outcomes needed in the middle of an action: `decide` returns `NeedDraws`, the service
  obtains them and calls `decide` again with `draws`; the events then record the outcomes, so
  `evolve` (and replay) never needs the randomness service;
- hidden information: `view(state, seat)` and `visible(event, seat)` project per seat;
- any number of seats, with teams: `GameCreated.seats` / `.teams`; an `Outcome` scores each
  seat (domain/core/outcome.py) and `agreement` resigns and draws for any number of seats.
"""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast, runtime_checkable

from contracts.errors import ErrorCode
from contracts.events import Event, GameCreated
from domain.core.outcome import Outcome

if TYPE_CHECKING:  # variant.py imports VariantError from here
    from domain.core.variant import VariantSpec


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why an action is refused; `clause` cites the ruling (e.g. "C3-6.3.3")."""

    code: ErrorCode
    reason: str
    clause: str = ""


@dataclass(frozen=True, slots=True)
class DrawRequest:
    """A random outcome `decide` needs before it can produce events.

    kind "die" (2 <= n <= 256), "uniform" (n >= 1) or "shuffle" (n cards) consumes the game's
    next nonce (the table assigns it); kind "salt" asks for the card salt of deck position n.
    """

    kind: str
    n: int
    purpose: str
    nonce: int | None = None  # assigned by the table, never by a ruleset


@dataclass(frozen=True, slots=True)
class DrawResult:
    nonce: int | None  # None for a salt
    kind: str
    n: int
    purpose: str
    values: tuple[int, ...] = ()  # one value for die/uniform; the permutation for a shuffle
    salt: str = ""  # for kind "salt"


@dataclass(frozen=True, slots=True)
class NeedDraws:
    requests: tuple[DrawRequest, ...]


class Decided(tuple[Event, ...]):
    """The events a decision produced, as a tuple, with the state they lead to (`state`):
    `decide` computed it already, so its caller need not fold the same events again. Equal to
    `fold`ing the events over the state decided on (a test holds every ruleset to it)."""

    state: Any

    def __new__(cls, events: Iterable[Event], state: Any) -> "Decided":
        decided = super().__new__(cls, events)
        decided.state = state
        return decided


Decision = tuple[Event, ...] | Rejection | NeedDraws  # a tuple may be `Decided`


class VariantError(ValueError):
    """A variant string or starting position the ruleset cannot accept."""

    def __init__(self, code: ErrorCode, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class Capability(StrEnum):
    """An optional ability a ruleset declares (`Ruleset.capabilities`) and implements with the
    Protocol of the same name below; `check_capabilities` holds the two together once, when the
    ruleset is registered, and the typed accessors (`perft_of`, ...) hand it out."""

    PERFT = "perft"
    FORFEIT = "forfeit"  # any ruleset whose games have seeds or a hidden setup
    HIDDEN_SETUP = "hidden-setup"
    RANDOM_SETUP = "random-setup"
    CARDS = "cards"
    BOT_POLICY = "bot-policy"
    CAN_WIN = "can-win"  # a loss on time is a draw against a side that could not have won


S = TypeVar("S")
A = TypeVar("A")


class Ruleset(Protocol[S, A]):
    """One game system. `S` is its immutable state, `A` its parsed action."""

    name: str
    capabilities: frozenset[Capability]  # its optional abilities (see Capability)
    variants: "VariantSpec[Any]"  # its variants and parameters, and how to read and write them
    # The ruleset's own event types; with contracts.events.PLATFORM_EVENTS they form the union
    # stored in its games' streams.
    events: tuple[type[Event], ...]

    def create(self, variant: str, position: str = "") -> GameCreated:
        """The first event of a new game; raises VariantError for a bad variant or position."""
        ...

    def start(self, created: GameCreated) -> S:
        """The state right after `GameCreated`."""
        ...

    def to_act(self, state: S) -> frozenset[int]:
        """Seats expected to act now (several for simultaneous phases; empty once ended)."""
        ...

    def legal_actions(self, state: S, seat: int) -> Sequence[A]: ...

    def parse_action(self, state: S, seat: int, text: str) -> A | Rejection: ...

    def format_action(self, state: S, action: A) -> str: ...

    def decide(
        self, state: S, seat: int, action: A, draws: Sequence[DrawResult] = ()
    ) -> Decision: ...

    def evolve(self, state: S, event: Event) -> S:
        """Apply an accepted event, unchecked (replay must never reject its own log)."""
        ...

    def outcome(self, state: S) -> Outcome | None: ...

    def position(self, state: S) -> str:
        """The position in the ruleset's text notation (as seen by everyone)."""
        ...

    def render(self, state: S) -> str:
        """A human-readable text picture of the position."""
        ...

    def view(self, state: S, seat: int | None) -> dict[str, Any]:
        """What `seat` (None: a spectator) may see of the state, JSON-ready."""
        ...

    def visible(self, event: Event, seat: int | None) -> Event | None:
        """The projection of `event` for `seat`: itself, a redacted copy, or None."""
        ...


S_contra = TypeVar("S_contra", contravariant=True)


@runtime_checkable
class Perft(Protocol[S_contra]):
    def perft(self, state: S_contra, depth: int) -> int:
        """The number of leaf nodes of the legal-move tree `depth` plies deep."""
        ...


@runtime_checkable
class Forfeit(Protocol[S_contra]):
    def forfeit(self, state: S_contra, losers: Sequence[int], reason: str) -> tuple[Event, ...]:
        """The events that end the game when the seats `losers` lose by an illegal or missing
        step of the fair-play protocol (a seed or setup not revealed in time, an illegal setup)."""
        ...


@runtime_checkable
class HiddenSetup(Protocol[S_contra]):
    """What a ruleset with a hidden simultaneous setup (`GameCreated.hidden_setup`) adds."""

    def check_setup(self, state: S_contra, seat: int, setup: bytes) -> Rejection | None:
        """Whether a revealed setup obeys the placement rules (None: it does)."""
        ...

    def combined_setup_problem(self, state: S_contra) -> str | None:
        """Once every setup is placed: a reason to discard them all and set up again, or
        None (most rulesets: always None)."""
        ...


@runtime_checkable
class RandomSetup(Protocol[S_contra]):
    def random_setup(self, state: S_contra, seat: int, choose: Callable[[int], int]) -> bytes:
        """A legal setup for bots, its choices made by `choose(n)` in [0, n) (the caller's
        randomness: the domain draws none)."""
        ...


@runtime_checkable
class Cards(Protocol[S_contra]):
    def card_at(self, state: S_contra, position: int) -> str | None:
        """The card dealt from deck position `position` (None: not known from `state`), for
        the audit to check each deal against the shuffles."""
        ...


@runtime_checkable
class BotPolicy(Protocol[S_contra]):
    def bot_action(self, state: S_contra, seat: int, choose: Callable[[int], int]) -> Any:
        """The ruleset's own choice for a bot (an action, or None: nothing to play now), its
        choices made by `choose(n)` in [0, n)."""
        ...


@runtime_checkable
class CanWin(Protocol[S_contra]):
    def can_win(self, state: S_contra, seat: int) -> bool:
        """Whether `seat`'s side could still win by some series of legal moves: when the other
        side runs out of time and it could not, the game is drawn (FIDE 6.9's rule)."""
        ...


_PROTOCOLS: dict[Capability, type] = {
    Capability.PERFT: Perft,
    Capability.FORFEIT: Forfeit,
    Capability.HIDDEN_SETUP: HiddenSetup,
    Capability.RANDOM_SETUP: RandomSetup,
    Capability.CARDS: Cards,
    Capability.BOT_POLICY: BotPolicy,
    Capability.CAN_WIN: CanWin,
}


def check_capabilities(ruleset: "Ruleset[Any, Any]") -> None:
    """Raise TypeError unless the ruleset implements exactly the capabilities it declares (a
    hidden setup also needs a forfeit)."""
    declared = ruleset.capabilities
    for capability, protocol in _PROTOCOLS.items():
        has = isinstance(ruleset, protocol)
        if has != (capability in declared):
            verb = "declares" if capability in declared else "implements but does not declare"
            raise TypeError(f"ruleset {ruleset.name} {verb} {capability}")
    if Capability.HIDDEN_SETUP in declared and Capability.FORFEIT not in declared:
        raise TypeError(f"ruleset {ruleset.name}: a hidden setup needs a forfeit")


def perft_of(ruleset: "Ruleset[S, A]") -> "Perft[S] | None":
    return cast("Perft[S]", ruleset) if Capability.PERFT in ruleset.capabilities else None


def forfeit_of(ruleset: "Ruleset[S, A]") -> "Forfeit[S] | None":
    return cast("Forfeit[S]", ruleset) if Capability.FORFEIT in ruleset.capabilities else None


def hidden_setup_of(ruleset: "Ruleset[S, A]") -> "HiddenSetup[S] | None":
    if Capability.HIDDEN_SETUP not in ruleset.capabilities:
        return None
    return cast("HiddenSetup[S]", ruleset)


def random_setup_of(ruleset: "Ruleset[S, A]") -> "RandomSetup[S] | None":
    if Capability.RANDOM_SETUP not in ruleset.capabilities:
        return None
    return cast("RandomSetup[S]", ruleset)


def cards_of(ruleset: "Ruleset[S, A]") -> "Cards[S] | None":
    return cast("Cards[S]", ruleset) if Capability.CARDS in ruleset.capabilities else None


def bot_policy_of(ruleset: "Ruleset[S, A]") -> "BotPolicy[S] | None":
    return cast("BotPolicy[S]", ruleset) if Capability.BOT_POLICY in ruleset.capabilities else None


def can_win_of(ruleset: "Ruleset[S, A]") -> "CanWin[S] | None":
    return cast("CanWin[S]", ruleset) if Capability.CAN_WIN in ruleset.capabilities else None


def with_state(evolve: Callable[[S, Event], S], state: S, decision: Decision) -> Decision:
    """A decision whose events came without the state they lead to (a resignation, an offer:
    cheap to fold) as `Decided`, folded over `state` with `evolve`; any other as it is."""
    if isinstance(decision, tuple) and not isinstance(decision, Decided):
        after = state
        for event in decision:
            after = evolve(after, event)
        return Decided(decision, after)
    return decision


def fold(ruleset: Ruleset[S, A], events: Iterable[Event]) -> S:
    """Rebuild a state from a game's events; the first must be GameCreated."""
    it = iter(events)
    first = next(it, None)
    if not isinstance(first, GameCreated):
        raise ValueError("a game's log must start with GameCreated")
    state = ruleset.start(first)
    for event in it:
        state = ruleset.evolve(state, event)
    return state
