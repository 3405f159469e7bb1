"""/admin: a server's moderators pause, resume and extend its matches, and only its own."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from bot import MatchBot
from sandbox import ScriptedPlayer
from sandbox.errors import PlayerError
from service import OutboxRecord
from tests.cogs.support import (
    TIMEOUT,
    World,
    bot_running,
    create_match,
    dm_sheet,
    is_sheet,
    posts,
)
from tests.sandbox.support import running

HOUR_MS = 3_600_000


def moderator(world: World) -> ScriptedPlayer:
    """Mia, who has Manage Server in the match's server."""
    user = world.sandbox.create_user("Mia", guild=world.guild, manage_server=True)
    return world.sandbox.player(user, channel=world.lobby)


async def test_a_moderator_pauses_resumes_and_extends_a_match_of_the_server(world: World) -> None:
    sandbox = world.sandbox
    mia = moderator(world)
    async with bot_running(world) as bot:
        thread, match_id = await create_match(world)
        assert bot.runtime is not None
        matches = bot.runtime.matches
        before = await matches.get_match(match_id)

        answer = await (await mia.slash("admin pause", match=match_id)).wait_done(timeout=TIMEOUT)
        assert answer.content == f"Match #{match_id} is paused."
        assert (await matches.get_match(match_id)).status == "paused"

        answer = await (await mia.slash("admin resume", match=match_id)).wait_done(timeout=TIMEOUT)
        assert answer.content == f"Match #{match_id} resumes."
        resumed = await matches.get_match(match_id)
        assert resumed.status == "active"

        result = await mia.slash("admin extend", match=match_id, hours=2.0)
        answer = await result.wait_done(timeout=TIMEOUT)
        assert answer.content == f"Match #{match_id}'s deadline is extended."
        extended = await matches.get_match(match_id)
        assert before.deadline_at is not None and resumed.deadline_at is not None
        assert extended.deadline_at == resumed.deadline_at + 2 * HOUR_MS
        await sandbox.wait_for(
            lambda: len(sandbox.messages(thread)) > len(posts(sandbox, thread, "Match #")),
            timeout=TIMEOUT,
            what="the announcements in the thread",
        )


async def test_a_moderator_of_another_server_cannot_touch_the_match(world: World) -> None:
    sandbox = world.sandbox
    other = sandbox.create_guild("Some other server")
    dave = sandbox.player(
        sandbox.create_user("Dave", guild=other, manage_server=True),
        channel=sandbox.create_channel(other, "general"),
    )
    # Commands synced globally, so Dave's server has /admin too.
    bot = MatchBot(replace(world.settings(), test_guild_id=None), guild_ready_timeout=0.05)
    async with running(bot, sandbox):
        await sandbox.wait_for(lambda: bool(sandbox.commands()), timeout=TIMEOUT, what="commands")
        _thread, match_id = await create_match(world)
        assert bot.runtime is not None
        before = await bot.runtime.matches.get_match(match_id)
        results = [
            await dave.slash("admin pause", match=match_id),
            await dave.slash("admin resume", match=match_id),
            await dave.slash("admin extend", match=match_id, hours=300.0),
        ]
        for result in results:
            answer = await result.wait_done(timeout=TIMEOUT)
            assert answer.content == f"There is no match #{match_id} in this server."
        after = await bot.runtime.matches.get_match(match_id)
        assert (after.status, after.deadline_at) == (before.status, before.deadline_at)


async def test_a_member_without_manage_server_cannot_use_admin(world: World) -> None:
    async with bot_running(world) as bot:
        _thread, match_id = await create_match(world)
        assert bot.runtime is not None
        # The command's default permissions keep it from Carol's client, as Discord does.
        with pytest.raises(PlayerError, match="lacks the permissions to use /admin"):
            await world.carol.slash("admin pause", match=match_id)
        assert (await bot.runtime.matches.get_match(match_id)).status == "active"


