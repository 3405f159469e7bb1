"""Views made by the engine itself (new_game on every realm) draw without surprises."""

from __future__ import annotations

from io import BytesIO

import pytest
from PIL import Image

from engine.content import Content, load_content
from engine.setup import MatchConfig, new_game
from engine.state import Side
from engine.view import view_for
from render import DEFAULT_THEME, render_board, render_order_sheet
from render.geometry import Layout
from render.theme import UNKNOWN_TERRAIN


def deck() -> list[str]:
    spells = load_content().spells.values()
    usable = [s.id for s in spells if s.spell_class in ("standard", "learned") and not s.helper]
    return (usable[:8] * 4)[:30]


@pytest.mark.parametrize("realm", sorted(load_content().realms))
def test_a_new_game_on_every_realm_draws_every_terrain_known(realm: str, content: Content) -> None:
    config = MatchConfig(
        seed=11,
        realm=realm,
        houses={Side.RED: "war", Side.BLUE: "life"},
        decks={Side.RED: deck(), Side.BLUE: deck()},
    )
    state = new_game(config, content)
    for square in state.squares:
        assert DEFAULT_THEME.terrain(square.terrain) is not UNKNOWN_TERRAIN, square
    layout = Layout(state.width, state.height, DEFAULT_THEME)
    for side in (None, Side.RED, Side.BLUE):
        image = Image.open(BytesIO(render_board(view_for(state, side, content))))
        assert image.size == layout.size
    sheet = Image.open(BytesIO(render_order_sheet(view_for(state, Side.RED, content))))
    assert sheet.height > layout.height
