"""The order sheet offers every castable thing (the house's hereditary spell, a bound spell at
each power level) and the mana a town makes once taken; what is picked reaches the turn."""

from __future__ import annotations

from io import BytesIO
from itertools import permutations
from typing import Any

from PIL import Image, ImageChops

from bot import MatchBot
from cogs.runtime import draw_board, seat_of
from engine.coords import Coord
from engine.legal import legal_moves
from engine.state import ActiveSpell, GameState, Group, HostRef, Mana, Minion, Side, Structure
from render import DEFAULT_THEME
from render.board import legend_left
from render.geometry import Layout
from sandbox import Message, walk_components
from tests.cogs.support import World, bot_running, create_match, dm_sheet, wait_turn_post
from tests.cogs.test_sheet import edited, orders_field, select


async def rig(bot: MatchBot, match_id: int, player_id: str) -> dict[str, Any]:
    """Give the player mana, the hero Dracha (her claws carry Dragon Breath) beside their first
    group, an enemy group two squares away and a neutral town the group can step onto."""
    runtime = bot.runtime
    assert runtime is not None
    match = await runtime.matches.get_match(match_id, with_state=True)
    assert match.state is not None
    seat = seat_of(match, player_id)
    assert seat is not None and seat.side is not None
    side = Side(seat.side)
    state = GameState.from_dict(match.state)
    mine = next(g for g in state.groups if g.owner == side)
    taken = {g.coord for g in state.groups} | {s.coord for s in state.structures}
    free = [d for d in legal_moves(state, side, runtime.content)[mine.id] if d not in taken]
    enemy = next(g for g in state.groups if g.owner == side.other)
    # The enemy stands two squares from the hero and out of reach of the group and the town
    # (on plains, whatever the square was); which squares allow that depends on the board and
    # on the seat the player drew.
    town_at, hero_at, enemy_at = next(
        (town_at, hero_at, sq.coord)
        for town_at, hero_at in permutations(free, 2)
        for sq in state.squares
        if sq.coord not in taken | {town_at, hero_at}
        and hero_at.dist(sq.coord) == 2
        and min(mine.coord.dist(sq.coord), town_at.dist(sq.coord)) >= 2
    )
    hero_group, hero, town, claws = range(state.next_id, state.next_id + 4)
    dracha = Minion(
        hero,
        "recruit",
        "Dracha",
        None,
        12,
        12,
        armor=1,
        hand=4,
        level=2,
        traits=frozenset({"hero"}),
    )
    # Edited as the stored document, which is what the bot reads.
    doc = dict(match.state)
    doc["groups"] = [
        {**g, "coord": enemy_at.name} if g["id"] == enemy.id else g for g in doc["groups"]
    ] + [Group(hero_group, side, side, hero_at, (dracha,)).to_dict()]
    doc["squares"] = [
        {**sq, "terrain": "plains"} if sq["coord"] == enemy_at.name else sq for sq in doc["squares"]
    ]
    doc["structures"] = [
        *doc["structures"],
        Structure(town, "town", town_at, "neutral").to_dict(),
    ]
    claws_spell = ActiveSpell(
        claws,
        "dracha_claws",
        side,
        HostRef.minion(hero),
        state.turn - 1,
        visible=False,
        helper=True,
    )
    doc["active_spells"] = [*doc["active_spells"], claws_spell.to_dict()]
    doc["players"] = [
        {**p, "pool": Mana(*(6 for _ in range(6))).to_dict()} if p["side"] == side else p
        for p in doc["players"]
    ]
    doc["next_id"] = state.next_id + 4
    async with runtime.matches.store.write() as s:
        assert await s.update_match(match_id, state=doc)
    # The bot keeps a turn's state and legal orders in memory: a turn never changes under it.
    runtime._states.clear()
    runtime._legal.clear()
    return {
        "side": side,
        "town": town_at,
        "enemy": enemy.id,
        "enemy_at": enemy_at,
        "claws": claws,
    }


def options(message: Message, action: str) -> dict[str, str]:
    """value -> label of the menu ``action`` on the message."""
    return {str(o["value"]): str(o["label"]) for o in select(message, action)["options"]}


async def pick(world: World, sheet: Message, action: str, value: str) -> None:
    await world.alice.select(sheet, [value], custom_id=select(sheet, action)["custom_id"])


def has(action: str) -> Any:
    return lambda m: any(
        str(c.get("custom_id", "")).startswith(f"sanctum:{action}:")
        for c in walk_components(m.components)
    )


