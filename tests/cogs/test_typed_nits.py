"""Typed orders read as a player means them: full-width letters fold to plain ones, a stray
emoji is named instead of dropped, a second move of a group says what it replaces, and `help`
works without a match."""

from __future__ import annotations

from tests.cogs.support import TIMEOUT, World, bot_running, create_match, dm_sheet


async def test_typed_orders_fold_name_and_replace(world: World) -> None:
    async with bot_running(world) as bot:
        _thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        assert bot.runtime is not None
        match = await bot.runtime.matches.get_match(match_id, with_state=True)
        side = next(str(s.side) for s in match.seats if s.player_id == str(world.alice.id))
        first, second = next(iter((await bot.runtime.legal(match, side)).moves.values()))[:2]
        wide = "".join(chr(ord(ch) + 0xFEE0) for ch in f"move g1 to {first}".replace(" ", "")[:4])
        await world.alice.send_dm(f"{wide} g1 to {first}\nmove g1 to {second}\ncast 🔥 on E５")
        reply = await world.alice.wait_for_message(
            world.alice.dm, predicate=lambda m: "✅" in m.content, timeout=TIMEOUT
        )
        assert f"✅ move g1 to {first}\n" in reply.content
        assert f"✅ move g1 to {second} (replaces move g1 to {first})" in reply.content
        assert "❌ '🔥' is not part of the order notation" in reply.content

        await world.carol.send_dm("help")
        help_text = await world.carol.next_dm(timeout=TIMEOUT)
        assert "Orders, one per line" in help_text.content
