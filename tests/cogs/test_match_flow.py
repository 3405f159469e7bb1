"""A whole match through the sandbox, from /match create to the final post, with the DM sheet."""

from __future__ import annotations

import asyncio
import re

from sandbox import render_transcript
from tests.cogs.support import (
    TIMEOUT,
    World,
    bot_running,
    chosen_orders,
    create_match,
    dm_sheet,
    keys_seen,
    posts,
    wait_final_post,
    wait_turn_post,
)

MAX_TURNS = 30


async def test_a_whole_match_from_create_to_the_final_post(world: World) -> None:
    async with bot_running(world) as bot:
        thread, match_id = await create_match(world)
        await world.sandbox.wait_for(
            lambda: posts(world.sandbox, thread, f"Match #{match_id} begins"),
            timeout=TIMEOUT,
            what="the start",
        )
        ended = False
        for turn in range(1, MAX_TURNS + 1):
            for player in (world.alice, world.bob):
                await dm_sheet(player, match_id, turn)
            typed = await asyncio.gather(
                chosen_orders(bot, world.alice, match_id), chosen_orders(bot, world.bob, match_id)
            )
            for player, (_orders, text) in zip((world.alice, world.bob), typed, strict=True):
                await player.send_dm(f"{text}\nconfirm")
            await wait_turn_post(world, thread, match_id, turn)
            assert bot.runtime is not None
            match = await bot.runtime.matches.get_match(match_id)
            if match.status == "ended":
                ended = True
                break
        if not ended:
            # A long game still has to reach its final post: Bob gives up.
            result = await world.bob.slash("match concede", in_channel=thread)
            await result.wait_done()
        final = await wait_final_post(world, thread, match_id)
        names = [a.filename for a in final.attachments]
        assert "final.png" in names and f"match-{match_id}.gif" in names
        # One post per resolved turn, each with its board image, and a log that names groups
        # by their squares (players never see the engine's ids).
        logs = []
        for turn_post in posts(world.sandbox, thread, f"Match #{match_id} · turn "):
            assert len([a for a in turn_post.attachments if a.filename.endswith(".png")]) == 1
            shown = [str(e.get("description")) for e in turn_post.embeds[1:]]
            logs += shown
            # A fight is one line in the post; its strikes are in the attached full log.
            full = b"".join(a.data for a in turn_post.attachments if a.filename.endswith(".txt"))
            struck = b" hits " in full or b" misses " in full
            # The stored report has each fight per round; the file's strikes are recomputed.
            assert struck == any("Fight on " in text for text in shown)
            # A blow the armour stops says so, never "hits ... for 0".
            assert b" for 0 (" not in full
        assert any("moved a group" in text for text in logs)
        assert not [text for text in logs if re.search(r"\b(group|minion) \d", text)]
        assert not [text for text in logs if re.search(r" (hits|misses) |[a-z]_[a-z]", text)]
        assert "is over" in render_transcript(world.sandbox, thread)
        # Nobody reads an outbox key anywhere: the match's posts, sheets and DMs find their
        # earlier copies by an invisible mark.
        assert keys_seen(world.sandbox, (world.alice, world.bob, world.carol)) == []
