"""Changing one side's orders: adding to them, and removing one by its number in the echo."""

from __future__ import annotations

import pytest

from engine.coords import Coord
from engine.orders import (
    CastOrder,
    DiscardOrder,
    ManaChoice,
    MoveOrder,
    OrderNumberError,
    Orders,
    Target,
    add_orders,
    all_orders,
    remove_order,
)

E5 = Coord.parse("E5")
D7 = Coord.parse("D7")
F1 = Coord.parse("F1")


def test_add_replaces_a_groups_move_and_the_discard() -> None:
    orders = add_orders(Orders(), [MoveOrder(1, E5), DiscardOrder(11), MoveOrder(9, D7)])
    orders = add_orders(orders, [MoveOrder(1, F1), DiscardOrder(12)])
    assert orders.moves == (MoveOrder(9, D7), MoveOrder(1, F1))
    assert orders.discard == DiscardOrder(12)


def test_add_replaces_the_mana_choice_of_the_same_structure() -> None:
    g12 = Coord.parse("G12")
    orders = add_orders(Orders(), [ManaChoice(D7, "world"), ManaChoice(g12, "will")])
    orders = add_orders(orders, [ManaChoice(D7, "order"), MoveOrder(1, E5)])
    assert orders.mana_choices == (ManaChoice(g12, "will"), ManaChoice(D7, "order"))
    assert orders.moves == (MoveOrder(1, E5),)


def test_remove_order_by_echo_number() -> None:
    orders = add_orders(Orders(), [CastOrder(11, Target("square", E5)), MoveOrder(1, E5)])
    assert all_orders(remove_order(orders, 1)) == [MoveOrder(1, E5)]
    with pytest.raises(OrderNumberError, match="there is no order 3; you have 2"):
        remove_order(orders, 3)
    chosen = add_orders(orders, [ManaChoice(D7, "will")])
    assert remove_order(chosen, 2).mana_choices == (ManaChoice(D7, "will"),)
    assert remove_order(chosen, 3) == orders

    with pytest.raises(OrderNumberError, match="you have no orders to cancel"):
        remove_order(Orders(), 1)