async def test_a_moved_deadline_reaches_the_players_dm_sheets(world: World) -> None:
    sandbox = world.sandbox
    mia = moderator(world)
    async with bot_running(world) as bot:
        _thread, match_id = await create_match(world)
        assert bot.runtime is not None
        sheets = [await dm_sheet(p, match_id, 1) for p in (world.alice, world.bob)]

        def deadline_lines() -> list[str]:
            """The first line of each player's DM sheet as it is now: the deadline."""
            return [
                str(sandbox.state.messages[s.id].embeds[0]["description"]).splitlines()[0]
                for s in sheets
            ]

        await (await mia.slash("admin pause", match=match_id)).wait_done(timeout=TIMEOUT)
        await sandbox.wait_for(
            lambda: all("(paused)" in line for line in deadline_lines()),
            timeout=TIMEOUT,
            what="both sheets paused",
        )
        await (await mia.slash("admin resume", match=match_id)).wait_done(timeout=TIMEOUT)
        result = await mia.slash("admin extend", match=match_id, hours=48.0)
        await result.wait_done(timeout=TIMEOUT)
        deadline = (await bot.runtime.matches.get_match(match_id)).deadline_at
        assert deadline is not None
        shown = f"Deadline <t:{deadline // 1000}:f> (<t:{deadline // 1000}:R>) ·"
        await sandbox.wait_for(
            lambda: all(line.startswith(shown) for line in deadline_lines()),
            timeout=TIMEOUT,
            what="the extended deadline on both sheets",
        )


async def test_admin_outbox_counts_this_servers_rows_and_shows_given_up_errors(
    world: World,
) -> None:
    sandbox = world.sandbox
    mia = moderator(world)
    async with bot_running(world) as bot:
        assert bot.runtime is not None
        thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        # The thread is deleted: the concession's post can never be delivered.
        sandbox.state.delete_channel(thread)
        await (await world.alice.slash("match concede", match=match_id)).wait_done(timeout=TIMEOUT)

        # A match of another server, without a channel: its announcement is given up too.
        await bot.runtime.matches.create_match("someone", guild_id="999")
        store = bot.runtime.outbox.store

        async def dead() -> int:
            async with store.read() as s:
                return await s.count_outbox("dead")

        for _ in range(100):
            if await dead() == 2:
                break
            await asyncio.sleep(0.1)
        answer = await (await mia.slash("admin outbox status")).wait_done(timeout=TIMEOUT)
        text = answer.content
        assert "This server's match announcements:" in text and "1 dead" in text
        assert f"- match #{match_id}, match ended: `" in text and "(1 attempt(s), " in text
        assert "the channel of match 1 is gone" in text
        assert "#2" not in text


