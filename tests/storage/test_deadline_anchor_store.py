"""A match's deadline anchor is stored and read back on both databases; matches without one read
as unanchored."""

from __future__ import annotations

from storage import Store
from tests.storage.test_store import new_match


async def test_the_deadline_anchor_round_trips(store: Store) -> None:
    async with store.write() as s:
        plain = await new_match(s)
        anchored = await new_match(
            s,
            seed=8,
            channel_id="c2",
            turn_seconds=86400,
            reminders=[3600],
            deadline_clock=20 * 60,
            deadline_days="mon-fri",
            deadline_zone="Europe/Paris",
        )
    async with store.read() as s:
        got = await s.get_match(anchored)
        none = await s.get_match(plain)
        listed = {m.id: m for m in await s.list_matches(limit=10)}
    assert got is not None and none is not None
    assert (got.deadline_clock, got.deadline_days, got.deadline_zone) == (
        1200,
        "mon-fri",
        "Europe/Paris",
    )
    assert listed[anchored].deadline_days == "mon-fri"
    assert (none.deadline_clock, none.deadline_days, none.deadline_zone) == (None, None, None)
