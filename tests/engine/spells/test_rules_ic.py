"""Initiative spells (I5, I6) and speed and failure rules (C1-C8)."""

from engine.spells.catalogue import load_spells
from engine.spells.modifiers import initiative_lock
from engine.spells.targeting import validate_casts
from engine.state import HostRef, Mana
from tests.engine.spells.helpers import (
    BLUE,
    RED,
    Board,
    at,
    cast,
    content_with,
    hp,
    kinds,
    run,
    with_pool,
)

SPEEDS = """
[[spell]]
id = "t_slow"
name = "T Slow"
house = "justice"
cost = "1+0"
type = "manifestation"
target = "globe"
speed = "slow"
rules = "Test."
effects = [{ do = "gain_mana", mana = "order", amount = 1 }]

[[spell]]
id = "t_normal"
name = "T Normal"
house = "justice"
cost = "1+0"
type = "manifestation"
target = "globe"
rules = "Test."
effects = [{ do = "gain_mana", mana = "order", amount = 1 }]

[[spell]]
id = "t_fast"
name = "T Fast"
house = "justice"
cost = "1+0"
type = "manifestation"
target = "globe"
speed = "fast"
rules = "Test."
effects = [{ do = "gain_mana", mana = "order", amount = 1 }]

[[spell]]
id = "t_immediate"
name = "T Immediate"
house = "justice"
cost = "1+0"
type = "manifestation"
target = "globe"
speed = "immediate"
rules = "Test."
effects = [{ do = "gain_mana", mana = "order", amount = 1 }]

[[spell]]
id = "t_fragile"
name = "T Fragile"
house = "justice"
cost = "2+0"
type = "manifestation"
target = "minion"
rules = "Test: squanders into 2 damage to the caster's Sanctum group."
requires = { execution = [{ req = "caster_initiative", has = true }] }
effects = [{ do = "damage", amount = 1 }]
on_squander = [{ do = "drain_mana", who = "caster", mana = "mystery", amount = 3 }]
"""


def test_I5_timepiece_swaps_initiative_and_does_nothing_more():
    b = Board(initiative=RED)
    card = b.card(BLUE, "adriels_timepiece")
    with_pool(b, BLUE)
    world = run(b, {BLUE: [cast(card, "globe")]})
    assert world.initiative is BLUE
    assert world.active_spells == ()
    assert [e.kind for e in world.report if e.kind == "initiative_swapped"] == [
        "initiative_swapped"
    ]


def test_I5_two_timepieces_swap_twice():
    b = Board(initiative=RED)
    c1, c2 = b.card(BLUE, "adriels_timepiece"), b.card(RED, "adriels_timepiece")
    with_pool(b, BLUE)
    with_pool(b, RED)
    world = run(b, {BLUE: [cast(c1, "globe")], RED: [cast(c2, "globe")]})
    assert world.initiative is RED


def test_I6_lienna_takes_initiative_and_holds_it_against_the_timepiece():
    b = Board(initiative=BLUE)
    b.houses[RED] = "life"
    town = b.structure("town", "C3", RED)
    lienna = b.card(RED, "lienna")
    clock = b.card(BLUE, "adriels_timepiece")
    with_pool(b, RED)
    with_pool(b, BLUE)
    # Blue has initiative: its Timepiece runs first (swap to red), then Lienna seizes it anyway.
    world = run(b, {RED: [cast(lienna, "structure", town)], BLUE: [cast(clock, "globe")]})
    assert world.initiative is RED
    assert initiative_lock(world) is RED
    # While she is in play, another Timepiece changes nothing.
    state = world.state
    b2 = Board()
    b2.groups, b2.structures, b2.spells = (
        list(state.groups),
        list(state.structures),
        list(state.active_spells),
    )
    b2.next_id, b2.initiative = state.next_id, state.initiative
    clock2 = b2.card(BLUE, "adriels_timepiece")
    with_pool(b2, BLUE)
    world2 = run(b2, {BLUE: [cast(clock2, "globe")]})
    assert world2.initiative is RED
    # When she dies the lock goes with her.
    hero = next(m for g in world2.groups for m in g.minions if m.name == "Lienna")
    world2.kill_minion(hero.id, "died")
    assert initiative_lock(world2) is None


def test_C1_speed_defaults_to_normal():
    spells = load_spells()
    assert spells["fireball"].speed == "normal"
    assert {s.speed for s in spells.values()} == {"immediate", "fast", "normal", "slow"}


