"""The spell catalogue: every data file loads, covers the vocabulary, and bad data is named."""

from pathlib import Path

import pytest

from engine.content import Content
from engine.spells.catalogue import load_spells, parse_spell_table
from engine.spells.modifiers import can_move, effective_group, effective_minion, moves
from engine.spells.primitives import PRIMITIVES
from engine.spells.requirements import REQUIREMENTS
from engine.spells.schema import SpellDataError
from engine.spells.targeting import validate_casts
from engine.spells.vocab import (
    ALLEGIANCES,
    CLASSES,
    FLAG_QUALIFIERS,
    HOUSES,
    SPEEDS,
    SPELL_TYPES,
    TARGET_KINDS,
)
from engine.state import GLOBE, HostRef, Mana, Minion
from tests.engine.spells.helpers import (
    BLUE,
    RED,
    Board,
    at,
    cast,
    content_with,
    kinds,
    run,
    with_pool,
    world_of,
)

DATA = Path(__file__).resolve().parents[3] / "data" / "spells"


def test_G10_every_house_file_loads_with_at_least_60_spells():
    spells = load_spells(DATA)
    assert sorted(p.stem for p in DATA.glob("*.toml")) == sorted(HOUSES)
    assert len([s for s in spells.values() if not s.helper]) >= 60
    for spell in spells.values():
        assert spell.rules and spell.describe().startswith(spell.name)


def test_G10_catalogue_uses_every_type_target_speed_class_and_qualifier():
    spells = [s for s in load_spells(DATA).values() if not s.helper]
    assert {s.type for s in spells} == set(SPELL_TYPES)
    assert {s.target.kind for s in spells} == set(TARGET_KINDS)
    assert {s.speed for s in spells} == set(SPEEDS)
    assert {s.spell_class for s in spells} == set(CLASSES)
    assert any(s.replicable for s in spells)
    flags = set().union(*(s.target.flags for s in spells))
    assert flags == set(FLAG_QUALIFIERS)
    assert {s.target.allegiance for s in spells} == set(ALLEGIANCES)
    assert any(s.target.range is not None for s in spells)
    assert any(s.target.aura is not None for s in spells)
    assert any(s.boosted_cost for s in spells)
    assert any(s.cost_cycle for s in spells)
    assert any(s.once_per_game for s in spells)
    assert any(s.cumulative for s in spells)
    assert any(not s.visible for s in spells)


def test_G10_seed_and_digest_spells_are_present():
    spells = load_spells(DATA)
    for spell_id in (
        "adriels_timepiece",
        "lienna",
        "mirage",
        "colony",
        "fireball",
        "plague",
        "slay_monster",
        "soul_jar",
        "found_city",
        "drachas_trade",
        "burst_of_order",
        "burst_of_world",
        "codex_of_order",
        "intercession",
        "parted_sea",
        "obeisance",
        "ostracize",
        "bedlam",
        "volcano",
        "mountain_climb",
        "fingles_folly",
        "brimstone_dragon",
        "fear",
        "xias_walk",
        "beobogh_helm",
        "fortitude",
        "fleetness",
        "forced_march",
        "flying_carpet",
        "healing_hands",
        "regeneration",
        "pyx",
        "justicars",
        "tree_man",
        "faerie_circle",
        "ill_winds",
        "pixie_dust",
        "forestation",
        "seed_on_the_wind",
        "complacency",
        "jumping_land",
        "shifting_sands",
        "diomesia",
        "ogi",
        "dracha",
        "embargo",
        "willing_supplicants",
        "blood_pact",
        "pact_sealed",
        "imp_frenzy",
        "death_knell",
        "wolf_pack",
        "star_chamber",
        "writ_of_annulment",
        "second_chance",
        "restoration",
    ):
        assert spell_id in spells, spell_id
    assert spells["colony"].helper and spells["pact_sealed"].helper


def test_every_primitive_and_requirement_describes_itself():
    for name, primitive in PRIMITIVES.items():
        assert primitive.name == name
    for name, req in REQUIREMENTS.items():
        assert req.name == name
    text = load_spells(DATA)["plague"].describe()
    assert "Permanently changes max hp of each affected minion by -2." in text
    assert "Deals 2 damage to each affected minion." in text


BASE = """
[[spell]]
id = "ok_spell"
name = "Ok"
house = "war"
cost = "1+0"
type = "manifestation"
target = "group"
rules = "Fine."
effects = [{ do = "damage", amount = 1 }]
"""


