"""Spell cards for `/spell info`: name, house colours, cost, properties and rules text."""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from engine.spells.schema import SpellDef
from render import encode
from render.assets import RGB, paste_text, text_sprite, wrap_text
from render.sprites import OUTLINE, SUPERSAMPLE
from render.theme import HOUSE_MANA, MANA_SHORT, mana_colour, readable_on

CARD_WIDTH = 420
CARD_HEIGHT = 588
PARCHMENT: RGB = (246, 239, 222)
INK: RGB = (34, 30, 26)
DIM_INK: RGB = (112, 102, 90)

DURATION_WORDS = {
    "instant": "instant",
    "one_turn": "one turn",
    "permanent": "permanent",
}


def render_card(spell: SpellDef) -> bytes:
    """The spell's card as PNG bytes (420 x 588)."""
    return encode.png_bytes(card_image(spell))


def duration_text(spell: SpellDef) -> str:
    if spell.duration == "turns":
        return f"{spell.turns} turn{'s' if spell.turns != 1 else ''}"
    text = DURATION_WORDS.get(spell.duration, spell.duration.replace("_", " "))
    if spell.expires_on:
        text += f", ends {spell.expires_on.replace('_', ' ')}"
    return text


def flag_words(spell: SpellDef) -> list[str]:
    words = []
    if spell.boosted_cost is not None:
        words.append(f"boosted {spell.boosted_cost}")
    if spell.cost_cycle:
        words.append("cost " + " / ".join(str(c) for c in spell.cost_cycle))
    if spell.power is not None:
        words.append(f"power {spell.power[0]}/{spell.power[1]}")
    if spell.cumulative:
        words.append("cumulative")
    if spell.replicable:
        words.append("replicable")
    if spell.once_per_game:
        words.append("once per game")
    if not spell.dispellable:
        words.append("cannot be dispelled")
    if spell.on_squander:
        words.append("failure effect")
    return words


