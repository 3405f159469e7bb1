"""Each effect primitive does what its words say, on a real World."""

from engine.spells.modifiers import (
    can_join,
    can_move,
    effective_minion,
    has_auras,
    moves,
    produces_mana,
    walks,
)
from engine.spells.primitives import PRIMITIVES
from engine.state import GLOBE, HostRef, Mana
from tests.engine.spells.helpers import (
    BLUE,
    RED,
    Board,
    at,
    cast,
    hp,
    kinds,
    run,
    with_pool,
    world_of,
)


def test_every_primitive_has_words_for_its_defaults():
    from engine.spells.primitives import parse_effect

    samples: dict[str, dict[str, object]] = {
        "damage": {"amount": 2}, "heal": {"amount": 1}, "adjust": {"stat": "armor", "amount": 1},
        "summon": {"unit": "wolf"}, "create_hero": {}, "change_terrain": {"terrain": "ice"},
        "gain_mana": {"amount": 1}, "drain_mana": {"mana": "order", "amount": 1},
        "attach": {"spell": "colony"}, "special": {"handler": "soul_jar"},
        "create_structure": {"helper": "colony"},
        "modify": {"stat": "hand", "amount": 1}, "grant": {"ability": "flight"},
        "aura_modify": {"stat": "hand", "amount": -1},
        "bind": {"spell": "shadow_lash"},
    }  # fmt: skip
    for name in PRIMITIVES:
        effect = parse_effect({"do": name, **samples.get(name, {})})
        words = effect.describe()
        assert words and words[0].isupper() and words.endswith("."), (name, words)


def test_regeneration_heals_at_start_of_turn_and_pact_drains_its_owner():
    b = Board()
    g = b.group(RED, "D3", hp=7)
    b.active("regeneration", RED, HostRef.minion(b.minion_ids(g)[0]))
    b.active("pact_sealed", BLUE, GLOBE)
    b.pool(BLUE, will=3, strife=1)
    world = world_of(b.state())
    world.damage_minion(b.minion_ids(g)[0], 5, "test")
    world.broadcast("start_of_turn")
    assert hp(world, b.minion_ids(g)[0]) == 4
    assert world.player(BLUE).pool == Mana(will=1)


def test_bedlam_hurts_a_group_that_enters_its_square():
    b = Board()
    g = b.group(BLUE, "D5", hp=7)
    b.active("bedlam", RED, HostRef.square(at("D4")), expires_turn=9)
    world = world_of(b.state())
    world.move_group(g, at("D4"))
    assert hp(world, b.minion_ids(g)[0]) == 5


def test_death_knell_rewards_the_first_death_for_good_then_ends():
    b = Board()
    g = b.group(BLUE, "D5", "swordsman", "swordsman")
    b.active("death_knell", RED, GLOBE, expires_turn=9)
    world = world_of(b.state())
    for minion in b.minion_ids(g):
        world.kill_minion(minion, "died")
    assert world.player(RED).pool == Mana(will=1)
    assert [s.spell_id for s in world.active_spells] == ["knell_echo"]
    world.broadcast("start_of_turn")
    assert world.player(RED).pool == Mana(will=2)


def test_diomesia_weakens_enemies_on_or_next_to_her_square_only():
    b = Board()
    b.houses[RED] = "life"
    town = b.structure("town", "D4", RED)
    near = b.group(BLUE, "D5", "swordsman")
    far = b.group(BLUE, "D7", "swordsman")
    friend = b.group(RED, "C4", "swordsman")
    card = b.card(RED, "diomesia")
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "structure", town)]})
    hero_group = world.group_at(at("D4"))
    assert hero_group is not None and hero_group.minions[0].name == "Diomesia"
    assert has_auras(world)

    def hand(gid: int) -> int:
        group = world.group(gid)
        assert group is not None
        return effective_minion(world, group, group.minions[0]).hand

    assert (hand(near), hand(far), hand(friend)) == (1, 2, 2)
    world.kill_minion(hero_group.minions[0].id, "died")
    assert hand(near) == 2


