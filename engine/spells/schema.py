"""Spell definitions (:class:`SpellDef`) and their validation.

One spell is one TOML table (``[[spell]]`` in ``data/spells/<house>.toml`` or in a scenario file).
:func:`parse_spell` checks every key and raises :class:`SpellDataError` naming the file, the spell
and the key. The format is documented in ``engine/spells/README.md``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.spells.params import BadKeyError
from engine.spells.primitives import Effect, parse_effect
from engine.spells.requirements import Requirement, parse_requirement
from engine.spells.vocab import (
    ACTIVE_TYPES,
    ALLEGIANCES,
    CLASSES,
    EVENTS,
    FLAG_QUALIFIERS,
    GROUP_KINDS,
    HOUSES,
    INSTANT_TYPES,
    MINION_KINDS,
    NUMBER_QUALIFIERS,
    SPEEDS,
    SPELL_TYPES,
    TARGET_KINDS,
)
from engine.state import Mana
from engine.tables import Table, TableError

_ID = re.compile(r"^[a-z][a-z0-9_]*$")
_COST = re.compile(r"^(\d+)\+(\d+)$")


class SpellDataError(TableError):
    """A bad spell table; the message names the file, the spell and the key."""

    @staticmethod
    def locate(file: str, entry: str | None, key: str | None) -> str:
        return f"{file}: spell {entry!r}: key {key!r}"


@dataclass(frozen=True, slots=True)
class Cost:
    """Mana cost: primary + secondary of the spell's house (S1)."""

    primary: int
    secondary: int

    @property
    def total(self) -> int:
        return self.primary + self.secondary

    def __str__(self) -> str:
        return f"{self.primary}+{self.secondary}"


@dataclass(frozen=True, slots=True)
class TargetSpec:
    """Target type (S3) and its qualifiers (N11)."""

    kind: str
    allegiance: str = "universal"
    range: int | None = None
    aura: int | None = None
    flags: frozenset[str] = frozenset()

    def has(self, flag: str) -> bool:
        return flag in self.flags

    def describe(self) -> str:
        words = {"augment": "friendly ", "hex": "enemy ", "universal": ""}[self.allegiance]
        text = f"{words}{self.kind.replace('_', ' ')}"
        extras = sorted(f.replace("_", "'s ") if f == "caster_unit" else f for f in self.flags)
        if self.range is not None:
            extras.append(f"range {self.range}")
        if self.aura is not None:
            extras.append(f"aura {self.aura}")
        return text + (f" ({', '.join(extras)})" if extras else "")


@dataclass(frozen=True, slots=True)
class Trigger:
    """Effects an active spell performs when a named event reaches it."""

    event: str
    effects: tuple[Effect, ...]


