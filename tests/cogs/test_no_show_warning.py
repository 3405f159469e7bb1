"""Before a no-show would forfeit the match, the player's reminder says so, by DM; a player
who has given orders, or who has turns to spare, reads no such warning."""

from __future__ import annotations

from datetime import UTC, datetime

from bot import MatchBot
from sandbox import ScriptedPlayer
from service.clock import ManualClock
from tests.cogs.support import TIMEOUT, World, dm_sheet, titled
from tests.sandbox.support import running

WARNING = "Missing this deadline without orders forfeits the match"


async def test_the_last_chance_reminder_warns_of_the_forfeit(world: World) -> None:
    clock = ManualClock(datetime.now(UTC))
    bot = MatchBot(world.settings(), clock=clock, guild_ready_timeout=0.05)
    async with running(bot, world.sandbox):
        await world.sandbox.wait_for(
            lambda: bool(world.sandbox.commands(world.guild)), timeout=TIMEOUT, what="commands"
        )
        created = await world.alice.slash(
            "match create", opponent=world.bob.user, deck="starter:war", no_shows=1
        )
        await created.wait_done(timeout=TIMEOUT)
        assert bot.runtime is not None
        (match,) = await bot.runtime.matches.list_matches()
        joined = await world.bob.slash("match join", match=match.id, deck="starter:life")
        await joined.wait_done(timeout=TIMEOUT)
        await dm_sheet(world.alice, match.id, 1)
        await dm_sheet(world.bob, match.id, 1)
        full = await bot.runtime.matches.get_match(match.id, with_state=True)
        side = next(str(s.side) for s in full.seats if s.player_id == str(world.alice.id))
        dest = next(iter((await bot.runtime.legal(full, side)).moves.values()))[0]
        await world.alice.send_dm(f"move g1 to {dest}")
        await world.alice.wait_for_message(
            world.alice.dm,
            predicate=lambda m: f"✅ move g1 to {dest}" in m.content,
            timeout=TIMEOUT,
        )

        started = await bot.runtime.matches.get_match(match.id)
        assert started.deadline_at is not None
        clock.set(datetime.fromtimestamp(started.deadline_at / 1000 - 1800, UTC))
        assert await bot.runtime.matches.send_reminders() == 2

        def reminder(player: ScriptedPlayer) -> str:
            found = next(
                m for m in reversed(player.dms()) if titled(m, f"Match #{match.id}, turn 1")
            )
            return str(found.embeds[0]["description"])

        for player in (world.alice, world.bob):
            await player.wait_for_message(
                player.dm,
                predicate=lambda m: titled(m, f"Match #{match.id}, turn 1"),
                timeout=TIMEOUT,
            )
        assert WARNING in reminder(world.bob)
        assert WARNING not in reminder(world.alice)
