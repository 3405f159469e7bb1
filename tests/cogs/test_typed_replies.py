"""A typed DM gets one short answer however much was pasted: the lines read are capped, the
refusals after the first few are counted, and an echoed word is clipped."""

from __future__ import annotations

import asyncio

from tests.cogs.support import TIMEOUT, World, bot_running, create_match, dm_sheet


async def replies_to(world: World, text: str) -> list[str]:
    before = len(world.alice.dms())
    await world.alice.send_dm(text)
    await world.alice.wait_for_message(
        world.alice.dm,
        predicate=lambda m: "Your orders for turn" in m.content,
        after=world.alice.dms()[before - 1],
        timeout=TIMEOUT,
    )
    await asyncio.sleep(0.5)  # anything the bot would still send
    return [m.content for m in world.alice.dms()[before:] if m.author_id != world.alice.id]


async def test_a_pasted_wall_of_text_gets_one_short_answer(world: World) -> None:
    async with bot_running(world):
        _thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        [reply] = await replies_to(world, "\n".join(["zz"] * 600))
        assert reply.count("unknown order") == 10
        assert "❌ … and 30 more lines refused" in reply
        assert "⚠️ only the first 40 lines are read; send the rest in another message" in reply

        [reply] = await replies_to(world, "x" * 1990)
        assert all(len(line) <= 200 for line in reply.split("\n"))
        assert "unknown order" in reply
