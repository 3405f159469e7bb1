"""A restart in the middle of a turn, closed DMs, and Discord failing while a turn is posted."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot import MatchBot
from cogs.poster import poster_of
from sandbox import Message, walk_components
from service import OutboxRecord
from service.announcements import OrderSheet, TurnResolved
from tests.cogs.support import (
    TIMEOUT,
    World,
    bot_running,
    chosen_orders,
    create_match,
    dm_sheet,
    is_sheet,
    posts,
    wait_final_post,
    wait_turn_post,
)

MAX_TURNS = 30


def orders_field(message: Message) -> str:
    fields = message.embeds[0].get("fields") or []
    return next(str(f["value"]) for f in fields if str(f["name"]).startswith("Your orders"))


def component(message: Message, action: str) -> dict[str, Any]:
    return next(
        c
        for c in walk_components(message.components)
        if str(c.get("custom_id", "")).startswith(f"sanctum:{action}:")
    )


async def test_a_restart_mid_turn_keeps_orders_and_buttons(world: World) -> None:
    async with bot_running(world):
        thread, match_id = await create_match(world)
        sheet = await dm_sheet(world.alice, match_id, 1)
        move = component(sheet, "move")
        await world.alice.select(sheet, [move["options"][0]["value"]], custom_id=move["custom_id"])
        live = world.sandbox.state.messages
        await world.sandbox.wait_for(
            lambda: any(
                str(c.get("custom_id", "")).startswith("sanctum:dest:")
                for c in walk_components(live[sheet.id].components)
            ),
            what="the destination menu",
        )
        dest = component(live[sheet.id], "dest")
        square = next(o["value"] for o in dest["options"] if o["value"] != "stay")
        await world.alice.select(live[sheet.id], [square], custom_id=dest["custom_id"])
        await world.sandbox.wait_for(
            lambda: f"to {square}" in orders_field(live[sheet.id]), what="the order"
        )
    # A new process on the same database: the old sheet's buttons still work.
    async with bot_running(world, sync_commands=False):
        result = await world.alice.click(live[sheet.id], "Confirm")
        await world.sandbox.wait_for(
            lambda: "Confirmed" in live[sheet.id].embeds[0]["description"],
            what="the confirmation",
        )
        assert not result.followups
        await world.bob.send_dm("confirm")
        post = await wait_turn_post(world, thread, match_id, 1)
        log = " ".join(str(e.get("description", "")) for e in post.embeds)
        assert f"→ {square}" in log


async def test_a_player_with_closed_dms_plays_a_whole_match_through_orders(world: World) -> None:
    world.sandbox.set_dms_open(world.bob.user, False)
    async with bot_running(world) as bot:
        thread, match_id = await create_match(world)
        notice = "I cannot send you direct messages"
        for turn in range(1, MAX_TURNS + 1):
            await dm_sheet(world.alice, match_id, turn)
            _alice_orders, alice_text = await chosen_orders(bot, world.alice, match_id)
            _bob_orders, bob_text = await chosen_orders(bot, world.bob, match_id)
            await world.alice.send_dm(f"{alice_text}\nconfirm")
            result = await world.bob.slash("orders", in_channel=thread, orders=bob_text or "orders")
            sheet = await result.wait_done()
            assert sheet.ephemeral and sheet.ephemeral_for == world.bob.id
            assert "❌" not in sheet.content
            await world.bob.click(sheet, "Confirm")
            await wait_turn_post(world, thread, match_id, turn)
            assert bot.runtime is not None
            if (await bot.runtime.matches.get_match(match_id)).status == "ended":
                break
        else:
            await (await world.alice.slash("match concede", in_channel=thread)).wait_done()
        await wait_final_post(world, thread, match_id)
        notices = [
            m
            for m in world.sandbox.messages(thread)
            if any(notice in str(e.get("description", "")) for e in m.embeds)
        ]
        assert len(notices) == 1 and str(world.bob.id) in notices[0].content
        assert not world.bob.dms()


async def test_a_429_and_a_500_during_a_turn_post_are_retried_and_posted_once(
    world: World,
) -> None:
    async with bot_running(world):
        thread, match_id = await create_match(world)
        await asyncio.gather(dm_sheet(world.alice, match_id, 1), dm_sheet(world.bob, match_id, 1))
        route = f"POST /channels/{thread.id}/messages"
        world.sandbox.faults.rate_limit(route, retry_after=0.2)
        world.sandbox.faults.server_error(route)
        seen = len(world.sandbox.requests)
        await world.alice.send_dm("confirm")
        await world.bob.send_dm("confirm")
        await wait_turn_post(world, thread, match_id, 1)
        statuses = [
            r.status
            for r in world.sandbox.requests[seen:]
            if r.method == "POST" and r.path == f"/channels/{thread.id}/messages"
        ]
        assert statuses[:3] == [429, 500, 200]
        await dm_sheet(world.alice, match_id, 2)
        assert len(posts(world.sandbox, thread, f"Match #{match_id} · turn 1 resolved")) == 1
        assert world.sandbox.faults.pending == 0


async def _settled(bot: MatchBot, match_id: int, kind: str) -> list[OutboxRecord]:
    """The match's outbox rows of `kind`, once none of them is pending."""
    assert bot.runtime is not None
    outbox = bot.runtime.outbox
    for _ in range(int(TIMEOUT / 0.05)):
        async with outbox.store.read() as s:
            rows = await s.list_outbox(match_id=match_id, kind=kind)
        if rows and all(r.status != "pending" for r in rows):
            return rows
        await asyncio.sleep(0.05)
    raise AssertionError(f"the {kind} rows of match {match_id} stay pending")


