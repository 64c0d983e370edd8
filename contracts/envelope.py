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
    # The command that produced the event, "<seat> <action>" as the seat sent it ("" for the
    # platform's own appends and in logs written before it was recorded; hidden from the
    # public of a game with hidden information until it ends). Inside hash chain v2.
    action: str = ""
    # A projection for someone who may not see all of the event: `body` is then not the
    # stored bytes (the hash is the stored event's), and `audience` names the seats that get
    # the whole event sealed to them (SealedEvent).
    redacted: bool = False
    audience: list[int] = []


class SealedEvent(msgspec.Struct, frozen=True, kw_only=True):
    """A StoredEvent for one seat's eyes only: ChaCha20-Poly1305 under a key derived from the
    seat's token (services.runtime.sealing), so no one else on NATS can read it."""

    game_id: str
    version: int
    seat: int
    nonce: str  # hex, 12 bytes
    box: str  # base64 of the ciphertext of the JSON StoredEvent
