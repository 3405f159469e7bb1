"""Standings and schedule images."""

from __future__ import annotations

from io import BytesIO

from PIL import Image

from render import ScheduleRow, StandingRow, render_schedule, render_standings
from render.tables import MEDALS


def size_of(png: bytes) -> tuple[int, int]:
    image = Image.open(BytesIO(png))
    assert image.format == "PNG"
    return image.size


def rows(n: int) -> list[StandingRow]:
    return [
        StandingRow(f"Player {i}", 4, 4 - i % 5, 0, i % 5, 4 - i % 5, (float(i),)) for i in range(n)
    ]


def test_standings_grow_one_line_per_player() -> None:
    w4, h4 = size_of(render_standings(rows(4)))
    w8, h8 = size_of(render_standings(rows(8)))
    assert h8 - h4 == 4 * 30
    assert w8 == w4


def test_the_podium_is_marked() -> None:
    image = Image.open(BytesIO(render_standings(rows(4)))).convert("RGB")
    header = 42 + 30
    marks = [image.getpixel((2, header + 30 * i + 15)) for i in range(4)]
    assert marks[:3] == list(MEDALS)
    assert marks[3] not in MEDALS


def test_long_names_are_cut_not_overflowing() -> None:
    long = [StandingRow("A" * 200, 1, 1, 0, 0, 1)]
    width, _height = size_of(render_standings(long))
    assert width < 800


def test_empty_tables_still_render() -> None:
    assert size_of(render_standings([]))[1] > 0
    assert size_of(render_schedule([]))[1] > 0


def test_schedule_drops_empty_columns() -> None:
    bare = [ScheduleRow(1, "Ann", "Bo"), ScheduleRow(1, "Cy")]
    full = [ScheduleRow(1, "Ann", "Bo", "1-0", "finished", "Mon 18:00")]
    assert size_of(render_schedule(bare))[0] < size_of(render_schedule(full))[0]