def _write(tmp_path: Path, house: str, text: str) -> Path:
    folder = tmp_path / "spells"
    folder.mkdir(exist_ok=True)
    (folder / f"{house}.toml").write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("replace", "key", "words"),
    [
        ('cost = "1+0"', "cost", "primary+secondary"),
        ('type = "manifestation"', "type", "must be one of"),
        ('target = "group"', "target", "must be one of"),
        ("amount = 1 }", "effects[0].amount", "at least 1"),
        ('do = "damage"', "effects[0].do", "unknown effect"),
        ('rules = "Fine."', "rules", "is required"),
        ('{ do = "damage", amount = 1 }', "effects[0].effect", "unknown effect 'explode'"),
    ],
)
def test_bad_file_errors_name_file_spell_and_key(tmp_path, replace, key, words):
    bad = {
        'cost = "1+0"': 'cost = "one"',
        'type = "manifestation"': 'type = "sorcery"',
        'target = "group"': 'target = "whirlpool"',
        "amount = 1 }": "amount = 0 }",
        'do = "damage"': 'do = "explode"',
        'rules = "Fine."': "",
        '{ do = "damage", amount = 1 }': '{ do = "ward", effect = ["remove", "explode"] }',
    }[replace]
    folder = _write(tmp_path, "war", BASE.replace(replace, bad))
    with pytest.raises(SpellDataError) as err:
        load_spells(folder)
    message = str(err.value)
    assert "war.toml" in message
    assert "'ok_spell'" in message
    assert f"key {key!r}" in message
    assert words in message


def test_unknown_key_duplicate_id_and_wrong_house(tmp_path):
    folder = _write(tmp_path, "war", BASE.replace('rules = "Fine."', 'rules = "Fine."\ncolour = 1'))
    with pytest.raises(SpellDataError, match="key 'colour': unknown key"):
        load_spells(folder)
    folder = _write(tmp_path, "war", BASE + BASE)
    with pytest.raises(SpellDataError, match="key 'id': duplicate id"):
        load_spells(folder)
    folder = _write(tmp_path, "war", BASE.replace('house = "war"', 'house = "hope"'))
    with pytest.raises(SpellDataError, match="key 'house': is 'hope' but this file holds 'war'"):
        load_spells(folder)


def test_cross_spell_references_are_checked(tmp_path):
    text = BASE.replace(
        'effects = [{ do = "damage", amount = 1 }]',
        'effects = [{ do = "attach", spell = "nowhere" }]',
    )
    folder = _write(tmp_path, "war", text)
    with pytest.raises(SpellDataError, match=r"key 'effects\[0\].spell': unknown spell id"):
        load_spells(folder)


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"duration": 2}, "duration"),
        ({"triggers": [{"event": "start_of_turn", "effects": [{"do": "draw"}]}]}, "triggers"),
        ({"effects": [{"do": "hold"}]}, "effects[0].do"),
        ({"qualifiers": ["hex", "augment"]}, "qualifiers"),
        ({"qualifiers": ["range x"]}, "qualifiers"),
        ({"qualifiers": ["caster"]}, "qualifiers"),
        ({"class": "attribute"}, "cost"),
        ({"class": "attribute", "cost": "0+0", "visible": True}, "visible"),
        ({"class": "bound"}, "power"),
        ({"power": [1, 2]}, "power"),
        ({"boosted_cost": "2+0"}, "boosted_effects"),
        ({"boosted_cost": "0+0", "boosted_effects": [{"do": "draw"}]}, "boosted_cost"),
        ({"expires_on": "start_of_turn"}, "expires_on"),
        (
            {"requires": {"targeting": [{"req": "terrain_is", "terrains": ["lava2"]}]}},
            "requires.targeting[0].terrains",
        ),
        ({"requires": {"sometimes": []}}, "requires.sometimes"),
        (
            {
                "type": "alteration",
                "effects": [{"do": "ward", "uses": 1}, {"do": "ward", "effect": ["kill"]}],
            },
            "effects",
        ),
    ],
)
def test_cross_key_rules_are_enforced(changes, key):
    table = {
        "id": "x",
        "name": "X",
        "house": "war",
        "cost": "1+0",
        "type": "manifestation",
        "target": "group",
        "rules": "r",
        "effects": [{"do": "damage", "amount": 1}],
    }
    table.update(changes)
    with pytest.raises(SpellDataError) as err:
        parse_spell_table(table, "inline.toml")
    assert f"key {key!r}" in str(err.value)
    assert str(err.value).startswith("inline.toml: spell 'x':")


def test_the_readme_lists_every_primitive_and_requirement():
    readme = (Path(__file__).resolve().parents[3] / "engine" / "spells" / "README.md").read_text(
        encoding="utf-8"
    )
    for name in (*PRIMITIVES, *REQUIREMENTS):
        assert name in readme, name


def test_every_house_has_a_summoning_in_its_deck():
    """Without one a house has no bodies but its recruits: Mind, the one house that lacked a
    summoning, won 3 of 22 expert games before Phantasm (docs/balance.md "Mind")."""
    spells = [s for s in load_spells(DATA).values() if s.deckable]
    assert {s.house for s in spells if s.type == "summoning"} == set(HOUSES)


