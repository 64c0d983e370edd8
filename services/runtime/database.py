"""PostgreSQL connections as every process keeps them: one, made again when it broke."""

from typing import Any

import psycopg


async def connected(
    conn: "psycopg.AsyncConnection[Any] | None", url: str, **options: Any
) -> "psycopg.AsyncConnection[Any]":
    """`conn` while it is usable, else a new connection to `url` (the old one closed first)."""
    if conn is not None and not conn.closed and not conn.broken:
        return conn
    if conn is not None:
        await conn.close()
    return await psycopg.AsyncConnection.connect(url, **options)


class OneConnection:
    """A holder of one autocommit connection to `database_url`, made again when it broke (the
    projector, its ratings pass). Its subclass sets `database_url` and `conn` (None)."""

    database_url: str
    conn: "psycopg.AsyncConnection[Any] | None"

    async def connection(self) -> "psycopg.AsyncConnection[Any]":
        self.conn = await connected(self.conn, self.database_url, autocommit=True)
        return self.conn

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()
