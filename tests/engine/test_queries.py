"""engine.queries answers exactly as the spell modifiers do, through its fast paths and caches."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.content import load_content
from engine.coords import coord
from engine.position import Position, PositionIndex
from engine.queries import abilities, can_move, effective_group, effective_minion, moves, walks
from engine.spells import modifiers
from engine.spells.hooks import SPELL_HOOKS
from engine.state import (
    GLOBE,
    ActiveSpell,
    GameState,
    Group,
    HostRef,
    Options,
    PlayerState,
    Side,
    Square,
    Structure,
)
from engine.world import World

CONTENT = load_content()
STAT_SPELLS = sorted(CONTENT.index.with_op("modify") | CONTENT.index.with_op("aura_modify"))
OTHER_SPELLS = sorted(CONTENT.index.with_op("grant") | CONTENT.index.with_op("hold"))
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def positions(draw: st.DrawFn) -> GameState:
    """A 4x4 board with a town, up to 6 groups and up to 8 spells on minions, groups, squares,
    the town or the globe (group spells sometimes cast on some members only, N12)."""
    rnd = random.Random(draw(st.integers(0, 10_000)))
    next_id = 1
    groups = []
    cells = [coord(x, y) for y in range(4) for x in range(4)]
    rnd.shuffle(cells)
    for at in cells[: rnd.randint(1, 6)]:
        owner = rnd.choice((Side.RED, Side.BLUE))
        minions = []
        for _ in range(rnd.randint(1, 5)):
            unit = rnd.choice(("swordsman", "archer"))
            minions.append(CONTENT.make_minion(next_id, unit, rnd.choice((None, "elf"))))
            next_id += 1
        groups.append(Group(next_id, owner, owner, at, tuple(minions)))
        next_id += 1
    town = Structure(next_id, "town", coord(1, 1), Side.RED, mana_type="order")
    next_id += 1
    hosts: list[HostRef] = [GLOBE, HostRef.structure(town.id)]
    hosts += [HostRef.square(at) for at in cells]
    for g in groups:
        hosts.append(HostRef.group(g.id))
        hosts += [HostRef.minion(m.id) for m in g.minions]
    spells = []
    for _ in range(draw(st.integers(0, 8))):
        host = rnd.choice(hosts)
        data: tuple[tuple[str, object], ...] = ()
        if host.kind == "group" and rnd.random() < 0.5:
            group = next(g for g in groups if g.id == host.ref)
            cast_on = tuple(m.id for m in group.minions if rnd.random() < 0.5)
            data = (("members", cast_on),)
        spell_id = rnd.choice(STAT_SPELLS + OTHER_SPELLS)
        owner = rnd.choice((Side.RED, Side.BLUE))
        spells.append(ActiveSpell(next_id, spell_id, owner, host, 1, data=data))  # type: ignore[arg-type]
        next_id += 1
    return GameState(
        seed=1,
        turn=1,
        options=Options(board="custom"),
        width=4,
        height=4,
        squares=tuple(Square(coord(x, y), "plains") for y in range(4) for x in range(4)),
        structures=(town,),
        groups=tuple(groups),
        players=(PlayerState(Side.RED, "war"), PlayerState(Side.BLUE, "life")),
        active_spells=tuple(spells),
        next_id=next_id,
    )


def _same_answers(world: World) -> None:
    hosts = {s.host for s in world.spell_map.values()}
    for host in hosts | {GLOBE}:
        expected_on = sorted((s for s in world.spell_map.values() if s.host == host), key=_uid)
        assert list(world.spells_on(host)) == expected_on
    _same_group_answers(world)


def _same_group_answers(pos: Position) -> None:
    for group in pos.groups:
        expected = tuple(modifiers.effective_minion(pos, group, m) for m in group.minions)
        assert effective_group(pos, group) == expected
        for m, e in zip(group.minions, expected, strict=True):
            assert effective_minion(pos, group, m) == e
            assert abilities(pos, group, m) == modifiers.abilities(pos, group, m)
        assert moves(pos, group) == modifiers.moves(pos, group)
        assert walks(pos, group) == modifiers.walks(pos, group)
        assert can_move(pos, group) == modifiers.can_move(pos, group)


@SETTINGS
@given(positions())
def test_queries_agree_with_the_modifiers_between_turns(state: GameState) -> None:
    # One index is asked everything twice: its memo (auras, where spells sit) answers the second.
    index = PositionIndex(state, CONTENT)
    _same_group_answers(index)
    _same_group_answers(index)
    # ... and they are the turn's answers (the World keeps no memo of auras or of where spells sit).
    world = World(state, random.Random(0), CONTENT, SPELL_HOOKS)
    for group in index.groups:
        assert effective_group(index, group) == effective_group(world, group)
        assert moves(index, group) == moves(world, group)
        assert walks(index, group) == walks(world, group)


@SETTINGS
@given(positions(), st.integers(0, 1000))
def test_queries_agree_with_the_modifiers_while_the_world_changes(
    state: GameState, seed: int
) -> None:
    rnd = random.Random(seed)
    world = World(state, random.Random(seed), CONTENT, SPELL_HOOKS)
    cells = list(world.terrain)
    _same_answers(world)
    for _ in range(10):
        minions = [m for g in world.groups for m in g.minions]
        roll = rnd.random()
        if minions and roll < 0.2:
            world.kill_minion(rnd.choice(minions).id, "died")
        elif minions and roll < 0.35:
            world.damage_minion(rnd.choice(minions).id, 1, "test")
        elif world.spell_map and roll < 0.4:
            world.remove_spell(rnd.choice(list(world.spell_map)), "test")
        elif world.spell_map and roll < 0.45:
            spell = world.spell_map[rnd.choice(list(world.spell_map))]
            world.update_spell(replace(spell, host=HostRef.square(rnd.choice(cells))))
        elif world.groups and roll < 0.6:
            group = rnd.choice(world.groups)
            host = rnd.choice((HostRef.group(group.id), HostRef.square(rnd.choice(cells))))
            world.add_spell(rnd.choice(STAT_SPELLS), rnd.choice((Side.RED, Side.BLUE)), host)
        elif world.groups:
            group = rnd.choice(world.groups)
            free = [c for c in world.terrain if world.group_at(c) is None]
            if free:
                world.place_group(group.id, rnd.choice(free))
        _same_answers(world)


def _uid(spell: ActiveSpell) -> int:
    return spell.uid
