"""Running tutorials, kept in the database so that a restarted bot goes on teaching: which
match teaches which player, and the last lesson sent, so a lesson is sent once per step."""

from __future__ import annotations

from storage import Store, TutorialRecord


class Tutorials:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def start(self, match_id: int, player_id: str) -> None:
        async with self.store.write() as s:
            await s.add_tutorial(match_id, player_id)

    async def get(self, match_id: int) -> TutorialRecord | None:
        async with self.store.read() as s:
            return await s.get_tutorial(match_id)

    async def of_player(self, player_id: str) -> list[TutorialRecord]:
        async with self.store.read() as s:
            return await s.tutorials_of(player_id)

    async def taught(self, match_id: int, step: int) -> bool:
        """Mark lesson ``step`` sent; False when it was sent before (a sheet shown again)."""
        async with self.store.write() as s:
            return await s.step_tutorial(match_id, step)

    async def end(self, match_id: int) -> TutorialRecord | None:
        """Forget the tutorial of an ended match; the tutorial, if the match was one."""
        async with self.store.write() as s:
            return await s.end_tutorial(match_id)
