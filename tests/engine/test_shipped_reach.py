"""Every rule is reachable with shipped cards, not only with the scenarios' inline spells.

A rule that only an inline test spell can trigger never happens in a real match, so each rule
id needs a scenario that uses shipped cards alone, and each mechanism that a rule describes
needs a card a deck can hold (or a house's hereditary or attribute spell) that uses it.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from conformance.coverage import rule_ids
from engine.content import Content, load_content
from engine.spells.schema import SpellDef

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def _shipped_only_cover() -> dict[str, list[str]]:
    cover: dict[str, list[str]] = {}
    for path in sorted(SCENARIOS.rglob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        if "spell" in data:  # inline [[spell]] tables
            continue
        for rule in data.get("rules", []):
            cover.setdefault(rule, []).append(str(path.relative_to(SCENARIOS)))
    return cover


def test_every_rule_id_has_a_scenario_with_shipped_cards_only() -> None:
    cover = _shipped_only_cover()
    missing = [rule for rule in rule_ids() if rule not in cover]
    assert not missing, f"reachable only through inline spells (or not at all): {missing}"


def _playable(spell: SpellDef) -> bool:
    """A card a real match can cast: held in a deck, a house's hereditary or attribute spell, or
    a bound spell that some shipped carrier binds."""
    return spell.deckable or spell.spell_class in ("hereditary", "attribute", "bound")


def _bound_by_a_carrier(content: Content) -> set[str]:
    return {
        e.params.text("spell")
        for s in content.spells.values()
        for e in s.effects
        if e.op == "bind" and _playable(s)
    }


MECHANISMS: dict[str, Callable[[SpellDef, Content], bool]] = {
    # C7: a failure effect paid instead of the cost.
    "C7 failure effect": lambda s, c: bool(s.on_squander),
    # S10: a hidden spell a player casts (stacks, ignores dispels).
    "S10 castable hidden spell": lambda s, c: s.deckable and not s.visible,
    # N4: an attribute that stays in play, hidden and undispellable.
    "N4 lasting attribute": lambda s, c: s.spell_class == "attribute" and not s.instant,
    # N5: a bound spell of a house with an attribute, and one a deck may also hold.
    "N5 bound spell in an attribute house": lambda s, c: (
        s.spell_class == "bound"
        and s.id in _bound_by_a_carrier(c)
        and any(a.spell_class == "attribute" and a.house == s.house for a in c.spells.values())
    ),
    "N5 bound spell also cast from hand": lambda s, c: s.spell_class == "bound" and s.deckable,
    # N12: a spell that splits a group, its spells kept on both parts.
    "N12 split": lambda s, c: any(e.op == "split" for e in s.effects),
    # C5: a spell that drains its own caster's pool, or makes its caster discard.
    "C5 caster's own drain": lambda s, c: any(
        e.op == "drain_mana" and e.params.text("who") == "caster" for e in s.effects
    ),
    "C5 caster's own discard": lambda s, c: any(
        e.op == "discard" and e.params.text("who") == "caster" for e in s.effects
    ),
}


@pytest.mark.parametrize("mechanism", sorted(MECHANISMS))
def test_every_rule_mechanism_has_a_shipped_card(mechanism: str) -> None:
    content = load_content()
    check = MECHANISMS[mechanism]
    cards = [s.id for s in content.spells.values() if _playable(s) and check(s, content)]
    assert cards, f"no shipped card uses {mechanism}"
