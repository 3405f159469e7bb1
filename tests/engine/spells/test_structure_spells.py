"""The town alterations of D-SP31 and Making's two of D-SP32: each pays its owner 1 mana of its
type at every start of turn and changes one stat of the minions standing in its town (and, with
radius 1, next to it), as its rules text says."""

from dataclasses import dataclass

import pytest

from engine.content import load_content
from engine.queries import effective_stats
from engine.state import GameState, HostRef
from engine.turn import resolve_turn
from tests.engine.spells.helpers import BLUE, RED, Board, world_of

CONTENT = load_content()


@dataclass(frozen=True)
class Rule:
    spell: str
    mana: str
    stat: str
    amount: int
    side: str  # whose minions the change reaches: "friendly" or "enemy"
    radius: int = 1  # 0: only the minions standing in the town


RULES = [
    Rule("proving_ground", "world", "armor", +1, "friendly"),
    Rule("tower_of_whispers", "clarity", "hand", -1, "enemy"),
    Rule("armory", "strife", "missile", +1, "friendly"),
    Rule("spire_of_entropy", "world", "armor", -1, "enemy"),
    Rule("weeping_stones", "mystery", "missile", -1, "enemy"),
    Rule("elder_tree", "clarity", "armor", +1, "friendly"),
    Rule("watchtower", "order", "missile", +1, "friendly"),
    Rule("rampart", "will", "armor", +2, "friendly", radius=0),
]
STAT_INDEX = {"armor": 1, "hand": 2, "missile": 3}


def town_board(spell: str | None) -> tuple[Board, dict[str, int]]:
    """Red's town on C3 (with the spell on it when ``spell`` is given) with a red group in it; a
    red and a blue group beside it, a blue group two squares away. Every minion has 1 armor, 2
    hand and 1 bow, so a weakening shows."""
    b = Board()
    town = b.structure("town", "C3", RED)
    groups = {
        "red_in": b.group(RED, "C3", "swordsman"),
        "red_next": b.group(RED, "C2", "swordsman"),
        "blue_next": b.group(BLUE, "D3", "swordsman"),
        "blue_far": b.group(BLUE, "E3", "swordsman"),
    }
    b.groups = [
        g._replace(minions=tuple(m._replace(armor=1, hand=2, missile=1) for m in g.minions))
        for g in b.groups
    ]
    if spell is not None:
        b.active(spell, RED, HostRef("structure", town))
    return b, groups


def stat(state: GameState, gid: int, name: str) -> int:
    world = world_of(state, CONTENT)
    group = world.group(gid)
    assert group is not None
    stats = effective_stats(world, group)
    minion = group.minions[0]
    base = {"armor": minion.armor, "hand": minion.hand, "missile": minion.missile}[name]
    if stats is None or stats[0] is None:
        return base
    return stats[0][STAT_INDEX[name]]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.spell)
def test_D_SP31_D_SP32_town_spell_pays_its_owner_each_start_of_turn(rule: Rule) -> None:
    with_spell, _ = town_board(rule.spell)
    without, _ = town_board(None)
    after, _ = resolve_turn(with_spell.state(), {}, content=CONTENT)
    before, _ = resolve_turn(without.state(), {}, content=CONTENT)
    gained = after.player(RED).pool.get(rule.mana) - before.player(RED).pool.get(rule.mana)
    assert gained == 1
    assert after.player(BLUE).pool == before.player(BLUE).pool


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.spell)
def test_D_SP31_D_SP32_town_spell_reaches_one_side_within_its_radius(rule: Rule) -> None:
    board, groups = town_board(rule.spell)
    plain, _ = town_board(None)
    state, bare = board.state(), plain.state()
    if rule.radius == 0:
        reached, spared = "red_in", "red_next"
    elif rule.side == "friendly":
        reached, spared = "red_next", "blue_next"
    else:
        reached, spared = "blue_next", "red_next"
    base = stat(bare, groups[reached], rule.stat)
    assert stat(state, groups[reached], rule.stat) == max(0, base + rule.amount)
    assert stat(state, groups[spared], rule.stat) == stat(bare, groups[spared], rule.stat)
    # Two squares from the town is out of reach.
    assert stat(state, groups["blue_far"], rule.stat) == stat(bare, groups["blue_far"], rule.stat)
