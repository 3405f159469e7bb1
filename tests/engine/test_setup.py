"""Setup from a seed: board, realms, towns, Sancta, starting groups, decks and hands (G1-G3)."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.content import Content
from engine.coords import Coord
from engine.setup import MatchConfig, SetupError, check_deck, default_deck, new_game
from engine.state import NEUTRAL, GameState, Mana, Side
from tests.engine.conftest import classic_config


def test_G1_classic_board_has_94_point_symmetric_squares(content: Content) -> None:
    board = content.boards["classic"]
    assert (board.width, board.height) == (12, 12)
    assert len(board.playable) == 94
    assert all(at.rotated(12, 12) in board.playable for at in board.playable)
    assert board.sanctum(Side.BLUE) == board.sanctum(Side.RED).rotated(12, 12)


def test_G1_each_sanctum_has_four_plains_entrances(content: Content, opening: GameState) -> None:
    board = content.boards["classic"]
    terrain = opening.terrain_map()
    for side in (Side.RED, Side.BLUE):
        sanctum = board.sanctum(side)
        entrances = [n for n in sanctum.neighbours() if n in board.playable]
        assert len(entrances) == 4
        assert all(terrain[e] == "plains" for e in entrances)
    assert board.sanctum(Side.RED).y < board.sanctum(Side.BLUE).y  # red at the bottom


def test_G2_terrain_is_a_pure_function_of_the_seed(content: Content) -> None:
    one = new_game(classic_config(seed=5), content)
    two = new_game(classic_config(seed=5), content)
    other = new_game(classic_config(seed=6), content)
    assert one == two
    assert one.squares != other.squares


@pytest.mark.parametrize("realm", ["veldt", "volgaria", "badlands", "great_frost", "arboria"])
def test_G2_realm_sets_town_count_and_terrain(content: Content, realm: str) -> None:
    spec = content.realms[realm]
    for seed in range(8):
        state = new_game(classic_config(seed=seed, realm=realm), content)
        towns = [s for s in state.structures if s.kind == "town"]
        assert spec.towns_min <= len(towns) <= spec.towns_max
        used = Counter(sq.terrain for sq in state.squares)
        allowed = {name for name, _ in spec.weights} | {"plains", spec.default}
        assert set(used) <= allowed


def test_G2_veldt_terrain_matches_the_digest_averages(content: Content) -> None:
    counts: Counter[str] = Counter()
    games = 30
    for seed in range(games):
        counts.update(sq.terrain for sq in new_game(classic_config(seed=seed), content).squares)
    # 84 random squares + 10 reserved (plains) minus towns: plains dominate, forest second.
    assert 50 * games < counts["plains"] < 80 * games
    assert 12 * games < counts["forest"] < 26 * games
    assert counts["water"] < 8 * games


def test_G2_symmetric_option_mirrors_terrain(content: Content) -> None:
    for seed in range(10):
        state = new_game(classic_config(seed=seed, symmetric=True), content)
        terrain = state.terrain_map()
        assert all(terrain[at] == terrain[at.rotated(12, 12)] for at in terrain)


def test_G2_random_realm_picks_one_of_the_others(content: Content) -> None:
    seen = set()
    for seed in range(12):
        state = new_game(classic_config(seed=seed, realm="random"), content)
        seen.add(frozenset(sq.terrain for sq in state.squares))
    assert len(seen) > 1


def test_D_ACCESS_every_structure_is_reachable_without_walks(content: Content) -> None:
    for seed in range(20):
        state = new_game(classic_config(seed=seed, realm="arboria"), content)
        terrain = state.terrain_map()
        start = state.sanctum(Side.RED)
        assert start is not None
        seen = {start.coord}
        todo = [start.coord]
        while todo:
            at = todo.pop()
            for n in at.neighbours():
                t = terrain.get(n)
                if n in seen or t is None:
                    continue
                spec = content.terrains[t]
                if spec.needs or spec.fatal:
                    continue
                seen.add(n)
                todo.append(n)
        assert all(s.coord in seen for s in state.structures)


def test_D_TOWNS_towns_fill_tiers_symmetrically(content: Content) -> None:
    state = new_game(classic_config(seed=3), content)
    towns = {s.coord for s in state.structures if s.kind == "town"}
    assert len(towns) == 5  # Veldt
    assert {Coord.parse("D7"), Coord.parse("I6"), Coord.parse("J4"), Coord.parse("C9")} <= towns


def test_G3_start_with_sanctum_four_recruits_deck_and_hand(opening: GameState) -> None:
    decks = classic_config().decks
    for side, nation in ((Side.RED, "human"), (Side.BLUE, "elf")):
        sanctum = opening.sanctum(side)
        assert sanctum is not None and sanctum.owner == side
        groups = opening.groups_of(side)
        assert len(groups) == 1 and groups[0].coord == sanctum.coord
        assert sorted(m.unit for m in groups[0].minions) == [
            "archer",
            "archer",
            "swordsman",
            "swordsman",
        ]
        assert {m.nation for m in groups[0].minions} == {nation}
        player = opening.player(side)
        assert len(player.hand) == 5 and len(player.deck) == len(decks[side]) - 5
        assert player.pool == Mana()
    assert all(s.owner == NEUTRAL and not s.novices for s in opening.structures if s.kind == "town")


def test_D_START_NOVICES_red_starts_with_four_novices_and_blue_without_initiative_five(
    opening: GameState,
) -> None:
    for side, nation, count in ((Side.RED, "human", 4), (Side.BLUE, "elf", 5)):
        sanctum = opening.sanctum(side)
        assert sanctum is not None
        assert sanctum.novices == (nation,) * count
        assert sanctum.counter == 0


def test_G3_cyclops_recruits_have_nine_hit_points(content: Content) -> None:
    config = classic_config()
    config = MatchConfig(
        seed=1,
        houses={Side.RED: "body", Side.BLUE: "life"},
        decks={Side.RED: default_deck("body", content), Side.BLUE: config.decks[Side.BLUE]},
    )
    state = new_game(config, content)
    assert {m.max_hp for m in state.groups_of(Side.RED)[0].minions} == {9}


def test_G3_decks_are_shuffled_and_card_uids_unique(opening: GameState) -> None:
    uids = [c.uid for p in opening.players for c in (*p.deck, *p.hand)]
    assert len(uids) == len(set(uids))
    red = opening.player(Side.RED)
    assert [c.spell_id for c in (*red.hand, *red.deck)] != sorted(
        c.spell_id for c in (*red.hand, *red.deck)
    )


def test_D_DECK_thirty_spells_at_most_four_copies(content: Content) -> None:
    ids = [s.id for s in content.spells.values() if not s.helper and s.spell_class == "standard"]
    assert check_deck(ids[:29], content) == ["a deck needs at least 30 spells; this one has 29"]
    assert any("5 copies" in p for p in check_deck([ids[0]] * 5 + ids[1:26], content))
    assert any("unknown spell" in p for p in check_deck(["nope", *ids[:30]], content))
    assert check_deck(default_deck("war", content), content) == []


def test_G3_bad_configuration_is_refused_with_a_reason(content: Content) -> None:
    good = classic_config()
    with pytest.raises(SetupError, match="unknown realm"):
        new_game(MatchConfig(seed=1, realm="mars", houses=good.houses, decks=good.decks), content)
    with pytest.raises(SetupError, match="red needs a house"):
        new_game(MatchConfig(seed=1, houses={}, decks=good.decks), content)
    with pytest.raises(SetupError, match="blue's deck"):
        new_game(
            MatchConfig(seed=1, houses=good.houses, decks={Side.RED: good.decks[Side.RED]}),
            content,
        )


def test_I1_red_starts_with_initiative(opening: GameState) -> None:
    assert opening.initiative is Side.RED
    assert opening.turn == 1
