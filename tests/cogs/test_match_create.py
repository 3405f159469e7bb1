"""/match create checks every option before it opens a thread: a refusal is private, says what
to do, and leaves nothing in the channel."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from bot import MatchBot
from cogs.deck import ensure_starter
from service.clock import ManualClock
from tests.cogs.support import TIMEOUT, World, bot_running
from tests.sandbox.support import running


async def test_refused_options_answer_privately_and_open_no_thread(world: World) -> None:
    async with bot_running(world) as bot:
        assert bot.runtime is not None
        bobs = await ensure_starter(bot.runtime, str(world.bob.id), "life")
        cases: list[tuple[dict[str, Any], str]] = [
            ({"opponent": world.alice.user}, "You cannot play against yourself: challenge"),
            ({"deck": str(bobs)}, f"You have no deck #{bobs}: `/deck list` shows yours"),
            ({"deck": "999"}, "You have no deck #999: `/deck list` shows yours"),
            ({"deck": "starter:xyz"}, "There is no starter deck 'xyz'; choose one of"),
            ({"clock": "8pm"}, "Deadline clock '8pm' is not a time like `20:00` (24-hour)."),
            ({"days": "weekdays"}, "Unknown weekday 'weekdays'; use mon, tue, wed, thu, fri,"),
            (
                {"clock": "20:00", "timezone": "Mars/Olympus"},
                "Unknown timezone 'Mars/Olympus'; use a name like `Europe/Paris` or `UTC`.",
            ),
        ]
        for options, expected in cases:
            result = await world.alice.slash("match create", **options)
            answer = await result.wait_done(timeout=TIMEOUT)
            assert result.ephemeral, options
            assert answer.content.startswith(expected), (options, answer.content)
            assert "incident" not in answer.content
        assert world.sandbox.threads(world.lobby) == []
        assert await bot.runtime.matches.list_matches() == []
        assert world.carol.visible(world.lobby) == []


async def test_a_created_match_is_announced_in_the_channel(world: World) -> None:
    async with bot_running(world):
        result = await world.alice.slash(
            "match create", opponent=world.bob.user, deck="starter:war"
        )
        answer = await result.wait_done(timeout=TIMEOUT)
        assert result.ephemeral
        assert answer.content.startswith("Match #1 is in <#")
        public = await world.sandbox.wait_for(
            lambda: next(
                (m for m in world.sandbox.messages(world.lobby) if "opened match #1" in m.content),
                None,
            ),
            timeout=TIMEOUT,
            what="the public challenge",
        )
        assert f"<@{world.bob.id}> can join there" in public.content


async def test_one_player_has_a_few_open_challenges_at_most(world: World) -> None:
    async with bot_running(world):
        for _ in range(3):
            created = await world.alice.slash("match create", deck="starter:war")
            await created.wait_done(timeout=TIMEOUT)
        fourth = await world.alice.slash("match create", deck="starter:war")
        answer = await fourth.wait_done(timeout=TIMEOUT)
        assert fourth.ephemeral
        assert answer.content.startswith("You have 3 open challenges already (#")
        assert answer.content.endswith("withdraw one with `/match cancel`.")
        assert len(world.sandbox.threads(world.lobby)) == 3


async def test_an_open_seat_nobody_takes_expires(world: World) -> None:
    clock = ManualClock(datetime.now(UTC))
    bot = MatchBot(
        replace(world.settings(), challenge_hours=2.0), clock=clock, guild_ready_timeout=0.05
    )
    async with running(bot, world.sandbox):
        await world.sandbox.wait_for(
            lambda: bool(world.sandbox.commands(world.guild)), timeout=TIMEOUT, what="commands"
        )
        created = await world.alice.slash("match create", deck="starter:war")
        await created.wait_done(timeout=TIMEOUT)
        assert bot.runtime is not None
        assert await bot.runtime.matches.expire_challenges() == 0
        clock.advance(2 * 3600 + 1)
        assert await bot.runtime.matches.expire_challenges() == 1
        (thread,) = world.sandbox.threads(world.lobby)
        await world.sandbox.wait_for(
            lambda: any(
                "the challenge has expired" in str(e.get("description", ""))
                for m in world.sandbox.messages(thread)
                for e in m.embeds
            ),
            timeout=TIMEOUT,
            what="the expiry notice",
        )
        assert (await bot.runtime.matches.get_match(1)).status == "cancelled"


async def test_a_match_with_a_deadline_clock_and_days_waits_for_the_next_allowed_day(
    world: World,
) -> None:
    # Friday 18:00 UTC with a 24-hour turn: Saturday 18:00, then 20:00, then Monday.
    clock = ManualClock(datetime(2030, 1, 4, 18, 0, tzinfo=UTC))
    monday_eight = int(datetime(2030, 1, 7, 20, 0, tzinfo=UTC).timestamp())
    bot = MatchBot(world.settings(), clock=clock, guild_ready_timeout=0.05)
    async with running(bot, world.sandbox):
        await world.sandbox.wait_for(
            lambda: bool(world.sandbox.commands(world.guild)), timeout=TIMEOUT, what="commands"
        )
        created = await world.alice.slash(
            "match create",
            computer="greedy",
            deck="starter:war",
            turn_hours=24.0,
            clock="20:00",
            days="mon-fri",
        )
        await created.wait_done(timeout=TIMEOUT)
        thread = await world.sandbox.wait_for(
            lambda: next(
                (
                    t
                    for t in world.sandbox.threads(world.lobby)
                    if (t.name or "").startswith("Match #")
                ),
                None,
            ),
            timeout=TIMEOUT,
            what="the match thread",
        )
        info = await world.alice.slash("match info", in_channel=thread)
        answer = await info.wait_done(timeout=TIMEOUT)
        text = " ".join(str(e.get("description", "")) for e in answer.embeds)
        assert f"deadline <t:{monday_eight}:f>" in text
        assert "Deadlines fall at 20:00, on mon-fri (UTC)" in text
        await world.sandbox.wait_for(
            lambda: any(
                "1 day(s) per turn, deadlines falling at 20:00, on mon-fri (UTC);"
                in str(e.get("description", ""))
                for m in world.sandbox.messages(thread)
                for e in m.embeds
            ),
            timeout=TIMEOUT,
            what="the challenge saying where deadlines fall",
        )
