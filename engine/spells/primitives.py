"""The closed vocabulary of spell effects.

Every effect in a spell file is one table ``{ do = "<primitive>", ...keys }``. Each primitive
declares its keys (checked on load, errors name the key), whether it is *continuous* (it only acts
while its spell is active, read by :mod:`engine.spells.modifiers`) or *instant* (it happens when the
spell executes or a trigger fires, carried out by :mod:`engine.spells.effects`), and describes
itself in words for spell cards and ``/spell`` lookups.

A spell that fits no primitive uses ``do = "special"`` with a named handler from
:data:`SPECIAL_HANDLERS`; a handler is promoted to a primitive once a second spell needs it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from engine.spells.params import BadKeyError, Key, Params, check_keys
from engine.spells.vocab import ABILITIES, MANA_TYPES, SPEEDS, SPELL_TYPES, STATS, TERRAINS, WALKS

MANA_CHOICES = ("primary", "secondary", *MANA_TYPES)
FILTER_KEYS = (
    Key("owner", "str", default="enemy", choices=("enemy", "friendly", "any")),
    Key("house", "str"),
    Key("spell_type", "str", choices=SPELL_TYPES),
    Key("speed", "str", choices=SPEEDS),
    Key("spell", "str"),
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
# Named special handlers (engine.spells.specials) for effects no primitive covers.
SPECIAL_HANDLERS = ("soul_jar",)


@dataclass(frozen=True, slots=True)
class Effect:
    """One validated effect: the primitive's name and its parameters."""

    op: str
    params: Params

    def describe(self) -> str:
        return PRIMITIVES[self.op].describe(self.params)

    def to_dict(self) -> dict[str, object]:
        return {"do": self.op, **self.params.to_dict()}


@dataclass(frozen=True, slots=True)
class Primitive:
    name: str
    keys: tuple[Key, ...]
    words: Callable[[Params], str]
    continuous: bool = False

    def validate(self, table: Mapping[str, object]) -> Params:
        params = check_keys(table, self.keys, skip=("do",))
        if self.name == "special" and params.text("handler") not in SPECIAL_HANDLERS:
            raise BadKeyError(
                "handler", f"unknown special handler (known: {', '.join(SPECIAL_HANDLERS)})"
            )
        return params

    def describe(self, params: Params) -> str:
        return self.words(params)


def _gain_words(params: Params) -> str:
    who = "The caster" if params.text("to", "caster") == "caster" else "Its host's owner"
    return f"{who} gains {params.num('amount')} {_mana(params)}."


def _mana(params: Params) -> str:
    mana = params.text("mana", "primary")
    return f"{mana} mana" if mana in MANA_TYPES else f"mana of its house's {mana} type"


def _filter_words(params: Params) -> str:
    parts = []
    owner = params.text("owner", "enemy")
    if owner != "any":
        parts.append(owner)
    for key in ("house", "speed", "spell_type"):
        if params.get(key) is not None:
            parts.append(params.text(key))
    if params.get("spell") is not None:
        parts.append(f"'{params.text('spell')}'")
    return " ".join(parts)


def _unit_words(p: Params) -> str:
    stats = [f"{k} {p.num(k)}" for k in ("hp", "armor", "attacks", "hand", "missile", "level")]
    shown = [
        s
        for s, k in zip(stats, ("hp", "armor", "attacks", "hand", "missile", "level"), strict=True)
        if p.get(k) is not None
    ]
    extra = list(p.texts("walks")) + list(p.texts("traits"))
    return f" ({', '.join(shown + extra)})" if shown or extra else ""


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def _modify_words(p: Params) -> str:
    op = p.text("op", "add")
    stat = p.text("stat").replace("_", " ")
    who = p.text("who", "all")
    scope = "affected minions" if who == "all" else f"{who} minions"
    if op == "add":
        return f"While active: {stat} {_signed(p.num('amount'))} for {scope}."
    if op == "set":
        return f"While active: {stat} becomes {p.num('amount')} for {scope}."
    if op == "max":
        return f"While active: {stat} is at most {p.num('amount')} for {scope}."
    return f"While active: {stat} is at least {p.num('amount')} for {scope}."


