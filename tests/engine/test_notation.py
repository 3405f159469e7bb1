"""The typed order notation: every form BOT.md promises, precise errors, and the echo round trip."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.coords import Coord
from engine.notation import (
    HELP_TEXT,
    Action,
    CardInfo,
    GroupInfo,
    NotationContext,
    NotationError,
    Order,
    StructureInfo,
    add_orders,
    all_orders,
    format_order,
    format_orders,
    parse_command,
    parse_lines,
    remove_order,
)
from engine.orders import (
    CastOrder,
    DiscardOrder,
    ManaChoice,
    MoveOrder,
    Orders,
    Target,
    TrainOrder,
)
from engine.state import MANA_TYPES

E5 = Coord.parse("E5")
D7 = Coord.parse("D7")
F1 = Coord.parse("F1")


def context() -> NotationContext:
    return NotationContext(
        side="red",
        hand=(
            CardInfo(11, "Fireball", "square", boostable=True),
            CardInfo(12, "Plague", "group"),
            CardInfo(13, "Adriel's Timepiece", "globe"),
            CardInfo(14, "Fireball", "square", boostable=True),
            CardInfo(15, "Curse of Weakness", "minion"),
            CardInfo(16, "Wall on Fire", "terrain"),
            CardInfo(17, "Dracha's Trade", "structure"),
            CardInfo(0, "Elven Chorus", "square", source="hereditary", spell_id="elven_chorus"),
            CardInfo(
                0,
                "Stone Call",
                "group",
                source="bound",
                spell_id="stone_call",
                carrier=77,
                powers=(1, 3),
            ),
        ),
        groups=(
            GroupInfo(1, F1, "red", (2, 3, 4, 5)),
            GroupInfo(6, E5, "blue", (7, 8)),
            GroupInfo(9, Coord.parse("G2"), "red", (10,)),
        ),
        structures=(
            StructureInfo(30, F1, "sanctum", "red"),
            StructureInfo(31, D7, "town", "neutral"),
            StructureInfo(32, Coord.parse("G12"), "sanctum", "blue"),
        ),
        mana_types=("world", "mystery"),
        known_spells=("Fireball", "Plague", "Lienna", "Mirage"),
    )


def one(text: str, ctx: NotationContext | None = None) -> Order:
    command = parse_command(text, ctx or context())
    assert command.action is Action.ADD
    assert len(command.orders) == 1
    return command.orders[0]


def error(text: str, ctx: NotationContext | None = None) -> NotationError:
    with pytest.raises(NotationError) as caught:
        parse_command(text, ctx or context())
    return caught.value


# -- casting


def test_cast_on_a_square() -> None:
    assert one("cast Fireball on E5") == CastOrder(11, Target("square", E5))


def test_cast_is_case_and_word_forgiving() -> None:
    assert one("cast fireball e5 boosted") == CastOrder(11, Target("square", E5), boosted=True)
    assert one("CAST  FIREBALL at e5") == CastOrder(11, Target("square", E5))


def test_second_cast_of_a_name_takes_the_second_copy() -> None:
    ctx = context().with_orders(Orders(casts=(CastOrder(11, Target("square", E5)),)))
    assert one("cast Fireball on D7", ctx) == CastOrder(14, Target("square", D7))


def test_spell_names_with_apostrophes_and_target_words() -> None:
    assert one("cast adriels timepiece") == CastOrder(13, Target("globe", None))
    assert one("cast Adriel's Timepiece on globe") == CastOrder(13, Target("globe", None))
    # "on" inside a spell's own name is part of the name.
    assert one("cast wall on fire on E5") == CastOrder(16, Target("square", E5))


def test_cast_on_a_group_names_the_group_standing_there() -> None:
    assert one("cast Plague on E5") == CastOrder(12, Target("group", 6))
    assert one("cast Plague on g1") == CastOrder(12, Target("group", 1))
    assert one("cast Plague on sanctum") == CastOrder(12, Target("group", 1))


def test_cast_on_a_group_trained_this_turn_names_its_square() -> None:
    ctx = context().with_orders(Orders(trains=(TrainOrder(D7, "archer"),)))
    assert one("cast Plague on D7", ctx) == CastOrder(12, Target("group", D7))
    # On an own structure the train order may come later: the square names the new group.
    sanctum = replace(context(), groups=context().groups[1:])
    assert one("cast Plague on F1", sanctum) == CastOrder(12, Target("group", F1))


def test_cast_on_a_minion_names_it_by_position_in_its_group() -> None:
    assert one("cast Curse of Weakness on E5#2") == CastOrder(15, Target("minion", 8))
    assert one("cast Curse of Weakness on E5 1") == CastOrder(15, Target("minion", 7))
    assert one("cast curse of weakness on g2") == CastOrder(15, Target("minion", 10))


def test_minion_spell_on_a_crowded_square_asks_which_minion() -> None:
    assert "write E5#1 to E5#2" in error("cast Curse of Weakness on E5").message
    assert "has 2" in error("cast Curse of Weakness on E5#3").message


def test_cast_on_a_structure() -> None:
    assert one("cast Dracha's Trade on D7") == CastOrder(17, Target("structure", 31))
    assert error("cast Dracha's Trade on E6").message == "there is no town or colony on E6"


def test_misspelt_spell_suggests_the_card_in_hand() -> None:
    err = error("cast Firebal on E5")
    assert err.message == "no spell 'Firebal' in your hand; did you mean Fireball?"
    assert err.suggestion == "Fireball"


def test_spell_known_but_not_held() -> None:
    err = error("cast Lienna on E5")
    assert err.message.startswith("you do not hold Lienna (your hand: Fireball, Plague")


def test_unknown_spell_lists_the_hand() -> None:
    assert error("cast Zzyzx").message.startswith("no spell 'Zzyzx' in your hand (your hand: ")


def test_cast_needs_a_target_unless_globe() -> None:
    assert error("cast Fireball").message == (
        "Fireball needs a target (square): `cast Fireball on E5`"
    )
    assert "globe" in error("cast Adriel's Timepiece on E5").message


def test_boost_of_a_spell_without_boosted_version() -> None:
    assert error("cast Plague on E5 boosted").message == "Plague has no boosted version"


def test_group_spell_on_an_empty_square() -> None:
    assert error("cast Plague on A1").message == "there is no group on A1 for Plague"


def test_hereditary_spell_is_cast_without_a_card() -> None:
    assert one("cast elven chorus on E5") == CastOrder(
        0, Target("square", E5), spell_id="elven_chorus"
    )
    assert error("discard Elven Chorus").message.startswith("no spell 'Elven Chorus' in your hand")


def test_bound_spell_takes_a_power_level() -> None:
    assert one("cast Stone Call on E5 power 3") == CastOrder(
        0, Target("group", 6), power=3, bound_source=77, spell_id="stone_call"
    )
    # The first level when none is named.
    first = one("cast Stone Call on E5")
    assert isinstance(first, CastOrder) and first.power == 1
    assert error("cast Stone Call on E5 power 2").message == (
        "Stone Call is cast at power 1 or 3, not 2"
    )
    assert error("cast Plague on E5 power 2").message.startswith("only bound spells")


# -- moving


@pytest.mark.parametrize(
    ("text", "dest"),
    [
        ("move g1 north", "F2"),
        ("move g1 n", "F2"),
        ("move 1 n", "F2"),
        ("move g1 to E1", "E1"),
        ("move g1 e1", "E1"),
        ("m g1 west", "E1"),
        ("move F1 east", "G1"),
        ("move g1 north east", "G2"),
        ("move g1 n n", "F3"),
    ],
)
def test_move_forms(text: str, dest: str) -> None:
    assert one(text) == MoveOrder(1, Coord.parse(dest))


def test_capital_g_is_a_square_and_small_g_a_label() -> None:
    # g2 is the player's second group (on G2); G1 is the square, where nothing stands.
    assert one("cast Plague on g2") == CastOrder(12, Target("group", 9))
    assert error("cast Plague on G1").message == "there is no group on G1 for Plague"
    # No third group: g3 falls back to the square G3.
    assert error("cast Plague on g3").message == "there is no group on G3 for Plague"
    assert one("move G2 north") == MoveOrder(9, Coord.parse("G3"))


def test_move_second_group_by_label() -> None:
    assert one("move 2 n") == MoveOrder(9, Coord.parse("G3"))


def test_move_unknown_group_lists_the_players_groups() -> None:
    assert error("move g7 north").message == (
        "you have no group 'g7' (your groups: g1 on F1, g2 on G2)"
    )
    # An enemy group cannot be ordered.
    assert error("move E5 north").message.startswith("you have no group 'E5'")


def test_move_misspelt_direction_suggests_one() -> None:
    err = error("move g1 nroth")
    assert err.message == "'nroth' is neither a direction nor a square; did you mean north?"


def test_move_off_the_board() -> None:
    assert error("move g1 s").message == "that leads off the board from F1"


# -- training


def test_train_forms() -> None:
    assert one("train archer at sanctum") == TrainOrder(F1, "archer")
    assert one("train swordsman at D7") == TrainOrder(D7, "swordsman")
    assert one("train mana world") == TrainOrder(F1, "mana", "world")
    assert one("train sword") == TrainOrder(F1, "swordsman")


def test_train_several_at_once() -> None:
    command = parse_command("train 3 archers at sanctum", context())
    assert command.orders == (TrainOrder(F1, "archer"),) * 3


def test_train_mana_of_a_foreign_type() -> None:
    err = error("train mana wrold")
    assert err.message == (
        "your Sanctum trains mana of world or mystery, not 'wrold'; did you mean world?"
    )


def test_train_mana_needs_a_type_and_the_sanctum() -> None:
    assert error("train mana").message == (
        "train mana of which type? `train mana world` or `train mana mystery`"
    )
    assert error("train mana world at D7").message == "mana is trained only in your Sanctum"


def test_train_where_there_is_no_structure() -> None:
    assert error("train archer at E5").message == "there is no structure on E5 to train in"


def test_train_unknown_kind() -> None:
    assert error("train archr").message.endswith("did you mean archer?")


# -- discarding and sheet actions


def test_discard() -> None:
    assert one("discard Plague") == DiscardOrder(12)
    assert error("discard Plauge").message.endswith("did you mean Plague?")


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("confirm", Action.CONFIRM),
        ("Done", Action.CONFIRM),
        ("unconfirm", Action.UNCONFIRM),
        ("clear", Action.CLEAR),
        ("orders", Action.SHOW),
        ("help", Action.HELP),
    ],
)
def test_sheet_actions(text: str, action: Action) -> None:
    assert parse_command(text, context()).action is action


def test_cancel_takes_an_echo_number() -> None:
    assert parse_command("cancel 2", context()).index == 2
    assert error("cancel two").message.startswith("`cancel` takes the number")


def test_unknown_verb_suggests_one() -> None:
    assert error("cnofirm").message == (
        "unknown order 'cnofirm' (type `help` for the notation); did you mean confirm?"
    )
    assert error("   ").message.startswith("nothing to read")


def test_lines_are_read_one_by_one() -> None:
    results = parse_lines("cast Fireball on E5\nmove g9 n; confirm\n\n", context())
    assert isinstance(results[0], type(parse_command("confirm", context())))
    assert isinstance(results[1], NotationError)
    assert results[2] == parse_command("confirm", context())
    assert len(results) == 3


@pytest.mark.parametrize(
    "text",
    ["mana D7 world", "MANA d7 World", "mana world at D7", "mana the town on D7 to world"],
)
def test_mana_choice_forms(text: str) -> None:
    assert one(text) == ManaChoice(D7, "world")


def test_mana_choice_takes_any_of_the_six_types() -> None:
    # A captured town may make a type the house does not use (D-TOWN-MANA).
    assert one("mana D7 order") == ManaChoice(D7, "order")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("mana", "name one town or colony by its square and a mana type, e.g. `mana D7 world`"),
        ("mana world", "name one town or colony by its square"),
        ("mana D7", "which mana type should D7 make? one of order, strife, clarity"),
        ("mana D7 wrold", "'wrold' is not a mana type (order, strife"),
        ("mana E5 world", "there is no town or colony on E5"),
        ("mana F1 world", "there is no town or colony on F1"),
        ("mana D7 world fire", "cannot read 'world fire'"),
    ],
)
def test_mana_choice_errors(text: str, message: str) -> None:
    assert message in error(text).message


def test_misspelt_mana_type_suggests_one() -> None:
    assert error("mana D7 wrold").suggestion == "world"


def test_help_mentions_every_verb() -> None:
    verbs = ("cast", "move", "train", "discard", "mana", "confirm", "unconfirm", "clear", "cancel")
    for verb in verbs:
        assert verb in HELP_TEXT


# -- the echo


def test_echo_numbers_orders_in_sheet_order() -> None:
    ctx = context()
    orders = Orders(
        casts=(
            CastOrder(11, Target("square", E5), boosted=True),
            CastOrder(12, Target("group", 6)),
        ),
        moves=(MoveOrder(9, Coord.parse("G3")),),
        trains=(TrainOrder(F1, "mana", "world"), TrainOrder(D7, "archer")),
        discard=DiscardOrder(13),
        mana_choices=(ManaChoice(D7, "strife"),),
    )
    assert format_orders(orders, ctx) == [
        "1. cast Fireball on E5 boosted",
        "2. cast Plague on E5",
        "3. move g2 to G3",
        "4. train mana world",
        "5. train archer at D7",
        "6. discard Adriel's Timepiece",
        "7. mana D7 strife",
    ]


def test_add_replaces_a_groups_move_and_the_discard() -> None:
    orders = add_orders(Orders(), [MoveOrder(1, E5), DiscardOrder(11), MoveOrder(9, D7)])
    orders = add_orders(orders, [MoveOrder(1, F1), DiscardOrder(12)])
    assert orders.moves == (MoveOrder(9, D7), MoveOrder(1, F1))
    assert orders.discard == DiscardOrder(12)


def test_add_replaces_the_mana_choice_of_the_same_structure() -> None:
    g12 = Coord.parse("G12")
    orders = add_orders(Orders(), [ManaChoice(D7, "world"), ManaChoice(g12, "will")])
    orders = add_orders(orders, [ManaChoice(D7, "order"), MoveOrder(1, E5)])
    assert orders.mana_choices == (ManaChoice(g12, "will"), ManaChoice(D7, "order"))
    assert orders.moves == (MoveOrder(1, E5),)


def test_remove_order_by_echo_number() -> None:
    orders = add_orders(Orders(), [CastOrder(11, Target("square", E5)), MoveOrder(1, E5)])
    assert all_orders(remove_order(orders, 1)) == [MoveOrder(1, E5)]
    with pytest.raises(NotationError, match="there is no order 3; you have 2"):
        remove_order(orders, 3)
    chosen = add_orders(orders, [ManaChoice(D7, "will")])
    assert remove_order(chosen, 2).mana_choices == (ManaChoice(D7, "will"),)
    assert remove_order(chosen, 3) == orders


def _retarget(cast: CastOrder) -> CastOrder:
    targets = {
        11: Target("square", D7),
        12: Target("group", 6),
        13: Target("globe", None),
        15: Target("minion", 3),
        16: Target("square", E5),
        17: Target("structure", 31),
    }
    if cast.card_uid == 0:
        return CastOrder(0, Target("square", E5), spell_id="elven_chorus")
    if cast.card_uid == 1:
        return CastOrder(0, Target("group", 1), power=3, bound_source=77, spell_id="stone_call")
    return CastOrder(cast.card_uid, targets[cast.card_uid], boosted=cast.card_uid == 11)


ORDERS = st.one_of(
    st.builds(
        CastOrder,
        st.sampled_from([11, 12, 13, 15, 16, 17, 0, 1]),
        st.just(Target("globe", None)),
    ).map(_retarget),
    st.builds(
        MoveOrder,
        st.sampled_from([1, 9]),
        st.builds(Coord, st.integers(0, 11), st.integers(0, 11)),
    ),
    st.sampled_from(
        [TrainOrder(F1, "archer"), TrainOrder(D7, "swordsman"), TrainOrder(F1, "mana", "mystery")]
    ),
    st.sampled_from([DiscardOrder(11), DiscardOrder(12), DiscardOrder(16)]),
    st.builds(ManaChoice, st.just(D7), st.sampled_from(MANA_TYPES)),
)


@given(ORDERS)
def test_every_echoed_order_reads_back_as_itself(order: Order) -> None:
    assert parse_command(format_order(order, context()), context()).orders == (order,)
