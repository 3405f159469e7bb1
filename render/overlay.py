"""A turn drawn over the board: moves, bounces, combats, casts, captures and deaths.

The report is first read into plain marks (`render.marks`, positions in board squares), then
drawn here.
"""

from __future__ import annotations

import math
from collections.abc import Set as AbstractSet
from functools import lru_cache

from PIL import Image, ImageDraw

from render.assets import RGB, paste_text, text_sprite, text_width
from render.geometry import Layout
from render.marks import XY, CastMark, CombatMark, MoveMark, TurnMarks
from render.scene import BoardScene
from render.sprites import (
    OUTLINE,
    SUPERSAMPLE,
    group_badge_height,
    novice_marker,
    spell_badge,
    structure_mana_chip,
)
from render.theme import Theme, house_colours

# Cast badges a square shows at most, the last of them "+N" when more spells were cast on it.
CAST_ROWS = 2


def draw_under_pieces(
    image: Image.Image, layout: Layout, scene: BoardScene, marks: TurnMarks
) -> None:
    """Cast lines, drawn before the pieces so they never hide a group's size."""
    draw = ImageDraw.Draw(image)
    theme = layout.theme
    for cast in marks.casts:
        if cast.target is not None:
            colour = theme.squander if cast.squandered else theme.cast_line
            dashed_line(
                draw,
                _cast_origin(layout, scene, cast.side),
                layout.centre(*cast.target),
                colour,
                width=max(2, round(layout.cell * 0.05)),
                dash=max(4, layout.cell // 8),
            )


def draw_marks(image: Image.Image, layout: Layout, scene: BoardScene, marks: TurnMarks) -> None:
    """Draw the marks over the pieces; later kinds sit on top of earlier ones."""
    draw = ImageDraw.Draw(image)
    theme = layout.theme
    cell = layout.cell
    for at in marks.terrain_changed:
        _dotted_square(draw, layout, at)
    for capture in marks.captures:
        left, top, right, bottom = layout.square_box(*capture.at)
        width = max(2, round(cell * 0.07))
        draw.rectangle((left + 1, top + 1, right - 1, bottom - 1), outline=OUTLINE, width=width + 2)
        draw.rectangle(
            (left + 2, top + 2, right - 2, bottom - 2), outline=theme.capture, width=width
        )
    for move in marks.moves:
        _draw_move(draw, layout, move)
    by_target: dict[XY | None, list[CastMark]] = {}
    for cast in marks.casts:
        by_target.setdefault(cast.target, []).append(cast)
    cast_on = {target for target in by_target if target is not None}
    for target, casts in by_target.items():
        if target is None:
            # The globe has room for a list.
            for slot, cast in enumerate(casts):
                _draw_cast_badge(image, draw, layout, scene, cast, slot=slot)
            continue
        rows = _cast_rows(scene, marks, target)
        if len(casts) <= rows:
            for slot, cast in enumerate(casts):
                _draw_cast_badge(image, draw, layout, scene, cast, slot=slot)
        elif rows == 1:
            _draw_cast_count(image, draw, layout, scene, target, label=f"×{len(casts)}", slot=0)
        else:
            for slot, cast in enumerate(casts[: rows - 1]):
                _draw_cast_badge(image, draw, layout, scene, cast, slot=slot)
            more = f"+{len(casts) - rows + 1}"
            _draw_cast_count(image, draw, layout, scene, target, label=more, slot=rows - 1)
    for combat in marks.combats:
        _draw_combat(image, layout, combat)
    for death in marks.deaths:
        left, top, _right, bottom = layout.square_box(*death.at)
        square = scene.square(*death.at)
        structure = square.structure if square is not None else None
        if structure is None:
            sprite = skull(max(10, round(cell * 0.3)))
            x, y = left + 2, top + (bottom - top - sprite.height) // 2
        elif death.at in cast_on:
            # In the bottom-left corner, under the building's icon and its mana chip: the right
            # side holds the cast badges.
            sprite = skull(group_badge_height(cell))
            x, y = left + 2, bottom - sprite.height - 2
        else:
            # Right of the building's icon, clear of the combat marks on the square's edges.
            sprite = skull(group_badge_height(cell))
            x, y = left + round(cell * 0.55), top + round(cell * 0.3)
        image.paste(sprite, (x, y), sprite)
        after = x + sprite.width
        if death.count > 1:
            label, size = f"×{death.count}", max(9, round(cell * 0.22))
            paste_text(
                image,
                (after - 2, y + sprite.height),
                label,
                size,
                (255, 255, 255),
                bold=True,
                anchor="lb",
            )
            after += text_width(label, size, bold=True) - 2
        if (
            death.at in cast_on
            and structure is not None
            and structure.novices
            and not (square and square.bottom_row)
        ):
            # The novices waiting there, moved right of the skull instead of under it (a row of
            # badges along the bottom leaves no room: the skull takes their place).
            marker = novice_marker(structure.novices, round(cell * 0.2))
            image.paste(marker, (after + 1, bottom - max(1, cell // 30) - marker.height), marker)
        # Nothing drawn since the board may hide what a town now makes.
        if structure is not None and structure.mana_type and structure.kind != "sanctum":
            chip, at = structure_mana_chip(structure.mana_type, left, top, cell)
            image.paste(chip, at, chip)
    # Chips of new recruits last: the combat marks on the square's edge may not hide them.
    # Several kinds trained on one square stack upwards, one chip above the other.
    stacked: dict[XY, int] = {}
    for train in marks.trained:
        left, _top, right, bottom = layout.square_box(*train.at)
        square = scene.square(*train.at)
        height = max(10, round(cell * 0.24))
        if square is not None and square.bottom_row:
            # Just above the square's row of badges, a little smaller, clear of the icon.
            height -= 2
            bottom -= group_badge_height(cell) + 1
        chip = spell_badge(train.label, (250, 250, 250), theme.owner(train.side).fill, height)
        x = right - chip.width - 2
        if square is not None and square.structure is not None:
            x = max(x, left + max(1, cell // 30) + round(cell * 0.5))
        below = stacked.get(train.at, 0)
        stacked[train.at] = below + 1
        image.paste(chip, (x, bottom - (chip.height + 1) * below - chip.height - 2), chip)


def _unit(start: tuple[float, float], end: tuple[float, float]) -> tuple[float, float, float]:
    dx, dy = end[0] - start[0], end[1] - start[1]
    length = math.hypot(dx, dy) or 1.0
    return dx / length, dy / length, length


def arrow_polygon(
    start: tuple[float, float], end: tuple[float, float], width: float
) -> list[tuple[float, float]]:
    """Shaft and head of an arrow from start to end as one outline."""
    ux, uy, length = _unit(start, end)
    nx, ny = -uy, ux
    head = min(length * 0.6, width * 2.4)
    hw = width * 1.3
    bx, by = end[0] - ux * head, end[1] - uy * head
    w = width / 2
    return [
        (start[0] + nx * w, start[1] + ny * w),
        (bx + nx * w, by + ny * w),
        (bx + nx * hw, by + ny * hw),
        end,
        (bx - nx * hw, by - ny * hw),
        (bx - nx * w, by - ny * w),
        (start[0] - nx * w, start[1] - ny * w),
    ]


def _draw_move(draw: ImageDraw.ImageDraw, layout: Layout, move: MoveMark) -> None:
    theme = layout.theme
    cell = layout.cell
    a = layout.centre(*move.start)
    b = layout.centre(*move.end)
    ux, uy, length = _unit(a, b)
    start = (a[0] + ux * cell * 0.18, a[1] + uy * cell * 0.18)
    fill = theme.owner(move.owner).fill
    width = max(3.0, cell * 0.11)
    if move.bounced:
        end = (a[0] + ux * length * 0.5, a[1] + uy * length * 0.5)
        shaft_end = (end[0] - ux * width, end[1] - uy * width)
        draw.line([start, shaft_end], fill=OUTLINE, width=round(width) + 4)
        draw.line([start, shaft_end], fill=fill, width=round(width))
        nx, ny = -uy * cell * 0.3, ux * cell * 0.3
        bar = [(end[0] + nx, end[1] + ny), (end[0] - nx, end[1] - ny)]
        draw.line(bar, fill=OUTLINE, width=round(width) + 4)
        draw.line(bar, fill=theme.bounce, width=round(width))
        return
    end = (b[0] - ux * cell * 0.3, b[1] - uy * cell * 0.3)
    draw.polygon(arrow_polygon(start, end, width), fill=fill, outline=OUTLINE, width=2)


def _dotted_square(draw: ImageDraw.ImageDraw, layout: Layout, at: XY) -> None:
    """A dashed frame: this square's terrain changed during the turn."""
    left, top, right, bottom = layout.square_box(*at)
    inset = max(2, layout.cell // 15)
    _dotted_frame(draw, (left + inset, top + inset, right - inset, bottom - inset), layout.cell)


def _dotted_frame(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], cell: int) -> None:
    left, top, right, bottom = box
    corners = [(left, top), (right, top), (right, bottom), (left, bottom)]
    for a, b in zip(corners, corners[1:] + corners[:1], strict=True):
        dashed_line(draw, a, b, (255, 255, 255), width=2, dash=max(3, cell // 10))


def _draw_combat(image: Image.Image, layout: Layout, combat: CombatMark) -> None:
    theme = layout.theme
    a = layout.centre(*combat.at)
    b = layout.centre(*combat.against)
    mid = ((a[0] + b[0]) // 2, (a[1] + b[1]) // 2)
    sprite = crossed_swords(max(12, round(layout.cell * 0.5)))
    image.paste(sprite, (mid[0] - sprite.width // 2, mid[1] - sprite.height // 2), sprite)
    draw = ImageDraw.Draw(image)
    size = max(9, round(layout.cell * 0.2))
    # Losses sit beside the swords, away from both fighting groups' tokens.
    stacked = a[0] == b[0]
    x = mid[0] + sprite.width // 2 + 1 if stacked else mid[0] - sprite.width // 2
    y = mid[1] - sprite.height // 4 if stacked else mid[1] + sprite.height // 2 - 2
    for side, count in combat.losses:
        label = f"−{count}"
        style = theme.owner(side)
        text = text_sprite(label, size, style.ink, bold=True)
        w = text.width + 6
        draw.rounded_rectangle(
            (x, y, x + w, y + text.height), radius=3, fill=style.fill, outline=OUTLINE
        )
        image.paste(text, (x + 3, y), text)
        x += w + 2


def _cast_origin(layout: Layout, scene: BoardScene, side: str) -> tuple[int, int]:
    for square in scene.squares:
        if (
            square.structure
            and square.structure.kind == "sanctum"
            and square.structure.owner == side
        ):
            return layout.centre(square.x, square.y)
    left, top, right, bottom = layout.board_box
    return ((left + right) // 2, bottom if side == "red" else top)


def globe_anchor(layout: Layout, playable: AbstractSet[XY]) -> tuple[int, int]:
    """Centre of the globe: the top-right corner square when it is off the board (as in the
    original client), otherwise the heading of the panel's globe list."""
    corner = layout.square_at(layout.board_box[2] - 1, layout.board_box[1])
    if corner is not None and corner not in playable:
        return layout.centre(*corner)
    return (layout.theme.margin + round(60 * layout.theme.unit), layout.panel_top + 4)


def _draw_cast_badge(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    layout: Layout,
    scene: BoardScene,
    cast: CastMark,
    *,
    slot: int,
) -> None:
    theme = layout.theme
    cell = layout.cell
    colour = theme.squander if cast.squandered else theme.cast_line
    height = cast_badge_height(cell)
    primary, secondary = house_colours(cast.spell.house)
    sprite = spell_badge(cast.spell.label, primary, secondary, height)
    if cast.target is not None:
        bx, by = target_badge_origin(layout, scene, cast.target, sprite, slot)
    else:
        # Globe casts get no line (it would cross the whole board): their badges sit by the globe.
        gx, gy = globe_anchor(layout, {(s.x, s.y) for s in scene.squares})
        bx, by = gx - sprite.width // 2, gy + cell // 2 + slot * (height + 3)
    draw.rectangle((bx - 2, by - 2, bx + sprite.width + 1, by + height + 1), fill=colour)
    image.paste(sprite, (bx, by), sprite)
    if cast.squandered:
        draw.line(
            [(bx - 3, by + height + 2), (bx + sprite.width + 2, by - 3)],
            fill=theme.squander,
            width=max(2, height // 5),
        )


def cast_badge_height(cell: int) -> int:
    return max(10, round(cell * 0.26))


def target_badge_origin(
    layout: Layout, scene: BoardScene, target: XY, sprite: Image.Image, index: int
) -> tuple[int, int]:
    """Top-left of a cast's badge on its target square; several casts stack downwards (at most
    `CAST_ROWS`). On a square with a building they keep to its right half, clear of the icon."""
    left, top, right, _bottom = layout.square_box(*target)
    offset = index * (cast_badge_height(layout.cell) + 5)
    square = scene.square(*target)
    if square is not None and square.structure is not None:
        return (right - sprite.width - 4, top + 4 + offset)
    centre = (left + right) // 2
    return (centre - sprite.width // 2, top + 4 + offset)


def _cast_rows(scene: BoardScene, marks: TurnMarks, target: XY) -> int:
    """How many cast badges fit down a square's right side: fewer when a chip of new recruits
    sits above a row of badges at its bottom."""
    square = scene.square(*target)
    if square is not None and square.bottom_row and any(t.at == target for t in marks.trained):
        return 1
    return CAST_ROWS


def _draw_cast_count(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    layout: Layout,
    scene: BoardScene,
    target: XY,
    *,
    label: str,
    slot: int,
) -> None:
    """A chip in the place of cast badges that do not fit: "+N" more spells were cast on the
    square, or "×N" spells when it has room for one chip only."""
    sprite = spell_badge(label, (250, 250, 250), (20, 20, 24), cast_badge_height(layout.cell))
    bx, by = target_badge_origin(layout, scene, target, sprite, slot)
    draw.rectangle(
        (bx - 2, by - 2, bx + sprite.width + 1, by + sprite.height + 1), fill=layout.theme.cast_line
    )
    image.paste(sprite, (bx, by), sprite)


def dashed_line(
    draw: ImageDraw.ImageDraw,
    start: tuple[int, int],
    end: tuple[int, int],
    colour: RGB,
    *,
    width: int,
    dash: int,
) -> None:
    ux, uy, length = _unit(start, end)
    pos = 0.0
    while pos < length:
        stop = min(length, pos + dash)
        a = (start[0] + ux * pos, start[1] + uy * pos)
        b = (start[0] + ux * stop, start[1] + uy * stop)
        draw.line([a, b], fill=OUTLINE, width=width + 2)
        draw.line([a, b], fill=colour, width=width)
        pos += dash * 1.8


@lru_cache(maxsize=16)
def crossed_swords(size: int) -> Image.Image:
    s = SUPERSAMPLE
    big = Image.new("RGBA", (size * s, size * s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    n = size * s
    disc = n * 0.48
    draw.ellipse(
        (n / 2 - disc, n / 2 - disc, n / 2 + disc, n / 2 + disc),
        fill=(200, 30, 30),
        outline=OUTLINE,
        width=s,
    )
    for flip in (False, True):

        def p(fx: float, fy: float, flip: bool = flip) -> tuple[float, float]:
            return ((1 - fx) * n if flip else fx * n, fy * n)

        blade = [p(0.2, 0.14), p(0.28, 0.14), p(0.74, 0.64), p(0.66, 0.72), p(0.2, 0.22)]
        draw.polygon(blade, fill=(250, 250, 250), outline=OUTLINE, width=s)
        draw.line([p(0.56, 0.78), p(0.82, 0.52)], fill=OUTLINE, width=round(s * size / 10))
        draw.line([p(0.72, 0.72), p(0.84, 0.84)], fill=(120, 80, 40), width=round(s * size / 9))
    return big.resize((size, size), Image.Resampling.LANCZOS)


@lru_cache(maxsize=16)
def skull(size: int) -> Image.Image:
    s = SUPERSAMPLE
    n = size * s
    big = Image.new("RGBA", (n, n), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    draw.ellipse(
        (n * 0.1, n * 0.04, n * 0.9, n * 0.74), fill=(245, 245, 240), outline=OUTLINE, width=s
    )
    draw.rectangle(
        (n * 0.28, n * 0.6, n * 0.72, n * 0.94), fill=(245, 245, 240), outline=OUTLINE, width=s
    )
    draw.rectangle((n * 0.3, n * 0.56, n * 0.7, n * 0.66), fill=(245, 245, 240))
    for fx in (0.3, 0.56):
        draw.ellipse((n * fx, n * 0.3, n * (fx + 0.16), n * 0.48), fill=OUTLINE)
    for fx in (0.4, 0.5, 0.6):
        draw.line([(n * fx, n * 0.76), (n * fx, n * 0.94)], fill=OUTLINE, width=s)
    return big.resize((size, size), Image.Resampling.LANCZOS)


@lru_cache(maxsize=8)
def legend_entries(size: int, theme: Theme) -> tuple[tuple[Image.Image, str], ...]:
    """Sprites and words explaining the overlay, for the board's legend."""
    width = round(size * 1.7)

    def canvas() -> tuple[Image.Image, ImageDraw.ImageDraw]:
        image = Image.new("RGBA", (width, size), (0, 0, 0, 0))
        return image, ImageDraw.Draw(image)

    move, draw = canvas()
    draw.polygon(
        arrow_polygon((1, size / 2), (width - 2, size / 2), size * 0.35),
        fill=theme.owner("red").fill,
        outline=OUTLINE,
    )
    bounce, draw = canvas()
    draw.line(
        [(1, size / 2), (width * 0.6, size / 2)],
        fill=theme.owner("blue").fill,
        width=max(2, size // 4),
    )
    draw.line(
        [(width * 0.65, 1), (width * 0.65, size - 2)], fill=theme.bounce, width=max(2, size // 4)
    )
    cast, draw = canvas()
    for x in range(0, width, 6):
        draw.line([(x, size / 2), (x + 3, size / 2)], fill=theme.cast_line, width=2)
    squandered = spell_badge("Ab", (236, 214, 120), (118, 66, 160), size).copy()
    ImageDraw.Draw(squandered).line(
        [(0, size - 1), (squandered.width - 1, 0)], fill=theme.squander, width=max(2, size // 6)
    )
    capture, draw = canvas()
    draw.rectangle(
        (width // 2 - size // 2, 0, width // 2 + size // 2 - 1, size - 1),
        outline=theme.capture,
        width=max(2, size // 6),
    )
    trained = spell_badge("+Ar", (250, 250, 250), theme.owner("red").fill, size)
    changed, draw = canvas()
    draw.rectangle(
        (width // 2 - size // 2, 0, width // 2 + size // 2 - 1, size - 1),
        fill=theme.terrain("lava").fill,
    )
    _dotted_frame(draw, (width // 2 - size // 2 + 1, 1, width // 2 + size // 2 - 2, size - 2), size)
    return (
        (move, "move"),
        (bounce, "bounced"),
        (crossed_swords(size), "combat"),
        (skull(size), "deaths"),
        (cast, "spell cast"),
        (squandered, "squandered"),
        (capture, "captured"),
        (trained, "trained"),
        (changed, "new terrain"),
    )
