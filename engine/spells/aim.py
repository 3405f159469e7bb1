"""What a cast or an active spell is aimed at, resolved against the board."""

from __future__ import annotations

from typing import NamedTuple

from engine.coords import Coord
from engine.position import Position
from engine.state import GLOBE, Group, HostRef, Minion, Owner, Structure


class Aim(NamedTuple):
    """What a cast is aimed at, resolved against the board (a named tuple: every cast and
    every target check resolves one)."""

    host: HostRef
    coord: Coord | None = None
    group: Group | None = None
    minion: Minion | None = None
    structure: Structure | None = None

    @property
    def owner(self) -> Owner | None:
        if self.group is not None:
            return self.group.owner
        if self.structure is not None:
            return self.structure.owner
        return None


def aim_of_host(view: Position, host: HostRef) -> Aim | None:
    """The aim an active spell's host stands for (None when the host is gone)."""
    if host.kind == "globe":
        return Aim(GLOBE)
    if host.kind == "square":
        if not isinstance(host.ref, Coord) or host.ref not in view.terrain:
            return None
        return Aim(host, host.ref, view.group_at(host.ref), None, view.structure_at(host.ref))
    if not isinstance(host.ref, int):
        return None
    if host.kind == "group":
        group = view.group(host.ref)
        return None if group is None else Aim(host, group.coord, group)
    if host.kind == "minion":
        group = view.group_of(host.ref)
        minion = None if group is None else group.minion(host.ref)
        if group is None or minion is None:
            return None
        return Aim(host, group.coord, group, minion)
    structure = view.structure(host.ref)
    return None if structure is None else Aim(host, structure.coord, structure=structure)
