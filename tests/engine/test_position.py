"""One way to read a position: the World and the index over a state answer every read alike."""

from __future__ import annotations

import ast
import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import queries
from engine.content import load_content
from engine.position import Position, PositionIndex
from engine.rng import turn_rng
from engine.setup import new_game
from engine.spells.hooks import SPELL_HOOKS
from engine.state import GLOBE, GameState, HostRef, Side, evolve
from engine.turn import resolve_turn
from engine.world import World
from tests.engine.conftest import classic_config, random_orders

CONTENT = load_content()
ROOT = Path(__file__).resolve().parents[2]
SETTINGS = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Every id set a reader selects spells by: the ids carrying each continuous primitive.
ID_SETS = [CONTENT.index.ops[op] for op in sorted(CONTENT.index.ops)]


def _hosts(state: GameState) -> list[HostRef]:
    hosts = [GLOBE, *(s.host for s in state.active_spells)]
    hosts += [HostRef.square(sq.coord) for sq in state.squares]
    hosts += [HostRef.structure(s.id) for s in state.structures]
    for g in state.groups:
        hosts.append(HostRef.group(g.id))
        hosts += [HostRef.minion(m.id) for m in g.minions]
    return hosts


def _answers(pos: Position, state: GameState) -> dict[str, object]:
    """Every read of ``pos``, asked about every id, square and host ``state`` knows of."""
    ids = range(state.next_id + 1)
    coords = [sq.coord for sq in state.squares]
    return {
        "content": pos.content,
        "options": pos.options,
        "turn": pos.turn,
        "initiative": pos.initiative,
        "terrain": dict(pos.terrain),
        "groups": list(pos.groups),
        "structures": list(pos.structures),
        "active_spells": list(pos.active_spells),
        "player": [pos.player(side) for side in Side],
        "group": [pos.group(i) for i in ids],
        "group_of": [pos.group_of(i) for i in ids],
        "minion": [pos.minion(i) for i in ids],
        "structure": [pos.structure(i) for i in ids],
        "group_at": [pos.group_at(at) for at in coords],
        "structure_at": [pos.structure_at(at) for at in coords],
        "sanctum": [pos.sanctum(side) for side in Side],
        "spells_on": [list(pos.spells_on(h)) for h in _hosts(state)],
        "spells_of": [list(pos.spells_of(side)) for side in Side],
        "spells_among": [list(pos.spells_among(ids)) for ids in ID_SETS],
        "globe_among": [list(pos.globe_among(ids)) for ids in ID_SETS],
        "minion_hosts": set(pos.minion_hosts()),
        # The core's question that reads the placement memo (the auras' sources).
        "effective_stats": [queries.effective_stats(pos, g) for g in state.groups],
    }


def _state_answers(state: GameState) -> dict[str, object]:
    """The reads a frozen state offers itself, under the same names."""
    ids = range(state.next_id + 1)
    coords = [sq.coord for sq in state.squares]
    return {
        "player": [state.player(side) for side in Side],
        "group": [state.group(i) for i in ids],
        "group_of": [state.group_of(i) for i in ids],
        "minion": [state.minion(i) for i in ids],
        "structure": [state.structure(i) for i in ids],
        "group_at": [state.group_at(at) for at in coords],
        "structure_at": [state.structure_at(at) for at in coords],
        "sanctum": [state.sanctum(side) for side in Side],
        "spells_on": [list(state.spells_on(h)) for h in _hosts(state)],
        "spells_of": [list(state.spells_of(side)) for side in Side],
    }


def _stir(world: World, rnd: random.Random) -> None:
    """Change the World's spells and minions as a turn would, so its indexes must keep up."""
    spell_ids = sorted(CONTENT.spells)
    hosts = _hosts(world.state)
    for _ in range(rnd.randint(1, 6)):
        roll = rnd.random()
        if roll < 0.4 or not world.spell_map:
            world.add_spell(rnd.choice(spell_ids), rnd.choice(list(Side)), rnd.choice(hosts))
        elif roll < 0.6:
            world.remove_spell(rnd.choice(list(world.spell_map)), "dispelled")
        elif roll < 0.8:
            spell = world.spell_map[rnd.choice(list(world.spell_map))]
            world.update_spell(evolve(spell.with_data(moved=True), host=rnd.choice(hosts)))
        elif world.group_map:
            group = world.group_map[rnd.choice(list(world.group_map))]
            world.kill_minion(rnd.choice(group.minions).id, "removed")
        hosts = _hosts(world.state)


def _agree(world: World, state: GameState) -> None:
    index = PositionIndex(state, CONTENT)
    assert isinstance(world, Position)
    assert isinstance(index, Position)
    live = _answers(world, state)
    assert live == _answers(index, state)
    own = _state_answers(state)
    assert own == {key: live[key] for key in own}


@SETTINGS
@given(st.integers(0, 10_000), st.integers(0, 10_000))
def test_the_world_and_the_index_read_played_positions_alike(seed: int, play: int) -> None:
    state = new_game(classic_config(seed=seed), CONTENT)
    rnd = random.Random(play)
    for _ in range(10):
        if state.result is not None:
            break
        world = World(state, turn_rng(state.seed, state.turn), CONTENT, SPELL_HOOKS)
        _agree(world, state)
        # A World changed in place still reads like a fresh index over its snapshot.
        _stir(world, rnd)
        _agree(world, world.state)
        state, _ = resolve_turn(
            state, random_orders(state, rnd, CONTENT, move=0.8, cast=0.6), content=CONTENT
        )


def test_a_world_keeps_its_placement_memo_until_a_group_or_a_spell_changes() -> None:
    state = new_game(classic_config(seed=3), CONTENT)
    world = World(state, turn_rng(state.seed, state.turn), CONTENT, SPELL_HOOKS)
    memo = world.placement_memo()
    memo["answer"] = 1
    assert world.placement_memo() is memo
    group = next(iter(world.group_map.values()))
    world.place_group(group.id, group.coord)
    assert world.placement_memo() == {}
    world.placement_memo()["answer"] = 2
    world.add_spell(sorted(CONTENT.spells)[0], Side.RED, GLOBE)
    assert world.placement_memo() == {}
    index = PositionIndex(state, CONTENT)
    assert index.placement_memo() is index.memo


# Classes that answer "which spells sit on this host?", and why each exists. A new one is a
# second way to read a position: implement Position instead.
READERS = {
    "engine/position.py": {
        "Position": "the reading interface",
        "PositionIndex": "the index over a frozen state",
    },
    "engine/store.py": {"Store": "the records of the turn's World, read live"},
    "engine/spells/presence.py": {"SpellPresence": "the Store's index of where spells sit"},
    "engine/state.py": {"GameState": "the frozen record's own linear reads, same names"},
    "engine/view.py": {"PlayerView": "what one player may see, not a position"},
}


def test_no_second_reader_of_positions_appears() -> None:
    found: dict[str, dict[str, str]] = {}
    for package in ("engine", "ai", "render", "service", "cogs", "conformance", "storage"):
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and any(
                    isinstance(item, ast.FunctionDef) and item.name == "spells_on"
                    for item in node.body
                ):
                    rel = path.relative_to(ROOT).as_posix()
                    found.setdefault(rel, {})[node.name] = READERS.get(rel, {}).get(node.name, "")
    assert found == READERS