def test_C2_rank_then_initiative_then_issue_order():
    content = content_with(SPEEDS)
    b = Board(initiative=BLUE)
    r = [b.card(RED, s) for s in ("t_slow", "t_normal", "t_fast", "t_normal")]
    bl = [b.card(BLUE, s) for s in ("t_normal", "t_slow", "t_fast")]
    with_pool(b, RED)
    with_pool(b, BLUE)
    world = run(
        b, {RED: [cast(c, "globe") for c in r], BLUE: [cast(c, "globe") for c in bl]}, content
    )
    order = [(spell, side) for _, spell, side in kinds(world, "spell_executed")]
    assert order == [
        ("t_fast", "blue"),
        ("t_fast", "red"),
        ("t_normal", "blue"),
        ("t_normal", "red"),
        ("t_normal", "red"),
        ("t_slow", "blue"),
        ("t_slow", "red"),
    ]
    cards = [
        e.get("card") for e in world.report if e.kind == "spell_executed" and e.get("side") == "red"
    ]
    assert cards == [r[2], r[1], r[3], r[0]]


def test_C3_immediate_resolves_before_anything_else():
    content = content_with(SPEEDS)
    b = Board(initiative=BLUE)
    c1 = b.card(BLUE, "t_fast")
    c2 = b.card(RED, "t_immediate")
    with_pool(b, RED)
    with_pool(b, BLUE)
    world = run(b, {RED: [cast(c2, "globe")], BLUE: [cast(c1, "globe")]}, content)
    assert kinds(world, "spell_executed")[0] == ("spell_executed", "t_immediate", "red")


def test_C4_targeting_reserves_mana(content):
    b = Board()
    b.group(BLUE, "D5")
    cards = [b.card(RED, "adriels_timepiece") for _ in range(3)]
    b.pool(RED, clarity=5, order=2)
    problems = validate_casts(b.state(), RED, [cast(c, "globe") for c in cards], content)
    # Three copies need 6 clarity and 3 order: the third is refused (S6 aside: a globe target).
    assert ("no_mana", 2) in [(p.code, p.order_index) for p in problems]


def test_C5_mana_shortfall_at_execution_returns_the_spell_to_hand(content):
    b = Board(initiative=BLUE)
    b.houses[BLUE] = "mind"
    leech = b.card(BLUE, "mind_leech")
    clock = b.card(RED, "adriels_timepiece")
    b.pool(RED, clarity=2, order=1)
    with_pool(b, BLUE)
    state = b.state()
    assert validate_casts(state, RED, [cast(clock, "globe")], content) == []
    world = run(b, {RED: [cast(clock, "globe")], BLUE: [cast(leech, "globe")]})
    assert kinds(world, "spell_fizzled") == [("spell_fizzled", "adriels_timepiece", "red")]
    assert [c.uid for c in world.player(RED).hand] == [clock]
    assert world.player(RED).pool == Mana(clarity=1, order=0)
    assert "adriels_timepiece" not in world.player(RED).cast_log


def test_C5_spell_taken_from_hand_stays_where_it_went():
    b = Board(initiative=BLUE)
    doubt = b.card(BLUE, "whispered_doubt")
    clock = b.card(RED, "adriels_timepiece")
    b.pool(RED, clarity=2, order=1)
    with_pool(b, BLUE)
    world = run(b, {RED: [cast(clock, "globe")], BLUE: [cast(doubt, "globe")]})
    assert kinds(world, "spell_fizzled") == [("spell_fizzled", "adriels_timepiece", "red")]
    assert [c.uid for c in world.player(RED).discard] == [clock]
    assert world.player(RED).pool == Mana(clarity=2, order=1)


