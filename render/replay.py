"""An animated replay of a whole match from its public views and turn reports.

Frames are drawn at a smaller cell size (an attachment, not a board to study) and indexed on
the cached background's palette, which keeps a 60-turn GIF to a few seconds and a few MB.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Literal

from PIL import Image

from engine.report import TurnReport
from engine.view import PlayerView
from render import encode
from render.adapt import SpellBook, default_spells
from render.board import board_image
from render.theme import DEFAULT_THEME, Theme

REPLAY_THEME = DEFAULT_THEME.scaled(40)

Frame = tuple[PlayerView, TurnReport | None]


def render_replay(
    frames: Sequence[Frame],
    *,
    image_format: Literal["gif", "webp"] = "gif",
    theme: Theme = REPLAY_THEME,
    frame_ms: int = 1000,
    last_frame_ms: int = 4000,
    spells: SpellBook | None = None,
    names: Mapping[str, str] | None = None,
) -> bytes:
    """An animated GIF (or WebP) with one frame per (view, report of the turn that led to it).

    Pass public views (viewer None) so the replay can be shown to anyone.
    """
    if not frames:
        raise ValueError("a replay needs at least one frame")
    book = default_spells() if spells is None else spells
    images: list[Image.Image] = []
    for view, report in frames:
        image, palette = board_image(view, report, theme, spells=book, names=names)
        images.append(encode.to_indexed(image, palette) if image_format == "gif" else image)
    durations = [frame_ms] * (len(images) - 1) + [last_frame_ms]
    buffer = io.BytesIO()
    if image_format == "gif":
        images[0].save(
            buffer,
            "GIF",
            save_all=True,
            append_images=images[1:],
            duration=durations,
            loop=0,
            optimize=False,
            disposal=1,
        )
    else:
        images[0].save(
            buffer,
            "WEBP",
            save_all=True,
            append_images=images[1:],
            duration=durations,
            loop=0,
            lossless=False,
            quality=80,
            method=0,
        )
    return buffer.getvalue()
