"""Orders typed in a DM reach only the player's own matches: a ``#N`` prefix naming someone
else's match is refused as if it did not exist. (A sheet's components need no such check of
their own: Discord takes a click only on a message the player sees, and the sheet refuses
anyone who is not playing.)"""

from __future__ import annotations

from tests.cogs.support import TIMEOUT, World, bot_running, create_match, dm_sheet


async def test_a_dm_naming_another_players_match_is_refused_as_unknown(world: World) -> None:
    sandbox = world.sandbox
    other = sandbox.create_guild("Another server")
    zed = sandbox.player(sandbox.create_user("Zed", guild=other))
    async with bot_running(world) as bot:
        _thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        for stranger in (zed, world.carol):
            await stranger.send_dm(f"#{match_id} move g1 north\n#{match_id} confirm")
            reply = await stranger.next_dm(timeout=TIMEOUT)
            assert reply.content == f"❌ There is no match #{match_id} of yours."
        assert bot.runtime is not None
        _orders, confirmed = await bot.runtime.orders_of(match_id, str(world.alice.id))
        assert not confirmed


async def test_every_line_may_carry_the_match_number(world: World) -> None:
    async with bot_running(world):
        _thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        await world.alice.send_dm(f"#{match_id} confirm\n#{match_id} unconfirm")
        reply = await world.alice.next_dm(timeout=TIMEOUT)
        while not reply.content.startswith("✅"):
            reply = await world.alice.next_dm(timeout=TIMEOUT)
        assert "✅ confirmed; waiting for your opponent" in reply.content
        assert "✅ unconfirmed" in reply.content
        assert "unknown order" not in reply.content
        await world.alice.send_dm(f"#{match_id} confirm\n#{match_id + 1} confirm")
        mixed = await world.alice.next_dm(timeout=TIMEOUT)
        assert mixed.content == (
            f"❌ That message names several matches (#{match_id}, #{match_id + 1}); "
            "send one message per match."
        )
