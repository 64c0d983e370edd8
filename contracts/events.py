"""Platform events, shared by every ruleset.

Events are stored as `msgspec.json` bytes of these tagged Structs; the tag is the stream entry's
`type`. Evolution rules: new fields get defaults; never change a field's type or reuse a tag; no
`forbid_unknown_fields`, so older readers decode newer events.
"""

from typing import Annotated

import msgspec

# Each seat's score, seat 0 first, joined by "-": "1-0", "0-1", "1/2-1/2" for two seats,
# "1-0-1/2-1/2" for four, "3/2-1/2" for a match of two games (domain/core/outcome.py).
_SCORE = r"(?:0|[1-9][0-9]{0,5})(?:/[1-9][0-9]{0,5})?"
Result = Annotated[str, msgspec.Meta(pattern=rf"^{_SCORE}(?:-{_SCORE}){{1,63}}\Z")]


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", omit_defaults=True):
    """Base of every stored event (platform and ruleset)."""


class TimeControl(msgspec.Struct, frozen=True, kw_only=True):
    """A chess clock per seat: `base_ms`, plus `increment_ms` after each of its turns (Fischer;
    domain.core.clock)."""

    base_ms: int
    increment_ms: int = 0


class GameCreated(Event, tag="GameCreated", frozen=True, kw_only=True):
    ruleset: str
    game_id: str = ""  # "" in logs written before it was recorded: the envelope's id then
    variant: str = ""
    seats: int
    # Optional teams (lists of seats playing together); empty means every seat for itself.
    teams: list[list[int]] = []
    # Player ids per seat, as matchmaking or the creator named them ("" when anonymous).
    players: list[str] = []
    # A starting position in the ruleset's notation; "" means the standard setup.
    position: str = ""
    # Fair play (docs/fair-play.md): a game that draws random outcomes
    # runs the seed protocol (section 1) before play; one with a hidden simultaneous setup runs
    # the commit/reveal of section 3.
    randomness: bool = False
    hidden_setup: bool = False
    # How long seats owing a seed or setup step may keep the others waiting before a waiting
    # seat may claim the game (fair-play 1.3 and 3: a missing reveal loses).
    reveal_deadline_ms: int = 300_000
    # How long the seats to act may take over one move in play before a waiting seat may
    # claim the game (0: no limit). Time is measured by the service and recorded in TimedOut.
    move_deadline_ms: int = 0
    # The X25519 key the creator sent (CreateGame.reply_key): a retried create must name it to
    # be answered. "" in logs written before it was recorded.
    creator_key: str = ""
    # Real-time clocks (None: none; the time per move above may still apply).
    clock: TimeControl | None = None
    # Whether the game counts for the players' ratings (chosen when it is made).
    rated: bool = False


class Resigned(Event, tag="Resigned", frozen=True, kw_only=True):
    seat: int


class DrawOffered(Event, tag="DrawOffered", frozen=True, kw_only=True):
    """Draws by agreement (two-seat rulesets, domain.core.agreement)."""

    seat: int


class DrawDeclined(Event, tag="DrawDeclined", frozen=True, kw_only=True):
    seat: int


class DrawAccepted(Event, tag="DrawAccepted", frozen=True, kw_only=True):
    seat: int


class GameEnded(Event, tag="GameEnded", frozen=True, kw_only=True):
    result: Result
    reason: str
    winners: list[int] = []


class GameSealed(Event, tag="GameSealed", frozen=True, kw_only=True):
    """Records the final (n, h_n) of the chain (fair-play protocol section 4), signed by the
    rules service: Ed25519 over "tabula-seal:v1:<game>:<version>:<hash>" ("" in older logs)."""

    version: int
    hash: str
    signature: str = ""
    key: str = ""


# -- fair play (protocol sections 1-3). Who may see each is decided in domain.core.table. -----


class SeedCommitted(Event, tag="SeedCommitted", frozen=True, kw_only=True):
    """SHA256(server_seed), recorded before any player input (section 1.1)."""

    commitment: str


