"""Sanctum spell rules S1-S12 (seed 000), exercised on the spell phase."""

from engine.spells.catalogue import load_spells
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

INLINE = """
[[spell]]
id = "test_ward_stone"
name = "Test Ward Stone"
house = "justice"
cost = "1+0"
type = "alteration"
target = "group"
rules = "Test alteration."
effects = [{ do = "modify", stat = "armor", amount = 1 }]

[[spell]]
id = "test_hidden_mark"
name = "Test Hidden Mark"
house = "justice"
cost = "1+0"
type = "alteration"
target = "group"
visible = false
rules = "Test non-visible alteration."
effects = [{ do = "modify", stat = "hand", amount = 1 }]

[[spell]]
id = "test_cumulative_mark"
name = "Test Cumulative Mark"
house = "justice"
cost = "1+0"
type = "alteration"
target = "group"
cumulative = true
rules = "Test cumulative alteration."
effects = [{ do = "modify", stat = "hand", amount = 1 }]

[[spell]]
id = "test_spark"
name = "Test Spark"
house = "justice"
cost = "1+0"
type = "manifestation"
target = "group"
rules = "Test instant: 1 damage."
effects = [{ do = "damage", amount = 1 }]
"""


def test_S1_cost_paid_in_the_houses_two_mana_types():
    b = Board()
    g = b.group(BLUE, "D5")
    b.group(RED, "D3")
    card = b.card(RED, "restoration")  # hope: clarity + order, 2+1
    b.pool(RED, clarity=3, order=2, strife=4)
    world = run(b, {RED: [cast(card, "group", g)]})
    assert world.player(RED).pool == Mana(clarity=1, order=1, strife=4)


def test_S1_every_catalogue_cost_uses_its_house():
    spells = load_spells()
    assert {s.house for s in spells.values()} == {
        "abomination",
        "body",
        "death",
        "despair",
        "hope",
        "justice",
        "life",
        "making",
        "mind",
        "nature",
        "unmaking",
        "war",
    }


def test_S2_manifestation_never_active_alteration_stays():
    content = content_with(INLINE)
    b = Board()
    g = b.group(BLUE, "D5")
    c1 = b.card(RED, "test_spark")
    c2 = b.card(RED, "test_ward_stone")
    with_pool(b, RED)
    world = run(b, {RED: [cast(c1, "group", g), cast(c2, "group", g)]}, content)
    on_host = [s.spell_id for s in world.spells_on(HostRef.group(g))]
    assert on_host == ["test_ward_stone"]


def test_S2_summoning_and_hero_create_minions():
    b = Board()
    b.group(RED, "C3")
    town = b.structure("town", "C4", RED)
    c1 = b.card(RED, "wolf_pack")
    c2 = b.card(RED, "ogi")
    with_pool(b, RED)
    world = run(b, {RED: [cast(c1, "square", "D3"), cast(c2, "structure", town)]})
    wolves = world.group_at(at("D3"))
    assert wolves is not None and wolves.is_monster_group and len(wolves.minions) == 3
    ogi = world.group_at(at("C4"))
    assert ogi is not None and ogi.minions[0].name == "Ogi" and "hero" in ogi.minions[0].traits


def test_S3_each_target_type_refuses_the_wrong_thing(content):
    b = Board()
    monsters = b.group(BLUE, "D5", "monster")
    recruits = b.group(BLUE, "E5", "swordsman")
    b.group(RED, "D4")
    sanctum = b.structures[0].id
    with_pool(b, RED)
    cards = {
        "slay_monster": b.card(RED, "slay_monster"),
        "shifting_sands": b.card(RED, "shifting_sands"),
        "entangling_roots": b.card(RED, "entangling_roots"),
        "raze": b.card(RED, "raze"),
        "wolf_pack": b.card(RED, "wolf_pack"),
    }
    state = b.state()
    rec_minion = b.minion_ids(recruits)[0]
    mon_minion = b.minion_ids(monsters)[0]
    bad = [
        cast(cards["slay_monster"], "minion", rec_minion),
        cast(cards["shifting_sands"], "minion", mon_minion),
        cast(cards["entangling_roots"], "group", recruits),
        cast(cards["raze"], "structure", sanctum),
        cast(cards["wolf_pack"], "square", "D5"),
    ]
    codes = [p.code for p in validate_casts(state, RED, bad, content)]
    assert codes == ["target_kind", "target_kind", "target_kind", "sanctum", "square_occupied"]
    good = [cast(cards["slay_monster"], "minion", mon_minion)]
    assert validate_casts(state, RED, good, content) == []


