"""The core's questions to the spell system (``engine.spells.modifiers``), in one place.

Each answers from base values when no spell is active (the common case and the fast one), and
otherwise asks the spell modifiers, which fold every active spell in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.state import GameState, Group, Minion, Side, Structure

if TYPE_CHECKING:
    from engine.coords import Coord
    from engine.world import World


def _quiet(state: GameState | World, *groups: Group) -> bool:
    """True when no active spell can change the answer: none at all, or (during a turn) none
    reaching the groups asked about (on them, their minions, square, structure or the globe)."""
    if isinstance(state, GameState):
        return not state.active_spells
    if not state.spell_map:
        return True
    return bool(groups) and not any(state.touched(g) for g in groups)


def walks(state: GameState | World, group: Group) -> frozenset[str]:
    """The walks every member of the group has (a group enters a terrain only if all can)."""
    if _quiet(state, group):
        common = set(group.minions[0].walks)
        for m in group.minions[1:]:
            common &= m.walks
        return frozenset(common)
    from engine.spells.modifiers import group_walks

    return group_walks(state, group)


def abilities(state: GameState | World, group: Group, minion: Minion) -> frozenset[str]:
    """The minion's walks plus abilities spells grant it (flight, terrain_immunity, ...)."""
    if _quiet(state, group):
        return minion.walks
    from engine.spells.modifiers import abilities as granted

    return granted(state, group, minion)


def moves(state: GameState | World, group: Group) -> int:
    if _quiet(state, group):
        return 1
    from engine.spells.modifiers import group_moves

    return group_moves(state, group)


def movable(state: GameState | World, group: Group) -> bool:
    """Pass I check 1: no immobile member and no spell holding the group."""
    if any("immobile" in m.traits for m in group.minions):
        return False
    if _quiet(state, group):
        return True
    from engine.spells.modifiers import can_move

    return can_move(state, group)


def spells_allow_join(state: GameState | World, a: Group, b: Group) -> bool:
    if _quiet(state, a, b):
        return True
    from engine.spells.modifiers import can_join

    return can_join(state, a, b)


def training_blocked(state: GameState | World, at: Coord) -> bool:
    if _quiet(state):
        return False
    from engine.spells.modifiers import training_blocked as blocked

    return blocked(state, at)


def initiative_lock(state: GameState | World) -> Side | None:
    if _quiet(state):
        return None
    from engine.spells.modifiers import initiative_lock as lock

    return lock(state)


def produces_mana(state: GameState | World, structure: Structure) -> bool:
    if _quiet(state):
        return True
    from engine.spells.modifiers import produces_mana as produces

    return produces(state, structure)


def effective_minion(state: GameState | World, group: Group, minion: Minion) -> Minion:
    if _quiet(state, group):
        return minion
    from engine.spells.modifiers import effective_minion as effective

    return effective(state, group, minion)
