"""Continuous effects of active spells, as the core asks about them.

Stat changes fold in one fixed layer order (docs/spells.md, "Modifier layers"): for each stat,
first every ``set``, then every ``add``, then every ``max`` (a cap), then every ``min`` (a floor),
each layer in casting order (oldest first); finally no stat drops below 0 and maximum hit points
below 1. A minion hears the spells on itself, its group, its group's square, the structure there
and the globe; ``who`` narrows a spell to its owner's (``friendly``) or the other (``enemy``) side.

Every function reads a :class:`~engine.position.Position` (the turn's World, or a
:class:`~engine.position.PositionIndex` between turns), which brings its own content. The core
asks through :mod:`engine.queries`, whose functions carry the same names and answer the same
questions, faster when no spell can change the answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Final

from engine.coords import Coord
from engine.position import Position, PositionIndex
from engine.spells.aim import aim_of_host
from engine.spells.checks import holds_persistent
from engine.spells.index import CatalogueIndex, stat_change
from engine.spells.primitives import Effect
from engine.state import GLOBE, ActiveSpell, Group, HostRef, Minion, Side, Structure

if TYPE_CHECKING:
    from engine.content import Content

_STAT_FIELDS = ("max_hp", "armor", "hand", "missile", "attacks", "level")


def spells_touching(
    view: Position, group: Group, minion: Minion | None, relevant: frozenset[str]
) -> Iterator[ActiveSpell]:
    """Active spells that reach a minion (or a whole group), in the documented host order;
    on the globe only those whose id is in ``relevant``."""
    hosting = view.minion_hosts()
    if minion is not None:
        if minion.id in hosting:
            yield from view.spells_on(HostRef.minion(minion.id))
    else:
        for m in group.minions:
            if m.id in hosting:
                yield from view.spells_on(HostRef.minion(m.id))
    yield from view.spells_on(HostRef.group(group.id))
    yield from view.spells_on(HostRef.square(group.coord))
    structure = view.structure_at(group.coord)
    if structure is not None:
        yield from view.spells_on(HostRef.structure(structure.id))
    yield from view.globe_among(relevant)


def _applies(index: CatalogueIndex, effect: Effect, spell: ActiveSpell, owner: object) -> bool:
    who = index.who.get(id(effect))
    if who is None:
        who = effect.params.text("who", "all")
    if who == "friendly":
        return owner == spell.owner
    if who == "enemy":
        return owner != spell.owner
    return True


def _effects(
    view: Position, group: Group, minion: Minion | None, content: Content, op: str
) -> Iterator[tuple[ActiveSpell, Effect]]:
    spells, index = content.spells, content.index
    relevant = index.with_op(op)
    for spell in spells_touching(view, group, minion, relevant):
        if spell.spell_id not in relevant:
            continue
        definition = spells[spell.spell_id]
        matching = index.effects_of(spell.spell_id).get(op, ())
        if not matching:
            continue
        if minion is not None and spell.host.kind == "group":
            # N12: a group spell reaches the members it was cast on, not later joiners.
            members = spell.get("members")
            if isinstance(members, tuple) and minion.id not in members:
                continue
        if not holds_persistent(view, spell, definition):
            continue
        for effect in matching:
            if _applies(index, effect, spell, group.owner):
                yield spell, effect


# One aura: the spell, its ``aura_modify`` effect, the square it radiates from, its radius.
AuraSource = tuple[ActiveSpell, Effect, Coord, int]
_AURAS_KEY: Final = ("aura_sources",)
_AURA_WARD: Final = "aura_ward"


def _aura_sources(view: Position, content: Content) -> tuple[AuraSource, ...]:
    """Every potent ``aura_modify`` effect with its host's square, in casting order. Every
    group asks the same while nothing moves: the position's placement memo keeps the answer,
    unless an aura's potency reads more than the groups and spells (a persistent requirement
    may read terrain or structures) during a turn, when it is worked out afresh."""
    memo = view.placement_memo()
    found = memo.get(_AURAS_KEY)
    if found is not None:
        return found  # type: ignore[return-value]
    index = content.index
    sources: list[AuraSource] = []
    steady = True
    for spell in view.spells_among(index.with_op("aura_modify")):
        definition = content.spells[spell.spell_id]
        if definition.requires_persistent:
            steady = False
        aim = aim_of_host(view, spell.host)
        if aim is None or aim.coord is None or not holds_persistent(view, spell, definition):
            continue
        for effect in index.effects_of(spell.spell_id)["aura_modify"]:
            sources.append((spell, effect, aim.coord, effect.params.num("radius", 1)))
    out = tuple(sources)
    if steady or isinstance(view, PositionIndex):
        memo[_AURAS_KEY] = out
    return out


def _auras(
    view: Position, group: Group, content: Content, warded: int | None = None
) -> Iterator[tuple[ActiveSpell, Effect]]:
    """``aura_modify`` effects of spells hosted within their radius of the group's square. With
    ``warded`` (an ``aura_ward``'s ``most``), only the first that many spells an enemy minion
    carries reach it, oldest first."""
    if not content.index.with_op("aura_modify"):
        return
    index, at, owner = content.index, group.coord, group.owner
    borne: list[int] = []
    for spell, effect, source, radius in _aura_sources(view, content):
        if at.dist(source) <= radius and _applies(index, effect, spell, owner):
            if warded is not None and _minion_borne(spell, owner):
                if spell.uid not in borne:
                    borne.append(spell.uid)
                if len(borne) > warded:
                    continue
            yield spell, effect


def _minion_borne(spell: ActiveSpell, owner: object) -> bool:
    """An enemy spell carried by a minion: what an ``aura_ward`` keeps out."""
    return spell.host.kind == "minion" and spell.owner != owner


def _aura_warded(view: Position, group: Group, content: Content) -> dict[object, int]:
    """Member id -> the ``most`` of the strictest ``aura_ward`` reaching it: the members it was
    cast on (N12, a later joiner is not warded), or the one minion it sits on. Empty when no
    enemy minion's aura reaches the group, so that the common case asks nothing more."""
    wards = content.index.with_op(_AURA_WARD)
    if not wards or not view.spells_among(wards):
        return {}
    if not any(_minion_borne(spell, group.owner) for spell, _ in _auras(view, group, content)):
        return {}
    found: dict[object, int] = {}
    for spell, effect in _effects(view, group, None, content, _AURA_WARD):
        most = effect.params.num("most", 0)
        members = spell.get("members") if spell.host.kind == "group" else None
        if spell.host.kind == "minion":
            reached: Iterable[object] = (spell.host.ref,)
        elif isinstance(members, tuple):
            reached = members
        else:
            reached = [m.id for m in group.minions]
        for member in reached:
            found[member] = min(most, found.get(member, most))
    return found


def has_auras(pos: Position) -> bool:
    """Whether any active spell changes stats around its host (``aura_modify``): such a spell
    reaches groups that carry no spell themselves."""
    auras = pos.content.index.with_op("aura_modify")
    return bool(auras) and bool(pos.spells_among(auras))


# One stat change: (layer index, casting order, stat, amount).
Change = tuple[int, int, str, int]
Stats = tuple[int, int, int, int, int, int]  # max_hp, armor, hand, missile, attacks, level
# A base and the changes folded into it, in layer order: (layer, stat, amount) each.
Fold = tuple[Stats, tuple[tuple[int, str, int], ...]]


def _fold(values: list[int], index: dict[str, int], changes: list[Change]) -> None:
    """Every change to a stat named in ``index`` into ``values``, in layer order, each layer in
    casting order (a stable sort keeps a spell's own effects in their written order); then the
    floor of 0."""
    for layer, _, stat, amount in sorted(changes, key=_layer_and_age):
        i = index.get(stat)
        if i is None:
            continue
        if layer == 0:
            values[i] = amount
        elif layer == 1:
            values[i] += amount
        elif layer == 2:
            values[i] = min(values[i], amount)
        elif layer == 3:
            values[i] = max(values[i], amount)
    for i, value in enumerate(values):
        if value < 0:
            values[i] = 0


def _layer_and_age(change: Change) -> tuple[int, int]:
    return change[0], change[1]


_MODIFY: Final = "modify"


def _stat_changes(
    index: CatalogueIndex, pairs: Iterable[tuple[ActiveSpell, Effect]], moves: bool
) -> list[Change]:
    """The changes of ``moves`` alone, or of every other stat."""
    out = []
    changes = index.changes
    for spell, effect in pairs:
        change = changes.get(id(effect))
        layer, stat, amount = stat_change(effect) if change is None else change
        if (stat == "moves") is moves:
            out.append((layer, spell.uid, stat, amount))
    return out


def _with(minion: Minion, stats: Stats) -> Minion:
    max_hp, armor, hand, missile, attacks, level = stats
    return minion._replace(
        hp=min(minion.hp, max_hp),
        max_hp=max_hp,
        armor=armor,
        hand=hand,
        missile=missile,
        attacks=attacks,
        level=level,
    )


def with_effective(
    minions: tuple[Minion, ...], stats: tuple[Stats | None, ...]
) -> tuple[Minion, ...]:
    """The minions with their effective stats from :func:`effective_stats` (None leaves one
    as it is; hit points are capped by the new maximum)."""
    return tuple(m if s is None else _with(m, s) for m, s in zip(minions, stats, strict=True))


_STAT_INDEX: Final = {name: index for index, name in enumerate(_STAT_FIELDS)}
_MOVES_INDEX: Final = {"moves": 0}


def _folded(base: Stats, changes: list[Change]) -> Stats:
    """``base`` (in :data:`Stats` order) with the changes folded in; max_hp at least 1."""
    values = list(base)
    _fold(values, _STAT_INDEX, changes)
    max_hp, armor, hand, missile, attacks, level = values
    # A raised damage value sharpens an attack the minion has and never gives one it lacks (only a
    # `set` does): Guiding Light's archers shoot harder, its swordsmen still do not shoot (G7).
    if base[2] <= 0 and not _sets(changes, "hand"):
        hand = 0
    if base[3] <= 0 and not _sets(changes, "missile"):
        missile = 0
    return (max(1, max_hp), armor, hand, missile, attacks, level)


def _sets(changes: list[Change], stat: str) -> bool:
    return any(layer == 0 and changed == stat for layer, _, changed, _ in changes)


def _base(minion: Minion) -> Stats:
    return (minion.max_hp, minion.armor, minion.hand, minion.missile, minion.attacks, minion.level)


def effective_minion(pos: Position, group: Group, minion: Minion) -> Minion:
    """The minion with every active ``modify`` folded in (hp capped by the new maximum)."""
    content = pos.content
    changes = _stat_changes(
        content.index, _effects(pos, group, minion, content, _MODIFY), moves=False
    )
    warded = _aura_warded(pos, group, content).get(minion.id)
    changes += _stat_changes(content.index, _auras(pos, group, content, warded), moves=False)
    if not changes:
        return minion
    return _with(minion, _folded(_base(minion), changes))


def effective_stats(
    pos: Position, group: Group, folds: dict[Fold, Stats] | None = None
) -> tuple[Stats | None, ...] | None:
    """Per member, its effective (max_hp, armor, hand, missile, attacks, level), or None when no
    spell changes them (None for the whole group when no spell changes any member):
    :func:`effective_minion` for a whole group, reading the spells the members share (the
    group's, its square's, structure's, the globe's, auras) once. ``folds`` keeps the folds of
    members every spell reaching the group reaches alike, for the next group (the caller's
    memo)."""
    content = pos.content
    shared: list[Change] = []
    # N12: a group spell cast with a list of members reaches only those.
    limited: list[tuple[tuple[object, ...], list[Change]]] = []
    own: dict[object, list[Change]] = {}  # minion id -> the changes of the spells on it
    for spell, effect in _effects(pos, group, None, content, _MODIFY):
        found = _stat_changes(content.index, ((spell, effect),), moves=False)
        host = spell.host
        members = spell.get("members") if host.kind == "group" else None
        if host.kind == "minion":
            own.setdefault(host.ref, []).extend(found)
        elif isinstance(members, tuple):
            limited.append((members, found))
        else:
            shared += found
    # A spell's modify effects come before its aura effects, as for a single minion.
    auras = _stat_changes(content.index, _auras(pos, group, content), moves=False)
    warded = _aura_warded(pos, group, content)
    # The auras reaching a member under each ``most`` of the wards on the group.
    kept_out: dict[int, list[Change]] = {
        most: _stat_changes(content.index, _auras(pos, group, content, most), moves=False)
        for most in set(warded.values())
    }
    common = shared + auras
    if not limited and not own and not warded:
        # Every member hears the same spells: each kind of member folds once.
        if not common:
            return None
        # A fold depends only on the base and the changes in layer order (casting order sets
        # that order, not the result): the turn's groups under copies of one spell share it.
        alike = {} if folds is None else folds
        ordered = tuple([(c[0], c[2], c[3]) for c in sorted(common, key=_layer_and_age)])
        shared_out = []
        for m in group.minions:
            fold: Fold = ((m.max_hp, m.armor, m.hand, m.missile, m.attacks, m.level), ordered)
            stats = alike.get(fold)
            if stats is None:
                stats = alike[fold] = _folded(fold[0], common)
            shared_out.append(stats)
        return tuple(shared_out)
    out: list[Stats | None] = []
    # Members of one kind under the same spells fold alike.
    folded: dict[tuple[Stats, tuple[Change, ...], int | None], Stats] = {}
    for m in group.minions:
        extra = [c for cast_on, reaching in limited if m.id in cast_on for c in reaching]
        extra += own.get(m.id, ())
        most = warded.get(m.id)
        reaching_auras = auras if most is None else kept_out[most]
        if not extra and not shared and not reaching_auras:
            out.append(None)
            continue
        changes = [*shared, *extra, *reaching_auras]
        key = (_base(m), tuple(extra), most)
        stats = folded.get(key)
        if stats is None:
            stats = folded[key] = _folded(key[0], changes)
        out.append(stats)
    return None if all(s is None for s in out) else tuple(out)


def effective_group(pos: Position, group: Group) -> tuple[Minion, ...]:
    """Every member with its effective stats (see :func:`effective_stats`)."""
    stats = effective_stats(pos, group)
    return group.minions if stats is None else with_effective(group.minions, stats)


def moves(pos: Position, group: Group) -> int:
    """Squares the group may move this turn (1, changed by ``modify stat = "moves"``)."""
    content = pos.content
    # The group moves as one: an enemy minion's aura is kept out only as far as every member
    # is warded.
    warded = _aura_warded(pos, group, content)
    whole = None
    if warded and all(m.id in warded for m in group.minions):
        whole = max(warded[m.id] for m in group.minions)
    found = [*_effects(pos, group, None, content, _MODIFY), *_auras(pos, group, content, whole)]
    changes = _stat_changes(content.index, found, moves=True)
    if not changes:
        return 1
    squares = [1]
    _fold(squares, _MOVES_INDEX, changes)
    return squares[0]


_HOLD: Final = "hold"
_GRANT: Final = "grant"


def can_move(pos: Position, group: Group) -> bool:
    """Pass I check 1: no immobile member, and no ``hold`` reaching the group (on it, a member,
    its square or structure)."""
    if any("immobile" in m.traits for m in group.minions):
        return False
    return next(iter(_effects(pos, group, None, pos.content, _HOLD)), None) is None


def can_join(pos: Position, a: Group, b: Group) -> bool:
    """False when either group carries a ``forbid_join`` (Ostracize)."""
    forbidding = pos.content.index.with_op("forbid_join")
    for group in (a, b):
        for spell in pos.spells_on(HostRef.group(group.id)):
            if spell.spell_id in forbidding:
                return False
    return True


def training_blocked(pos: Position, at: Coord) -> bool:
    """True when the group standing on ``at`` carries a ``forbid_join``: nobody trains there."""
    group = pos.group_at(at)
    return group is not None and not can_join(pos, group, group)


def abilities(pos: Position, group: Group, minion: Minion) -> frozenset[str]:
    """The minion's walks plus every ability granted to it (flight, terrain_immunity, ...)."""
    granted = {
        e.params.text("ability") for _, e in _effects(pos, group, minion, pos.content, _GRANT)
    }
    return minion.walks | frozenset(granted)


def walks(pos: Position, group: Group) -> frozenset[str]:
    """Abilities every member has (a group enters a terrain only if every member can)."""
    sets = [abilities(pos, group, m) for m in group.minions]
    if not sets:
        return frozenset()
    common = set(sets[0])
    for s in sets[1:]:
        common &= s
    return frozenset(common)


def initiative_lock(pos: Position) -> Side | None:
    """The side a ``lock_initiative`` spell holds initiative for (the newest wins), if any (I6)."""
    found = pos.spells_among(pos.content.index.with_op("lock_initiative"))
    return found[-1].owner if found else None


def produces_mana(pos: Position, structure: Structure) -> bool:
    """False when a ``deny_production`` stops the structure's mana this turn (Embargo)."""
    if structure.kind == "sanctum":
        return True
    denying = pos.content.index.with_op("deny_production")
    if any(s.spell_id in denying for s in pos.spells_on(HostRef.structure(structure.id))):
        return False
    copies: dict[Side, int] = {}
    for spell in pos.spells_on(GLOBE):
        if spell.spell_id in denying:
            copies[spell.owner] = copies.get(spell.owner, 0) + 1
    group = pos.group_at(structure.coord)
    recruits = 0
    if group is not None and group.owner == structure.owner:
        recruits = sum(1 for m in group.minions if m.kind == "recruit")
    return all(structure.owner == side or recruits >= count for side, count in copies.items())


def is_invisible(pos: Position, group: Group, minion: Minion) -> bool:
    return "invisible" in abilities(pos, group, minion)


def bound_spells(pos: Position, side: Side) -> list[tuple[ActiveSpell, str]]:
    """(carrier, bound spell id) for every bound spell ``side`` may cast (N5)."""
    index = pos.content.index
    out = []
    for spell in pos.spells_among(index.with_op("bind")):
        if spell.owner is side:
            for effect in index.effects_of(spell.spell_id)["bind"]:
                out.append((spell, effect.params.text("spell")))
    return out