def summoned(spell_id: str, boosted: bool = False, terrain: str = "") -> tuple[Minion, ...]:
    """The minions red's ``spell_id`` brings onto D3 (of ``terrain`` when one is given), beside
    red's group on C3: one new monster group."""
    b = Board()
    if terrain:
        b.terrain[at("D3")] = terrain
    b.group(RED, "C3")
    card = b.card(RED, spell_id)
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "square", "D3", boosted=boosted)]})
    group = world.group_at(at("D3"))
    assert group is not None and group.is_monster_group
    return group.minions


def test_D_SP31_phantasm_brings_two_flying_phantasms_as_stone_sentinels_bring_two_gargoyles():
    """Mind's summoning matches Justice's at the same 3+1 (docs/balance.md "Town spells for
    every house (D-SP31)")."""
    phantasms = summoned("phantasm")
    assert [(m.name, m.hp, m.armor, m.hand) for m in phantasms] == [("Phantasm", 9, 1, 3)] * 2
    assert all("flight" in m.walks for m in phantasms)


def test_D_SP38_a_boosted_phantasm_brings_three():
    """Mind's summoning is boosted as Death's Skeleton Horde is: one more for 5+2 (D-SP38)."""
    phantasms = summoned("phantasm", boosted=True)
    assert [(m.name, m.hp, m.armor, m.hand) for m in phantasms] == [("Phantasm", 9, 1, 3)] * 3


def test_D_SP39_shadow_hounds_bring_three_hounds_that_bite_twice():
    """Despair's one summoning brings three (D-SP39; it was two): Despair fielded the fewest hit
    points of any house, and two 5-point hounds were the least of the 3+1 summonings."""
    hounds = summoned("shadow_hounds")
    assert [(m.name, m.hp, m.hand, m.attacks) for m in hounds] == [("Shadow Hound", 5, 2, 2)] * 3


def damage_in_reach(
    content: Content, spell_id: str, reach: int, boosted: bool = False
) -> list[int]:
    """What red's ``spell_id`` takes from each member of a blue group ``reach`` squares from
    red's group on D3, once it is checked that a group one square further is out of range."""
    b = Board()
    b.group(RED, "D3")
    near = b.group(BLUE, f"D{3 + reach}", "swordsman", "archer")
    far = b.group(BLUE, f"D{4 + reach}")
    card = b.card(RED, spell_id)
    with_pool(b, RED)
    problems = validate_casts(b.state(), RED, [cast(card, "group", far)], content)
    assert [p.code for p in problems] == ["out_of_range"]
    world = run(b, {RED: [cast(card, "group", near, boosted=boosted)]})
    hit = world.group(near)
    assert hit is not None
    return [m.max_hp - m.hp for m in hit.minions]


def test_D_SP46_a_sentinel_costs_two_clarity_and_one_order():
    """Hope's one summoning, a single 9-point sentinel, costs 2+1 (D-SP46; it cost 3+1): Hope
    fielded the fewest hit points of any house and lost its pairs against Mind and Despair."""
    b = Board()
    b.group(RED, "C3")
    card = b.card(RED, "sentinel")
    b.pools[RED] = Mana(clarity=2, order=1)
    world = run(b, {RED: [cast(card, "square", "D3")]})
    group = world.group_at(at("D3"))
    assert group is not None
    assert [(m.name, m.hp, m.armor, m.hand, m.missile) for m in group.minions] == [
        ("Sentinel", 9, 1, 2, 2)
    ]
    assert world.player(RED).pool == Mana()


def test_D_SP40_werewolf_brings_two_werewolves_that_strike_twice():
    """Body's one summoning brings two 6-point werewolves (D-SP40; it was one of 8 points): Body
    stood lowest of the houses, and one werewolf was the least of the 3+1 summonings."""
    wolves = summoned("werewolf")
    assert [(m.name, m.hp, m.hand, m.attacks) for m in wolves] == [("Werewolf", 6, 2, 2)] * 2


def test_D_SP40_tree_man_is_an_eight_point_minion_of_the_forest():
    """Nature's cheap monster comes out of the trees with 8 hit points (D-SP40; it was 10):
    Nature stood highest of the houses and fielded the most hit points by turn 10."""
    trees = summoned("tree_man", terrain="forest")
    assert [(m.name, m.hp, m.armor, m.hand) for m in trees] == [("Tree Man", 8, 1, 2)]


def test_D_SP29_condemnation_deals_three_to_each_member_of_a_group_within_three_squares(content):
    """Justice's card that hurts a group on the board: 3 to each member for 3+1, 5 boosted
    (docs/spells.md D-SP29, D-SP30)."""
    assert damage_in_reach(content, "condemnation", 3) == [3, 3]
    assert damage_in_reach(content, "condemnation", 3, boosted=True) == [5, 5]


