"""Two database drivers behind one small interface: transactions that run parameterised SQL.

SQL is written once with `?` placeholders; the PostgreSQL driver rewrites them to `$1, $2, ...`.
Both schemas use the same portable types (TEXT, INTEGER, BIGINT; JSON as TEXT; times as
milliseconds since the epoch), so the queries in `storage.store` run unchanged on either.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import aiosqlite
import asyncpg

log = logging.getLogger(__name__)

Dialect = Literal["sqlite", "postgres"]
Row = dict[str, Any]

_PLACEHOLDER = re.compile(r"\?")


class StorageError(RuntimeError):
    """The database refused an operation for a reason the caller did not expect."""


class ConflictError(StorageError):
    """A uniqueness or foreign-key constraint was violated."""


class Tx(ABC):
    """One open transaction."""

    dialect: Dialect

    @abstractmethod
    async def execute(self, sql: str, *args: Any) -> int:
        """Run a statement; return the number of rows it changed."""

    @abstractmethod
    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run a statement once for each row of arguments, in one call to the driver (one
        round trip to SQLite's thread; one pipelined exchange with PostgreSQL)."""

    @abstractmethod
    async def fetchall(self, sql: str, *args: Any) -> list[Row]: ...

    async def fetchone(self, sql: str, *args: Any) -> Row | None:
        rows = await self.fetchall(sql, *args)
        return rows[0] if rows else None

    async def fetchval(self, sql: str, *args: Any) -> Any:
        row = await self.fetchone(sql, *args)
        return None if row is None else next(iter(row.values()))

    @abstractmethod
    async def executescript(self, script: str) -> None:
        """Run several statements with no parameters (migrations)."""


class Database(ABC):
    dialect: Dialect

    @abstractmethod
    async def connect(self) -> None: ...

    @abstractmethod
    def transaction(self, *, write: bool = True) -> Any:
        """An async context manager yielding a `Tx`; commits on success, rolls back on error.

        `write=True` takes the write lock up front on SQLite (BEGIN IMMEDIATE), so two writers
        never both read a match and then both update it.
        """

    @abstractmethod
    async def close(self) -> None: ...