@dataclass(frozen=True, slots=True)
class SpellDef:
    id: str
    name: str
    house: str
    cost: Cost
    type: str
    target: TargetSpec
    rules: str
    speed: str = "normal"
    spell_class: str = "standard"
    replicable: bool = False
    cumulative: bool = False
    visible: bool = True
    duration: str = "instant"
    turns: int = 0
    expires_on: str | None = None
    once_per_game: bool = False
    helper: bool = False
    dispellable: bool = True
    boosted_cost: Cost | None = None
    cost_cycle: tuple[Cost, ...] = ()
    power: tuple[int, int] | None = None
    casting_value: int = 0
    requires_targeting: tuple[Requirement, ...] = ()
    requires_execution: tuple[Requirement, ...] = ()
    requires_persistent: tuple[Requirement, ...] = ()
    effects: tuple[Effect, ...] = ()
    boosted_effects: tuple[Effect, ...] = ()
    triggers: tuple[Trigger, ...] = ()
    on_squander: tuple[Effect, ...] = ()
    source: str = field(default="", compare=False)
    # Worked out once from the fields above, not fields of the definition themselves (no
    # equality, no repr): the spell phase asks every cast whether it is instant several times,
    # and a cast's cost in mana when its orders are checked and again when it executes.
    instant: bool = field(init=False, repr=False, compare=False)
    """A manifestation, summoning or hero: it never becomes active (S2)."""
    mana_cycle: tuple[Mana, ...] = field(init=False, repr=False, compare=False)
    """:meth:`cost_on_turn` as mana of the house's types, for each turn of the cycle."""
    boosted_mana: Mana | None = field(init=False, repr=False, compare=False)
    """``boosted_cost`` as mana of the house's types."""

    def __post_init__(self) -> None:
        primary, secondary = HOUSES[self.house]

        def mana(cost: Cost) -> Mana:
            return Mana().plus(((primary, cost.primary), (secondary, cost.secondary)))

        derive = object.__setattr__
        derive(self, "instant", self.type in INSTANT_TYPES)
        derive(self, "mana_cycle", tuple(map(mana, self.cost_cycle or (self.cost,))))
        derive(self, "boosted_mana", None if self.boosted_cost is None else mana(self.boosted_cost))

    @property
    def deckable(self) -> bool:
        """May a deck hold it (G3)? Standard and learned spells, and a bound spell with a cost:
        its holder casts it for no mana, and from hand it is cast like any spell, for that cost,
        at its lower power level (N5: the bound cast does not stop a cast from hand)."""
        if self.helper:
            return False
        if self.spell_class == "bound":
            return self.cost.total > 0
        return self.spell_class in ("standard", "learned")

    def power_from_hand(self) -> int | None:
        """The power level a cast from hand uses: the lower one of a bound spell (N5, N8)."""
        return None if self.power is None else self.power[0]

    @property
    def mana(self) -> tuple[str, str]:
        return HOUSES[self.house]

    def cost_on_turn(self, turn: int) -> Cost:
        """The cost while in hand on ``turn`` (S4: some spells change cost each turn)."""
        if not self.cost_cycle:
            return self.cost
        return self.cost_cycle[turn % len(self.cost_cycle)]

    def mana_on_turn(self, turn: int) -> Mana:
        """:meth:`cost_on_turn` as mana of the house's types."""
        cycle = self.mana_cycle
        return cycle[turn % len(cycle)]

    def expires_turn(self, cast_turn: int) -> int | None:
        """The turn at whose spell phase it ends when it became active on ``cast_turn`` (D-SP9),
        or None when a number of turns does not end it."""
        if self.duration in ("one_turn", "turns"):
            return cast_turn + self.turns
        return None

    @property
    def ward_uses(self) -> int:
        """The squanders its wards allow before the spell ends (0: no limit). A spell's ward
        effects share one count; :func:`parse_spell` checks they name the same ``uses``."""
        wards = (e for e in (*self.effects, *self.boosted_effects) if e.op == "ward")
        return next((e.params.num("uses") for e in wards), 0)

    def effects_for(self, boosted: bool) -> tuple[Effect, ...]:
        return self.boosted_effects if boosted and self.boosted_effects else self.effects

    def describe(self) -> str:
        """The spell's mechanics in words, generated from its data."""
        lines = [
            f"{self.name} ({self.house}, {self.type}, {self.speed}, cost {self.cost}"
            + (f", boosted {self.boosted_cost}" if self.boosted_cost else "")
            + ")",
            f"Target: {self.target.describe()}.",
        ]
        for effect in self.effects:
            lines.append(effect.describe())
        for trigger in self.triggers:
            for effect in trigger.effects:
                lines.append(f"On {trigger.event.replace('_', ' ')}: {effect.describe()}")
        if self.boosted_effects:
            lines.append("Boosted: " + " ".join(e.describe() for e in self.boosted_effects))
        if self.on_squander:
            lines.append("If it squanders: " + " ".join(e.describe() for e in self.on_squander))
        reqs = self.requires_targeting + self.requires_execution
        if reqs:
            lines.append("Requires: " + "; ".join(r.describe() for r in reqs) + ".")
        return "\n".join(lines)


_SPELL_KEYS = (
    "id",
    "name",
    "house",
    "cost",
    "boosted_cost",
    "cost_cycle",
    "type",
    "target",
    "qualifiers",
    "speed",
    "class",
    "replicable",
    "cumulative",
    "visible",
    "duration",
    "expires_on",
    "once_per_game",
    "helper",
    "dispellable",
    "power",
    "casting_value",
    "requires",
    "effects",
    "boosted_effects",
    "triggers",
    "on_squander",
    "rules",
)


