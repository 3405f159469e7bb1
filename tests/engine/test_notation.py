"""The typed order notation: every form BOT.md promises, precise errors, and the echo round trip."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance import load_scenario
from engine.content import Content, load_content
from engine.coords import Coord
from engine.notation import (
    DIRECTIONS,
    HELP_TEXT,
    TRAIN_KINDS,
    VERBS,
    Action,
    CardInfo,
    Command,
    GroupInfo,
    NotationContext,
    NotationError,
    StructureInfo,
    context_for,
    format_order,
    format_orders,
    parse_command,
    parse_lines,
)
from engine.orders import (
    CastOrder,
    DiscardOrder,
    ManaChoice,
    MoveOrder,
    Order,
    Orders,
    Target,
    TrainOrder,
    add_orders,
)
from engine.position import PositionIndex
from engine.setup import new_game
from engine.spells.targeting import candidate_targets
from engine.state import MANA_TYPES, ActiveSpell, Card, GameState, HostRef, Side, Structure
from engine.validate import validate_orders
from engine.view import view_for
from tests.engine.conftest import classic_config

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


def test_full_width_letters_and_digits_read_as_plain_ones() -> None:
    assert one("ｃａｓｔ Ｆｉｒｅｂａｌｌ ｏｎ Ｅ５") == CastOrder(11, Target("square", E5))


def test_a_symbol_is_named_rather_than_dropped() -> None:
    assert "'🔥' is not part of the order notation" in error("cast 🔥 on E5").message


def test_second_cast_of_a_name_takes_the_second_copy() -> None:
    ctx = context().with_orders(Orders(casts=(CastOrder(11, Target("square", E5)),)))
    assert one("cast Fireball on D7", ctx) == CastOrder(14, Target("square", D7))


def test_a_second_cast_of_a_name_in_the_same_message_takes_the_second_copy() -> None:
    results = parse_lines("cast Fireball on E5\ncast Fireball on D7", context())
    assert results == [
        Command(Action.ADD, (CastOrder(11, Target("square", E5)),)),
        Command(Action.ADD, (CastOrder(14, Target("square", D7)),)),
    ]


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


# -- ground and focused spells (N11), on a real board

N11_SCENARIO = Path(__file__).parents[1] / "scenarios" / "spells" / "n11_aura_focused_ground.toml"


def _n11() -> tuple[GameState, Content, NotationContext, dict[str, int]]:
    """Red holds Jumping Land (ground) and Assassin's Mark (focused); blue stands on D2 (one
    swordsman), E2, A3 (two swordsmen) and F3."""
    scenario = load_scenario(N11_SCENARIO)
    state, content = scenario.state, scenario.content
    ctx = context_for(view_for(state, Side.RED, content), content)
    cards = {card.spell_id: card.uid for card in state.player(Side.RED).hand}
    return state, content, ctx, {**cards, **scenario.labels.minions}


def _accepted(state: GameState, content: Content, order: Order) -> bool:
    assert isinstance(order, CastOrder)
    return validate_orders(state, Side.RED, Orders(casts=(order,)), content) == []


def test_N11_a_ground_spell_is_typed_with_a_square() -> None:
    state, content, ctx, ids = _n11()
    on_group = one("cast Jumping Land on F3", ctx)
    assert on_group == CastOrder(ids["jumping_land"], Target("square", Coord.parse("F3")))
    # Ground names any square, an empty one too.
    empty = one("cast jumping land e1", ctx)
    assert empty == CastOrder(ids["jumping_land"], Target("square", Coord.parse("E1")))
    assert _accepted(state, content, on_group)
    assert _accepted(state, content, empty)


def test_N11_a_ground_spell_takes_no_minion_number() -> None:
    *_, ctx, _ = _n11()
    assert error("cast Jumping Land on F3#1", ctx).message == (
        "Jumping Land is cast on a square: write `cast Jumping Land on F3`"
    )
    assert error("cast Jumping Land", ctx).message == (
        "Jumping Land needs a target (square: a ground spell): `cast Jumping Land on E5`"
    )


def test_N11_a_focused_spell_is_typed_with_one_minion() -> None:
    state, content, ctx, ids = _n11()
    second = one("cast Assassin's Mark on A3#2", ctx)
    assert second == CastOrder(ids["assassins_mark"], Target("minion", ids["p2"]))
    assert one("cast assassins mark on A3 1", ctx) == CastOrder(
        ids["assassins_mark"], Target("minion", ids["p1"])
    )
    # The one member of a group of one needs no number.
    alone = one("cast Assassin's Mark on D2", ctx)
    assert alone == CastOrder(ids["assassins_mark"], Target("minion", ids["t1"]))
    assert _accepted(state, content, second)
    assert _accepted(state, content, alone)


def test_N11_a_focused_spell_asks_which_minion() -> None:
    *_, ctx, _ = _n11()
    assert error("cast Assassin's Mark on A3", ctx).message == (
        "Assassin's Mark targets one minion; the group on A3 has 2: write A3#1 to A3#2"
    )
    assert error("cast Assassin's Mark on B2", ctx).message == (
        "there is no group on B2 for Assassin's Mark"
    )
    assert error("cast Assassin's Mark", ctx).message == (
        "Assassin's Mark needs a target (one minion: a focused spell): "
        "`cast Assassin's Mark on E5#1`"
    )


def test_N11_plain_group_spells_still_name_the_whole_group() -> None:
    state, content, ctx, _ = _n11()
    folly = one("cast Fingle's Folly on D2", ctx)
    group = state.group_at(Coord.parse("D2"))
    assert group is not None and isinstance(folly, CastOrder)
    assert folly.target == Target("group", group.id)
    assert _accepted(state, content, folly)
    assert error("cast Fingle's Folly on A3#2", ctx).message == (
        "Fingle's Folly targets a whole group; write just A3"
    )


def test_N11_a_hand_built_context_aims_by_the_given_order_kind() -> None:
    ctx = replace(
        context(),
        hand=(
            *context().hand,
            CardInfo(18, "Fire Storm", "group", aim="square"),
            CardInfo(19, "Assassin's Mark", "group", aim="minion"),
        ),
    )
    assert one("cast Fire Storm on A1", ctx) == CastOrder(18, Target("square", Coord.parse("A1")))
    assert one("cast Assassin's Mark on E5#2", ctx) == CastOrder(19, Target("minion", 8))


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


def _towns(state: GameState) -> list[Structure]:
    return [s for s in state.structures if s.kind == "town"]


def _catalogue_game() -> tuple[GameState, Content]:
    """A started game where red holds one card of every spell cast from hand, and two Shadow
    Altars (on the first two towns) and Dracha's Claws carry bound spells for red."""
    content = load_content()
    state = new_game(classic_config(), content)
    castable = [
        spell.id
        for spell in content.spells.values()
        if spell.spell_class in ("standard", "learned") and not spell.helper
    ]
    hand = tuple(Card(1000 + i, spell_id) for i, spell_id in enumerate(castable))
    red = replace(state.player(Side.RED), hand=hand)
    hero = state.groups[0].minions[0].id
    first, second = _towns(state)[:2]
    carriers = (
        ActiveSpell(900, "shadow_altar", Side.RED, HostRef.structure(first.id), 1),
        ActiveSpell(901, "shadow_altar", Side.RED, HostRef.structure(second.id), 1),
        ActiveSpell(902, "dracha_claws", Side.RED, HostRef.minion(hero), 1, helper=True),
    )
    return replace(state, players=(red, state.players[1]), active_spells=carriers), content


