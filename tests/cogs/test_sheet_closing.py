"""No old sheet looks live: when a turn ends, however it ends, every player's DM sheet of that
turn says so and loses its menus and buttons."""

from __future__ import annotations

from datetime import UTC, datetime

from bot import MatchBot
from sandbox import Message
from service.clock import ManualClock
from tests.cogs.support import (
    TIMEOUT,
    World,
    bot_running,
    create_match,
    dm_sheet,
    wait_final_post,
    wait_turn_post,
)
from tests.sandbox.support import running


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


async def test_a_passed_deadline_closes_both_sheets(world: World) -> None:
    clock = ManualClock(datetime.now(UTC))
    bot = MatchBot(world.settings(), clock=clock, guild_ready_timeout=0.05)
    async with running(bot, world.sandbox):
        await world.sandbox.wait_for(
            lambda: bool(world.sandbox.commands(world.guild)), timeout=TIMEOUT, what="commands"
        )
        thread, match_id = await create_match(world)
        alices = await dm_sheet(world.alice, match_id, 1)
        bobs = await dm_sheet(world.bob, match_id, 1)
        assert bot.runtime is not None
        match = await bot.runtime.matches.get_match(match_id)
        assert match.deadline_at is not None
        # Nobody confirms: the turn ends at its deadline.
        clock.set(datetime.fromtimestamp(match.deadline_at / 1000 + 1, UTC))
        await bot.runtime.matches.run_due()
        post = await wait_turn_post(world, thread, match_id, 1)
        assert "the deadline passed" in str(post.embeds[0].get("fields"))
        for sheet in (alices, bobs):
            await closed(world, sheet, "Turn 1 is resolved")
