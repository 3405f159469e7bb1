"""Loading the spell catalogue: ``data/spells/<house>.toml``, one file per house.

Each file holds ``[[spell]]`` tables (format in ``engine/spells/README.md``). Every table is
validated by :func:`engine.spells.schema.parse_spell`; this module adds the checks that span
spells: unique ids, the file's house, one hereditary and one attribute spell per house at most,
and references between spells (helpers, bound spells, requirement and filter ids).
"""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Mapping
from pathlib import Path

from engine.spells.schema import SpellDataError, SpellDef, parse_spell
from engine.spells.vocab import HOUSES

log = logging.getLogger(__name__)

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "data" / "spells"


def parse_spell_table(table: Mapping[str, object], source: str) -> SpellDef:
    """One spell from a TOML table (used for inline scenario spells)."""
    return parse_spell(table, source)


def load_spell_file(path: Path) -> list[SpellDef]:
    source = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SpellDataError(source, "?", "-", f"invalid TOML: {exc}") from None
    for key in data:
        if key != "spell":
            raise SpellDataError(source, "-", key, "unknown top-level key (only [[spell]] tables)")
    tables = data.get("spell", [])
    if not isinstance(tables, list):
        raise SpellDataError(source, "-", "spell", "must be an array of tables: [[spell]]")
    house = path.stem
    spells = []
    for index, table in enumerate(tables):
        if not isinstance(table, dict):
            raise SpellDataError(source, "-", f"spell[{index}]", "each [[spell]] must be a table")
        spell = parse_spell(table, source)
        if house in HOUSES and spell.house != house:
            raise SpellDataError(
                source, spell.id, "house", f"is {spell.house!r} but this file holds {house!r}"
            )
        spells.append(spell)
    return spells


def load_spells(directory: Path | str | None = None) -> dict[str, SpellDef]:
    """Every spell under ``directory`` (default ``data/spells``), by id, validated."""
    root = Path(directory) if directory is not None else DEFAULT_DIR
    paths = sorted(root.glob("*.toml"))
    if not paths:
        raise SpellDataError(str(root), "-", "-", "no spell files (*.toml) found")
    spells: dict[str, SpellDef] = {}
    for path in paths:
        if path.stem not in HOUSES:
            raise SpellDataError(
                str(path), "-", "-", f"file name must be a house ({', '.join(HOUSES)})"
            )
        for spell in load_spell_file(path):
            if spell.id in spells:
                first = spells[spell.id].source
                raise SpellDataError(str(path), spell.id, "id", f"duplicate id (also in {first})")
            spells[spell.id] = spell
    check_catalogue(spells)
    log.debug("loaded %d spells from %s", len(spells), root)
    return spells


def _references(spell: SpellDef) -> list[tuple[str, str]]:
    refs: list[tuple[str, str]] = []
    groups = [
        ("effects", spell.effects),
        ("boosted_effects", spell.boosted_effects),
        ("on_squander", spell.on_squander),
    ]
    groups += [(f"triggers[{i}].effects", t.effects) for i, t in enumerate(spell.triggers)]
    for key, effects in groups:
        for index, effect in enumerate(effects):
            for name in ("spell", "helper"):
                value = effect.params.get(name)
                if isinstance(value, str):
                    refs.append((f"{key}[{index}].{name}", value))
            for helper in effect.params.texts("helpers"):
                refs.append((f"{key}[{index}].helpers", helper))
    reqs = [
        ("requires.targeting", spell.requires_targeting),
        ("requires.execution", spell.requires_execution),
        ("requires.persistent", spell.requires_persistent),
    ]
    for key, requirements in reqs:
        for index, req in enumerate(requirements):
            value = req.params.get("spell")
            if isinstance(value, str):
                refs.append((f"{key}[{index}].spell", value))
    return refs


def check_catalogue(spells: Mapping[str, SpellDef]) -> None:
    """Checks spanning spells; raises :class:`SpellDataError` naming file, spell and key."""
    hereditary: dict[str, str] = {}
    attribute: dict[str, str] = {}
    for spell in spells.values():
        for seen, cls in ((hereditary, "hereditary"), (attribute, "attribute")):
            if spell.spell_class == cls:
                if spell.house in seen:
                    raise SpellDataError(
                        spell.source,
                        spell.id,
                        "class",
                        f"house {spell.house!r} already has a {cls} spell ({seen[spell.house]})",
                    )
                seen[spell.house] = spell.id
        for key, ref in _references(spell):
            if ref not in spells:
                raise SpellDataError(spell.source, spell.id, key, f"unknown spell id {ref!r}")
            if key.endswith((".helpers", ".helper")) and not spells[ref].helper:
                raise SpellDataError(spell.source, spell.id, key, f"{ref!r} is not a helper spell")
        for index, effect in enumerate(spell.effects):
            if effect.op == "bind":
                bound = spells[effect.params.text("spell")]
                if bound.spell_class != "bound":
                    raise SpellDataError(
                        spell.source,
                        spell.id,
                        f"effects[{index}].spell",
                        f"{bound.id!r} is not a bound spell",
                    )
