"""Fair-play protocol v1: the pure, byte-exact primitives.

This module implements sections 1-4 of the fair-play protocol v1 (docs/fair-play.md): seed
commitments, the per-draw HMAC-SHA256 byte stream, dice, uniform integers, shuffles, card and
hidden-setup commitments, and the tamper-evident hash chain over a game's event log: chain v1
(:func:`chain_hash`, the protocol's section 4) and chain v2 (:func:`chain_hash_v2`, which also
covers each entry's time and command id; new games use it, v1 logs keep verifying as v1).

It is pure: no randomness, no clock, no I/O. Picking seeds and nonces is the services' job;
everything here is a deterministic function of its arguments, so anyone can recompute a
finished game with ``openssl`` or a short script (see ``docs/fair-play.md``).

Encoding conventions (the protocol's "Strings are ASCII ..." rule):

- every string that is hashed is ASCII; a non-ASCII string is a ``ValueError``;
- integers (seats, nonces, cursors, deck positions) are written in decimal without leading
  zeros (Python's ``str(int)``);
- hashes and seeds are lowercase hex; ``server_seed`` is used as an HMAC key *as its 64 ASCII
  hex characters* (exactly what ``openssl dgst -sha256 -hmac "$SERVER_SEED"`` does), not as
  the 32 bytes it encodes;
- game ids match ``[a-z0-9-]{1,64}``, client seeds ``[A-Za-z0-9_-]{16,64}``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple, Protocol

__all__ = [
    "CHAIN_V1",
    "CHAIN_V2",
    "CHAIN_VERSIONS",
    "ByteSource",
    "ChainEntry",
    "Stream",
    "card_commitment",
    "card_salt",
    "chain_hash",
    "chain_hash_v2",
    "chain_version",
    "client_seed_commitment",
    "die",
    "die_from",
    "entry_hash",
    "genesis_hash",
    "is_valid_client_seed",
    "is_valid_game_id",
    "mix",
    "seed_commitment",
    "setup_commitment",
    "shuffle",
    "shuffle_from",
    "stream",
    "stream_block",
    "uniform",
    "uniform_from",
    "verify_card",
    "verify_chain",
    "verify_client_seed",
    "verify_seed",
    "verify_setup",
]

_GAME_ID = re.compile(r"[a-z0-9-]{1,64}")
_CLIENT_SEED = re.compile(r"[A-Za-z0-9_-]{16,64}")
_HEX64 = re.compile(r"[0-9a-f]{64}")

_U32 = 1 << 32
_U64 = 1 << 64


# --------------------------------------------------------------------------- validation


def is_valid_game_id(game_id: str) -> bool:
    """True if ``game_id`` matches ``[a-z0-9-]{1,64}``."""
    return isinstance(game_id, str) and _GAME_ID.fullmatch(game_id) is not None


def is_valid_client_seed(s: str) -> bool:
    """True if ``s`` is an acceptable client seed: ``[A-Za-z0-9_-]{16,64}``."""
    return isinstance(s, str) and _CLIENT_SEED.fullmatch(s) is not None


def _check_game_id(game_id: str) -> str:
    if not is_valid_game_id(game_id):
        raise ValueError(f"game id must match [a-z0-9-]{{1,64}}, got {game_id!r}")
    return game_id


def _check_hex64(value: str, what: str) -> str:
    if not (isinstance(value, str) and _HEX64.fullmatch(value)):
        raise ValueError(f"{what} must be 64 lowercase hex characters, got {value!r}")
    return value


def _check_client_seed(s: str, what: str = "client seed") -> str:
    if not is_valid_client_seed(s):
        raise ValueError(f"{what} must match [A-Za-z0-9_-]{{16,64}}, got {s!r}")
    return s


def _check_int(value: int, what: str, lo: int, hi: int | None = None) -> int:
    """Require ``lo <= value`` (and ``value <= hi`` if given); bools are not integers here."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an int, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        bound = f"{lo} <= {what}" + (f" <= {hi}" if hi is not None else "")
        raise ValueError(f"{what} out of range: need {bound}, got {value}")
    return value


def _ascii(text: str, what: str) -> bytes:
    if not isinstance(text, str):
        raise ValueError(f"{what} must be a str, got {type(text).__name__}")
    try:
        return text.encode("ascii")
    except UnicodeEncodeError:
        raise ValueError(f"{what} must be ASCII, got {text!r}") from None


