"""Every spell of the catalogue is cast at least once on a board made to hold a legal target."""

import pytest

from engine.content import load_content
from engine.coords import Coord
from engine.orders import CastOrder, Target
from engine.spells.targeting import legal_targets, validate_casts
from engine.state import HostRef
from tests.engine.spells.helpers import BLUE, RED, Board, kinds, run, with_pool

CONTENT = load_content()
CASTABLE = sorted(
    s.id
    for s in CONTENT.spells.values()
    if not s.helper and s.spell_class not in ("attribute", "bound")
)
BOOSTED = sorted(s.id for s in CONTENT.spells.values() if s.boosted_cost is not None)


def rich_board() -> Board:
    b = Board()
    b.structure("town", "C3", RED)
    b.group(RED, "B2", "archer", "swordsman", "swordsman", "archer", "swordsman", traits=("hero",))
    b.group(RED, "D3")
    b.group(BLUE, "D5", "swordsman", "swordsman", hp=30)
    b.group(BLUE, "F5", "monster", "monster", hp=30)
    b.structure("town", "E6", BLUE)
    b.structure("town", "B4", "neutral")
    b.terrain[b_at("C5")] = "forest"
    b.deck_card(RED, "fireball")
    with_pool(b, RED, 30)
    return b


def b_at(name: str) -> Coord:
    return Coord.parse(name)


@pytest.mark.parametrize("spell_id", CASTABLE)
def test_every_spell_can_be_cast_and_executes(spell_id, content):
    spell = CONTENT.spells[spell_id]
    b = rich_board()
    card = b.card(RED, spell_id)
    state = b.state()
    targets = legal_targets(state, RED, spell, content)
    assert targets, f"no legal target for {spell_id}"
    order = CastOrder(card, targets[0])
    assert validate_casts(state, RED, [order], content) == []
    world = run(b, {RED: [order]})
    assert ("spell_executed", spell_id, "red") in kinds(world, "spell_executed")


@pytest.mark.parametrize("spell_id", BOOSTED)
def test_every_boosted_version_costs_its_price_and_does_more(spell_id, content):
    """N7: the boosted cast takes its boosted cost, and leaves a different board from the plain
    cast on the same target (a boost that changed nothing would be a mana sink and no more)."""
    spell = CONTENT.spells[spell_id]
    assert spell.boosted_cost is not None
    outcomes = []
    for boosted in (False, True):
        b = rich_board()
        # The friendly groups wounded, so that a heal shows its strength as a blow does.
        b.groups = [
            g.with_minions(tuple(m.with_hp(2) for m in g.minions)) if g.owner is RED else g
            for g in b.groups
        ]
        card = b.card(RED, spell_id)
        target = legal_targets(b.state(), RED, spell, content)[0]
        order = CastOrder(card, target, boosted=boosted)
        assert validate_casts(b.state(), RED, [order], content) == []
        before = b.state().player(RED).pool
        world = run(b, {RED: [order]})
        assert ("spell_executed", spell_id, "red") in kinds(world, "spell_executed")
        paid = spell.boosted_cost if boosted else spell.cost
        assert before.total - world.player(RED).pool.total == paid.total
        outcomes.append(world.state.groups)
    assert outcomes[0] != outcomes[1]


def test_bound_spells_cast_from_their_carriers(content):
    b = rich_board()
    town = next(s.id for s in b.structures if s.kind == "town" and s.owner == RED)
    altar = b.active("shadow_altar", RED, HostRef.structure(town))
    # Dragon Breath reaches 2 squares from the dracha carrying it: the group at D3, not B2.
    hero = b.minion_ids(b.groups[1].id)[0]
    claws = b.active("dracha_claws", RED, HostRef.minion(hero))
    blue = b.groups[2].id
    orders = [
        CastOrder(0, _group(blue), power=3, bound_source=altar, spell_id="shadow_lash"),
        CastOrder(0, _group(blue), power=4, bound_source=claws, spell_id="dragon_breath"),
    ]
    assert validate_casts(b.state(), RED, orders, content) == []
    world = run(b, {RED: orders})
    assert [s for _, s, _ in kinds(world, "spell_executed")] == ["shadow_lash", "dragon_breath"]


def _group(gid: int) -> Target:
    return Target("group", gid)


@pytest.mark.parametrize(
    ("spell_id", "attribute"),
    [
        ("blood_pact", "tithe_of_blood"),
        ("fortitude", "vigour"),
        ("entangling_roots", "thorn_mark"),
        ("fireball", "battle_scar"),
    ],
)
def test_every_attribute_follows_its_house(spell_id, attribute, content):
    b = rich_board()
    card = b.card(RED, spell_id)
    spell = CONTENT.spells[spell_id]
    target = legal_targets(b.state(), RED, spell, content)[0]
    world = run(b, {RED: [CastOrder(card, target)]})
    executed = [s for _, s, _ in kinds(world, "spell_executed")]
    assert executed[:2] == [spell_id, attribute]


@pytest.mark.parametrize(
    ("spell_id", "helper"),
    [
        ("blood_pact", "pact_sealed"),
        ("lienna", "liennas_grace"),
        ("dracha", "dracha_claws"),
        ("found_city", "colony"),
        ("diomesia", "diomesias_calm"),
    ],
)
def test_helpers_are_placed_by_their_spells(spell_id, helper, content):
    b = rich_board()
    card = b.card(RED, spell_id)
    target = legal_targets(b.state(), RED, CONTENT.spells[spell_id], content)[0]
    world = run(b, {RED: [CastOrder(card, target)]})
    assert helper in [s.spell_id for s in world.active_spells]
