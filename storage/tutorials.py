"""Running tutorials: which match teaches which player, and the last lesson it sent."""

from __future__ import annotations

from storage.queries import Queries
from storage.records import TutorialRecord


class TutorialQueries(Queries):
    """Tutorials: started, stepped, listed and finished."""

    async def add_tutorial(self, match_id: int, player_id: str) -> None:
        await self.tx.execute(
            "INSERT INTO tutorials (match_id, player_id, step) VALUES (?, ?, 0)",
            match_id,
            player_id,
        )

    async def get_tutorial(self, match_id: int) -> TutorialRecord | None:
        row = await self.tx.fetchone("SELECT * FROM tutorials WHERE match_id = ?", match_id)
        if row is None:
            return None
        return TutorialRecord(row["match_id"], row["player_id"], row["step"])

    async def tutorials_of(self, player_id: str) -> list[TutorialRecord]:
        rows = await self.tx.fetchall(
            "SELECT * FROM tutorials WHERE player_id = ? ORDER BY match_id", player_id
        )
        return [TutorialRecord(r["match_id"], r["player_id"], r["step"]) for r in rows]

    async def step_tutorial(self, match_id: int, step: int) -> bool:
        """Record lesson ``step`` as sent; False if it (or a later one) was sent already."""
        rows = await self.tx.execute(
            "UPDATE tutorials SET step = ? WHERE match_id = ? AND step < ?",
            step,
            match_id,
            step,
        )
        return rows > 0

    async def end_tutorial(self, match_id: int) -> TutorialRecord | None:
        found = await self.get_tutorial(match_id)
        if found is not None:
            await self.tx.execute("DELETE FROM tutorials WHERE match_id = ?", match_id)
        return found
