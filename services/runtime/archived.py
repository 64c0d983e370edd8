"""The archive of finished games in PostgreSQL (services/runtime/sql/0002): how a game's log and
command ids are packed into its row, and the reader every service and the CLI fall through to
once a game has left Valkey (services.runtime.eventstore.EventStore(archive=...)).

A packed log is the stream's entries exactly as XRANGE returned them, laid out by column before
zlib compresses it (_Log): an entry as append.lua and import_log write it (at stream id 0-<v>,
the fields g, v, type, body, cmd, ts, h and maybe act, `g` the log's game id, `v` its version,
`ts` a decimal number, `h` lowercase hex) keeps only what cannot be derived: its type (from a
table) and body; its command id, time (a difference from the previous) and action once per run
of entries that share them; its hash as 32 raw bytes, or, in a long log (IMPLIED_FROM
entries), not at all when it is the hash chain's link from the entry before (recomputed when
read, about 1 us an entry: domain.fairplay.chain_links, under the chain version of the log's
first entry; format 2). Any other entry is kept whole, as it was (in `odd`), so unpacking gives
back the very bytes Valkey held, whatever they were: the hash chain, the seal's signature and
every receipt verify from the archive as they did from the hot store.
The command ids likewise: a receipt "<first> <last> <hash>" is three numbers' worth, and none
when the log given to pack_commands implies it (the versions and last hash of the command's
entries), which unpack_commands then needs again.
"""

import asyncio
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Final

import msgspec

from contracts.envelope import StoredEvent
from domain.fairplay import CHAIN_VERSIONS, chain_link, chain_links, genesis_hash

FORMAT: Final = 2  # archived_games.format of the layout below (1: every hash stored)
# A log of this many regular entries or more has its hashes recomputed rather than stored: in
# a long log they are most of the row (Yavoch decker's 1,300 events: 40 KB of hashes, which no
# compression shrinks, in 60), and reading it stays faster than from Valkey; in a short one
# they cost little, and recomputing them would make its read slower than Valkey's.
IMPLIED_FROM: Final = 512
READS: Final = (1, 2)  # the formats this release unpacks
LEVEL: Final = 6  # zlib's default: level 9 saved under 0.5% on real logs, at more time

Entries = list[tuple[bytes, dict[bytes, bytes]]]  # XRANGE's raw reply: entry id, fields
_FIELDS: Final = frozenset((b"g", b"v", b"type", b"body", b"cmd", b"ts", b"h"))
_WITH_ACT: Final = _FIELDS | {b"act"}


class _Log(msgspec.Struct, array_like=True, frozen=True):
    """A log by column. The regular entries are the log's entries but the odd ones, in order;
    entry i of the log (0-based) is regular when its id is 0-<i+1>, its v is i+1, its g is `g`,
    its ts is canonical decimal (what int() and back give, under 20 digits), its h is
    64 lowercase hex digits, and it has exactly the fields above (act or not)."""

    g: bytes
    types: list[bytes]  # the distinct types, as first met
    kinds: list[int]  # per regular entry: its type's index in `types`
    # Runs of regular entries with one command id, time and action (None: no act field):
    # command id, time minus the previous run's (the first's minus 0), action, entries.
    runs: list[tuple[bytes, int, bytes | None, int]]
    bodies: list[bytes]  # per regular entry
    hashes: bytes  # per regular entry, 32 bytes; empty when `chain` implies them
    odd: list[tuple[int, bytes, dict[bytes, bytes]]]  # index in the log, entry id, fields
    # 0 (format 1's only value): `hashes` holds them. Else every regular entry's hash is its
    # chain_link under this chain version from the previous entry's (h_0: the genesis of g).
    chain: int = 0


class _Commands(msgspec.Struct, array_like=True, frozen=True):
    """Command ids. Those the log implies ("<first> <last> <h_last>" of its entries with that
    command id, in canonical decimal) are `implied` (indexes into the log's command ids in order
    of first appearance; only when packed with the log); the other canonical ones by column
    (command id, first, last - first, hash as 32 bytes); any other verbatim."""

    prefix: int  # the log's first `prefix` command ids are implied
    implied: list[int]  # and these
    keys: list[bytes]
    firsts: list[int]
    spans: list[int]
    hashes: bytes
    odd: list[tuple[bytes, bytes]]