def _reader(table: Mapping[str, object], source: str) -> Table:
    """One spell table; its failures name the spell by its id (``?`` until it has one)."""
    raw_id = table.get("id")
    return Table(source, raw_id if isinstance(raw_id, str) else "?", table, SpellDataError)


def _cost(r: Table, key: str, raw: object) -> Cost:
    match = _COST.match(raw) if isinstance(raw, str) else None
    if match is None:
        raise r.fail(key, f'must be written primary+secondary like "3+1", not {raw!r}')
    return Cost(int(match.group(1)), int(match.group(2)))


def _effects(r: Table, key: str) -> tuple[Effect, ...]:
    raw = r.get(key)
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise r.fail(key, "must be a list of effect tables")
    out = []
    for index, table in enumerate(raw):
        try:
            out.append(parse_effect(table))
        except BadKeyError as exc:
            raise r.fail(f"{key}[{index}].{exc.key}", exc.message) from None
    return tuple(out)


def _requirements(r: Table, key: str) -> tuple[Requirement, ...]:
    raw = r.get(key)
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise r.fail(key, "must be a list of requirement tables")
    out = []
    for index, table in enumerate(raw):
        try:
            out.append(parse_requirement(table))
        except BadKeyError as exc:
            raise r.fail(f"{key}[{index}].{exc.key}", exc.message) from None
    return tuple(out)


def _parse_target(r: Table, kind: str) -> TargetSpec:
    raw = r.get("qualifiers", [])
    if not isinstance(raw, list) or not all(isinstance(q, str) for q in raw):
        raise r.fail("qualifiers", 'must be a list of strings like "hex" or "range 3"')
    allegiance = "universal"
    numbers: dict[str, int] = {}
    flags: set[str] = set()
    seen_allegiance = False
    for qualifier in raw:
        words = qualifier.split()
        if len(words) == 1 and words[0] in ALLEGIANCES:
            if seen_allegiance:
                raise r.fail("qualifiers", "at most one of augment, hex, universal")
            allegiance, seen_allegiance = words[0], True
        elif len(words) == 1 and words[0] in FLAG_QUALIFIERS:
            flags.add(words[0])
        elif len(words) == 2 and words[0] in NUMBER_QUALIFIERS and words[1].isdigit():
            numbers[words[0]] = int(words[1])
        else:
            known = ", ".join((*ALLEGIANCES, *FLAG_QUALIFIERS, "range N", "aura N"))
            raise r.fail("qualifiers", f"unknown qualifier {qualifier!r} (known: {known})")
    if kind == "globe" and (flags or numbers or allegiance != "universal"):
        raise r.fail("qualifiers", "a globe spell takes no qualifiers")
    allowed_by_flag = {
        "focused": GROUP_KINDS,
        "ground": GROUP_KINDS | MINION_KINDS,
        "caster": MINION_KINDS - {"monster"},
        "caster_unit": GROUP_KINDS - {"monster_group"},
    }
    for flag, kinds in allowed_by_flag.items():
        if flag in flags and kind not in kinds:
            raise r.fail("qualifiers", f"{flag!r} does not apply to target {kind!r}")
    if "caster" in flags and "caster_unit" in flags:
        raise r.fail("qualifiers", "'caster' and 'caster_unit' exclude each other")
    if "ground" in flags and "focused" in flags:
        raise r.fail("qualifiers", "'ground' and 'focused' exclude each other")
    if "aura" in numbers and numbers["aura"] < 1:
        raise r.fail("qualifiers", "aura must be at least 1")
    return TargetSpec(
        kind=kind,
        allegiance=allegiance,
        range=numbers.get("range"),
        aura=numbers.get("aura"),
        flags=frozenset(flags),
    )


