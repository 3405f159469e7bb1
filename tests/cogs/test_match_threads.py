"""Every match posts in a thread of its own, and commands typed in that thread find its match.

A league round makes its matches in the league channel; the poster opens each one's thread on
its first post (once, even when deliveries race, a reply is lost, or the bot stops between
opening the thread and storing it), and a thread is recognised however many matches came after.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot import MatchBot
from cogs.poster import poster_of
from cogs.runtime import Runtime
from sandbox import Channel
from storage import MatchRecord
from tests.cogs.support import TIMEOUT, World, bot_running, create_match, dm_sheet, posts

RETRY_SECONDS = 0.2


def runtime_of(bot: MatchBot) -> Runtime:
    assert bot.runtime is not None
    return bot.runtime


async def match_in_lobby(world: World, bot: MatchBot) -> MatchRecord:
    """Alice challenges Bob with the match stored in the lobby itself, as a league round does."""
    match = await runtime_of(bot).matches.create_match(
        str(world.alice.id),
        opponent_id=str(world.bob.id),
        guild_id=str(world.guild.id),
        channel_id=str(world.lobby.id),
    )
    return match


async def moved(bot: MatchBot, match_id: int, lobby: Channel) -> MatchRecord:
    """The match once it is stored in a channel other than the lobby."""
    matches = runtime_of(bot).matches
    for _ in range(int(TIMEOUT / 0.05)):
        match = await matches.get_match(match_id)
        if match.channel_id != str(lobby.id):
            return match
        await asyncio.sleep(0.05)
    raise AssertionError(f"match {match_id} never left the lobby")


async def failed_twice(bot: MatchBot, match_id: int) -> None:
    """Wait until the match's first post has failed twice and waits for its next attempt."""
    assert bot.store is not None
    for _ in range(int(TIMEOUT / 0.02)):
        async with bot.store.read() as s:
            (row,) = await s.list_outbox(match_id=match_id, kind="match_created")
        if row.attempts == 2 and row.claimed_by is None:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the first post was not tried twice")


async def wait_post(world: World, channel: Channel, prefix: str) -> None:
    await world.sandbox.wait_for(
        lambda: posts(world.sandbox, channel, prefix), timeout=TIMEOUT, what=prefix
    )


def match_posts_in(world: World, channel: Channel) -> list[str]:
    return [
        str(e.get("title", ""))
        for m in world.sandbox.messages(channel)
        for e in m.embeds
        if str(e.get("title", "")).startswith("Match #")
    ]


async def test_each_league_match_gets_a_thread_with_its_players(world: World) -> None:
    sandbox = world.sandbox
    mia = sandbox.player(
        sandbox.create_user("Mia", guild=world.guild, manage_server=True), channel=world.lobby
    )
    dave = sandbox.player(sandbox.create_user("Dave", guild=world.guild), channel=world.lobby)
    players = [world.alice, world.bob, world.carol, dave]
    async with bot_running(world) as bot:
        await (await mia.slash("league create", name="S1")).wait_done(timeout=TIMEOUT)
        for player, house in zip(players, ("war", "life", "death", "nature"), strict=True):
            text = (
                await (await player.slash("deck starter", house=house)).wait_done(timeout=TIMEOUT)
            ).content
            deck_id = int(text.split("#")[1].split(" ")[0])
            await (await player.slash("league signup", league="S1", deck=deck_id)).wait_done(
                timeout=TIMEOUT
            )
        await (await mia.slash("league start", league="S1")).wait_done(timeout=TIMEOUT)
        runtime = runtime_of(bot)
        matches: list[MatchRecord] = []
        for _ in range(int(TIMEOUT / 0.05)):
            matches = await runtime.matches.list_matches(guild_id=str(world.guild.id))
            if len(matches) == 2:
                break
            await asyncio.sleep(0.05)
        assert len(matches) == 2
        by_id = {p.id: p for p in players}
        threads: dict[int, Channel] = {}
        for match in matches:
            stored = await moved(bot, match.id, world.lobby)
            thread = sandbox.channel(int(str(stored.channel_id)))
            assert thread is not None and thread.parent_id == world.lobby.id
            seated = [by_id[int(str(s.player_id))] for s in stored.seats]
            assert (
                thread.name == f"Match #{match.id}: {seated[0].user.name} vs {seated[1].user.name}"
            )
            assert {p.id for p in seated} <= set(thread.member_ids)
            await wait_post(world, thread, f"Match #{match.id} begins")
            threads[match.id] = thread
        assert len({t.id for t in threads.values()}) == 2
        assert {t.id for t in sandbox.threads(world.lobby)} == {t.id for t in threads.values()}
        assert match_posts_in(world, world.lobby) == []
        for match in matches:
            others = [t for m, t in threads.items() if m != match.id]
            assert not any(
                f"Match #{match.id}" in title for t in others for title in match_posts_in(world, t)
            )
        # Commands in a thread are about its match: for a player of the other match too.
        for match, other in zip(matches, matches[::-1], strict=True):
            outsider = by_id[int(str(other.seats[0].player_id))]
            info = await (
                await outsider.slash("match info", in_channel=threads[match.id])
            ).wait_done(timeout=TIMEOUT)
            assert info.embeds and info.embeds[0]["title"] == f"Match #{match.id}"
            player = by_id[int(str(match.seats[0].player_id))]
            await dm_sheet(player, match.id, 1)
            sheet = await (await player.slash("orders", in_channel=threads[match.id])).wait_done(
                timeout=TIMEOUT
            )
            assert sheet.embeds and str(sheet.embeds[0]["title"]).startswith(
                f"Match #{match.id} · turn 1"
            )


