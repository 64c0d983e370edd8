"""Sealing what is one seat's alone (its private events, its legal actions) to that seat, and
what is one requester's alone (the seat tokens of a game it created, a matchmaking assignment)
to a key it sent, so nothing private crosses NATS readable by anyone else.

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
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from contracts.commands import SealedBox
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


# -- replies for one requester: sealed to the X25519 key it sent --------------------------------
# X25519 between a fresh ephemeral key and the requester's key, HKDF-SHA256 (info binds both keys
# and the purpose) to a ChaCha20-Poly1305 key; the purpose is also the associated data.


def new_reply_key() -> tuple[X25519PrivateKey, str]:
    """A fresh key pair for one request: (private key, public key as 64 hex)."""
    private = X25519PrivateKey.generate()
    return private, private.public_key().public_bytes_raw().hex()


def _reply_cipher(shared: bytes, epk: str, recipient: str, purpose: str) -> ChaCha20Poly1305:
    info = f"tabula-reply:v1:{purpose}:{epk}:{recipient}".encode()
    return ChaCha20Poly1305(HKDF(hashes.SHA256(), 32, salt=None, info=info).derive(shared))


def seal_to(reply_key: str, purpose: str, data: bytes) -> SealedBox:
    """`data` for the holder of `reply_key`'s private key alone; `purpose` (e.g. the game id
    and what it is) is bound into the key and the associated data."""
    ephemeral = X25519PrivateKey.generate()
    shared = ephemeral.exchange(X25519PublicKey.from_public_bytes(bytes.fromhex(reply_key)))
    epk = ephemeral.public_key().public_bytes_raw().hex()
    nonce = os.urandom(12)
    box = _reply_cipher(shared, epk, reply_key, purpose).encrypt(nonce, data, purpose.encode())
    return SealedBox(epk=epk, nonce=nonce.hex(), box=base64.b64encode(box).decode())


def open_sealed(private: X25519PrivateKey, purpose: str, sealed: SealedBox) -> bytes:
    """The sealed data; raises cryptography's InvalidTag for another key or a forgery."""
    shared = private.exchange(X25519PublicKey.from_public_bytes(bytes.fromhex(sealed.epk)))
    recipient = private.public_key().public_bytes_raw().hex()
    return _reply_cipher(shared, sealed.epk, recipient, purpose).decrypt(
        bytes.fromhex(sealed.nonce), base64.b64decode(sealed.box), purpose.encode()
    )
