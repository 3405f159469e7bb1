"""/match and /orders outside the turn loop: what players are told before a match begins."""

from __future__ import annotations

from tests.cogs.support import TIMEOUT, World, bot_running


async def test_board_and_orders_before_the_match_begins_say_so(world: World) -> None:
    async with bot_running(world):
        result = await world.alice.slash(
            "match create", opponent=world.bob.user, deck="starter:war"
        )
        await result.wait_done(timeout=TIMEOUT)
        thread = await world.sandbox.wait_for(
            lambda: next(iter(world.sandbox.threads(world.lobby)), None),
            timeout=TIMEOUT,
            what="the match thread",
        )
        board = await (await world.carol.slash("match board", in_channel=thread)).wait_done(
            timeout=TIMEOUT
        )
        orders = await (await world.alice.slash("orders", in_channel=thread)).wait_done(
            timeout=TIMEOUT
        )
        expected = "Match #1 has not begun yet: it starts once both seats are taken."
        assert expected in board.content
        assert expected in orders.content
