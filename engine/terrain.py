"""Terrain rules of the core (digest section 13): entering and the after-start effects.

Concealment (forest) is a targeting rule: ``engine.spells.targeting`` reads the terrain's
``conceals`` flag.

Terrain types are data (``[terrain.*]`` of ``data/realms.toml``). Flight counts as every walk
and spares a minion every terrain effect.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from engine.queries import abilities

if TYPE_CHECKING:
    from engine.content import Content
    from engine.coords import Coord
    from engine.state import Structure
    from engine.world import World

FLIGHT = "flight"
IMMUNE = "terrain_immunity"


def has_walk(walks: Iterable[str] | frozenset[str], walk: str) -> bool:
    walk_set = walks if isinstance(walks, frozenset) else frozenset(walks)
    return not walk or walk in walk_set or FLIGHT in walk_set


def terrain_is_fixed(structure_at: Callable[[Coord], Structure | None], at: Coord) -> bool:
    """Is ``at``'s terrain beyond every spell's reach?

    A structure's square keeps its terrain (D-SP7), and so do a Sanctum's four entrances (G1: they
    are always plains, so no terrain spell can wall a Sanctum in or off).
    """
    if structure_at(at) is not None:
        return True
    return any((s := structure_at(n)) is not None and s.kind == "sanctum" for n in at.neighbours())


def can_enter(content: Content, terrain: str, walks: frozenset[str]) -> bool:
    """May a group whose members all have ``walks`` enter ``terrain``?"""
    return has_walk(walks, content.terrains[terrain].needs)


def apply_after_start(world: World) -> None:
    """Damaging and fatal terrain at "after start of turn" (digest step 3; D-TERRAIN).

    Groups are visited in creation order, members in group order. Flight and terrain immunity
    spare a minion; the walk a fatal terrain names (waterwalk for water) saves it from death.
    """
    terrains = world.content.terrains
    for group in world.groups:
        terrain = terrains[world.terrain[group.coord]]
        if not (terrain.damage or terrain.fatal):
            continue
        for minion in group.minions:
            current = world.group_of(minion.id)
            if current is None:
                continue
            own = abilities(world, current, minion)
            if FLIGHT in own or IMMUNE in own:
                continue
            if terrain.fatal and not has_walk(own, terrain.fatal_unless):
                world.emit(
                    "terrain_fatal",
                    minion=minion.id,
                    group=group.id,
                    at=group.coord.name,
                    terrain=terrain.id,
                    fate=terrain.fatal,
                )
                world.kill_minion(minion.id, "died" if terrain.fatal == "dies" else "removed")
            elif terrain.damage:
                world.damage_minion(minion.id, terrain.damage, terrain.id)
