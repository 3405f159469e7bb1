"""Bundled fonts and cached text sprites.

Only the fonts under data/assets/fonts are used, with Pillow's basic layout engine (no Raqm,
which some machines lack), so the same text gives the same pixels everywhere. Rasterising text is
the slowest part of a board image, so every (text, font, colour) is rasterised once and pasted.
"""

from __future__ import annotations

import math
import threading
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ASSETS_DIR = Path(__file__).resolve().parent.parent / "data" / "assets"
FONTS_DIR = ASSETS_DIR / "fonts"
REGULAR_FONT = FONTS_DIR / "DejaVuSansCondensed.ttf"
BOLD_FONT = FONTS_DIR / "DejaVuSansCondensed-Bold.ttf"

RGB = tuple[int, int, int]

# FreeType faces are not safe to use from two threads at once, and the bot renders off the event
# loop in worker threads; rasterising is rare (results are cached), so one lock costs nothing.
_FREETYPE_LOCK = threading.Lock()


@lru_cache(maxsize=64)
def font(size: int, *, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The bundled DejaVu Sans Condensed at a pixel size."""
    path = BOLD_FONT if bold else REGULAR_FONT
    if not path.is_file():
        raise FileNotFoundError(f"bundled font missing: {path}")
    return ImageFont.truetype(str(path), size, layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=4096)
def text_sprite(text: str, size: int, colour: RGB, *, bold: bool = False) -> Image.Image:
    """The text as an RGBA image just large enough for its ink and line height."""
    face = font(size, bold=bold)
    with _FREETYPE_LOCK:
        left, _top, right, _bottom = face.getbbox(text)
        shift = -min(0, math.floor(left))
        ascent, descent = face.getmetrics()
        width = max(1, math.ceil(right) + shift)
        sprite = Image.new("RGBA", (width, ascent + descent), (*colour, 0))
        ImageDraw.Draw(sprite).text((shift, 0), text, font=face, fill=(*colour, 255))
    return sprite


def text_width(text: str, size: int, *, bold: bool = False) -> int:
    """Width in pixels of the text as text_sprite draws it."""
    return text_sprite(text, size, (0, 0, 0), bold=bold).width


def paste_text(
    image: Image.Image,
    xy: tuple[int, int],
    text: str,
    size: int,
    colour: RGB,
    *,
    bold: bool = False,
    anchor: str = "lt",
) -> tuple[int, int, int, int]:
    """Paste a cached text sprite; anchor is horizontal l/m/r then vertical t/m/b.

    Returns the box the text occupies.
    """
    if not text:
        return (xy[0], xy[1], xy[0], xy[1])
    sprite = text_sprite(text, size, colour, bold=bold)
    x, y = xy
    if anchor[0] == "m":
        x -= sprite.width // 2
    elif anchor[0] == "r":
        x -= sprite.width
    if anchor[1] == "m":
        y -= sprite.height // 2
    elif anchor[1] == "b":
        y -= sprite.height
    image.paste(sprite, (x, y), sprite)
    return (x, y, x + sprite.width, y + sprite.height)


def fit_text(text: str, size: int, max_width: int, *, bold: bool = False) -> str:
    """The text, shortened with an ellipsis when wider than max_width."""
    if text_width(text, size, bold=bold) <= max_width:
        return text
    for end in range(len(text) - 1, 0, -1):
        candidate = text[:end].rstrip() + "…"
        if text_width(candidate, size, bold=bold) <= max_width:
            return candidate
    return "…"


def wrap_text(text: str, size: int, max_width: int, *, bold: bool = False) -> list[str]:
    """Greedy word wrap; paragraphs (newlines) are kept, over-long words are cut with fit_text."""
    face = font(size, bold=bold)

    def fits(candidate: str) -> bool:
        with _FREETYPE_LOCK:
            return face.getlength(candidate) <= max_width

    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        words = paragraph.split()
        if not words:
            lines.append("")
            continue
        line = ""
        for word in words:
            candidate = f"{line} {word}" if line else word
            if fits(candidate):
                line = candidate
                continue
            if line:
                lines.append(line)
            line = word if fits(word) else fit_text(word, size, max_width)
        lines.append(line)
    return lines
