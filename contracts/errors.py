"""Wire error codes: stable strings, the one place they are defined."""

from enum import StrEnum


class ErrorCode(StrEnum):
    MALFORMED = "request/malformed"  # undecodable or schema-violating message
    TOO_LARGE = "request/too-large"  # over contracts.commands.MAX_REQUEST_BYTES
    UNKNOWN_GAME = "game/unknown"
    GAME_EXISTS = "game/exists"
    GAME_ENDED = "game/ended"
    NOT_STARTED = "game/not-started"  # the seed protocol or the hidden setup is still open
    UNKNOWN_RULESET = "ruleset/unknown"
    BAD_VARIANT = "ruleset/bad-variant"
    BAD_POSITION = "ruleset/bad-position"
    UNKNOWN_SEAT = "seat/unknown"
    BAD_TOKEN = "seat/bad-token"
    NOT_YOUR_TURN = "action/not-your-turn"
    MALFORMED_ACTION = "action/malformed"
    ILLEGAL_ACTION = "action/illegal"
    # Asked with `careful`: the action would end the game at once, lost by the one who makes
    # it (a Yavoch HEP CAT that leaves its Command ship without energy). Nothing is applied;
    # the page asks its player, then sends it again without `careful`.
    LOSES = "action/loses-the-game"
    CONFLICT = "append/conflict"  # expected version is stale
    # The store did not answer: the command may or may not be applied. Retry it with the same
    # command id: it is applied once, and the retry returns its receipt.
    UNKNOWN_OUTCOME = "append/unknown-outcome"
    NO_DRAW = "random/unavailable"
    DRAWN = "random/drawn"  # that nonce was drawn already, with other parameters (write-once)
    DRAW_AHEAD = "random/ahead"  # a nonce the game's log is not waiting for
    FORBIDDEN = "request/forbidden"  # the request is well formed but not this requester's
    # The gateway's
    NOT_FOUND = "request/not-found"  # no such page or API route
    SIGN_IN = "session/required"  # no session, or it expired: sign in
    RATE_LIMITED = "request/rate-limited"  # too many requests: wait (Retry-After)
    UNKNOWN_HOST = "request/unknown-host"  # a Host header the gateway does not answer to
    UNKNOWN_CHALLENGE = "challenge/unknown"  # no such open challenge (taken, withdrawn)
    UNKNOWN_PLAYER = "player/unknown"  # no account of that name, nor a player of that id
    IN_PLAY = "game/in-play"  # asked of a finished game only (a complete export)
    UNAVAILABLE = "service/unavailable"  # a service or the store is away: retry, same command id
    # Forget refused: the archive does not hold the game, or its copy is not the hot keys'.
    NOT_ARCHIVED = "archive/not-archived"
    # A stored entry of the game that the store's writers cannot have written (a field missing,
    # a body that does not decode): named; retrying will not help, the operator must look.
    STORE_CORRUPT = "store/corrupt"
    INTERNAL = "internal"
