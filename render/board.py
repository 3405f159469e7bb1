"""The board image of a scene: background, pieces, header and panel.

The background (frame, coordinates, terrain, legend) depends only on the terrain and the
orientation, so it is drawn once and copied each turn together with its palette.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.report import TurnReport
from engine.view import PlayerView
from render import encode
from render import overlay as overlay_marks
from render.adapt import SpellBook, default_spells, report_marks, scene_from_view
from render.assets import RGB, fit_text, paste_text, text_width
from render.geometry import Layout, column_name, square_name
from render.marks import CastMark, TurnMarks
from render.scene import BoardScene, GroupMark, SideInfo, SpellBadge, SquareMark
from render.sprites import (
    globe,
    group_badge_height,
    group_token,
    novice_marker,
    owner_swatch,
    spell_badge,
    structure_icon,
    structure_mana_chip,
    terrain_tile,
)
from render.theme import (
    DEFAULT_THEME,
    MANA_ORDER,
    MANA_SHORT,
    OWNER_STYLES,
    TERRAIN_STYLES,
    UNKNOWN_TERRAIN,
    Theme,
    house_colours,
    mana_colour,
    readable_on,
)

TerrainKey = tuple[tuple[int, int, str], ...]


@dataclass(frozen=True, slots=True)
class Background:
    image: Image.Image
    palette: Image.Image


def layout_for(scene: BoardScene, theme: Theme) -> Layout:
    # Every board, public or private, is drawn the same way up (north, towards row 12, at the
    # top), so the compass words of orders and menus mean the same on every image.
    return Layout(scene.columns, scene.rows, theme)


def font_px(theme: Theme, size: float) -> int:
    return max(8, round(size * theme.unit))


def palette_colours(theme: Theme) -> list[RGB]:
    """Colours drawn over the background, with shades for their antialiased edges."""
    solid: list[RGB] = [
        theme.text,
        theme.dim_text,
        theme.background,
        theme.panel_fill,
        theme.bounce,
        theme.cast_line,
        theme.squander,
        theme.capture,
        theme.order_line,
        (255, 210, 30),
        (250, 244, 226),
        (20, 20, 24),
        (255, 255, 255),
    ]
    solid += [style.fill for style in OWNER_STYLES.values()]
    solid += [mana_colour(m) for m in MANA_ORDER]
    exact = [theme.off_board, theme.grid]
    for style in (*TERRAIN_STYLES.values(), UNKNOWN_TERRAIN):
        exact += [style.fill, style.ink]
    return exact + encode.blends(solid, [(20, 20, 24), (255, 255, 255)], steps=1)


@dataclass(frozen=True, slots=True)
class BackgroundKey:
    """Everything the cached background depends on."""

    terrain: TerrainKey
    columns: int
    rows: int
    theme: Theme
    overlay: bool


@lru_cache(maxsize=32)
def draw_background(key: BackgroundKey) -> Background:
    """Frame, coordinates, terrain, globe and legend, with the palette for encoding."""
    terrain, columns, rows, theme = key.terrain, key.columns, key.rows, key.theme
    layout = Layout(columns, rows, theme)
    image = Image.new("RGB", layout.size, theme.background)
    draw = ImageDraw.Draw(image)
    draw.rectangle(layout.header_box, fill=theme.panel_fill)
    draw.rectangle(layout.panel_box, fill=theme.panel_fill)
    left, top, right, bottom = layout.board_box
    draw.rectangle((left, top, right - 1, bottom - 1), fill=theme.off_board)
    # Off-board squares get a faint cross so they never read as a terrain.
    for x in range(columns):
        for y in range(rows):
            x0, y0, x1, y1 = layout.square_box(x, y)
            draw.line([(x0 + 4, y0 + 4), (x1 - 5, y1 - 5)], fill=theme.background, width=1)
            draw.line([(x0 + 4, y1 - 5), (x1 - 5, y0 + 4)], fill=theme.background, width=1)
    for x, y, name in terrain:
        image.paste(terrain_tile(theme.terrain(name), layout.cell), layout.square_box(x, y)[:2])
    for x, y, _name in terrain:
        draw.rectangle(layout.square_box(x, y), outline=theme.grid, width=1)
    gx, gy = overlay_marks.globe_anchor(layout, {(x, y) for x, y, _name in terrain})
    if gy < layout.panel_top:
        icon = globe(round(layout.cell * 0.62))
        image.paste(icon, (gx - icon.width // 2, gy - icon.height // 2 - layout.cell // 8), icon)
        paste_text(
            image,
            (gx, gy + layout.cell * 3 // 10),
            "Globe",
            font_px(theme, 11),
            theme.text,
            bold=True,
            anchor="mm",
        )
    size = font_px(theme, 15)
    margin = theme.margin
    for x in range(columns):
        cx = (layout.square_box(x, 0)[0] + layout.square_box(x, 0)[2]) // 2
        label = column_name(x)
        paste_text(image, (cx, top - margin // 2), label, size, theme.text, bold=True, anchor="mm")
        paste_text(
            image, (cx, bottom + margin // 2), label, size, theme.text, bold=True, anchor="mm"
        )
    for y in range(rows):
        cy = (layout.square_box(0, y)[1] + layout.square_box(0, y)[3]) // 2
        label = str(y + 1)
        paste_text(image, (left - margin // 2, cy), label, size, theme.text, bold=True, anchor="mm")
        paste_text(
            image, (right + margin // 2, cy), label, size, theme.text, bold=True, anchor="mm"
        )
    _draw_legend(image, layout, key.overlay)
    palette = encode.build_palette(image, palette_colours(theme))
    return Background(image, palette)


def legend_left(layout: Layout) -> int:
    return round(layout.width * 0.4)


def _draw_legend(image: Image.Image, layout: Layout, overlay: bool) -> None:
    theme = layout.theme
    u = theme.unit
    x0 = legend_left(layout)
    y0 = layout.panel_top + round(6 * u)
    size = font_px(theme, 12)
    row = round(21 * u)
    swatch = round(17 * u)
    paste_text(image, (x0, y0), "Terrain", font_px(theme, 13), theme.text, bold=True)
    terrains = list(TERRAIN_STYLES.values())
    per_column = (len(terrains) + 1) // 2
    col_width = round(92 * u)
    for i, style in enumerate(terrains):
        x = x0 + (i // per_column) * col_width
        y = y0 + round(20 * u) + (i % per_column) * row
        tile = terrain_tile(style, swatch)
        image.paste(tile, (x, y))
        ImageDraw.Draw(image).rectangle((x, y, x + swatch - 1, y + swatch - 1), outline=theme.grid)
        paste_text(
            image, (x + swatch + 4, y + swatch // 2), style.label, size, theme.dim_text, anchor="lm"
        )
    x1 = x0 + 2 * col_width + round(8 * u)
    paste_text(image, (x1, y0), "Symbols", font_px(theme, 13), theme.text, bold=True)
    entries: list[tuple[Image.Image, str]] = []
    for owner, owner_style in OWNER_STYLES.items():
        entries.append((owner_swatch(owner, swatch, theme), owner_style.label))
    entries.append(
        (
            group_token("neutral", 3, monsters=True, heroes=0, diameter=swatch, theme=theme),
            "monsters",
        )
    )
    entries.append(
        (group_token("neutral", 3, monsters=False, heroes=1, diameter=swatch, theme=theme), "hero")
    )
    entries.append((novice_marker(2, round(swatch * 0.9)), "novices"))
    entries.append((spell_badge("Ab", (236, 214, 120), (118, 66, 160), swatch), "spell"))
    if overlay:
        entries.extend(overlay_marks.legend_entries(swatch, theme))
    per_column = 8
    sym_width = (layout.width - x1) // 2
    for i, (sprite, label) in enumerate(entries):
        x = x1 + (i // per_column) * sym_width
        y = y0 + round(20 * u) + (i % per_column) * row
        slot = round(swatch * 1.7)
        image.paste(
            sprite, (x + (slot - sprite.width) // 2, y + (swatch - sprite.height) // 2), sprite
        )
        paste_text(image, (x + slot + 3, y + swatch // 2), label, size, theme.dim_text, anchor="lm")


def draw_scene(
    scene: BoardScene,
    theme: Theme,
    *,
    overlay: bool = False,
    under: Callable[[Image.Image, Layout], None] | None = None,
    cast_on: AbstractSet[tuple[int, int]] = frozenset(),
    casts: tuple[CastMark, ...] = (),
) -> tuple[Image.Image, Layout, Background]:
    """The board without a turn overlay, as an RGB image ready to draw on.

    ``under`` draws between the terrain and the pieces (lines that must not hide them). The
    squares of ``cast_on`` leave their right side to the overlay's cast badges: a turn's image
    shows what was cast there, and the panel lists what lasts. ``casts`` (the turn's) get a
    key in the panel: each chip with its spell's name and square.
    """
    layout = layout_for(scene, theme)
    background = draw_background(
        BackgroundKey(scene.terrain_key(), scene.columns, scene.rows, theme, overlay)
    )
    image = background.image.copy()
    if under is not None:
        under(image, layout)
    for square in scene.squares:
        if square.structure is not None or square.groups or square.spells:
            _draw_square(image, layout, square, casts=(square.x, square.y) in cast_on)
    for x, y in scene.captured:
        _frame_captured(image, layout, x, y)
    _draw_header(image, layout, scene)
    _draw_spell_panel(image, layout, scene, casts)
    return image, layout, background


def _frame_captured(image: Image.Image, layout: Layout, x: int, y: int) -> None:
    """A taken Sanctum: a thick frame in the capture colour round its square, edged in dark
    so it reads on every terrain; it stays on the square's rim, clear of the building's icon
    and the winner's token."""
    theme = layout.theme
    left, top, right, bottom = layout.square_box(x, y)
    width = max(3, layout.cell // 10)
    draw = ImageDraw.Draw(image)
    draw.rectangle((left, top, right - 1, bottom - 1), outline=theme.capture, width=width)
    inner = width + 1
    draw.rectangle(
        (left + inner, top + inner, right - 1 - inner, bottom - 1 - inner),
        outline=(20, 20, 24),
        width=1,
    )


def _draw_square(
    image: Image.Image, layout: Layout, square: SquareMark, *, casts: bool = False
) -> None:
    theme = layout.theme
    cell = layout.cell
    left, top, right, bottom = layout.square_box(square.x, square.y)
    pad = max(1, cell // 30)
    if square.structure is not None:
        icon = structure_icon(
            square.structure.kind, square.structure.owner, round(cell * 0.5), theme
        )
        image.paste(icon, (left + pad, top + pad), icon)
        mana = square.structure.mana_type
        if mana and square.structure.kind != "sanctum":
            chip, at = structure_mana_chip(mana, left, top, cell)
            image.paste(chip, at, chip)
        if square.structure.novices:
            marker = novice_marker(square.structure.novices, round(cell * 0.2))
            image.paste(marker, (left + pad, bottom - pad - marker.height), marker)
    groups = square.groups
    if len(groups) == 1:
        _paste_token(
            image,
            groups[0],
            (left + round(cell * 0.58), top + round(cell * 0.56)),
            round(cell * 0.5),
            theme,
        )
    elif square.crowded:
        # Overlapping tokens would hide each other's sizes: the first group's token, and the
        # number of groups in the badge row below.
        _paste_token(
            image,
            groups[0],
            (left + round(cell * 0.58), top + round(cell * 0.5)),
            round(cell * 0.44),
            theme,
        )
    elif groups:
        diameter = round(cell * 0.36)
        for i, group in enumerate(groups):
            cx = left + round(cell * (0.3 + 0.38 * (i % 2)))
            cy = top + round(cell * (0.45 + 0.3 * (i // 2)))
            _paste_token(image, group, (cx, cy), diameter, theme)
    height = group_badge_height(cell)
    square_spells = () if casts else square.spells
    y = top + pad
    for badge_sprite in _badges(square_spells, 2, height):
        image.paste(badge_sprite, (right - pad - badge_sprite.width, y), badge_sprite)
        y += height + 1
    group_spells = tuple(b for g in groups for b in g.spells)
    # A crowded square's row holds the count of its groups alone (its groups' spells are
    # listed in the panel and on the sheet).
    row = [] if square.crowded else _badges(group_spells, 2, height)
    if square.crowded:
        row.append(spell_badge(f"×{len(groups)}", (250, 250, 250), (20, 20, 24), height))
    x = right - pad
    for badge_sprite in row:
        x -= badge_sprite.width
        image.paste(badge_sprite, (x, bottom - pad - height), badge_sprite)
        x -= 1


def _paste_token(
    image: Image.Image, group: GroupMark, centre: tuple[int, int], diameter: int, theme: Theme
) -> None:
    token = group_token(
        group.owner,
        group.size,
        monsters=group.monsters,
        heroes=group.heroes,
        diameter=diameter,
        theme=theme,
    )
    image.paste(token, (centre[0] - token.width // 2, centre[1] - token.height // 2), token)


def _badges(spells: tuple[SpellBadge, ...], limit: int, height: int) -> list[Image.Image]:
    shown = spells if len(spells) <= limit else spells[: limit - 1]
    out = []
    for badge in shown:
        primary, secondary = house_colours(badge.house)
        out.append(spell_badge(badge.label, primary, secondary, height))
    if len(spells) > limit:
        out.append(
            spell_badge(f"+{len(spells) - len(shown)}", (250, 250, 250), (20, 20, 24), height)
        )
    return out


def _draw_header(image: Image.Image, layout: Layout, scene: BoardScene) -> None:
    theme = layout.theme
    u = theme.unit
    pad = round(10 * u)
    width = layout.width
    paste_text(
        image,
        (pad, round(6 * u)),
        scene.title or f"Turn {scene.turn}",
        font_px(theme, 24),
        theme.text,
        bold=True,
    )
    swatch = owner_swatch(scene.initiative, round(16 * u), theme)
    init_label = f"Initiative: {theme.owner(scene.initiative).label}"
    init_size = font_px(theme, 18)
    total = swatch.width + 6 + text_width(init_label, init_size, bold=True)
    x = (width - total) // 2
    y = round(10 * u)
    image.paste(swatch, (x, y + 1), swatch)
    paste_text(image, (x + swatch.width + 6, y), init_label, init_size, theme.text, bold=True)
    if scene.result:
        view_label = scene.result
    elif scene.viewer:
        view_label = f"{theme.owner(scene.viewer).label}'s view"
    else:
        view_label = "Public view"
    room = width - pad - (x + total) - round(12 * u)
    paste_text(
        image,
        (width - pad, round(10 * u)),
        fit_text(view_label, font_px(theme, 15), room, bold=True),
        font_px(theme, 15),
        theme.capture if scene.result else theme.dim_text,
        bold=True,
        anchor="rt",
    )
    column = (width - 3 * pad) // 2
    for i, side in enumerate(("red", "blue")):
        info = scene.side_info(side) or SideInfo(side)
        _draw_side(image, (pad + i * (column + pad), round(40 * u)), column, info, theme)


def _draw_side(
    image: Image.Image, origin: tuple[int, int], width: int, info: SideInfo, theme: Theme
) -> None:
    u = theme.unit
    x, y = origin
    style = theme.owner(info.side)
    swatch = owner_swatch(info.side, round(16 * u), theme)
    image.paste(swatch, (x, y + 1), swatch)
    title = style.label
    if info.name:
        title = info.name
    if info.house:
        title += f" · {info.house.capitalize()}"
    size = font_px(theme, 17)
    counts = f"hand {info.hand_size}"
    if info.deck_size is not None:
        counts += f" · deck {info.deck_size}"
    counts_width = text_width(counts, size)
    paste_text(image, (x + width, y), counts, size, theme.dim_text, anchor="rt")
    title = fit_text(title, size, width - counts_width - swatch.width - 16, bold=True)
    paste_text(image, (x + swatch.width + 5, y), title, size, theme.text, bold=True)
    pool = dict(info.pool)
    production = dict(info.production)
    chip_size = font_px(theme, 15)
    chip_h = round(23 * u)
    cx = x
    cy = y + round(26 * u)
    draw = ImageDraw.Draw(image)
    shown = [m for m in MANA_ORDER if pool.get(m, 0) or production.get(m, 0)]
    if not shown:
        paste_text(image, (cx, cy + chip_h // 2), "no mana", chip_size, theme.dim_text, anchor="lm")
        return
    for mana in shown:
        label = f"{MANA_SHORT[mana]} {pool.get(mana, 0)}"
        if production.get(mana, 0):
            label += f" +{production[mana]}"
        fill = mana_colour(mana)
        chip_w = text_width(label, chip_size, bold=True) + round(10 * u)
        if cx + chip_w > x + width:
            break
        draw.rounded_rectangle(
            (cx, cy, cx + chip_w, cy + chip_h), radius=round(5 * u), fill=fill, outline=(20, 20, 24)
        )
        paste_text(
            image,
            (cx + chip_w // 2, cy + chip_h // 2),
            label,
            chip_size,
            readable_on(fill),
            bold=True,
            anchor="mm",
        )
        cx += chip_w + round(4 * u)


def _draw_spell_panel(
    image: Image.Image, layout: Layout, scene: BoardScene, casts: tuple[CastMark, ...] = ()
) -> None:
    """A key to this turn's cast chips, the globe's spells, then a key to the badges on the
    board with their squares."""
    theme = layout.theme
    u = theme.unit
    x0 = round(10 * u)
    width = legend_left(layout) - x0 - round(10 * u)
    y = layout.panel_top + round(6 * u)
    bottom = layout.height - round(4 * u)
    row = round(19 * u)
    height = round(15 * u)
    size = font_px(theme, 12)
    entries: list[str | tuple[SpellBadge, str]] = []
    if casts:
        entries.append("Cast this turn")
        for cast in casts:
            where = "Globe" if cast.target is None else square_name(*cast.target)
            badge = cast.spell
            if cast.squandered:
                badge = replace(badge, name=f"{badge.name} (squandered)")
            entries.append((badge, where))
    entries.append("Globe")
    entries += [(badge, "") for badge in scene.globe] or ["no spells"]
    on_board: list[str | tuple[SpellBadge, str]] = []
    for square in sorted(scene.squares, key=lambda s: (s.y, s.x)):
        name = square_name(square.x, square.y)
        on_board += [(badge, name) for badge in square.spells]
        on_board += [(badge, name) for group in square.groups for badge in group.spells]
    if on_board:
        entries += ["On the board", *on_board]
    for index, entry in enumerate(entries):
        remaining = len(entries) - index
        if y + 2 * row > bottom and remaining > 1:
            paste_text(image, (x0, y), f"+{remaining} more", size, theme.dim_text)
            break
        if entry == "no spells":
            paste_text(image, (x0, y), entry, size, theme.dim_text)
            y += row
            continue
        if isinstance(entry, str):
            paste_text(image, (x0, y), entry, font_px(theme, 13), theme.text, bold=True)
            y += round(20 * u)
            continue
        badge, where = entry
        sprite = spell_badge(badge.label, *house_colours(badge.house), height)
        image.paste(sprite, (x0, y), sprite)
        owner = owner_swatch(badge.owner, round(12 * u), theme)
        ox = x0 + round(30 * u)
        image.paste(owner, (ox, y + (height - owner.height) // 2), owner)
        label = f"{where} {badge.name}" if where else badge.name
        label = fit_text(label, size, width - (ox - x0) - owner.width - 4)
        paste_text(
            image, (ox + owner.width + 4, y + height // 2), label, size, theme.text, anchor="lm"
        )
        y += row


def render_board(
    view: PlayerView,
    report: TurnReport | None = None,
    theme: Theme = DEFAULT_THEME,
    *,
    spells: SpellBook | None = None,
    names: Mapping[str, str] | None = None,
) -> bytes:
    """PNG of a side's (or the public) view, with the report's turn drawn on top if given.

    ``names`` may map "red"/"blue" to player names for the header; ``spells`` defaults to the
    shipped catalogue (for spell names and house colours).
    """
    return encode.png_bytes(*board_image(view, report, theme, spells=spells, names=names))


def board_title(view: PlayerView, report: TurnReport | None) -> str:
    """The header's title. The state after a turn is the start of the next, so a board drawn
    with a turn's report, or the final board of a match, is titled by the turn it shows."""
    if report is not None:
        return f"After turn {report.turn}"
    if view.result is not None and view.turn > 1:
        return f"After turn {view.turn - 1}"
    return f"Turn {view.turn}"


def board_image(
    view: PlayerView,
    report: TurnReport | None = None,
    theme: Theme = DEFAULT_THEME,
    *,
    spells: SpellBook | None = None,
    names: Mapping[str, str] | None = None,
) -> tuple[Image.Image, Image.Image]:
    """The drawn RGB board and the palette it is meant to be encoded with."""
    book = default_spells() if spells is None else spells
    scene = scene_from_view(view, book, names)
    scene = replace(scene, title=board_title(view, report))
    if report is None:
        image, _layout, background = draw_scene(scene, theme)
        return image, background.palette
    return draw_turn(scene, report_marks(report, scene, book), theme)


def draw_turn(
    scene: BoardScene, marks: TurnMarks, theme: Theme = DEFAULT_THEME
) -> tuple[Image.Image, Image.Image]:
    """The board with a turn's marks drawn on it, and the palette it is meant to be encoded
    with."""

    def under(canvas: Image.Image, layout: Layout) -> None:
        overlay_marks.draw_under_pieces(canvas, layout, scene, marks)

    cast_on = frozenset(c.target for c in marks.casts if c.target is not None)
    image, layout, background = draw_scene(
        scene, theme, overlay=True, under=under, cast_on=cast_on, casts=marks.casts
    )
    overlay_marks.draw_marks(image, layout, scene, marks)
    return image, background.palette
