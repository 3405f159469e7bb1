"""The order sheet: components, typed orders, stale clicks and people who are not players."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from sandbox import Message, walk_components
from tests.cogs.support import (
    World,
    bot_running,
    create_match,
    dm_sheet,
    wait_turn_post,
)


def orders_field(message: Message) -> str:
    fields = message.embeds[0].get("fields") or []
    return next(str(f["value"]) for f in fields if str(f["name"]).startswith("Your orders"))


def select(message: Message, action: str) -> dict[str, Any]:
    return next(
        c
        for c in walk_components(message.components)
        if str(c.get("custom_id", "")).startswith(f"sanctum:{action}:")
    )


async def edited(world: World, message: Message, check: Callable[[Message], bool]) -> Message:
    found: Message = await world.sandbox.wait_for(
        lambda: (
            world.sandbox.state.messages[message.id]
            if check(world.sandbox.state.messages[message.id])
            else None
        ),
        what="the sheet to change",
    )
    return found


async def test_components_build_orders_that_the_turn_carries_out(world: World) -> None:
    async with bot_running(world):
        thread, match_id = await create_match(world)
        sheet = await dm_sheet(world.alice, match_id, 1)
        # Every component names the match and the turn.
        ids = [c["custom_id"] for c in walk_components(sheet.components) if "custom_id" in c]
        assert ids and all(i.split(":")[2:4] == [str(match_id), "1"] for i in ids)

        move = select(sheet, "move")
        group_value = move["options"][0]["value"]
        await world.alice.select(sheet, [group_value], custom_id=move["custom_id"])
        sheet = await edited(
            world,
            sheet,
            lambda m: any(
                str(c.get("custom_id", "")).startswith("sanctum:dest:")
                for c in walk_components(m.components)
            ),
        )
        dest = select(sheet, "dest")
        square = next(o["value"] for o in dest["options"] if o["value"] != "stay")
        await world.alice.select(sheet, [square], custom_id=dest["custom_id"])
        sheet = await edited(world, sheet, lambda m: f"to {square}" in orders_field(m))
        assert orders_field(sheet).startswith("1. move g1 to ")

        await world.alice.click(sheet, "Confirm")
        sheet = await edited(world, sheet, lambda m: "Confirmed" in m.embeds[0]["description"])
        await world.bob.send_dm("confirm")
        post = await wait_turn_post(world, thread, match_id, 1)
        log = " ".join(str(e.get("description", "")) for e in post.embeds)
        assert f"→ {square}" in log


async def test_typed_orders_in_a_dm_answer_with_a_suggestion_and_the_echo(world: World) -> None:
    async with bot_running(world) as bot:
        _thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        assert bot.runtime is not None
        _, view = await bot.runtime.view(match_id, str(world.alice.id))
        name = bot.runtime.content.spells[view.hand[0].spell_id].name
        typo = name[:-1]
        match = await bot.runtime.matches.get_match(match_id, with_state=True)
        legal = await bot.runtime.legal(match, str(view.viewer))
        dest = next(iter(legal.moves.values()))[0]
        before = len(world.alice.dms())
        await world.alice.send_dm(f"cast {typo} on E5\nmove g1 nroth\nmove g1 to {dest}\ncancel 5")
        reply = await world.alice.wait_for_message(
            world.alice.dm, predicate=lambda m: not m.embeds, after=world.alice.dms()[before - 1]
        )
        assert f"no spell '{typo}' in your hand; did you mean {name}?" in reply.content
        assert "'nroth' is neither a direction nor a square; did you mean north?" in reply.content
        assert f"✅ move g1 to {dest}" in reply.content
        assert "❌ there is no order 5; you have 1" in reply.content
        assert f"1. move g1 to {dest}" in reply.content


async def test_a_click_on_an_earlier_turns_sheet_is_refused_politely(world: World) -> None:
    async with bot_running(world):
        thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        # The sheet /orders shows in the thread (a DM sheet is closed when its turn ends).
        opened = await world.alice.slash("orders", in_channel=thread, orders="confirm")
        old = await opened.wait_done()
        await world.bob.send_dm("confirm")
        await wait_turn_post(world, thread, match_id, 1)
        await dm_sheet(world.alice, match_id, 2)
        result = await world.alice.click(old, "Unconfirm")
        [answer] = await result.wait_followups(1)
        assert answer.ephemeral
        assert f"That sheet was for turn 1 of match #{match_id}; it is now turn 2" in (
            answer.content
        )


async def test_someone_who_is_not_a_player_cannot_give_orders(world: World) -> None:
    async with bot_running(world):
        thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        result = await world.carol.slash("orders", in_channel=thread, orders="confirm")
        answer = await result.wait_done()
        assert answer.ephemeral
        assert answer.content == f"You are not playing in match #{match_id}."
        await world.carol.send_dm("cast Fireball on E5")
        reply = await world.carol.next_dm()
        assert "You are in no match in progress" in reply.content
        joined = await world.carol.slash(
            "match join", in_channel=thread, match=match_id, deck="starter:war"
        )
        refusal = await joined.wait_done()
        assert refusal.content == f"Match #{match_id} is not open for joining."
        # Nothing Carol did reached the match.
        await world.alice.send_dm("orders")
        echo = await world.alice.next_dm()
        while "Your orders" not in echo.content:
            echo = await world.alice.next_dm()
        assert "none yet" in echo.content


async def test_an_unexpected_failure_shows_the_player_an_incident_id(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async with bot_running(world) as bot:
        _thread, match_id = await create_match(world)
        sheet = await dm_sheet(world.alice, match_id, 1)
        assert bot.runtime is not None

        async def broken(*args: object, **kwargs: object) -> None:
            raise RuntimeError("the database fell over")

        monkeypatch.setattr(bot.runtime.matches, "confirm", broken)
        result = await world.alice.click(sheet, "Confirm")
        [answer] = await result.wait_followups(1)
        found = re.search(r"incident `([0-9a-f]{8})`", answer.content)
        assert found is not None and "fell over" not in answer.content
        logged = [r for r in caplog.records if found.group(1) in r.getMessage()]
        assert logged and logged[0].exc_info is not None
        assert "the database fell over" in str(logged[0].exc_info[1])