async def test_racing_deliveries_open_one_thread(world: World) -> None:
    async with bot_running(world) as bot:
        poster = poster_of(bot)
        assert poster is not None
        # Deliveries of one match go one at a time in the poster's loop; here they race.
        await poster.stop()
        match = await match_in_lobby(world, bot)
        assert bot.store is not None
        async with bot.store.read() as s:
            (created,) = await s.list_outbox(match_id=match.id, kind="match_created")
        await asyncio.gather(*(poster.deliver(created) for _ in range(4)))
        (thread,) = world.sandbox.threads(world.lobby)
        assert (await runtime_of(bot).matches.get_match(match.id)).channel_id == str(thread.id)
        # Four deliveries of one row carry one nonce: Discord keeps one message.
        assert match_posts_in(world, thread) == [f"Match #{match.id}"]
        assert match_posts_in(world, world.lobby) == []
        assert {world.alice.id, world.bob.id} <= set(thread.member_ids)


async def test_a_lost_reply_to_opening_the_thread_opens_no_second_one(world: World) -> None:
    world.sandbox.faults.inject(f"POST /channels/{world.lobby.id}/threads", 503, lost_reply=True)
    async with bot_running(world, outbox_retry_seconds=RETRY_SECONDS) as bot:
        match = await match_in_lobby(world, bot)
        stored = await moved(bot, match.id, world.lobby)
        (thread,) = world.sandbox.threads(world.lobby)
        assert stored.channel_id == str(thread.id)
        await wait_post(world, thread, f"Match #{match.id}")
        assert world.sandbox.faults.pending == 0
        assert len(world.sandbox.threads(world.lobby)) == 1
        assert match_posts_in(world, world.lobby) == []


async def test_without_leave_to_open_threads_the_match_posts_in_its_channel(
    world: World,
) -> None:
    world.sandbox.faults.inject(f"POST /channels/{world.lobby.id}/threads", 403)
    async with bot_running(world) as bot:
        match = await match_in_lobby(world, bot)
        await wait_post(world, world.lobby, f"Match #{match.id}")
        assert world.sandbox.threads(world.lobby) == []
        stored = await runtime_of(bot).matches.get_match(match.id)
        assert stored.channel_id == str(world.lobby.id)


