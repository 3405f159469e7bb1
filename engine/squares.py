"""What a square allows spells to do to it, read from the structures around it and the paths
between them."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

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


def cuts_access(
    terrain: Mapping[Coord, str],
    structures: Collection[Structure],
    at: Coord,
    new: str,
    blocking: Collection[str],
) -> bool:
    """Would ``new`` terrain on ``at`` cut a structure off from a Sanctum (D-SP36)?

    When the board is drawn, every structure is opened a path from each Sanctum over squares a
    group with no walk may cross (D-ACCESS: no terrain in ``blocking``, which needs a walk or
    kills). No terrain spell closes the last such path: the structures each Sanctum reaches in
    orthogonal steps over those squares must stay the same. Groups do not count (they move).
    """
    old = terrain.get(at)
    if old is None or new not in blocking or old in blocking:
        return False
    sites = {s.coord for s in structures}
    for sanctum in structures:
        if sanctum.kind != "sanctum":
            continue
        before = _reached(terrain, sanctum.coord, sites, blocking, None)
        if _reached(terrain, sanctum.coord, sites, blocking, at) != before:
            return True
    return False


def _reached(
    terrain: Mapping[Coord, str],
    start: Coord,
    sites: set[Coord],
    blocking: Collection[str],
    closed: Coord | None,
) -> set[Coord]:
    """The ``sites`` reached from ``start`` in orthogonal steps over squares of the board whose
    terrain is not in ``blocking``, ``closed`` counted as blocked."""
    seen = {start}
    frontier = [start]
    while frontier:
        at = frontier.pop()
        for step in at.neighbours():
            if step in seen or step == closed:
                continue
            kind = terrain.get(step)
            if kind is None or kind in blocking:
                continue
            seen.add(step)
            frontier.append(step)
    return seen & sites
