"""On every image north is up: Blue's private sheet is drawn the same way up as Red's and the
public board, so "move g1 north" goes up the screen for both players."""

from __future__ import annotations

from io import BytesIO

from PIL import Image

from engine.state import Side
from render import DEFAULT_THEME
from render.geometry import Layout
from render.theme import OWNER_STYLES
from tests.cogs.support import World, bot_running, create_match, dm_sheet


def fill_share(
    image: Image.Image, box: tuple[int, int, int, int], colour: tuple[int, ...]
) -> float:
    crop = image.convert("RGB").crop(box)
    colours = crop.getcolors(maxcolors=crop.width * crop.height) or []
    return sum(n for n, c in colours if c == colour) / (crop.width * crop.height)


async def test_blues_sheet_shows_north_up_like_every_other_board(world: World) -> None:
    async with bot_running(world) as bot:
        _thread, match_id = await create_match(world)
        assert bot.runtime is not None
        match, view = await bot.runtime.view(match_id, None)
        blue = next(s.player_id for s in match.seats if s.side == "blue")
        player = world.alice if blue == str(world.alice.id) else world.bob
        sheet = await dm_sheet(player, match_id, 1)
        image = Image.open(BytesIO(sheet.attachments[0].data))
        layout = Layout(view.width, view.height, DEFAULT_THEME)
        sancta = {s.owner: s.coord for s in view.structures if s.kind == "sanctum"}
        for side in (Side.RED, Side.BLUE):
            at = sancta[side]
            box = layout.square_box(at.x, at.y)
            assert fill_share(image, box, OWNER_STYLES[str(side)].fill) > 0.08, side
        # Blue's Sanctum is on the higher rows, so Blue sees it at the top, north of Red's.
        assert sancta[Side.BLUE].y > sancta[Side.RED].y
        await player.send_dm("help")
        reply = await player.next_dm()
        while "Orders, one per line" not in reply.content:
            reply = await player.next_dm()
        assert "north is up on every board" in reply.content
