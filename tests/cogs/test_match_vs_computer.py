"""A match against the computer through the sandbox: /match create with `computer`, one turn
confirmed by typed DM orders, and the turn's post."""

from __future__ import annotations

import pytest

from ai import DESCRIPTIONS, LEVELS
from cogs.match import MatchCog
from sandbox import Channel
from tests.cogs.support import (
    TIMEOUT,
    World,
    bot_running,
    chosen_orders,
    dm_sheet,
    posts,
    wait_turn_post,
)


def test_every_computer_level_is_offered_with_its_description() -> None:
    choices = MatchCog.create._params["computer"].choices
    assert [c.value for c in choices] == list(LEVELS)
    assert [c.name for c in choices] == [f"{level}: {DESCRIPTIONS[level]}" for level in LEVELS]
    assert all(len(c.name) <= 100 for c in choices)


@pytest.mark.parametrize("level", ["greedy", "expert"])
async def test_a_player_confirms_a_turn_against_the_computer(world: World, level: str) -> None:
    async with bot_running(world) as bot:
        both = await world.alice.slash(
            "match create", opponent=world.bob.user, computer=level, deck="starter:war"
        )
        await both.wait_done(timeout=TIMEOUT)
        assert not world.sandbox.threads(world.lobby)
        result = await world.alice.slash("match create", computer=level, deck="starter:war")
        await result.wait_done(timeout=TIMEOUT)

        def thread() -> Channel | None:
            return next(
                (
                    t
                    for t in world.sandbox.threads(world.lobby)
                    if (t.name or "").startswith("Match #")
                ),
                None,
            )

        found: Channel = await world.sandbox.wait_for(thread, timeout=TIMEOUT, what="the thread")
        match_id = int((found.name or "").split("#")[1].split(":")[0])
        assert f"computer ({level})" in (found.name or "")
        await world.sandbox.wait_for(
            lambda: posts(world.sandbox, found, f"Match #{match_id} begins"),
            timeout=TIMEOUT,
            what="the start",
        )
        await dm_sheet(world.alice, match_id, 1)
        _orders, text = await chosen_orders(bot, world.alice, match_id)
        await world.alice.send_dm(f"{text}\nconfirm")
        await wait_turn_post(world, found, match_id, 1)
        assert bot.runtime is not None
        match = await bot.runtime.matches.get_match(match_id)
        assert match.turn == 2 or match.status == "ended"
        turn = await bot.runtime.matches.history(match_id, 1)
        assert turn.cause == "confirmed"
