"""What a square allows spells to do to it, read from the structures around it."""

from __future__ import annotations

from collections.abc import Callable

from engine.coords import Coord
from engine.state import Structure


def terrain_is_fixed(structure_at: Callable[[Coord], Structure | None], at: Coord) -> bool:
    """Is ``at``'s terrain beyond every spell's reach?

    A structure's square keeps its terrain (D-SP7), and so do a Sanctum's four entrances (G1: they
    are always plains, so no terrain spell can wall a Sanctum in or off).
    """
    if structure_at(at) is not None:
        return True
    return any((s := structure_at(n)) is not None and s.kind == "sanctum" for n in at.neighbours())