def test_ill_winds_weakens_enemy_archers_near_the_town():
    b = Board()
    town = b.structure("town", "D4", BLUE)
    archers = b.group(BLUE, "D5", "archer")
    mine = b.group(RED, "C4", "archer")
    b.active("ill_winds", RED, HostRef.structure(town))
    world = world_of(b.state())
    a, m = world.group(archers), world.group(mine)
    assert a is not None and m is not None
    assert effective_minion(world, a, a.minions[0]).missile == 0
    assert effective_minion(world, m, m.minions[0]).missile == 1


def test_hold_and_moves_and_flight_reach_the_movement_queries():
    b = Board()
    g = b.group(BLUE, "D5")
    free = b.group(RED, "B2")
    b.active("fear", RED, HostRef.group(g), expires_turn=9)
    b.active("flying_carpet", RED, HostRef.group(free), expires_turn=9)
    world = world_of(b.state())
    held, flyer = world.group(g), world.group(free)
    assert held is not None and flyer is not None
    assert not can_move(world, held) and can_move(world, flyer)
    assert moves(world, flyer) == 2
    assert "flight" in walks(world, flyer)


def test_faerie_circle_holds_whoever_stands_in_it():
    b = Board()
    b.terrain[at("C3")] = "forest"
    b.group(RED, "B2")
    card = b.card(RED, "faerie_circle")
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "square", "C3")]})
    g = world.create_group(BLUE, at("C3"), [world.new_minion("swordsman")])
    assert not can_move(world, g)


def test_ostracize_forbids_joining():
    b = Board()
    a, c = b.group(RED, "D3"), b.group(RED, "D4")
    b.active("ostracize", BLUE, HostRef.group(a))
    world = world_of(b.state())
    ga, gc = world.group(a), world.group(c)
    assert ga is not None and gc is not None and not can_join(world, ga, gc)


def test_embargo_copies_count_against_recruits_in_the_town():
    b = Board()
    town = b.structure("town", "D4", BLUE)
    b.group(BLUE, "D4", "swordsman")
    b.active("embargo", RED, GLOBE)
    world = world_of(b.state())
    structure = world.structure(town)
    assert structure is not None and produces_mana(world, structure)
    world.add_spell("embargo", RED, GLOBE)
    assert not produces_mana(world, structure)


def test_recall_teleports_to_the_nearest_free_square_to_home():
    b = Board()
    g = b.group(RED, "F6")
    c1 = b.card(RED, "recall")
    with_pool(b, RED)
    world = run(b, {RED: [cast(c1, "group", g)]})
    group = world.group(g)
    assert group is not None and group.coord == at("A1")


def test_healing_hands_boosted_reaches_friends_in_the_aura():
    b = Board()
    a = b.group(RED, "D3", hp=9)
    c = b.group(RED, "D4", hp=9)
    far = b.group(RED, "F6", hp=9)
    card = b.card(RED, "healing_hands")
    with_pool(b, RED)
    state_world = world_of(b.state())
    for gid in (a, c, far):
        state_world.damage_minion(b.minion_ids(gid)[0], 6, "test")
    b.groups = list(state_world.groups)
    world = run(b, {RED: [cast(card, "group", a, boosted=True)]})
    assert hp(world, b.minion_ids(a)[0]) == 7
    assert hp(world, b.minion_ids(c)[0]) == 7
    assert hp(world, b.minion_ids(far)[0]) == 3


def test_summoned_monsters_and_terrain_change():
    b = Board()
    b.terrain[at("C3")] = "forest"
    b.group(RED, "B2")
    c1, c2 = b.card(RED, "tree_man"), b.card(RED, "volcano")
    with_pool(b, RED)
    world = run(b, {RED: [cast(c1, "square", "C3"), cast(c2, "square", "B3")]})
    tree = world.group_at(at("C3"))
    assert tree is not None and tree.is_monster_group and tree.minions[0].name == "Tree Man"
    assert world.terrain_at(at("B3")) == "volcano"
    assert [s for _, s, _ in kinds(world, "spell_executed")] == ["tree_man", "volcano"]


def test_raze_destroys_a_town_which_its_owner_counts_as_lost():
    b = Board()
    b.group(RED, "D3")
    town = b.structure("town", "D4", BLUE)
    card = b.card(RED, "raze")
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "structure", town)]})
    assert world.structure(town) is None
    assert world.player(BLUE).lost == 1