_log = msgspec.msgpack.Decoder(_Log)
_cmds = msgspec.msgpack.Decoder(_Commands)
_encode = msgspec.msgpack.Encoder().encode


def _hash(h: bytes) -> bytes | None:
    """A hash's 32 bytes when it is 64 lowercase hex digits (so they give it back), else None."""
    if len(h) != 64:
        return None
    try:
        raw = bytes.fromhex(h.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        return None
    return raw if raw.hex().encode() == h else None


def _number(text: bytes) -> int | None:
    """A canonical decimal (what int() and back give, under 20 digits) as a number, else None."""
    if not (0 < len(text) < 20 and text.isdigit()):
        return None
    n = int(text)
    return n if b"%d" % n == text else None


def _genesis(g: bytes) -> bytes | None:
    try:
        return bytes.fromhex(genesis_hash(g.decode("ascii")))
    except (UnicodeDecodeError, ValueError):  # not a game id: no chain to recompute
        return None


def _link(chain: int, v: int, prev: bytes, f: dict[bytes, bytes], ts: int) -> bytes:
    return chain_link(chain, v, prev, f[b"type"], f[b"body"], ts, f[b"cmd"], f.get(b"act", b""))


def _chain_of(entries: Entries, g: bytes, regular: list[bool]) -> int:
    """The chain version under which the first entry's hash is its link from the genesis, when
    that entry is regular; else 0 (every hash stored)."""
    prev = _genesis(g)
    if not entries or not regular[0] or prev is None:
        return 0
    f = entries[0][1]
    raw, ts = _hash(f[b"h"]), int(f[b"ts"])
    return next((c for c in CHAIN_VERSIONS if _link(c, 1, prev, f, ts) == raw), 0)


def _columns(entries: Entries) -> _Log:
    g = next((f[b"g"] for _, f in entries if b"g" in f), b"")
    raws = [_hash(f.get(b"h", b"")) for _, f in entries]
    regular = [
        raws[i] is not None and _number(f.get(b"ts", b"")) is not None
        and entry_id == b"0-%d" % (i + 1) and f.get(b"v") == b"%d" % (i + 1)
        and f.get(b"g") == g and f.keys() in (_FIELDS, _WITH_ACT)
        for i, (entry_id, f) in enumerate(entries)
    ]  # fmt: skip
    chain = _chain_of(entries, g, regular) if sum(regular) >= IMPLIED_FROM else 0
    types: dict[bytes, int] = {}
    kinds: list[int] = []
    runs: list[list[Any]] = []
    bodies: list[bytes] = []
    hashes: list[bytes] = []
    odd: list[tuple[int, bytes, dict[bytes, bytes]]] = []
    previous = 0
    run: tuple[bytes, int, bytes | None] | None = None
    prev = _genesis(g)  # the previous entry's hash (None: not one)
    for i, (entry_id, f) in enumerate(entries):
        raw = raws[i]
        if regular[i] and chain:  # its hash must be the link, or it is kept whole
            regular[i] = prev is not None and _link(chain, i + 1, prev, f, int(f[b"ts"])) == raw
        prev = raw
        if not regular[i]:
            odd.append((i, entry_id, f))
            continue
        ts = int(f[b"ts"])
        this = (f[b"cmd"], ts, f.get(b"act"))
        if this == run:
            runs[-1][3] += 1
        else:
            runs.append([this[0], ts - previous, this[2], 1])
            run, previous = this, ts
        kinds.append(types.setdefault(f[b"type"], len(types)))
        bodies.append(f[b"body"])
        if not chain:
            assert raw is not None  # regular
            hashes.append(raw)
    return _Log(g, list(types), kinds, [tuple(r) for r in runs],
                bodies, b"".join(hashes), odd, chain)  # fmt: skip


def _with_hashes(log: _Log) -> _Log:
    """The log with every regular entry's hash in `hashes`: recomputed when `chain` implies
    them, each from the entry before (an odd one's stored h), a run's entries together."""
    if not log.chain:
        return log
    odd = {i: f for i, _, f in log.odd}
    prev = _genesis(log.g)
    out: list[bytes] = []
    types, kinds, bodies = log.types, log.kinds, log.bodies
    i = pos = ts = 0  # the next regular entry; its place in the log; the run's time
    for cmd, delta, act, count in log.runs:
        ts += delta
        left = count
        while left:
            while pos in odd:
                prev = _hash(odd[pos].get(b"h", b""))
                pos += 1
            if prev is None:  # packed so that it cannot be: a regular entry follows a hash
                raise ValueError("an archived log's hash chain cannot be recomputed")
            n = 1  # the run's regular entries up to the next odd one
            while n < left and pos + n not in odd:
                n += 1
            links = chain_links(log.chain, pos + 1, prev,
                                [(types[kinds[k]], bodies[k]) for k in range(i, i + n)],
                                ts, cmd, act or b"")  # fmt: skip
            out += links
            prev = links[-1]
            i, pos, left = i + n, pos + n, left - n
    return msgspec.structs.replace(log, hashes=b"".join(out), chain=0)


def _entries(log: _Log) -> Entries:
    out: Entries = []
    odd = iter(log.odd)
    pending = next(odd, None)
    i = 0  # the next regular entry
    ts = 0
    g, types, bodies, hashes = log.g, log.types, log.bodies, log.hashes
    for cmd, delta, act, count in log.runs:
        ts += delta
        time = b"%d" % ts
        for _ in range(count):
            while pending is not None and pending[0] == len(out):
                out.append((pending[1], pending[2]))
                pending = next(odd, None)
            v = b"%d" % (len(out) + 1)
            h = hashes[32 * i : 32 * i + 32].hex().encode()
            fields = {b"g": g, b"v": v, b"type": types[log.kinds[i]], b"body": bodies[i],
                      b"cmd": cmd, b"ts": time, b"h": h}  # fmt: skip
            if act is not None:
                fields[b"act"] = act
            out.append((b"0-" + v, fields))
            i += 1
    while pending is not None:
        out.append((pending[1], pending[2]))
        pending = next(odd, None)
    return out


def pack_log(entries: Entries) -> bytes:
    return zlib.compress(_encode(_columns(entries)), LEVEL)


def unpack_log(blob: bytes, fmt: int = FORMAT) -> Entries:
    _known(fmt)
    return _entries(_with_hashes(_log.decode(zlib.decompress(blob))))


def _implied(entries: Entries) -> dict[bytes, bytes]:
    """What the log implies of each of its command ids: "<first> <last> <h_last>", in order of
    first appearance (an entry without cmd, v or h implies nothing for the log)."""
    spans: dict[bytes, list[bytes]] = {}
    for _, f in entries:
        cmd, v, h = f.get(b"cmd"), f.get(b"v"), f.get(b"h")
        if cmd is None or v is None or h is None:
            return {}
        if (span := spans.get(cmd)) is None:
            spans[cmd] = [v, v, h]
        else:
            span[1], span[2] = v, h
    return {cmd: b" ".join(span) for cmd, span in spans.items()}


def pack_commands(commands: dict[bytes, bytes], entries: Entries | None = None) -> bytes:
    """The command ids packed; with the game's log (`entries`), what it implies of them is left
    out, and unpack_commands needs the same log back."""
    implied = _implied(entries) if entries is not None else {}
    order = {cmd: n for n, cmd in enumerate(implied)}
    taken: list[int] = []
    keys: list[bytes] = []
    firsts: list[int] = []
    spans: list[int] = []
    hashes: list[bytes] = []
    odd: list[tuple[bytes, bytes]] = []
    for cmd, value in commands.items():
        if implied.get(cmd) == value:
            taken.append(order[cmd])
            continue
        parts = value.split(b" ")
        if len(parts) == 3:
            first, last, raw = _number(parts[0]), _number(parts[1]), _hash(parts[2])
            if first is not None and last is not None and raw is not None and last >= first:
                keys.append(cmd)
                firsts.append(first)
                spans.append(last - first)
                hashes.append(raw)
                continue
        odd.append((cmd, value))
    taken.sort()  # a dict's order is not kept (HGETALL's is the hash table's): log order packs
    prefix = 0  # the log's first command ids, all implied: their number alone
    while prefix < len(taken) and taken[prefix] == prefix:
        prefix += 1
    packed = _Commands(prefix, taken[prefix:], keys, firsts, spans, b"".join(hashes), odd)
    return zlib.compress(_encode(packed), LEVEL)


def unpack_commands(
    blob: bytes, fmt: int = FORMAT, entries: Entries | None = None
) -> dict[bytes, bytes]:
    """The command ids (as a dict: their order is not kept); ValueError when they were packed
    with the log and `entries` is not it."""
    _known(fmt)
    packed = _cmds.decode(zlib.decompress(blob))
    implied = _implied(entries) if entries is not None and _needs_log(packed) else {}
    return _commands(packed, list(implied.items()))


def _needs_log(packed: _Commands) -> bool:
    return bool(packed.prefix or packed.implied)


def _commands(packed: _Commands, implied: list[tuple[bytes, bytes]]) -> dict[bytes, bytes]:
    out: dict[bytes, bytes] = {}
    try:
        for n in (*range(packed.prefix), *packed.implied):
            cmd, value = implied[n]
            out[cmd] = value
    except IndexError:
        raise ValueError("command ids packed with their log, unpacked without it") from None
    hashes = packed.hashes
    for i, (cmd, first, span) in enumerate(zip(packed.keys, packed.firsts, packed.spans,
                                               strict=True)):  # fmt: skip
        out[cmd] = b"%d %d %s" % (first, first + span, hashes[32 * i : 32 * i + 32].hex().encode())
    out.update(packed.odd)
    return out


def _known(fmt: int) -> None:
    if fmt not in READS:
        raise ValueError(f"an archived game packed as format {fmt}, which this release does "
                         f"not read (it reads {', '.join(map(str, READS))}): upgrade")  # fmt: skip


class ArchiveUnavailable(ConnectionError):
    """PostgreSQL did not answer: the outcome of a read is unknown (a ConnectionError, so the
    services answer it as `service/unavailable`, retry the same request)."""


@dataclass(frozen=True, slots=True)
class ArchivedGame:
    """One archived game, unpacked and parsed: its log in version order and its command ids."""

    game_id: str
    result: str
    # The head the archiver recorded (the meta's at the seal): a reader checks the log against
    # it, as it checks a hot log against the meta.
    head_version: int
    head_hash: str
    stored: tuple[StoredEvent, ...]
    commands: dict[str, str]  # command id -> "<first> <last> <hash>"


@dataclass(frozen=True, slots=True)
class Exact:
    """An archived game as stored: the head the archiver recorded, the log's entries and the
    command ids, every byte as Valkey held it."""

    head_version: int
    head_hash: str
    entries: Entries
    commands: dict[bytes, bytes]


_COLUMNS = "game_id, result, head_version, head_hash, format, log, commands"


def archived_game(row: tuple[Any, ...]) -> ArchivedGame:
    """An archived_games row (the columns of _COLUMNS) unpacked; CorruptEntry (from
    eventstore.parse_entry) naming an entry that does not parse."""
    game_id, result, version, digest, fmt, log, commands = row
    _known(fmt)
    packed = _with_hashes(_log.decode(zlib.decompress(log)))
    packed_cmds = _cmds.decode(zlib.decompress(commands))
    if (stored := _parsed(game_id, packed)) is not None:
        implied = _implied_regular(packed) if _needs_log(packed_cmds) else []
    else:  # an odd entry: each parsed as it is read from Valkey
        from services.runtime.eventstore import parse_entry

        entries = _entries(packed)
        stored = tuple(parse_entry(game_id, entry_id, fields) for entry_id, fields in entries)
        implied = list(_implied(entries).items()) if _needs_log(packed_cmds) else []
    cmds = {k.decode(): v.decode() for k, v in _commands(packed_cmds, implied).items()}
    return ArchivedGame(game_id, result or "", version, digest, stored, cmds)


def _implied_regular(log: _Log) -> list[tuple[bytes, bytes]]:
    """_implied of a log without odd entries, from its runs."""
    spans: dict[bytes, list[int]] = {}
    start = 0
    for cmd, _, _, count in log.runs:
        if (span := spans.get(cmd)) is None:
            spans[cmd] = [start + 1, start + count]
        else:
            span[1] = start + count
        start += count
    hashes = log.hashes
    return [(cmd, b"%d %d %s" % (first, last, hashes[32 * last - 32 : 32 * last].hex().encode()))
            for cmd, (first, last) in spans.items()]  # fmt: skip


def _parsed(game_id: str, log: _Log) -> tuple[StoredEvent, ...] | None:
    """The log's events, as eventstore.parse_entry parses its entries, when every entry is
    regular and its text fields are UTF-8 (so none would be CorruptEntry); else None."""
    if log.odd:
        return None
    try:
        types = [t.decode() for t in log.types]
        runs = [(cmd.decode(), delta, act.decode() if act is not None else "", count)
                for cmd, delta, act, count in log.runs]  # fmt: skip
    except UnicodeDecodeError:
        return None
    hexes = log.hashes.hex()
    kinds, bodies = log.kinds, log.bodies
    raw = msgspec.Raw
    out: list[StoredEvent] = []
    append = out.append
    start = 0
    ts = 0
    for cmd, delta, act, count in runs:
        ts += delta
        for i in range(start, start + count):
            append(StoredEvent(game_id=game_id, version=i + 1, type=types[kinds[i]],
                               body=raw(bodies[i]), time_ms=ts, command_id=cmd,
                               hash=hexes[64 * i : 64 * i + 64], action=act))  # fmt: skip
        start += count
    return tuple(out)


class ArchiveReader:
    """Reads archived games, as the process's read-only role, on one connection (reconnected
    when it breaks). An archived game never changes, so the games read last are kept, up to
    `events` events in all (about 1 KB each parsed); a game not (yet) archived is asked again
    each time."""

    def __init__(self, database_url: str, events: int = 20_000) -> None:
        self.database_url = database_url
        self.events = events
        self.cache: OrderedDict[str, ArchivedGame] = OrderedDict()
        self.cached_events = 0
        self._conn: Any = None  # psycopg.AsyncConnection, imported when first needed
        self._lock = asyncio.Lock()  # one query at a time on the connection

    async def _query(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        import psycopg

        from services.runtime.database import connected

        async with self._lock:
            try:
                self._conn = await connected(
                    self._conn, self.database_url, autocommit=True, connect_timeout=10
                )
                # binary: bytea as bytes, not hex text to parse
                cur = await self._conn.execute(sql, params, binary=True)
                return [tuple(r) for r in await cur.fetchall()]
            except psycopg.OperationalError as exc:
                raise ArchiveUnavailable(f"PostgreSQL: {str(exc).strip()}") from exc

    async def game(self, game_id: str) -> ArchivedGame | None:
        """The archived game, None when the archive does not hold it."""
        if (game := self.cache.get(game_id)) is not None:
            self.cache.move_to_end(game_id)
            return game
        rows = await self._query(
            f"SELECT {_COLUMNS} FROM archived_games WHERE game_id = %s", (game_id,)
        )
        if not rows:
            return None
        game = archived_game(rows[0])
        self.cache[game_id] = game
        self.cached_events += len(game.stored)
        while self.cached_events > self.events and len(self.cache) > 1:
            self.cached_events -= len(self.cache.popitem(last=False)[1].stored)
        return game

    async def exact(self, game_ids: list[str]) -> "dict[str, Exact]":
        """The archived games among `game_ids`, each its head, log entries and command ids as
        stored, unparsed (never cached): what a removal compares with Valkey's keys byte for
        byte. One query for them all."""
        rows = await self._query(
            "SELECT game_id, head_version, head_hash, format, log, commands FROM archived_games "
            "WHERE game_id = ANY(%s)",
            (game_ids,),
        )
        out = {}
        for game_id, version, digest, fmt, log, commands in rows:
            entries = unpack_log(log, fmt)
            out[game_id] = Exact(version, digest, entries, unpack_commands(commands, fmt, entries))
        return out

    async def newest(self, limit: int) -> list[tuple[str, int, dict[str, str]]]:
        """The newest archived games: id, creation time (ms) and what `EventStore.games` lists
        of a game (ruleset, version, result, sealed)."""
        rows = await self._query(
            "SELECT game_id, created_at, ruleset, head_version, result, reason FROM archived_games "
            "ORDER BY created_at DESC, game_id LIMIT %s",
            (limit,),
        )
        out = []
        for game_id, created_at, ruleset, version, result, reason in rows:
            meta = {"ruleset": ruleset, "version": str(version), "sealed": "1", "archived": "1"}
            meta |= {"result": result, "reason": reason} if result else {}
            out.append((game_id, int(created_at.timestamp() * 1000), meta))
        return out

    async def close(self) -> None:
        if self._conn is not None:
            await self._conn.close()
