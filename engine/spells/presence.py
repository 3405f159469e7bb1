"""Where the active spells sit during a turn, and what follows from it.

The World tells its :class:`SpellPresence` of every spell that comes (:meth:`~SpellPresence.added`),
changes (:meth:`~SpellPresence.replaced`) or goes (:meth:`~SpellPresence.removed`); the presence
keeps the host index (the spells on each host in casting order, S9) current in place and forgets
what it derived from the spells before: which spell ids react to an event, where the spells with
given ids sit (:meth:`~SpellPresence.reach`), who would hear of a death, the selections by id,
and :attr:`~SpellPresence.memo` (answers that depend only on the active spells; the core's
queries keep effective stats there).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import TYPE_CHECKING, Final

from engine.coords import Coord
from engine.state import HOST_KINDS, ActiveSpell, Group, HostRef, SpellAnswers

if TYPE_CHECKING:
    from engine.content import Content

# A record's id, read in C: whether any member of a group hosts a spell is a set's isdisjoint
# over the members' ids (a generator would cost a frame and a resumption per member).
_ID: Final = attrgetter("id")
# The ids of the catalogue's spells whose active copies react to an event
# (``SpellHooks.reacting``).
Reacting = Callable[["Content", str], frozenset[str]]


class Reach:
    """The hosts of some active spells, by kind (see :meth:`SpellPresence.reach`)."""

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

    def touches(self, group: Group, structure_at: Mapping[Coord, int]) -> bool:
        """Does one of these hosts sit on the group, a member, its square, its structure
        (``structure_at``: square -> structure id) or the globe (the hosts whose spells change
        a minion's stats and abilities)?"""
        if self.globe or group.id in self.groups or group.coord in self.squares:
            return True
        if self.structures:
            structure = structure_at.get(group.coord)
            if structure is not None and structure in self.structures:
                return True
        if self.minions:
            return not self.minions.isdisjoint(map(_ID, group.minions))
        return False


class SpellPresence:
    """The indexes over a World's active spells (``spell_map``, read, never changed here)."""

    # Slots, not an instance dict: every broadcast and query of a turn reads these.
    __slots__ = (
        "_among",
        "_by_host",
        "_content",
        "_death_ears",
        "_globe_among",
        "_hosted",
        "_id_counts",
        "_minion_hosts",
        "_reach",
        "_reacting",
        "_reacting_in",
        "_structure_at",
        "generation",
        "memo",
        "skip_deaf",
        "spell_map",
    )

    def __init__(
        self,
        spell_map: dict[int, ActiveSpell],
        structure_at: dict[Coord, int],
        content: Content,
        reacting: Reacting,
        *,
        skip_deaf: bool,
        answers: SpellAnswers | None = None,
    ) -> None:
        """``structure_at`` is the World's square -> structure id map (read live);
        ``skip_deaf``: a spell hears only the events it has a reaction to (a test's listener
        hears everything); ``answers``: the ones kept with the state the turn started from
        (``GameState.spell_answers``), filled while the spells are still that state's and
        left, never changed, once they change."""
        self.spell_map = spell_map
        self._structure_at = structure_at
        self._content = content
        self._reacting_in = reacting
        self.skip_deaf = skip_deaf
        # Bumped by every change to the active spells.
        self.generation = 0
        self._by_host: dict[HostRef, list[int]] | None = None
        self._minion_hosts: set[int] = set()
        self._hosted: dict[str, set[object]] = {}  # host kind -> refs hosting a spell
        # Spell ids reacting to an event (per event): it depends only on which ids are present,
        # so counters changing in place keep the answers.
        self._reacting: dict[str, frozenset[str]] = {} if answers is None else answers.reacting
        # Active copies of each spell id, counted in a loop (a Counter over a generator is two
        # Python calls, an isinstance check against Mapping and a frame more, every turn).
        counts: dict[str, int] = {}
        for s in spell_map.values():
            counts[s.spell_id] = counts.get(s.spell_id, 0) + 1
        self._id_counts = counts
        self._reach: dict[frozenset[str], Reach | None] = {} if answers is None else answers.reach
        # Where the spells reacting to deaths sit (see hears_death()).
        self._death_ears: tuple[Reach | None, Reach | None, Reach | None] | None = None
        # Uids of the active spells with given ids (all, and the globe's), per id set.
        self._among: dict[frozenset[str], list[int]] = {}
        self._globe_among: dict[frozenset[str], list[int]] = {}
        self.memo: dict[tuple[object, ...], object] = {} if answers is None else answers.memo

    # ------------------------------------------------------------------ changes

    def added(self, spell: ActiveSpell) -> None:
        """``spell`` (the newest uid) became active."""
        self._changed(added=spell.spell_id)
        if self._by_host is not None:
            self._index_add(spell.host, spell.uid, last=True)

    def replaced(self, old: ActiveSpell, new: ActiveSpell) -> None:
        """An active spell's record changed (its counters, its host or its id; same uid)."""
        if old.spell_id != new.spell_id:
            self._changed(added=new.spell_id, removed=old.spell_id)
        else:
            self._changed(moved=old.host != new.host)
        if old.host != new.host and self._by_host is not None:
            self._index_remove(old.host, new.uid)
            self._index_add(new.host, new.uid, last=False)

    def removed(self, spell: ActiveSpell) -> None:
        """``spell`` left play."""
        self._changed(removed=spell.spell_id)
        if self._by_host is not None:
            self._index_remove(spell.host, spell.uid)

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

    def _changed(
        self, added: str | None = None, removed: str | None = None, moved: bool = False
    ) -> None:
        """Forget what is derived from the active spells: which ids react to what when the set
        of ids present changes, where spells sit when one comes, goes or moves, the memo
        always (a spell's counters may change its potency)."""
        self.generation += 1
        counts = self._id_counts
        ids_changed = False
        if added is not None:
            counts[added] = counts.get(added, 0) + 1
            ids_changed = counts[added] == 1
        if removed is not None:
            counts[removed] = counts.get(removed, 0) - 1
            if counts[removed] <= 0:
                del counts[removed]
                ids_changed = True
        # New dicts, never emptied in place: the ones the turn started with may be its
        # state's (answers about that state's spells).
        if ids_changed:
            self._reacting = {}
        if added is not None or removed is not None or moved:
            self._death_ears = None
            self._reach = {}
            if self._among or self._globe_among:
                self._among = {}
                self._globe_among = {}
        self.memo = {}

    # ------------------------------------------------------------------ reads

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
        # The index is asked for only when not built yet: each of a fight's deaths asks here.
        if self._by_host is None:
            self.host_index()
        return self._minion_hosts

    def spells_on(self, host: HostRef) -> tuple[ActiveSpell, ...]:
        """The host's active spells, oldest first (S9)."""
        uids = self.host_index().get(host)
        if not uids:
            return ()
        spell_map = self.spell_map
        return tuple([spell_map[uid] for uid in uids])

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

    def reacts(self, event: str) -> bool:
        """Could any active spell react to ``event``? When not, broadcasting it changes nothing."""
        if not self.spell_map:
            return False
        if not self.skip_deaf:
            return True
        return bool(self.reacting_ids(event))

    def reacting_ids(self, event: str) -> frozenset[str]:
        """The ids of the active spells that react to ``event``."""
        found = self._reacting.get(event)
        if found is None:
            # The catalogue's answer narrowed to the ids present, in one call.
            catalogue = self._reacting_in(self._content, event)
            found = self._reacting[event] = catalogue.intersection(self._id_counts)
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
        """:meth:`Reach.touches` on the World's squares."""
        return reach.touches(group, self._structure_at)

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
        return not self._minion_hosts.isdisjoint(map(_ID, group.minions))

    def hears_death(self, group: Group, cause: str = "killed") -> bool:
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
            dying = self.reacting_ids("host_dying")
            ears = self._death_ears = (
                self.reach(dying),
                self.reach(dying | self.reacting_ids("host_killed")),
                self.reach(self.reacting_ids("minion_died")),
            )
        on_host = ears[1] if cause == "killed" else ears[0]
        if on_host is not None:
            if group.id in on_host.groups:
                return True
            hosts = on_host.minions
            if hosts and not hosts.isdisjoint(map(_ID, group.minions)):
                return True
        around = ears[2]
        return around is not None and (
            around.globe or group.id in around.groups or group.coord in around.squares
        )