async def test_hereditary_bound_spells_and_a_town_mana_choice_from_the_sheet(
    world: World,
) -> None:
    async with bot_running(world) as bot:
        thread, match_id = await create_match(world)
        sheet = await dm_sheet(world.alice, match_id, 1)
        rigged = await rig(bot, match_id, str(world.alice.id))
        town: Coord = rigged["town"]
        # Typed orders refresh the sheet sent by DM, now with what the rigged position allows.
        await world.alice.send_dm(f"move g1 to {town}\nmana {town} order")
        sheet = await edited(world, sheet, lambda m: f"mana {town} order" in orders_field(m))

        hand = next(f["value"] for f in sheet.embeds[0]["fields"] if f["name"] == "Hand")
        assert "**Warcry** (hereditary, 1+1)" in hand
        assert "**Dragon Breath** (bound, free, power 2/4)" in hand
        casts = options(sheet, "cast")
        assert casts["h-warcry"].startswith("Warcry (1+1)")
        bound = f"p4-{rigged['claws']}-dragon_breath"
        assert casts[f"p2-{rigged['claws']}-dragon_breath"] == "Dragon Breath power 2 (free)"
        assert casts[bound] == "Dragon Breath power 4 (free)"

        await pick(world, sheet, "cast", bound)
        sheet = await edited(world, sheet, has("target"))
        # Dragon Breath reaches only the enemy group two squares away.
        [target] = select(sheet, "target")["options"]
        assert target["value"] == f"g-{rigged['enemy']}"
        await pick(world, sheet, "target", target["value"])
        sheet = await edited(world, sheet, lambda m: "Dragon Breath" in orders_field(m))
        assert orders_field(sheet).splitlines() == [
            f"1. cast Dragon Breath on {rigged['enemy_at']} power 4",
            f"2. move g1 to {town}",
            f"3. mana {town} order",
        ]
        # A bound spell is cast once per turn by its holder: it leaves the menu.
        assert bound not in options(sheet, "cast")

        await pick(world, sheet, "cast", "h-warcry")
        sheet = await edited(world, sheet, has("target"))
        warcry_target = select(sheet, "target")["options"][0]["value"]
        await pick(world, sheet, "target", warcry_target)
        sheet = await edited(world, sheet, lambda m: "Warcry" in orders_field(m))
        assert orders_field(sheet).splitlines()[1].startswith("2. cast Warcry on ")

        menu = select(sheet, "train")
        assert menu["placeholder"] == "Train a novice or choose a town's mana…"
        [choice] = [o for o in menu["options"] if o["value"] == f"town-{town.name}"]
        assert choice["label"] == f"mana of the town on {town} if you take it"
        assert choice["description"] == "chosen: order"
        await pick(world, sheet, "train", f"town-{town.name}")
        sheet = await edited(world, sheet, has("mana"))
        assert set(options(sheet, "mana")) == {
            "default",
            "order",
            "strife",
            "clarity",
            "mystery",
            "will",
            "world",
        }
        await pick(world, sheet, "mana", "will")
        sheet = await edited(world, sheet, lambda m: f"mana {town} will" in orders_field(m))
        # The new choice replaces the typed one.
        assert orders_field(sheet).splitlines()[-1] == f"4. mana {town} will"
        assert f"mana {town} order" not in orders_field(sheet)

        await world.alice.click(sheet, "Confirm")
        await edited(world, sheet, lambda m: "Confirmed" in m.embeds[0]["description"])
        await world.bob.send_dm("confirm")
        post = await wait_turn_post(world, thread, match_id, 1)

        assert bot.runtime is not None
        # The board's panel keys this turn's cast chips: drawn with the casts left out of the
        # report, the panel differs (without a key, the panel depends on the state alone).
        record = await bot.runtime.matches.history(match_id, 1)
        posted = Image.open(
            BytesIO(next(a.data for a in post.attachments if a.filename.endswith(".png")))
        )
        quiet = {
            **record.report,
            "events": [
                e
                for e in record.report["events"]
                if e["kind"] not in ("spell_executed", "spell_squandered")
            ],
        }
        without = Image.open(BytesIO(draw_board(record.state, quiet)))
        layout = Layout(record.state["width"], record.state["height"], DEFAULT_THEME)
        panel = (0, layout.panel_top, legend_left(layout), layout.height)
        assert posted.size == without.size == layout.size
        assert (
            ImageChops.difference(
                posted.convert("RGB").crop(panel), without.convert("RGB").crop(panel)
            ).getbbox()
            is not None
        )
        after = await bot.runtime.matches.get_match(match_id, with_state=True)
        assert after.state is not None
        state = GameState.from_dict(after.state)
        taken = next(s for s in state.structures if s.coord == town)
        assert (taken.owner, taken.mana_type) == (rigged["side"], "will")
        record = await bot.runtime.matches.history(match_id, 1)
        executed = {
            e.get("spell")
            for e in record.report["events"]
            if e["kind"] == "spell_executed" and e.get("side") == str(rigged["side"])
        }
        assert {"dragon_breath", "warcry"} <= executed
