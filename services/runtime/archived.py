"""The archive of finished games in PostgreSQL (services/runtime/sql/0002): how a game's log and
command ids are packed into its row, and the reader every service and the CLI fall through to
once a game has left Valkey (services.runtime.eventstore.EventStore(archive=...)).

A packed log is the stream's entries exactly as XRANGE returned them, `[entry id, {field:
stored bytes}]` in order, as msgpack (whose bin type keeps every byte), zlib-compressed; the
command ids likewise. Unpacking gives back the very bytes Valkey held, so the hash chain, the
seal's signature and every receipt verify from the archive as they did from the hot store.
"""

import asyncio
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

import msgspec

from contracts.envelope import StoredEvent

FORMAT: Final = 1  # archived_games.format of the layout below
LEVEL: Final = 6  # zlib's default: most of level 9's size at a fraction of its time

Entries = list[tuple[bytes, dict[bytes, bytes]]]  # XRANGE's raw reply: entry id, fields
_entries = msgspec.msgpack.Decoder(Entries)
_commands = msgspec.msgpack.Decoder(dict[bytes, bytes])


def pack_log(entries: Entries) -> bytes:
    return zlib.compress(msgspec.msgpack.encode(entries), LEVEL)


def pack_commands(commands: dict[bytes, bytes]) -> bytes:
    return zlib.compress(msgspec.msgpack.encode(commands), LEVEL)


def unpack_log(blob: bytes, fmt: int = FORMAT) -> Entries:
    _known(fmt)
    return _entries.decode(zlib.decompress(blob))


def unpack_commands(blob: bytes, fmt: int = FORMAT) -> dict[bytes, bytes]:
    _known(fmt)
    return _commands.decode(zlib.decompress(blob))


def _known(fmt: int) -> None:
    if fmt != FORMAT:
        raise ValueError(f"an archived game packed as format {fmt}, which this release does "
                         f"not read (it reads {FORMAT}): upgrade")  # fmt: skip


class ArchiveUnavailable(ConnectionError):
    """PostgreSQL did not answer: the outcome of a read is unknown (a ConnectionError, so the
    services answer it as `service/unavailable`, retry the same request)."""


@dataclass(frozen=True, slots=True)
class ArchivedGame:
    """One archived game, unpacked and parsed: its log in version order and its command ids."""

    game_id: str
    ruleset: str
    result: str
    created_at: datetime
    # The head the archiver recorded (the meta's at the seal): a reader checks the log against
    # it, as it checks a hot log against the meta.
    head_version: int
    head_hash: str
    stored: tuple[StoredEvent, ...]
    commands: dict[str, str]  # command id -> "<first> <last> <hash>"


_COLUMNS = "game_id, ruleset, result, created_at, head_version, head_hash, format, log, commands"


def archived_game(row: tuple[Any, ...]) -> ArchivedGame:
    """An archived_games row (the columns of _COLUMNS) unpacked; CorruptEntry (from
    eventstore.parse_entry) naming an entry that does not parse."""
    from services.runtime.eventstore import parse_entry

    game_id, ruleset, result, created_at, version, digest, fmt, log, commands = row
    entries = unpack_log(bytes(log), fmt)
    stored = tuple(parse_entry(game_id, entry_id, fields) for entry_id, fields in entries)
    cmds = {k.decode(): v.decode() for k, v in unpack_commands(bytes(commands), fmt).items()}
    return ArchivedGame(game_id, ruleset, result or "", created_at, version, digest, stored,
                        cmds)  # fmt: skip


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

        async with self._lock:
            try:
                if self._conn is None or self._conn.closed or self._conn.broken:
                    self._conn = await psycopg.AsyncConnection.connect(
                        self.database_url, autocommit=True, connect_timeout=10
                    )
                cur = await self._conn.execute(sql, params)
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

    async def exact(self, game_id: str) -> tuple[Entries, dict[bytes, bytes]] | None:
        """The archived log's entries and command ids as stored, unparsed (never cached): what
        a removal compares with Valkey's keys byte for byte."""
        rows = await self._query(
            "SELECT format, log, commands FROM archived_games WHERE game_id = %s", (game_id,)
        )
        if not rows:
            return None
        fmt, log, commands = rows[0]
        return unpack_log(bytes(log), fmt), unpack_commands(bytes(commands), fmt)

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