def _casts_of(info: CardInfo, state: GameState, content: Content) -> list[CastOrder]:
    spell = content.spells[
        info.spell_id or next(c.spell_id for c in state.player(Side.RED).hand if c.uid == info.uid)
    ]
    squares = {Coord.parse(name) for name in ("A1", "D4", "E5", "I9", "L12")}
    board = PositionIndex(state, content)
    targets = [t for t in candidate_targets(board, spell) if t.kind != "square" or t.ref in squares]
    casts = []
    for target in targets:
        if info.source == "bound":
            casts += [
                CastOrder(0, target, power=p, bound_source=info.carrier, spell_id=info.spell_id)
                for p in info.powers
            ]
            continue
        for boosted in (False, True) if info.boostable else (False,):
            uid = info.uid if info.source == "hand" else 0
            spell_id = info.spell_id if info.source == "hereditary" else None
            casts.append(CastOrder(uid, target, boosted=boosted, spell_id=spell_id))
    return casts


def test_every_cast_of_every_spell_reads_back_as_itself() -> None:
    # Ground, focused, bound (two carriers of one spell), hereditary and boosted casts: the
    # echo of each is typed back and means the same order, read alone or with the others.
    state, content = _catalogue_game()
    ctx = context_for(view_for(state, Side.RED, content), content)
    assert {"Jumping Land", "Fire Storm", "Assassin's Mark"} <= {info.name for info in ctx.hand}
    casts = [cast for info in ctx.hand for cast in _casts_of(info, state, content)]
    aims = {cast.target.kind for cast in casts}
    assert aims == {"globe", "square", "group", "minion", "structure"}
    assert len({c.bound_source for c in casts if c.bound_source is not None}) == 3
    echoed = ctx.with_orders(Orders(casts=tuple(casts)))
    for cast in casts:
        assert parse_command(format_order(cast, ctx), ctx).orders == (cast,)
        assert parse_command(format_order(cast, echoed), echoed).orders == (cast,)


