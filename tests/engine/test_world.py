"""The turn's working copy: deaths and their events, the broadcast order, structure bookkeeping."""

from __future__ import annotations

import random
from dataclasses import replace

from engine.content import Content
from engine.coords import Coord
from engine.spells.hooks import SPELL_HOOKS
from engine.start import update_initiative
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

C3 = Coord.parse("C3")


def _state(content: Content) -> GameState:
    minions = tuple(content.make_minion(i, "swordsman", None) for i in (1, 2))
    group = Group(3, Side.RED, Side.RED, C3, minions)
    spells = (
        ActiveSpell(10, "s_globe_blue", Side.BLUE, GLOBE, 1),
        ActiveSpell(11, "s_square", Side.RED, HostRef.square(C3), 1),
        ActiveSpell(12, "s_minion", Side.RED, HostRef.minion(1), 1),
        ActiveSpell(13, "s_group", Side.BLUE, HostRef.group(3), 1),
        ActiveSpell(14, "s_globe_red", Side.RED, GLOBE, 1),
        ActiveSpell(15, "s_other_minion", Side.RED, HostRef.minion(2), 1),
    )
    return GameState(
        seed=1,
        turn=1,
        options=Options(board="custom"),
        width=5,
        height=5,
        squares=tuple(Square(Coord(x, y), "plains") for y in range(5) for x in range(5)),
        structures=(Structure(4, "town", Coord.parse("A1"), Side.RED, mana_type="strife"),),
        groups=(group,),
        players=(PlayerState(Side.RED, "war"), PlayerState(Side.BLUE, "life")),
        initiative=Side.RED,
        active_spells=spells,
        next_id=20,
    )


class Recorder:
    def __init__(self) -> None:
        self.heard: list[tuple[str, str]] = []
        self.save: int | None = None

    def __call__(self, world: World, spell: ActiveSpell, event: str, subject: object) -> None:
        self.heard.append((event, spell.spell_id))
        if event == "host_dying" and self.save is not None:
            world.prevent_death(self.save)


def test_D_BROADCAST_minion_then_group_then_square_then_globe(content: Content) -> None:
    rec = Recorder()
    world = World(_state(content), random.Random(1), content, SPELL_HOOKS, on_event=rec)
    world.broadcast("start_of_turn", HostRef.minion(1))
    assert [s for _, s in rec.heard] == [
        "s_minion",
        "s_group",
        "s_square",
        "s_globe_red",  # red holds initiative: its globe spells first
        "s_globe_blue",
    ]


def test_D_BROADCAST_group_events_reach_every_member(content: Content) -> None:
    rec = Recorder()
    world = World(_state(content), random.Random(1), content, SPELL_HOOKS, on_event=rec)
    world.broadcast("group_entered", HostRef.group(3))
    assert [s for _, s in rec.heard][:3] == ["s_group", "s_minion", "s_other_minion"]


def test_D_BROADCAST_turn_wide_events_initiative_side_first(content: Content) -> None:
    rec = Recorder()
    state = replace(_state(content), initiative=Side.BLUE)
    world = World(state, random.Random(1), content, SPELL_HOOKS, on_event=rec)
    world.broadcast("end_of_turn")
    assert [s for _, s in rec.heard] == [
        "s_globe_blue",
        "s_group",
        "s_square",
        "s_minion",
        "s_globe_red",
        "s_other_minion",
    ]


def test_G9_death_categories_fire_their_events(content: Content) -> None:
    rec = Recorder()
    world = World(_state(content), random.Random(1), content, SPELL_HOOKS, on_event=rec)
    assert world.kill_minion(1, "killed", by=99)
    events = [e for e, s in rec.heard if s == "s_group"]
    assert events == ["host_killed", "host_dying", "minion_died"]
    died = [e for e in world.report if e.kind == "died"]
    assert died[0].get("cause") == "killed" and died[0].get("by") == 99
    assert "s_minion" not in {s.spell_id for s in world.active_spells}  # S8: left with its host
    rec.heard.clear()
    assert world.kill_minion(2, "removed")
    assert rec.heard == []  # removed from the game: no event at all
    assert world.group(3) is None
    assert [e.kind for e in world.report if e.kind == "group_died"] == ["group_died"]


def test_G9_a_spell_hearing_dying_may_prevent_the_death(content: Content) -> None:
    rec = Recorder()
    rec.save = 1
    world = World(_state(content), random.Random(1), content, SPELL_HOOKS, on_event=rec)
    assert not world.kill_minion(1, "died")
    assert world.minion(1) is not None
    assert not [e for e in world.report if e.kind == "died"]


