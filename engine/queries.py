"""The core's questions to the spell system (``engine.spells.modifiers``), in one place.

Each answers from base values when no active spell can change the answer (the common case and the
fast one), and otherwise asks the spell modifiers, which fold every active spell in. Each modifier
reads only the spells with a continuous effect of its own primitives (``content.index.with_op``):
stats and moves read ``modify`` and ``aura_modify``, abilities and walks ``grant``, check 1 of
movement ``hold``, joining and training ``forbid_join``, initiative ``lock_initiative``, mana
``deny_production``. Such a spell changes a group's answer only from the group itself, a member,
its square, the structure there or the globe; an aura (``aura_modify``) reaches further, so while
one is active every group is asked about.

Each function carries the name of the modifier it fronts and answers the same question with the
same signature, but :func:`producing`, which asks ``produces_mana`` of a list of structures at
once; both read a :class:`~engine.position.Position`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from operator import attrgetter
from typing import TYPE_CHECKING, Final

from engine.position import Position, PositionIndex
from engine.spells import modifiers
from engine.spells.presence import Reach
from engine.state import Group, Minion, Side, Structure
from engine.world import World

if TYPE_CHECKING:
    from engine.content import Content
    from engine.coords import Coord
    from engine.spells.modifiers import Stats

# "modify" and "aura_modify" split by the stat they change: "moves" (asked by movement) or
# another (asked by combat); each modifier ignores the other kind.
_STATS: Final = ("modify:stats",)
_AURAS: Final = ("aura_modify:stats",)
_MOVES: Final = ("modify:moves",)
_MOVE_AURAS: Final = ("aura_modify:moves",)
_GRANT: Final = ("grant",)
_HOLD: Final = ("hold",)
_JOIN: Final = ("forbid_join",)
_LOCK: Final = ("lock_initiative",)
_DENY: Final = ("deny_production",)
# The keys of what this module keeps in ``World.presence.memo``.
_STATS_KEY: Final = "effective_stats"
_CACHEABLE_KEY: Final = ("stats_cacheable",)
_FOLDS_KEY: Final = ("stat_folds",)
_REACH_KEY: Final = "reach"
_STRUCTURE_AT_KEY: Final = ("structure_at",)
# A memo miss (the memo holds None for "no such spell active").
_UNKNOWN: Final = object()
# A member's part of an effective-stats key: its id and base stats, read in C.
_MEMBER_STATS: Final = attrgetter("id", "max_hp", "armor", "hand", "missile", "attacks", "level")


def _spell_ids(content: Content, ops: tuple[str, ...]) -> frozenset[str]:
    """Ids of the catalogue's spells with a continuous effect of one of ``ops``."""
    if len(ops) == 1:
        return content.index.with_op(ops[0])
    return frozenset().union(*(content.index.with_op(op) for op in ops))


def _quiet(pos: Position, ops: tuple[str, ...], groups: Iterable[Group] = ()) -> bool:
    """True when no active spell can change the answer: none with an effect of ``ops`` at all,
    or (during a turn) none on the groups asked about, their members, squares or structures, or
    the globe."""
    if not isinstance(pos, World):
        return _index_quiet(pos, ops, groups)
    if not pos.spell_map:
        return True
    presence = pos.presence
    # Where the spells of ``ops`` sit is asked for every group that moves or fights: it is kept
    # in the memo (forgotten whenever the active spells change), a lookup instead of two calls.
    memo = presence.memo
    key = (_REACH_KEY, ops)
    reach: Reach | None = memo.get(key, _UNKNOWN)  # type: ignore[assignment]
    if reach is _UNKNOWN:
        reach = memo[key] = presence.reach(_spell_ids(pos.content, ops))
    if reach is None:
        return True
    if not groups:
        return False
    # One or two groups: a loop, not a generator built per question.
    for g in groups:  # noqa: SIM110
        if presence.reached(reach, g):
            return False
    return True


def _index_quiet(pos: Position, ops: tuple[str, ...], groups: Iterable[Group]) -> bool:
    """:func:`_quiet` between turns: where the spells of ``ops`` sit is worked out once per
    :class:`~engine.position.PositionIndex` (kept in its memo), as the World keeps it per set
    of active spells."""
    spells = pos.spells_among(_spell_ids(pos.content, ops))
    if not spells:
        return True
    if not groups:
        return False
    memo = pos.memo if isinstance(pos, PositionIndex) else {}
    key = (_REACH_KEY, ops)
    reach: Reach | None = memo.get(key)  # type: ignore[assignment]
    if reach is None:
        reach = Reach()
        for spell in spells:
            reach.add(spell.host)
        memo[key] = reach
    structure_at: Mapping[Coord, int] | None = memo.get(_STRUCTURE_AT_KEY)  # type: ignore[assignment]
    if structure_at is None:
        structure_at = memo[_STRUCTURE_AT_KEY] = {s.coord: s.id for s in pos.structures}
    for g in groups:  # noqa: SIM110
        if reach.touches(g, structure_at):
            return False
    return True


