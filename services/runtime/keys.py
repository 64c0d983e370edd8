"""Every Redis key name Tabula uses, in one place (the ACLs in services.runtime.access are
written against these patterns).

A game's keys share the hash tag `{game_id}`, so the append script (and, on a cluster, one
slot) holds its log, meta and command ids together; the few global keys stand apart.
"""

import hashlib
from typing import Final

PREFIX: Final = "tabula"
GAME_KEYS: Final = f"{PREFIX}:game:*"  # every per-game key, for key patterns

# Global keys.
GAMES_INDEX: Final = f"{PREFIX}:games"  # sorted set: game id scored by creation time (ms)
TOKEN_SECRET: Final = f"{PREFIX}:secret"  # the seat tokens' HMAC secret, unless configured
SIGNING_KEY: Final = f"{PREFIX}:signing-key"  # the Ed25519 seed, unless configured


def _game(game_id: str, part: str) -> str:
    return f"{PREFIX}:game:{{{game_id}}}:{part}"


# A game's keys. The rules service writes the first three (through the append script only).
def log_key(game_id: str) -> str:
    """The append-only, hash-chained event stream (entry id `0-<version>`)."""
    return _game(game_id, "log")


def meta_key(game_id: str) -> str:
    """Hash: version, head, chain, and what the events imply (ruleset, result, reason,
    sealed)."""
    return _game(game_id, "meta")


def commands_key(game_id: str) -> str:
    """Hash: command id -> "first last hash" of the append it made (idempotence)."""
    return _game(game_id, "cmds")


# The randomness service's.
def seed_key(game_id: str) -> str:
    """The server seed, until the reveal seen by nobody but the randomness service."""
    return _game(game_id, "seed")


def secret_key(game_id: str) -> str:
    """Hash of secret outcomes the rules service reads: `secret_field(...)` -> value."""
    return _game(game_id, "secret")


def secret_field(kind: str, nonce: int, n: int) -> str:
    """ "shuffle:<nonce>" (the order, JSON) or "salt:<deck position>"."""
    return f"salt:{n}" if kind == "salt" else f"{kind}:{nonce}"


# The gateway's, apart from the games (its store user sees nothing else). Sessions are kept
# under the SHA-256 of their id, so a reader of the store cannot take one over.
GATEWAY_KEYS: Final = f"{PREFIX}:gw:*"
CHALLENGES: Final = f"{PREFIX}:gw:challenges"  # sorted set: open challenge ids by time (ms)
GATEWAY_GAMES: Final = f"{PREFIX}:gw:games"  # sorted set: games made through the gateway


def session_key(digest: str) -> str:
    """Hash: player, name (expires with the session)."""
    return f"{PREFIX}:gw:session:{digest}"


def account_key(folded_name: str) -> str:
    """Hash: player id, name as registered, and its Argon2id hash (PHC string), under the
    name case-folded, so one name is one account whatever its case."""
    return f"{PREFIX}:gw:account:{folded_name}"


def account_likeness_key(likeness: str) -> str:
    """The case-folded name of the account that holds every name of this likeness (the TR39
    skeleton, services.gateway.people.likeness), so no account looks like another; claimed
    once (SET NX)."""
    return f"{PREFIX}:gw:account-likeness:{likeness}"


def failures_key(folded_name: str, address: str = "") -> str:
    """Counter of wrong passwords on a name, from one client address (or from everywhere),
    expiring with its window."""
    return f"{PREFIX}:gw:failures:{folded_name}:{address}" if address else \
        f"{PREFIX}:gw:failures:{folded_name}"  # fmt: skip


def challenge_key(challenge_id: str) -> str:
    """Hash: the challenge as JSON ("spec"), and "game" once its game is being made."""
    return f"{PREFIX}:gw:challenge:{challenge_id}"


def challenge_seats_key(challenge_id: str) -> str:
    """Hash: seat -> player id, each claimed once (HSETNX)."""
    return f"{PREFIX}:gw:challenge:{challenge_id}:seats"


def table_key(game_id: str) -> str:
    """Hash: seat -> the seated player as JSON (id, name) and "token:<seat>" -> its seat
    token, which never leaves the gateway."""
    return f"{PREFIX}:gw:table:{game_id}"


def player_challenges_key(player: str) -> str:
    """Sorted set: the challenges a player has open, by time (ms), for its cap."""
    return f"{PREFIX}:gw:player:{player}:challenges"


def player_invitations_key(player: str) -> str:
    """Sorted set: the private challenges for a player (to it by name, or a rematch it is
    offered), by time (ms), lapsing with them."""
    return f"{PREFIX}:gw:player:{player}:invitations"


def player_games_key(player: str) -> str:
    """Sorted set: the games a player sits in, by time (ms)."""
    return f"{PREFIX}:gw:player:{player}:games"


# The house bots' seats not yet handed to the bots service (services.gateway.play.BotDesk):
# any gateway hands over what a gateway that died could not.
HOUSE_BOT_SEATS: Final = f"{PREFIX}:gw:bots:seats"  # sorted set: "<game> <seat>" to hand over, ms


def house_bot_key(game_id: str) -> str:
    """Hash: "<seat>" -> that bot seat's level, until the seat is handed to the bots
    service."""
    return f"{PREFIX}:gw:bots:game:{game_id}"


def player_bot_games_key(player: str) -> str:
    """Sorted set: the player's unfinished games against the house (and "pending:<id>" while
    one is being made), by time (ms): the per-player cap counts them."""
    return f"{PREFIX}:gw:player:{player}:bot-games"


# The people's places in the matchmaking queue (services.gateway.queue), kept so that any
# gateway shows, seats, leaves or cancels a place another gateway took; each expires soon
# after the matchmaker's ticket would.
QUEUE_SEEN: Final = f"{PREFIX}:gw:queue:seen"  # sorted set: ticket -> its page's last ask (ms)


