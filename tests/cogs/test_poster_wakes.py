"""The outbox wakes the poster: what a service call queues is posted at once, by no poke and no
poll (the poll is made longer than the test may wait)."""

from __future__ import annotations

import sys

import pytest

from sandbox import Channel
from tests.cogs.support import TIMEOUT, World, bot_running, posts
from tests.service.matchkit import make_decks


async def test_announcements_queued_by_service_calls_alone_are_posted(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with bot_running(world) as bot:
        assert bot.runtime is not None
        # The extension loader made the poster's module afresh: patch the one that runs.
        monkeypatch.setattr(sys.modules["cogs.poster"], "POLL_SECONDS", TIMEOUT * 4)
        matches = bot.runtime.matches
        alice, bob = str(world.alice.id), str(world.bob.id)
        red, blue = await make_decks(matches.store, matches.clock, (alice, bob))
        match = await matches.create_match(
            alice,
            deck_id=red,
            opponent_id=bob,
            guild_id=str(world.guild.id),
            channel_id=str(world.lobby.id),
        )

        def thread() -> Channel | None:
            return next(
                (
                    t
                    for t in world.sandbox.threads(world.lobby)
                    if posts(world.sandbox, t, f"Match #{match.id}")
                ),
                None,
            )

        found: Channel = await world.sandbox.wait_for(
            thread, timeout=TIMEOUT, what="the match's first post"
        )
        # The poster has delivered and waits (long) again: only the outbox can wake it now.
        await matches.join_match(match.id, bob, blue)
        await matches.start_match(match.id, alice)
        await world.sandbox.wait_for(
            lambda: posts(world.sandbox, found, f"Match #{match.id} begins"),
            timeout=TIMEOUT,
            what="the post that the match begins",
        )