def test_D_SP29_stone_sentinels_bring_two_armored_winged_gargoyles_three_boosted():
    """Justice's summoning, the house nation's own gargoyles (docs/spells.md D-SP29, D-SP30)."""
    for boosted, count in ((False, 2), (True, 3)):
        gargoyles = summoned("stone_sentinels", boosted=boosted)
        assert [(m.name, m.hp, m.armor, m.hand) for m in gargoyles] == [
            ("Gargoyle", 9, 2, 2)
        ] * count
        assert all("flight" in m.walks for m in gargoyles)


@pytest.mark.parametrize(
    "spell_id",
    [
        "reapers_due",
        "grave_chill",
        "skeleton_horde",
        "ebon_guardian",
        "verdict",
        "condemnation",
        "stone_sentinels",
    ],
)
def test_D_SP30_death_and_justice_can_boost_what_hurts_and_what_summons(spell_id, content):
    """Death's and Justice's income buys a stronger cast of each card that hurts an enemy or
    puts bodies on the board, for more mana (docs/spells.md D-SP30); what the boost does more
    is checked for every boosted spell by ``test_every_boosted_version_costs_its_price...``."""
    spell = content.spells[spell_id]
    assert spell.house in ("death", "justice")
    assert spell.boosted_cost is not None and spell.boosted_effects
    assert spell.boosted_cost.total > spell.cost.total


def test_D_SP41_stampede_deals_two_to_each_member_of_a_group_within_two_squares(content):
    """Nature's Stampede deals 2 (D-SP41; it was 3): Thorn Mark adds 1 to every Nature spell on
    an enemy group, so it deals 3 a member in play, as Condemnation for the same 3+1."""
    # The herd's 2 and the thorns' 1: Nature's attribute is in play for its caster.
    assert damage_in_reach(content, "stampede", 2) == [3, 3]


def test_D_SP42_fireball_flies_at_most_three_squares_from_your_forces(content):
    """War's Fireball reaches three squares, as its Fire Storm and Chain Lightning do (D-SP42; it
    flew as far as a group could see): from the second turn it burnt a whole starting army of
    7-point recruits across the board. The War caster's Battle Scar adds its 1."""
    assert damage_in_reach(content, "fireball", 3) == [6, 6]


def test_D_SP44_second_chance_clears_a_group_of_every_visible_spell_not_its_members(content):
    """Justice's dispel is cast on a group (it was cast on one minion): every visible spell on
    the group goes, whoever cast it; the spells on its members stay. Body's group buffs beat
    Justice in the fights (docs/spells.md D-SP44)."""
    b = Board()
    b.group(RED, "D3")
    g = b.group(BLUE, "D5")
    member = b.minion_ids(g)[0]
    b.active("fortitude", BLUE, HostRef.group(g))
    b.active("ostracize", RED, HostRef.group(g))
    b.active("regeneration", BLUE, HostRef.minion(member))
    card = b.card(RED, "second_chance")
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "group", g)]})
    assert world.spells_on(HostRef.group(g)) == ()
    assert [s.spell_id for s in world.spells_on(HostRef.minion(member))] == ["regeneration"]


def test_D_SP45_blood_pacts_price_is_paid_at_the_next_five_starts_of_turn(content):
    """The price Blood Pact seals on the globe lasts five turns (it lasted the whole game, and
    Abomination, which casts the pact about eight times a game, ran dry by the late game;
    docs/spells.md D-SP45). Copies still stack while they last."""
    b = Board()
    b.group(RED, "D3")
    g = b.group(BLUE, "D6")
    card = b.card(RED, "blood_pact")
    with_pool(b, RED)
    world = run(b, {RED: [cast(card, "group", g)]})
    assert world.group(g) is None
    (sealed,) = [s for s in world.spell_map.values() if s.spell_id == "pact_sealed"]
    assert sealed.host == GLOBE and sealed.owner == RED
    assert sealed.get("expires_turn") == world.turn + 5
    pool = world.player(RED).pool
    world.broadcast("start_of_turn")
    assert world.player(RED).pool == pool._replace(will=pool.will - 2, strife=pool.strife - 2)


def test_D_SP33_psychic_storm_deals_two_to_each_member_of_a_group_within_three_squares(content):
    """Mind's one card that hurts a whole group, as Death's Grave Chill does for the same 2+1
    (docs/spells.md D-SP33)."""
    assert damage_in_reach(content, "psychic_storm", 3) == [2, 2]


def test_D_SP34_complacency_holds_an_enemy_group_within_four_squares_for_three_turns(content):
    """Despair's long hold lasts three turns where it used to last until dispelled: a lasting
    root on the enemy's main army decided Despair's games (docs/spells.md D-SP34)."""
    b = Board()
    b.group(RED, "D3")
    near = b.group(BLUE, "D7")  # 4 squares from the red group
    far = b.group(BLUE, "D8")
    card = b.card(RED, "complacency")
    with_pool(b, RED)
    problems = validate_casts(b.state(), RED, [cast(card, "group", far)], content)
    assert [p.code for p in problems] == ["out_of_range"]
    world = run(b, {RED: [cast(card, "group", near)]})
    group = world.group(near)
    assert group is not None and not can_move(world, group)
    (held,) = [s for s in world.spell_map.values() if s.spell_id == "complacency"]
    assert held.get("expires_turn") == world.turn + 3


