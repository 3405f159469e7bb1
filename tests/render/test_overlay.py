"""Reading a TurnReport into overlay marks: what each event draws, and where."""

from __future__ import annotations

from io import BytesIO

import pytest
from PIL import Image, ImageChops

from engine.content import Content, load_content
from engine.report import Event, TurnReport
from engine.state import Side
from engine.view import view_for
from render import DEFAULT_THEME, render_board
from render.adapt import report_marks, scene_from_view
from render.board import draw_turn, layout_for
from render.geometry import Layout
from render.marks import (
    CaptureMark,
    CombatMark,
    DeathMark,
    MoveMark,
    TrainMark,
    TurnMarks,
    marks_from_report,
)
from render.scene import BoardScene, GroupMark, SquareMark
from render.sprites import structure_icon, structure_mana_chip
from tests.render.fixtures import (
    c,
    crowded_square_scene,
    midgame_report,
    midgame_state,
    spell_book,
)

BOOK = spell_book()


def sq(name: str) -> tuple[int, int]:
    return (ord(name[0]) - ord("A"), int(name[1:]) - 1)


def midgame_marks(side: Side | None = None) -> TurnMarks:
    state = midgame_state()
    scene = scene_from_view(view_for(state, side, load_content()), BOOK)
    return report_marks(midgame_report(state), scene, BOOK)


def test_moves_become_arrows_and_bounced_or_blocked_moves_stop_at_the_border() -> None:
    marks = midgame_marks()
    assert marks.moves == (
        MoveMark(sq("E5"), sq("E6"), "red"),
        MoveMark(sq("E6"), sq("F6"), "red"),
        MoveMark(sq("H8"), sq("G7"), "blue"),
        MoveMark(sq("I5"), sq("H5"), "blue"),
        MoveMark(sq("D6"), sq("E6"), "red", bounced=True),
        MoveMark(sq("H5"), sq("H4"), "blue", bounced=True),
    )


def test_a_combat_counts_each_side_s_losses() -> None:
    assert midgame_marks().combats == (
        CombatMark(sq("F6"), sq("F7"), (("neutral", 2), ("red", 1))),
    )


def test_deaths_are_counted_per_square_whatever_the_cause() -> None:
    deaths = {mark.at: mark.count for mark in midgame_marks().deaths}
    assert deaths == {sq("F7"): 2, sq("F6"): 1, sq("H5"): 1}
    assert all(isinstance(mark, DeathMark) for mark in midgame_marks().deaths)


def test_casts_point_where_the_target_was_when_the_spell_executed() -> None:
    casts = {mark.spell.spell_id: mark for mark in midgame_marks().casts}
    # The red army moved E5 -> F6 after Fortitude executed on it.
    assert casts["fortitude"].target == sq("E5")
    assert not casts["fortitude"].squandered
    # Mind Spike aimed at a minion of the monsters that bounced back to D6.
    assert casts["mind_spike"].target == sq("D6")
    assert casts["mind_spike"].squandered
    assert casts["codex_of_order"].target is None
    assert casts["faerie_circle"].target == sq("H7")
    assert casts["faerie_circle"].spell.name == "Faerie Circle"
    assert casts["faerie_circle"].spell.house == "life"


def test_captures_are_marked() -> None:
    assert midgame_marks().captures == (CaptureMark(sq("I6"), "blue"),)


def test_training_and_terrain_changes_are_marked() -> None:
    marks = midgame_marks()
    assert marks.trained == (TrainMark(sq("D4"), "red", "+Ar"),)
    assert marks.terrain_changed == (sq("J6"),)


def test_several_recruits_trained_on_one_square_share_a_mark() -> None:
    scene = scene_with_group("C3", 7, (71,))
    trained = Event.make("trained", side="blue", at="C3", trained_as="swordsman")
    report = TurnReport(2, (trained, trained), Side.RED, Side.RED)
    marks = marks_from_report(report, scene, lambda spell: (spell, ""))
    assert marks.trained == (TrainMark(sq("C3"), "blue", "+2 Sw"),)


def test_every_side_gets_the_same_marks() -> None:
    assert midgame_marks(None) == midgame_marks(Side.RED) == midgame_marks(Side.BLUE)


def scene_with_group(at: str, group_id: int, minions: tuple[int, ...]) -> BoardScene:
    x, y = sq(at)
    square = SquareMark(x, y, "plains", groups=(GroupMark(group_id, "red", 2, minion_ids=minions),))
    return BoardScene(12, 12, (square,), 3, "red", ())


