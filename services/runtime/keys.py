"""Every Redis key name Tabula uses, in one place (the ACLs in services.runtime.access are
written against these patterns).

A game's keys share the hash tag `{game_id}`, so the append script (and, on a cluster, one
slot) holds its log, meta and command ids together; the few global keys stand apart.
"""

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


def player_games_key(player: str) -> str:
    """Sorted set: the games a player sits in, by time (ms)."""
    return f"{PREFIX}:gw:player:{player}:games"


def rate_key(scope: str, who: str, window: int) -> str:
    """Counter of one fixed window of a rate limit."""
    return f"{PREFIX}:gw:rate:{scope}:{who}:{window}"


def drawn_key(game_id: str) -> str:
    """Hash: "n:<nonce>" -> "kind n", "mix", and how far the log has been read
    ("log:version", "log:next", "log:dealt")."""
    return _game(game_id, "drawn")