def test_D_SP35_thorn_volley_reaches_two_squares_from_its_shrine_and_from_hand(content):
    """Nature's most cast spell, free from every shrine each turn and with Thorn Mark's point on
    every member, reaches 2 squares, not 3 (docs/spells.md D-SP35)."""
    b = Board()
    town = b.structure("town", "C2", RED)
    shrine = b.active("thorn_shrine", RED, HostRef.structure(town))
    b.group(RED, "H2")
    near = b.group(BLUE, "C4")  # 2 squares from the shrine
    far = b.group(BLUE, "C5")  # 3 squares from the shrine
    for target, codes in ((near, []), (far, ["out_of_range"])):
        volley = cast(0, "group", target, spell_id="thorn_volley", bound_source=shrine, power=1)
        assert [p.code for p in validate_casts(b.state(), RED, [volley], content)] == codes
    card = b.card(RED, "thorn_volley")
    with_pool(b, RED)
    hand_far = b.group(BLUE, "H5")  # 3 squares from the red group on H2
    problems = validate_casts(b.state(), RED, [cast(card, "group", hand_far)], content)
    assert [p.code for p in problems] == ["out_of_range"]
    assert validate_casts(b.state(), RED, [cast(card, "group", near)], content) == []


def test_D_SP32_beobogh_helm_gives_a_group_of_five_two_armor_where_gorgons_gaze_gives_one():
    """Making's Helm costs one more than Body's Gorgon's Gaze and needs a group of at least
    five, so it gives twice the armor (docs/balance.md "Making")."""
    b = Board()
    helmed = b.group(RED, "C3", *["swordsman"] * 5)
    gazed = b.group(RED, "E3", "swordsman")
    helm, gaze = b.card(RED, "beobogh_helm"), b.card(RED, "gorgons_gaze")
    with_pool(b, RED)
    world = run(b, {RED: [cast(helm, "group", helmed), cast(gaze, "group", gazed)]})
    for gid, armor in ((helmed, 2), (gazed, 1)):
        group = world.group(gid)
        assert group is not None
        assert {effective_minion(world, group, m).armor for m in group.minions} == {armor}


def test_D_SP32_homunculi_are_two_seven_hit_point_minions_that_strike_twice():
    """Between Shadow Hounds and the 9-point fliers of the same price (docs/spells.md D-SP32)."""
    homunculi = summoned("homunculi")
    assert [(m.name, m.hp, m.hand, m.attacks) for m in homunculi] == [("Homunculus", 7, 2, 2)] * 2


def test_there_is_one_ogi_he_cannot_be_called_while_he_lives(content):
    """Making's named hero is one dwarf: cast while its side's Ogi lives, the spell is refused at
    targeting, and it is legal with no Ogi on the board (docs/spells.md D-SP37)."""
    b = Board()
    town = b.structure("town", "D3", RED)
    b.group(RED, "D3")
    first = b.card(RED, "ogi")
    second = b.card(RED, "ogi")
    with_pool(b, RED)
    world = run(b, {RED: [cast(first, "structure", town)]})
    assert [m.name for g in world.groups for m in g.minions if "hero" in m.traits] == ["Ogi"]
    problems = validate_casts(world.state, RED, [cast(second, "structure", town)], content)
    assert [p.code for p in problems] == ["requirement"]
    assert "no hero named Ogi" in problems[0].message
    assert validate_casts(b.state(), RED, [cast(second, "structure", town)], content) == []


def test_salamanders_bring_three(content):
    """Unmaking's summoning brings three, as Nature's Simian Warriors do for the same 3+1
    (docs/spells.md D-SP37)."""
    b = Board()
    b.group(RED, "D3")
    salamanders = b.card(RED, "salamanders")
    with_pool(b, RED)
    world = run(b, {RED: [cast(salamanders, "square", "D2")]})
    assert [m.name for g in world.groups if g.coord == at("D2") for m in g.minions] == [
        "Salamander"
    ] * 3


def test_a_boosted_psychic_storm_deals_three_to_each_member(content):
    """Mind's Psychic Storm is boosted as Death's Grave Chill is, 3 to each member (D-SP37)."""
    b = Board()
    b.group(RED, "D3")
    target = b.group(BLUE, "D5", "swordsman", "archer")
    storm = b.card(RED, "psychic_storm")
    with_pool(b, RED)
    world = run(b, {RED: [cast(storm, "group", target, boosted=True)]})
    group = world.group(target)
    assert group is not None
    assert [m.max_hp - m.hp for m in group.minions] == [3, 3]


