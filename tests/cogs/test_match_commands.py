"""/match and /orders outside the turn loop: what players are told before a match begins."""

from __future__ import annotations

from tests.cogs.support import TIMEOUT, World, bot_running, create_match, dm_sheet, posts


async def test_board_and_orders_before_the_match_begins_say_so(world: World) -> None:
    async with bot_running(world):
        result = await world.alice.slash(
            "match create", opponent=world.bob.user, deck="starter:war"
        )
        await result.wait_done(timeout=TIMEOUT)
        thread = await world.sandbox.wait_for(
            lambda: next(iter(world.sandbox.threads(world.lobby)), None),
            timeout=TIMEOUT,
            what="the match thread",
        )
        board = await (await world.carol.slash("match board", in_channel=thread)).wait_done(
            timeout=TIMEOUT
        )
        orders = await (await world.alice.slash("orders", in_channel=thread)).wait_done(
            timeout=TIMEOUT
        )
        expected = "Match #1 has not begun yet: it starts once both seats are taken."
        assert expected in board.content
        assert expected in orders.content


async def test_match_autocomplete_names_players_not_ids(world: World) -> None:
    async with bot_running(world):
        _thread, match_id = await create_match(world)
        await dm_sheet(world.alice, match_id, 1)
        result = await world.carol.slash("match create")  # an open seat anyone may take
        await result.wait_done(timeout=TIMEOUT)
        join = await world.bob.autocomplete("match join", "match", "")
        concede = await world.alice.autocomplete("match concede", "match", "")
        assert [c["name"] for c in join] == [f"#{match_id + 1} by Carol"]
        assert [c["name"] for c in concede] == [f"#{match_id} active, turn 1 vs Bob"]


async def test_a_match_is_created_with_its_no_show_limit_and_grace(world: World) -> None:
    async with bot_running(world) as bot:
        assert bot.runtime is not None
        result = await world.alice.slash(
            "match create",
            opponent=world.bob.user,
            deck="starter:war",
            no_shows=5,
            grace_hours=12.0,
        )
        await result.wait_done(timeout=TIMEOUT)
        match = (await bot.runtime.matches.list_matches(player_id=str(world.alice.id)))[0]
        assert (match.no_show_limit, match.grace_seconds) == (5, 12 * 3600)
        thread = await world.sandbox.wait_for(
            lambda: next(iter(world.sandbox.threads(world.lobby)), None),
            timeout=TIMEOUT,
            what="the match thread",
        )
        created = await world.sandbox.wait_for(
            lambda: next(iter(posts(world.sandbox, thread, f"Match #{match.id}")), None),
            timeout=TIMEOUT,
            what="the match's first post",
        )
        text = str(created.embeds[0]["description"])
        assert "5 turn(s) in a row without orders forfeit" in text
        assert "a first missed deadline gets 12 hour(s) more, once" in text


async def test_the_join_button_asks_for_the_deck_to_join_with(world: World) -> None:
    async with bot_running(world) as bot:
        assert bot.runtime is not None
        result = await world.alice.slash("match create", deck="starter:war")
        await result.wait_done(timeout=TIMEOUT)
        thread = await world.sandbox.wait_for(
            lambda: next(iter(world.sandbox.threads(world.lobby)), None),
            timeout=TIMEOUT,
            what="the match thread",
        )
        created = await world.sandbox.wait_for(
            lambda: next((m for m in world.sandbox.messages(thread) if m.components), None),
            timeout=TIMEOUT,
            what="the post with the Join button",
        )
        menu = await (await world.bob.click(created, "Join")).wait_done(timeout=TIMEOUT)
        assert menu.ephemeral and menu.content == "Which deck do you join match #1 with?"
        await world.bob.select(menu, ["starter:life"])
        answer = await world.sandbox.wait_for(
            lambda: (
                (m := world.sandbox.state.messages[menu.id]).content.startswith("You joined") and m
            ),
            timeout=TIMEOUT,
            what="the menu to become the answer",
        )
        assert answer.content.startswith("You joined match #1; it has begun.")
        assert answer.components == []
        match = await bot.runtime.matches.get_match(1)
        assert [(s.player_id, s.house) for s in match.seats] == [
            (str(world.alice.id), "war"),
            (str(world.bob.id), "life"),
        ]
        # The seat is taken: the first post loses its Join button.
        await world.sandbox.wait_for(
            lambda: world.sandbox.state.messages[created.id].components == [],
            timeout=TIMEOUT,
            what="the Join button to go",
        )
