"""The DM sheet's image shows the orders given since it was sent (redrawn a moment after a
burst of changes), so a player sees their orders on the map before confirming."""

from __future__ import annotations

from tests.cogs.support import (
    TIMEOUT,
    World,
    bot_running,
    chosen_orders,
    create_match,
    dm_sheet,
)


async def test_typed_orders_redraw_the_dm_sheets_image(world: World) -> None:
    async with bot_running(world) as bot:
        _thread, match_id = await create_match(world)
        sheet = await dm_sheet(world.alice, match_id, 1)
        first = sheet.attachments[0].data
        _orders, text = await chosen_orders(bot, world.alice, match_id)
        assert text
        live = world.sandbox.state.messages
        await world.alice.send_dm(text)
        redrawn = await world.sandbox.wait_for(
            lambda: next((a.data for a in live[sheet.id].attachments if a.data != first), None),
            timeout=TIMEOUT,
            what="the redrawn sheet image",
        )
        # The image is the sheet drawn with those orders, and the embed still points at it.
        assert redrawn.startswith(b"\x89PNG")
        assert live[sheet.id].embeds[0]["image"]["url"].endswith("sheet.png")
        assert [a.filename for a in live[sheet.id].attachments] == ["sheet.png"]
