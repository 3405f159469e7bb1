"""The spell system's own decisions (docs/spells.md, D-SP1 to D-SP22)."""

from engine.spells.effects import end_spell
from engine.spells.modifiers import effective_minion, produces_mana
from engine.spells.targeting import validate_casts
from engine.state import GLOBE, HostRef, Mana
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
    world_of,
)

LAYERS = """
[[spell]]
id = "t_set"
name = "T Set"
house = "body"
cost = "1+0"
type = "alteration"
target = "group"
cumulative = true
rules = "Hand becomes 5."
effects = [{ do = "modify", stat = "hand", op = "set", amount = 5 }]

[[spell]]
id = "t_add"
name = "T Add"
house = "body"
cost = "1+0"
type = "alteration"
target = "group"
cumulative = true
rules = "+3 hand."
effects = [{ do = "modify", stat = "hand", amount = 3 }]

[[spell]]
id = "t_cap"
name = "T Cap"
house = "body"
cost = "1+0"
type = "alteration"
target = "group"
cumulative = true
rules = "Hand at most 6."
effects = [{ do = "modify", stat = "hand", op = "max", amount = 6 }]

[[spell]]
id = "t_brittle"
name = "T Brittle"
house = "body"
cost = "1+0"
type = "manifestation"
target = "group"
rules = "Squanders into the caster drawing a card."
requires = { execution = [{ req = "caster_initiative" }] }
effects = [{ do = "damage", amount = 1 }]
on_squander = [{ do = "draw" }, { do = "damage", amount = 5 }]
"""


def test_D_SP1_hereditary_of_another_house_and_unknown_bound_source_are_refused(content):
    b = Board()
    b.houses[RED] = "war"
    g = b.group(BLUE, "D5")
    with_pool(b, RED)
    orders = [
        cast(0, "globe", spell_id="clear_thought"),
        cast(0, "group", g, spell_id="shadow_lash", bound_source=999, power=1),
    ]
    assert [p.code for p in validate_casts(b.state(), RED, orders, content)] == [
        "not_in_hand",
        "bound_source",
    ]


def test_D_SP2_initiative_is_read_when_each_rank_begins():
    b = Board(initiative=RED)
    clock = b.card(RED, "adriels_timepiece")
    fast = b.card(RED, "fear")
    g = b.group(BLUE, "D5")
    red_normal = b.card(RED, "burst_of_world")
    blue_normal = b.card(BLUE, "burst_of_world")
    with_pool(b, RED)
    with_pool(b, BLUE)
    b.turn = 3
    world = run(
        b,
        {
            RED: [cast(clock, "globe"), cast(fast, "group", g), cast(red_normal, "globe")],
            BLUE: [cast(blue_normal, "globe")],
        },
    )
    order = [(s, side) for _, s, side in kinds(world, "spell_executed")]
    # Fast rank: red's Fear. Normal rank begins with red holding initiative: red's Timepiece and
    # Burst run before blue's Burst even though the Timepiece handed initiative to blue.
    assert order == [
        ("fear", "red"),
        ("adriels_timepiece", "red"),
        ("burst_of_world", "red"),
        ("burst_of_world", "blue"),
    ]


def test_D_SP3_a_short_pool_fizzles_before_a_missing_target_squanders():
    b = Board(initiative=BLUE)
    b.houses[BLUE] = "mind"
    victim = b.group(BLUE, "D5", "monster")
    leech = b.card(BLUE, "mind_leech")
    slay = b.card(RED, "slay_monster")
    b.pool(RED, mystery=4)
    with_pool(b, BLUE)
    minion = b.minion_ids(victim)[0]
    world = run(b, {RED: [cast(slay, "minion", minion)], BLUE: [cast(leech, "globe")]})
    assert kinds(world, "spell_fizzled") == [("spell_fizzled", "slay_monster", "red")]


def test_D_SP4_an_active_spells_card_stays_in_play_until_it_leaves():
    b = Board()
    g = b.group(RED, "D3")
    card = b.card(RED, "fortitude")
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "group", g)]})
    [spell] = world.spells_on(HostRef.group(g))
    assert spell.card_uid == card
    assert card not in [c.uid for c in world.player(RED).discard]
    end_spell(world, spell.uid, "dispelled")
    assert [c.uid for c in world.player(RED).discard] == [card]


def test_D_SP5_hex_reaches_neutral_groups_and_structures(content):
    b = Board()
    b.group(RED, "D3")
    wild = b.group("neutral", "D5")
    town = b.structure("town", "D4", "neutral")
    fear, raze = b.card(RED, "fear"), b.card(RED, "raze")
    with_pool(b, RED)
    state = b.state()
    assert validate_casts(state, RED, [cast(fear, "group", wild)], content) == []
    assert validate_casts(state, RED, [cast(raze, "structure", town)], content) == []