async def test_a_moderator_sees_a_turn_that_keeps_failing_to_resolve(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    mia = moderator(world)
    async with bot_running(world) as bot:
        _thread, match_id = await create_match(world)
        assert bot.runtime is not None
        matches = bot.runtime.matches
        answer = await (await mia.slash("admin failing")).wait_done(timeout=TIMEOUT)
        assert answer.content == "Every turn resolves."

        async def broken(*args: object) -> object:
            raise RuntimeError("engine `fault`")

        monkeypatch.setattr(matches._core, "compute", broken)
        await world.alice.send_dm("confirm")
        await world.bob.send_dm("confirm")
        for _ in range(int(TIMEOUT / 0.05)):
            if await matches.failing():
                break
            await asyncio.sleep(0.05)
        answer = await (await mia.slash("admin failing")).wait_done(timeout=TIMEOUT)
        assert answer.content.startswith("The bot keeps trying these:\n")
        assert f"Match #{match_id}, turn 1: failed 1 time(s) since <t:" in answer.content
        assert "Last error: `RuntimeError: engine 'fault'`" in answer.content
        assert (await matches.get_match(match_id)).turn == 1


async def _given_up_sheet(bot: MatchBot, player: ScriptedPlayer, match_id: int) -> str:
    """The outbox key of the player's turn-1 DM sheet, once the outbox gave it up."""
    assert bot.runtime is not None
    outbox = bot.runtime.outbox
    mine: list[OutboxRecord] = []
    for _ in range(int(TIMEOUT / 0.05)):
        async with outbox.store.read() as s:
            rows = await s.list_outbox(match_id=match_id, kind="order_sheet")
        mine = [r for r in rows if r.recipient == str(player.id) and r.status == "dead"]
        if mine:
            break
        await asyncio.sleep(0.05)
    [row] = mine
    return row.key


def sheets_of(player: ScriptedPlayer, match_id: int) -> int:
    return len([m for m in player.dms() if is_sheet(match_id, 1)(m)])


async def test_a_given_up_order_sheet_is_listed_and_sent_again(world: World) -> None:
    mia = moderator(world)
    sandbox = world.sandbox
    async with bot_running(world, outbox_retry_seconds=0.2) as bot:
        assert bot.runtime is not None
        # What twelve failures over an hour come to, without the hour: the first gives up.
        bot.runtime.outbox.max_attempts = 1
        for player in (world.alice, world.bob):
            sandbox.faults.server_error(
                f"POST /channels/{player.dm.id}/messages", status=503, times=10**6
            )
        thread, match_id = await create_match(world)
        keys = [await _given_up_sheet(bot, p, match_id) for p in (world.alice, world.bob)]
        sandbox.faults.clear()

        answer = await (await mia.slash("admin outbox status")).wait_done(timeout=TIMEOUT)
        assert "2 dead" in answer.content and "503 Service Unavailable" in answer.content
        assert all(f"`{key}`" in answer.content for key in keys)

        # Bob asks for his sheet: besides the one only he sees, his DM sheet comes at last.
        assert sheets_of(world.bob, match_id) == 0
        await (await world.bob.slash("orders", in_channel=thread)).wait_done(timeout=TIMEOUT)
        await sandbox.wait_for(
            lambda: sheets_of(world.bob, match_id) == 1, timeout=TIMEOUT, what="Bob's DM sheet"
        )

        assert sheets_of(world.alice, match_id) == 0
        answer = await (await mia.slash("admin outbox retry")).wait_done(timeout=TIMEOUT)
        assert answer.content == "1 announcement(s) go out again."
        await dm_sheet(world.alice, match_id, 1)
        answer = await (await mia.slash("admin outbox status")).wait_done(timeout=TIMEOUT)
        assert "0 dead" in answer.content and "Given up" not in answer.content
        answer = await (await mia.slash("admin outbox retry")).wait_done(timeout=TIMEOUT)
        assert answer.content == "Nothing was given up."
        assert sheets_of(world.alice, match_id) == sheets_of(world.bob, match_id) == 1


async def test_the_bot_itself_refuses_admin_to_a_member_without_manage_server(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A server may grant /admin to anyone (Server Settings -> Integrations); the bot checks
    # on its own. Carol's client lets her run it, so the interaction reaches the bot.
    monkeypatch.setattr(world.carol, "_check_command_permissions", lambda *args: None)
    async with bot_running(world) as bot:
        _thread, match_id = await create_match(world)
        assert bot.runtime is not None
        before = await bot.runtime.matches.get_match(match_id)
        for path, options in (
            ("admin pause", {"match": match_id}),
            ("admin resume", {"match": match_id}),
            ("admin extend", {"match": match_id, "hours": 300.0}),
            ("admin failing", {}),
            ("admin outbox status", {}),
            ("admin outbox retry", {}),
        ):
            answer = await (await world.carol.slash(path, **options)).wait_done(timeout=TIMEOUT)
            assert answer.content == (
                "You need the Manage Server permission or the moderator role for that."
            ), path
        after = await bot.runtime.matches.get_match(match_id)
        assert (after.status, after.deadline_at, after.version) == (
            before.status,
            before.deadline_at,
            before.version,
        )
