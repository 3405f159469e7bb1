"""League standings and schedules as images.

They take plain records so the leagues code can feed them without knowing about Pillow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from render import encode
from render.assets import RGB, fit_text, paste_text, text_width
from render.theme import DEFAULT_THEME, Theme

MEDALS: tuple[RGB, ...] = ((232, 190, 60), (192, 196, 204), (204, 132, 72))
MAX_NAME_WIDTH = 260


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One player's line of a league table; ``tiebreaks`` follow ``render_standings``'s names."""

    name: str
    played: int
    wins: int
    draws: int
    losses: int
    points: float
    tiebreaks: tuple[float, ...] = ()
    rating: float | None = None
    rank: int | None = None


@dataclass(frozen=True, slots=True)
class ScheduleRow:
    """One pairing of a round; an empty ``second`` is a bye (colours are drawn at match start)."""

    round: int
    first: str
    second: str = ""
    result: str = ""
    status: str = ""
    when: str = ""


@dataclass(frozen=True, slots=True)
class _Column:
    title: str
    align: str  # "l" or "r"
    bold: bool = False


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def render_standings(
    rows: Sequence[StandingRow],
    *,
    title: str = "Standings",
    subtitle: str = "",
    tiebreak_names: Sequence[str] = ("SB",),
    theme: Theme = DEFAULT_THEME,
) -> bytes:
    """PNG of a standings table, in the order given (the leagues code sorts)."""
    columns = [
        _Column("#", "r"),
        _Column("Player", "l", bold=True),
        _Column("P", "r"),
        _Column("W", "r"),
        _Column("D", "r"),
        _Column("L", "r"),
        _Column("Pts", "r", bold=True),
    ]
    columns += [_Column(name, "r") for name in tiebreak_names]
    with_rating = any(row.rating is not None for row in rows)
    if with_rating:
        columns.append(_Column("Rating", "r"))
    cells: list[list[str]] = []
    ranks: list[int] = []
    for index, row in enumerate(rows, start=1):
        rank = row.rank if row.rank is not None else index
        ranks.append(rank)
        line = [
            str(rank),
            row.name,
            str(row.played),
            str(row.wins),
            str(row.draws),
            str(row.losses),
            _number(row.points),
        ]
        line += [
            _number(row.tiebreaks[i]) if i < len(row.tiebreaks) else ""
            for i in range(len(tiebreak_names))
        ]
        if with_rating:
            line.append("" if row.rating is None else f"{row.rating:.0f}")
        cells.append(line)
    accents = [MEDALS[rank - 1] if 1 <= rank <= 3 else None for rank in ranks]
    return _table(
        title, subtitle, columns, cells, accents=accents, theme=theme, empty="No results yet"
    )


def render_schedule(
    rows: Sequence[ScheduleRow],
    *,
    title: str = "Schedule",
    subtitle: str = "",
    theme: Theme = DEFAULT_THEME,
) -> bytes:
    """PNG of a schedule: one line per pairing, rounds separated by a stronger rule."""
    columns = [
        _Column("Round", "r"),
        _Column("Player", "l", bold=True),
        _Column("", "l"),
        _Column("Opponent", "l", bold=True),
        _Column("Result", "l"),
        _Column("Status", "l"),
        _Column("When", "l"),
    ]
    cells = []
    accents: list[RGB | None] = []
    for row in rows:
        cells.append(
            [
                str(row.round),
                row.first,
                "vs" if row.second else "",
                row.second or "(bye)",
                row.result,
                row.status,
                row.when,
            ]
        )
        accents.append(None)
    keep = [i for i, column in enumerate(columns) if i < 4 or any(line[i] for line in cells)]
    columns = [columns[i] for i in keep]
    cells = [[line[i] for i in keep] for line in cells]
    breaks = {i for i in range(1, len(rows)) if rows[i].round != rows[i - 1].round}
    return _table(
        title,
        subtitle,
        columns,
        cells,
        accents=accents,
        theme=theme,
        empty="No pairings yet",
        breaks=breaks,
    )


def _table(
    title: str,
    subtitle: str,
    columns: list[_Column],
    cells: list[list[str]],
    *,
    accents: list[RGB | None],
    theme: Theme,
    empty: str,
    breaks: set[int] | None = None,
) -> bytes:
    size = 16
    pad = 14
    gap = 18
    row_h = 30
    widths = []
    for i, column in enumerate(columns):
        width = text_width(column.title, 13, bold=True)
        for line in cells:
            width = max(width, text_width(line[i], size, bold=column.bold))
        widths.append(min(width, MAX_NAME_WIDTH))
    table_w = sum(widths) + gap * (len(columns) - 1)
    title_h = 42 + (24 if subtitle else 0)
    width = max(table_w + 2 * pad, text_width(title, 24, bold=True) + 2 * pad, 360)
    height = title_h + row_h + max(1, len(cells)) * row_h + pad
    image = Image.new("RGB", (width, height), theme.panel_fill)
    draw = ImageDraw.Draw(image)
    paste_text(image, (pad, 10), title, 24, theme.text, bold=True)
    if subtitle:
        paste_text(image, (pad, 42), subtitle, 15, theme.dim_text)
    y = title_h
    draw.rectangle((0, y, width, y + row_h), fill=theme.background)
    x = pad
    for column, column_width in zip(columns, widths, strict=True):
        anchor_x = x + column_width if column.align == "r" else x
        paste_text(
            image,
            (anchor_x, y + row_h // 2),
            column.title,
            13,
            theme.dim_text,
            bold=True,
            anchor=("r" if column.align == "r" else "l") + "m",
        )
        x += column_width + gap
    y += row_h
    if not cells:
        paste_text(image, (pad, y + row_h // 2), empty, size, theme.dim_text, anchor="lm")
        return encode.png_bytes(image)
    for index, line in enumerate(cells):
        if index % 2:
            draw.rectangle((0, y, width, y + row_h - 1), fill=_shade(theme.panel_fill, 10))
        if breaks and index in breaks:
            draw.line([(0, y), (width, y)], fill=theme.dim_text, width=2)
        accent = accents[index]
        if accent is not None:
            draw.rectangle((0, y + 3, 5, y + row_h - 4), fill=accent)
        x = pad
        for column, column_width, value in zip(columns, widths, line, strict=True):
            text = fit_text(value, size, column_width, bold=column.bold)
            anchor_x = x + column_width if column.align == "r" else x
            paste_text(
                image,
                (anchor_x, y + row_h // 2),
                text,
                size,
                theme.text,
                bold=column.bold,
                anchor=("r" if column.align == "r" else "l") + "m",
            )
            x += column_width + gap
        y += row_h
    return encode.png_bytes(image)


def _shade(colour: RGB, amount: int) -> RGB:
    return (
        min(255, colour[0] + amount),
        min(255, colour[1] + amount),
        min(255, colour[2] + amount),
    )
