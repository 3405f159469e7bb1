"""The state's records: copies with changed fields, value semantics of the named-tuple records."""

from __future__ import annotations

import pytest

from engine.coords import coord
from engine.state import Card, Group, HostRef, Mana, Minion, PlayerState, Side, evolve


def _minion() -> Minion:
    return Minion(7, "recruit", "archer", "valdor", 3, 3, hand=1, missile=2)


def test_evolve_changes_only_the_named_fields_of_a_dataclass() -> None:
    player = PlayerState(Side.RED, "war", pool=Mana(), hand=(Card(1, "fortitude"),))
    changed = evolve(player, pool=Mana(1, 0, 0, 0, 0, 0), hand=())
    assert changed.pool == Mana(1, 0, 0, 0, 0, 0)
    assert changed.hand == ()
    assert changed.side is Side.RED and changed.house == "war"
    assert player.hand == (Card(1, "fortitude"),)


def test_evolve_changes_a_named_tuple_record() -> None:
    minion = _minion()
    assert evolve(minion, hp=1) == minion._replace(hp=1)
    assert evolve(minion, hp=1).missile == 2


def test_evolve_refuses_a_field_the_record_does_not_have() -> None:
    with pytest.raises(TypeError, match="PlayerState has no field hnd"):
        evolve(PlayerState(Side.RED, "war"), hnd=())
    with pytest.raises(TypeError, match="Minion has no field power"):
        evolve(_minion(), power=2)


def test_fast_copies_keep_every_other_field() -> None:
    minion = _minion()
    assert minion.with_hp(1) == minion._replace(hp=1)
    assert minion.with_level(2, earned_level=True) == minion._replace(level=2, earned_level=True)
    group = Group(3, Side.RED, Side.RED, coord(1, 1), (minion,))
    assert group.with_minions(()) == group._replace(minions=())


def test_records_compare_hash_and_order_by_value() -> None:
    assert coord(2, 3) == coord(2, 3) and hash(coord(2, 3)) == hash(coord(2, 3))
    assert sorted([coord(2, 1), coord(1, 5)]) == [coord(1, 5), coord(2, 1)]
    assert {HostRef.minion(4): 1}[HostRef.minion(4)] == 1
    assert HostRef.minion(4) != HostRef.group(4)
