"""Where things go: the board image's layout and the square <-> pixel mapping.

The image is portrait so that it fills a phone's width in Discord's preview: a header (turn,
initiative, pools, hands), the board framed by its coordinates, then a panel with the globe's
spells and the legend. Every view is drawn the same way up, the public one and each side's:
rows 1-12 run upwards and columns A-L left to right, so north (as orders and menus say it) is up
on every image.
"""

from __future__ import annotations

from dataclasses import dataclass

from render.theme import Theme

Box = tuple[int, int, int, int]


def column_name(x: int) -> str:
    """Column letters as the orders write them: A..Z, then AA, AB..."""
    name = ""
    x += 1
    while x:
        x, rest = divmod(x - 1, 26)
        name = chr(ord("A") + rest) + name
    return name


def square_name(x: int, y: int) -> str:
    return f"{column_name(x)}{y + 1}"


@dataclass(frozen=True, slots=True)
class Layout:
    columns: int
    rows: int
    theme: Theme

    @property
    def cell(self) -> int:
        return self.theme.cell

    @property
    def board_left(self) -> int:
        return self.theme.margin

    @property
    def board_top(self) -> int:
        return self.theme.header + self.theme.margin

    @property
    def board_width(self) -> int:
        return self.columns * self.cell

    @property
    def board_height(self) -> int:
        return self.rows * self.cell

    @property
    def board_box(self) -> Box:
        return (
            self.board_left,
            self.board_top,
            self.board_left + self.board_width,
            self.board_top + self.board_height,
        )

    @property
    def width(self) -> int:
        return self.board_width + 2 * self.theme.margin

    @property
    def panel_top(self) -> int:
        return self.board_top + self.board_height + self.theme.margin

    @property
    def height(self) -> int:
        return self.panel_top + self.theme.panel

    @property
    def size(self) -> tuple[int, int]:
        return (self.width, self.height)

    @property
    def header_box(self) -> Box:
        return (0, 0, self.width, self.theme.header)

    @property
    def panel_box(self) -> Box:
        return (0, self.panel_top, self.width, self.height)

    def square_box(self, x: int, y: int) -> Box:
        cell = self.theme.cell
        left = self.theme.margin + x * cell
        row = self.rows - 1 - y
        top = self.theme.header + self.theme.margin + row * cell
        return (left, top, left + cell, top + cell)

    def centre(self, x: int, y: int) -> tuple[int, int]:
        left, top, right, bottom = self.square_box(x, y)
        return ((left + right) // 2, (top + bottom) // 2)

    def square_at(self, px: int, py: int) -> tuple[int, int] | None:
        """The board square under a pixel, or None outside the board."""
        left, top, right, bottom = self.board_box
        if not (left <= px < right and top <= py < bottom):
            return None
        col = (px - left) // self.cell
        row = (py - top) // self.cell
        return (col, self.rows - 1 - row)
