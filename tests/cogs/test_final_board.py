"""The final board of a match won by capture marks the taken Sanctum: a frame in the capture
colour round its square and its square named in the header, posted in the match's thread."""

from __future__ import annotations

from io import BytesIO

from PIL import Image

from engine.coords import Coord
from engine.notation import context_for, format_order
from engine.orders import MoveOrder
from engine.state import GameState, Side
from render import DEFAULT_THEME
from render.geometry import Layout
from tests.cogs.support import World, bot_running, create_match, dm_sheet, wait_final_post
from tests.cogs.test_orientation import fill_share


def rim(layout: Layout, at: Coord) -> tuple[int, int, int, int]:
    """The outer band of a square, where the frame of a taken Sanctum is drawn."""
    left, top, right, _bottom = layout.square_box(at.x, at.y)
    return (left, top, right, top + max(3, layout.cell // 10))


async def test_the_final_board_frames_the_captured_sanctum(world: World) -> None:
    async with bot_running(world) as bot:
        runtime = bot.runtime
        assert runtime is not None
        thread, match_id = await create_match(world)
        for player in (world.alice, world.bob):
            await dm_sheet(player, match_id, 1)
        match = await runtime.matches.get_match(match_id, with_state=True)
        assert match.state is not None
        state = GameState.from_dict(match.state)
        red_id = next(s.player_id for s in match.seats if s.side == "red")
        red, blue = (
            (world.alice, world.bob) if red_id == str(world.alice.id) else (world.bob, world.alice)
        )
        target = next(s for s in state.structures if s.kind == "sanctum" and s.owner == Side.BLUE)
        home = next(s for s in state.structures if s.kind == "sanctum" and s.owner == Side.RED)
        attacker = next(g for g in state.groups if g.owner == Side.RED and g.is_recruit_group)
        # Red's one group stands on plains next to Blue's Sanctum, which no Blue group is near.
        # Edited as the stored document, which is what the bot reads.
        beside = next(sq.coord for sq in state.squares if sq.coord.dist(target.coord) == 1)
        doc = dict(match.state)
        doc["squares"] = [
            {**sq, "terrain": "plains"} if sq["coord"] == beside.name else sq
            for sq in doc["squares"]
        ]
        doc["groups"] = [
            {**g, "coord": beside.name} if g["id"] == attacker.id else g
            for g in doc["groups"]
            if g["id"] == attacker.id
            or (g["owner"] == "blue" and Coord.parse(g["coord"]).dist(target.coord) > 2)
        ]
        async with runtime.matches.store.write() as s:
            assert await s.update_match(match_id, state=doc)
        runtime._states.clear()
        runtime._legal.clear()

        _, view = await runtime.view(match_id, red_id)
        order = format_order(
            MoveOrder(attacker.id, target.coord), context_for(view, runtime.content)
        )
        await red.send_dm(f"{order}\nconfirm")
        await blue.send_dm("confirm")
        final = await wait_final_post(world, thread, match_id)
        assert "wins — a Sanctum taken, turn" in str(final.embeds[0].get("description", ""))
        png = next(a for a in final.attachments if a.filename == "final.png")
        image = Image.open(BytesIO(png.data))
        layout = Layout(view.width, view.height, DEFAULT_THEME)
        capture = DEFAULT_THEME.capture
        assert fill_share(image, rim(layout, target.coord), capture) > 0.5
        assert fill_share(image, rim(layout, home.coord), capture) == 0