class ClientSeedCommitted(Event, tag="ClientSeedCommitted", frozen=True, kw_only=True):
    seat: int
    commitment: str


class ClientSeedRevealed(Event, tag="ClientSeedRevealed", frozen=True, kw_only=True):
    seat: int
    seed: str


class RandomDrawn(Event, tag="RandomDrawn", frozen=True, kw_only=True):
    """A public die(n) or uniform(n) outcome at `nonce` (section 2)."""

    nonce: int
    kind: str  # "die" | "uniform"
    n: int
    purpose: str
    value: int


class DeckShuffled(Event, tag="DeckShuffled", frozen=True, kw_only=True):
    """A shuffle at `nonce`: `order[p]` is the canonical index of the card at position p.
    Seen by nobody until the game ends (it would show every future card)."""

    nonce: int
    n: int
    purpose: str
    order: list[int] = []


class CardDealt(Event, tag="CardDealt", frozen=True, kw_only=True):
    """A private card: the holder sees card and salt; everyone else only the commitment."""

    seat: int
    position: int
    commitment: str
    card: str = ""
    salt: str = ""


class CardRevealed(Event, tag="CardRevealed", frozen=True, kw_only=True):
    """A dealt card turned face up; anyone can check it against its commitment."""

    seat: int
    position: int
    card: str
    salt: str


class SetupCommitted(Event, tag="SetupCommitted", frozen=True, kw_only=True):
    seat: int
    commitment: str


class SetupRevealed(Event, tag="SetupRevealed", frozen=True, kw_only=True):
    """The revealed setup bytes (as text); `rejected` says why they lose the game, if so."""

    seat: int
    nonce: str
    setup: str
    rejected: str = ""


class TimedOut(Event, tag="TimedOut", frozen=True, kw_only=True):
    """Seats that owed a seed or setup step past the deadline; a forfeit follows."""

    seats: list[int]
    idle_ms: int  # how long they had kept the table waiting, as the rules service measured


class SetupsDiscarded(Event, tag="SetupsDiscarded", frozen=True, kw_only=True):
    """Every revealed setup is void and the seats set up again (the ruleset's reason, e.g.
    Cyvasse CY-3.5 `replace`: the two sides' Mountains together seal squares)."""

    reason: str


class ClockCharged(Event, tag="ClockCharged", frozen=True, kw_only=True):
    """The clocks after a command in a game with clocks (domain.core.clock), recorded last
    among its events: the seat charged (-1: none), the service's time of the command, the lag
    its client reported, the time charged and the compensation, and every seat's time left."""

    seat: int
    at_ms: int
    lag_ms: int = 0
    charged_ms: int = 0
    compensation_ms: int = 0
    remaining_ms: list[int] = []


class ClockFlagged(Event, tag="ClockFlagged", frozen=True, kw_only=True):
    """Seats whose clock ran out (past their grace) at `at_ms`; the game's end follows."""

    seats: list[int]
    at_ms: int
    remaining_ms: list[int] = []


class SeedRevealed(Event, tag="SeedRevealed", frozen=True, kw_only=True):
    """The server seed, once the game has ended (section 1.6)."""

    server_seed: str


FAIR_PLAY_EVENTS: tuple[type[Event], ...] = (
    SeedCommitted,
    ClientSeedCommitted,
    ClientSeedRevealed,
    RandomDrawn,
    DeckShuffled,
    CardDealt,
    CardRevealed,
    SetupCommitted,
    SetupRevealed,
    SetupsDiscarded,
    TimedOut,
    SeedRevealed,
)
PLATFORM_EVENTS: tuple[type[Event], ...] = (
    GameCreated,
    Resigned,
    DrawOffered,
    DrawDeclined,
    DrawAccepted,
    GameEnded,
    GameSealed,
    ClockCharged,
    ClockFlagged,
    *FAIR_PLAY_EVENTS,
)