def test_C6_prerequisite_failure_pays_and_discards():
    content = content_with(SPEEDS)
    b = Board(initiative=RED)
    g = b.group(BLUE, "D5")
    clock = b.card(BLUE, "adriels_timepiece")
    fragile = b.card(RED, "t_fragile")
    b.pool(RED, order=2, mystery=5)
    with_pool(b, BLUE)
    # Red holds initiative at targeting, but Blue's fast Timepiece... runs after? Use speed:
    # the Timepiece is normal, t_fragile normal; red goes first. Give blue the initiative swap
    # via an immediate spell instead.
    world = run(
        b,
        {RED: [cast(fragile, "minion", b.minion_ids(g)[0])], BLUE: [cast(clock, "globe")]},
        content,
    )
    assert kinds(world, "spell_executed")[0][1] == "t_fragile"
    b2 = Board(initiative=BLUE)
    g2 = b2.group(BLUE, "D5")
    fragile2 = b2.card(RED, "t_fragile")
    b2.pool(RED, order=2, mystery=5)
    world2 = run(b2, {RED: [cast(fragile2, "minion", b2.minion_ids(g2)[0])]}, content)
    assert kinds(world2, "spell_squandered") == [("spell_squandered", "t_fragile", "red")]
    assert world2.player(RED).discard[-1].uid == fragile2
    # C7: the failure effect took 3 Mystery instead of the normal cost (2 Order stay).
    assert world2.player(RED).pool == Mana(order=2, mystery=2)
    assert hp(world2, b2.minion_ids(g2)[0]) == 7


def test_C7_no_failure_effect_on_an_unpaid_fizzle():
    content = content_with(SPEEDS)
    b = Board(initiative=BLUE)
    b.houses[BLUE] = "mind"
    g = b.group(BLUE, "D5")
    leech = b.card(BLUE, "mind_leech")
    fragile = b.card(RED, "t_fragile")
    b.pool(RED, order=2, mystery=5)
    with_pool(b, BLUE)
    world = run(
        b,
        {RED: [cast(fragile, "minion", b.minion_ids(g)[0])], BLUE: [cast(leech, "globe")]},
        content,
    )
    assert kinds(world, "spell_fizzled") == [("spell_fizzled", "t_fragile", "red")]
    assert world.player(RED).pool == Mana(order=1, mystery=4)


def test_C8_ward_makes_a_matching_enemy_spell_squander_and_is_spent():
    b = Board()
    g = b.group(BLUE, "D5")
    b.group(RED, "D3")
    b.active("aegis_of_dawn", BLUE, HostRef.group(g))
    c1 = b.card(RED, "verdict")  # manifestation: warded
    c2 = b.card(RED, "restoration")  # a second manifestation: the ward is spent
    with_pool(b, RED)
    b.houses[RED] = "justice"
    world = run(b, {RED: [cast(c1, "group", g), cast(c2, "group", g)]})
    assert kinds(world, "spell_squandered", "spell_executed")[:2] == [
        ("spell_squandered", "verdict", "red"),
        ("spell_executed", "restoration", "red"),
    ]
    assert world.spells_on(HostRef.group(g)) == ()


GROVE_WARD = """
[[spell]]
id = "t_grove_ward"
name = "T Grove Ward"
house = "life"
cost = "1+1"
type = "alteration"
target = "group"
qualifiers = ["augment"]
rules = "Test: while the group stands in a forest, enemy manifestations against it squander."
requires = { persistent = [{ req = "terrain_is", terrains = ["forest"] }] }
effects = [{ do = "ward", spell_type = "manifestation" }]
"""


def test_C8_a_ward_is_potent_only_while_its_persistent_requirements_hold():
    """A ward is a continuous effect: like every other, it acts only while the persistent
    requirements of its spell hold on the host (a ward in a forest, the group out of it)."""
    content = content_with(GROVE_WARD)
    events: dict[str, list[tuple[str, ...]]] = {}
    for terrain in ("forest", "plains"):
        b = Board()
        b.terrain[at("D5")] = terrain
        g = b.group(BLUE, "D5")
        b.group(RED, "D3")
        b.active("t_grove_ward", BLUE, HostRef.group(g))
        card = b.card(RED, "verdict")
        with_pool(b, RED)
        b.houses[RED] = "justice"
        world = run(b, {RED: [cast(card, "group", g)]}, content)
        events[terrain] = kinds(world, "spell_squandered", "spell_executed")
    assert events == {
        "forest": [("spell_squandered", "verdict", "red")],
        "plains": [("spell_executed", "verdict", "red")],
    }


def test_C8_counter_cancels_an_enemy_active_spell_by_filter():
    b = Board()
    g = b.group(BLUE, "D5")
    b.active("fear", BLUE, HostRef.group(g), expires_turn=9)
    b.active("ostracize", BLUE, HostRef.group(g))
    b.active("mountain_climb", RED, HostRef.group(g), expires_turn=9)
    card = b.card(RED, "writ_of_annulment")
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "globe")]})
    left = [(s.spell_id, s.owner) for s in world.active_spells]
    assert left == [("ostracize", BLUE), ("mountain_climb", RED)]
