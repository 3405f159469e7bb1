"""The catalogue index: what the rules derive from the spells, built with the content."""

from __future__ import annotations

from engine.content import Content
from engine.spells.index import CatalogueIndex
from tests.engine.spells.helpers import content_with

SWIFT = """
[[spell]]
id = "t_swift"
name = "T Swift"
house = "body"
cost = "1+0"
type = "alteration"
target = "group"
cumulative = true
rules = "+1 move, +1 hand, for friends."
effects = [
    { do = "modify", stat = "moves", amount = 1, who = "friendly" },
    { do = "modify", stat = "hand", amount = 1 },
]
"""


def test_with_spells_builds_an_index_of_its_own_spells(content: Content) -> None:
    more = content_with(SWIFT)
    assert "t_swift" not in content.index.with_op("modify")
    assert "t_swift" in more.index.with_op("modify")
    assert more.index == CatalogueIndex.of(more.spells)


def test_modify_is_split_by_the_stat_it_changes() -> None:
    index = content_with(SWIFT).index
    assert "t_swift" in index.with_op("modify:moves")
    assert "t_swift" in index.with_op("modify:stats")
    moves, hand = index.effects_of("t_swift")["modify"]
    assert index.who[id(moves)] == "friendly" and index.who[id(hand)] == "all"
    assert index.changes[id(moves)] == (1, "moves", 1)


def test_every_continuous_op_lists_exactly_the_spells_that_use_it(content: Content) -> None:
    index = content.index
    for op, ids in index.ops.items():
        base = op.partition(":")[0]
        assert ids <= {sid for sid, by_op in index.continuous.items() if base in by_op}
    for sid, by_op in index.continuous.items():
        for op in by_op:
            assert sid in index.with_op(op)
    assert index.with_op("no_such_op") == frozenset()
    assert index.effects_of("no_such_spell") == {}


def test_reactions_and_attributes_follow_the_spell_files(content: Content) -> None:
    index = content.index
    for sid, spell in content.spells.items():
        events = {t.event for t in spell.triggers} | (
            {spell.expires_on} if spell.expires_on else set()
        )
        assert index.reactions.get(sid, frozenset()) == frozenset(events)
        if spell.spell_class == "attribute":
            assert index.attributes[spell.house] is spell


def test_each_event_lists_exactly_the_spells_that_react_to_it(content: Content) -> None:
    index = content.index
    for event, ids in index.reacting.items():
        assert ids == {sid for sid, events in index.reactions.items() if event in events}
    for sid, events in index.reactions.items():
        for event in events:
            assert sid in index.reacting[event]
