"""Game-master tools: a moderator lists the server's matches with who is late, hands an absent
player's seat to the computer and back to a person, forfeits a side, and cancels a match."""

from __future__ import annotations

import pytest

from sandbox import ScriptedPlayer
from sandbox.errors import PlayerError
from tests.cogs.support import (
    TIMEOUT,
    World,
    bot_running,
    create_match,
    dm_sheet,
    wait_final_post,
    wait_turn_post,
)


def moderator(world: World) -> ScriptedPlayer:
    user = world.sandbox.create_user("Mia", guild=world.guild, manage_server=True)
    return world.sandbox.player(user, channel=world.lobby)


async def test_list_hand_a_seat_to_the_computer_and_back_and_forfeit(world: World) -> None:
    mia = moderator(world)
    async with bot_running(world) as bot:
        assert bot.runtime is not None
        matches = bot.runtime.matches
        thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        bobs = await dm_sheet(world.bob, match_id, 1)
        await world.alice.send_dm("confirm")
        await world.alice.wait_for_message(
            world.alice.dm, predicate=lambda m: "✅ confirmed" in m.content, timeout=TIMEOUT
        )

        listed = await (await mia.slash("admin matches")).wait_done(timeout=TIMEOUT)
        text = str(listed.embeds[0]["description"])
        assert f"**#{match_id}** · active · turn 1" in text
        assert f"<@{world.alice.id}> — ✅ confirmed" in text
        assert f"<@{world.bob.id}> — ⏳ waiting" in text

        # Bob is away: the computer plays his side, and the turn it waited for resolves.
        bob_side = next(
            str(s.side)
            for s in (await matches.get_match(match_id)).seats
            if s.player_id == str(world.bob.id)
        )
        handed = await mia.slash("admin seat", match=match_id, side=bob_side, computer="greedy")
        answer = await handed.wait_done(timeout=TIMEOUT)
        assert handed.ephemeral
        assert "now belongs to the computer (greedy)" in answer.content
        await wait_turn_post(world, thread, match_id, 1)
        live = world.sandbox.state.messages
        await world.sandbox.wait_for(
            lambda: not live[bobs.id].components, timeout=TIMEOUT, what="Bob's old sheet closed"
        )

        # Carol takes the seat from the computer.
        given = await mia.slash(
            "admin seat", match=match_id, side=bob_side, player=world.carol.user
        )
        await given.wait_done(timeout=TIMEOUT)
        notice = await world.sandbox.wait_for(
            lambda: next(
                (
                    m
                    for m in world.sandbox.messages(thread)
                    if m.embeds and "seat to <@" in str(m.embeds[0].get("description", ""))
                ),
                None,
            ),
            timeout=TIMEOUT,
            what="the seat notice",
        )
        assert str(world.carol.id) in notice.content
        sheet = await (await world.carol.slash("orders", in_channel=thread)).wait_done(
            timeout=TIMEOUT
        )
        assert sheet.embeds[0]["title"].startswith(f"Match #{match_id} · turn 2")

        ended = await mia.slash("admin forfeit", match=match_id, side=bob_side)
        answer = await ended.wait_done(timeout=TIMEOUT)
        assert answer.content.endswith("forfeits.")
        final = await wait_final_post(world, thread, match_id)
        assert "forfeit by a moderator" in str(final.embeds[0]["description"])
        over = await matches.get_match(match_id)
        assert over.status == "ended" and over.winner != bob_side


async def test_a_moderator_cancels_a_match_in_progress(world: World) -> None:
    mia = moderator(world)
    async with bot_running(world) as bot:
        assert bot.runtime is not None
        thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        cancelled = await mia.slash("admin cancel", match=match_id)
        answer = await cancelled.wait_done(timeout=TIMEOUT)
        assert answer.content == f"Match #{match_id} is cancelled."
        final = await wait_final_post(world, thread, match_id)
        assert "A draw" in str(final.embeds[0]["description"])
        assert (await bot.runtime.matches.get_match(match_id)).winner is None
        with pytest.raises(PlayerError, match="lacks the permissions"):
            await world.alice.slash("admin matches")
