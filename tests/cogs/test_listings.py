"""Long listings (/deck list) reach the player whole, spread over as many messages as Discord's
limits need (ten embeds and 6,000 characters a message)."""

from __future__ import annotations

from cogs.deck import starter_spells
from tests.cogs.support import TIMEOUT, World, bot_running

DECKS = 90


async def test_a_long_deck_list_arrives_whole_in_several_messages(world: World) -> None:
    async with bot_running(world) as bot:
        runtime = bot.runtime
        assert runtime is not None
        spells = starter_spells("war", runtime.content)
        names = [f"Aggro war list number {i:02d} " + "x" * 30 for i in range(DECKS)]
        for name in names:
            await runtime.decks.create_deck(str(world.alice.id), name, "war", spells)
        result = await world.alice.slash("deck list")
        first = await result.wait_done(timeout=TIMEOUT)
        more = await result.wait_followups(1, timeout=TIMEOUT)
        text = "\n".join(
            str(embed.get("description")) for message in (first, *more) for embed in message.embeds
        )
        assert all(f"**{name}**" in text for name in names)