# Places due their bots (services.gateway.queue.Queue.fill): ticket -> when (ms). A place is
# filled under a lease, so that a gateway dying mid-way leaves it to another.
QUEUE_BOTS_DUE: Final = f"{PREFIX}:gw:queue:bots-due"


def queue_fill_key(ticket: str) -> str:
    """String, expiring: the lease of the gateway filling the place's table with bots."""
    return f"{PREFIX}:gw:queue:fill:{ticket}"


def queue_player_key(player: str) -> str:
    """String: the ticket of the player's latest place (which may be gone since)."""
    return f"{PREFIX}:gw:queue:player:{player}"


def queue_place_key(ticket: str) -> str:
    """Hash: player, name, owner (the secret that cancels the ticket), key (the X25519
    private key its seat token comes sealed to, hex), ruleset, variant, seats, waiting, and
    game_id and seat once seated; a person's also bot_level and bot_at (when
    bots join it, ms; 0: never); a bot's bot (its level) and for (its person's player id).
    Never leaves the gateway."""
    return f"{PREFIX}:gw:queue:place:{ticket}"


def feeds_key(scope: str, who: str) -> str:
    """Sorted set: the WebSockets a player or an address holds open, each a lease scored by
    when it lapses (services.gateway.door.Feeds)."""
    return f"{PREFIX}:gw:feeds:{scope}:{who}"


def rate_key(scope: str, who: str, window: int) -> str:
    """Counter of one fixed window of a rate limit."""
    return f"{PREFIX}:gw:rate:{scope}:{who}:{window}"


def drawn_key(game_id: str) -> str:
    """Hash: "n:<nonce>" -> "kind n", "mix", and how far the log has been read
    ("log:version", "log:next", "log:dealt")."""
    return _game(game_id, "drawn")


# The rules replicas' leases on the partitions of the games' actions (services.rules.partitions).
RULES_KEYS: Final = f"{PREFIX}:rules:*"
RULES_REPLICAS: Final = f"{PREFIX}:rules:replicas"  # sorted set: replica id by last seen (ms)
# Sorted set: games with a running clock, by when one may flag at the earliest (ms); never
# later than the truth, so the replicas' timer finds every flag (services.rules.handlers).
CLOCKS_DUE: Final = f"{PREFIX}:rules:clocks"


def act_lease_key(partition: int) -> str:
    """String with a TTL: the replica that serves the partition's actions (SET NX, renewed)."""
    return f"{PREFIX}:rules:act:{partition}"


# The matchmaking service's (services/matchmaking), apart from the games and the gateway's (its
# store user sees nothing else). Every key of one queue shares the hash tag `{<queue>}`, so
# pair.lua touches one slot; the queue name is the ruleset and a digest of the variant (a
# variant is free text, a digest holds no `}`).
MATCH_KEYS: Final = f"{PREFIX}:match:*"
MATCH_QUEUES: Final = f"{PREFIX}:match:queues"  # sorted set: queue names by last enqueue (ms)


def match_queue(ruleset: str, variant: str) -> str:
    """The name of the queue of `ruleset`'s (canonical) `variant`."""
    return f"{ruleset}:{hashlib.sha256(variant.encode()).hexdigest()[:32]}"


def match_prefix(queue: str) -> str:
    """What every key of the queue starts with: pair.lua builds its ticket and table keys from
    it exactly as below."""
    return f"{PREFIX}:match:{{{queue}}}:"


def match_waiting_key(queue: str) -> str:
    """Sorted set: the queue's waiting tickets, by first enqueue (ms)."""
    return match_prefix(queue) + "waiting"


def match_ticket_key(queue: str, ticket: str) -> str:
    """Hash: player, owner (SHA-256 of the owner secret, hex), reply_key, since (first enqueue,
    ms), and "table" once seated; expires unless enqueued again (persists once seated)."""
    return match_prefix(queue) + f"ticket:{ticket}"


def match_tables_key(queue: str) -> str:
    """Sorted set: the queue's tables not yet completed (their game made and announced), by
    when they were formed (ms)."""
    return match_prefix(queue) + "tables"


def match_table_key(queue: str, table: str) -> str:
    """Hash: tickets (space-separated, seat order), "player:<seat>", "reply_key:<seat>",
    "since:<seat>" (the ticket's first enqueue, ms), ruleset, variant, command (the
    CreateGame's command id), key (the X25519 private key the seat tokens come sealed to,
    hex), created (ms)."""
    return match_prefix(queue) + f"table:{table}"


def match_where_key(ticket: str) -> str:
    """String: the queue name a ticket was last enqueued in (a hint for Cancel, which names no
    queue; its own slot, expiring after the ticket)."""
    return f"{PREFIX}:match:where:{ticket}"


# The bots service's (services/bots), apart from everyone else's (its store user sees nothing
# else): every seat it plays, so that any instance carries on a seat another left.
BOTS_KEYS: Final = f"{PREFIX}:bots:*"
BOT_SEATS: Final = f"{PREFIX}:bots:seats"  # sorted set: "<game> <seat>" unfinished, by ms


def bot_seat_key(game_id: str, seat: int) -> str:
    """Hash: token (the seat's), level, secret (hex: the seat's client seed, setup nonce,
    setup, command ids and move seeds derive from it). Never leaves the bots service."""
    return f"{PREFIX}:bots:seat:{game_id}:{seat}"


def bot_lease_key(game_id: str, seat: int) -> str:
    """String with a TTL: the bots instance playing the seat now (SET NX, renewed)."""
    return f"{PREFIX}:bots:lease:{game_id}:{seat}"
