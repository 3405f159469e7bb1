"""/tutorial: a newcomer's practice match against the computer in its own thread, with each
turn's lesson by DM right after that turn's sheet, nothing posted in the channel, a clear private
refusal while one is running, and a closing word when it ends."""

from __future__ import annotations

from cogs.tutorial import LEVELS
from engine.state import Side
from sandbox import Channel, Message
from service.tutorials import Tutorials
from tests.cogs.support import TIMEOUT, World, bot_running, dm_sheet, titled


def lesson(step: int) -> str:
    return f"Tutorial · step {step} of 4"


async def test_a_tutorial_teaches_turn_by_turn_in_dms(world: World) -> None:
    async with bot_running(world) as bot:
        assert bot.runtime is not None
        result = await world.alice.slash("tutorial", level="random")
        answer = await result.wait_done(timeout=TIMEOUT)
        assert result.ephemeral
        assert answer.content.startswith("Your practice match #1 has begun in <#")

        def thread() -> Channel | None:
            return next(
                (
                    t
                    for t in world.sandbox.threads(world.lobby)
                    if (t.name or "").startswith("Tutorial #1:")
                ),
                None,
            )

        found: Channel = await world.sandbox.wait_for(thread, timeout=TIMEOUT, what="the thread")
        assert "vs the computer (random)" in (found.name or "")
        # No clutter in the channel: the match lives in its thread and the lessons in the DM.
        assert world.carol.visible(world.lobby) == []

        sheet = await dm_sheet(world.alice, 1, 1)
        first: Message = await world.alice.wait_for_message(
            world.alice.dm, predicate=lambda m: titled(m, lesson(1)), timeout=TIMEOUT
        )
        dms = world.alice.dms()
        assert dms.index(first) > dms.index(sheet)
        text = str(first.embeds[0]["description"])
        _, view = await bot.runtime.view(1, str(world.alice.id))
        match = await bot.runtime.matches.get_match(1)
        side = next(Side(str(s.side)) for s in match.seats if s.player_id == str(world.alice.id))
        sanctum = next(s for s in view.structures if s.kind == "sanctum" and s.owner == side)
        assert f"Your **Sanctum** is on **{sanctum.coord.name}**" in text
        assert "move g1 north" in text
        assert "Confirm" in text and "<t:" in text
        assert not any(titled(m, lesson(2)) for m in world.alice.dms())

        again = await world.alice.slash("tutorial")
        refusal = await again.wait_done(timeout=TIMEOUT)
        assert again.ephemeral
        assert refusal.content.startswith(
            f"Your tutorial (match #1) is still going in <#{found.id}>"
        )
        assert "`/match concede match:1`" in refusal.content

        # Confirming ends the turn (the computer has confirmed), and the next lesson follows
        # the next sheet.
        await world.alice.send_dm("confirm")
        await dm_sheet(world.alice, 1, 2)
        second: Message = await world.alice.wait_for_message(
            world.alice.dm, predicate=lambda m: titled(m, lesson(2)), timeout=TIMEOUT
        )
        assert "cast <spell> on <square>" in str(second.embeds[0]["description"])

        conceded = await world.alice.slash("match concede", match=1)
        await conceded.wait_done(timeout=TIMEOUT)
        closing: Message = await world.alice.wait_for_message(
            world.alice.dm, predicate=lambda m: titled(m, "Tutorial complete"), timeout=TIMEOUT
        )
        assert "/match create computer:greedy" in str(closing.embeds[0]["description"])
        assert await Tutorials(bot.runtime.matches.store).of_player(str(world.alice.id)) == []
        assert world.carol.visible(world.lobby) == []


async def test_a_restarted_bot_goes_on_with_the_next_lesson(world: World) -> None:
    async with bot_running(world):
        started = await world.alice.slash("tutorial", level="random")
        await started.wait_done(timeout=TIMEOUT)
        await world.alice.wait_for_message(
            world.alice.dm, predicate=lambda m: titled(m, lesson(1)), timeout=TIMEOUT
        )
        await world.alice.send_dm("confirm")
        await world.alice.wait_for_message(
            world.alice.dm, predicate=lambda m: titled(m, lesson(2)), timeout=TIMEOUT
        )
    # The bot stops and starts again on the same database, mid-tutorial.
    async with bot_running(world) as bot:
        assert bot.runtime is not None
        again = await world.alice.slash("tutorial")
        refusal = await again.wait_done(timeout=TIMEOUT)
        assert refusal.content.startswith("Your tutorial (match #1) is still going")
        await world.alice.send_dm("confirm")
        await dm_sheet(world.alice, 1, 3)
        third: Message = await world.alice.wait_for_message(
            world.alice.dm, predicate=lambda m: titled(m, lesson(3)), timeout=TIMEOUT
        )
        assert "train swordsman at sanctum" in str(third.embeds[0]["description"])
        # Each lesson came once, in order, across the restart.
        steps = [
            step for m in world.alice.dms() for step in (1, 2, 3, 4) if titled(m, lesson(step))
        ]
        assert steps == [1, 2, 3]
        conceded = await world.alice.slash("match concede", match=1)
        await conceded.wait_done(timeout=TIMEOUT)
        await world.alice.wait_for_message(
            world.alice.dm, predicate=lambda m: titled(m, "Tutorial complete"), timeout=TIMEOUT
        )


async def test_a_match_against_the_computer_has_no_lessons(world: World) -> None:
    async with bot_running(world):
        result = await world.alice.slash("match create", computer="random", deck="starter:war")
        await result.wait_done(timeout=TIMEOUT)
        await dm_sheet(world.alice, 1, 1)
        await world.alice.send_dm("confirm")
        await dm_sheet(world.alice, 1, 2)
        assert not any(titled(m, "Tutorial") for m in world.alice.dms())


def test_the_tutorial_offers_the_gentle_computer_levels() -> None:
    assert LEVELS == ("random", "greedy")
