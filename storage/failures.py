"""Turns whose resolution keeps failing: the retry schedule the sweep obeys, and the report."""

from __future__ import annotations

from storage.db import Row
from storage.queries import Queries
from storage.records import ResolutionFailure


def _failure(row: Row) -> ResolutionFailure:
    return ResolutionFailure(
        match_id=row["match_id"],
        turn=row["turn"],
        attempts=row["attempts"],
        last_error=row["last_error"],
        first_failed_at=row["first_failed_at"],
        failed_at=row["failed_at"],
        retry_at=row["retry_at"],
    )


class FailureQueries(Queries):
    """Resolution failures: recorded, cleared and listed."""

    async def get_resolution_failure(self, match_id: int) -> ResolutionFailure | None:
        row = await self.tx.fetchone(
            "SELECT * FROM resolution_failures WHERE match_id = ?", match_id
        )
        return None if row is None else _failure(row)

    async def put_resolution_failure(self, failure: ResolutionFailure) -> None:
        await self.tx.execute(
            "INSERT INTO resolution_failures (match_id, turn, attempts, last_error,"
            " first_failed_at, failed_at, retry_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (match_id) DO UPDATE SET turn = excluded.turn,"
            " attempts = excluded.attempts, last_error = excluded.last_error,"
            " first_failed_at = excluded.first_failed_at, failed_at = excluded.failed_at,"
            " retry_at = excluded.retry_at",
            failure.match_id,
            failure.turn,
            failure.attempts,
            failure.last_error,
            failure.first_failed_at,
            failure.failed_at,
            failure.retry_at,
        )

    async def list_resolution_failures(self, guild_id: str | None) -> list[ResolutionFailure]:
        """The active matches (of one server, or all) whose current turn keeps failing."""
        where = " AND m.guild_id = ?" if guild_id is not None else ""
        args = (guild_id,) if guild_id is not None else ()
        rows = await self.tx.fetchall(
            "SELECT f.* FROM resolution_failures f JOIN matches m ON m.id = f.match_id"
            f" WHERE m.status = 'active' AND m.turn = f.turn{where} ORDER BY f.first_failed_at",
            *args,
        )
        return [_failure(r) for r in rows]
