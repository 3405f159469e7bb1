"""The match service on both databases: the channel a match posts in, looked up and moved."""

from __future__ import annotations

import asyncio

import pytest

from service.errors import NotFoundError
from service.matches import MatchService


async def test_a_match_moves_to_its_thread_once(service: MatchService) -> None:
    match = await service.create_match(
        "alice", opponent_id="bob", guild_id="g1", channel_id="league"
    )
    other = await service.create_match("carol", opponent_id="dave", channel_id="league")
    moved = await service.move_to_channel(match.id, "t1", from_channel_id="league")
    assert moved.channel_id == "t1" and moved.version == match.version
    # A mover that lost the race learns where the match went, and moves nothing.
    late = await service.move_to_channel(match.id, "t2", from_channel_id="league")
    assert late.channel_id == "t1"
    assert [m.id for m in await service.matches_in_channel("t1")] == [match.id]
    assert [m.id for m in await service.matches_in_channel("league")] == [other.id]
    assert await service.matches_in_channel("t2") == []
    with pytest.raises(NotFoundError):
        await service.move_to_channel(match.id + 100, "t3", from_channel_id="league")


async def test_racing_moves_agree_on_one_channel(service: MatchService) -> None:
    match = await service.create_match("alice", opponent_id="bob", channel_id="league")
    results = await asyncio.gather(
        *(service.move_to_channel(match.id, f"t{i}", from_channel_id="league") for i in range(6))
    )
    (where,) = {r.channel_id for r in results}
    assert where in {f"t{i}" for i in range(6)}
    assert (await service.get_match(match.id)).channel_id == where