def parse_spell(table: Mapping[str, object], source: str) -> SpellDef:
    """Validate one spell table; raises :class:`SpellDataError` naming file, spell and key."""
    r = _reader(table, source).known(_SPELL_KEYS)
    spell_id = r.text("id")
    if not _ID.match(spell_id):
        raise r.fail("id", "must be lower_snake_case letters, digits and underscores")
    name = r.text("name")
    house = r.text("house", choices=tuple(HOUSES))
    cost = _cost(r, "cost", table.get("cost"))
    spell_type = r.text("type", choices=SPELL_TYPES)
    kind = r.text("target", choices=TARGET_KINDS)
    target = _parse_target(r, kind)
    speed = r.text("speed", "normal", SPEEDS)
    spell_class = r.text("class", "standard", CLASSES)
    replicable = r.flag("replicable", False)
    cumulative = r.flag("cumulative", False)
    helper = r.flag("helper", False)
    visible = r.flag("visible", spell_class != "attribute")
    dispellable = r.flag("dispellable", True)
    once = r.flag("once_per_game", False)
    rules = r.text("rules")
    if not rules.strip():
        raise r.fail("rules", "must not be empty")

    boosted_cost = None
    if "boosted_cost" in table:
        boosted_cost = _cost(r, "boosted_cost", table["boosted_cost"])
        if boosted_cost.primary < cost.primary or boosted_cost.secondary < cost.secondary:
            raise r.fail("boosted_cost", "must not be cheaper than the base cost (N7)")
    cycle_raw = table.get("cost_cycle", [])
    if not isinstance(cycle_raw, list):
        raise r.fail("cost_cycle", 'must be a list of costs like ["1+0", "3+0"]')
    cost_cycle = tuple(_cost(r, "cost_cycle", c) for c in cycle_raw)

    effects = _effects(r, "effects")
    boosted_effects = _effects(r, "boosted_effects")
    on_squander = _effects(r, "on_squander")
    triggers = _parse_triggers(r)

    requires = r.table(
        "requires", not_table="must be a table with targeting/execution/persistent lists"
    ).known(("targeting", "execution", "persistent"))
    req_t = _requirements(requires, "targeting")
    req_e = _requirements(requires, "execution")
    req_p = _requirements(requires, "persistent")

    duration, turns, expires_on = _parse_duration(r, spell_type, triggers)
    if spell_type in INSTANT_TYPES:
        if triggers:
            raise r.fail("triggers", f"a {spell_type} is instant and never active, so no triggers")
        if req_p:
            raise r.fail("requires.persistent", "only active spells have persistent requirements")
        for index, effect in enumerate(effects + boosted_effects):
            if effect.primitive.continuous:
                raise r.fail(
                    f"effects[{index}].do", f"{effect.op!r} only acts while a spell is active"
                )
    if spell_type == "summoning" and (
        kind != "square" or not any(e.op == "summon" for e in effects)
    ):
        raise r.fail("target", "a summoning targets a square and has a 'summon' effect")
    if spell_type == "hero" and (
        kind != "structure" or not any(e.op == "create_hero" for e in effects)
    ):
        raise r.fail("target", "a hero spell targets a structure and has a 'create_hero' effect")
    if target.aura is not None and spell_type not in INSTANT_TYPES:
        raise r.fail("qualifiers", "aura applies to instant spells only")
    if target.has("ground") and spell_type not in INSTANT_TYPES:
        raise r.fail("qualifiers", "ground applies to instant spells only")
    if not effects and not triggers and not helper:
        raise r.fail("effects", "a spell needs at least one effect or trigger")
    if len({e.params.num("uses") for e in effects + boosted_effects if e.op == "ward"}) > 1:
        raise r.fail(
            "effects", "a spell's wards share one count of uses: give each the same 'uses'"
        )

    if (boosted_cost is None) != (not boosted_effects):
        raise r.fail("boosted_effects", "boosted_cost and boosted_effects go together (N7)")
    power: tuple[int, int] | None = None
    if spell_class == "bound":
        if boosted_cost is not None:
            raise r.fail("boosted_cost", "bound spells cannot be boosted (N6)")
        raw_power = table.get("power")
        if (
            not isinstance(raw_power, list)
            or len(raw_power) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in raw_power)
            or not 0 < raw_power[0] <= raw_power[1]
        ):
            raise r.fail("power", "a bound spell needs power = [primary, secondary], 0 < p <= s")
        power = (raw_power[0], raw_power[1])
    elif "power" in table:
        raise r.fail("power", "only bound spells have power levels (N8)")
    if replicable and spell_class not in ("learned", "hereditary"):
        raise r.fail("replicable", "only learned and hereditary spells can be replicable (N1)")
    if spell_class == "attribute":
        if visible:
            raise r.fail("visible", "attribute spells are non-visible and cannot be dispelled (N4)")
        if cost.total or boosted_cost is not None:
            raise r.fail("cost", 'attribute spells are cast automatically and cost "0+0" (N4)')
    if helper and cost.total:
        raise r.fail("cost", 'helper spells are never cast from hand and cost "0+0"')

    casting_value = table.get("casting_value", 2 + cost.total)
    if not isinstance(casting_value, int) or isinstance(casting_value, bool) or casting_value < 0:
        raise r.fail("casting_value", f"must be a non-negative integer, not {casting_value!r}")

    return SpellDef(
        id=spell_id,
        name=name,
        house=house,
        cost=cost,
        type=spell_type,
        target=target,
        rules=rules.strip(),
        speed=speed,
        spell_class=spell_class,
        replicable=replicable,
        cumulative=cumulative,
        visible=visible,
        duration=duration,
        turns=turns,
        expires_on=expires_on,
        once_per_game=once,
        helper=helper,
        dispellable=dispellable and visible,
        boosted_cost=boosted_cost,
        cost_cycle=cost_cycle,
        power=power,
        casting_value=casting_value,
        requires_targeting=req_t,
        requires_execution=req_e,
        requires_persistent=req_p,
        effects=effects,
        boosted_effects=boosted_effects,
        triggers=triggers,
        on_squander=on_squander,
        source=source,
    )


