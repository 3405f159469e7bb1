"""SpellPresence keeps where the active spells sit current as they come, move and go."""

from __future__ import annotations

from engine.content import load_content
from engine.coords import coord
from engine.spells.presence import SpellPresence
from engine.state import GLOBE, ActiveSpell, Group, HostRef, Side, evolve

CONTENT = load_content()
C3 = coord(2, 2)


def _presence(spells: list[ActiveSpell]) -> tuple[SpellPresence, dict[int, ActiveSpell]]:
    spell_map = {s.uid: s for s in spells}
    every = frozenset(CONTENT.spells)
    presence = SpellPresence(spell_map, {}, CONTENT, lambda c, event: every, skip_deaf=True)
    return presence, spell_map


def _spell(uid: int, host: HostRef, spell_id: str = "blood_pact") -> ActiveSpell:
    return ActiveSpell(uid, spell_id, Side.RED, host, 1)


def test_spells_on_a_host_stay_in_casting_order_as_they_move() -> None:
    group = HostRef.group(1)
    presence, spell_map = _presence([_spell(5, group), _spell(9, GLOBE)])
    assert [s.uid for s in presence.spells_on(group)] == [5]
    newest = _spell(12, group)
    spell_map[12] = newest
    presence.added(newest)
    moved = evolve(spell_map[9], host=group)
    old, spell_map[9] = spell_map[9], moved
    presence.replaced(old, moved)
    assert [s.uid for s in presence.spells_on(group)] == [5, 9, 12]
    assert presence.spells_on(GLOBE) == ()
    gone = spell_map.pop(5)
    presence.removed(gone)
    assert [s.uid for s in presence.spells_on(group)] == [9, 12]


def test_reach_and_touched_follow_the_hosts() -> None:
    minion_host = HostRef.minion(3)
    presence, spell_map = _presence([_spell(5, minion_host)])
    group = Group(1, Side.RED, Side.RED, C3, (CONTENT.make_minion(3, "swordsman", None),))
    far = Group(2, Side.BLUE, Side.BLUE, coord(0, 0), (CONTENT.make_minion(4, "archer", None),))
    assert presence.touched(group) and not presence.touched(far)
    reach = presence.reach(frozenset({"blood_pact"}))
    assert reach is not None and presence.reached(reach, group)
    assert not presence.reached(reach, far)
    assert presence.reach(frozenset({"other"})) is None
    gone = spell_map.pop(5)
    presence.removed(gone)
    assert not presence.touched(group)
    assert presence.reach(frozenset({"blood_pact"})) is None


def test_the_memo_is_emptied_when_a_spell_changes() -> None:
    presence, spell_map = _presence([_spell(5, GLOBE)])
    presence.memo[("answer",)] = 1
    changed = spell_map[5].with_data(counter=1)
    old, spell_map[5] = spell_map[5], changed
    presence.replaced(old, changed)
    assert presence.memo == {}
    assert presence.generation == 1
