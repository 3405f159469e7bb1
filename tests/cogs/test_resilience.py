"""A restart in the middle of a turn, closed DMs, and Discord failing while a turn is posted."""

from __future__ import annotations

import asyncio
from typing import Any

from sandbox import Message, walk_components
from tests.cogs.support import (
    World,
    bot_running,
    chosen_orders,
    create_match,
    dm_sheet,
    posts,
    wait_final_post,
    wait_turn_post,
)

MAX_TURNS = 30


def orders_field(message: Message) -> str:
    fields = message.embeds[0].get("fields") or []
    return next(str(f["value"]) for f in fields if str(f["name"]).startswith("Your orders"))


def component(message: Message, action: str) -> dict[str, Any]:
    return next(
        c
        for c in walk_components(message.components)
        if str(c.get("custom_id", "")).startswith(f"sanctum:{action}:")
    )


async def test_a_restart_mid_turn_keeps_orders_and_buttons(world: World) -> None:
    async with bot_running(world):
        thread, match_id = await create_match(world)
        sheet = await dm_sheet(world.alice, match_id, 1)
        move = component(sheet, "move")
        await world.alice.select(sheet, [move["options"][0]["value"]], custom_id=move["custom_id"])
        live = world.sandbox.state.messages
        await world.sandbox.wait_for(
            lambda: any(
                str(c.get("custom_id", "")).startswith("sanctum:dest:")
                for c in walk_components(live[sheet.id].components)
            ),
            what="the destination menu",
        )
        dest = component(live[sheet.id], "dest")
        square = next(o["value"] for o in dest["options"] if o["value"] != "stay")
        await world.alice.select(live[sheet.id], [square], custom_id=dest["custom_id"])
        await world.sandbox.wait_for(
            lambda: f"to {square}" in orders_field(live[sheet.id]), what="the order"
        )
    # A new process on the same database: the old sheet's buttons still work.
    async with bot_running(world, sync_commands=False):
        result = await world.alice.click(live[sheet.id], "Confirm")
        await world.sandbox.wait_for(
            lambda: "Confirmed" in live[sheet.id].embeds[0]["description"],
            what="the confirmation",
        )
        assert not result.followups
        await world.bob.send_dm("confirm")
        post = await wait_turn_post(world, thread, match_id, 1)
        log = " ".join(str(e.get("description", "")) for e in post.embeds)
        assert f"→ {square}" in log


async def test_a_player_with_closed_dms_plays_a_whole_match_through_orders(world: World) -> None:
    world.sandbox.set_dms_open(world.bob.user, False)
    async with bot_running(world) as bot:
        thread, match_id = await create_match(world)
        notice = "I cannot send you direct messages"
        for turn in range(1, MAX_TURNS + 1):
            await dm_sheet(world.alice, match_id, turn)
            _alice_orders, alice_text = await chosen_orders(bot, world.alice, match_id)
            _bob_orders, bob_text = await chosen_orders(bot, world.bob, match_id)
            await world.alice.send_dm(f"{alice_text}\nconfirm")
            result = await world.bob.slash("orders", in_channel=thread, orders=bob_text or "orders")
            sheet = await result.wait_done()
            assert sheet.ephemeral and sheet.ephemeral_for == world.bob.id
            assert "❌" not in sheet.content
            await world.bob.click(sheet, "Confirm")
            await wait_turn_post(world, thread, match_id, turn)
            assert bot.runtime is not None
            if (await bot.runtime.matches.get_match(match_id)).status == "ended":
                break
        else:
            await (await world.alice.slash("match concede", in_channel=thread)).wait_done()
        await wait_final_post(world, thread, match_id)
        notices = [
            m
            for m in world.sandbox.messages(thread)
            if any(notice in str(e.get("description", "")) for e in m.embeds)
        ]
        assert len(notices) == 1 and str(world.bob.id) in notices[0].content
        assert not world.bob.dms()


async def test_a_429_and_a_500_during_a_turn_post_are_retried_and_posted_once(
    world: World,
) -> None:
    async with bot_running(world):
        thread, match_id = await create_match(world)
        await asyncio.gather(dm_sheet(world.alice, match_id, 1), dm_sheet(world.bob, match_id, 1))
        route = f"POST /channels/{thread.id}/messages"
        world.sandbox.faults.rate_limit(route, retry_after=0.2)
        world.sandbox.faults.server_error(route)
        seen = len(world.sandbox.requests)
        await world.alice.send_dm("confirm")
        await world.bob.send_dm("confirm")
        await wait_turn_post(world, thread, match_id, 1)
        statuses = [
            r.status
            for r in world.sandbox.requests[seen:]
            if r.method == "POST" and r.path == f"/channels/{thread.id}/messages"
        ]
        assert statuses[:3] == [429, 500, 200]
        await dm_sheet(world.alice, match_id, 2)
        assert len(posts(world.sandbox, thread, f"Match #{match_id} · turn 1 resolved")) == 1
        assert world.sandbox.faults.pending == 0
