"""The private, mutable working copy of a match used while one turn resolves.

A :class:`World` holds the state's frozen records in dicts and replaces a record whenever it
changes, so every reader (core phases and spells alike) sees a consistent picture. Every change
that players should learn about is appended to :attr:`World.report` as an :class:`Event`.

Events that active spells react to ("start_of_turn", "host_dying", "group_entered", ...) go through
:meth:`World.broadcast`; :mod:`engine.broadcast` is the one place that decides the order in which
spells hear them (documented in ``engine/README.md``).

This file is long because the World still keeps, beside the records and their mutators, the
indexes of where active spells sit and who hears a death, which every mutator must keep in step;
they are the next part to leave for a module of their own.
"""

from __future__ import annotations

import bisect
import random
from collections import Counter
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Final, Protocol

from engine import broadcast
from engine.coords import Coord
from engine.report import Event
from engine.state import (
    HOST_KINDS,
    NEUTRAL,
    ActiveSpell,
    Card,
    GameState,
    Group,
    HostRef,
    JsonValue,
    Mana,
    Minion,
    Owner,
    PlayerState,
    Result,
    Side,
    Square,
    Structure,
    StructureKind,
    evolve,
)

if TYPE_CHECKING:
    from engine.content import Content
    from engine.spells.modifiers import Stats

DeathCause = str  # "killed" (an attacker is to blame), "died", "removed" (digest 8.2)
DEATH_CAUSES: Final = ("killed", "died", "removed")

EventHandler = Callable[["World", ActiveSpell, str, "HostRef | None"], None]


class SpellHooks(Protocol):
    """What the World asks of the spell rules (``engine.spells.hooks`` answers; ``engine.turn``
    hands it in): the World sits below them and only calls them through this seam."""

    def on_event(
        self, world: World, spell: ActiveSpell, event: str, subject: HostRef | None
    ) -> None:
        """``spell`` hears ``event`` about ``subject`` (None for turn-wide events)."""

    def reacts(self, content: Content, spell_id: str, event: str) -> bool:
        """Whether active copies of ``spell_id`` react to ``event`` at all."""

    def end_spell(self, world: World, uid: int, reason: str) -> None:
        """An active spell leaves play."""

    def dispellable(self, world: World, spell: ActiveSpell) -> bool:
        """Whether a dispel (or a cleared square) ends the spell."""


