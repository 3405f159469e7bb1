"""Earlier turns at a command: /match history lists the resolved turns and /match board turn:N
shows the board after turn N with its log, privately, to anyone in the server."""

from __future__ import annotations

from tests.cogs.support import (
    TIMEOUT,
    World,
    bot_running,
    chosen_orders,
    create_match,
    dm_sheet,
    wait_turn_post,
)


async def test_history_lists_turns_and_board_shows_an_earlier_one(world: World) -> None:
    async with bot_running(world) as bot:
        thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        _orders, text = await chosen_orders(bot, world.alice, match_id)
        await world.alice.send_dm(f"{text}\nconfirm")
        await world.bob.send_dm("confirm")
        post = await wait_turn_post(world, thread, match_id, 1)

        listed = await world.carol.slash("match history", in_channel=thread)
        answer = await listed.wait_done(timeout=TIMEOUT)
        assert listed.ephemeral
        lines = str(answer.embeds[0]["description"]).splitlines()
        assert lines[0].startswith("Turn 1 · both confirmed · <t:")
        assert "`/match board turn:N`" in lines[-1]

        shown = await world.carol.slash("match board", in_channel=thread, turn=1)
        board = await shown.wait_done(timeout=TIMEOUT)
        assert shown.ephemeral
        assert board.embeds[0]["title"] == f"Match #{match_id} · turn 1"
        assert board.attachments[0].filename == "turn-1.png"
        # The same public picture the thread got for that turn.
        assert board.attachments[0].data == post.attachments[0].data

        later = await world.carol.slash("match board", in_channel=thread, turn=5)
        refusal = await later.wait_done(timeout=TIMEOUT)
        assert refusal.content == (
            f"Turn 5 of match #{match_id} has not been resolved; `/match history` lists the "
            "turns that have."
        )
