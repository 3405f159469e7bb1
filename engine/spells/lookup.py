"""One read interface over a frozen :class:`GameState` or the turn's mutable World.

Targeting runs on a state (orders are checked between turns) and again on a World (S11 re-check at
execution); modifiers are asked by the core in both situations. :func:`lookup` gives both the same
indexed view. For a World the view reads the World's own dicts, so it always sees the present; the
World (``engine.world``, above this module) keeps that view itself and is known here only as a
:class:`Live` position.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import TYPE_CHECKING, Protocol, TypeAlias

from engine.coords import Coord
from engine.state import (
    GLOBE,
    ActiveSpell,
    GameState,
    Group,
    HostRef,
    Minion,
    Options,
    PlayerState,
    Side,
    Structure,
)

if TYPE_CHECKING:
    from engine.content import Content


class Live(Protocol):
    """A position that changes while a turn resolves (the turn's World) and keeps its own live
    :class:`WorldLookup`."""

    @property
    def content(self) -> Content: ...
    @property
    def options(self) -> Options: ...
    @property
    def turn(self) -> int: ...
    @property
    def initiative(self) -> Side: ...
    @property
    def next_id(self) -> int: ...
    @property
    def hosts_moved(self) -> int:
        """Bumped whenever an active spell moves to another host."""
        ...

    @property
    def terrain(self) -> dict[Coord, str]: ...
    @property
    def spell_map(self) -> dict[int, ActiveSpell]: ...
    @property
    def group_map(self) -> dict[int, Group]: ...
    @property
    def structure_map(self) -> dict[int, Structure]: ...
    def player(self, side: Side) -> PlayerState: ...
    def group_at(self, at: Coord) -> Group | None: ...
    def group_of(self, minion_id: int) -> Group | None: ...
    def structure_at(self, at: Coord) -> Structure | None: ...
    def spells_on(self, host: HostRef) -> Sequence[ActiveSpell]: ...
    def minion_hosts(self) -> Collection[object]: ...
    def live_view(self) -> Lookup:
        """Its indexed view (one per position, reading the position's own dicts)."""
        ...


class Lookup:
    """Indexed reads: groups, minions, structures, terrain and active spells by host."""

    def __init__(
        self,
        *,
        groups: Iterable[Group],
        structures: Iterable[Structure],
        spells: Iterable[ActiveSpell],
        terrain: dict[Coord, str],
        initiative: Side,
        turn: int,
    ) -> None:
        self.group_by_id: dict[int, Group] = {}
        self.group_by_coord: dict[Coord, Group] = {}
        self.minion_by_id: dict[int, tuple[Group, Minion]] = {}
        for g in groups:
            self.group_by_id[g.id] = g
            self.group_by_coord.setdefault(g.coord, g)
            for m in g.minions:
                self.minion_by_id[m.id] = (g, m)
        self.structure_by_id = {s.id: s for s in structures}
        self.structure_by_coord = {s.coord: s for s in self.structure_by_id.values()}
        self._spells = sorted(spells, key=lambda s: s.uid)
        self.by_host: dict[HostRef, list[ActiveSpell]] = {}
        for spell in self._spells:
            self.by_host.setdefault(spell.host, []).append(spell)
        self.terrain = terrain
        self._among: dict[frozenset[str], list[ActiveSpell]] = {}
        self._globe_among: dict[frozenset[str], list[ActiveSpell]] = {}
        self._minion_hosts: set[object] | None = None
        self._initiative = initiative
        self._turn = turn

    @property
    def spells(self) -> list[ActiveSpell]:
        """Every active spell in casting order."""
        return self._spells

    def spells_among(self, ids: frozenset[str]) -> list[ActiveSpell]:
        """The active spells whose id is in ``ids`` (a catalogue-wide set), in casting order."""
        found = self._among.get(ids)
        if found is None:
            found = self._among[ids] = [s for s in self.spells if s.spell_id in ids]
        return found

    def globe_among(self, ids: frozenset[str]) -> list[ActiveSpell]:
        """The globe's active spells whose id is in ``ids``, in casting order."""
        found = self._globe_among.get(ids)
        if found is None:
            found = self._globe_among[ids] = [s for s in self.spells_among(ids) if s.host == GLOBE]
        return found

    @property
    def initiative(self) -> Side:
        return self._initiative

    @property
    def turn(self) -> int:
        return self._turn

    @property
    def groups(self) -> Iterable[Group]:
        return self.group_by_id.values()

    @property
    def structures(self) -> Iterable[Structure]:
        return self.structure_by_id.values()

    def group(self, group_id: int) -> Group | None:
        return self.group_by_id.get(group_id)

    def group_at(self, at: Coord) -> Group | None:
        return self.group_by_coord.get(at)

    def minion(self, minion_id: int) -> tuple[Group, Minion] | None:
        return self.minion_by_id.get(minion_id)

    def structure(self, structure_id: int) -> Structure | None:
        return self.structure_by_id.get(structure_id)

    def structure_at(self, at: Coord) -> Structure | None:
        return self.structure_by_coord.get(at)

    def spells_on(self, host: HostRef) -> Sequence[ActiveSpell]:
        return self.by_host.get(host, [])

    def minion_hosts(self) -> Collection[object]:
        """Ids of the minions that host an active spell."""
        if self._minion_hosts is None:
            self._minion_hosts = {h.ref for h in self.by_host if h.kind == "minion"}
        return self._minion_hosts


class WorldLookup(Lookup):
    """Live reads of a World (its own indexes; nothing is copied)."""

    def __init__(self, world: Live) -> None:
        self.world = world
        self.terrain = world.terrain
        self._among_key: tuple[int, int, int] = (-1, -1, -1)
        self._among_w: dict[frozenset[str], list[ActiveSpell]] = {}
        self._globe_w: dict[frozenset[str], list[ActiveSpell]] = {}

    def spells_among(self, ids: frozenset[str]) -> list[ActiveSpell]:
        # Ids never change in place: a count, the id counter and host moves tell
        # whether the selection is still right.
        world = self.world
        key = (len(world.spell_map), world.next_id, world.hosts_moved)
        if key != self._among_key:
            self._among_key = key
            self._among_w = {}
            self._globe_w = {}
        found = self._among_w.get(ids)
        if found is None:
            found = self._among_w[ids] = [s for s in world.spell_map.values() if s.spell_id in ids]
        # Records may have changed in place (counters): hand out the current ones.
        return [world.spell_map[s.uid] for s in found if s.uid in world.spell_map]

    def globe_among(self, ids: frozenset[str]) -> list[ActiveSpell]:
        world = self.world
        key = (len(world.spell_map), world.next_id, world.hosts_moved)
        if key != self._among_key:
            self._among_key = key
            self._among_w = {}
            self._globe_w = {}
        found = self._globe_w.get(ids)
        if found is None:
            found = self._globe_w[ids] = [
                s for s in world.spell_map.values() if s.spell_id in ids and s.host == GLOBE
            ]
        return [world.spell_map[s.uid] for s in found if s.uid in world.spell_map]

    @property
    def spells(self) -> list[ActiveSpell]:
        return list(self.world.spell_map.values())

    @property
    def initiative(self) -> Side:
        return self.world.initiative

    @property
    def turn(self) -> int:
        return self.world.turn

    @property
    def groups(self) -> Iterable[Group]:
        return self.world.group_map.values()

    @property
    def structures(self) -> Iterable[Structure]:
        return self.world.structure_map.values()

    def group(self, group_id: int) -> Group | None:
        return self.world.group_map.get(group_id)

    def group_at(self, at: Coord) -> Group | None:
        return self.world.group_at(at)

    def minion(self, minion_id: int) -> tuple[Group, Minion] | None:
        group = self.world.group_of(minion_id)
        if group is None:
            return None
        minion = group.minion(minion_id)
        return None if minion is None else (group, minion)

    def structure(self, structure_id: int) -> Structure | None:
        return self.world.structure_map.get(structure_id)

    def structure_at(self, at: Coord) -> Structure | None:
        return self.world.structure_at(at)

    def spells_on(self, host: HostRef) -> Sequence[ActiveSpell]:
        return self.world.spells_on(host)

    def minion_hosts(self) -> Collection[object]:
        return self.world.minion_hosts()


# What the readers accept: a state between turns, the turn's World, or a view already built.
Source: TypeAlias = "GameState | Live | Lookup"


def lookup(source: Source) -> Lookup:
    """The indexed view of ``source`` (a GameState, a World or an existing Lookup)."""
    if isinstance(source, Lookup):
        return source
    if isinstance(source, GameState):
        # A new view per call: a caller asking many questions of one state builds it once and
        # passes the view on.
        return Lookup(
            groups=source.groups,
            structures=source.structures,
            spells=source.active_spells,
            terrain=source.terrain_map(),
            initiative=source.initiative,
            turn=source.turn,
        )
    return source.live_view()
