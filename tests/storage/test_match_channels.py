"""Matches by channel on both databases: every match of a channel however many, and the move of
a match to another channel only from the channel it is in."""

from __future__ import annotations

from storage import Session, Store
from tests.storage.test_store import new_match


async def in_channel(s: Session, seed: int, channel_id: str) -> int:
    """A new match (made in channel c1) posting in `channel_id`."""
    match_id = await new_match(s, seed=seed)
    assert await s.move_match_channel(match_id, "c1", channel_id)
    return match_id


async def test_every_match_of_a_channel_is_found_newest_first(store: Store) -> None:
    async with store.write() as s:
        shared = [await in_channel(s, seed, "league") for seed in range(120)]
        alone = await in_channel(s, 999, "thread")
        await new_match(s, seed=1000)
    async with store.read() as s:
        found = await s.matches_in_channel("league")
        (own,) = await s.matches_in_channel("thread")
        assert await s.matches_in_channel("nowhere") == []
    # More than a page of the guild's matches: a lookup by channel has no limit.
    assert [m.id for m in found] == sorted(shared, reverse=True)
    assert all(m.channel_id == "league" for m in found)
    assert own.id == alone and [seat.player_id for seat in own.seats] == ["alice", "bob"]


async def test_a_match_moves_only_from_the_channel_it_is_in(store: Store) -> None:
    async with store.write() as s:
        match_id = await new_match(s)
        before = await s.get_match(match_id)
        assert before is not None and before.channel_id == "c1"
        assert not await s.move_match_channel(match_id, "elsewhere", "t2")
        assert await s.move_match_channel(match_id, "c1", "t1")
        # A second mover still believing it in c1 changes nothing.
        assert not await s.move_match_channel(match_id, "c1", "t2")
        assert not await s.move_match_channel(match_id + 1, "c1", "t2")
    async with store.read() as s:
        after = await s.get_match(match_id)
        assert [m.id for m in await s.matches_in_channel("t1")] == [match_id]
        assert await s.matches_in_channel("c1") == []
    assert after is not None and after.channel_id == "t1"
    # Where a match posts is no part of its game: a resolution read before the move still fits.
    assert after.version == before.version


async def test_matches_have_an_index_on_their_channel(store: Store) -> None:
    async with store.read() as s:
        if s.dialect == "postgres":
            sql = "SELECT indexdef AS d FROM pg_indexes WHERE indexname = 'matches_channel'"
        else:
            sql = "SELECT sql AS d FROM sqlite_master WHERE name = 'matches_channel'"
        definition = await s.tx.fetchval(sql)
    assert definition is not None and "(channel_id)" in str(definition)