def _stats_quiet(pos: Position, group: Group, moves: bool = False) -> bool:
    """No spell changes the group's stats (or its ``moves``): an active aura may reach it from
    afar, other spells from its own hosts."""
    if not _quiet(pos, _MOVE_AURAS if moves else _AURAS):
        return False
    return _quiet(pos, _MOVES if moves else _STATS, (group,))


def walks(pos: Position, group: Group) -> frozenset[str]:
    """The walks every member of the group has (a group enters a terrain only if all can)."""
    if _quiet(pos, _GRANT, (group,)):
        common = set(group.minions[0].walks)
        for m in group.minions[1:]:
            common &= m.walks
        return frozenset(common)
    return modifiers.walks(pos, group)


def abilities(pos: Position, group: Group, minion: Minion) -> frozenset[str]:
    """The minion's walks plus abilities spells grant it (flight, terrain_immunity, ...)."""
    if _quiet(pos, _GRANT, (group,)):
        return minion.walks
    return modifiers.abilities(pos, group, minion)


def moves(pos: Position, group: Group) -> int:
    """Squares the group may move this turn."""
    if _stats_quiet(pos, group, moves=True):
        return 1
    return modifiers.moves(pos, group)


def can_move(pos: Position, group: Group) -> bool:
    """Pass I check 1: no immobile member and no spell holding the group."""
    # A loop, not any() over a generator: pass I asks this of every group that moves.
    for m in group.minions:
        if "immobile" in m.traits:
            return False
    if _quiet(pos, _HOLD, (group,)):
        return True
    return modifiers.can_move(pos, group)


def can_join(pos: Position, a: Group, b: Group) -> bool:
    """False when a spell forbids one of the groups to join another."""
    if _quiet(pos, _JOIN, (a, b)):
        return True
    return modifiers.can_join(pos, a, b)


def training_blocked(pos: Position, at: Coord) -> bool:
    if _quiet(pos, _JOIN):
        return False
    return modifiers.training_blocked(pos, at)


def initiative_lock(pos: Position) -> Side | None:
    if _quiet(pos, _LOCK):
        return None
    return modifiers.initiative_lock(pos)


def producing(pos: Position, structures: Iterable[Structure]) -> list[Structure]:
    """The structures whose mana no spell denies (``modifiers.produces_mana``): whether a
    denying spell is active at all is asked once, not once per structure."""
    if _quiet(pos, _DENY):
        return list(structures)
    return [s for s in structures if modifiers.produces_mana(pos, s)]


def effective_minion(pos: Position, group: Group, minion: Minion) -> Minion:
    if _stats_quiet(pos, group):
        return minion
    return modifiers.effective_minion(pos, group, minion)


def effective_stats(pos: Position, group: Group) -> tuple[Stats | None, ...] | None:
    """Per member, its effective (max_hp, armor, hand, missile, attacks, level) or None when no
    spell changes them; None for the whole group when no spell changes any member."""
    if _stats_quiet(pos, group):
        return None
    if not isinstance(pos, World) or not _stats_cacheable(pos):
        return modifiers.effective_stats(pos, group)
    # Without auras and persistent requirements the answer depends only on the active spells (the
    # presence's memo is emptied when they change), the group's id, square, owner and structure
    # and its members' ids and base stats: not on hit points, so one fight's losses do not make
    # the next fight ask again.
    structure = pos.structure_at(group.coord)
    key = (
        _STATS_KEY,
        group.id,
        group.coord,
        group.owner,
        None if structure is None else structure.id,
        tuple(map(_MEMBER_STATS, group.minions)),
    )
    memo = pos.presence.memo
    if key in memo:
        return memo[key]  # type: ignore[return-value]
    folds = memo.get(_FOLDS_KEY)
    if folds is None:
        folds = memo[_FOLDS_KEY] = {}
    found = memo[key] = modifiers.effective_stats(pos, group, folds)  # type: ignore[arg-type]
    return found


def effective_group(pos: Position, group: Group) -> tuple[Minion, ...]:
    """Every member with its effective stats (:func:`effective_minion` for the whole group)."""
    per_member = effective_stats(pos, group)
    if per_member is None:
        return group.minions
    return modifiers.with_effective(group.minions, per_member)


def _stats_cacheable(world: World) -> bool:
    """No active aura, and no stat-changing spell whose potency depends on the position (worked
    out once per set of active spells)."""
    memo = world.presence.memo
    found = memo.get(_CACHEABLE_KEY)
    if found is None:
        ids = _spell_ids(world.content, _STATS)
        spells = world.content.spells
        found = memo[_CACHEABLE_KEY] = world.presence.reach(
            _spell_ids(world.content, _AURAS)
        ) is None and not any(
            s.spell_id in ids and spells[s.spell_id].requires_persistent
            for s in world.spell_map.values()
        )
    return bool(found)
