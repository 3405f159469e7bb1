"""Who hears a broadcast event, and in which order: the one place that decides it.

The order (documented in ``engine/README.md``): with no subject (turn-wide events), every active
spell, the initiative side's first, each side in casting order. A minion: its spells, its
group's, its square's, then the globe's. A group: its spells, each member's, its square's, the
globe's. A structure: its spells, its square's, the globe's. A square: its spells, the globe's.
On the globe the initiative side's spells come first. A spell that left play before its turn to
hear is skipped; the report's latest event describes what happened, for reactions that need
details.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.spells.vocab import EVENTS
from engine.state import GLOBE, HostRef

if TYPE_CHECKING:
    from engine.world import World


def listeners(world: World, subject: HostRef | None) -> list[int]:
    """Uids of the spells that hear an event about ``subject``, in the order they hear it."""
    spell_map = world.spell_map
    if not spell_map:
        return []
    if subject is None:
        first, second = world.initiative_order()
        return [s.uid for s in spell_map.values() if s.owner is first] + [
            s.uid for s in spell_map.values() if s.owner is second
        ]
    hosts: list[HostRef] = [] if subject == GLOBE else [subject]
    if subject.kind == "minion" and isinstance(subject.ref, int):
        group = world.group_of(subject.ref)
        if group is not None:
            hosts += [HostRef.group(group.id), HostRef.square(group.coord)]
    elif subject.kind == "group" and isinstance(subject.ref, int):
        group = world.group_map.get(subject.ref)
        if group is not None:
            hosted = world.presence.minion_hosts()
            hosts += [HostRef.minion(m.id) for m in group.minions if m.id in hosted]
            hosts.append(HostRef.square(group.coord))
    elif subject.kind == "structure" and isinstance(subject.ref, int):
        structure = world.structure_map.get(subject.ref)
        if structure is not None:
            hosts.append(HostRef.square(structure.coord))
    index = world.presence.host_index()
    order: list[int] = []
    for host in hosts:
        order += index.get(host, ())
    globe = index.get(GLOBE, ())
    first, second = world.initiative_order()
    for side in (first, second):
        order += [uid for uid in globe if spell_map[uid].owner is side]
    return order


def warn_of_death(world: World, minion_id: int, cause: str) -> list[int] | None:
    """Before a minion dies (digest 8.2): "host_killed" (a kill) then "host_dying" to the
    spells that hear them, if any would hear of the death at all (a removal warns nobody).
    None when no spell heard; else the uids that will hear "minion_died" once it left (those
    around it, not on it), in order."""
    group = world.group_of(minion_id)
    if cause == "removed" or group is None or not world.presence.hears_death(group, cause):
        return None
    subject = HostRef.minion(minion_id)
    if cause == "killed":
        broadcast(world, "host_killed", subject)
    broadcast(world, "host_dying", subject)
    return [uid for uid in listeners(world, subject) if world.spell_map[uid].host != subject]


def broadcast(world: World, event: str, subject: HostRef | None = None) -> None:
    """Tell every listening active spell that ``event`` happened."""
    if not world.spell_map:
        return
    if event not in EVENTS:
        raise ValueError(f"unknown broadcast event {event!r}")
    if world.presence.reacts(event):
        deliver(world, listeners(world, subject), event, subject)


def deliver(world: World, uids: list[int], event: str, subject: HostRef | None) -> None:
    """Tell the spells ``uids`` (in that order) that ``event`` happened; for a listener list
    taken earlier (a death is heard by those around the minion before it died)."""
    if not uids:
        return
    if event not in EVENTS:
        raise ValueError(f"unknown broadcast event {event!r}")
    handler = world.handler
    spell_map = world.spell_map
    if world.presence.skip_deaf:
        # A spell without a reaction to the event (SpellHooks.reacting) ignores it.
        hearing = world.presence.reacting_ids(event)
        if not hearing:
            return
        for uid in uids:
            spell = spell_map.get(uid)
            if spell is not None and spell.spell_id in hearing:
                handler(world, spell, event, subject)
        return
    for uid in uids:
        spell = spell_map.get(uid)
        if spell is not None:
            handler(world, spell, event, subject)
