"""Signed heads: the rules service signs every receipt and every seal with Ed25519.

A receipt says "game G had head (n, h_n) when I accepted your command"; a player who keeps it
can later show an arbiter that the service vouched for that history. The operator holds the key
and can sign a rewritten game too, but it cannot unsign what the players hold: a log that lacks
a receipted head (`tabula audit --receipts`) is a rewrite, proven by the service's own
signature. A GameSealed carries the signature over the head it closes, so a log alone shows
that the service sealed it there.

Receipts are signed in batches, as certificate-transparency logs sign tree heads: the receipts
issued in one turn of the event loop are the leaves of a Merkle tree (SHA-256; leaf
`H(0x00 || message)`, node `H(0x01 || left || right)`, padded to a power of two with
`H(0x02)`), one signature covers its root ("tabula-receipts:v1:" || root), and each receipt
carries its index and the sibling hashes up to the root. Under load one signature serves many
moves; alone, a receipt is a tree of one (no siblings).

The key: TABULA_SIGNING_KEY (64 hex, the Ed25519 seed) when set, else one kept in the store
and created once by the first replica (like the seat-token secret). Its public half is served
on subjects.RULES_KEYS and printed by `tabula keys`.
"""

import asyncio
import hashlib
import secrets
from collections.abc import Collection, Sequence

import msgspec
import redis.asyncio as aioredis
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from contracts.commands import Receipt
from contracts.envelope import StoredEvent
from contracts.events import GameSealed
from services.runtime.keys import SIGNING_KEY

_PAD = hashlib.sha256(b"\x02").digest()


def receipt_message(game_id: str, version: int, hash_: str) -> bytes:
    return f"tabula-receipt:v1:{game_id}:{version}:{hash_}".encode()


def seal_message(game_id: str, version: int, hash_: str) -> bytes:
    return f"tabula-seal:v1:{game_id}:{version}:{hash_}".encode()


def root_message(root: bytes) -> bytes:
    return b"tabula-receipts:v1:" + root


def _leaf(message: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + message).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def merkle(messages: Sequence[bytes]) -> tuple[bytes, list[list[str]]]:
    """The root over `messages` and, for each, its sibling hashes (hex) from leaf to root."""
    level = [_leaf(m) for m in messages]
    size = 1
    while size < len(level):
        size *= 2
    level += [_PAD] * (size - len(level))
    paths: list[list[str]] = [[] for _ in messages]
    index = list(range(len(messages)))
    while len(level) > 1:
        for i, at in enumerate(index):
            paths[i].append(level[at ^ 1].hex())
            index[i] = at // 2
        level = [_node(level[k], level[k + 1]) for k in range(0, len(level), 2)]
    return level[0], paths


def root_of(message: bytes, index: int, path: Sequence[str]) -> bytes:
    """The root a receipt's message, index and sibling hashes lead to."""
    node = _leaf(message)
    for sibling in path:
        other = bytes.fromhex(sibling)
        node = _node(node, other) if index % 2 == 0 else _node(other, node)
        index //= 2
    return node


class Signer:
    def __init__(self, seed: bytes) -> None:
        self._key = Ed25519PrivateKey.from_private_bytes(seed)
        self.public = self._key.public_key().public_bytes_raw().hex()

    def sign(self, message: bytes) -> str:
        return self._key.sign(message).hex()

    def seal(self, game_id: str, version: int, hash_: str) -> str:
        return self.sign(seal_message(game_id, version, hash_))


