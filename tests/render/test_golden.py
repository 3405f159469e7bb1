"""Golden images of every drawing, from fixed inputs (regenerate: see README.md here)."""

from __future__ import annotations

import pytest

from engine.content import Content
from engine.orders import (
    CastOrder,
    DiscardOrder,
    ManaChoice,
    MoveOrder,
    Orders,
    Target,
    TrainOrder,
)
from engine.spells.catalogue import parse_spell_table
from engine.state import Side
from engine.view import view_for
from render import (
    ScheduleRow,
    StandingRow,
    render_board,
    render_card,
    render_order_sheet,
    render_schedule,
    render_standings,
)
from render.board import draw_turn
from render.encode import png_bytes
from tests.render.fixtures import (
    c,
    captured_state,
    crowded_square_scene,
    midgame_report,
    midgame_state,
    spell_book,
)
from tests.render.golden_images import assert_matches_golden


@pytest.mark.parametrize(
    ("name", "side", "with_report"),
    [
        ("board_public_overlay", None, True),
        ("board_red", Side.RED, False),
        ("board_blue_overlay", Side.BLUE, True),
    ],
)
def test_board_matches_golden(
    name: str, side: Side | None, with_report: bool, content: Content
) -> None:
    state = midgame_state()
    report = midgame_report(state) if with_report else None
    png = render_board(
        view_for(state, side, content),
        report,
        spells=spell_book(),
        names={"red": "Morgana", "blue": "Quill"},
    )
    assert_matches_golden(name, png)


def test_a_final_board_won_by_capture_matches_golden(content: Content) -> None:
    png = render_board(
        view_for(captured_state(), None, content),
        spells=spell_book(),
        names={"red": "Morgana", "blue": "Quill"},
    )
    assert_matches_golden("board_final_captured", png)


def red_orders() -> Orders:
    state = midgame_state()
    hand = state.player(Side.RED).hand
    army, enemy, monsters = (
        state.group_at(c("F6")),
        state.group_at(c("G7")),
        state.group_at(c("D6")),
    )
    assert army and enemy and monsters
    return Orders(
        casts=(
            CastOrder(hand[0].uid, Target("group", enemy.id)),
            CastOrder(hand[3].uid, Target("group", army.id)),
            CastOrder(hand[4].uid, Target("square", c("E5"))),
        ),
        moves=(MoveOrder(army.id, c("F7")), MoveOrder(monsters.id, c("D5"))),
        trains=(TrainOrder(c("D4"), "archer"), TrainOrder(c("D7"), "mana", "will")),
        discard=DiscardOrder(hand[1].uid),
        mana_choices=(ManaChoice(c("F7"), "world"),),
    )


def test_order_sheet_matches_golden(content: Content) -> None:
    state = midgame_state()
    png = render_order_sheet(view_for(state, Side.RED, content), red_orders(), spells=spell_book())
    assert_matches_golden("sheet_red", png)


CARD_TABLE = {
    "id": "golden_fireball",
    "name": "Golden Fireball",
    "house": "war",
    "cost": "5+1",
    "boosted_cost": "7+1",
    "type": "manifestation",
    "target": "group",
    "qualifiers": ["hex", "range 3", "missile"],
    "rules": (
        "Deals 5 damage to each minion of an enemy group within 3 squares of a friendly group, "
        "with no mountain or forest in between. Boosted: 8 damage instead."
    ),
    "effects": [{"do": "damage", "amount": 5}],
    "boosted_effects": [{"do": "damage", "amount": 8}],
}


def test_card_matches_golden() -> None:
    assert_matches_golden("card_fireball", render_card(parse_spell_table(CARD_TABLE, "golden")))


def test_standings_match_golden() -> None:
    rows = [
        StandingRow("Morgana", 5, 4, 1, 0, 4.5, (10.25, 2), 1612),
        StandingRow("Quill the Unreasonably Long-Named Wizard of the North", 5, 3, 0, 2, 3, (7, 1)),
        StandingRow("Ash", 5, 2, 1, 2, 2.5, (5.5, 0), 1490),
        StandingRow("Bryn", 5, 0, 0, 5, 0, (0, 0), 1402),
    ]
    png = render_standings(
        rows, subtitle="Spring season · after round 5", tiebreak_names=("SB", "H2H")
    )
    assert_matches_golden("standings", png)


def test_schedule_matches_golden() -> None:
    rows = [
        ScheduleRow(1, "Morgana", "Quill", "1-0", "finished"),
        ScheduleRow(1, "Ash", "", "", "bye"),
        ScheduleRow(2, "Quill", "Ash", "", "turn 4", "Fri 18:00 UTC"),
        ScheduleRow(2, "Bryn", "Morgana", "½-½", "finished"),
    ]
    assert_matches_golden("schedule", render_schedule(rows, subtitle="Spring season"))


def test_a_crowded_square_matches_golden() -> None:
    # B2 holds a town, five ongoing spells, five groups and this turn's five casts, five deaths
    # and two trained swordsmen: one token with "×5" for the groups, one framed "×5" for the
    # casts, the skull in the corner, and nothing over the town's icon.
    scene, marks = crowded_square_scene()
    assert_matches_golden("board_crowded_square", png_bytes(*draw_turn(scene, marks)))
