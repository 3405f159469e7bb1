"""A server's match commands reach only that server's matches: match numbers are global, so a
stranger on another server must not join, read or draw a match by guessing its number."""

from __future__ import annotations

from dataclasses import replace

from bot import MatchBot
from tests.cogs.support import TIMEOUT, World
from tests.sandbox.support import running


async def test_another_server_cannot_join_read_or_list_a_match(world: World) -> None:
    sandbox = world.sandbox
    other = sandbox.create_guild("Another server")
    zed = sandbox.player(
        sandbox.create_user("Zed", guild=other), channel=sandbox.create_channel(other, "general")
    )
    # Synced globally, as in production, so Zed's server has /match too.
    bot = MatchBot(replace(world.settings(), test_guild_id=None), guild_ready_timeout=0.05)
    async with running(bot, sandbox):
        await sandbox.wait_for(lambda: bool(sandbox.commands()), timeout=TIMEOUT, what="commands")
        created = await world.alice.slash("match create", deck="starter:war")
        await created.wait_done(timeout=TIMEOUT)
        assert bot.runtime is not None
        (match,) = await bot.runtime.matches.list_matches(statuses=("open",))

        for result in (
            await zed.slash("match join", match=match.id, deck="starter:death"),
            await zed.slash("match info", match=match.id),
            await zed.slash("match board", match=match.id),
        ):
            answer = await result.wait_done(timeout=TIMEOUT)
            assert result.ephemeral
            assert answer.content == f"There is no match #{match.id} in this server."
        assert await zed.autocomplete("match join", "match", "") == []
        after = await bot.runtime.matches.get_match(match.id)
        assert after.status == "open"
        assert [s.player_id for s in after.seats] == [str(world.alice.id), None]

        # On its own server the same seat is there to take.
        offered = await world.bob.autocomplete("match join", "match", "")
        assert [c["value"] for c in offered] == [match.id]
        joined = await world.bob.slash("match join", match=match.id, deck="starter:life")
        answer = await joined.wait_done(timeout=TIMEOUT)
        assert answer.content.startswith(f"You joined match #{match.id}")
