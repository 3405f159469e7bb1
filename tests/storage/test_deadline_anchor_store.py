"""A match's deadline anchor, and the one a league gives its matches, are stored and read back on
both databases; those without one read as unanchored."""

from __future__ import annotations

from service.deadline_anchor import DeadlineAnchor, anchor_of
from storage import Store
from storage.leagues import LeagueQueries
from tests.storage.test_leagues_store import new_league
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


async def test_a_league_keeps_the_anchor_it_gives_its_matches(store: Store) -> None:
    async with store.write() as s:
        q = LeagueQueries(s)
        league_id = await new_league(q)
        plain = await q.get_league(league_id)
        await q.update_league(
            league_id, deadline_clock=1200, deadline_days="mon-fri", deadline_zone="Europe/Paris"
        )
    async with store.read() as s:
        got = await LeagueQueries(s).get_league(league_id)
    assert plain is not None and got is not None
    assert anchor_of(plain) == DeadlineAnchor()
    assert anchor_of(got).describe() == "at 20:00, on mon-fri (Europe/Paris)"
