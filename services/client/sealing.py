"""Sealing a seat's private events to that seat, so nothing private crosses NATS readable.

The key is derived from the seat's token, which only the seat and the rules service know:
key = HMAC-SHA256(token, "seat-view:v1:" + game_id + ":" + seat). Each sealed event is
ChaCha20-Poly1305 with a fresh random nonce and the (game id, version, seat) as associated
data, so a box cannot be replayed as another event or another seat's.
"""

import base64
import hashlib
import hmac
import os

import msgspec
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from contracts.envelope import SealedEvent, StoredEvent

_decode = msgspec.json.Decoder(StoredEvent).decode


def seat_key(token: str, game_id: str, seat: int) -> bytes:
    return hmac.new(token.encode(), f"seat-view:v1:{game_id}:{seat}".encode(),
                    hashlib.sha256).digest()  # fmt: skip


def _aad(game_id: str, version: int, seat: int) -> bytes:
    return f"sealed:v1:{game_id}:{version}:{seat}".encode()


def seal(token: str, seat: int, event: StoredEvent) -> SealedEvent:
    nonce = os.urandom(12)
    box = ChaCha20Poly1305(seat_key(token, event.game_id, seat)).encrypt(
        nonce, msgspec.json.encode(event), _aad(event.game_id, event.version, seat)
    )
    return SealedEvent(game_id=event.game_id, version=event.version, seat=seat,
                       nonce=nonce.hex(), box=base64.b64encode(box).decode())  # fmt: skip


def unseal(token: str, sealed: SealedEvent) -> StoredEvent:
    """The seat's whole event; raises cryptography's InvalidTag for a wrong token or a forgery."""
    plain = ChaCha20Poly1305(seat_key(token, sealed.game_id, sealed.seat)).decrypt(
        bytes.fromhex(sealed.nonce),
        base64.b64decode(sealed.box),
        _aad(sealed.game_id, sealed.version, sealed.seat),
    )
    event = _decode(plain)
    if (event.game_id, event.version) != (sealed.game_id, sealed.version):
        raise ValueError("a sealed event does not match its envelope")
    return event
