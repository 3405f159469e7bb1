"""No old sheet looks live: when a turn ends, however it ends, every player's DM sheet of that
turn says so and loses its menus and buttons."""

from __future__ import annotations

from sandbox import Message
from tests.cogs.support import (
    TIMEOUT,
    World,
    bot_running,
    create_match,
    dm_sheet,
    wait_final_post,
    wait_turn_post,
)


async def closed(world: World, sheet: Message, footer: str) -> Message:
    found: Message = await world.sandbox.wait_for(
        lambda: next(
            (
                m
                for m in [world.sandbox.state.messages[sheet.id]]
                if not m.components and footer in str(m.embeds[0].get("footer", {}).get("text"))
            ),
            None,
        ),
        timeout=TIMEOUT,
        what="the sheet to close",
    )
    return found


async def test_both_sheets_close_when_the_other_player_ends_the_turn(world: World) -> None:
    async with bot_running(world):
        thread, match_id = await create_match(world)
        alices = await dm_sheet(world.alice, match_id, 1)
        bobs = await dm_sheet(world.bob, match_id, 1)
        await world.alice.send_dm("confirm")
        # Bob confirms in the thread: Alice's DM sheet is not the one he clicked.
        result = await world.bob.slash("orders", in_channel=thread, orders="confirm")
        await result.wait_done(timeout=TIMEOUT)
        await wait_turn_post(world, thread, match_id, 1)
        for sheet in (alices, bobs):
            await closed(world, sheet, "Turn 1 is resolved")


async def test_a_concession_closes_the_current_sheets(world: World) -> None:
    async with bot_running(world):
        thread, match_id = await create_match(world)
        alices = await dm_sheet(world.alice, match_id, 1)
        bobs = await dm_sheet(world.bob, match_id, 1)
        conceded = await world.bob.slash("match concede", in_channel=thread)
        await conceded.wait_done(timeout=TIMEOUT)
        await wait_final_post(world, thread, match_id)
        for sheet in (alices, bobs):
            ended = await closed(world, sheet, f"Match #{match_id} is over")
            assert ended.embeds[0]["title"].startswith(f"Match #{match_id} · turn 1")