def open_database(url: str, *, pool_size: int = 8) -> Database:
    """Choose the driver from the URL scheme; nothing is connected until `connect()`."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"not a database URL: {url!r}")
    if scheme == "sqlite":
        # sqlite:///relative.db and sqlite:////absolute.db, as SQLAlchemy spells them.
        path = rest[1:] if rest.startswith("/") else rest
        if not path:
            raise ValueError(f"a SQLite URL needs a file path: {url!r}")
        return SqliteDatabase(path)
    if scheme in ("postgresql", "postgres"):
        return PostgresDatabase(url, pool_size=pool_size)
    raise ValueError(f"unsupported database scheme {scheme!r} in {url!r}")


# --- SQLite -----------------------------------------------------------------------------------


class _SqliteTx(Tx):
    dialect: Dialect = "sqlite"

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    # Each call below is one round trip to the connection's thread; closing cursors would be a
    # second one, and sqlite3 cursors need no closing.
    async def execute(self, sql: str, *args: Any) -> int:
        try:
            cursor = await self._conn.execute(sql, args)
        except aiosqlite.IntegrityError as exc:
            raise ConflictError(str(exc)) from exc
        return int(cursor.rowcount)

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        try:
            await self._conn.executemany(sql, rows)
        except aiosqlite.IntegrityError as exc:
            raise ConflictError(str(exc)) from exc

    async def fetchall(self, sql: str, *args: Any) -> list[Row]:
        try:
            rows = await self._conn.execute_fetchall(sql, args)
        except aiosqlite.IntegrityError as exc:
            raise ConflictError(str(exc)) from exc
        return [dict(row) for row in rows]

    async def executescript(self, script: str) -> None:
        # executescript() would commit the open transaction first; run statements one by one.
        for statement in _split_statements(script):
            await self._conn.execute(statement)


def _split_statements(script: str) -> list[str]:
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


async def _settled(operation: Awaitable[Any]) -> None:
    """Await ``operation`` to its end even if this task is cancelled meanwhile; the
    cancellation is raised once it has finished."""
    job = asyncio.ensure_future(operation)
    cancelled = False
    while not job.done():
        try:
            await asyncio.shield(job)
        except asyncio.CancelledError:
            if job.cancelled():
                raise
            cancelled = True
    job.result()
    if cancelled:
        raise asyncio.CancelledError


class SqliteDatabase(Database):
    """One connection per process, shared by its tasks through a lock.

    Several processes may open the same file: WAL lets readers run beside the single writer, and
    BEGIN IMMEDIATE with a busy timeout queues writers instead of failing them.
    """

    dialect: Dialect = "sqlite"

    def __init__(self, path: str) -> None:
        self.path = path
        self._conn: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()

    async def connect(self) -> None:
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(self.path, isolation_level=None, timeout=30.0)
        await conn.execute("PRAGMA busy_timeout=30000")
        # Pages of 16 KB for a new file (an existing one keeps its own): a stored state or
        # report is a text of 20-50 KB, which 4 KB pages cut into chains of overflow pages;
        # writing a turn's rows costs a third less this way.
        await conn.execute("PRAGMA page_size=16384")
        # Switching a new file to WAL needs a moment alone with it; another process opening the
        # same file at that instant makes the switch fail at once instead of waiting.
        for attempt in range(50):
            try:
                await conn.execute("PRAGMA journal_mode=WAL")
                break
            except aiosqlite.OperationalError:
                if attempt == 49:
                    raise
                await asyncio.sleep(0.05)
        await conn.execute("PRAGMA foreign_keys=ON")
        conn.row_factory = sqlite3.Row
        # In WAL mode NORMAL keeps every commit across a killed process and the database
        # consistent across a power cut (which may lose the last commits); FULL would add an
        # fsync to every commit, doubling the cost of a turn.
        await conn.execute("PRAGMA synchronous=NORMAL")
        self._conn = conn

    @asynccontextmanager
    async def transaction(self, *, write: bool = True) -> AsyncIterator[Tx]:
        if self._conn is None:
            raise StorageError("database is not connected")
        conn = self._conn
        async with self._lock:
            # BEGIN, COMMIT and ROLLBACK run on the connection's thread even when the task that
            # asked for them is cancelled meanwhile; each is seen through to its end, and a
            # transaction that could not be committed is rolled back, before the connection
            # goes to the next task.
            try:
                await _settled(conn.execute("BEGIN IMMEDIATE" if write else "BEGIN"))
                yield _SqliteTx(conn)
                await _settled(conn.execute("COMMIT"))
            except BaseException:
                if conn.in_transaction:
                    await _settled(conn.execute("ROLLBACK"))
                raise

    async def close(self) -> None:
        if self._conn is not None:
            await self._conn.close()
            self._conn = None


# --- PostgreSQL -------------------------------------------------------------------------------


_converted: dict[str, str] = {}


def _to_dollar(sql: str) -> str:
    """`?` placeholders to asyncpg's `$n` (our SQL never has a literal question mark)."""
    out = _converted.get(sql)
    if out is None:
        counter = iter(range(1, 10_000))
        out = _PLACEHOLDER.sub(lambda _m: f"${next(counter)}", sql)
        _converted[sql] = out
    return out


class _PostgresTx(Tx):
    dialect: Dialect = "postgres"

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    async def execute(self, sql: str, *args: Any) -> int:
        try:
            status: str = await self._conn.execute(_to_dollar(sql), *args)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise ConflictError(str(exc)) from exc
        last = status.rsplit(" ", 1)[-1]
        return int(last) if last.isdigit() else 0

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        try:
            await self._conn.executemany(_to_dollar(sql), rows)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise ConflictError(str(exc)) from exc

    async def fetchall(self, sql: str, *args: Any) -> list[Row]:
        try:
            records = await self._conn.fetch(_to_dollar(sql), *args)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise ConflictError(str(exc)) from exc
        return [dict(r.items()) for r in records]

    async def executescript(self, script: str) -> None:
        await self._conn.execute(script)


class PostgresDatabase(Database):
    dialect: Dialect = "postgres"

    def __init__(self, url: str, *, pool_size: int = 8) -> None:
        self.url = url
        self.pool_size = pool_size
        self._pool: Any = None

    async def connect(self) -> None:
        self._pool = await asyncpg.create_pool(
            self.url, min_size=1, max_size=self.pool_size, command_timeout=60
        )

    @asynccontextmanager
    async def transaction(self, *, write: bool = True) -> AsyncIterator[Tx]:
        if self._pool is None:
            raise StorageError("database is not connected")
        async with self._pool.acquire() as conn, conn.transaction():
            yield _PostgresTx(conn)

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None