def _sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _hmac_sha256(key: str, msg: str) -> bytes:
    return hmac.digest(key.encode("ascii"), msg.encode("ascii"), "sha256")


def _same(a: str, b: str) -> bool:
    """Constant-time comparison of two ASCII strings (False if either is not ASCII)."""
    try:
        return hmac.compare_digest(a.encode("ascii"), b.encode("ascii"))
    except (UnicodeEncodeError, AttributeError):
        return False


# --------------------------------------------------------------------------- 1. seeds


def seed_commitment(server_seed: str) -> str:
    """``SHA256(server_seed)`` over the seed's 64 ASCII hex characters (section 1.1).

    Published in the game's first events, before any player input.
    """
    return _sha256_hex(_check_hex64(server_seed, "server seed").encode("ascii"))


def verify_seed(server_seed: str, commitment: str) -> bool:
    """True if a revealed ``server_seed`` matches its published commitment."""
    return _same(seed_commitment(server_seed), commitment)


def client_seed_commitment(game_id: str, seat: int, client_seed: str) -> str:
    """``SHA256("client-seed:v1:" + game_id + ":" + seat + ":" + client_seed)`` (section 1.2)."""
    _check_game_id(game_id)
    _check_int(seat, "seat", 0)
    _check_client_seed(client_seed)
    return _sha256_hex(f"client-seed:v1:{game_id}:{seat}:{client_seed}".encode("ascii"))


def verify_client_seed(game_id: str, seat: int, client_seed: str, commitment: str) -> bool:
    """True if a seat's revealed client seed matches the commitment it sent (section 1.3)."""
    return _same(client_seed_commitment(game_id, seat, client_seed), commitment)


def mix(client_seeds: Sequence[str]) -> str:
    """``SHA256(client_seed_0 + ":" + client_seed_1 + ...)``, seeds in seat order (section 1.4).

    At least one seed is required; each must be a valid client seed.
    """
    if isinstance(client_seeds, str) or len(client_seeds) == 0:
        raise ValueError("mix needs a non-empty sequence of client seeds, in seat order")
    for seat, s in enumerate(client_seeds):
        _check_client_seed(s, f"client seed of seat {seat}")
    return _sha256_hex(":".join(client_seeds).encode("ascii"))


# --------------------------------------------------------------------------- 1.5 the stream


def stream_block(server_seed: str, game_id: str, mix: str, nonce: int, cursor: int) -> bytes:
    """One 32-byte block of a draw's stream (section 1.5).

    ``HMAC-SHA256(key = server_seed, msg = "v1:" + game_id + ":" + mix + ":" + nonce + ":" +
    cursor)``, the key being the seed's 64 ASCII hex characters.
    """
    _check_hex64(server_seed, "server seed")
    _check_game_id(game_id)
    _check_hex64(mix, "mix")
    _check_int(nonce, "nonce", 0)
    _check_int(cursor, "cursor", 0)
    return _hmac_sha256(server_seed, f"v1:{game_id}:{mix}:{nonce}:{cursor}")


class ByteSource(Protocol):
    """Anything that hands out bytes in order: a :class:`Stream`, or ``io.BytesIO`` in tests."""

    def read(self, size: int, /) -> bytes:
        """Return the next ``size`` bytes (fewer only when exhausted)."""
        ...


class Stream:
    """The byte stream of one draw: blocks for cursor 0, 1, 2, ... concatenated, read in order.

    Use :meth:`read` for whole bytes, or iterate for one ``int`` byte at a time. The stream is
    unbounded; :attr:`consumed` counts the bytes handed out so far.
    """

    __slots__ = ("_buffer", "_cursor", "_key", "_offset", "_prefix", "consumed")

    def __init__(self, server_seed: str, game_id: str, mix: str, nonce: int) -> None:
        _check_hex64(server_seed, "server seed")
        _check_game_id(game_id)
        _check_hex64(mix, "mix")
        _check_int(nonce, "nonce", 0)
        self._key = server_seed.encode("ascii")
        self._prefix = f"v1:{game_id}:{mix}:{nonce}:"
        self._cursor = 0
        self._buffer = b""
        self._offset = 0
        self.consumed = 0

    def _refill(self) -> None:
        msg = f"{self._prefix}{self._cursor}".encode("ascii")
        self._buffer = self._buffer[self._offset :] + hmac.digest(self._key, msg, "sha256")
        self._offset = 0
        self._cursor += 1

    def read(self, size: int, /) -> bytes:
        """Return the next ``size`` bytes of the stream."""
        _check_int(size, "size", 0)
        while len(self._buffer) - self._offset < size:
            self._refill()
        out = self._buffer[self._offset : self._offset + size]
        self._offset += size
        self.consumed += size
        return out

    def __iter__(self) -> Iterator[int]:
        return self

    def __next__(self) -> int:
        return self.read(1)[0]


