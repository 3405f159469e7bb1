"""The computer casts from everything the engine offers: hand cards, the hereditary spell and
bound spells, each on a target the engine accepts."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from ai import choose_orders
from ai.options import cast_groups, cast_options
from engine.content import Content, load_content
from engine.coords import Coord
from engine.legal import cast_options as engine_options
from engine.orders import CastOrder, Orders, Target
from engine.state import ActiveSpell, GameState, Group, HostRef, Mana, Minion, Side
from engine.validate import validate_orders
from engine.view import view_for
from tests.ai.positions import group, position

CLAWS = 600


@pytest.fixture(scope="module")
def content() -> Content:
    return load_content()


def with_dracha(content: Content) -> GameState:
    """Red's hero Dracha (her claws carry Dragon Breath, power 2/4) two squares from four blue
    swordsmen, with mana for War's hereditary Warcry."""
    dracha = Minion(
        500, "recruit", "dracha", None, 12, 12, armor=1, hand=4, traits=frozenset({"hero"})
    )
    groups = [
        Group(5, Side.RED, Side.RED, Coord.parse("E5"), (dracha,)),
        group(content, 2, Side.BLUE, "G5", ("swordsman",) * 4),
    ]
    state = position(content, groups, pool=Mana(*(3 for _ in range(6))))
    claws = ActiveSpell(
        CLAWS, "dracha_claws", Side.RED, HostRef.minion(500), 4, visible=False, helper=True
    )
    return replace(state, active_spells=(claws,))


def test_the_options_are_the_engines_each_accepted_alone(content: Content) -> None:
    state = with_dracha(content)
    options = cast_options(state, Side.RED, content)
    expected = [o.order(t) for o in engine_options(state, Side.RED, content) for t in o.targets]
    assert [o.order for o in options] == expected
    for option in options:
        orders = Orders(casts=(option.order,))
        assert validate_orders(state, Side.RED, orders, content) == []
    given = {o.order for o in options}
    assert CastOrder(0, Target("group", 5), spell_id="warcry") in given
    for power in (2, 4):
        bound = CastOrder(
            0, Target("group", 2), power=power, bound_source=CLAWS, spell_id="dragon_breath"
        )
        assert bound in given
    # One group per thing cast: the bound spell's two levels are one choice for random play.
    holders = [g for g in cast_groups(state, Side.RED, content) if g[0].order.bound_source]
    assert [[o.order.power for o in g] for g in holders] == [[2, 4]]


def test_greedy_looses_the_bound_spell_at_its_strongest(content: Content) -> None:
    state = with_dracha(content)
    view = view_for(state, Side.RED, content)
    orders = choose_orders(view, "greedy", random.Random(1), content=content)
    assert validate_orders(state, Side.RED, orders, content) == []
    breath = [c for c in orders.casts if c.spell_id == "dragon_breath"]
    assert breath == [
        CastOrder(0, Target("group", 2), power=4, bound_source=CLAWS, spell_id="dragon_breath")
    ]