def test_D_SP6_missile_line_is_blocked_only_by_mountain_or_forest_between(content):
    b = Board()
    b.group(RED, "A1")
    g = b.group(BLUE, "D4")
    b.terrain[at("B2")] = "water"
    card = b.card(RED, "reapers_due")  # a missile spell without a range: the line alone decides
    with_pool(b, RED)
    target = cast(card, "minion", b.minion_ids(g)[0])
    assert validate_casts(b.state(), RED, [target], content) == []
    b.terrain[at("C3")] = "mountain"
    codes = [p.code for p in validate_casts(b.state(), RED, [target], content)]
    assert codes == ["no_line_of_sight"]


def test_D_SP7_terrain_spells_refuse_a_sanctum_square_and_spare_structures(content):
    b = Board()
    b.group(RED, "B2")
    card = b.card(RED, "volcano")
    with_pool(b, RED)
    codes = [p.code for p in validate_casts(b.state(), RED, [cast(card, "square", "A1")], content)]
    assert codes == ["sanctum"]


def test_D_SP8_a_visible_copy_on_the_host_blocks_any_owners_second_copy():
    b = Board()
    g = b.group(BLUE, "D5")
    b.active("ostracize", BLUE, HostRef.group(g))
    card = b.card(RED, "ostracize")
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "group", g)]})
    assert kinds(world, "spell_squandered") == [("spell_squandered", "ostracize", "red")]


def test_D_SP9_a_two_turn_conjuration_expires_at_the_second_spell_phase():
    b = Board(turn=3)
    g = b.group(RED, "D3")
    card = b.card(RED, "flying_carpet")
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "group", g)]})
    [carpet] = world.spells_on(HostRef.group(g))
    assert carpet.get("expires_turn") == 5


def test_D_SP10_group_spells_record_their_members():
    b = Board()
    g = b.group(RED, "D3", "swordsman", "archer")
    card = b.card(RED, "fortitude")
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "group", g)]})
    [spell] = world.spells_on(HostRef.group(g))
    assert spell.get("members") == tuple(b.minion_ids(g))


def test_D_SP11_layers_fold_set_then_add_then_cap_in_casting_order():
    content = content_with(LAYERS)
    b = Board()
    g = b.group(RED, "D3")
    for spell_id in ("t_cap", "t_add", "t_set"):
        b.active(spell_id, RED, HostRef.group(g))
    world = world_of(b.state(), content)
    group = world.group(g)
    assert group is not None
    # set 5, then +3 = 8, then capped at 6, although the cap is the oldest spell.
    assert effective_minion(world, group, group.minions[0]).hand == 6


def test_D_SP12_a_spell_that_is_not_potent_does_not_react():
    b = Board()
    town = b.structure("town", "C3", RED)
    b.group(RED, "C3", "swordsman")
    b.active("willing_supplicants", RED, HostRef.structure(town))
    world = world_of(b.state())
    world.broadcast("start_of_turn")
    assert world.player(RED).pool == Mana()
    group = world.group_at(at("C3"))
    assert group is not None
    world.add_minion(group.id, world.new_minion("swordsman"))
    world.broadcast("start_of_turn")
    assert world.player(RED).pool == Mana(will=1, strife=1)


def test_D_SP13_an_attribute_needs_a_target_that_fits_it():
    b = Board()
    friend = b.group(RED, "D3", hp=10)
    card = b.card(RED, "mountain_climb")  # War, on a friendly group: Battle Scar is hex-only
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "group", friend)]})
    assert [s for _, s, _ in kinds(world, "spell_executed")] == ["mountain_climb"]
    assert hp(world, b.minion_ids(friend)[0]) == 10


def test_D_SP14_a_bound_spell_carried_by_a_hero(content):
    b = Board()
    hero_group = b.group(RED, "D3", traits=("hero",))
    hero = b.minion_ids(hero_group)[0]
    b.active("dracha_claws", RED, HostRef.minion(hero))
    enemy = b.group(BLUE, "D5", hp=10)
    order = cast(0, "group", enemy, spell_id="dragon_breath", bound_source=hero, power=4)
    assert validate_casts(b.state(), RED, [order], content) == []
    world = run(b, {RED: [order]})
    assert hp(world, b.minion_ids(enemy)[0]) == 6


def test_D_SP16_a_counter_on_one_host_leaves_others_alone():
    b = Board()
    g1, g2 = b.group(RED, "D3"), b.group(RED, "F3")
    b.active("fear", BLUE, HostRef.group(g1), expires_turn=9)
    b.active("fear", BLUE, HostRef.group(g2), expires_turn=9)
    card = b.card(RED, "unravel")
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "group", g1)]})
    assert [s.host for s in world.active_spells] == [HostRef.group(g2)]


def test_D_SP17_lock_beats_a_swap():
    b = Board(initiative=BLUE)
    g = b.group(BLUE, "D5")
    b.active("liennas_grace", BLUE, HostRef.minion(b.minion_ids(g)[0]))
    card = b.card(RED, "adriels_timepiece")
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "globe")]})
    assert world.initiative is BLUE


def test_D_SP18_a_dispelled_colony_helper_takes_the_colony_with_it():
    b = Board()
    b.group(RED, "B2")
    card = b.card(RED, "found_city")
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "square", "C3")]})
    colony = world.structure_at(at("C3"))
    assert colony is not None and colony.kind == "colony" and colony.owner == RED
    assert produces_mana(world, colony)
    [helper] = world.spells_on(HostRef.structure(colony.id))
    end_spell(world, helper.uid, "dispelled")
    assert world.structure_at(at("C3")) is None
    assert world.player(RED).lost == 1