_P = Primitive
PRIMITIVES: dict[str, Primitive] = {
    p.name: p
    for p in (
        _P(
            "damage",
            (
                Key("amount", "int", required=True, minimum=1),
                Key("power_scaled", "bool", default=False),
            ),
            lambda p: (
                "Deals damage equal to the chosen power level to each affected minion."
                if p.flag("power_scaled")
                else f"Deals {p.num('amount')} damage to each affected minion."
            ),
        ),
        _P(
            "heal",
            (Key("amount", "int", minimum=1), Key("full", "bool", default=False)),
            lambda p: (
                "Fully heals each affected minion."
                if p.flag("full")
                else f"Heals {p.num('amount')} hit points of each affected minion."
            ),
        ),
        _P("kill", (), lambda p: "Each affected minion dies."),
        _P("remove", (), lambda p: "Each affected minion is removed from the game."),
        _P(
            "adjust",
            (
                Key("stat", "str", required=True, choices=STATS),
                Key("amount", "int", required=True),
            ),
            lambda p: (
                f"Permanently changes {p.text('stat').replace('_', ' ')} of each affected "
                f"minion by {_signed(p.num('amount'))}."
            ),
        ),
        _P(
            "force_move",
            (),
            lambda p: "Forces the target group out to a free neighbouring square it may enter.",
        ),
        _P(
            "teleport",
            (Key("to", "str", default="own_sanctum", choices=("own_sanctum", "enemy_side")),),
            lambda p: (
                "Teleports the target group to the free square nearest its owner's Sanctum."
                if p.text("to") == "own_sanctum"
                else "Teleports the target group to the free square nearest the enemy Sanctum."
            ),
        ),
        _P(
            "summon",
            (
                Key("unit", "str", required=True),
                Key("count", "int", default=1, minimum=1),
                *UNIT_KEYS,
            ),
            lambda p: (
                f"Creates a monster group of {p.num('count')} {p.text('name') or p.text('unit')}"
                f"{_unit_words(p)} on the square."
            ),
        ),
        _P(
            "create_hero",
            (
                Key("unit", "str", default="swordsman", choices=("swordsman", "archer")),
                *UNIT_KEYS,
                Key("helpers", "strs", default=()),
            ),
            lambda p: (
                f"The hero {p.text('name') or p.text('unit')}{_unit_words(p)} joins the "
                "caster on the structure"
                + (", with powers of its own." if p.texts("helpers") else ".")
            ),
        ),
        _P(
            "create_structure",
            (Key("kind", "str", default="colony", choices=("colony",)),),
            lambda p: "Founds a colony on the square; it stands while its Colony helper lasts.",
        ),
        _P(
            "destroy_structure",
            (),
            lambda p: "Destroys the target structure; its owner counts it as lost.",
        ),
        _P(
            "change_terrain",
            (Key("terrain", "str", required=True, choices=(*TERRAINS, "redraw")),),
            lambda p: (
                "The square's terrain is drawn again from the realm."
                if p.text("terrain") == "redraw"
                else f"The square's terrain becomes {p.text('terrain')}."
            ),
        ),
        _P(
            "gain_mana",
            (
                Key("mana", "str", default="primary", choices=MANA_CHOICES),
                Key("amount", "int", required=True, minimum=1),
                Key("to", "str", default="caster", choices=("caster", "host_owner")),
            ),
            _gain_words,
        ),
        _P(
            "drain_mana",
            (
                Key("mana", "str", required=True, choices=(*MANA_TYPES, "all")),
                Key("amount", "int", required=True, minimum=1),
                Key("who", "str", default="enemy", choices=("enemy", "caster")),
            ),
            lambda p: (
                f"The {p.text('who')} loses up to {p.num('amount')} "
                + ("of every mana type." if p.text("mana") == "all" else f"{_mana(p)}.")
            ),
        ),
        _P(
            "draw",
            (Key("count", "int", default=1, minimum=1),),
            lambda p: f"The caster draws {p.num('count')} spell(s).",
        ),
        _P(
            "discard",
            (
                Key("count", "int", default=1, minimum=1),
                Key("who", "str", default="enemy", choices=("enemy", "caster")),
            ),
            lambda p: (
                f"{'The caster' if p.text('who') == 'caster' else 'The enemy'} discards "
                f"{p.num('count')} spell(s) from hand at random."
            ),
        ),
        _P(
            "split",
            (),
            lambda p: (
                "The group's newest member steps out onto a free neighbouring square as a new "
                "group that keeps the group's spells."
            ),
        ),
        _P(
            "dispel",
            (
                Key("which", "str", default="all", choices=("all", "newest", "oldest")),
                *(
                    Key(k.name, k.kind, default="any", choices=k.choices)
                    if k.name == "owner"
                    else k
                    for k in FILTER_KEYS
                ),
            ),
            lambda p: (
                f"Dispels {p.text('which')} visible {_filter_words(p)} spells on the target "
                "(non-visible spells ignore it).".replace("  ", " ")
            ),
        ),
        _P(
            "counter",
            (Key("scope", "str", default="host", choices=("host", "everywhere")), *FILTER_KEYS),
            lambda p: (
                f"Cancels the newest visible {_filter_words(p)} active spell "
                + ("on the target." if p.text("scope") == "host" else "anywhere on the board.")
            ),
        ),
        _P("swap_initiative", (), lambda p: "Swaps initiative the instant it executes."),
        _P("seize_initiative", (), lambda p: "The caster takes initiative."),
        _P(
            "transfer",
            (
                Key(
                    "to",
                    "str",
                    default="nearest_friendly_group",
                    choices=("nearest_friendly_group", "globe"),
                ),
            ),
            lambda p: (
                "This spell moves to the owner's nearest other group."
                if p.text("to") == "nearest_friendly_group"
                else "This spell moves to the globe."
            ),
        ),
        _P("expire", (), lambda p: "This spell ends."),
        _P(
            "attach",
            (
                Key("spell", "str", required=True),
                Key("host", "str", default="target", choices=("target", "globe")),
            ),
            lambda p: f"Puts the helper spell '{p.text('spell')}' on the {p.text('host')}.",
        ),
        _P(
            "special",
            (Key("handler", "str", required=True),),
            lambda p: f"Special: {p.text('handler').replace('_', ' ')}.",
        ),
        # Continuous effects: they act only while their spell is active.
        _P(
            "modify",
            (
                Key("stat", "str", required=True, choices=STATS),
                Key("amount", "int", required=True),
                Key("op", "str", default="add", choices=("set", "add", "max", "min")),
                Key("who", "str", default="all", choices=("all", "friendly", "enemy")),
            ),
            _modify_words,
            continuous=True,
        ),
        _P(
            "aura_modify",
            (
                Key("stat", "str", required=True, choices=STATS),
                Key("amount", "int", required=True),
                Key("op", "str", default="add", choices=("set", "add", "max", "min")),
                Key("who", "str", default="enemy", choices=("all", "friendly", "enemy")),
                Key("radius", "int", default=1, minimum=0),
            ),
            lambda p: (
                _modify_words(p).replace("While active:", "While active, around it:")[:-1]
                + f" within {p.num('radius')} square(s) of the host."
            ),
            continuous=True,
        ),
        _P(
            "grant",
            (Key("ability", "str", required=True, choices=ABILITIES),),
            lambda p: f"While active: affected minions have {p.text('ability').replace('_', ' ')}.",
            continuous=True,
        ),
        _P("hold", (), lambda p: "While active: the host group cannot move.", continuous=True),
        _P(
            "forbid_join",
            (),
            lambda p: (
                "While active: the host group cannot join or be joined, and nobody trains "
                "on its square."
            ),
            continuous=True,
        ),
        _P(
            "ward",
            (*FILTER_KEYS, Key("uses", "int", default=0, minimum=0)),
            lambda p: (
                f"While active: {_filter_words(p)} spells executing against the host "
                "squander" + (f" (the ward ends after {p.num('uses')})." if p.num("uses") else ".")
            ),
            continuous=True,
        ),
        _P(
            "lock_initiative",
            (),
            lambda p: "While active: its owner holds initiative, whatever else happens.",
            continuous=True,
        ),
        _P(
            "bind",
            (Key("spell", "str", required=True),),
            lambda p: f"Carries the bound spell '{p.text('spell')}': once per turn, free of mana.",
            continuous=True,
        ),
        _P(
            "sustain",
            (),
            lambda p: "The host structure stands only while this spell lasts.",
            continuous=True,
        ),
        _P(
            "deny_production",
            (),
            lambda p: (
                "While active: the host structure produces no mana for its owner; on the "
                "globe, no enemy structure does unless it holds at least as many recruits as "
                "there are copies of this spell."
            ),
            continuous=True,
        ),
    )
}


def parse_effect(table: object) -> Effect:
    """Validate one effect table; raises :class:`BadKeyError` naming the bad key."""
    if not isinstance(table, Mapping):
        raise BadKeyError("do", f"an effect must be a table, not {table!r}")
    op = table.get("do")
    if not isinstance(op, str) or op not in PRIMITIVES:
        raise BadKeyError("do", f"unknown effect {op!r} (known: {', '.join(sorted(PRIMITIVES))})")
    return Effect(op, PRIMITIVES[op].validate(table))