def test_I3_a_town_destroyed_by_a_spell_counts_as_lost(content: Content) -> None:
    world = World(_state(content), random.Random(1), content, SPELL_HOOKS, on_event=Recorder())
    world.destroy_structure(4)
    assert world.player(Side.RED).lost == 1
    update_initiative(world)
    assert world.initiative is Side.BLUE
    assert world.player(Side.RED).lost == 0  # counted since the previous start of turn only


def test_I4_equal_deltas_keep_initiative(content: Content) -> None:
    world = World(_state(content), random.Random(1), content, SPELL_HOOKS, on_event=Recorder())
    for side in (Side.RED, Side.BLUE):
        world.update_player(replace(world.player(side), captured=2, lost=1))
    update_initiative(world)
    assert world.initiative is Side.RED
    assert not [e for e in world.report if e.kind == "initiative"]


def test_revision_moves_with_every_change(content: Content) -> None:
    world = World(_state(content), random.Random(1), content, SPELL_HOOKS, on_event=Recorder())
    seen = world.revision
    world.place_group(3, Coord.parse("D3"))
    assert world.revision > seen
    seen = world.revision
    world.add_spell("s_new", Side.RED, GLOBE)
    assert world.revision > seen
    assert [s.spell_id for s in world.spells_on(GLOBE)][-1] == "s_new"


def test_D_CAPTURE_a_colony_made_for_a_side_produces_its_primary_mana(content: Content) -> None:
    world = World(_state(content), random.Random(1), content, SPELL_HOOKS, on_event=Recorder())
    colony = world.create_structure("colony", Coord.parse("E5"), Side.BLUE)
    assert colony.mana_type == "clarity"  # Life's primary
    assert world.terrain[Coord.parse("E5")] == "plains"
    assert world.structure_at(Coord.parse("E5")) == colony


def _two_groups(content: Content, spells: tuple[ActiveSpell, ...]) -> World:
    state = _state(content)
    other = Group(
        5, Side.BLUE, Side.BLUE, Coord.parse("C4"), (content.make_minion(6, "archer", None),)
    )
    state = replace(state, groups=(*state.groups, other), active_spells=spells)
    return World(state, random.Random(1), content, SPELL_HOOKS)


def test_G9_deaths_are_heard_only_where_a_death_reacting_spell_sits(content: Content) -> None:
    # Soul Jar (reacts to "host_dying") on group 3 and Fortitude (no death reaction) on group 5.
    world = _two_groups(
        content,
        (
            ActiveSpell(10, "soul_jar", Side.RED, HostRef.group(3), 1),
            ActiveSpell(11, "fortitude", Side.BLUE, HostRef.group(5), 1),
        ),
    )
    first, second = world.group_map[3], world.group_map[5]
    assert world.presence.hears_death(first) and world.presence.hears_death(first, "died")
    assert not world.presence.hears_death(second)
    # "host_dying" concerns the host itself: the same jar on the square hears nobody's death.
    world = _two_groups(content, (ActiveSpell(10, "soul_jar", Side.RED, HostRef.square(C3), 1),))
    assert not world.presence.hears_death(world.group_map[3])


def test_G9_a_spell_reacting_to_minion_died_on_the_globe_hears_every_death(
    content: Content,
) -> None:
    world = _two_groups(content, (ActiveSpell(10, "death_knell", Side.RED, GLOBE, 1),))
    assert world.presence.hears_death(world.group_map[3]) and world.presence.hears_death(
        world.group_map[5]
    )
    will = world.player(Side.RED).pool.will
    assert world.kill_minion(6, "killed", by=1)
    assert world.player(Side.RED).pool.will == will + 1
    assert 10 not in world.spell_map  # the knell falls silent after the first death


def test_G9_a_kill_no_spell_hears_is_the_same_death_without_the_warnings(
    content: Content,
) -> None:
    state = replace(
        _state(content),
        active_spells=(ActiveSpell(12, "s_minion", Side.RED, HostRef.minion(1), 1),),
    )
    unheard = World(state, random.Random(1), content, SPELL_HOOKS)
    heard = World(state, random.Random(1), content, SPELL_HOOKS)
    group = unheard.group(3)
    assert group is not None and not unheard.presence.hears_death(group)
    assert not unheard.kill_unheard(1, 99, by=7)  # not in that group: nothing done
    assert unheard.minion(1) is not None
    for minion_id in (1, 2):
        assert unheard.kill_unheard(minion_id, 3, by=7)
        assert heard.kill_minion(minion_id, "killed", by=7)
        assert unheard.state == heard.state
        assert list(unheard.report) == list(heard.report)
    assert unheard.group(3) is None and not unheard.active_spells  # S8: its spell left with it