def _parse_triggers(r: Table) -> tuple[Trigger, ...]:
    raw = r.get("triggers")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise r.fail("triggers", "must be a list of {event, effects} tables")
    out = []
    for index, value in enumerate(raw):
        t = r.item(f"triggers[{index}]", value, "must be a table").known(("event", "effects"))
        event = t.get("event")
        if event not in EVENTS:
            raise t.fail("event", f"unknown event {event!r} (known: {', '.join(EVENTS)})")
        effects = _effects(t, "effects")
        if not effects:
            raise t.fail("effects", "needs at least one effect")
        for e_index, effect in enumerate(effects):
            if effect.primitive.continuous:
                raise t.fail(
                    f"effects[{e_index}].do",
                    f"{effect.op!r} is continuous; put it in 'effects'",
                )
        out.append(Trigger(str(event), effects))
    return tuple(out)


def _parse_duration(
    r: Table, spell_type: str, triggers: tuple[Trigger, ...]
) -> tuple[str, int, str | None]:
    raw = r.get("duration")
    expires_on = r.get("expires_on")
    if expires_on is not None and expires_on not in EVENTS:
        raise r.fail("expires_on", f"unknown event {expires_on!r} (known: {', '.join(EVENTS)})")
    if spell_type in INSTANT_TYPES:
        if raw not in (None, "instant"):
            raise r.fail("duration", f"a {spell_type} is instant (N12)")
        if expires_on is not None:
            raise r.fail("expires_on", "instant spells never stay active")
        return "instant", 0, None
    if spell_type == "alteration":
        if raw not in (None, "permanent"):
            raise r.fail("duration", "an alteration is permanent (N12); use a conjuration")
        return "permanent", 0, expires_on if isinstance(expires_on, str) else None
    assert spell_type in ACTIVE_TYPES
    if raw == "one_turn":
        return "one_turn", 1, expires_on if isinstance(expires_on, str) else None
    if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 1:
        return "turns", raw, expires_on if isinstance(expires_on, str) else None
    if raw is None and isinstance(expires_on, str):
        return "until_event", 0, expires_on
    raise r.fail(
        "duration",
        'a conjuration needs duration = "one_turn", a number of turns, or an expires_on event',
    )
