"""Square names: column letter A-L then row 1-12, row 1 at the bottom."""

from __future__ import annotations

import pytest

from engine.coords import Coord, CoordError, coord


def test_names_round_trip() -> None:
    assert Coord.parse("d4") == Coord(3, 3)
    assert Coord.parse(" L12 ") == Coord(11, 11)
    assert Coord(0, 0).name == "A1"
    assert all(Coord.parse(coord(x, y).name) == coord(x, y) for x in range(12) for y in range(12))


@pytest.mark.parametrize("text", ["", "4D", "D", "D0", "D99", "DD4", "D-1"])
def test_bad_names_are_refused_with_a_reason(text: str) -> None:
    with pytest.raises(CoordError, match=r"square name|no such row"):
        Coord.parse(text)


def test_neighbours_and_distance() -> None:
    assert set(Coord.parse("A1").neighbours()) == {Coord.parse("A2"), Coord.parse("B1")}
    assert len(Coord.parse("E5").neighbours()) == 4
    assert Coord.parse("A1").dist(Coord.parse("C4")) == 5
    assert Coord.parse("D4").rotated(12, 12) == Coord.parse("I9")