def stream(server_seed: str, game_id: str, mix: str, nonce: int) -> Stream:
    """The byte stream of the draw numbered ``nonce`` (see :class:`Stream`)."""
    return Stream(server_seed, game_id, mix, nonce)


def _read_exact(source: ByteSource, size: int) -> bytes:
    data = source.read(size)
    if len(data) != size:
        raise ValueError("byte source exhausted")
    return data


# --------------------------------------------------------------------------- 2. draws


def die_from(source: ByteSource, n: int) -> int:
    """Uniform integer in ``[0, n)`` for ``2 <= n <= 256``, by rejection (section 2).

    Reads bytes ``b`` in order and returns ``b mod n`` for the first ``b < 256 - (256 mod n)``;
    e.g. for ``n = 10`` the bytes 250-255 are skipped.
    """
    _check_int(n, "n", 2, 256)
    limit = 256 - 256 % n
    while True:
        b = _read_exact(source, 1)[0]
        if b < limit:
            return b % n


def uniform_from(source: ByteSource, m: int) -> int:
    """Uniform integer in ``[0, m)`` for ``1 <= m <= 2**32``, by rejection (section 2).

    Reads 4 bytes big-endian as ``u``; accepts ``u < 2**32 - (2**32 mod m)`` and returns
    ``u mod m``, else reads the next 4.
    """
    _check_int(m, "m", 1, _U32)
    limit = _U32 - _U32 % m
    while True:
        u = int.from_bytes(_read_exact(source, 4), "big")
        if u < limit:
            return u % m


