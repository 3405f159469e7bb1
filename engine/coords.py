"""Board coordinates: ``Coord(x, y)`` named like ``"D4"`` (column letter, then row number).

Column letters A-L are x 0-11 and row numbers 1-12 are y 0-11; row 1 is the bottom row, where red's
Sanctum stands on the classic board. Coordinates are interned so that hashing and equality stay
cheap in the movement and combat loops.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Final, NamedTuple

MAX_SIZE = 26
_NAME = re.compile(r"^\s*([A-Za-z])\s*(\d{1,2})\s*$")


class CoordError(ValueError):
    """A square name that cannot be read."""


class _Names(dict["Coord", str]):
    """Square names by coordinate, each made on first use."""

    def __missing__(self, c: Coord) -> str:
        name = self[c] = f"{chr(ord('A') + c.x)}{c.y + 1}"
        return name


_NAMES: Final = _Names()
# A square's name as ``Coord.name`` gives it, for the hot paths that name a square for each of
# many events (a fight's, a death's): the dict's own lookup, where the property runs a frame.
name_of: Final[Callable[[Coord], str]] = _NAMES.__getitem__


class Coord(NamedTuple):
    """One square of the grid; ``x`` is the column, ``y`` the row (0-based)."""

    x: int
    y: int

    @property
    def name(self) -> str:
        return _NAMES[self]

    def __str__(self) -> str:
        return self.name

    @staticmethod
    def parse(text: str) -> Coord:
        """Read ``"e5"`` or ``"E5"``; raises :class:`CoordError` with a readable message."""
        match = _NAME.match(text) if isinstance(text, str) else None
        if match is None:
            raise CoordError(f"{text!r} is not a square name (a column letter then a row, e.g. D4)")
        x = ord(match.group(1).upper()) - ord("A")
        y = int(match.group(2)) - 1
        if y < 0 or y >= MAX_SIZE:
            raise CoordError(f"{text!r} has no such row")
        return coord(x, y)

    def neighbours(self) -> tuple[Coord, ...]:
        """The orthogonal neighbours inside a 26x26 grid (boards filter by their own mask)."""
        return _neighbours(self.x, self.y)

    def dist(self, other: Coord) -> int:
        """Orthogonal (Manhattan) distance: the number of one-square moves between two squares."""
        return abs(self.x - other.x) + abs(self.y - other.y)

    def rotated(self, width: int, height: int) -> Coord:
        """The square opposite under a 180-degree turn of a ``width`` x ``height`` board."""
        return coord(width - 1 - self.x, height - 1 - self.y)


@cache
def coord(x: int, y: int) -> Coord:
    """The interned coordinate ``(x, y)``."""
    return Coord(x, y)


@cache
def _neighbours(x: int, y: int) -> tuple[Coord, ...]:
    steps = ((0, 1), (1, 0), (0, -1), (-1, 0))
    return tuple(
        coord(x + dx, y + dy)
        for dx, dy in steps
        if 0 <= x + dx < MAX_SIZE and 0 <= y + dy < MAX_SIZE
    )


# ``Coord.neighbours`` of every square of the 26x26 grid, worked out once (never changed): combat
# looks up each group's neighbours every turn, where the method is a call and a cached call more.
NEIGHBOURS: Final[Mapping[Coord, tuple[Coord, ...]]] = {
    c: c.neighbours() for c in (coord(x, y) for x in range(MAX_SIZE) for y in range(MAX_SIZE))
}
