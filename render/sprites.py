"""Procedural sprites: terrain tiles, structure icons, group tokens, spell badges, markers.

Each sprite is drawn once per look and size and then pasted. Shapes are drawn four times larger
and reduced, which gives them smooth edges (ImageDraw itself does not antialias).
"""

from __future__ import annotations

import math
import random
from functools import lru_cache

from PIL import Image, ImageDraw

from render.assets import RGB, paste_text, text_sprite
from render.theme import (
    MANA_SHORT,
    Pattern,
    Shape,
    TerrainStyle,
    Theme,
    mana_colour,
    readable_on,
)

SUPERSAMPLE = 4
OUTLINE: RGB = (20, 20, 24)


def _reduce(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    return image.resize(size, Image.Resampling.LANCZOS)


def shape_points(shape: Shape, cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    """Polygon of an owner shape (a circle is approximated by 32 points)."""
    if shape is Shape.SQUARE:
        s = r * 0.9
        return [(cx - s, cy - s), (cx + s, cy - s), (cx + s, cy + s), (cx - s, cy + s)]
    count = 6 if shape is Shape.HEXAGON else 32
    phase = math.pi / 6 if shape is Shape.HEXAGON else 0.0
    return [
        (
            cx + r * math.cos(phase + 2 * math.pi * k / count),
            cy + r * math.sin(phase + 2 * math.pi * k / count),
        )
        for k in range(count)
    ]


def draw_shape(
    draw: ImageDraw.ImageDraw,
    shape: Shape,
    centre: tuple[float, float],
    radius: float,
    fill: RGB,
    *,
    outline: RGB = OUTLINE,
    width: int = 1,
) -> None:
    cx, cy = centre
    if shape is Shape.CIRCLE:
        draw.ellipse(
            (cx - radius, cy - radius, cx + radius, cy + radius),
            fill=fill,
            outline=outline,
            width=width,
        )
    else:
        draw.polygon(shape_points(shape, cx, cy, radius), fill=fill, outline=outline, width=width)


@lru_cache(maxsize=64)
def terrain_tile(style: TerrainStyle, cell: int) -> Image.Image:
    """A cell-sized RGB tile: the terrain's colour and its pattern."""
    tile = Image.new("RGB", (cell, cell), style.fill)
    draw = ImageDraw.Draw(tile)
    ink = style.ink
    u = cell / 60
    w = max(1, round(2 * u))
    rng = random.Random(f"{style.label}:{cell}")
    pattern = style.pattern
    if pattern is Pattern.DOTS:
        step = max(6, round(12 * u))
        for row, y in enumerate(range(step // 2, cell, step)):
            for x in range((row % 2) * step // 2 + step // 4, cell, step):
                draw.rectangle((x, y, x + w - 1, y + w - 1), fill=ink)
    elif pattern is Pattern.STIPPLE:
        for _ in range(round(34 * u * u)):
            x, y = rng.randrange(cell), rng.randrange(cell)
            draw.point((x, y), fill=ink)
            draw.point((x + 1, y), fill=ink)
        for k in range(2):
            top = cell * (0.3 + 0.45 * k)
            draw.arc((cell * 0.05, top, cell * 0.65, top + cell * 0.3), 200, 340, fill=ink, width=w)
    elif pattern is Pattern.TREES:
        size = cell * 0.2
        for fx, fy in ((0.2, 0.28), (0.62, 0.2), (0.38, 0.62), (0.82, 0.7), (0.12, 0.86)):
            cx, cy = fx * cell, fy * cell
            draw.polygon(
                [
                    (cx, cy - size),
                    (cx - size * 0.7, cy + size * 0.5),
                    (cx + size * 0.7, cy + size * 0.5),
                ],
                fill=ink,
            )
            draw.rectangle((cx - w / 2, cy + size * 0.5, cx + w / 2, cy + size * 0.85), fill=ink)
    elif pattern is Pattern.WAVES:
        for fy in (0.2, 0.45, 0.7, 0.95):
            points = [
                (x, fy * cell + math.sin(x / cell * 4 * math.pi) * cell * 0.05)
                for x in range(0, cell + 1, max(2, cell // 20))
            ]
            draw.line(points, fill=ink, width=w)
    elif pattern in (Pattern.PEAKS, Pattern.FIRE_PEAKS):
        peaks = ((0.3, 0.28, 0.26), (0.72, 0.45, 0.22), (0.4, 0.78, 0.2))
        for fx, fy, fr in peaks:
            cx, cy, r = fx * cell, fy * cell, fr * cell
            draw.line(
                [(cx - r, cy + r * 0.6), (cx, cy - r * 0.6), (cx + r, cy + r * 0.6)],
                fill=ink if pattern is Pattern.PEAKS else (60, 30, 24),
                width=w,
            )
            if pattern is Pattern.FIRE_PEAKS:
                draw.polygon(
                    [
                        (cx - r * 0.3, cy - r * 0.25),
                        (cx, cy - r * 0.6),
                        (cx + r * 0.3, cy - r * 0.25),
                    ],
                    fill=ink,
                )
            else:
                draw.polygon(
                    [
                        (cx - r * 0.35, cy - r * 0.18),
                        (cx, cy - r * 0.6),
                        (cx + r * 0.35, cy - r * 0.18),
                    ],
                    fill=(245, 245, 245),
                )
    elif pattern is Pattern.CRACKS:
        for fy in (0.2, 0.55, 0.88):
            crack: list[tuple[float, float]] = [(0.0, fy * cell)]
            along = 0.0
            while along < cell:
                along += cell * 0.14
                crack.append((along, fy * cell + rng.uniform(-0.1, 0.1) * cell))
            draw.line(crack, fill=ink, width=w)
    elif pattern is Pattern.STARS:
        for _ in range(7):
            sx, sy = rng.uniform(0.1, 0.9) * cell, rng.uniform(0.1, 0.9) * cell
            r = cell * rng.uniform(0.03, 0.06)
            draw.line([(sx - r, sy), (sx + r, sy)], fill=ink, width=max(1, w // 2))
            draw.line([(sx, sy - r), (sx, sy + r)], fill=ink, width=max(1, w // 2))
    elif pattern is Pattern.REEDS:
        for fx, fy in ((0.18, 0.3), (0.6, 0.22), (0.35, 0.7), (0.8, 0.62)):
            cx, cy = fx * cell, fy * cell
            for dx in (-0.06, 0.0, 0.06):
                draw.line(
                    [(cx + dx * cell, cy), (cx + dx * cell * 1.6, cy - cell * 0.14)],
                    fill=ink,
                    width=w,
                )
            draw.line([(cx - cell * 0.12, cy + w), (cx + cell * 0.12, cy + w)], fill=ink, width=w)
    elif pattern is Pattern.HATCH:
        step = max(6, round(12 * u))
        for k in range(-cell, cell, step):
            draw.line([(k, cell), (k + cell, 0)], fill=ink, width=max(1, w // 2))
    elif pattern is Pattern.FRONDS:
        for fx, fy in (
            (0.2, 0.25),
            (0.62, 0.18),
            (0.42, 0.55),
            (0.85, 0.5),
            (0.18, 0.82),
            (0.66, 0.86),
        ):
            cx, cy, r = fx * cell, fy * cell, cell * 0.09
            draw.line([(cx - r, cy - r), (cx, cy + r * 0.4), (cx + r, cy - r)], fill=ink, width=w)
            draw.line([(cx, cy + r * 0.4), (cx, cy + r * 1.2)], fill=ink, width=w)
    elif pattern is Pattern.UNKNOWN:
        paste_text(
            tile, (cell // 2, cell // 2), "?", max(10, round(28 * u)), ink, bold=True, anchor="mm"
        )
    return tile


@lru_cache(maxsize=256)
def group_token(
    owner: str, size: int, *, monsters: bool, heroes: int, diameter: int, theme: Theme
) -> Image.Image:
    """An owner-shaped token with the group's size; horns for monsters, a star for heroes."""
    style = theme.owner(owner)
    pad = diameter // 3
    full = diameter + 2 * pad
    s = SUPERSAMPLE
    big = Image.new("RGBA", (full * s, full * s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    c = full * s / 2
    r = diameter * s / 2
    if monsters:
        for side in (-1, 1):
            hx = c + side * r * 0.55
            draw.polygon(
                [
                    (hx - r * 0.3, c - r * 0.6),
                    (hx + side * r * 0.35, c - r * 1.45),
                    (hx + r * 0.3, c - r * 0.6),
                ],
                fill=(250, 244, 226),
                outline=OUTLINE,
                width=s,
            )
    draw_shape(draw, style.shape, (c, c), r, style.fill, outline=OUTLINE, width=round(1.6 * s))
    if heroes:
        sx, sy, sr = c + r * 0.85, c - r * 0.85, r * 0.5
        star = [
            (
                sx + (sr if k % 2 == 0 else sr * 0.45) * math.sin(math.pi * k / 5),
                sy - (sr if k % 2 == 0 else sr * 0.45) * math.cos(math.pi * k / 5),
            )
            for k in range(10)
        ]
        draw.polygon(star, fill=(255, 210, 30), outline=OUTLINE, width=s)
    token = _reduce(big, (full, full))
    label = str(size)
    digits = text_sprite(label, max(9, round(diameter * 0.62)), style.ink, bold=True)
    token.paste(digits, ((full - digits.width) // 2, (full - digits.height) // 2 + 1), digits)
    return token


@lru_cache(maxsize=64)
def structure_mana_chip(
    mana_type: str, left: int, top: int, cell: int
) -> tuple[Image.Image, tuple[int, int]]:
    """The chip naming a town's or colony's mana, and where it sits in its square (under the
    building's icon): the board draws it, and the overlay draws it again over its own marks."""
    chip = spell_badge(
        MANA_SHORT.get(mana_type, mana_type[:3]),
        mana_colour(mana_type),
        (20, 20, 24),
        max(8, round(cell * 0.2)),
    )
    pad = max(1, cell // 30)
    icon_height = round(round(cell * 0.5) * 0.9)
    return chip, (left + pad, top + pad + icon_height - 1)


@lru_cache(maxsize=64)
def structure_icon(kind: str, owner: str, width: int, theme: Theme) -> Image.Image:
    """A building in its owner's colour with a flag in the owner's shape (read only: it is
    pasted, and kept for the next board)."""
    style = theme.owner(owner)
    s = SUPERSAMPLE
    w = width * s
    h = round(width * 0.9) * s
    big = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    line = round(1.4 * s)
    body = style.fill
    base = h * 0.96
    if kind == "sanctum":
        draw.rectangle((w * 0.1, h * 0.42, w * 0.9, base), fill=body, outline=OUTLINE, width=line)
        for fx in (0.1, 0.38, 0.66):
            draw.rectangle(
                (w * fx, h * 0.3, w * (fx + 0.24), h * 0.44), fill=body, outline=OUTLINE, width=line
            )
        draw.rectangle((w * 0.42, h * 0.66, w * 0.58, base), fill=OUTLINE)
        flag_x = w * 0.5
    elif kind == "colony":
        draw.polygon(
            [(w * 0.12, base), (w * 0.5, h * 0.38), (w * 0.88, base)],
            fill=body,
            outline=OUTLINE,
            width=line,
        )
        draw.polygon([(w * 0.42, base), (w * 0.5, h * 0.7), (w * 0.58, base)], fill=OUTLINE)
        flag_x = w * 0.5
    else:
        draw.polygon(
            [(w * 0.12, h * 0.58), (w * 0.5, h * 0.3), (w * 0.88, h * 0.58)],
            fill=body,
            outline=OUTLINE,
            width=line,
        )
        draw.rectangle((w * 0.2, h * 0.58, w * 0.8, base), fill=body, outline=OUTLINE, width=line)
        draw.rectangle((w * 0.44, h * 0.72, w * 0.58, base), fill=OUTLINE)
        flag_x = w * 0.5
    pole_top = h * 0.04
    draw.line([(flag_x, pole_top), (flag_x, h * 0.34)], fill=OUTLINE, width=line)
    draw_shape(
        draw,
        style.shape,
        (flag_x + w * 0.17, pole_top + h * 0.12),
        h * 0.12,
        style.fill,
        outline=OUTLINE,
        width=line,
    )
    return _reduce(big, (width, h // s))


@lru_cache(maxsize=64)
def novice_marker(count: int, height: int) -> Image.Image:
    """A small pawn with the number of novices waiting."""
    s = SUPERSAMPLE
    pawn_w = round(height * 0.6)
    big = Image.new("RGBA", (pawn_w * s, height * s), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    hs = height * s
    draw.ellipse(
        (pawn_w * s * 0.25, hs * 0.05, pawn_w * s * 0.75, hs * 0.42),
        fill=(250, 250, 250),
        outline=OUTLINE,
        width=s,
    )
    draw.polygon(
        [
            (pawn_w * s * 0.08, hs * 0.96),
            (pawn_w * s * 0.3, hs * 0.4),
            (pawn_w * s * 0.7, hs * 0.4),
            (pawn_w * s * 0.92, hs * 0.96),
        ],
        fill=(250, 250, 250),
        outline=OUTLINE,
        width=s,
    )
    pawn = _reduce(big, (pawn_w, height))
    digits = text_sprite(str(count), max(8, round(height * 0.85)), (255, 255, 255), bold=True)
    out = Image.new("RGBA", (pawn_w + digits.width + 3, max(height, digits.height)), (0, 0, 0, 0))
    ImageDraw.Draw(out).rounded_rectangle(
        (0, 0, out.width - 1, out.height - 1), radius=3, fill=(20, 20, 24, 200)
    )
    out.paste(pawn, (1, (out.height - height) // 2), pawn)
    out.paste(digits, (pawn_w + 2, (out.height - digits.height) // 2), digits)
    return out


@lru_cache(maxsize=512)
def group_badge_height(cell: int) -> int:
    """The height of the spell badges a square's groups and the square itself carry."""
    return max(9, round(cell * 0.24))


def spell_badge(short: str, primary: RGB, secondary: RGB, height: int) -> Image.Image:
    """A small label in the spell's house colours (primary fill, secondary edge)."""
    size = max(7, round(height * 0.72))
    text_colour = readable_on(primary)
    label = text_sprite(short, size, text_colour, bold=True)
    width = max(height, label.width + 5)
    badge = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(badge)
    draw.rounded_rectangle(
        (0, 0, width - 1, height - 1),
        radius=max(2, height // 4),
        fill=primary,
        outline=secondary,
        width=max(1, height // 7),
    )
    badge.paste(label, ((width - label.width) // 2, (height - label.height) // 2), label)
    return badge


@lru_cache(maxsize=8)
def globe(size: int) -> Image.Image:
    """The globe: the host of game-wide spells."""
    s = SUPERSAMPLE
    n = size * s
    big = Image.new("RGBA", (n, n), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    line = max(1, round(s * size / 24))
    draw.ellipse((s, s, n - s, n - s), fill=(70, 130, 200), outline=OUTLINE, width=2 * line)
    for k in (0.22, 0.38):
        draw.ellipse((n * k, s, n * (1 - k), n - s), outline=(214, 234, 250), width=line)
    for fy in (0.3, 0.5, 0.7):
        half = math.sqrt(max(0.0, 0.25 - (fy - 0.5) ** 2)) * n * 0.96
        draw.line(
            [(n / 2 - half, n * fy), (n / 2 + half, n * fy)], fill=(214, 234, 250), width=line
        )
    draw.line([(n / 2, s), (n / 2, n - s)], fill=(214, 234, 250), width=line)
    return _reduce(big, (size, size))


@lru_cache(maxsize=32)
def owner_swatch(owner: str, diameter: int, theme: Theme) -> Image.Image:
    """The owner's bare shape, for legends and headers."""
    style = theme.owner(owner)
    s = SUPERSAMPLE
    full = diameter + 2
    big = Image.new("RGBA", (full * s, full * s), (0, 0, 0, 0))
    draw_shape(
        ImageDraw.Draw(big),
        style.shape,
        (full * s / 2, full * s / 2),
        diameter * s / 2,
        style.fill,
        outline=OUTLINE,
        width=round(1.4 * s),
    )
    return _reduce(big, (full, full))