class World:
    """Mutable working copy of a :class:`GameState` for one turn."""

    def __init__(
        self,
        state: GameState,
        rng: random.Random,
        content: Content,
        hooks: SpellHooks,
        on_event: EventHandler | None = None,
    ) -> None:
        """``hooks`` carry out the spell rules; ``on_event`` replaces ``hooks.on_event`` as the
        listener (tests)."""
        self.content = content
        self.hooks = hooks
        self.rng = rng
        self.seed = state.seed
        self.turn = state.turn
        self.options = state.options
        self.width = state.width
        self.height = state.height
        self.initiative: Side = state.initiative
        self.result: Result | None = state.result
        self.next_id = state.next_id
        self.terrain: dict[Coord, str] = {sq.coord: sq.terrain for sq in state.squares}
        self._squares: tuple[Square, ...] | None = state.squares
        self.structure_map: dict[int, Structure] = {
            s.id: s for s in sorted(state.structures, key=lambda s: s.id)
        }
        self.group_map: dict[int, Group] = {
            g.id: g for g in sorted(state.groups, key=lambda g: g.id)
        }
        self.player_map: dict[Side, PlayerState] = {p.side: p for p in state.players}
        self.spell_map: dict[int, ActiveSpell] = {
            s.uid: s for s in sorted(state.active_spells, key=lambda s: s.uid)
        }
        self.report: list[Event] = []
        self._minion_group: dict[int, int] = {
            m.id: g.id for g in self.group_map.values() for m in g.minions
        }
        self._structure_at: dict[Coord, int] = {s.coord: s.id for s in self.structure_map.values()}
        self._saved: set[int] = set()
        # Moves that spells impose this turn (Mirage, relations): group id -> destination. They
        # replace the owner's order and give computer-controlled groups theirs.
        self.forced_moves: dict[int, Coord] = {}
        # The sides' mana choices for towns and colonies they capture at this turn's end
        # (D-TOWN-MANA): side -> structure square -> mana type.
        self.mana_choices: dict[Side, dict[Coord, str]] = {}
        self.handler: EventHandler = hooks.on_event if on_event is None else on_event
        # A listener given by a test hears everything; the spells' own listener ignores the events
        # a spell has no reaction to, so those are not delivered at all.
        self.skip_deaf = on_event is None
        # Bumped by every change to groups, minions or spells, so that a phase holding its own
        # scratch copy (combat) knows when to re-read; spell changes also rebuild the host index.
        self.revision = 0
        self._by_host: dict[HostRef, list[int]] | None = None
        self._minion_hosts: set[int] = set()
        self._hosted: dict[str, set[object]] = {}  # host kind -> refs hosting a spell
        # Derived from the active spells, rebuilt after they change: spell ids reacting to an event
        # (per event), and where the spells with given ids sit (per id set, see reach()).
        self._reacting: dict[str, frozenset[str]] = {}
        # How many active spells carry each spell id: what reacts to an event depends only on
        # which ids are present, so counters changing in place keep the answers.
        self._id_counts = Counter(s.spell_id for s in self.spell_map.values())
        self._reach: dict[frozenset[str], Reach | None] = {}
        # Where the spells reacting to deaths sit (see hears_death()).
        self._death_ears: tuple[Reach | None, Reach | None, Reach | None] | None = None
        # engine.queries keeps effective stats here while the active spells stay the same.
        self.stats_cache: dict[tuple[object, ...], tuple[Stats | None, ...] | None] = {}
        self.stats_cacheable: bool | None = None
        # Uids of the active spells with given ids (all, and the globe's), per id set.
        self._among: dict[frozenset[str], list[int]] = {}
        self._globe_among: dict[frozenset[str], list[int]] = {}

    # ------------------------------------------------------------------ snapshot

    @property
    def state(self) -> GameState:
        """A frozen snapshot of the current position."""
        return GameState(
            seed=self.seed,
            turn=self.turn,
            options=self.options,
            width=self.width,
            height=self.height,
            squares=self.squares,
            structures=self.structures,
            groups=self.groups,
            players=self.players,
            initiative=self.initiative,
            active_spells=self.active_spells,
            next_id=self.next_id,
            result=self.result,
        )

    # -- the read API shared with GameState (spell modifiers accept either)

    @property
    def groups(self) -> tuple[Group, ...]:
        """Groups in creation order."""
        return tuple(self.group_map.values())

    @property
    def structures(self) -> tuple[Structure, ...]:
        return tuple(self.structure_map.values())

    @property
    def players(self) -> tuple[PlayerState, PlayerState]:
        return (self.player_map[Side.RED], self.player_map[Side.BLUE])

    @property
    def active_spells(self) -> tuple[ActiveSpell, ...]:
        """Every active spell in casting order."""
        return tuple(self.spell_map.values())

    @property
    def squares(self) -> tuple[Square, ...]:
        if self._squares is None:
            self._squares = tuple(
                Square(at, t)
                for at, t in sorted(self.terrain.items(), key=lambda i: (i[0].y, i[0].x))
            )
        return self._squares

    def terrain_map(self) -> dict[Coord, str]:
        return self.terrain

    def square(self, at: Coord) -> Square | None:
        terrain = self.terrain.get(at)
        return None if terrain is None else Square(at, terrain)

    # ------------------------------------------------------------------ ids, events

    def new_id(self) -> int:
        value = self.next_id
        self.next_id += 1
        return value

    def emit(self, kind: str, /, **fields: object) -> Event:
        event = Event.make(kind, **fields)
        self.report.append(event)
        return event

    # ------------------------------------------------------------------ lookups

    def on_board(self, at: Coord) -> bool:
        return at in self.terrain

    def terrain_at(self, at: Coord) -> str:
        return self.terrain[at]

    def group(self, group_id: int) -> Group | None:
        return self.group_map.get(group_id)

    def groups_at(self, at: Coord) -> list[Group]:
        """Every group on ``at``: more than one only during an overstack."""
        return [g for g in self.group_map.values() if g.coord == at]

    def group_at(self, at: Coord) -> Group | None:
        for g in self.group_map.values():
            if g.coord == at:
                return g
        return None

    def minion(self, minion_id: int) -> Minion | None:
        gid = self._minion_group.get(minion_id)
        if gid is None:
            return None
        return self.group_map[gid].minion(minion_id)

    def group_of(self, minion_id: int) -> Group | None:
        gid = self._minion_group.get(minion_id)
        return None if gid is None else self.group_map[gid]

    def structure(self, structure_id: int) -> Structure | None:
        return self.structure_map.get(structure_id)

    def structure_at(self, at: Coord) -> Structure | None:
        sid = self._structure_at.get(at)
        return None if sid is None else self.structure_map[sid]

    def sanctum(self, side: Side) -> Structure | None:
        for s in self.structure_map.values():
            if s.kind == "sanctum" and s.owner == side:
                return s
        return None

    def player(self, side: Side) -> PlayerState:
        return self.player_map[side]

    def host_exists(self, host: HostRef) -> bool:
        if host.kind == "globe":
            return True
        if host.kind == "square":
            return isinstance(host.ref, Coord) and host.ref in self.terrain
        if not isinstance(host.ref, int):
            return False
        if host.kind == "group":
            return host.ref in self.group_map
        if host.kind == "minion":
            return host.ref in self._minion_group
        return host.ref in self.structure_map

    def host_coord(self, host: HostRef) -> Coord | None:
        """The square a host stands on (None for the globe or a host that is gone)."""
        if host.kind == "square":
            return host.ref if isinstance(host.ref, Coord) else None
        if not isinstance(host.ref, int):
            return None
        if host.kind == "group":
            g = self.group_map.get(host.ref)
            return None if g is None else g.coord
        if host.kind == "minion":
            g = self.group_of(host.ref)
            return None if g is None else g.coord
        if host.kind == "structure":
            s = self.structure_map.get(host.ref)
            return None if s is None else s.coord
        return None

    def initiative_order(self) -> tuple[Side, Side]:
        return (self.initiative, self.initiative.other)

    # ------------------------------------------------------------------ groups and minions

    def create_group(
        self,
        owner: Owner,
        at: Coord,
        minions: Iterable[Minion],
        controller: Owner | None = None,
    ) -> Group:
        """A new group (it may overstack: the caller resolves that)."""
        members = tuple(minions)
        if not members:
            raise ValueError("a group needs at least one minion")
        group = Group(
            self.new_id(), owner, owner if controller is None else controller, at, members
        )
        self.group_map[group.id] = group
        self.revision += 1
        for m in members:
            self._minion_group[m.id] = group.id
        self.emit("group_created", group=group.id, side=str(owner), at=at.name)
        return group

    def new_minion(
        self, unit: str, nation: str | None = None, traits: frozenset[str] = frozenset()
    ) -> Minion:
        """A fresh minion of a unit type of ``data/units.toml`` with its nation's abilities."""
        return self.content.make_minion(self.new_id(), unit, nation, traits)

    def add_minion(self, group_id: int, minion: Minion) -> Group:
        group = self.group_map[group_id]
        group = group.with_minions((*group.minions, minion))
        self.group_map[group_id] = group
        self.revision += 1
        self._minion_group[minion.id] = group_id
        return group

    def update_minion(self, minion: Minion) -> None:
        """Replace a minion's record (same id) inside its group."""
        gid = self._minion_group[minion.id]
        group = self.group_map[gid]
        mid = minion.id
        self.group_map[gid] = group.with_minions(
            tuple(minion if m.id == mid else m for m in group.minions)
        )
        self.revision += 1

    def update_group(self, group: Group) -> None:
        """Replace a group's record (same id)."""
        self.group_map[group.id] = group
        self.revision += 1

    def damage_minion(
        self, minion_id: int, amount: int, source: str, by: int | None = None
    ) -> bool:
        """Non-combat damage (spells, terrain): armor does not soak it. True when it died."""
        minion = self.minion(minion_id)
        if minion is None or amount <= 0:
            return False
        group = self.group_map[self._minion_group[minion_id]]
        hp = minion.hp - amount
        self.update_minion(minion.with_hp(hp))
        self.emit("damaged", minion=minion_id, group=group.id, amount=amount, source=source)
        if hp <= 0:
            return self.kill_minion(minion_id, "killed" if by is not None else "died", by=by)
        return False

    def heal_minion(self, minion_id: int, amount: int) -> None:
        minion = self.minion(minion_id)
        if minion is not None:
            self.update_minion(minion.with_hp(min(minion.max_hp, minion.hp + amount)))

    def prevent_death(self, minion_id: int) -> None:
        """Called by a spell reacting to "dying": the minion does not die (Soul Jar and kin).

        The spell must also leave the minion alive (heal it, or move it elsewhere).
        """
        self._saved.add(minion_id)

    def kill_minion(
        self, minion_id: int, cause: DeathCause = "died", by: int | None = None
    ) -> bool:
        """A death of category ``cause`` (digest 8.2). Returns True if the minion left play.

        "killed" broadcasts "host_killed" then "host_dying"; "died" broadcasts "host_dying";
        "removed" broadcasts nothing at all. A spell hearing "host_dying" may call
        :meth:`prevent_death`. After a death (not a removal) "minion_died" goes to the spells that
        would have heard about the minion (its group's, its square's, the globe's).
        """
        if cause not in DEATH_CAUSES:
            raise ValueError(f"unknown death cause {cause!r}")
        gid = self._minion_group.get(minion_id)
        if gid is None:
            return False
        heard = cause != "removed" and self.hears_death(self.group_map[gid], cause)
        subject = HostRef.minion(minion_id) if heard else None
        if subject is not None:
            if cause == "killed":
                self.broadcast("host_killed", subject)
            self.broadcast("host_dying", subject)
            saved = minion_id in self._saved
            self._saved.discard(minion_id)
            if saved or minion_id not in self._minion_group:
                return False
        after = (
            [
                uid
                for uid in broadcast.listeners(self, subject)
                if self.spell_map[uid].host != subject
            ]
            if subject is not None
            else []
        )
        group = self.group_map[self._minion_group.pop(minion_id)]
        minion = None
        rest = []
        for m in group.minions:
            if m.id == minion_id:
                minion = m
            else:
                rest.append(m)
        assert minion is not None
        self.report.append(
            Event.raw(
                "died",
                (
                    ("at", group.coord.name),
                    ("by", by),
                    ("cause", cause),
                    ("group", group.id),
                    ("minion", minion_id),
                    ("side", str(group.owner)),
                    ("unit", minion.unit),
                ),
            )
        )
        if self.spell_map:
            self.host_index()
            if minion_id in self._minion_hosts:
                self._end_spells_on(HostRef.minion(minion_id), "host_died")
        self.revision += 1
        if rest:
            self.group_map[group.id] = group.with_minions(tuple(rest))
        else:
            self._drop_group(group)
        if after:
            broadcast.deliver(self, after, "minion_died", subject)
        return True

    def hears_death(self, group: Group, cause: DeathCause = "killed") -> bool:
        """Would a spell hear of a death in ``group``? "host_dying" (and, for a kill,
        "host_killed") concern only spells on the minion or its group; "minion_died" reaches the
        spells on its group, its square and the globe. When none would, a death is only
        bookkeeping."""
        if not self.spell_map:
            return False
        if not self.skip_deaf:
            return self.touched(group)
        ears = self._death_ears
        if ears is None:
            ears = self._death_ears = (
                self.reach(self.reacting_ids("host_dying")),
                self.reach(self.reacting_ids("host_dying") | self.reacting_ids("host_killed")),
                self.reach(self.reacting_ids("minion_died")),
            )
        on_host = ears[1] if cause == "killed" else ears[0]
        if on_host is not None:
            if group.id in on_host.groups:
                return True
            hosts = on_host.minions
            if hosts and any(m.id in hosts for m in group.minions):
                return True
        around = ears[2]
        return around is not None and (
            around.globe or group.id in around.groups or group.coord in around.squares
        )

    def remove_group(
        self, group_id: int, cause: DeathCause = "removed", by: int | None = None
    ) -> None:
        """Every minion of the group meets ``cause``; the group leaves the board."""
        group = self.group_map.get(group_id)
        if group is None:
            return
        for m in group.minions:
            self.kill_minion(m.id, cause, by)

    def detach_minion(self, minion_id: int, at: Coord) -> Group:
        """Take a minion out of its group into a new group on ``at`` (digest 8.3).

        It keeps its own spells and loses the group's; the old group keeps them.
        """
        old = self.group_map[self._minion_group[minion_id]]
        minion = old.minion(minion_id)
        assert minion is not None
        rest = tuple(m for m in old.minions if m.id != minion_id)
        self.revision += 1
        if rest:
            self.group_map[old.id] = old.with_minions(rest)
        else:
            self._drop_group(old, announce=False)
        del self._minion_group[minion_id]
        return self.create_group(old.owner, at, (minion,), old.controller)

    def merge_groups(self, source_id: int, into_id: int) -> Group:
        """Join ``source`` into ``into`` (N12): joining minions do not gain the group's spells,
        and the joiner's group spells stay with its own minions. Each moves onto the merged group
        reaching only the minions it reached before (D-SP10); where the merged group already
        carries a visible copy of it (S10, D-SP8), the joiner's copy leaves play."""
        source = self.group_map[source_id]
        into = self.group_map[into_id]
        merged = into.with_minions((*into.minions, *source.minions))
        self.group_map[into_id] = merged
        self.revision += 1
        for m in source.minions:
            self._minion_group[m.id] = into_id
        del self.group_map[source_id]
        self._rehost_group_spells(
            HostRef.group(source_id), HostRef.group(into_id), tuple(m.id for m in source.minions)
        )
        self.emit("joined", group=source_id, into=into_id, side=str(into.owner), at=into.coord.name)
        return merged

    def force_move(self, group_id: int, at: Coord) -> None:
        """A spell makes the group move to ``at`` in this turn's movement phase, in place of any
        order its owner gave (pass I takes it in the owner's block, in initiative order)."""
        self.forced_moves[group_id] = at

    def place_group(self, group_id: int, at: Coord) -> None:
        """Put a group on ``at`` without any check or event (movement and spells decide those)."""
        g = self.group_map[group_id]
        self.group_map[group_id] = Group(g.id, g.owner, g.controller, at, g.minions)
        self.revision += 1

    def move_group(self, group_id: int, at: Coord) -> None:
        """A spell moves a group: it arrives on ``at`` and "entered_square" is broadcast."""
        group = self.group_map[group_id]
        self.place_group(group_id, at)
        self.emit(
            "moved", group=group_id, side=str(group.owner), **{"from": group.coord.name}, to=at.name
        )
        self.broadcast("group_entered", HostRef.group(group_id))

    def _drop_group(self, group: Group, announce: bool = True) -> None:
        del self.group_map[group.id]
        self.revision += 1
        if announce:
            self.emit("group_died", group=group.id, side=str(group.owner), at=group.coord.name)
        if self.spell_map:
            self._end_spells_on(HostRef.group(group.id), "host_died")

    # ------------------------------------------------------------------ terrain, structures

    def set_terrain(self, at: Coord, terrain: str) -> None:
        if terrain not in self.content.terrains:
            raise ValueError(f"unknown terrain {terrain!r}")
        old = self.terrain[at]
        if old != terrain:
            self.terrain[at] = terrain
            self._squares = None
            self.emit("terrain_changed", at=at.name, **{"from": old}, to=terrain)

    def create_structure(
        self, kind: StructureKind, at: Coord, owner: Owner, mana_type: str | None = None
    ) -> Structure:
        """A new structure (a structure square is always plains). A town or colony made for a
        side produces that side's primary mana unless ``mana_type`` says otherwise (D-CAPTURE).
        Every visible spell on the square that a dispel could end is dispelled (D-SQUARE-CLEARED,
        digest 5.7)."""
        if at in self._structure_at:
            raise ValueError(f"{at.name} already holds a structure")
        if mana_type is None and kind != "sanctum" and owner != NEUTRAL:
            mana_type = self.content.houses[self.player_map[Side(owner)].house].primary
        structure = Structure(self.new_id(), kind, at, owner, mana_type=mana_type)
        self.structure_map[structure.id] = structure
        self._structure_at[at] = structure.id
        self.set_terrain(at, "plains")
        self.emit(
            "structure_created",
            structure=structure.id,
            at=at.name,
            structure_kind=kind,
            side=str(owner),
        )
        self._clear_square(at)
        return structure

    def found_structure(
        self, kind: StructureKind, at: Coord, side: Side, mana_type: str | None = None
    ) -> Structure:
        """``side`` founds a structure by a spell: +1 to its delta, as losing one counts -1 (I3,
        seed 003: the delta is the change in the number of structures a side owns)."""
        structure = self.create_structure(kind, at, side, mana_type)
        self.player_map[side] = evolve(
            self.player_map[side], captured=self.player_map[side].captured + 1
        )
        return structure

    def _clear_square(self, at: Coord) -> None:
        """Dispel the visible, dispellable spells on the square ``at`` (its terrain stays: a
        square's terrain is not a spell here, and a structure square is plains anyway)."""
        uids = self.host_index().get(HostRef.square(at)) if self.spell_map else None
        if not uids:
            return
        hooks = self.hooks
        for uid in list(uids):
            spell = self.spell_map.get(uid)
            if spell is not None and hooks.dispellable(self, spell):
                hooks.end_spell(self, uid, "dispelled")

    def destroy_structure(self, structure_id: int) -> None:
        """A spell destroys a town or colony: its owner counts it as lost (I3)."""
        structure = self.structure_map.pop(structure_id)
        del self._structure_at[structure.coord]
        if structure.owner != NEUTRAL:
            side = Side(structure.owner)
            self.player_map[side] = evolve(
                self.player_map[side], lost=self.player_map[side].lost + 1
            )
        self.emit(
            "structure_destroyed",
            structure=structure_id,
            at=structure.coord.name,
            structure_kind=structure.kind,
            side=str(structure.owner),
        )
        self._end_spells_on(HostRef.structure(structure_id), "host_destroyed")

    def update_structure(self, structure: Structure) -> None:
        self.structure_map[structure.id] = structure

    def capture_structure(
        self, structure_id: int, side: Side, mana_type: str | None = None
    ) -> None:
        """``side`` takes a town or colony: +1 to its delta, -1 to the loser's (I3). It produces
        ``mana_type`` (default: the new owner's primary, digest 9.3); the square's visible spells
        are dispelled (D-SQUARE-CLEARED)."""
        old = self.structure_map[structure_id]
        if mana_type is None:
            mana_type = self.content.houses[self.player_map[side].house].primary
        self.structure_map[structure_id] = evolve(
            old, owner=side, novices=(), counter=0, mana_type=mana_type
        )
        self.player_map[side] = evolve(
            self.player_map[side], captured=self.player_map[side].captured + 1
        )
        if old.owner != NEUTRAL:
            loser = Side(old.owner)
            self.player_map[loser] = evolve(
                self.player_map[loser], lost=self.player_map[loser].lost + 1
            )
        self.emit(
            "captured",
            structure=structure_id,
            at=old.coord.name,
            structure_kind=old.kind,
            side=str(side),
            **{"from": str(old.owner)},
            mana_type=mana_type,
        )
        self._clear_square(old.coord)

    # ------------------------------------------------------------------ players

    def update_player(self, player: PlayerState) -> None:
        self.player_map[player.side] = player

    def gain(self, side: Side, amount: Mana) -> None:
        """Add mana (negative parts drain); a pool never drops below zero."""
        p = self.player_map[side]
        self.player_map[side] = evolve(p, pool=(p.pool + amount).clamped())

    def pay(self, side: Side, cost: Mana) -> bool:
        """Take ``cost`` from the pool if it covers it; False (nothing taken) otherwise."""
        p = self.player_map[side]
        if not p.pool.covers(cost):
            return False
        self.player_map[side] = evolve(p, pool=p.pool - cost)
        return True

    def take_card(self, side: Side, card_uid: int) -> Card | None:
        """Remove a card from the hand (None when it is no longer there)."""
        p = self.player_map[side]
        card = p.card(card_uid)
        if card is None:
            return None
        self.player_map[side] = evolve(p, hand=tuple(c for c in p.hand if c.uid != card_uid))
        return card

    def put_card(self, side: Side, card: Card, where: str) -> None:
        """Put a card into "hand", "discard", "deck_top" or "deck_bottom"."""
        p = self.player_map[side]
        if where == "hand":
            p = evolve(p, hand=(*p.hand, card))
        elif where == "discard":
            p = evolve(p, discard=(*p.discard, card))
        elif where == "deck_top":
            p = evolve(p, deck=(card, *p.deck))
        elif where == "deck_bottom":
            p = evolve(p, deck=(*p.deck, card))
        else:
            raise ValueError(f"unknown card place {where!r}")
        self.player_map[side] = p

    def record_cast(self, side: Side, spell_id: str) -> None:
        p = self.player_map[side]
        self.player_map[side] = evolve(p, cast_log=(*p.cast_log, spell_id))

    # ------------------------------------------------------------------ initiative and result

    def set_initiative(self, side: Side, reason: str) -> None:
        """Give initiative to ``side`` (an "initiative" event when it changes hands)."""
        if side is not self.initiative:
            before = self.initiative
            self.initiative = side
            self.emit("initiative", side=str(side), **{"from": str(before)}, reason=reason)

    def end_game(self, winner: Side | None, reason: str) -> None:
        if self.result is None:
            self.result = Result(winner, reason)
            self.emit("game_over", winner=None if winner is None else str(winner), reason=reason)

    # ------------------------------------------------------------------ active spells

    def add_spell(
        self,
        spell_id: str,
        owner: Side,
        host: HostRef,
        *,
        visible: bool = True,
        boosted: bool = False,
        power: int | None = None,
        card_uid: int | None = None,
        helper: bool = False,
        data: dict[str, JsonValue] | None = None,
    ) -> ActiveSpell:
        """A spell becomes active on ``host`` (the newest in every list: casting order)."""
        spell = ActiveSpell(
            uid=self.new_id(),
            spell_id=spell_id,
            owner=owner,
            host=host,
            cast_turn=self.turn,
            visible=visible,
            boosted=boosted,
            power=power,
            card_uid=card_uid,
            helper=helper,
            data=tuple(sorted((data or {}).items())),
        )
        self.spell_map[spell.uid] = spell
        self._spells_changed(added=spell_id)
        if self._by_host is not None:
            # The newest uid: last on its host.
            self._index_add(spell.host, spell.uid, last=True)
        self.emit(
            "spell_added",
            spell=spell_id,
            uid=spell.uid,
            side=str(owner),
            host=_host_text(host),
            card=card_uid,
        )
        return spell

    def update_spell(self, spell: ActiveSpell) -> None:
        """Replace an active spell's record (its counters, or a new host: same uid and order)."""
        old = self.spell_map.get(spell.uid)
        if old is not None:
            self.spell_map[spell.uid] = spell
            if old.spell_id != spell.spell_id:
                self._spells_changed(added=spell.spell_id, removed=old.spell_id)
            else:
                self._spells_changed(moved=old.host != spell.host)
            if old.host != spell.host and self._by_host is not None:
                self._index_remove(old.host, spell.uid)
                self._index_add(spell.host, spell.uid, last=False)

    def remove_spell(self, uid: int, reason: str) -> None:
        spell = self.spell_map.pop(uid, None)
        if spell is not None:
            self._spells_changed(removed=spell.spell_id)
            if self._by_host is not None:
                self._index_remove(spell.host, uid)
            self.emit(
                "spell_ended",
                spell=spell.spell_id,
                uid=uid,
                side=str(spell.owner),
                host=_host_text(spell.host),
                reason=reason,
            )

    def _index_add(self, host: HostRef, uid: int, last: bool) -> None:
        """Keep the host index current (casting order on each host) without rebuilding it."""
        assert self._by_host is not None
        uids = self._by_host.setdefault(host, [])
        if last:
            uids.append(uid)
        else:
            bisect.insort(uids, uid)
        self._hosted[host.kind].add(host.ref)
        if host.kind == "minion" and isinstance(host.ref, int):
            self._minion_hosts.add(host.ref)

    def _index_remove(self, host: HostRef, uid: int) -> None:
        assert self._by_host is not None
        uids = self._by_host.get(host)
        if uids is None or uid not in uids:
            return
        uids.remove(uid)
        if not uids:
            del self._by_host[host]
            self._hosted[host.kind].discard(host.ref)
            if host.kind == "minion" and isinstance(host.ref, int):
                self._minion_hosts.discard(host.ref)

    def _spells_changed(
        self, added: str | None = None, removed: str | None = None, moved: bool = False
    ) -> None:
        """Forget what is derived from the active spells (the host index is kept current by
        add_spell, update_spell and remove_spell themselves): which ids react to what when the
        set of ids present changes, where spells sit when one comes, goes or moves, effective
        stats always (a spell's counters may change its potency)."""
        self.revision += 1
        counts = self._id_counts
        ids_changed = False
        if added is not None:
            counts[added] += 1
            ids_changed = counts[added] == 1
        if removed is not None:
            counts[removed] -= 1
            if counts[removed] <= 0:
                del counts[removed]
                ids_changed = True
        if ids_changed and self._reacting:
            self._reacting = {}
        if added is not None or removed is not None or moved:
            self._death_ears = None
            if self._reach:
                self._reach = {}
            if self._among or self._globe_among:
                self._among = {}
                self._globe_among = {}
        if self.stats_cache:
            self.stats_cache = {}
        self.stats_cacheable = None

    def reacts(self, event: str) -> bool:
        """Could any active spell react to ``event``? When not, broadcasting it changes nothing."""
        if not self.spell_map:
            return False
        if not self.skip_deaf:
            return True
        return bool(self.reacting_ids(event))

    def reacting_ids(self, event: str) -> frozenset[str]:
        found = self._reacting.get(event)
        if found is None:
            content, reacts = self.content, self.hooks.reacts
            found = self._reacting[event] = frozenset(
                sid for sid in self._id_counts if reacts(content, sid, event)
            )
        return found

    def reach(self, spell_ids: frozenset[str]) -> Reach | None:
        """Where the active spells whose id is in ``spell_ids`` sit (None when there are none)."""
        if not self.spell_map:
            return None
        if spell_ids in self._reach:
            return self._reach[spell_ids]
        found: Reach | None = None
        for spell in self.spell_map.values():
            if spell.spell_id in spell_ids:
                if found is None:
                    found = Reach()
                found.add(spell.host)
        self._reach[spell_ids] = found
        return found

    def reached(self, reach: Reach, group: Group) -> bool:
        """Does a spell of ``reach`` sit on the group, a member, its square, its structure or the
        globe (the hosts whose spells change a minion's stats and abilities)?"""
        if reach.globe or group.id in reach.groups or group.coord in reach.squares:
            return True
        if reach.structures:
            structure = self._structure_at.get(group.coord)
            if structure is not None and structure in reach.structures:
                return True
        if reach.minions:
            minions = reach.minions
            return any(m.id in minions for m in group.minions)
        return False

    def host_index(self) -> dict[HostRef, list[int]]:
        """Host -> uids of its active spells in casting order (read only)."""
        if self._by_host is None:
            index: dict[HostRef, list[int]] = {}
            for spell in self.spell_map.values():
                index.setdefault(spell.host, []).append(spell.uid)
            self._by_host = index
            refs: dict[str, set[object]] = {kind: set() for kind in HOST_KINDS}
            for host in index:
                refs[host.kind].add(host.ref)
            self._minion_hosts = {r for r in refs["minion"] if isinstance(r, int)}
            self._hosted = refs
        return self._by_host

    def minion_hosts(self) -> set[int]:
        """Ids of the minions that host an active spell (read only)."""
        self.host_index()
        return self._minion_hosts

    def spells_on(self, host: HostRef) -> tuple[ActiveSpell, ...]:
        """The host's active spells, oldest first (S9)."""
        uids = self.host_index().get(host)
        if not uids:
            return ()
        spell_map = self.spell_map
        return tuple([spell_map[uid] for uid in uids])

    def touched(self, group: Group) -> bool:
        """Does any active spell reach this group's minions (on them, the group, its square, its
        structure or the globe)? When not, their effective stats are their base stats."""
        if not self.spell_map:
            return False
        self.host_index()
        hosted = self._hosted
        if hosted["globe"] or group.id in hosted["group"] or group.coord in hosted["square"]:
            return True
        structure = self._structure_at.get(group.coord)
        if structure is not None and structure in hosted["structure"]:
            return True
        return any(m.id in self._minion_hosts for m in group.minions)

    def spells_among(self, ids: frozenset[str]) -> list[ActiveSpell]:
        """The active spells whose id is in ``ids``, in casting order."""
        uids = self._among.get(ids)
        if uids is None:
            uids = self._among[ids] = [s.uid for s in self.spell_map.values() if s.spell_id in ids]
        # Records change in place (counters): hand out the current ones.
        spell_map = self.spell_map
        return [spell_map[uid] for uid in uids]

    def globe_among(self, ids: frozenset[str]) -> list[ActiveSpell]:
        """The globe's active spells whose id is in ``ids``, in casting order."""
        uids = self._globe_among.get(ids)
        if uids is None:
            uids = self._globe_among[ids] = [
                s.uid
                for s in self.spell_map.values()
                if s.spell_id in ids and s.host.kind == "globe"
            ]
        spell_map = self.spell_map
        return [spell_map[uid] for uid in uids]

    def spells_of(self, side: Side) -> tuple[ActiveSpell, ...]:
        """The side's active spells, oldest first (S9)."""
        return tuple(s for s in self.spell_map.values() if s.owner == side)

    def _end_spells_on(self, host: HostRef, reason: str) -> None:
        """A host left play: its spells end (S8), their cards go to the discard pile."""
        uids = self.host_index().get(host) if self.spell_map else None
        if uids:
            self._end_spells(list(uids), reason)

    def _end_spells(self, uids: list[int], reason: str) -> None:
        end_spell = self.hooks.end_spell
        for uid in uids:
            end_spell(self, uid, reason)

    def _rehost_group_spells(self, old: HostRef, new: HostRef, members: tuple[int, ...]) -> None:
        uids = self.host_index().get(old) if self.spell_map else None
        if not uids:
            return
        stacked = []
        for uid in list(uids):
            spell = self.spell_map[uid]
            definition = self.content.spells.get(spell.spell_id)
            cumulative = definition is not None and definition.cumulative
            if (
                spell.visible
                and not cumulative
                and any(s.spell_id == spell.spell_id and s.visible for s in self.spells_on(new))
            ):
                stacked.append(uid)
                continue
            reached = spell.get("members")
            kept = reached if isinstance(reached, tuple) else members
            self.update_spell(evolve(spell.with_data(members=kept), host=new))
        self._end_spells(stacked, "group_joined")

    # ------------------------------------------------------------------ broadcasting

    def broadcast(self, event: str, subject: HostRef | None = None) -> None:
        """Tell every listening active spell that ``event`` happened, in the order
        :mod:`engine.broadcast` decides."""
        if self.spell_map:
            broadcast.broadcast(self, event, subject)


class Reach:
    """The hosts of some active spells, by kind (see :meth:`World.reach`)."""

    __slots__ = ("globe", "groups", "minions", "squares", "structures")

    def __init__(self) -> None:
        self.globe = False
        self.groups: set[int] = set()
        self.minions: set[int] = set()
        self.squares: set[Coord] = set()
        self.structures: set[int] = set()

    def add(self, host: HostRef) -> None:
        ref = host.ref
        if host.kind == "globe":
            self.globe = True
        elif host.kind == "square":
            if isinstance(ref, Coord):
                self.squares.add(ref)
        elif isinstance(ref, int):
            {"group": self.groups, "minion": self.minions, "structure": self.structures}[
                host.kind
            ].add(ref)


def _host_text(host: HostRef) -> str:
    if host.kind == "globe":
        return "globe"
    ref = host.ref.name if isinstance(host.ref, Coord) else str(host.ref)
    return f"{host.kind}:{ref}"
