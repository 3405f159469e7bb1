"""The private, mutable working copy of a match used while one turn resolves.

A :class:`World` holds the state's frozen records in dicts and replaces a record whenever it
changes, so every reader (core phases and spells alike) sees a consistent picture. Every change
that players should learn about is appended to :attr:`World.report` as an :class:`Event`.

Events that active spells react to ("start_of_turn", "host_dying", "group_entered", ...) go through
:meth:`World.broadcast`; :mod:`engine.broadcast` is the one place that decides the order in which
spells hear them (documented in ``engine/README.md``).

The World is the turn's mutations over :class:`engine.store.Store` (the records and every read
of them, a :class:`~engine.position.Position`); where spells sit is the store's
:class:`~engine.spells.presence.SpellPresence`, which every spell mutator keeps in step; the
report is a :class:`~engine.report.Recorder` (silent when the turn is not recorded).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Final, Protocol

from engine import broadcast
from engine.coords import Coord, name_of
from engine.report import Emit, Event, Recorder
from engine.state import (
    BLUE,
    NEUTRAL,
    RED,
    ActiveSpell,
    GameState,
    Group,
    HostRef,
    JsonValue,
    Minion,
    Owner,
    Result,
    Side,
    Structure,
    StructureKind,
    evolve,
)
from engine.store import Store

_new = tuple.__new__

if TYPE_CHECKING:
    from engine.content import Content

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

    def reacting(self, content: Content, event: str) -> frozenset[str]:
        """The ids of the catalogue's spells whose active copies react to ``event`` at all."""

    def end_spell(self, world: World, uid: int, reason: str) -> None:
        """An active spell leaves play."""

    def dispellable(self, world: World, spell: ActiveSpell) -> bool:
        """Whether a dispel (or a cleared square) ends the spell."""


