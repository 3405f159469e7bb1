"""Animated replays from public views and reports."""

from __future__ import annotations

from dataclasses import replace
from io import BytesIO
from typing import Literal

import pytest
from PIL import Image

from engine.content import load_content
from engine.report import TurnReport
from engine.view import PlayerView, view_for
from render import REPLAY_THEME, render_replay
from render.geometry import Layout
from tests.render.fixtures import midgame_report, midgame_state, spell_book


def frames(n: int) -> list[tuple[PlayerView, TurnReport | None]]:
    """The board at the start of turns 1..n, each after the report of the turn before it."""
    report = midgame_report(midgame_state())
    return [
        (
            view_for(midgame_state(turn=turn), None, load_content()),
            replace(report, turn=turn - 1) if turn > 1 else None,
        )
        for turn in range(1, n + 1)
    ]


@pytest.mark.parametrize("image_format", ["gif", "webp"])
def test_one_frame_per_turn(image_format: Literal["gif", "webp"]) -> None:
    data = render_replay(
        frames(3),
        image_format=image_format,
        spells=spell_book(),
        frame_ms=500,
        last_frame_ms=2000,
    )
    image = Image.open(BytesIO(data))
    assert image.format == image_format.upper()
    assert getattr(image, "n_frames", 1) == 3
    assert image.size == Layout(12, 12, REPLAY_THEME).size
    if image_format == "gif":
        durations = []
        for index in range(3):
            image.seek(index)
            durations.append(image.info.get("duration"))
        assert durations == [500, 500, 2000]


def test_a_replay_needs_frames() -> None:
    with pytest.raises(ValueError, match="at least one frame"):
        render_replay([])