def test_S4_cost_changes_each_turn_in_hand(content):
    spell = load_spells()["burst_of_world"]
    assert [str(spell.cost_on_turn(t)) for t in (3, 4, 5, 6)] == ["1+0", "2+0", "3+0", "1+0"]
    b = Board(turn=5)
    card = b.card(BLUE, "burst_of_world")
    b.pool(BLUE, world=2)
    problems = validate_casts(b.state(), BLUE, [cast(card, "globe")], content)
    assert [p.code for p in problems] == ["no_mana"]


def test_S5_cannot_cast_a_card_twice_or_not_held(content):
    b = Board()
    card = b.card(RED, "adriels_timepiece")
    with_pool(b, RED)
    problems = validate_casts(
        b.state(), RED, [cast(card, "globe"), cast(card, "globe"), cast(999, "globe")], content
    )
    assert {p.code for p in problems} >= {"duplicate_card", "not_in_hand"}


def test_S6_one_copy_per_target_per_turn_unless_cumulative():
    content = content_with(INLINE)
    b = Board()
    g = b.group(BLUE, "D5")
    a1, a2 = b.card(RED, "test_ward_stone"), b.card(RED, "test_ward_stone")
    c1, c2 = b.card(RED, "test_cumulative_mark"), b.card(RED, "test_cumulative_mark")
    with_pool(b, RED)
    state = b.state()
    same = validate_casts(state, RED, [cast(a1, "group", g), cast(a2, "group", g)], content)
    assert [(p.code, p.order_index) for p in same] == [("non_cumulative", 1)]
    cumulative = validate_casts(state, RED, [cast(c1, "group", g), cast(c2, "group", g)], content)
    assert cumulative == []


def test_S6_one_target_however_it_is_named():
    # The group named once by its id and once by its square is still one target.
    content = content_with(INLINE)
    b = Board()
    g = b.group(BLUE, "D5")
    a1, a2 = b.card(RED, "test_ward_stone"), b.card(RED, "test_ward_stone")
    with_pool(b, RED)
    problems = validate_casts(
        b.state(), RED, [cast(a1, "group", g), cast(a2, "group", "D5")], content
    )
    assert [(p.code, p.order_index) for p in problems] == [("non_cumulative", 1)]


def test_S7_same_non_instant_on_one_target_initiative_side_wins():
    content = content_with(INLINE)
    b = Board(initiative=BLUE)
    g = b.group(BLUE, "D5")
    rc, bc = b.card(RED, "test_ward_stone"), b.card(BLUE, "test_ward_stone")
    with_pool(b, RED)
    with_pool(b, BLUE)
    world = run(b, {RED: [cast(rc, "group", g)], BLUE: [cast(bc, "group", g)]}, content)
    events = kinds(world, "spell_executed", "spell_squandered")
    assert events == [
        ("spell_executed", "test_ward_stone", "blue"),
        ("spell_squandered", "test_ward_stone", "red"),
    ]
    assert [s.owner for s in world.spells_on(HostRef.group(g))] == [BLUE]


def test_S7_same_instant_on_one_target_both_succeed():
    content = content_with(INLINE)
    b = Board()
    g = b.group(BLUE, "D5")
    rc, bc = b.card(RED, "test_spark"), b.card(BLUE, "test_spark")
    with_pool(b, RED)
    with_pool(b, BLUE)
    world = run(b, {RED: [cast(rc, "group", g)], BLUE: [cast(bc, "group", g)]}, content)
    assert [e[0] for e in kinds(world, "spell_executed")] == ["spell_executed"] * 2
    assert hp(world, b.minion_ids(g)[0]) == 5


def test_S8_active_spell_owned_by_caster_hosted_by_target_and_leaves_with_host():
    content = content_with(INLINE)
    b = Board()
    g = b.group(BLUE, "D5")
    c1 = b.card(RED, "test_ward_stone")
    with_pool(b, RED)
    world = run(b, {RED: [cast(c1, "group", g)]}, content)
    [spell] = world.spells_on(HostRef.group(g))
    assert spell.owner is RED and spell.host == HostRef.group(g)
    world.remove_group(g, "died")
    assert world.spells_on(HostRef.group(g)) == ()


def test_S8_a_spell_moves_to_a_new_host():
    b = Board()
    g1 = b.group(RED, "D3")
    g2 = b.group(RED, "F3")
    card = b.card(RED, "banner_of_the_fallen")
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "group", g1)]})
    world.remove_group(g1, "died")
    [banner] = [s for s in world.active_spells if s.spell_id == "banner_of_the_fallen"]
    assert banner.host == HostRef.group(g2)