class World(Store):
    """Mutable working copy of a :class:`GameState` for one turn."""

    __slots__ = (
        "_saved",
        "emit",
        "forced_moves",
        "handler",
        "hooks",
        "mana_choices",
        "report",
        "rng",
        "spell_drawn",
    )

    def __init__(
        self,
        state: GameState,
        rng: random.Random,
        content: Content,
        hooks: SpellHooks,
        on_event: EventHandler | None = None,
        *,
        record: bool = True,
    ) -> None:
        """``hooks`` carry out the spell rules; ``on_event`` replaces ``hooks.on_event`` as the
        listener (tests); ``record=False`` builds no report (see :class:`Recorder`)."""
        super().__init__(state, content, hooks.reacting, skip_deaf=on_event is None)
        self.hooks = hooks
        self.rng = rng
        self.report = Recorder(recording=record)
        # Add an event to the turn's report: the recorder's own method (events are many, and a
        # forwarding call would repack every event's fields once more).
        self.emit: Emit = self.report.emit
        self._saved: set[int] = set()
        # Moves that spells impose this turn (Mirage, relations): group id -> destination. They
        # replace the owner's order and give computer-controlled groups theirs.
        self.forced_moves: dict[int, Coord] = {}
        # The sides' mana choices for towns and colonies they capture at this turn's end
        # (D-TOWN-MANA): side -> structure square -> mana type.
        self.mana_choices: dict[Side, dict[Coord, str]] = {}
        # Cards drawn by spells this turn (D-SPELL-DRAW), by card uid: step 4 refills the hand to
        # its size without counting the ones still in hand, so a spell's draw is a card more.
        self.spell_drawn: dict[Side, set[int]] = {RED: set(), BLUE: set()}
        # A listener given by a test hears everything; the spells' own listener ignores the events
        # a spell has no reaction to, so those are not delivered at all (``skip_deaf``).
        self.handler: EventHandler = hooks.on_event if on_event is None else on_event

    # ------------------------------------------------------------------ ids, events

    def new_id(self) -> int:
        value = self.next_id
        self.next_id += 1
        return value

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
        if self.report.recording:
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
        if self.report.recording:
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
        after = broadcast.warn_of_death(self, minion_id, cause)
        if after is not None:
            saved = minion_id in self._saved
            self._saved.discard(minion_id)
            if saved or minion_id not in self._minion_group:
                return False
        self._bury(minion_id, cause, by, after)
        return True

    def kill_unheard(self, minion_id: int, group_id: int, by: int | None = None) -> bool:
        """A kill (cause "killed") of a member of ``group_id``, a group the caller found no spell
        hears of (``presence.hears_death``): no warning, no prevention, no "minion_died", as
        :meth:`kill_minion` would have done it. False (nothing done) when the minion is not in
        that group."""
        if self._minion_group.get(minion_id) != group_id:
            return False
        self._bury(minion_id, "killed", by, None)
        return True

    def _bury(
        self, minion_id: int, cause: DeathCause, by: int | None, after: list[int] | None
    ) -> None:
        """The minion leaves its group (and the group the board when it was the last), with
        the "died" event; ``after``: the uids that hear "minion_died" once it left."""
        group = self.group_map[self._minion_group.pop(minion_id)]
        # One scan finds the minion (ids are unique in a group); the rest is the tuple around it.
        minions = group.minions
        at = 0
        for minion in minions:
            if minion.id == minion_id:
                break
            at += 1
        rest = minions[:at] + minions[at + 1 :]
        if self.report.recording:
            # Built as Event.raw builds it, without its call (a big fight has dozens of deaths).
            self.report.append(
                _new(
                    Event,
                    (
                        "died",
                        (
                            ("at", name_of(group.coord)),
                            ("by", by),
                            ("cause", cause),
                            ("group", group.id),
                            ("minion", minion_id),
                            ("side", str(group.owner)),
                            ("unit", minion.unit),
                        ),
                    ),
                )
            )
        if self.spell_map and minion_id in self.presence.minion_hosts():
            self._end_spells_on(HostRef.minion(minion_id), "host_died")
        self.revision += 1
        if rest:
            self.group_map[group.id] = group.with_minions(rest)
        else:
            self._drop_group(group)
        if after:
            broadcast.deliver(self, after, "minion_died", HostRef.minion(minion_id))

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
        if self.report.recording:
            self.emit(
                "joined", group=source_id, into=into_id, side=str(into.owner), at=into.coord.name
            )
        return merged

    def force_move(self, group_id: int, at: Coord) -> None:
        """A spell makes the group move to ``at`` in this turn's movement phase, in place of any
        order its owner gave (pass I takes it in the owner's block, in initiative order)."""
        self.forced_moves[group_id] = at

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
        if announce and self.report.recording:
            self.emit("group_died", group=group.id, side=str(group.owner), at=group.coord.name)
        if self.spell_map:
            self._end_spells_on(HostRef.group(group.id), "host_died")

    # ------------------------------------------------------------------ terrain, structures

    def set_terrain(self, at: Coord, terrain: str) -> None:
        if terrain not in self.content.terrains:
            raise ValueError(f"unknown terrain {terrain!r}")
        old = self.terrain[at]
        if old != terrain:
            # A new map: the old one may be a state's (the one the turn started from, or a
            # snapshot taken since).
            changed = dict(self.terrain)
            changed[at] = terrain
            self.terrain = changed
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
        if self.report.recording:
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
        self._count(side, captured=1)
        return structure

    def _clear_square(self, at: Coord) -> None:
        """Dispel the visible, dispellable spells on the square ``at`` (its terrain stays: a
        square's terrain is not a spell here, and a structure square is plains anyway)."""
        uids = self.presence.host_index().get(HostRef.square(at)) if self.spell_map else None
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
            self._count(Side(structure.owner), lost=1)
        if self.report.recording:
            self.emit(
                "structure_destroyed",
                structure=structure_id,
                at=structure.coord.name,
                structure_kind=structure.kind,
                side=str(structure.owner),
            )
        self._end_spells_on(HostRef.structure(structure_id), "host_destroyed")

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
        self._count(side, captured=1)
        if old.owner != NEUTRAL:
            self._count(Side(old.owner), lost=1)
        if self.report.recording:
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
        self.revision += 1
        self.presence.added(spell)
        if self.report.recording:
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
            self.revision += 1
            self.presence.replaced(old, spell)

    def remove_spell(self, uid: int, reason: str) -> None:
        spell = self.spell_map.pop(uid, None)
        if spell is not None:
            self.revision += 1
            self.presence.removed(spell)
            if self.report.recording:
                self.emit(
                    "spell_ended",
                    spell=spell.spell_id,
                    uid=uid,
                    side=str(spell.owner),
                    host=_host_text(spell.host),
                    reason=reason,
                )

    def _end_spells_on(self, host: HostRef, reason: str) -> None:
        """A host left play: its spells end (S8), their cards go to the discard pile."""
        uids = self.presence.host_index().get(host) if self.spell_map else None
        if uids:
            self._end_spells(list(uids), reason)

    def _end_spells(self, uids: list[int], reason: str) -> None:
        end_spell = self.hooks.end_spell
        for uid in uids:
            end_spell(self, uid, reason)

    def _rehost_group_spells(self, old: HostRef, new: HostRef, members: tuple[int, ...]) -> None:
        uids = self.presence.host_index().get(old) if self.spell_map else None
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


def _host_text(host: HostRef) -> str:
    if host.kind == "globe":
        return "globe"
    ref = host.ref.name if isinstance(host.ref, Coord) else str(host.ref)
    return f"{host.kind}:{ref}"
