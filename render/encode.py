"""Turning drawn RGB images into small PNG, GIF and WebP files quickly.

Board images use few colours, so they are mapped onto a fixed 256-colour palette (the colours
of the cached background plus every colour the theme draws on top) without dithering: an
indexed PNG is about a third of the size of an RGB one and several times faster to compress.
"""

from __future__ import annotations

import io
from collections.abc import Iterable

from PIL import Image

from render.assets import RGB

PNG_COMPRESS_LEVEL = 1
MIN_STEP = 6


def build_palette(background: Image.Image, extra: Iterable[RGB]) -> Image.Image:
    """A 'P' image carrying a palette: the extra colours first, then the background's own.

    Pillow maps pixels to a palette through a cache with 6 bits per channel, so two entries
    closer than a few steps would shadow each other; a colour near one already taken is left
    out, which keeps every extra colour reproduced exactly.
    """
    colours: list[RGB] = []

    def add(colour: RGB) -> None:
        if len(colours) < 256 and all(
            max(abs(colour[0] - c[0]), abs(colour[1] - c[1]), abs(colour[2] - c[2])) > MIN_STEP
            for c in colours
        ):
            colours.append(colour)

    for colour in extra:
        add(colour)
    quantized = background.convert("RGB").quantize(
        colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
    )
    base_palette = quantized.getpalette() or []
    for i in range(0, len(base_palette) - 2, 3):
        add((base_palette[i], base_palette[i + 1], base_palette[i + 2]))
    flat = [channel for colour in colours for channel in colour]
    flat += [0] * (768 - len(flat))
    palette = Image.new("P", (1, 1))
    palette.putpalette(flat)
    return palette


def blends(colours: Iterable[RGB], towards: Iterable[RGB], steps: int = 2) -> list[RGB]:
    """The colours plus intermediate shades towards others, for antialiased edges."""
    out: list[RGB] = []
    targets = list(towards)
    for colour in colours:
        out.append(colour)
        for target in targets:
            for k in range(1, steps + 1):
                t = k / (steps + 1)
                out.append(
                    (
                        round(colour[0] + (target[0] - colour[0]) * t),
                        round(colour[1] + (target[1] - colour[1]) * t),
                        round(colour[2] + (target[2] - colour[2]) * t),
                    )
                )
    return out


def to_indexed(image: Image.Image, palette: Image.Image) -> Image.Image:
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    return rgb.quantize(palette=palette, dither=Image.Dither.NONE)


def png_bytes(image: Image.Image, palette: Image.Image | None = None) -> bytes:
    """PNG of the image, indexed on the palette when one is given."""
    out = to_indexed(image, palette) if palette is not None else image
    buffer = io.BytesIO()
    out.save(buffer, "PNG", compress_level=PNG_COMPRESS_LEVEL)
    return buffer.getvalue()
