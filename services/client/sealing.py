"""Sealing what is one seat's alone (its private events, its legal actions) to that seat, so
nothing private crosses NATS readable by anyone else.

The key is derived from the seat's token, which only the seat and the rules service know:
key = HMAC-SHA256(token, "seat-view:v1:" + game_id + ":" + seat). Each box is
ChaCha20-Poly1305 with a fresh random nonce; the associated data binds it to its game, version,
seat and kind, so a box cannot be replayed as another event, another seat's or another kind.
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


def _aad(kind: str, game_id: str, version: int, seat: int) -> bytes:
    return f"sealed:v1:{kind}:{game_id}:{version}:{seat}".encode()


def seal_bytes(token: str, game_id: str, seat: int, version: int, kind: str, data: bytes
               ) -> tuple[str, str]:  # fmt: skip
    """(nonce hex, box base64) of `data` for `seat` only."""
    nonce = os.urandom(12)
    box = ChaCha20Poly1305(seat_key(token, game_id, seat)).encrypt(
        nonce, data, _aad(kind, game_id, version, seat)
    )
    return nonce.hex(), base64.b64encode(box).decode()


def open_bytes(token: str, game_id: str, seat: int, version: int, kind: str, nonce: str,
               box: str) -> bytes:  # fmt: skip
    """The sealed data; raises cryptography's InvalidTag for a wrong token or a forgery."""
    return ChaCha20Poly1305(seat_key(token, game_id, seat)).decrypt(
        bytes.fromhex(nonce), base64.b64decode(box), _aad(kind, game_id, version, seat)
    )


def seal(token: str, seat: int, event: StoredEvent) -> SealedEvent:
    nonce, box = seal_bytes(token, event.game_id, seat, event.version, "event",
                            msgspec.json.encode(event))  # fmt: skip
    return SealedEvent(game_id=event.game_id, version=event.version, seat=seat, nonce=nonce,
                       box=box)  # fmt: skip


def unseal(token: str, sealed: SealedEvent) -> StoredEvent:
    plain = open_bytes(token, sealed.game_id, sealed.seat, sealed.version, "event",
                       sealed.nonce, sealed.box)  # fmt: skip
    event = _decode(plain)
    if (event.game_id, event.version) != (sealed.game_id, sealed.version):
        raise ValueError("a sealed event does not match its envelope")
    return event
