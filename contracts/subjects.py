"""NATS subject names, built in one place.

Service endpoints are request/reply; `game_events` is a notification of committed events (the
record is the Redis stream, never the subject).
"""

from typing import Final

PREFIX: Final = "tabula"

RULES_SERVICE: Final = "tabula-rules"
RULES_CREATE: Final = f"{PREFIX}.rules.create"
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
