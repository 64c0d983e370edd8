"""Requests and replies of every service. Inbound requests forbid unknown fields, and every
field is bounded where it is declared: a request outside the bounds is refused as malformed at
decoding, before any handler runs (issue 10: limits everywhere input enters)."""

from typing import Annotated, Any

import msgspec

from contracts.envelope import SealedEvent, StoredEvent
from contracts.errors import ErrorCode

MAX_REQUEST_BYTES = 64 * 1024  # larger requests are refused whole (request/too-large)

# Patterns end in `\Z`, not `$`: msgspec searches with Python's `re`, where `$` also matches
# before a final newline ("g-1\n" would pass). The JSON Schema export writes `$`, which in
# ECMA-262 regular expressions matches only at the end.
GameId = Annotated[str, msgspec.Meta(pattern=r"^[a-z0-9-]{1,64}\Z")]
# Printable ASCII without spaces: a command id is hashed into the chain and keys a hash field.
CommandId = Annotated[str, msgspec.Meta(pattern=r"^[\x21-\x7e]{1,128}\Z")]
Token = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{0,64}\Z")]
Seat = Annotated[int, msgspec.Meta(ge=0, le=63)]
Hex64 = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}\Z")]
Name = Annotated[str, msgspec.Meta(max_length=64)]
Ruleset = Annotated[str, msgspec.Meta(pattern=r"^[a-z0-9-]{1,64}\Z")]
# Notation: printable ASCII (a variant string, a position, an action) within a bound.
Variant = Annotated[str, msgspec.Meta(pattern=r"^[\x20-\x7e]{0,1024}\Z")]
Position = Annotated[str, msgspec.Meta(pattern=r"^[\x20-\x7e]{0,16384}\Z")]
Action = Annotated[str, msgspec.Meta(pattern=r"^[\x20-\x7e]{1,8192}\Z")]
# A ticket becomes part of a NATS subject: no dots, spaces or wildcards.
Ticket = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{1,64}\Z")]
Owner = Annotated[str, msgspec.Meta(min_length=16, max_length=128)]
Version = Annotated[int, msgspec.Meta(ge=0, le=2**53)]