async def test_a_stop_before_the_thread_is_stored_leaves_one_thread(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    failures: list[int] = []

    async def crash(match_id: int, channel_id: str, *, from_channel_id: str) -> Any:
        failures.append(match_id)
        raise ConnectionError("the database went away")

    # The bot hears nothing of the new thread over the gateway: only its own memory of the
    # thread it opened keeps the retries in this process from opening more.
    hub = world.sandbox.state.gateway
    dispatch = hub.dispatch

    def without_thread_events(event: str, data: Any, **kwargs: Any) -> None:
        if event != "THREAD_CREATE":
            dispatch(event, data, **kwargs)

    monkeypatch.setattr(hub, "dispatch", without_thread_events)
    # Retries a second apart, so that the bot stops between two attempts, not during one (an
    # attempt cut short would hold its outbox row for the lease's full minute).
    async with bot_running(world, outbox_retry_seconds=1.0) as bot:
        runtime = runtime_of(bot)
        runtime.matches.move_to_channel = crash  # type: ignore[method-assign]
        match = await match_in_lobby(world, bot)
        await failed_twice(bot, match.id)
        assert failures == [match.id, match.id]
        assert len(world.sandbox.threads(world.lobby)) == 1
    monkeypatch.undo()
    # The next run finds the thread among the channel's active ones and keeps to it.
    async with bot_running(world, sync_commands=False) as bot:
        stored = await moved(bot, match.id, world.lobby)
        (thread,) = world.sandbox.threads(world.lobby)
        assert stored.channel_id == str(thread.id)
        await wait_post(world, thread, f"Match #{match.id}")
        assert match_posts_in(world, world.lobby) == []
        assert {world.alice.id, world.bob.id} <= set(thread.member_ids)


async def test_a_match_made_with_match_create_keeps_its_thread(world: World) -> None:
    async with bot_running(world) as bot:
        thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        assert [t.id for t in world.sandbox.threads(world.lobby)] == [thread.id]
        match = await runtime_of(bot).matches.get_match(match_id)
        assert match.channel_id == str(thread.id)
        assert posts(world.sandbox, thread, f"Match #{match_id} begins")


async def test_a_thread_is_recognised_after_a_hundred_newer_matches(world: World) -> None:
    async with bot_running(world) as bot:
        thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        matches = runtime_of(bot).matches
        guild = str(world.guild.id)
        for _ in range(100):
            newer = await matches.create_match("999", guild_id=guild)
            await matches.cancel_match(newer.id, "999")
        # Alice has a second match in progress, so only the thread can tell which one is meant.
        await matches.create_match(str(world.alice.id), guild_id=guild)
        info = await (await world.carol.slash("match info", in_channel=thread)).wait_done(
            timeout=TIMEOUT
        )
        assert info.embeds and info.embeds[0]["title"] == f"Match #{match_id}"
        sheet = await (await world.alice.slash("orders", in_channel=thread)).wait_done(
            timeout=TIMEOUT
        )
        assert sheet.embeds and str(sheet.embeds[0]["title"]).startswith(
            f"Match #{match_id} · turn 1"
        )
        # Outside any match's channel the answers are what they were.
        elsewhere = await (await world.alice.slash("orders")).wait_done(timeout=TIMEOUT)
        assert elsewhere.content.startswith("You are in several matches (")
        nowhere = await (await world.carol.slash("match info")).wait_done(timeout=TIMEOUT)
        assert nowhere.content == (
            "You are in no match in progress; name one with the `match` option."
        )


async def test_a_channel_older_matches_share_finds_the_players_own(world: World) -> None:
    async with bot_running(world) as bot:
        assert bot.store is not None
        now = 1_000
        ids: dict[int, int] = {}
        # As league matches made before they had threads: stored in the lobby, never posted.
        async with bot.store.write() as s:
            for player in (world.alice, world.bob):
                ids[player.id] = await s.insert_match(
                    created_by=str(player.id),
                    guild_id=str(world.guild.id),
                    channel_id=str(world.lobby.id),
                    ruleset="classic",
                    realm="veldt",
                    board="classic",
                    symmetric=False,
                    seed=7,
                    turn_seconds=3600,
                    no_show_limit=3,
                    grace_seconds=0,
                    reminders=[],
                    now=now,
                )
                await s.insert_seat(ids[player.id], 0, str(player.id), None, None, None)
                await s.insert_seat(ids[player.id], 1, None, None, None, None)
        # Each has another match elsewhere, so only the channel tells which one is meant.
        for player in (world.alice, world.bob):
            await runtime_of(bot).matches.create_match(str(player.id), guild_id="elsewhere")
        for player in (world.alice, world.bob):
            info = await (await player.slash("match info")).wait_done(timeout=TIMEOUT)
            assert info.embeds and info.embeds[0]["title"] == f"Match #{ids[player.id]}"
        nowhere = await (await world.carol.slash("match info")).wait_done(timeout=TIMEOUT)
        assert nowhere.content.startswith("You are in no match in progress")
