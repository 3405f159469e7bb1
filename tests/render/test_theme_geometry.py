"""The look's rules (no colour-only meaning), the square <-> pixel mapping, bundled assets."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from engine.content import load_content
from engine.spells.vocab import TERRAINS
from render.assets import ASSETS_DIR, BOLD_FONT, REGULAR_FONT, font
from render.geometry import Layout, column_name, square_name
from render.scene import SpellBadge
from render.theme import DEFAULT_THEME, OWNER_STYLES, TERRAIN_STYLES, Pattern, Theme


def test_every_terrain_has_its_own_colour_and_pattern() -> None:
    assert set(TERRAINS) <= set(TERRAIN_STYLES)
    assert set(load_content().terrains) <= set(TERRAIN_STYLES)
    patterns = [style.pattern for style in TERRAIN_STYLES.values()]
    assert len(set(patterns)) == len(patterns)
    assert Pattern.UNKNOWN not in patterns
    fills = [style.fill for style in TERRAIN_STYLES.values()]
    assert len(set(fills)) == len(fills)


def test_owners_differ_by_shape_as_well_as_colour() -> None:
    shapes = [style.shape for style in OWNER_STYLES.values()]
    fills = [style.fill for style in OWNER_STYLES.values()]
    assert len(set(shapes)) == len(shapes) == 3
    assert len(set(fills)) == 3


def test_unknown_names_fall_back_without_failing() -> None:
    assert DEFAULT_THEME.terrain("Barren Land") is TERRAIN_STYLES["barren"]
    assert DEFAULT_THEME.terrain("lagoon").pattern is Pattern.UNKNOWN
    assert DEFAULT_THEME.owner("purple") is OWNER_STYLES["neutral"]


def test_column_names_follow_the_order_notation() -> None:
    assert [column_name(x) for x in (0, 11, 25, 26)] == ["A", "L", "Z", "AA"]
    assert square_name(3, 3) == "D4"


@given(
    x=st.integers(0, 11),
    y=st.integers(0, 11),
    cell=st.sampled_from([24, 40, 60, 72]),
)
def test_a_square_s_centre_maps_back_to_the_square(x: int, y: int, cell: int) -> None:
    theme: Theme = DEFAULT_THEME if cell == 60 else DEFAULT_THEME.scaled(cell)
    layout = Layout(12, 12, theme)
    assert layout.square_at(*layout.centre(x, y)) == (x, y)
    left, top, right, bottom = layout.square_box(x, y)
    assert right - left == bottom - top == cell
    assert layout.board_box[0] <= left and right <= layout.board_box[2]
    assert layout.board_box[1] <= top and bottom <= layout.board_box[3]


def test_a1_is_bottom_left_and_l12_top_right() -> None:
    layout = Layout(12, 12, DEFAULT_THEME)
    board_left, board_top, board_right, board_bottom = layout.board_box
    assert layout.square_box(0, 0)[0] == board_left and layout.square_box(0, 0)[3] == board_bottom
    assert layout.square_box(11, 11)[2] == board_right and layout.square_box(11, 11)[1] == board_top
    assert layout.square_at(board_left - 1, board_top) is None


def test_fonts_are_the_bundled_files_listed_with_their_licence() -> None:
    licences = (ASSETS_DIR / "LICENSES.md").read_text()
    assert "Bitstream Vera" in licences
    for path in (REGULAR_FONT, BOLD_FONT):
        assert path.parent == ASSETS_DIR / "fonts"
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert path.name in licences and digest in licences
        assert font(12, bold=path == BOLD_FONT).path == str(path)


def test_spell_badges_use_the_initials_of_the_main_words() -> None:
    def label(name: str) -> str:
        return SpellBadge("some_id", name, "red").label

    assert label("Banner of the Fallen") == "BF"
    assert label("The Pact Is Sealed") == "PS"
    assert label("Adriel's Timepiece") == "AT"
    assert label("Fireball") == "Fi"
    assert SpellBadge("zap", "", "red").label == "ZA"
    assert SpellBadge("x", "Anything", "red", short="Q").label == "Q"