class Request(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class SealedBox(msgspec.Struct, frozen=True, kw_only=True):
    """Data for one requester alone, sealed to the X25519 key it sent (`reply_key`): an
    ephemeral key, a nonce and a ChaCha20-Poly1305 box (services.runtime.sealing)."""

    epk: str  # the sender's ephemeral X25519 public key, 64 hex
    nonce: str  # 24 hex
    box: str  # base64


class Clock(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A chess clock asked for: at most 3 hours and 3 minutes a move; not both zero."""

    base_ms: Annotated[int, msgspec.Meta(ge=0, le=10_800_000)]
    increment_ms: Annotated[int, msgspec.Meta(ge=0, le=180_000)] = 0


class CreateGame(Request, frozen=True, kw_only=True):
    # Idempotency key; when game_id is omitted it is derived from it, so a retry is harmless.
    command_id: CommandId
    # The creator's X25519 public key (64 hex): the seat tokens come sealed to it, and a retry
    # is answered only when it names the same key (a command id alone obtains nothing).
    reply_key: Hex64
    ruleset: Ruleset
    variant: Variant = ""
    game_id: GameId | None = None
    players: Annotated[list[Name], msgspec.Meta(max_length=64)] = []
    position: Position = ""
    # None: the platform default (GameCreated's); at most a day
    reveal_deadline_ms: Annotated[int, msgspec.Meta(ge=0, le=86_400_000)] | None = None
    # A time per move (live minutes or correspondence days; at most 30 days); 0: none
    move_deadline_ms: Annotated[int, msgspec.Meta(ge=0, le=30 * 86_400_000)] = 0
    clock: Clock | None = None  # real-time clocks
    rated: bool = False  # counts for the players' ratings


class Act(Request, frozen=True, kw_only=True):
    game_id: GameId
    seat: Seat
    token: Token
    command_id: CommandId
    action: Action  # the ruleset's action notation
    expected_version: Version | None = None
    # The network lag the client measured for this command (ms): in a game with clocks, up to
    # this much of the time charged is given back, within the seat's quota (docs/clocks.md).
    lag_ms: Annotated[int, msgspec.Meta(ge=0, le=60_000)] = 0
    # Refuse the action (action/loses-the-game, nothing applied) if it would end the game at
    # once lost by the seat that makes it, resigning aside: a person's page asks first.
    careful: bool = False


class ReadEvents(Request, frozen=True, kw_only=True):
    game_id: GameId
    after: Version = 0  # return events with version > after
    limit: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 1000
    seat: Seat | None = None  # with its token: that seat's private events come sealed
    token: Token = ""


class GetView(Request, frozen=True, kw_only=True):
    game_id: GameId
    seat: Seat | None = None  # None: the public (spectator) view
    token: Token = ""
    # A past view: the game as it stood after event `at` (1 to the head), folded from the log,
    # as the seat (or a spectator) saw it then, without legal actions. None: the game now.
    at: Version | None = None


class GetKeys(Request, frozen=True, kw_only=True):
    """The rules service's public signing keys (subjects.RULES_KEYS)."""


class Forget(Request, frozen=True, kw_only=True):
    """One game of a ForgetGames: remove its keys from Valkey if the archive's copy is theirs
    exactly, at this head."""

    game_id: GameId
    version: Version
    hash: Hex64


class ForgetGames(Request, frozen=True, kw_only=True):
    """The archiver's, once the archive holds sealed games (subjects.RULES_FORGET): a batch, so
    a removal costs the rules service a share of one request, not one each."""

    games: Annotated[list[Forget], msgspec.Meta(min_length=1, max_length=64)]


class ForgetSeed(Request, frozen=True, kw_only=True):
    """The rules service's, once it removed an archived game's keys (subjects.RANDOM_FORGET):
    remove the game's seed, secret outcomes and draws (the randomness service's keys)."""

    game_id: GameId


class CreateSeed(Request, frozen=True, kw_only=True):
    game_id: GameId


class Draw(Request, frozen=True, kw_only=True):
    game_id: GameId
    nonce: Version  # the draw's nonce (ignored for a salt)
    kind: Name  # "die" | "uniform" | "shuffle" | "salt" (n is then the deck position)
    n: Annotated[int, msgspec.Meta(ge=0, le=2**32)]
    # SHA256 of the revealed client seeds (protocol 1.4), from the log
    mix: Annotated[str, msgspec.Meta(pattern=r"^([0-9a-f]{64})?\Z")] = ""


class RevealSeed(Request, frozen=True, kw_only=True):
    """Asked by the rules service once the game's end is in the log."""

    game_id: GameId


class Enqueue(Request, frozen=True, kw_only=True):
    ticket: Ticket  # chosen by the player; assignments arrive on subjects.match_assigned(ticket)
    ruleset: Ruleset
    variant: Variant = ""
    player: Name = ""
    reply_key: Hex64  # X25519 public key: the assignment's seat token is sealed to it
    owner: Owner  # a secret of the player's: only it cancels the ticket


class Cancel(Request, frozen=True, kw_only=True):
    ticket: Ticket
    owner: Owner


class PlaySeat(Request, frozen=True, kw_only=True):
    """The gateway's: play this seat with this token at this level until the game ends. Asked
    again (a retry), it changes nothing; the seat is the bots' from the first answer."""

    game_id: GameId
    seat: Seat
    token: Token
    level: Annotated[int, msgspec.Meta(ge=1, le=5)]  # domain.search.levels.LEVELS


class Reply(msgspec.Struct, frozen=True, kw_only=True, tag_field="reply"):
    pass


class Error(Reply, tag="error", frozen=True, kw_only=True):
    code: ErrorCode
    reason: str
    clause: str = ""  # the rule clause an illegal action breaks, e.g. "C3-6.3.3"


class SeatGrant(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    token: str


class Created(Reply, tag="created", frozen=True, kw_only=True):
    game_id: str
    version: int
    hash: str
    seats: int
    tokens: SealedBox  # list[SeatGrant] as JSON, sealed to the request's reply_key
    # The head (game_id, version, hash) signed as in a Receipt
    signature: str = ""
    key: str = ""
    index: int = 0
    path: list[str] = []


class Receipt(Reply, tag="receipt", frozen=True, kw_only=True):
    """An accepted action: the chain head after it, (n, h_n)."""

    game_id: str
    version: int
    hash: str
    first_version: int  # the first event this command appended
    duplicate: bool = False  # a retried command: nothing new was appended
    # The rules service's Ed25519 signature and public key (services.runtime.signing): over the
    # root of a Merkle tree whose leaf `index` is "tabula-receipt:v1:<game>:<version>:<hash>",
    # `path` the sibling hashes from that leaf up. Keep receipts: an arbiter checks a log
    # against them (`tabula audit --receipts`).
    signature: str = ""
    key: str = ""
    index: int = 0
    path: list[str] = []


class Events(Reply, tag="events", frozen=True, kw_only=True):
    game_id: str
    events: list[StoredEvent]
    head: int  # version of the last stored event
    sealed: list[SealedEvent] = []  # the asking seat's private events, whole


class View(Reply, tag="view", frozen=True, kw_only=True):
    game_id: str
    version: int
    ruleset: str
    variant: str
    seat: int | None
    to_act: list[int]
    position: str  # ruleset position notation (e.g. 3D-FEN)
    legal: list[str] = []  # the seat's legal actions, when a seat asked
    # In a game with hidden information the seat's legal actions may tell its secrets (a hand,
    # a hidden piece): they come sealed to the seat instead (services.runtime.sealing, "legal").
    legal_nonce: str = ""
    legal_box: str = ""
    # The ruleset's own JSON view of the game for this seat (None: a spectator), for drawing
    # the board (Ruleset.view); sealed like `legal` ("board") while a hidden game is in play.
    board: dict[str, Any] = {}
    board_nonce: str = ""
    board_box: str = ""
    phase: str = ""  # "seeding" | "setup" | "play" | "ended" (domain.core.table)
    # The time of the last event (ms since the epoch, the service's clock) and the game's time
    # per move: a waiting seat may claim once the seats to act are past it.
    last_event_ms: int = 0
    move_deadline_ms: int = 0
    result: str = ""
    reason: str = ""
    winners: list[int] = []  # the seats that won (the game's GameEnded)
    clock: "ClockView | None" = None


class ClockView(msgspec.Struct, frozen=True, kw_only=True):
    """A game's clocks at `now_ms` (the service's time): each seat's time left, and the seats
    whose clock runs (a page counts those down from here)."""

    base_ms: int
    increment_ms: int
    now_ms: int
    remaining_ms: list[int]
    running: list[int]


class Forgotten(Reply, tag="forgotten", frozen=True, kw_only=True):
    """The game's keys are gone from Valkey (now, or before): its reads go to the archive."""

    game_id: str
    version: int


class ForgottenGames(Reply, tag="forgotten-games", frozen=True, kw_only=True):
    """Each game of a ForgetGames, in its order: Forgotten, or why its keys stay."""

    outcomes: list[Forgotten | Error]


class Keys(Reply, tag="keys", frozen=True, kw_only=True):
    signing: list[str]  # Ed25519 public keys (64 hex) that sign receipts and seals


class SeedCommitted(Reply, tag="seed", frozen=True, kw_only=True):
    game_id: str
    commitment: str


class Drawn(Reply, tag="drawn", frozen=True, kw_only=True):
    game_id: str
    nonce: int
    kind: str
    n: int
    # One value for die/uniform. A shuffle or a salt is secret: it never crosses NATS; the
    # service stores it under the game's secret key for the rules service (stored=True).
    values: list[int] = []
    stored: bool = False


class SeedRevealedReply(Reply, tag="seed-revealed", frozen=True, kw_only=True):
    game_id: str
    server_seed: str


class Queued(Reply, tag="queued", frozen=True, kw_only=True):
    ticket: str
    waiting: int


class Cancelled(Reply, tag="cancelled", frozen=True, kw_only=True):
    ticket: str
    found: bool


class Assignment(Reply, tag="assignment", frozen=True, kw_only=True):
    """Published on subjects.match_assigned(ticket): readable by anyone who listens, so the
    seat's token comes sealed to the ticket's reply_key."""

    ticket: str
    game_id: str
    ruleset: str
    variant: str
    seat: int
    token: SealedBox  # the seat token (UTF-8), sealed to the Enqueue's reply_key


class BotSeated(Reply, tag="bot-seated", frozen=True, kw_only=True):
    game_id: str
    seat: int
    level: int
