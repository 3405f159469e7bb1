"""Continuous effects of active spells, as the core asks about them.

Stat changes fold in one fixed layer order (docs/spells.md, "Modifier layers"): for each stat,
first every ``set``, then every ``add``, then every ``max`` (a cap), then every ``min`` (a floor),
each layer in casting order (oldest first); finally no stat drops below 0 and maximum hit points
below 1. A minion hears the spells on itself, its group, its group's square, the structure there
and the globe; ``who`` narrows a spell to its owner's (``friendly``) or the other (``enemy``) side.

Every function accepts a :class:`GameState` with its content, or the turn's World (which brings
its own content).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Final

from engine.coords import Coord
from engine.spells.aim import aim_of_host
from engine.spells.checks import holds_persistent
from engine.spells.index import CatalogueIndex, stat_change
from engine.spells.lookup import Lookup, Source, lookup
from engine.spells.primitives import Effect
from engine.state import GLOBE, ActiveSpell, GameState, Group, HostRef, Minion, Side, Structure

if TYPE_CHECKING:
    from engine.content import Content
    from engine.spells.schema import SpellDef

_STAT_FIELDS = ("max_hp", "armor", "hand", "missile", "attacks", "level")


def content_of(source: Source, content: Content | None) -> Content:
    """The catalogue to read ``source`` with: the one given, else the World's own. A state
    between turns carries none, so it must come with its content."""
    if content is not None:
        return content
    if isinstance(source, GameState | Lookup):
        raise ValueError("a position between turns is read with its content: pass content=")
    return source.content


def _potent(view: Lookup, spell: ActiveSpell, definition: SpellDef, content: Content) -> bool:
    if not definition.requires_persistent:
        return True
    return holds_persistent(view, spell, definition, content)


def spells_touching(
    view: Lookup, group: Group, minion: Minion | None, relevant: frozenset[str]
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
    view: Lookup, group: Group, minion: Minion | None, content: Content, op: str
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
        if not _potent(view, spell, definition, content):
            continue
        for effect in matching:
            if _applies(index, effect, spell, group.owner):
                yield spell, effect


def _auras(view: Lookup, group: Group, content: Content) -> Iterator[tuple[ActiveSpell, Effect]]:
    """``aura_modify`` effects of spells hosted within their radius of the group's square."""
    index = content.index
    auras = index.with_op("aura_modify")
    if not auras:
        return
    for spell in view.spells_among(auras):
        definition = content.spells[spell.spell_id]
        aim = aim_of_host(view, spell.host)
        if aim is None or aim.coord is None or not _potent(view, spell, definition, content):
            continue
        for effect in index.effects_of(spell.spell_id)["aura_modify"]:
            if group.coord.dist(aim.coord) <= effect.params.num("radius", 1) and _applies(
                index, effect, spell, group.owner
            ):
                yield spell, effect


def has_auras(state: Source, content: Content | None = None) -> bool:
    """Whether any active spell changes stats around its host (``aura_modify``): such a spell
    reaches groups that carry no spell themselves."""
    content = content_of(state, content)
    auras = content.index.with_op("aura_modify")
    return bool(auras) and bool(lookup(state).spells_among(auras))


# One stat change: (layer index, casting order, stat, amount).
Change = tuple[int, int, str, int]
Stats = tuple[int, int, int, int, int, int]  # max_hp, armor, hand, missile, attacks, level


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


def effective_minion(
    state: Source, group: Group, minion: Minion, content: Content | None = None
) -> Minion:
    """The minion with every active ``modify`` folded in (hp capped by the new maximum)."""
    content = content_of(state, content)
    view = lookup(state)
    changes = _stat_changes(
        content.index, _effects(view, group, minion, content, _MODIFY), moves=False
    )
    changes += _stat_changes(content.index, _auras(view, group, content), moves=False)
    if not changes:
        return minion
    return _with(minion, _folded(_base(minion), changes))


def effective_stats(
    state: Source, group: Group, content: Content | None = None
) -> tuple[Stats | None, ...]:
    """Per member, its effective (max_hp, armor, hand, missile, attacks, level), or None when no
    spell changes them: :func:`effective_minion` for a whole group, reading the spells the members
    share (the group's, its square's, structure's, the globe's, auras) once."""
    content = content_of(state, content)
    view = lookup(state)
    shared: list[Change] = []
    # N12: a group spell cast with a list of members reaches only those.
    limited: list[tuple[tuple[object, ...], list[Change]]] = []
    own: dict[object, list[Change]] = {}  # minion id -> the changes of the spells on it
    for spell, effect in _effects(view, group, None, content, _MODIFY):
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
    auras = _stat_changes(content.index, _auras(view, group, content), moves=False)
    common = shared + auras
    out: list[Stats | None] = []
    # Members of one kind under the same spells fold alike.
    folded: dict[tuple[Stats, tuple[Change, ...]], Stats] = {}
    for m in group.minions:
        extra = [c for cast_on, reaching in limited if m.id in cast_on for c in reaching]
        extra += own.get(m.id, ())
        if not extra and not common:
            out.append(None)
            continue
        changes = [*shared, *extra, *auras] if extra else common
        key = (_base(m), tuple(extra))
        stats = folded.get(key)
        if stats is None:
            stats = folded[key] = _folded(key[0], changes)
        out.append(stats)
    return tuple(out)