def test_D_SP38_a_boosted_reapers_due_deals_four(content):
    """Death's hereditary bolt deals 3, boosted 4 (D-SP38; it was 5)."""
    b = Board()
    b.group(RED, "D3")
    target = b.group(BLUE, "D5", "swordsman")
    reaper = b.card(RED, "reapers_due")
    with_pool(b, RED)
    [victim] = b.minion_ids(target)
    world = run(b, {RED: [cast(reaper, "minion", victim, boosted=True)]})
    group = world.group(target)
    assert group is not None
    assert [m.max_hp - m.hp for m in group.minions] == [4]


def test_D_SP38_a_siege_engine_is_armored_and_shoots_three():
    """Making's siege engine: 12 hit points, 2 armor, a bow of 3 (D-SP38; it was 4)."""
    [engine] = summoned("siege_engine")
    assert (engine.name, engine.hp, engine.armor, engine.missile) == ("Siege Engine", 12, 2, 3)


def test_D_SP16_a_spell_counts_the_uses_of_its_wards_boosted_or_not():
    """A ward's uses are read from the effects the spell was cast with: a spell warded only when
    boosted still ends after its uses (docs/spells.md D-SP16)."""
    table = {
        "id": "x",
        "name": "X",
        "house": "war",
        "cost": "1+0",
        "boosted_cost": "2+0",
        "type": "alteration",
        "target": "group",
        "rules": "r",
        "effects": [{"do": "modify", "stat": "armor", "amount": 1}],
        "boosted_effects": [{"do": "ward", "uses": 2}],
    }
    assert parse_spell_table(table, "war.toml").ward_uses == 2
    del table["boosted_cost"], table["boosted_effects"]
    assert parse_spell_table(table, "war.toml").ward_uses == 0


def test_D_SP47_rejuvenation_turns_away_the_first_spell_that_would_remove_a_member():
    """The first enemy spell that would remove a member of a rejuvenated group from the game
    squanders (Shifting Sands), and the rejuvenation ends with it: the next (Jumping Land)
    executes. A spell that kills a member (Assassin's Mark) is not turned away
    (docs/spells.md D-SP47)."""
    b = Board()
    b.group(RED, "D3")
    g = b.group(BLUE, "D5", "swordsman", "archer")
    b.active("rejuvenation", BLUE, HostRef.group(g))
    victim, spared = b.minion_ids(g)
    mark, sands, land = (
        b.card(RED, s) for s in ("assassins_mark", "shifting_sands", "jumping_land")
    )
    with_pool(b, RED)
    orders = [
        cast(mark, "minion", victim),
        cast(sands, "minion", spared),
        cast(land, "square", "D5"),
    ]
    world = run(b, {RED: orders})
    assert kinds(world, "spell_squandered") == [("spell_squandered", "shifting_sands", "red")]
    assert kinds(world, "spell_executed") == [
        ("spell_executed", "assassins_mark", "red"),
        ("spell_executed", "jumping_land", "red"),
    ]
    assert world.group(g) is None
    assert world.terrain_at(at("D5")) == "mountain"
    assert "rejuvenation" not in [s.spell_id for s in world.active_spells]


def test_D_SP48_rejuvenation_turns_away_the_first_missile_spell_with_the_same_single_use():
    """A missile spell aimed at a rejuvenated group (a Fireball) squanders like a removal, and
    spends the one use they share: the next Fireball and Shifting Sands execute
    (docs/spells.md D-SP48)."""
    b = Board()
    b.group(RED, "D3")
    g = b.group(BLUE, "D5", "swordsman", "archer", hp=20)
    b.active("rejuvenation", BLUE, HostRef.group(g))
    first, second = b.card(RED, "fireball"), b.card(RED, "fireball")
    sands = b.card(RED, "shifting_sands")
    with_pool(b, RED)
    orders = [
        cast(first, "group", g),
        cast(second, "group", g),
        cast(sands, "minion", b.minion_ids(g)[0]),
    ]
    world = run(b, {RED: orders})
    cast_events = kinds(world, "spell_squandered", "spell_executed")
    assert [e for e in cast_events if e[1] in ("fireball", "shifting_sands")] == [
        ("spell_squandered", "fireball", "red"),
        ("spell_executed", "fireball", "red"),
        ("spell_executed", "shifting_sands", "red"),
    ]
    assert "rejuvenation" not in [s.spell_id for s in world.active_spells]