@pytest.mark.parametrize("status", [500, 502, 503, 504, 524, 429])
async def test_a_turn_post_answered_with_an_error_after_it_was_made_appears_once(
    world: World, status: int
) -> None:
    async with bot_running(world, outbox_retry_seconds=0.2) as bot:
        thread, match_id = await create_match(world)
        await asyncio.gather(dm_sheet(world.alice, match_id, 1), dm_sheet(world.bob, match_id, 1))
        route = f"POST /channels/{thread.id}/messages"
        world.sandbox.faults.status_after_post(route, status)
        seen = len(world.sandbox.requests)
        await world.alice.send_dm("confirm")
        await world.bob.send_dm("confirm")
        await wait_turn_post(world, thread, match_id, 1)
        [row] = await _settled(bot, match_id, TurnResolved.kind)
        [post] = posts(world.sandbox, thread, f"Match #{match_id} · turn 1 resolved")
        # Not lost: the row is done and names the one message there is.
        assert (row.status, row.delivered_ref) == ("done", str(post.id))
        statuses = [
            r.status
            for r in world.sandbox.requests[seen:]
            if r.method == "POST" and r.path == f"/channels/{thread.id}/messages"
        ]
        # discord.py repeats the request itself, except after a 503 (the outbox's retry finds
        # the post by its key instead of posting again).
        assert statuses[0] == status
        assert statuses[1:2] == ([] if status == 503 else [200])
        await dm_sheet(world.alice, match_id, 2)
        assert len(posts(world.sandbox, thread, f"Match #{match_id} · turn 1 resolved")) == 1
        assert world.sandbox.faults.pending == 0


async def test_an_order_sheet_answered_with_a_502_after_it_was_sent_arrives_once(
    world: World,
) -> None:
    async with bot_running(world, outbox_retry_seconds=0.2) as bot:
        thread, match_id = await create_match(world)
        await asyncio.gather(dm_sheet(world.alice, match_id, 1), dm_sheet(world.bob, match_id, 1))
        world.sandbox.faults.status_after_post(f"POST /channels/{world.alice.dm.id}/messages", 502)
        await world.alice.send_dm("confirm")
        await world.bob.send_dm("confirm")
        await wait_turn_post(world, thread, match_id, 1)
        await dm_sheet(world.alice, match_id, 2)
        rows = await _settled(bot, match_id, OrderSheet.kind)
        sheets = [m for m in world.alice.dms() if is_sheet(match_id, 2)(m)]
        assert len(sheets) == 1
        mine = [r for r in rows if r.recipient == str(world.alice.id) and r.payload["turn"] == 2]
        assert [(r.status, r.delivered_ref) for r in mine] == [("done", str(sheets[0].id))]
        assert world.sandbox.faults.pending == 0


async def test_a_second_attempt_that_cannot_find_the_first_post_still_posts_once(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with bot_running(world, outbox_retry_seconds=0.2) as bot:
        # The search for the key sees nothing: the first post scrolled out of the history it
        # reads (a busy thread), or a second process posts the row at the same time.
        async def sees_nothing(item: OutboxRecord) -> None:
            return None

        poster = poster_of(bot)
        assert poster is not None
        monkeypatch.setattr(poster, "find", sees_nothing)
        thread, match_id = await create_match(world)
        await asyncio.gather(dm_sheet(world.alice, match_id, 1), dm_sheet(world.bob, match_id, 1))
        world.sandbox.faults.status_after_post(f"POST /channels/{thread.id}/messages", 503)
        await world.alice.send_dm("confirm")
        await world.bob.send_dm("confirm")
        [row] = await _settled(bot, match_id, TurnResolved.kind)
        assert row.attempts == 2
        [post] = posts(world.sandbox, thread, f"Match #{match_id} · turn 1 resolved")
        assert (row.status, row.delivered_ref) == ("done", str(post.id))
