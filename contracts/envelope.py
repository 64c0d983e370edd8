"""The stored-event envelope: what one Redis stream entry holds, and what crosses the wire."""

import msgspec


class StoredEvent(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    version: int  # 1-based, gapless
    type: str  # the event's tag
    # The exact stored bytes. msgspec.Raw keeps them byte-for-byte through JSON, so a receiver
    # can re-check the chain hash without re-encoding (protocol section 4).
    body: msgspec.Raw
    time_ms: int
    command_id: str
    hash: str  # h_n, lowercase hex