def test_D_SP49_gorgons_gaze_turns_away_the_first_spell_that_would_remove_a_member():
    """A group under Gorgon's Gaze has 1 more armor, and the first enemy spell that would remove
    a member from the game squanders (Shifting Sands); the gaze ends with it, armor and all, and
    the next removal (Jumping Land) executes (docs/spells.md D-SP49)."""
    b = Board()
    b.group(RED, "D3")
    g = b.group(BLUE, "D5", "swordsman", "archer")
    b.active("gorgons_gaze", BLUE, HostRef.group(g))
    first = b.minion_ids(g)[0]
    sands, land = (b.card(RED, s) for s in ("shifting_sands", "jumping_land"))
    with_pool(b, RED)
    world = run(b, {RED: [cast(sands, "minion", first), cast(land, "square", "D5")]})
    assert kinds(world, "spell_squandered") == [("spell_squandered", "shifting_sands", "red")]
    assert ("spell_executed", "jumping_land", "red") in kinds(world, "spell_executed")
    assert world.group(g) is None
    assert "gorgons_gaze" not in [s.spell_id for s in world.active_spells]


def test_D_SP50_thorn_mark_ends_the_enemy_spells_that_heal_the_group_it_strikes():
    """A Nature hex on an enemy group carries the thorns, and every visible enemy spell on the
    group that heals it ends: Troll Blood, which heals only at the start of turn, and
    Rejuvenation. A spell on the group that does not heal (Fortitude) and one on a single
    member (Regeneration) stay (docs/spells.md D-SP50)."""
    b = Board()
    b.group(RED, "D3")
    g = b.group(BLUE, "D5", "swordsman", "swordsman", hp=20)
    for spell_id in ("troll_blood", "rejuvenation", "fortitude"):
        b.active(spell_id, BLUE, HostRef.group(g))
    member = b.minion_ids(g)[0]
    b.active("regeneration", BLUE, HostRef.minion(member))
    stampede = b.card(RED, "stampede")
    with_pool(b, RED)
    world = run(b, {RED: [cast(stampede, "group", g)]})
    assert ("spell_executed", "thorn_mark", "red") in kinds(world, "spell_executed")
    assert sorted(s.spell_id for s in world.active_spells) == ["fortitude", "regeneration"]


def test_D_SP51_helm_and_insight_keep_out_the_calm_of_an_enemy_diomesia():
    """Diomesia's calm takes 1 from the hand and bow of every enemy beside her, once for each
    Diomesia. Beobogh's Helm keeps out every aura an enemy minion carries (an `aura_ward`): the
    members it was cast on strike as before, a swordsman that joined the group later does not
    (N12), and a group without it is calmed. Insight lets in only the oldest such aura: its
    swordsman between two Diomesias strikes 1 weaker, not 2 (docs/spells.md D-SP51)."""
    b = Board()
    for square in ("D4", "F4"):
        dio = b.group(BLUE, square)
        b.active("diomesias_calm", BLUE, HostRef.minion(b.minion_ids(dio)[0]))
    helmed = b.group(RED, "C4", "swordsman", "swordsman", "swordsman")
    early, _, joiner = b.minion_ids(helmed)
    b.active("beobogh_helm", RED, HostRef.group(helmed), members=tuple(b.minion_ids(helmed)[:2]))
    insightful = b.group(RED, "E4")
    b.active("insight", RED, HostRef.group(insightful))
    bare = b.group(RED, "D3")
    between = b.group(RED, "E5")  # beside neither: dist 2 from both Diomesias
    world = world_of(b.state())

    def hands(gid: int) -> dict[int, int]:
        group = world.group(gid)
        assert group is not None
        return {m.id: m.hand for m in effective_group(world, group)}

    helm = hands(helmed)
    assert helm[early] == 2 and helm[joiner] == 1
    assert list(hands(insightful).values()) == [1]
    assert list(hands(bare).values()) == [1]
    assert list(hands(between).values()) == [2]
    group = world.group(helmed)
    assert group is not None
    assert {m.armor for m in effective_group(world, group) if m.id != joiner} == {2}
    assert {effective_minion(world, group, m).hand for m in group.minions} == {1, 2}


def test_D_SP51_the_aura_ward_keeps_out_only_what_an_enemy_minion_carries():
    """An enemy structure's aura (Mind's Tower of Whispers, 1 weaker by hand) still reaches a
    helmed group; it is the calm of a minion the Helm keeps out (docs/spells.md D-SP51)."""
    b = Board()
    town = b.structure("town", "D4", BLUE)
    b.active("tower_of_whispers", BLUE, HostRef.structure(town))
    helmed = b.group(RED, "C4", "swordsman")
    b.active("beobogh_helm", RED, HostRef.group(helmed))
    world = world_of(b.state())
    group = world.group(helmed)
    assert group is not None
    assert [m.hand for m in effective_group(world, group)] == [1]


