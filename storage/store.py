"""Every query of the application, written once for both databases.

`Store.write()` / `Store.read()` open a transaction and hand out a `Session` whose methods are the
queries. The service composes them: one resolution is one `write()` block, so its new state, turn
report, next deadline and outbox rows commit together or not at all.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from storage.claims import ClaimQueries
from storage.db import Database, open_database
from storage.failures import FailureQueries
from storage.matches import MatchQueries
from storage.migrate import migrate
from storage.orders import OrderQueries
from storage.outbox import OutboxQueries
from storage.shards import ShardQueries
from storage.tutorials import TutorialQueries


class Session(
    MatchQueries,
    ClaimQueries,
    OrderQueries,
    OutboxQueries,
    ShardQueries,
    FailureQueries,
    TutorialQueries,
):
    """The queries, bound to one open transaction (each group in its own module)."""


class Store:
    """A connected, migrated database."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._outbox_listeners: list[Callable[[], None]] = []

    @property
    def dialect(self) -> str:
        return self.db.dialect

    @classmethod
    async def open(cls, url: str, *, pool_size: int = 8) -> Store:
        db = open_database(url, pool_size=pool_size)
        await db.connect()
        try:
            await migrate(db)
        except BaseException:
            await db.close()
            raise
        return cls(db)

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Session]:
        async with self.db.transaction(write=True) as tx:
            session = Session(tx)
            yield session
        # Committed: the rows are there for whoever the listeners wake to claim.
        if session.outbox_added:
            for listener in list(self._outbox_listeners):
                listener()

    def on_outbox_added(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every commit of this store that queued an announcement;
        returns the function that stops it. It runs in the committing task, so it must be quick
        and must not raise."""
        self._outbox_listeners.append(listener)
        return lambda: self._outbox_listeners.remove(listener)

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Session]:
        async with self.db.transaction(write=False) as tx:
            yield Session(tx)

    async def close(self) -> None:
        await self.db.close()