def effective_group(
    state: Source, group: Group, content: Content | None = None
) -> tuple[Minion, ...]:
    """Every member with its effective stats (see :func:`effective_stats`)."""
    return with_effective(group.minions, effective_stats(state, group, content))


def group_moves(state: Source, group: Group, content: Content | None = None) -> int:
    """Squares the group may move this turn (1, changed by ``modify stat = "moves"``)."""
    content = content_of(state, content)
    view = lookup(state)
    found = [*_effects(view, group, None, content, _MODIFY), *_auras(view, group, content)]
    changes = _stat_changes(content.index, found, moves=True)
    if not changes:
        return 1
    moves = [1]
    _fold(moves, _MOVES_INDEX, changes)
    return moves[0]


_HOLD: Final = "hold"
_GRANT: Final = "grant"


def can_move(state: Source, group: Group, content: Content | None = None) -> bool:
    """False while a ``hold`` reaches the group (on it, a member, its square or structure)."""
    content = content_of(state, content)
    view = lookup(state)
    return next(iter(_effects(view, group, None, content, _HOLD)), None) is None


def can_join(state: Source, a: Group, b: Group, content: Content | None = None) -> bool:
    """False when either group carries a ``forbid_join`` (Ostracize)."""
    content = content_of(state, content)
    view = lookup(state)
    forbidding = content.index.with_op("forbid_join")
    for group in (a, b):
        for spell in view.spells_on(HostRef.group(group.id)):
            if spell.spell_id in forbidding:
                return False
    return True


def training_blocked(state: Source, at: Coord, content: Content | None = None) -> bool:
    """True when the group standing on ``at`` carries a ``forbid_join``: nobody trains there."""
    view = lookup(state)
    group = view.group_at(at)
    return group is not None and not can_join(state, group, group, content)


def abilities(
    state: Source,
    group: Group,
    minion: Minion,
    content: Content | None = None,
) -> frozenset[str]:
    """The minion's walks plus every ability granted to it (flight, terrain_immunity, ...)."""
    content = content_of(state, content)
    view = lookup(state)
    granted = {e.params.text("ability") for _, e in _effects(view, group, minion, content, _GRANT)}
    return minion.walks | frozenset(granted)


def group_walks(state: Source, group: Group, content: Content | None = None) -> frozenset[str]:
    """Abilities every member has (a group enters a terrain only if every member can)."""
    sets = [abilities(state, group, m, content) for m in group.minions]
    if not sets:
        return frozenset()
    common = set(sets[0])
    for s in sets[1:]:
        common &= s
    return frozenset(common)


def initiative_lock(state: Source, content: Content | None = None) -> Side | None:
    """The side a ``lock_initiative`` spell holds initiative for (the newest wins), if any (I6)."""
    content = content_of(state, content)
    locks = content.index.with_op("lock_initiative")
    found = lookup(state).spells_among(locks)
    return found[-1].owner if found else None


def produces_mana(state: Source, structure: Structure, content: Content | None = None) -> bool:
    """False when a ``deny_production`` stops the structure's mana this turn (Embargo)."""
    if structure.kind == "sanctum":
        return True
    content = content_of(state, content)
    view = lookup(state)
    denying = content.index.with_op("deny_production")
    if any(s.spell_id in denying for s in view.spells_on(HostRef.structure(structure.id))):
        return False
    copies: dict[Side, int] = {}
    for spell in view.spells_on(GLOBE):
        if spell.spell_id in denying:
            copies[spell.owner] = copies.get(spell.owner, 0) + 1
    group = view.group_at(structure.coord)
    recruits = 0
    if group is not None and group.owner == structure.owner:
        recruits = sum(1 for m in group.minions if m.kind == "recruit")
    return all(structure.owner == side or recruits >= count for side, count in copies.items())


def is_invisible(
    state: Source, group: Group, minion: Minion, content: Content | None = None
) -> bool:
    return "invisible" in abilities(state, group, minion, content)


def bound_spells(
    state: Source, side: Side, content: Content | None = None
) -> list[tuple[ActiveSpell, str]]:
    """(carrier, bound spell id) for every bound spell ``side`` may cast (N5)."""
    content = content_of(state, content)
    binding = content.index.with_op("bind")
    out = []
    for spell in lookup(state).spells_among(binding):
        if spell.owner is side:
            for effect in content.index.effects_of(spell.spell_id)["bind"]:
                out.append((spell, effect.params.text("spell")))
    return out