def test_D_SP52_hymn_of_dawn_lets_only_the_oldest_calm_reach_the_casters_minions():
    """Under Hymn of Dawn every minion of its caster fights a level up, and of the auras enemy
    minions carry only the oldest reaches it: a Hope swordsman between two Diomesias strikes 1
    weaker, not 2. The hymn wards its caster's side alone (`who = "friendly"`): an enemy
    group beside two calm-bearers of the hymn's side is calmed twice (docs/spells.md D-SP52)."""
    b = Board()
    for square in ("D4", "F4"):
        dio = b.group(BLUE, square)
        b.active("diomesias_calm", BLUE, HostRef.minion(b.minion_ids(dio)[0]))
    hopeful = b.group(RED, "E4")
    for square in ("B6", "C7"):
        bearer = b.group(RED, square)
        b.active("diomesias_calm", RED, HostRef.minion(b.minion_ids(bearer)[0]))
    enemy = b.group(BLUE, "B7")
    b.active("hymn_of_dawn", RED, GLOBE)
    world = world_of(b.state())
    for gid, hand, level in ((hopeful, 1, 1), (enemy, 0, 0)):
        group = world.group(gid)
        assert group is not None
        assert [(m.hand, m.level) for m in effective_group(world, group)] == [(hand, level)]


def test_D_SP53_hymn_of_dawn_lifts_its_casters_minions_a_level_never_above_three():
    """Under Hymn of Dawn every minion of its caster fights a level up, but never above level 3,
    the most a recruit earns (D-LEVELS): veterans of levels 0 to 3 fight at 1, 2, 3 and 3. An
    enemy's minions are not lifted, and Obeisance still brings a hymned group down to level 0
    (docs/spells.md D-SP53)."""
    b = Board()
    veterans = b.group(RED, "E4", "swordsman", "swordsman", "swordsman", "swordsman")
    bowed = b.group(RED, "B4", "swordsman")
    enemy = b.group(BLUE, "H4", "swordsman")
    earned = {veterans: (0, 1, 2, 3), bowed: (3,), enemy: (0,)}
    b.groups = [
        g.with_minions(tuple(m.with_level(n) for m, n in zip(g.minions, earned[g.id], strict=True)))
        for g in b.groups
    ]
    b.active("hymn_of_dawn", RED, GLOBE)
    b.active("obeisance", BLUE, HostRef.group(bowed))
    world = world_of(b.state())
    for gid, levels in ((veterans, [1, 2, 3, 3]), (bowed, [0]), (enemy, [0])):
        group = world.group(gid)
        assert group is not None
        assert [m.level for m in effective_group(world, group)] == levels


def test_D_SP51_a_group_moves_past_an_enemy_minions_aura_only_when_every_member_is_warded():
    """A group moves as one: an aura an enemy minion carries that slows its neighbours (an
    inline spell; no shipped minion slows) does not slow a helmed group, but does once a
    minion the Helm was not cast on has joined it (docs/spells.md D-SP51)."""
    content = content_with(
        """
[[spell]]
id = "mire_gaze"
name = "Mire Gaze"
house = "life"
cost = "0+0"
type = "alteration"
target = "minion"
helper = true
visible = false
rules = "Enemies beside its bearer move 1 square less."
effects = [{ do = "aura_modify", stat = "moves", amount = -1, radius = 1 }]
"""
    )
    b = Board()
    slower = b.group(BLUE, "D4")
    b.active("mire_gaze", BLUE, HostRef.minion(b.minion_ids(slower)[0]))
    whole = b.group(RED, "C4", "swordsman", "swordsman")
    b.active("beobogh_helm", RED, HostRef.group(whole), members=tuple(b.minion_ids(whole)))
    joined = b.group(RED, "E4", "swordsman", "swordsman")
    b.active("beobogh_helm", RED, HostRef.group(joined), members=tuple(b.minion_ids(joined)[:1]))
    world = world_of(b.state(), content)
    for gid, squares in ((whole, 1), (joined, 0)):
        group = world.group(gid)
        assert group is not None
        assert moves(world, group) == squares


def test_D_SP51_the_strictest_aura_ward_on_a_member_holds():
    """Under both the Helm (no calm in) and Insight (the oldest in), a member takes no calm: the
    strictest ward holds. A ward sitting on one minion wards that minion alone (docs/spells.md
    D-SP51)."""
    b = Board()
    for square in ("D4", "F4"):
        dio = b.group(BLUE, square)
        b.active("diomesias_calm", BLUE, HostRef.minion(b.minion_ids(dio)[0]))
    both = b.group(RED, "E4", "swordsman", "swordsman")
    b.active("beobogh_helm", RED, HostRef.group(both))
    b.active("insight", RED, HostRef.group(both))
    one = b.group(RED, "D3", "swordsman", "swordsman")
    shielded, bare = b.minion_ids(one)
    b.active("beobogh_helm", RED, HostRef.minion(shielded))
    world = world_of(b.state())
    hands = {}
    for gid in (both, one):
        group = world.group(gid)
        assert group is not None
        hands.update({m.id: m.hand for m in effective_group(world, group)})
    assert [hands[m] for m in b.minion_ids(both)] == [2, 2]
    assert (hands[shielded], hands[bare]) == (2, 1)
