"""What the rules derive from a spell catalogue, worked out once when the catalogue is built.

A :class:`~engine.content.Content` builds its :class:`CatalogueIndex` with its spells (and
``Content.with_spells`` builds a new one), so nothing derived from the catalogue is kept anywhere
else: the modifiers read which spells have a continuous op, the broadcaster which spells react to
what, the spell phase each house's attribute.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from engine.spells.primitives import Effect
from engine.spells.schema import SpellDef

# Stat changes fold in this layer order (docs/spells.md, "Modifier layers").
LAYERS: Final = ("set", "add", "max", "min")
_LAYER_INDEX: Final = MappingProxyType({layer: index for index, layer in enumerate(LAYERS)})

# "modify" and "aura_modify" also index by the stat they change: "moves" (movement asks) or
# another (combat asks), under "<op>:moves" and "<op>:stats".
SPLIT_BY_STAT: Final = ("modify", "aura_modify")

_NO_EFFECTS: Final[Mapping[str, tuple[Effect, ...]]] = MappingProxyType({})
_NO_IDS: Final = frozenset[str]()


def stat_change(effect: Effect) -> tuple[int, str, int]:
    """The (layer index, stat, amount) of a ``modify`` or ``aura_modify`` effect (an unknown
    layer is -1 and never applies)."""
    p = effect.params
    return _LAYER_INDEX.get(p.text("op", "add"), -1), p.text("stat"), p.num("amount")


@dataclass(frozen=True, slots=True)
class CatalogueIndex:
    """Indexes over one catalogue's spells; per-effect entries are keyed by the identity of the
    effects the catalogue holds (they live exactly as long as this index)."""

    continuous: Mapping[str, Mapping[str, tuple[Effect, ...]]]
    """Spell id -> its continuous effects grouped by primitive (spells without any left out)."""
    ops: Mapping[str, frozenset[str]]
    """Continuous primitive (and ``modify:stats``, ``modify:moves``, ...) -> the spell ids."""
    reactions: Mapping[str, frozenset[str]]
    """Spell id -> the events it reacts to: its triggers' and its ``expires_on`` (reacting
    spells only)."""
    reacting: Mapping[str, frozenset[str]]
    """Event -> the ids of the spells that react to it (``reactions`` the other way round)."""
    attributes: Mapping[str, SpellDef]
    """House -> its attribute spell (N4)."""
    who: Mapping[int, str]
    """id(continuous effect) -> its ``who``."""
    changes: Mapping[int, tuple[int, str, int]]
    """id(``modify``/``aura_modify`` effect) -> :func:`stat_change`."""
    words: Mapping[int, str]
    """id(instant effect) -> its words."""

    @staticmethod
    def of(spells: Mapping[str, SpellDef]) -> CatalogueIndex:
        continuous: dict[str, Mapping[str, tuple[Effect, ...]]] = {}
        ops: dict[str, set[str]] = {}
        reactions: dict[str, frozenset[str]] = {}
        reacting: dict[str, set[str]] = {}
        attributes: dict[str, SpellDef] = {}
        who: dict[int, str] = {}
        changes: dict[int, tuple[int, str, int]] = {}
        words: dict[int, str] = {}
        for spell in spells.values():
            by_op: dict[str, tuple[Effect, ...]] = {}
            for effect in spell.effects:
                if effect.primitive.continuous:
                    by_op[effect.op] = (*by_op.get(effect.op, ()), effect)
                    who[id(effect)] = effect.params.text("who", "all")
            if by_op:
                continuous[spell.id] = MappingProxyType(by_op)
            for op, effects in by_op.items():
                ops.setdefault(op, set()).add(spell.id)
                if op in SPLIT_BY_STAT:
                    for effect in effects:
                        changes[id(effect)] = stat_change(effect)
                    stats = {e.params.text("stat") for e in effects}
                    if "moves" in stats:
                        ops.setdefault(f"{op}:moves", set()).add(spell.id)
                    if stats - {"moves"}:
                        ops.setdefault(f"{op}:stats", set()).add(spell.id)
            events = {t.event for t in spell.triggers}
            if spell.expires_on is not None:
                events.add(spell.expires_on)
            if events:
                reactions[spell.id] = frozenset(events)
            for event in events:
                reacting.setdefault(event, set()).add(spell.id)
            if spell.spell_class == "attribute":
                attributes[spell.house] = spell
            instant = (*spell.effects, *spell.boosted_effects)
            for effect in (*instant, *(e for t in spell.triggers for e in t.effects)):
                if not effect.primitive.continuous:
                    words[id(effect)] = effect.describe()
        return CatalogueIndex(
            continuous=MappingProxyType(continuous),
            ops=MappingProxyType({op: frozenset(ids) for op, ids in ops.items()}),
            reactions=MappingProxyType(reactions),
            reacting=MappingProxyType({event: frozenset(ids) for event, ids in reacting.items()}),
            attributes=MappingProxyType(attributes),
            who=MappingProxyType(who),
            changes=MappingProxyType(changes),
            words=MappingProxyType(words),
        )

    def effects_of(self, spell_id: str) -> Mapping[str, tuple[Effect, ...]]:
        """The spell's continuous effects grouped by primitive (empty for an unknown id)."""
        return self.continuous.get(spell_id, _NO_EFFECTS)

    def with_op(self, op: str) -> frozenset[str]:
        """Ids of the spells with a continuous ``op`` effect (``modify:moves`` and the like
        narrow ``modify`` and ``aura_modify`` by the stat they change)."""
        return self.ops.get(op, _NO_IDS)
