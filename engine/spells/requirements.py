"""The closed vocabulary of spell requirements (prerequisites).

A spell lists requirements under ``requires.targeting``, ``requires.execution`` and
``requires.persistent``. Targeting requirements are checked when the order is given and again at
execution (S11); execution-only ones just at execution; a failure at execution makes the spell
squander with its cost paid (C6). Persistent requirements are re-evaluated whenever an active spell
would act: while one is false the spell stays on its host but does nothing (it is not potent).

This module declares the vocabulary (what the spell files may say); :mod:`engine.spells.checks`
evaluates it against a position.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from engine.spells.params import BadKeyError, Key, Params, check_keys
from engine.spells.vocab import TERRAINS


@dataclass(frozen=True, slots=True)
class Requirement:
    """One validated requirement: its name and parameters."""

    name: str
    params: Params

    def describe(self) -> str:
        return REQUIREMENTS[self.name].words(self.params)

    def to_dict(self) -> dict[str, object]:
        return {"req": self.name, **self.params.to_dict()}


@dataclass(frozen=True, slots=True)
class RequirementKind:
    name: str
    keys: tuple[Key, ...]
    words: Callable[[Params], str]


def _size_words(p: Params) -> str:
    lo, hi = p.num("min", 1), p.num("max", 8)
    return f"the target group (on a structure: the caster's group there) has {lo} to {hi} minions"


def _hero_words(p: Params) -> str:
    has = p.flag("has", True)
    hero = "hero" + (f" named {p.text('name')}" if p.text("name") else "")
    return f"the caster has {'a' if has else 'no'} {hero} on the board"


_R = RequirementKind
REQUIREMENTS: dict[str, RequirementKind] = {
    r.name: r
    for r in (
        _R(
            "terrain_is",
            (Key("terrains", "strs", required=True, choices=TERRAINS),),
            lambda p: f"the target stands on {' or '.join(p.texts('terrains'))}",
        ),
        _R(
            "group_size",
            (Key("min", "int", default=1, minimum=1), Key("max", "int", default=8, minimum=1)),
            _size_words,
        ),
        _R(
            "caster_structures",
            (Key("min", "int", required=True, minimum=1),),
            lambda p: f"the caster owns at least {p.num('min')} town(s) or colonies",
        ),
        _R(
            "caster_initiative",
            (Key("has", "bool", default=True),),
            lambda p: (
                "the caster holds initiative"
                if p.flag("has", True)
                else "the caster does not hold initiative"
            ),
        ),
        _R(
            "target_has_spell",
            (Key("spell", "str", required=True),),
            lambda p: f"the target carries '{p.text('spell')}'",
        ),
        _R(
            "target_lacks_spell",
            (Key("spell", "str", required=True),),
            lambda p: f"the target does not carry '{p.text('spell')}'",
        ),
        _R(
            "target_unenchanted",
            (),
            lambda p: "the target carries no visible active spell",
        ),
        _R(
            "caster_has_hero",
            (Key("name", "str"), Key("has", "bool", default=True)),
            _hero_words,
        ),
        _R(
            "target_level",
            (Key("max", "int", required=True, minimum=0),),
            lambda p: f"every affected minion is at most level {p.num('max')}",
        ),
        _R(
            "no_structure",
            (Key("within", "int", default=0, minimum=0),),
            lambda p: (
                f"no structure stands within {p.num('within')} squares of the target square"
                if p.num("within")
                else "the square holds no structure"
            ),
        ),
    )
}


def parse_requirement(table: object) -> Requirement:
    """Validate one requirement table; raises :class:`BadKeyError` naming the bad key."""
    if not isinstance(table, Mapping):
        raise BadKeyError("req", f"a requirement must be a table, not {table!r}")
    name = table.get("req")
    if not isinstance(name, str) or name not in REQUIREMENTS:
        known = ", ".join(sorted(REQUIREMENTS))
        raise BadKeyError("req", f"unknown requirement {name!r} (known: {known})")
    return Requirement(name, check_keys(table, REQUIREMENTS[name].keys, skip=("req",)))