def test_D_SP19_failure_effects_without_a_target_still_touch_the_caster():
    content = content_with(LAYERS)
    b = Board(initiative=BLUE)
    g = b.group(BLUE, "D5", hp=10)
    b.deck_card(RED, "fireball")
    card = b.card(RED, "t_brittle")
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "group", g)]}, content)
    assert kinds(world, "spell_squandered") == [("spell_squandered", "t_brittle", "red")]
    assert [c.spell_id for c in world.player(RED).hand] == ["fireball"]
    assert hp(world, b.minion_ids(g)[0]) == 5


def test_D_SP20_cast_log_records_successes_only():
    b = Board()
    g = b.group(BLUE, "D5", "monster")
    c1 = b.card(RED, "slay_monster")
    c2 = b.card(RED, "slay_monster")
    with_pool(b, RED)
    m = b.minion_ids(g)[0]
    world = run(b, {RED: [cast(c1, "minion", m), cast(c2, "minion", m)]})
    assert world.player(RED).cast_log == ("slay_monster",)


def test_D_SP21_soul_jar_saves_the_first_dying_member_into_a_new_group():
    b = Board()
    g = b.group(RED, "D3", "swordsman", "archer", hp=3)
    b.active("soul_jar", RED, HostRef.group(g))
    saved_id, other = b.minion_ids(g)
    b.active("pixie_dust", BLUE, HostRef.minion(saved_id))
    world = world_of(b.state())
    assert world.kill_minion(saved_id, "killed", by=None) is False
    saved = world.minion(saved_id)
    holder = world.group_of(saved_id)
    assert saved is not None and saved.hp == saved.max_hp
    assert holder is not None and holder.id != g and holder.coord.dist(at("D3")) == 1
    assert world.active_spells == ()
    world.damage_minion(other, 9, "test")
    assert world.minion(other) is None


def test_D_SP21_a_lone_member_stays_where_it_is():
    b = Board()
    g = b.group(RED, "D3", hp=3)
    b.active("soul_jar", RED, HostRef.group(g))
    world = world_of(b.state())
    minion = b.minion_ids(g)[0]
    world.damage_minion(minion, 5, "test")
    holder = world.group_of(minion)
    assert holder is not None and holder.id == g and world.minion(minion) is not None


def test_D_SP22_mirage_makes_the_group_move_to_a_free_neighbour_in_the_movement_phase():
    b = Board()
    b.group(RED, "D3")
    g = b.group(BLUE, "D5")
    card = b.card(RED, "mirage")
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "group", g)]})
    group = world.group(g)
    # The spell phase leaves the group in place and names where it must go.
    assert group is not None and group.coord == at("D5")
    assert world.forced_moves[g].dist(at("D5")) == 1


def test_D_SP12_turn_wide_events_reach_the_initiative_side_first():
    for initiative, expected in ((BLUE, ["drachas_trade", "codex_of_order"]),
                                 (RED, ["codex_of_order", "drachas_trade"])):  # fmt: skip
        b = Board(initiative=initiative)
        b.active("codex_of_order", RED, GLOBE)
        town = b.structure("town", "F6", BLUE)
        b.active("drachas_trade", BLUE, HostRef.structure(town))
        world = world_of(b.state())
        world.broadcast("start_of_turn")
        assert [e.get("spell") for e in world.report if e.kind == "spell_effect"] == expected


def test_D_SP4_a_spell_whose_host_dies_later_in_the_phase_sends_its_card_to_the_discard():
    b = Board()
    b.houses[RED] = "body"
    g = b.group(BLUE, "D5", "monster", hp=3)
    b.group(RED, "D3")
    fear = b.card(RED, "fear")
    slay = b.card(RED, "slay_monster")
    with_pool(b, RED)
    minion = b.minion_ids(g)[0]
    world = run(b, {RED: [cast(fear, "group", g), cast(slay, "minion", minion)]})
    assert world.active_spells == ()
    assert sorted(c.uid for c in world.player(RED).discard) == sorted([fear, slay])


def test_D_SP15_duel_dice_are_committed_in_issue_order_and_the_rest_dispel():
    from engine.spells.duel import Duel

    # Red: a plain cast (2 dice), a boosted one (3), then a bound spell's higher level (3): too
    # few are left for the last, which gets none; 1 die is left to dispel with.
    duel = Duel.plan({RED: [(0, 2), (2, 3), (3, 3)], BLUE: [(0, 2)]})
    assert [duel.casting_dice(RED, i) for i in range(4)] == [2, 0, 3, 0]
    assert duel.dispel == {RED: 1, BLUE: 4}
    import random

    rng = random.Random(3)
    assert duel.try_dispel(rng, RED, 5) is None
    first = duel.try_dispel(rng, BLUE, 5)
    assert first is not None and 2 <= first <= 12
    assert duel.dispel[BLUE] == 2
