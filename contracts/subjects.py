"""NATS subject names, built in one place.

Service endpoints are request/reply; `game_events` is a notification of committed events (the
record is the Redis stream, never the subject).
"""

import re
from typing import Final

PREFIX: Final = "tabula"
_GAME_ID: Final = re.compile(r"[a-z0-9-]{1,64}")  # contracts.commands.GameId

RULES_SERVICE: Final = "tabula-rules"
RULES_CREATE: Final = f"{PREFIX}.rules.create"
# Answered by any replica; a game's actions go to rules_act(game_id), which the bus maps to
# the game's partition (ACT_MAPPING), served by one replica at a time (services.rules.partitions).
RULES_ACT: Final = f"{PREFIX}.rules.act"
RULES_READ: Final = f"{PREFIX}.rules.read"
RULES_VIEW: Final = f"{PREFIX}.rules.view"
RULES_KEYS: Final = f"{PREFIX}.rules.keys"  # the public keys that sign receipts and seals
RULES_FORGET: Final = f"{PREFIX}.rules.forget"  # the archiver's alone: remove an archived game
RULES_QUEUE: Final = "rules"

RANDOM_SERVICE: Final = "tabula-randomness"
RANDOM_SEED: Final = f"{PREFIX}.random.seed"
RANDOM_DRAW: Final = f"{PREFIX}.random.draw"
RANDOM_REVEAL: Final = f"{PREFIX}.random.reveal"
RANDOM_FORGET: Final = f"{PREFIX}.random.forget"  # an archived game's seed and draws removed
RANDOM_QUEUE: Final = "randomness"

ARCHIVER_SERVICE: Final = "tabula-archiver"  # answers $SRV only: it copies sealed games
PROJECTOR_SERVICE: Final = "tabula-projector"  # answers $SRV only: it keeps the read model

MATCH_SERVICE: Final = "tabula-matchmaking"
MATCH_ENQUEUE: Final = f"{PREFIX}.match.enqueue"
MATCH_CANCEL: Final = f"{PREFIX}.match.cancel"
MATCH_QUEUE: Final = "matchmaking"

# The bots (services/bots): the gateway hands them a seat to play, with its token.
BOTS_SERVICE: Final = "tabula-bots"
BOTS_PLAY: Final = f"{PREFIX}.bots.play"
BOTS_QUEUE: Final = "bots"


ACT_PARTITIONS: Final = 16  # a change needs the bus's configuration and every replica's at once
# The NATS server's subject mapping (every node the same): tabula.rules.act.<game_id> becomes
# tabula.rules.act.<p>.<game_id>, p a hash of the game id modulo ACT_PARTITIONS.
ACT_MAPPING: Final = {
    f"{RULES_ACT}.*": f"{RULES_ACT}.{{{{partition({ACT_PARTITIONS},1)}}}}.{{{{wildcard(1)}}}}"
}


def rules_act(game_id: str) -> str:
    """Where a game's actions are sent: to the replica that holds its partition. An id that is
    no game's (not one subject token) goes where any replica refuses it, typed."""
    return f"{RULES_ACT}.{game_id}" if _GAME_ID.fullmatch(game_id) else RULES_ACT


def act_partition(partition: int | str) -> str:
    """What a replica holding `partition` subscribes to (after the bus's mapping)."""
    return f"{RULES_ACT}.{partition}.*"


def game_events(game_id: str) -> str:
    """Public projection of every committed event of one game."""
    return f"{PREFIX}.game.{game_id}.events"


def seat_events(game_id: str, seat: int) -> str:
    """One seat's private events, sealed to its key (contracts.envelope.SealedEvent)."""
    return f"{PREFIX}.game.{game_id}.seat.{seat}"


def all_game_events() -> str:
    return f"{PREFIX}.game.*.events"


def game_sealed(game_id: str) -> str:
    """A game's GameSealed notice again, on its own: the archiver's cue, so that it does not
    hear every event of every game to find the seals."""
    return f"{PREFIX}.game.{game_id}.sealed"


def all_games_sealed() -> str:
    return f"{PREFIX}.game.*.sealed"


def match_assigned(ticket: str) -> str:
    """Where matchmaking tells one waiting player its game, seat and token."""
    return f"{PREFIX}.match.assigned.{ticket}"


def all_seat_events() -> str:
    return f"{PREFIX}.game.*.seat.*"


def all_match_assignments() -> str:
    return f"{PREFIX}.match.assigned.*"
