"""What every primitive is made of, the keys several share, and the helpers their effects use.

A :class:`Primitive` is one effect op: its keys (checked on load, errors name the key), its words
(for spell cards and ``/spell``), and what it does. An *instant* primitive carries ``apply``,
run when its spell executes or a trigger fires, against the
:class:`~engine.spells.effects.EffectContext` it is handed; a *continuous* one carries none: it
acts only while its spell is active, read by the spell modifiers (its ``reads`` name the
questions that consult it).

The primitives sit in the content layer (the schema validates spell files with them), below the
World: an ``apply`` reaches the World and the rules above it only through its context.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.spells.params import Key, Params, check_keys
from engine.spells.vocab import FLAG_QUALIFIERS, MANA_TYPES, SPEEDS, SPELL_TYPES, WALKS
from engine.state import ActiveSpell, Group, Minion, Side

if TYPE_CHECKING:
    from engine.spells.effects import EffectContext
    from engine.spells.schema import SpellDef

Apply = Callable[["EffectContext", "Effect"], None]

MANA_CHOICES = ("primary", "secondary", *MANA_TYPES)
FILTER_KEYS = (
    Key("owner", "str", default="enemy", choices=("enemy", "friendly", "any")),
    Key("house", "str"),
    Key("spell_type", "str", choices=SPELL_TYPES),
    Key("speed", "str", choices=SPEEDS),
    Key("spell", "str"),
    # A spell holding an effect of any of these ops, whatever else it does (checked against the
    # vocabulary by parse_effect).
    Key("effect", "strs"),
    # A spell with this flag qualifier (N11): "missile", a spell that needs a line of sight.
    Key("qualifier", "str", choices=FLAG_QUALIFIERS),
)
# A summoned monster or a hero either names a unit of data/units.toml or defines its stats here.
UNIT_KEYS = (
    Key("name", "str"),
    Key("hp", "int", minimum=1),
    Key("armor", "int", minimum=0),
    Key("attacks", "int", minimum=0),
    Key("hand", "int", minimum=0),
    Key("missile", "int", minimum=0),
    Key("level", "int", minimum=0),
    Key("walks", "strs", choices=WALKS),
    Key("traits", "strs"),
)


@dataclass(frozen=True, slots=True)
class Primitive:
    """One effect op: its keys, its words and its behaviour, in one place."""

    name: str
    keys: tuple[Key, ...]
    words: Callable[[Params], str]
    apply: Apply | None = None
    # A continuous primitive: the questions (engine.queries) that read it while it is active.
    reads: tuple[str, ...] = ()
    # It acts on the aimed square itself, not on a group standing there.
    on_square: bool = False
    # More checks of a validated table, raising BadKeyError naming the key.
    check: Callable[[Params], None] | None = None

    @property
    def continuous(self) -> bool:
        return self.apply is None

    def validate(self, table: Mapping[str, object]) -> Params:
        params = check_keys(table, self.keys, skip=("do",))
        if self.check is not None:
            self.check(params)
        return params

    def describe(self, params: Params) -> str:
        return self.words(params)


@dataclass(frozen=True, slots=True)
class Effect:
    """One validated effect: the primitive's name and its parameters."""

    op: str
    params: Params
    primitive: Primitive = field(compare=False, repr=False)

    def describe(self) -> str:
        return self.primitive.describe(self.params)

    def to_dict(self) -> dict[str, object]:
        return {"do": self.op, **self.params.to_dict()}


# ---------------------------------------------------------------------------- words


def mana_words(params: Params) -> str:
    mana = params.text("mana", "primary")
    return f"{mana} mana" if mana in MANA_TYPES else f"mana of its house's {mana} type"


def filter_words(params: Params) -> str:
    parts = []
    owner = params.text("owner", "enemy")
    if owner != "any":
        parts.append(owner)
    for key in ("house", "speed", "spell_type"):
        if params.get(key) is not None:
            parts.append(params.text(key))
    if params.get("spell") is not None:
        parts.append(f"'{params.text('spell')}'")
    if params.get("qualifier") is not None:
        parts.append(params.text("qualifier"))
    ops = params.texts("effect")
    if ops:
        parts.append(f"{', '.join(ops[:-1])} or {ops[-1]}" if len(ops) > 1 else ops[0])
    return " ".join(parts)


def unit_words(p: Params) -> str:
    stats = [f"{k} {p.num(k)}" for k in ("hp", "armor", "attacks", "hand", "missile", "level")]
    shown = [
        s
        for s, k in zip(stats, ("hp", "armor", "attacks", "hand", "missile", "level"), strict=True)
        if p.get(k) is not None
    ]
    extra = list(p.texts("walks")) + list(p.texts("traits"))
    return f" ({', '.join(shown + extra)})" if shown or extra else ""


def signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


# ---------------------------------------------------------------------------- shared behaviour


def affected_group(ctx: EffectContext) -> Group | None:
    aim = ctx.aim
    if aim is None:
        return None
    if aim.group is not None:
        return ctx.world.group(aim.group.id)
    if aim.coord is not None and aim.host.kind in ("square", "structure"):
        return ctx.world.group_at(aim.coord)
    return None


def affected_minions(ctx: EffectContext) -> list[int]:
    """Ids of the minions an effect touches, read fresh from the World."""
    aim = ctx.aim
    if aim is None:
        return []
    if aim.minion is not None:
        return [aim.minion.id] if ctx.world.minion(aim.minion.id) is not None else []
    group = affected_group(ctx)
    return [] if group is None else [m.id for m in group.minions]


def with_stats(minion: Minion, stats: dict[str, int]) -> Minion:
    """The minion with some of its integer stats replaced."""
    return minion._replace(
        hp=stats.get("hp", minion.hp),
        max_hp=stats.get("max_hp", minion.max_hp),
        armor=stats.get("armor", minion.armor),
        attacks=stats.get("attacks", minion.attacks),
        hand=stats.get("hand", minion.hand),
        missile=stats.get("missile", minion.missile),
        level=stats.get("level", minion.level),
    )


def matches_filter(caster: Side, spell: ActiveSpell, definition: SpellDef, effect: Effect) -> bool:
    """Does the active ``spell`` pass the effect's :data:`FILTER_KEYS` for ``caster``?"""
    p = effect.params
    owner = p.text("owner", "enemy")
    if owner == "enemy" and spell.owner == caster:
        return False
    if owner == "friendly" and spell.owner != caster:
        return False
    for key, value in (
        ("house", definition.house),
        ("spell_type", definition.type),
        ("speed", definition.speed),
        ("spell", definition.id),
    ):
        wanted = p.get(key)
        if wanted is not None and wanted != value:
            return False
    qualifier = p.get("qualifier")
    if isinstance(qualifier, str) and not definition.target.has(qualifier):
        return False
    ops = p.texts("effect")
    if not ops:
        return True
    # A spell's effects include those its triggers run: Troll Blood heals only at the start
    # of turn, and is still a spell that heals.
    effects = (*definition.effects, *(e for t in definition.triggers for e in t.effects))
    return any(e.op in ops for e in effects)
