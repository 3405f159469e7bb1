"""Running tutorials are kept on both databases: a lesson step is recorded once and only
forwards, and an ended tutorial is forgotten."""

from __future__ import annotations

from storage import Store, TutorialRecord
from tests.storage.test_store import new_match


async def test_a_tutorial_is_stepped_forwards_once_and_ended(store: Store) -> None:
    async with store.write() as s:
        match_id = await new_match(s)
        await s.add_tutorial(match_id, "p1")
    async with store.write() as s:
        assert await s.step_tutorial(match_id, 1)
        assert not await s.step_tutorial(match_id, 1)
        assert await s.step_tutorial(match_id, 2)
        assert not await s.step_tutorial(match_id, 1)
    async with store.read() as s:
        assert await s.get_tutorial(match_id) == TutorialRecord(match_id, "p1", 2)
        assert await s.tutorials_of("p1") == [TutorialRecord(match_id, "p1", 2)]
        assert await s.tutorials_of("p2") == []
    async with store.write() as s:
        assert await s.end_tutorial(match_id) == TutorialRecord(match_id, "p1", 2)
        assert await s.end_tutorial(match_id) is None
    async with store.read() as s:
        assert await s.get_tutorial(match_id) is None
