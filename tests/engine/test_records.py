"""The state's records: copies with changed fields, value semantics of the named-tuple records."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from engine.coords import coord
from engine.state import (
    Card,
    Group,
    HostRef,
    Mana,
    Minion,
    PlayerState,
    Side,
    Structure,
    evolve,
    record_builder,
)


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
    group = Group(3, Side.RED, Side.RED, coord(1, 1), (minion,))
    assert group.with_minions(()) == group._replace(minions=())


def test_records_compare_hash_and_order_by_value() -> None:
    assert coord(2, 3) == coord(2, 3) and hash(coord(2, 3)) == hash(coord(2, 3))
    assert sorted([coord(2, 1), coord(1, 5)]) == [coord(1, 5), coord(2, 1)]
    assert {HostRef.minion(4): 1}[HostRef.minion(4)] == 1
    assert HostRef.minion(4) != HostRef.group(4)


def test_a_built_record_is_the_record_its_constructor_makes() -> None:
    player = PlayerState(Side.RED, "war", pool=Mana(1, 0, 0, 0, 0, 0), hand=(Card(1, "fortitude"),))
    built = record_builder(PlayerState)(*(getattr(player, name) for name in player.__slots__))
    assert type(built) is PlayerState
    assert built == player and hash(built) == hash(player)
    assert pickle.dumps(built) == pickle.dumps(player)
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.house = "nature"  # type: ignore[misc]
    structure = Structure(4, "town", coord(2, 2), Side.BLUE, novices=("valdor",), mana_type="world")
    copy = structure.with_novices((), 1)
    assert copy == dataclasses.replace(structure, novices=(), counter=1)
    assert pickle.dumps(copy) == pickle.dumps(dataclasses.replace(structure, novices=(), counter=1))
