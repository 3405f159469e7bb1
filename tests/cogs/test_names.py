"""A player's chosen name shows as typed in posts: its markdown escaped, and no @everyone or
<@id> in it pinging or rendering as a mention."""

from __future__ import annotations

from tests.cogs.support import TIMEOUT, World, bot_running, posts

ODD = "**Bold** @everyone <@1> `x`"


async def test_names_are_escaped_in_match_posts(world: World) -> None:
    sandbox = world.sandbox
    odd = sandbox.player(sandbox.create_user(ODD, guild=world.guild), channel=world.lobby)
    async with bot_running(world):
        created = await odd.slash("match create", opponent=world.bob.user, deck="starter:war")
        await created.wait_done(timeout=TIMEOUT)
        thread = await sandbox.wait_for(
            lambda: next(iter(sandbox.threads(world.lobby)), None), timeout=TIMEOUT, what="thread"
        )
        joined = await world.bob.slash("match join", match=1, deck="starter:life")
        await joined.wait_done(timeout=TIMEOUT)
        started = await sandbox.wait_for(
            lambda: next(iter(posts(sandbox, thread, "Match #1 begins")), None),
            timeout=TIMEOUT,
            what="the start post",
        )
        text = " ".join(str(e.get("description", "")) for e in started.embeds)
        assert "**\\*\\*Bold\\*\\* @\u200beveryone <@\u200b1> \\`x\\`**" in text
        assert "@everyone" not in text
