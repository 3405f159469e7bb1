"""/match info says whose orders the turn waits for: everyone sees who has confirmed, and only
the player sees whether their own unconfirmed orders were given."""

from __future__ import annotations

from tests.cogs.support import TIMEOUT, World, bot_running, chosen_orders, create_match, dm_sheet


async def info_text(world: World, who: str, thread: object) -> str:
    player = getattr(world, who)
    result = await player.slash("match info", in_channel=thread)
    answer = await result.wait_done(timeout=TIMEOUT)
    assert result.ephemeral
    return " ".join(str(e.get("description", "")) for e in answer.embeds)


async def test_match_info_shows_who_has_confirmed_and_whom_it_waits_for(world: World) -> None:
    async with bot_running(world) as bot:
        thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        _orders, text = await chosen_orders(bot, world.alice, match_id)
        await world.alice.send_dm(text)
        await world.alice.next_dm(timeout=TIMEOUT)
        await world.bob.send_dm("confirm")
        await world.bob.next_dm(timeout=TIMEOUT)

        alice, bob = f"<@{world.alice.id}>", f"<@{world.bob.id}>"
        for who in ("carol", "bob"):
            seen = await info_text(world, who, thread)
            assert f"{alice} (war) — ⏳ not confirmed yet" in seen
            assert f"{bob} (life) — ✅ confirmed" in seen
            assert f"Waiting for {alice};" in seen
            assert "given" not in seen
        own = await info_text(world, "alice", thread)
        assert f"{alice} (war) — ⏳ your orders are given, not confirmed" in own