def test_S9_host_and_player_lists_in_casting_order():
    content = content_with(INLINE)
    b = Board()
    g = b.group(BLUE, "D5")
    c1, c2, c3 = (
        b.card(RED, s) for s in ("test_ward_stone", "test_hidden_mark", "test_cumulative_mark")
    )
    with_pool(b, RED)
    world = run(
        b, {RED: [cast(c1, "group", g), cast(c2, "group", g), cast(c3, "group", g)]}, content
    )
    in_order = ["test_ward_stone", "test_hidden_mark", "test_cumulative_mark"]
    # Both the live host list (what dispels and counters read) and the saved state's.
    assert [s.spell_id for s in world.spells_on(HostRef.group(g))] == in_order
    assert [s.spell_id for s in world.state.spells_on(HostRef.group(g))] == in_order
    uids = [s.uid for s in world.state.spells_of(RED)]
    assert uids == sorted(uids)


def test_S10_visible_non_cumulative_per_host_but_hidden_stacks_and_ignores_dispel():
    content = content_with(INLINE)
    b = Board()
    g = b.group(BLUE, "D5")
    b.active("test_ward_stone", RED, HostRef.group(g))
    b.active("test_hidden_mark", RED, HostRef.group(g))
    c1 = b.card(RED, "test_ward_stone")
    c2 = b.card(RED, "test_hidden_mark")
    c3 = b.card(BLUE, "restoration")
    with_pool(b, RED)
    with_pool(b, BLUE)
    world = run(
        b,
        {RED: [cast(c1, "group", g), cast(c2, "group", g)], BLUE: [cast(c3, "group", g)]},
        content,
    )
    assert ("spell_squandered", "test_ward_stone", "red") in kinds(world, "spell_squandered")
    left = [s.spell_id for s in world.spells_on(HostRef.group(g))]
    assert left == ["test_hidden_mark", "test_hidden_mark"]


def test_S11_spell_on_a_target_killed_earlier_squanders():
    b = Board()
    g = b.group(BLUE, "D5", "monster")
    b.group(RED, "D3")
    c1 = b.card(RED, "slay_monster")
    c2 = b.card(RED, "second_chance")
    with_pool(b, RED)
    minion = b.minion_ids(g)[0]
    world = run(b, {RED: [cast(c1, "minion", minion), cast(c2, "group", g)]})
    assert kinds(world, "spell_squandered") == [("spell_squandered", "second_chance", "red")]
    assert world.player(RED).discard[-1].spell_id == "second_chance"


def test_S11_square_spell_after_a_group_arrived_squanders():
    b = Board(initiative=BLUE)
    b.group(RED, "C3")
    b.group(BLUE, "D6")
    rc = b.card(RED, "wolf_pack")
    bc = b.card(BLUE, "wolf_pack")
    with_pool(b, RED)
    with_pool(b, BLUE)
    world = run(b, {RED: [cast(rc, "square", "D4")], BLUE: [cast(bc, "square", "D4")]})
    assert kinds(world, "spell_executed", "spell_squandered") == [
        ("spell_executed", "wolf_pack", "blue"),
        ("spell_squandered", "wolf_pack", "red"),
    ]


def test_S12_squandered_once_per_game_spell_can_be_tried_again(content):
    b = Board()
    town = b.structure("town", "C3", RED)
    b.group(BLUE, "C3")  # an enemy group stands in the town: no room, the hero squanders
    card = b.card(RED, "lienna")
    b.pool(RED, clarity=10, world=10)
    b.houses[RED] = "life"
    world = run(b, {RED: [cast(card, "structure", town)]})
    assert kinds(world, "spell_squandered") == [("spell_squandered", "lienna", "red")]
    assert "lienna" not in world.player(RED).cast_log
    second = Board()
    town2 = second.structure("town", "C3", RED)
    second.cast_log[RED] = world.player(RED).cast_log
    card2 = second.card(RED, "lienna")
    second.pool(RED, clarity=10, world=10)
    assert validate_casts(second.state(), RED, [cast(card2, "structure", town2)], content) == []
    world2 = run(second, {RED: [cast(card2, "structure", town2)]})
    assert "lienna" in world2.player(RED).cast_log
    assert validate_casts(world2.state, RED, [cast(card2, "structure", town2)], content)[
        0
    ].code in (
        "once_per_game",
        "not_in_hand",
    )


def test_S12_a_second_once_per_game_cast_is_refused(content):
    b = Board()
    card = b.card(RED, "codex_of_order")
    b.cast_log[RED] = ("codex_of_order",)
    with_pool(b, RED)
    codes = [p.code for p in validate_casts(b.state(), RED, [cast(card, "globe")], content)]
    assert codes == ["once_per_game"]
