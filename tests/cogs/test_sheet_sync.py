"""The DM sheet and the stored orders stay in step with everything a player does: quick
messages, the confirm that completes a turn, /orders in the thread, a restart of the bot."""

from __future__ import annotations

from typing import Any

from sandbox import Message, walk_components
from tests.cogs.support import TIMEOUT, World, bot_running, create_match, dm_sheet, wait_turn_post


def orders_field(message: Message) -> str:
    return next(
        str(f["value"])
        for f in message.embeds[0]["fields"]
        if str(f["name"]).startswith("Your orders")
    )


def enabled_buttons(message: Message) -> list[Any]:
    return [
        c.get("label")
        for c in walk_components(message.components)
        if c.get("type") == 2 and not c.get("disabled")
    ]


async def first_move(world: World, bot: Any, match_id: int) -> str:
    match = await bot.runtime.matches.get_match(match_id, with_state=True)
    _, view = await bot.runtime.view(match_id, str(world.alice.id))
    legal = await bot.runtime.legal(match, str(view.viewer))
    return str(next(iter(legal.moves.values()))[0])


async def test_two_quick_messages_keep_both_orders(world: World) -> None:
    async with bot_running(world) as bot:
        _thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        dest = await first_move(world, bot, match_id)
        runtime = bot.runtime
        assert runtime is not None
        _, view = await runtime.view(match_id, str(world.alice.id))
        card = runtime.content.spells[view.hand[0].spell_id].name
        before = len(world.alice.dms())
        # Sent without waiting for the first answer: both are handled at once.
        await world.alice.send_dm(f"move g1 to {dest}")
        await world.alice.send_dm(f"discard {card}")
        await world.sandbox.wait_for(
            lambda: len([m for m in world.alice.dms()[before:] if not m.embeds]) >= 2,
            timeout=TIMEOUT,
            what="both answers",
        )
        orders, _ = await runtime.orders_of(match_id, str(world.alice.id))
        assert len(orders.moves) == 1 and orders.discard is not None


async def test_the_typed_confirm_that_completes_the_turn_closes_the_dm_sheet(
    world: World,
) -> None:
    async with bot_running(world):
        thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        bob_sheet = await dm_sheet(world.bob, match_id, 1)
        await world.alice.send_dm("confirm")
        await world.alice.wait_for_message(world.alice.dm, predicate=lambda m: not m.embeds)
        await world.bob.send_dm("confirm")
        reply = await world.bob.wait_for_message(world.bob.dm, predicate=lambda m: not m.embeds)
        assert reply.content.startswith("✅ confirmed; both sides are ready, turn 1 is resolved")
        assert "not confirmed" not in reply.content
        await wait_turn_post(world, thread, match_id, 1)
        old = world.sandbox.state.messages[bob_sheet.id]
        assert enabled_buttons(old) == []
        assert "Turn 1 is resolved" in str(old.embeds[0].get("footer", {}).get("text"))


async def test_a_confirm_through_slash_orders_that_completes_the_turn_shows_the_next_sheet(
    world: World,
) -> None:
    async with bot_running(world):
        thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        await world.alice.send_dm("confirm")
        await world.alice.wait_for_message(world.alice.dm, predicate=lambda m: not m.embeds)
        result = await world.bob.slash("orders", in_channel=thread, orders="confirm")
        answer = await result.wait_done(timeout=TIMEOUT)
        await wait_turn_post(world, thread, match_id, 1)
        assert "turn 1 is resolved" in answer.content
        assert "turn 2" in str(answer.embeds[0]["title"])


async def test_orders_typed_after_a_restart_still_update_the_dm_sheet(world: World) -> None:
    async with bot_running(world) as bot:
        _thread, match_id = await create_match(world)
        sheet = await dm_sheet(world.alice, match_id, 1)
        dest = await first_move(world, bot, match_id)
    async with bot_running(world, sync_commands=False):
        before = len(world.alice.dms())
        await world.alice.send_dm(f"move g1 to {dest}")
        await world.sandbox.wait_for(
            lambda: any(not m.embeds for m in world.alice.dms()[before:]),
            timeout=TIMEOUT,
            what="the answer",
        )
        await world.sandbox.wait_for(
            lambda: "move g1" in orders_field(world.sandbox.state.messages[sheet.id]),
            timeout=TIMEOUT,
            what="the DM sheet to show the move",
        )
        assert {"Undo last", "Clear"} <= set(
            enabled_buttons(world.sandbox.state.messages[sheet.id])
        )