class ReceiptSigner:
    """Signs the receipts asked for in one turn of the event loop under one Merkle root."""

    def __init__(self, signer: Signer) -> None:
        self.signer = signer
        self.public = signer.public
        self._pending: list[tuple[bytes, asyncio.Future[tuple[str, int, list[str]]]]] = []
        self.batches = 0  # signatures made, for stats

    async def receipt(self, game_id: str, version: int, hash_: str) -> tuple[str, int, list[str]]:
        """(signature over the batch's root, this receipt's index, its sibling hashes)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[tuple[str, int, list[str]]] = loop.create_future()
        if not self._pending:
            loop.call_soon(self._flush)  # after every handler ready in this turn has asked
        self._pending.append((receipt_message(game_id, version, hash_), future))
        return await future

    def _flush(self) -> None:
        batch, self._pending = self._pending, []
        root, paths = merkle([message for message, _ in batch])
        signature = self.signer.sign(root_message(root))
        self.batches += 1
        for index, ((_, future), path) in enumerate(zip(batch, paths, strict=True)):
            if not future.done():  # its handler may have been cancelled meanwhile
                future.set_result((signature, index, path))


def verify(public: str, message: bytes, signature: str) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public)).verify(
            bytes.fromhex(signature), message
        )
    except (ValueError, InvalidSignature):
        return False
    return True


def verify_receipt(receipt: Receipt, verified: set[tuple[str, bytes, str]] | None = None) -> bool:
    """Whether the receipt's path leads to a root its signature covers. `verified` remembers
    roots already checked: the receipts of one batch then cost a few hashes each, not an
    Ed25519 verification each."""
    message = receipt_message(receipt.game_id, receipt.version, receipt.hash)
    try:
        root = root_of(message, receipt.index, receipt.path)
    except ValueError:  # a sibling that is not hex
        return False
    signed = (receipt.key, root, receipt.signature)
    if verified is not None and signed in verified:
        return True
    if not verify(receipt.key, root_message(root), receipt.signature):
        return False
    if verified is not None:
        if len(verified) > 10_000:
            verified.clear()
        verified.add(signed)
    return True


async def load_signer(redis: "aioredis.Redis", configured: str | None) -> Signer:
    """The configured key, else the store's (created once by whichever replica is first)."""
    if configured:
        return Signer(bytes.fromhex(configured))
    await redis.set(SIGNING_KEY, secrets.token_hex(32), nx=True)
    value = await redis.get(SIGNING_KEY)
    assert isinstance(value, bytes)
    return Signer(bytes.fromhex(value.decode()))


def read_receipts(data: bytes) -> list[Receipt]:
    """Receipts kept as JSON Lines (what the client writes)."""
    return [msgspec.json.decode(line, type=Receipt) for line in data.splitlines() if line.strip()]


def check_receipts(
    stored: Sequence[StoredEvent], receipts: Sequence[Receipt], keys: Collection[str] = ()
) -> tuple[int, str | None]:
    """(how many receipts of this game the log holds, the first it contradicts in words).

    A receipt is a head the service signed to a player: a log without it, or with another hash
    at its version, is not the history the service vouched for. `keys` pins the service's
    public keys (from `tabula keys`); empty, each receipt is checked under its own key.
    """
    game_id = stored[0].game_id if stored else ""
    mine = [r for r in receipts if r.game_id == game_id]
    for r in mine:
        where = f"receipt for version {r.version} ({r.hash[:16]}…)"
        if not verify_receipt(r):
            return len(mine), f"{where}: its signature does not verify"
        if keys and r.key not in keys:
            return len(mine), f"{where}: signed by {r.key[:16]}…, not a key given"
        if r.version > len(stored):
            return len(mine), (f"{where}: the log ends at version {len(stored)}, before the "
                               "head the service signed")  # fmt: skip
        if stored[r.version - 1].hash != r.hash:
            return len(mine), (f"{where}: the log has {stored[r.version - 1].hash[:16]}… "
                               "there; this is not the history the service signed")  # fmt: skip
    return len(mine), None


def check_seals(
    stored: Sequence[StoredEvent], keys: Collection[str] = ()
) -> tuple[int, str | None]:
    """(signed seals in the log, the first whose signature fails, in words)."""
    signed = 0
    for s in stored:
        if s.type != "GameSealed":
            continue
        seal = msgspec.json.decode(s.body, type=GameSealed)
        if not seal.signature:
            continue  # written before seals were signed
        signed += 1
        if keys and seal.key not in keys:
            return signed, f"the seal at version {s.version} is signed by a key not given"
        if not verify(seal.key, seal_message(s.game_id, seal.version, seal.hash), seal.signature):
            return signed, f"the seal at version {s.version}: its signature does not verify"
    return signed, None