def test_the_echo_names_the_carrier_only_when_two_carry_the_spell() -> None:
    state, content = _catalogue_game()
    ctx = context_for(view_for(state, Side.RED, content), content)
    lash = [c for c in ctx.hand if c.spell_id == "shadow_lash"]
    towns = [town.coord for town in _towns(state)]
    assert [c.carrier_at for c in lash] == towns[:2]
    target = Target("group", state.groups[1].id)
    second = CastOrder(
        0, target, power=lash[1].powers[-1], bound_source=901, spell_id="shadow_lash"
    )
    text = format_order(second, ctx)
    assert text.endswith(f"power {lash[1].powers[-1]} from {towns[1]}")
    breath = next(c for c in ctx.hand if c.spell_id == "dragon_breath")
    assert "from" not in format_order(
        CastOrder(0, target, power=breath.powers[0], bound_source=902, spell_id="dragon_breath"),
        ctx,
    )
    # Without `from`, a second cast takes the carrier not yet ordered.
    first = one("cast Shadow Lash on I9", ctx)
    assert isinstance(first, CastOrder) and first.bound_source == 900
    taken = ctx.with_orders(Orders(casts=(first,)))
    again = one("cast Shadow Lash on I9", taken)
    assert isinstance(again, CastOrder) and again.bound_source == 901
    assert error(f"cast Shadow Lash on I9 from {towns[2]}", ctx).message == (
        f"nothing of yours on {towns[2]} carries Shadow Lash (it is on {towns[0]}, {towns[1]})"
    )
    assert error("cast Fireball on E5 from D7").message == (
        "only bound spells are cast from a carrier; Fireball is not one"
    )


# -- any text: an answer, never a crash


@pytest.mark.parametrize(
    "text",
    [
        "train \u00b2 archer",
        "cancel \u00b2",
        "cancel \u0663",
        "move \u00b2 north",
        "move \u2460 n",
        "cast Fireball on E5 \u00b2",
        "cast Fireball on E\u0663",
        "cast Stone Call on E5 power \u00b2",
        "cast Curse of Weakness on E5#\u0661",
        "mana D\u0667 world",
        "cancel " + "9" * 5000,
        "train " + "1" * 5000 + " archers",
        "move " + "2" * 5000 + " north",
        "cast Curse of Weakness on E5#" + "1" * 5000,
        "cast Plague on g" + "2" * 5000,
    ],
)
def test_only_ascii_digits_are_numbers(text: str) -> None:
    # "²" and "٣" pass str.isdigit() but are no number a player types; nor is a 5000-digit one.
    (result,) = parse_lines(text, context())
    assert isinstance(result, NotationError)


def test_unicode_digits_get_the_message_of_a_missing_number() -> None:
    assert error("cancel \u00b2").message.startswith("`cancel` takes the number of an order")
    assert error("cast Stone Call on E5 power \u00b2").message == (
        "'\u00b2' is no power level; write e.g. power 2"
    )
    assert error("cast Fireball on E\u0663").message.startswith("'E\u0663' is not a square")


@cache
def _started_game_context() -> NotationContext:
    content = load_content()
    state = new_game(classic_config(), content)
    return context_for(view_for(state, Side.RED, content), content)


def _answers(text: str, ctx: NotationContext) -> None:
    results = parse_lines(text, ctx)
    assert all(isinstance(r, Command | NotationError) for r in results)
    orders = Orders()
    for result in results:
        if isinstance(result, Command):
            orders = add_orders(orders, result.orders)
    format_orders(orders, ctx.with_orders(orders))


ANY_TEXT = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@ANY_TEXT
@given(st.text())
def test_any_text_gets_commands_or_notation_errors(text: str) -> None:
    _answers(text, _started_game_context())


_WORDS = [
    *VERBS,
    *DIRECTIONS,
    *TRAIN_KINDS,
    *MANA_TYPES,
    "on", "power", "from", "boosted", "globe", "sanctum", "g1", "g2", "D4", "D4#1", "I9#2",
    "Z26", "0", "1", "9", "\u00b2", "\u0663", "\u2460", "#", ";", "\n",
]  # fmt: skip


@ANY_TEXT
@given(
    st.sampled_from(list(VERBS)),
    st.lists(
        st.sampled_from(_WORDS)
        | st.sampled_from([c.name for c in _started_game_context().hand])
        | st.text(max_size=4),
        max_size=8,
    ),
)
def test_any_mix_of_order_words_gets_commands_or_notation_errors(
    verb: str, words: list[str]
) -> None:
    _answers(" ".join([verb, *words]), _started_game_context())


def test_the_help_casts_only_spells_of_the_catalogue() -> None:
    content = load_content()
    names = {s.name for s in content.spells.values()}
    named = re.findall(r"(?:cast|discard) ([A-Z][\w']*(?: [A-Z][\w']*)*)", HELP_TEXT)
    assert len(named) >= 6
    assert [n for n in named if n not in names] == []
