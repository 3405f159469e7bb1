"""A player whose DMs are closed: reminders in the thread say only that the deadline is near
(never whether they gave orders), and once their DMs open again the sheets come by DM."""

from __future__ import annotations

from engine.orders import all_orders
from engine.state import Side
from sandbox import Message
from service.announcements import Reminder
from tests.cogs.support import (
    TIMEOUT,
    World,
    bot_running,
    chosen_orders,
    create_match,
    dm_sheet,
    keys_seen,
    wait_turn_post,
)


def described(message: Message) -> str:
    return " ".join(str(e.get("description", "")) for e in message.embeds)


async def test_reminders_keep_orders_private_and_dms_resume_when_opened(world: World) -> None:
    world.sandbox.set_dms_open(world.bob.user, False)
    async with bot_running(world) as bot:
        assert bot.runtime is not None
        runtime = bot.runtime
        thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        await world.sandbox.wait_for(
            lambda: any(
                "I cannot send you direct messages" in described(m)
                for m in world.sandbox.messages(thread)
            ),
            timeout=TIMEOUT,
            what="the closed-DM notice",
        )
        orders, text = await chosen_orders(bot, world.bob, match_id)
        assert all_orders(orders)
        given = await world.bob.slash("orders", in_channel=thread, orders=text)
        await given.wait_done(timeout=TIMEOUT)

        async def remind(turn: int) -> None:
            match = await runtime.matches.get_match(match_id)
            side = Side(str(next(s.side for s in match.seats if s.player_id == str(world.bob.id))))
            assert match.deadline_at is not None
            reminder = Reminder(
                match_id, str(world.bob.id), turn, side, match.deadline_at, 3600, has_orders=True
            )
            async with runtime.matches.store.write() as session:
                await session.add_outbox(reminder, now=runtime.matches.now_ms())

        await remind(1)
        public = await world.sandbox.wait_for(
            lambda: next(
                (m for m in world.sandbox.messages(thread) if "The deadline is" in described(m)),
                None,
            ),
            timeout=TIMEOUT,
            what="the public reminder",
        )
        assert str(world.bob.id) in public.content
        assert "orders are given" not in described(public)
        assert "no orders" not in described(public)

        world.sandbox.set_dms_open(world.bob.user, True)
        await world.alice.send_dm("confirm")
        confirmed = await world.bob.slash("orders", in_channel=thread, orders="confirm")
        await confirmed.wait_done(timeout=TIMEOUT)
        await wait_turn_post(world, thread, match_id, 1)
        await dm_sheet(world.bob, match_id, 2)
        await remind(2)
        private = await world.bob.wait_for_message(
            world.bob.dm,
            predicate=lambda m: "Your orders are given but not confirmed" in described(m),
            timeout=TIMEOUT,
        )
        assert private.channel_id == world.bob.dm.id
        # The closed-DM notice and the reminders, public and private, carry no outbox key.
        assert keys_seen(world.sandbox, (world.alice, world.bob, world.carol)) == []