@lru_cache(maxsize=128)
def card_image(spell: SpellDef) -> Image.Image:
    """The card as an RGBA image (transparent outside its rounded corners)."""
    primary_mana, secondary_mana = HOUSE_MANA.get(spell.house, ("", ""))
    primary, secondary = mana_colour(primary_mana), mana_colour(secondary_mana)
    image = Image.new("RGBA", (CARD_WIDTH, CARD_HEIGHT), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle(
        (0, 0, CARD_WIDTH - 1, CARD_HEIGHT - 1), radius=18, fill=primary, outline=OUTLINE, width=3
    )
    draw.rounded_rectangle(
        (10, 10, CARD_WIDTH - 11, CARD_HEIGHT - 11),
        radius=12,
        fill=PARCHMENT,
        outline=secondary,
        width=4,
    )
    # Title bar
    draw.rectangle((14, 14, CARD_WIDTH - 15, 64), fill=primary)
    draw.line([(14, 64), (CARD_WIDTH - 15, 64)], fill=secondary, width=4)
    cost_left = _draw_cost(image, spell, primary, secondary)
    title_colour = readable_on(primary)
    name_size = 26
    while (
        name_size > 14
        and text_sprite(spell.name, name_size, title_colour, bold=True).width > cost_left - 30
    ):
        name_size -= 1
    paste_text(image, (24, 40), spell.name, name_size, title_colour, bold=True, anchor="lm")
    house_line = spell.house.capitalize()
    if primary_mana:
        house_line += f"  ·  {primary_mana.capitalize()} + {secondary_mana.capitalize()}"
    paste_text(image, (24, 72), house_line, 15, DIM_INK, bold=True)
    # Emblem band in the house colours
    band = (20, 96, CARD_WIDTH - 21, 196)
    image.paste(_stripes(band[2] - band[0], band[3] - band[1], primary, secondary), band[:2])
    draw.rectangle(band, outline=OUTLINE, width=2)
    emblem = _emblem(spell.type, 84)
    image.paste(emblem, ((CARD_WIDTH - emblem.width) // 2, 104), emblem)
    # Properties
    y = 206
    rows = [
        (("Type", spell.type.capitalize()), ("Speed", spell.speed.capitalize())),
        (
            ("Class", spell.spell_class.capitalize()),
            ("Duration", duration_text(spell).capitalize()),
        ),
        (("Target", spell.target.describe()), None),
        (("Visibility", "Visible" if spell.visible else "Hidden (never shown to the enemy)"), None),
    ]
    for left, right in rows:
        y = _draw_property_row(image, y, left, right)
    flags = flag_words(spell)
    if flags:
        y = _draw_chips(image, y + 2, flags, secondary)
    draw.line([(24, y + 6), (CARD_WIDTH - 25, y + 6)], fill=DIM_INK, width=1)
    _draw_rules(image, spell.rules, y + 14, CARD_HEIGHT - 44)
    paste_text(image, (24, CARD_HEIGHT - 22), spell.id, 12, DIM_INK, anchor="lm")
    return image


def _draw_cost(image: Image.Image, spell: SpellDef, primary: RGB, secondary: RGB) -> int:
    """Two mana circles with the costs at the right of the title; returns their left edge."""
    primary_mana, secondary_mana = HOUSE_MANA.get(spell.house, ("", ""))
    draw = ImageDraw.Draw(image)
    radius = 17
    x = CARD_WIDTH - 28 - radius
    parts = [
        (spell.cost.secondary, secondary, secondary_mana),
        (spell.cost.primary, primary, primary_mana),
    ]
    left = x
    for amount, fill, mana in parts:
        draw.ellipse(
            (x - radius, 39 - radius, x + radius, 39 + radius), fill=fill, outline=OUTLINE, width=2
        )
        paste_text(image, (x, 36), str(amount), 20, readable_on(fill), bold=True, anchor="mm")
        paste_text(
            image, (x, 51), MANA_SHORT.get(mana, ""), 9, readable_on(fill), bold=True, anchor="mm"
        )
        left = x - radius
        x -= 2 * radius + 6
    return left


def _draw_property_row(
    image: Image.Image, y: int, left: tuple[str, str], right: tuple[str, str] | None
) -> int:
    columns = [(24, left)] if right is None else [(24, left), (CARD_WIDTH // 2 + 6, right)]
    width = CARD_WIDTH - 48 if right is None else CARD_WIDTH // 2 - 36
    height = 0
    for x, (label, value) in columns:
        paste_text(image, (x, y), label.upper(), 11, DIM_INK, bold=True)
        lines = wrap_text(value, 16, width, bold=True)[:2]
        for i, line in enumerate(lines):
            paste_text(image, (x, y + 14 + 19 * i), line, 16, INK, bold=True)
        height = max(height, 14 + 19 * len(lines))
    return y + height + 6


def _draw_chips(image: Image.Image, y: int, words: list[str], edge: RGB) -> int:
    draw = ImageDraw.Draw(image)
    x = 24
    for word in words:
        sprite = text_sprite(word, 13, INK, bold=True)
        width = sprite.width + 12
        if x + width > CARD_WIDTH - 24:
            x = 24
            y += 24
        draw.rounded_rectangle(
            (x, y, x + width, y + 20), radius=9, fill=(255, 252, 244), outline=edge, width=2
        )
        image.paste(sprite, (x + 6, y + (20 - sprite.height) // 2 + 1), sprite)
        x += width + 6
    return y + 24


def _draw_rules(image: Image.Image, text: str, top: int, bottom: int) -> None:
    """The rules text, in the largest size (18 down to 11) that fits."""
    width = CARD_WIDTH - 48
    for size in range(18, 10, -1):
        lines = wrap_text(text, size, width)
        line_height = round(size * 1.3)
        if top + line_height * len(lines) <= bottom:
            break
    for i, line in enumerate(lines):
        y = top + i * line_height
        if y + line_height > bottom:
            break
        paste_text(image, (24, y), line, size, INK)


def _stripes(width: int, height: int, primary: RGB, secondary: RGB) -> Image.Image:
    tile = Image.new("RGB", (width, height), _mix(primary, PARCHMENT, 0.5))
    draw = ImageDraw.Draw(tile)
    step = 28
    for k in range(-height, width + height, step):
        draw.polygon(
            [(k, height), (k + height, 0), (k + height + step // 2, 0), (k + step // 2, height)],
            fill=_mix(secondary, PARCHMENT, 0.45),
        )
    return tile


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


@lru_cache(maxsize=16)
def _emblem(spell_type: str, size: int) -> Image.Image:
    """A white sign for the spell type on a dark disc."""
    s = SUPERSAMPLE
    n = size * s
    c = n / 2
    big = Image.new("RGBA", (n, n), (0, 0, 0, 0))
    draw = ImageDraw.Draw(big)
    draw.ellipse(
        (2 * s, 2 * s, n - 2 * s, n - 2 * s),
        fill=(40, 36, 48),
        outline=(250, 250, 250),
        width=2 * s,
    )
    white = (250, 250, 250)
    if spell_type == "manifestation":
        points = [
            (
                c + (n * 0.34 if k % 2 == 0 else n * 0.13) * math.sin(math.pi * k / 8),
                c - (n * 0.34 if k % 2 == 0 else n * 0.13) * math.cos(math.pi * k / 8),
            )
            for k in range(16)
        ]
        draw.polygon(points, fill=white)
    elif spell_type == "summoning":
        draw.ellipse((c - n * 0.2, c - n * 0.12, c + n * 0.2, c + n * 0.3), fill=white)
        for side in (-1, 1):
            draw.polygon(
                [
                    (c + side * n * 0.08, c - n * 0.08),
                    (c + side * n * 0.3, c - n * 0.34),
                    (c + side * n * 0.2, c + n * 0.02),
                ],
                fill=white,
            )
    elif spell_type == "hero":
        points = [
            (
                c + (n * 0.34 if k % 2 == 0 else n * 0.15) * math.sin(math.pi * k / 5),
                c - (n * 0.34 if k % 2 == 0 else n * 0.15) * math.cos(math.pi * k / 5),
            )
            for k in range(10)
        ]
        draw.polygon(points, fill=(255, 210, 30))
    elif spell_type == "conjuration":
        draw.polygon([(c - n * 0.2, c - n * 0.3), (c + n * 0.2, c - n * 0.3), (c, c)], fill=white)
        draw.polygon([(c - n * 0.2, c + n * 0.3), (c + n * 0.2, c + n * 0.3), (c, c)], fill=white)
        draw.line(
            [(c - n * 0.24, c - n * 0.31), (c + n * 0.24, c - n * 0.31)], fill=white, width=3 * s
        )
        draw.line(
            [(c - n * 0.24, c + n * 0.31), (c + n * 0.24, c + n * 0.31)], fill=white, width=3 * s
        )
    else:
        r = n * 0.15
        for side in (-1, 1):
            draw.ellipse(
                (c + side * r - r, c - r, c + side * r + r, c + r), outline=white, width=4 * s
            )
    return big.resize((size, size), Image.Resampling.LANCZOS)
