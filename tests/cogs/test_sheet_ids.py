"""Component ids: every id the bot sends reads back as itself, fits Discord's 100 characters,
and an id outside the grammar is refused when written and not recognised when read."""

from __future__ import annotations

import re
from typing import Any

import discord
import pytest

from cogs.match import JoinButton, JoinDeckSelect
from cogs.sheet.ids import (
    CUSTOM_ID_LIMIT,
    JOIN,
    JOIN_DECK,
    SHEET_BUTTONS,
    SHEET_SELECTS,
    TYPED,
    ComponentId,
    decode_target,
    decode_town,
    decode_train,
    encode_cast,
    encode_target,
    encode_town,
    encode_train,
    page_key,
    paged,
    template,
)
from cogs.sheet.views import SheetButton, SheetSelect
from engine.content import load_content
from engine.coords import Coord
from engine.legal import CastOption
from engine.orders import Target, TrainOrder
from engine.state import Mana

LONGEST_MATCH = 10**20 - 1
LONGEST_TURN = 999_999
LONGEST_ARG = "A" * 40

EVERY_ID = [
    *(ComponentId(action, 12, 3) for action in SHEET_SELECTS + SHEET_BUTTONS),
    *(ComponentId(action, 12, 3, "E5") for action in SHEET_SELECTS + SHEET_BUTTONS),
    ComponentId("target", 12, 3, paged("p4-7-dragon_breath", 2)),
    ComponentId("dest", 12, 3, paged("41", 0)),
    ComponentId(TYPED, 12, 3),
    ComponentId(JOIN, 12, 0),
    ComponentId(JOIN_DECK, 12),
]


@pytest.mark.parametrize("component", EVERY_ID, ids=lambda c: c.encode())
def test_every_id_reads_back_as_itself(component: ComponentId) -> None:
    assert ComponentId.decode(component.encode()) == component


def test_the_ids_keep_the_shape_that_sent_sheets_carry() -> None:
    assert ComponentId("cast", 12, 3).encode() == "sanctum:cast:12:3"
    assert ComponentId("dest", 12, 3, "41x0").encode() == "sanctum:dest:12:3:41x0"
    assert ComponentId(TYPED, 12, 3).encode() == "sanctum:typed:12:3"
    assert ComponentId(JOIN, 12, 0).encode() == "sanctum:join:12:0"
    assert ComponentId(JOIN_DECK, 12).encode() == "sanctum:joindeck:12"


def test_the_longest_id_fits_discords_limit() -> None:
    longest = max(
        (
            ComponentId(action, LONGEST_MATCH, LONGEST_TURN, LONGEST_ARG).encode()
            for action in SHEET_SELECTS + SHEET_BUTTONS
        ),
        key=len,
    )
    assert len(longest) <= CUSTOM_ID_LIMIT
    assert ComponentId.decode(longest) is not None


@pytest.mark.parametrize(
    "component",
    [
        ComponentId("cast", 12, 3, LONGEST_ARG + "A"),  # an argument over 40 characters
        ComponentId("cast", 12, 3, "E5:x"),  # a separator in the argument
        ComponentId("cast", 12),  # a sheet's component without its turn
        ComponentId(TYPED, 12, 3, "E5"),  # an argument where none is read
        ComponentId(JOIN_DECK, 12, 3),
        ComponentId("nope", 12, 3),
        ComponentId("cast", 10**20, 3),  # more digits than the grammar reads
    ],
)
def test_an_id_outside_the_grammar_is_refused(component: ComponentId) -> None:
    with pytest.raises(ValueError, match="no custom_id"):
        component.encode()


@pytest.mark.parametrize(
    "text", ["sanctum:cast:12", "sanctum:joindeck:12:3", "other:cast:12:3", "sanctum:nope:1:2", ""]
)
def test_text_that_is_no_id_of_the_bot_is_not_recognised(text: str) -> None:
    assert ComponentId.decode(text) is None


def test_each_item_answers_exactly_the_ids_of_its_actions() -> None:
    items: dict[type[discord.ui.DynamicItem[Any]], tuple[str, ...]] = {
        SheetSelect: SHEET_SELECTS,
        SheetButton: SHEET_BUTTONS,
        JoinButton: (JOIN,),
        JoinDeckSelect: (JOIN_DECK,),
    }
    for component in EVERY_ID:
        owners = [
            item
            for item, actions in items.items()
            if item.__discord_ui_compiled_template__.fullmatch(component.encode())
        ]
        expected = [item for item, actions in items.items() if component.action in actions]
        assert owners == expected, component


def test_a_template_covers_actions_of_one_shape_only() -> None:
    assert re.fullmatch(template(JOIN), "sanctum:join:12:0")
    with pytest.raises(ValueError, match="one shape"):
        template(JOIN, "cast")


async def test_an_item_is_rebuilt_from_its_id_with_the_id_decoded() -> None:
    button = JoinButton.make(12)
    rebuilt = await JoinButton.from_custom_id(None, button.item, None)  # type: ignore[arg-type]
    assert rebuilt.component_id == ComponentId(JOIN, 12, 0)
    menu = JoinDeckSelect.make(12, [discord.SelectOption(label="main", value="1")])
    assert menu.component_id == ComponentId(JOIN_DECK, 12)


def test_paged_arguments_give_back_their_key() -> None:
    assert page_key(paged("p4-7-dragon_breath", 3)) == "p4-7-dragon_breath"
    assert page_key(paged("h-axe_x_b", 1)) == "h-axe_x_b"  # an "x" inside the key
    assert page_key(None) == ""


@pytest.mark.parametrize(
    "target",
    [
        Target("square", Coord.parse("E5")),
        Target("group", Coord.parse("A1")),
        Target("group", 7),
        Target("minion", 31),
        Target("structure", 4),
        Target("globe", None),
    ],
    ids=str,
)
def test_a_target_value_reads_back_as_its_target(target: Target) -> None:
    value = encode_target(target)
    assert decode_target(value) == target
    assert len(value) <= CUSTOM_ID_LIMIT


@pytest.mark.parametrize(
    "order",
    [
        TrainOrder(Coord.parse("C3"), "archer"),
        TrainOrder(Coord.parse("C3"), "swordsman"),
        TrainOrder(Coord.parse("C3"), "mana", "fire"),
    ],
    ids=str,
)
def test_a_train_value_reads_back_as_its_order(order: TrainOrder) -> None:
    assert decode_train(encode_train(order)) == order


def test_a_town_value_reads_back_and_a_training_is_no_town() -> None:
    at = Coord.parse("F6")
    assert decode_town(encode_town(at)) == at
    assert decode_town(encode_train(TrainOrder(at, "archer"))) is None


def test_every_cast_argument_of_every_spell_fits_a_target_menus_id() -> None:
    """The target menu's id carries the cast (and the menu's row): the longest spell id, bound
    and boosted, still fits the grammar's argument."""
    for spell_id in load_content().spells:
        for option in (
            CastOption(spell_id, "hand", spell_id, Mana(), card_uid=99_999, boosted=True),
            CastOption(spell_id, "hereditary", spell_id, Mana(), boosted=True),
            CastOption(spell_id, "bound", spell_id, Mana(), power=9, bound_source=99_999),
        ):
            arg = paged(encode_cast(option), 3)
            assert ComponentId.decode(ComponentId("target", 1, 1, arg).encode()) is not None
