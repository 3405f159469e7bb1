"""The effect vocabulary: each primitive defined once, complete, and used by a shipped spell."""

from __future__ import annotations

import ast
import importlib
from dataclasses import replace
from pathlib import Path

import pytest

from engine.content import load_content
from engine.spells.catalogue import check_catalogue, load_spells
from engine.spells.primitives import FAMILIES, PRIMITIVES, SPECIAL_HANDLERS, parse_effect
from engine.spells.schema import SpellDataError, SpellDef

ENGINE = Path(__file__).resolve().parents[3] / "engine"


def _ops(spell: SpellDef) -> list[tuple[str, str | None]]:
    """(op, special handler) of every effect the spell carries."""
    effects = [*spell.effects, *spell.boosted_effects, *spell.on_squander]
    effects += [e for trigger in spell.triggers for e in trigger.effects]
    return [(e.op, e.params.text("handler") or None) for e in effects]


def test_every_primitive_is_defined_exactly_once() -> None:
    defined: list[tuple[str, str]] = []
    for path in sorted(ENGINE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "Primitive"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                defined.append((str(node.args[0].value), path.relative_to(ENGINE).as_posix()))
    names = [name for name, _ in defined]
    assert sorted(names) == sorted(set(names)), "a primitive is defined twice"
    assert set(names) == set(PRIMITIVES)
    assert {where for _, where in defined} <= {
        f"spells/primitives/{m}.py" for m in ("minions", "board", "players", "spells", "continuous")
    }
    assert [p.name for family in FAMILIES for p in family] == list(PRIMITIVES)


def test_a_primitive_either_acts_or_names_what_reads_it() -> None:
    for name, primitive in PRIMITIVES.items():
        if primitive.continuous:
            assert primitive.reads, name
            for read in primitive.reads:
                module, function = read.split(".")
                assert callable(
                    getattr(importlib.import_module(f"engine.spells.{module}"), function)
                )
        else:
            assert not primitive.reads, name


def test_every_primitive_and_special_handler_is_used_by_a_shipped_spell() -> None:
    used = [op for spell in load_content().spells.values() for op in _ops(spell)]
    assert {op for op, _ in used} == set(PRIMITIVES)
    assert {handler for op, handler in used if op == "special"} == set(SPECIAL_HANDLERS)


def test_a_founded_structure_stands_by_the_helper_its_spell_names() -> None:
    spells = dict(load_spells())
    founding = next(
        s for s in spells.values() if any(op == "create_structure" for op, _ in _ops(s))
    )
    effect = next(e for e in founding.effects if e.op == "create_structure")
    assert spells[effect.params.text("helper")].helper
    table = {"do": "create_structure", "kind": "colony", "helper": founding.id}
    spells[founding.id] = replace(founding, effects=(parse_effect(table),))
    with pytest.raises(SpellDataError, match=r"effects\[0\]\.helper.*is not a helper spell"):
        check_catalogue(spells)