@pytest.mark.parametrize(
    "target",
    [("group", 7), "group:7", "group 7", ("minion", 71), "minion:72", "C3", ("square", "C3")],
)
def test_targets_are_read_in_every_form(target: object) -> None:
    scene = scene_with_group("C3", 7, (71, 72))
    event = Event("spell_executed", (("side", "red"), ("spell", "x"), ("target", target)))  # type: ignore[arg-type]
    report = TurnReport(2, (event,), Side.RED, Side.RED)
    marks = marks_from_report(report, scene, lambda spell: (spell, ""))
    assert [m.target for m in marks.casts] == [sq("C3")]


def test_a_cast_on_an_unknown_target_draws_nothing() -> None:
    scene = scene_with_group("C3", 7, (71,))
    event = Event("spell_executed", (("side", "red"), ("spell", "x"), ("target", ("group", 99))))
    report = TurnReport(2, (event,), Side.RED, Side.RED)
    assert marks_from_report(report, scene, lambda spell: (spell, "")).casts == ()


def test_fizzles_and_fights_without_losses_are_not_drawn() -> None:
    scene = scene_with_group("C3", 7, (71,))
    events = (
        Event("spell_fizzled", (("side", "red"), ("spell", "x"), ("target", "C3"))),
        Event("combat", (("against", "C4"), ("at", "C3"))),
        Event("combat_ended", (("rounds", 1),)),
    )
    marks = marks_from_report(TurnReport(2, events, Side.RED, Side.RED), scene, lambda s: (s, ""))
    assert marks.casts == ()
    assert marks.combats == ()


def test_a_death_on_a_town_leaves_its_mana_chip_readable(content: Content) -> None:
    state = midgame_state()
    view = view_for(state, None, content)
    town = state.structure_at(c("D7"))
    assert town is not None and town.mana_type == "will"
    died = Event.make("died", at="D7", cause="killed", group=1, minion=1, side="red")
    report = TurnReport(state.turn - 1, (died,), Side.RED, Side.RED)
    plain = Image.open(BytesIO(render_board(view, None, spells=BOOK))).convert("RGB")
    marked = Image.open(BytesIO(render_board(view, report, spells=BOOK))).convert("RGB")
    layout = Layout(view.width, view.height, DEFAULT_THEME)
    left, top, _right, _bottom = layout.square_box(*sq("D7"))
    chip, (x, y) = structure_mana_chip("will", left, top, layout.cell)
    box = (x, y, x + chip.width, y + chip.height)
    before, after = plain.crop(box).load(), marked.crop(box).load()
    alpha = chip.getchannel("A").load()
    assert before is not None and after is not None and alpha is not None
    solid = [(i, j) for i in range(chip.width) for j in range(chip.height) if alpha[i, j] == 255]
    assert len(solid) > chip.width * chip.height // 2
    assert [p for p in solid if before[p] != after[p]] == []


def test_a_crowded_squares_marks_leave_its_buildings_icon_clear() -> None:
    scene, marks = crowded_square_scene()
    layout = layout_for(scene, DEFAULT_THEME)
    drawn, _palette = draw_turn(scene, marks)
    bare, _palette = draw_turn(scene, TurnMarks())
    for square in scene.squares:
        if square.structure is None or (square.x, square.y) == (0, 0):
            continue
        left, top, _right, _bottom = layout.square_box(square.x, square.y)
        pad = max(1, layout.cell // 30)
        icon = structure_icon(
            square.structure.kind, square.structure.owner, round(layout.cell * 0.5), DEFAULT_THEME
        )
        box = (left + pad, top + pad, left + pad + icon.width, top + pad + icon.height)
        opaque = icon.getchannel("A").point(lambda a: 255 if a == 255 else 0)
        changed = ImageChops.difference(drawn.crop(box), bare.crop(box)).convert("L")
        assert ImageChops.multiply(changed, opaque).getbbox() is None, (square.x, square.y)


def test_two_kinds_trained_on_one_square_are_both_readable() -> None:
    scene, _marks = crowded_square_scene()
    at = next((s.x, s.y) for s in scene.squares if s.structure is not None)
    swords, mana = TrainMark(at, "red", "+Sw"), TrainMark(at, "red", "+Mana")
    bare, _palette = draw_turn(scene, TurnMarks())
    first, _palette = draw_turn(scene, TurnMarks(trained=(swords,)))
    both, _palette = draw_turn(scene, TurnMarks(trained=(swords, mana)))
    # Every pixel the first chip drew is still the first chip's: the second does not cover it.
    drew = ImageChops.difference(first, bare).convert("L").point(lambda v: 255 if v else 0)
    kept = ImageChops.difference(both, first).convert("L")
    assert ImageChops.multiply(kept, drew).getbbox() is None
    # And the second chip is drawn somewhere.
    assert kept.getbbox() is not None