def shuffle_from(source: ByteSource, k: int) -> list[int]:
    """Fisher-Yates shuffle of the deck ``[0, 1, ..., k-1]`` (section 2).

    For ``i = k-1`` down to ``1``: ``j = uniform(i+1)``, swap ``deck[i]`` and ``deck[j]``, all
    draws from the one source. Returns the permuted deck of canonical card indices;
    ``result[0]`` is dealt first.
    """
    _check_int(k, "k", 0, _U32)
    deck = list(range(k))
    for i in range(k - 1, 0, -1):
        j = uniform_from(source, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def die(server_seed: str, game_id: str, mix: str, nonce: int, n: int) -> int:
    """The draw numbered ``nonce`` as a die with faces ``0 .. n-1`` (``2 <= n <= 256``)."""
    _check_int(n, "n", 2, 256)
    return die_from(Stream(server_seed, game_id, mix, nonce), n)


def uniform(server_seed: str, game_id: str, mix: str, nonce: int, m: int) -> int:
    """The draw numbered ``nonce`` as a uniform integer in ``[0, m)`` (``1 <= m <= 2**32``)."""
    _check_int(m, "m", 1, _U32)
    return uniform_from(Stream(server_seed, game_id, mix, nonce), m)


def shuffle(server_seed: str, game_id: str, mix: str, nonce: int, k: int) -> list[int]:
    """The draw numbered ``nonce`` as a shuffle of ``k`` cards (one nonce per shuffle).

    Returns canonical indices ``0 .. k-1`` in dealing order: ``result[p]`` is the index, in the
    ruleset's canonical order, of the card at deck position ``p``.
    """
    _check_int(k, "k", 0, _U32)
    return shuffle_from(Stream(server_seed, game_id, mix, nonce), k)


def card_salt(server_seed: str, game_id: str, position: int) -> str:
    """``hex(HMAC-SHA256(server_seed, "salt:v1:" + game_id + ":" + position))`` (section 2)."""
    _check_hex64(server_seed, "server seed")
    _check_game_id(game_id)
    _check_int(position, "position", 0)
    return _hmac_sha256(server_seed, f"salt:v1:{game_id}:{position}").hex()


def card_commitment(game_id: str, position: int, card_id: str | int, salt: str) -> str:
    """``SHA256("card:v1:" + game_id + ":" + position + ":" + card_id + ":" + salt)``.

    ``card_id`` is the ruleset's ASCII card id; an ``int`` is written in decimal. ``salt`` is
    the position's :func:`card_salt`.
    """
    _check_game_id(game_id)
    _check_int(position, "position", 0)
    if isinstance(card_id, str):
        card = _ascii(card_id, "card id").decode("ascii")
        if not card:
            raise ValueError("card id must not be empty")
    else:
        card = str(_check_int(card_id, "card id", 0))
    _check_hex64(salt, "salt")
    return _sha256_hex(f"card:v1:{game_id}:{position}:{card}:{salt}".encode("ascii"))


def verify_card(
    game_id: str, position: int, card_id: str | int, salt: str, commitment: str
) -> bool:
    """True if ``(card_id, salt)`` opens the public commitment of deck position ``position``."""
    return _same(card_commitment(game_id, position, card_id, salt), commitment)


# --------------------------------------------------------------------------- 3. hidden setup


def setup_commitment(game_id: str, seat: int, nonce: str, setup_bytes: bytes) -> str:
    """``SHA256("setup:v1:" + game_id + ":" + seat + ":" + nonce + ":" || setup_bytes)``.

    ``nonce`` is the client's 32-byte hex nonce (64 lowercase hex characters, not a draw
    nonce); ``setup_bytes`` are the exact bytes the client encoded and will reveal.
    """
    _check_game_id(game_id)
    _check_int(seat, "seat", 0)
    _check_hex64(nonce, "setup nonce")
    if not isinstance(setup_bytes, bytes):
        raise ValueError(f"setup bytes must be bytes, got {type(setup_bytes).__name__}")
    head = f"setup:v1:{game_id}:{seat}:{nonce}:".encode("ascii")
    return _sha256_hex(head + setup_bytes)


def verify_setup(game_id: str, seat: int, nonce: str, setup_bytes: bytes, commitment: str) -> bool:
    """True if a revealed ``(nonce, setup_bytes)`` matches the seat's setup commitment."""
    return _same(setup_commitment(game_id, seat, nonce, setup_bytes), commitment)


# --------------------------------------------------------------------------- 4. the log chain

CHAIN_V1 = 1
CHAIN_V2 = 2
CHAIN_VERSIONS = (CHAIN_V2, CHAIN_V1)
"""The hash chain versions, in the order a verifier tries them on ``h_1``."""


def genesis_hash(game_id: str) -> str:
    """``h_0 = SHA256("gamelog:v1:genesis:" + game_id)`` (section 4)."""
    return _sha256_hex(f"gamelog:v1:genesis:{_check_game_id(game_id)}".encode("ascii"))


def _checked_link(
    chain: int,
    version: int,
    prev: bytes,
    type_: str,
    body: bytes,
    time_ms: int = 0,
    command_id: str = "",
    action: str = "",
) -> bytes:
    """:func:`chain_link` of an entry's fields as stored (the type, command id and action as
    text), each checked as the chain defines it (``ValueError`` otherwise); ``prev`` is
    ``h_(n-1)``'s 32 raw bytes."""
    _check_int(version, "version", 1, _U64 - 1)
    tag = _ascii(type_, "event type")
    if not isinstance(body, bytes):
        raise ValueError(f"event body must be bytes, got {type(body).__name__}")
    if len(tag) >= _U32 or len(body) >= _U32:
        raise ValueError("event type and body must each be shorter than 2**32 bytes")
    if chain == CHAIN_V1:
        return chain_link(CHAIN_V1, version, prev, tag, body)
    _check_int(time_ms, "time_ms", 0, _U64 - 1)
    cmd = _ascii(command_id, "command id")
    act = _ascii(action, "action")
    if len(cmd) >= _U32 or len(act) >= _U32:
        raise ValueError("command id and action must each be shorter than 2**32 bytes")
    return chain_link(CHAIN_V2, version, prev, tag, body, time_ms, cmd, act)


def chain_link(
    chain: int,
    version: int,
    prev: bytes,
    type_: bytes,
    body: bytes,
    time_ms: int = 0,
    command_id: bytes = b"",
    action: bytes = b"",
) -> bytes:
    """``h_n`` under chain version ``chain`` (:data:`CHAIN_V1`: the time, command id and action
    are not hashed) as its 32 raw bytes, from ``h_(n-1)``'s 32 raw bytes and the entry's
    fields as bytes, unchecked: the definition :func:`chain_hash` and :func:`chain_hash_v2`
    check their arguments for."""
    return chain_links(chain, version, prev, [(type_, body)], time_ms, command_id, action)[0]


def chain_links(
    chain: int,
    version: int,
    prev: bytes,
    entries: Sequence[tuple[bytes, bytes]],
    time_ms: int = 0,
    command_id: bytes = b"",
    action: bytes = b"",
) -> list[bytes]:
    """:func:`chain_link` of consecutive entries (type, body) from ``version`` on that share
    their time, command id and action (a command's append), each from the one before: what
    they share is encoded once (a reader recomputing a whole log's hashes)."""
    prefix = b"gamelog:v2:" if chain == CHAIN_V2 else b"gamelog:v1:"
    shared = b""
    if chain == CHAIN_V2:
        shared = b"".join((time_ms.to_bytes(8, "big"), len(command_id).to_bytes(4, "big"),
                           command_id, len(action).to_bytes(4, "big"), action))  # fmt: skip
    out = []
    for type_, body in entries:
        prev = hashlib.sha256(b"".join((
            prefix, version.to_bytes(8, "big"), prev, len(type_).to_bytes(4, "big"), type_,
            len(body).to_bytes(4, "big"), body, shared,
        ))).digest()  # fmt: skip
        out.append(prev)
        version += 1
    return out


def chain_hash(version: int, prev_hash: str, type_: str, body: bytes) -> str:
    """Hash chain **v1**: ``h_n`` of the event at ``version`` n (1-based), given ``prev_hash`` =
    ``h_(n-1)``.

    ``SHA256("gamelog:v1:" || u64be(n) || h_(n-1) || u32be(len(type)) || type ||
    u32be(len(body)) || body)``.

    ``h_(n-1)`` enters as its **32 raw digest bytes** (``bytes.fromhex(prev_hash)``), not as 64
    hex characters: the section 5 test vectors hold only under that reading. ``prev_hash`` is
    given and the result returned as lowercase hex. ``type_`` is the ASCII event tag; ``body``
    the exact stored bytes (never re-encode to verify).

    v1 leaves the stream entry's ``ts`` and ``cmd`` outside the chain; games stored since
    :func:`chain_hash_v2` exists use v2, and logs written under v1 keep verifying under v1.
    """
    prev = bytes.fromhex(_check_hex64(prev_hash, "previous hash"))
    return _checked_link(CHAIN_V1, version, prev, type_, body).hex()


def chain_hash_v2(
    version: int,
    prev_hash: str,
    type_: str,
    body: bytes,
    time_ms: int,
    command_id: str,
    action: str = "",
) -> str:
    """Hash chain **v2**: v1 extended by the entry's time, command id and action.

    ``SHA256("gamelog:v2:" || u64be(n) || h_(n-1) || u32be(len(type)) || type ||
    u32be(len(body)) || body || u64be(time_ms) || u32be(len(cmd)) || cmd ||
    u32be(len(act)) || act)``.

    Everything v1 hashes is hashed the same way (``h_(n-1)`` as its 32 raw bytes); ``time_ms``
    is the stored ``ts`` (milliseconds since the Unix epoch, ``0 <= time_ms < 2**64``), ``cmd``
    the stored command id and ``act`` the stored action (``"<seat> <action>"`` of the command
    that produced the event, ``""`` for the platform's own appends), both ASCII (otherwise a
    ``ValueError``; the event store refuses such a command before anything is stored). The
    genesis ``h_0`` is v1's :func:`genesis_hash`: the version shows in every ``h_n`` from
    ``h_1`` on.
    """
    prev = bytes.fromhex(_check_hex64(prev_hash, "previous hash"))
    return _checked_link(CHAIN_V2, version, prev, type_, body, time_ms, command_id,
                         action).hex()  # fmt: skip


def entry_hash(
    chain: int,
    version: int,
    prev_hash: str,
    type_: str,
    body: bytes,
    time_ms: int,
    command_id: str,
    action: str = "",
) -> str:
    """``h_n`` under hash chain ``chain`` (:data:`CHAIN_V1` or :data:`CHAIN_V2`).

    v1 ignores ``time_ms``, ``command_id`` and ``action``; v2 hashes them
    (:func:`chain_hash_v2`).
    """
    if chain == CHAIN_V2:
        return chain_hash_v2(version, prev_hash, type_, body, time_ms, command_id, action)
    if chain == CHAIN_V1:
        return chain_hash(version, prev_hash, type_, body)
    raise ValueError(f"unknown hash chain version {chain!r}: this code knows v1 and v2")


class ChainEntry(NamedTuple):
    """One stored event as the chain sees it: its version, type tag, stored bytes, time
    (``ts``, ms) and command id (``cmd``), ``h_n``, and the action (``act``; last, so a
    6-tuple without it means ``""``)."""

    version: int
    type: str
    body: bytes
    time_ms: int
    command_id: str
    hash: str
    action: str = ""


Entry = ChainEntry | tuple[int, str, bytes, int, str, str]
"""What the verifiers take: a ChainEntry, or a 6-tuple (no action)."""


def _fields(entry: Entry) -> ChainEntry:
    return entry if isinstance(entry, ChainEntry) else ChainEntry(*entry)


def _first_link(game_id: str, entry: Entry) -> int | None:
    """The chain version whose formula reproduces the stored ``h_1`` of ``entry`` (v2 tried
    first), or ``None``."""
    version, type_, body, time_ms, command_id, stored, action = _fields(entry)
    if isinstance(version, bool) or version != 1:
        return None
    prev = genesis_hash(game_id)
    for chain in CHAIN_VERSIONS:
        try:
            computed = entry_hash(chain, version, prev, type_, body, time_ms, command_id, action)
        except ValueError:
            continue
        if _same(computed, stored):
            return chain
    return None


def chain_version(game_id: str, entries: Iterable[Entry]) -> int | None:
    """The hash chain version of a log: the one whose formula reproduces its stored ``h_1``.

    Returns :data:`CHAIN_V2` or :data:`CHAIN_V1`, or ``None`` for an empty log or one whose
    first entry is not version 1 or matches neither formula. Only ``h_1`` decides; use
    :func:`verify_chain` to check the rest. ``entries`` as for :func:`verify_chain`.
    """
    for entry in entries:
        return _first_link(game_id, entry)
    return None


def verify_chain(game_id: str, entries: Iterable[Entry]) -> int | None:
    """Check a game's log; return the first version that does not verify, or ``None``.

    ``entries`` are :class:`ChainEntry` (or ``(version, type, body, time_ms, command_id,
    hash)``, without an action) in stored order. The log's chain version is the one that
    reproduces ``h_1`` (v2 tried first, then v1; :func:`chain_version`) and every later entry
    must verify under the same version: a v1 log ignores ``time_ms``, ``command_id`` and
    ``action``, a v2 log covers them. Versions must run 1, 2, 3, ... without gaps. The result
    is the version ``n`` whose ``h_n`` cannot be confirmed: for a wrong hash, altered type,
    body, time, command id or action (v2) it is
    the entry's version; for a gap, repeat or reordering it is the *expected* version (the one
    missing, e.g. 3 for versions 1, 2, 4). A stored hash in upper case counts as wrong. An
    empty log verifies (``None``).
    """
    _check_game_id(game_id)
    prev = b""  # h_(n-1)'s raw bytes, once h_1 has decided the chain
    chain: int | None = None
    expected = 1
    for entry in entries:
        version, type_, body, time_ms, command_id, stored, action = _fields(entry)
        if isinstance(version, bool) or version != expected:
            return expected
        if chain is None:
            chain = _first_link(game_id, entry)
            if chain is None:
                return expected
            prev = bytes.fromhex(stored)
            expected += 1
            continue
        try:
            prev = _checked_link(chain, version, prev, type_, body, time_ms, command_id, action)
        except ValueError:
            return expected
        # A hash is public: a plain comparison (an upper-case stored hash counts as wrong).
        if prev.hex() != stored:
            return expected
        expected += 1
    return None
