"""The one interface for reading a position: :class:`Position`.

Every question about a position (what stands where, which spells sit on a host, whose turn it
is, which catalogue it is played with) is asked of a :class:`Position`, whoever asks: targeting,
requirement checks, the spell modifiers, the core's queries, the computer players. Two classes
implement it:

- the turn's mutable ``engine.world.World``, live while a turn resolves;
- :class:`PositionIndex`, a read-only index over a frozen :class:`GameState` and its content,
  for the time between turns (order validation, legal options, evaluation). Build it once and
  ask it many questions.

Both give the same answer to the same question; ``tests/engine/test_position.py`` holds them to
it over played positions.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

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


@runtime_checkable
class Position(Protocol):
    """Reads of a position, each with one name and one return shape."""

    @property
    def content(self) -> Content:
        """The catalogue the match is played with."""
        ...

    @property
    def options(self) -> Options: ...
    @property
    def turn(self) -> int: ...
    @property
    def initiative(self) -> Side: ...
    @property
    def terrain(self) -> Mapping[Coord, str]:
        """Square -> terrain, for every square of the board."""
        ...

    @property
    def groups(self) -> Collection[Group]:
        """Every group in creation (id) order."""
        ...

    @property
    def structures(self) -> Collection[Structure]:
        """Every structure in id order."""
        ...

    @property
    def active_spells(self) -> Sequence[ActiveSpell]:
        """Every active spell in casting order."""
        ...

    def player(self, side: Side) -> PlayerState: ...
    def group(self, group_id: int) -> Group | None: ...
    def group_at(self, at: Coord) -> Group | None: ...
    def group_of(self, minion_id: int) -> Group | None: ...
    def minion(self, minion_id: int) -> Minion | None: ...
    def structure(self, structure_id: int) -> Structure | None: ...
    def structure_at(self, at: Coord) -> Structure | None: ...
    def sanctum(self, side: Side) -> Structure | None: ...
    def spells_on(self, host: HostRef) -> Sequence[ActiveSpell]:
        """The host's active spells in casting order (S9)."""
        ...

    def spells_of(self, side: Side) -> Sequence[ActiveSpell]:
        """The side's active spells in casting order (S9)."""
        ...

    def spells_among(self, ids: frozenset[str]) -> Sequence[ActiveSpell]:
        """The active spells whose id is in ``ids``, in casting order."""
        ...

    def globe_among(self, ids: frozenset[str]) -> Sequence[ActiveSpell]:
        """The globe's active spells whose id is in ``ids``, in casting order."""
        ...

    def minion_hosts(self) -> Collection[int]:
        """Ids of the minions that host an active spell."""
        ...

    def placement_memo(self) -> dict[object, object]:
        """A memo for answers that depend only on the groups (where they stand, their members)
        and the active spells: emptied whenever one of those changes. Terrain and structures
        are not watched: an answer reading them does not belong here."""
        ...


class PositionIndex:
    """A :class:`Position` over a frozen state: its records indexed once, when it is built."""

    def __init__(self, state: GameState, content: Content) -> None:
        self.state = state
        self._content = content
        self._groups: dict[int, Group] = {}
        self._group_at: dict[Coord, Group] = {}
        self._group_of: dict[int, Group] = {}
        for g in sorted(state.groups, key=lambda g: g.id):
            self._groups[g.id] = g
            self._group_at.setdefault(g.coord, g)
            for m in g.minions:
                self._group_of[m.id] = g
        self._structures = {s.id: s for s in sorted(state.structures, key=lambda s: s.id)}
        self._structure_at = {s.coord: s for s in self._structures.values()}
        self._spells = tuple(sorted(state.active_spells, key=lambda s: s.uid))
        self._by_host: dict[HostRef, list[ActiveSpell]] = {}
        for spell in self._spells:
            self._by_host.setdefault(spell.host, []).append(spell)
        self._terrain = state.terrain_index()
        self._among: dict[frozenset[str], tuple[ActiveSpell, ...]] = {}
        self._globe_among: dict[frozenset[str], tuple[ActiveSpell, ...]] = {}
        self._minion_hosts = frozenset(
            h.ref for h in self._by_host if h.kind == "minion" and isinstance(h.ref, int)
        )
        # Answers that depend only on this frozen position, kept by the modules that work
        # them out (each under its own key) for the next question.
        self.memo: dict[object, object] = {}

    @property
    def content(self) -> Content:
        return self._content

    @property
    def options(self) -> Options:
        return self.state.options

    @property
    def turn(self) -> int:
        return self.state.turn

    @property
    def initiative(self) -> Side:
        return self.state.initiative

    @property
    def terrain(self) -> Mapping[Coord, str]:
        return self._terrain

    @property
    def groups(self) -> Collection[Group]:
        return self._groups.values()

    @property
    def structures(self) -> Collection[Structure]:
        return self._structures.values()

    @property
    def active_spells(self) -> Sequence[ActiveSpell]:
        return self._spells

    def player(self, side: Side) -> PlayerState:
        return self.state.player(side)

    def group(self, group_id: int) -> Group | None:
        return self._groups.get(group_id)

    def group_at(self, at: Coord) -> Group | None:
        return self._group_at.get(at)

    def group_of(self, minion_id: int) -> Group | None:
        return self._group_of.get(minion_id)

    def minion(self, minion_id: int) -> Minion | None:
        group = self._group_of.get(minion_id)
        return None if group is None else group.minion(minion_id)

    def structure(self, structure_id: int) -> Structure | None:
        return self._structures.get(structure_id)

    def structure_at(self, at: Coord) -> Structure | None:
        return self._structure_at.get(at)

    def sanctum(self, side: Side) -> Structure | None:
        for s in self._structures.values():
            if s.kind == "sanctum" and s.owner == side:
                return s
        return None

    def spells_on(self, host: HostRef) -> Sequence[ActiveSpell]:
        return self._by_host.get(host, ())

    def spells_of(self, side: Side) -> Sequence[ActiveSpell]:
        return tuple(s for s in self._spells if s.owner == side)

    def spells_among(self, ids: frozenset[str]) -> Sequence[ActiveSpell]:
        found = self._among.get(ids)
        if found is None:
            found = self._among[ids] = tuple(s for s in self._spells if s.spell_id in ids)
        return found

    def globe_among(self, ids: frozenset[str]) -> Sequence[ActiveSpell]:
        found = self._globe_among.get(ids)
        if found is None:
            found = self._globe_among[ids] = tuple(
                s for s in self.spells_among(ids) if s.host == GLOBE
            )
        return found

    def minion_hosts(self) -> Collection[int]:
        return self._minion_hosts

    def placement_memo(self) -> dict[object, object]:
        """The position never changes: its memo."""
        return self.memo
