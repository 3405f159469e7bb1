"""validate_orders: every problem at once, with a code and a message a player understands."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from conformance import load_scenario
from engine.content import Content
from engine.coords import Coord
from engine.orders import CastOrder, DiscardOrder, ManaChoice, MoveOrder, Orders, Target, TrainOrder
from engine.state import GameState, Side
from engine.turn import resolve_turn
from engine.validate import validate_orders


def _red_group(state: GameState) -> int:
    return state.groups_of(Side.RED)[0].id


def test_legal_opening_orders_have_no_problem(opening: GameState, content: Content) -> None:
    gid = _red_group(opening)
    orders = Orders(moves=(MoveOrder(gid, Coord.parse("D5")),))
    assert validate_orders(opening, Side.RED, orders, content) == []


def test_every_problem_is_reported_at_once(opening: GameState, content: Content) -> None:
    red = _red_group(opening)
    blue = opening.groups_of(Side.BLUE)[0].id
    card = opening.player(Side.RED).hand[0].uid
    orders = Orders(
        moves=(
            MoveOrder(red, Coord.parse("D7")),  # too far
            MoveOrder(blue, Coord.parse("I8")),  # not ours
            MoveOrder(999, Coord.parse("A1")),  # unknown
            MoveOrder(red, Coord.parse("D5")),  # second order for the same group
        ),
        trains=(TrainOrder(Coord.parse("D4"), "mana"),) * 5,  # the Sanctum holds 4 novices
        discard=DiscardOrder(12345),
        casts=(CastOrder(card, Target("globe")),),
    )
    problems = validate_orders(opening, Side.RED, orders, content)
    codes = [(p.section, p.order_index, p.code) for p in problems]
    assert ("moves", 0, "too_far") in codes
    assert ("moves", 1, "not_your_group") in codes
    assert ("moves", 2, "unknown_group") in codes
    assert ("moves", 3, "duplicate_move") in codes
    assert ("trains", 4, "no_novice") in codes
    assert ("discard", 0, "card_not_in_hand") in codes
    assert all(p.message for p in problems)
    assert any(p.section == "casts" for p in problems)
    too_far = next(p for p in problems if p.code == "too_far")
    assert too_far.message == (
        "the group on D4 can move one square up, down, left or right, not to D7"
    )
    # A player's groups are named by their squares, never by the engine's ids.
    named = [p.message for p in problems if p.section == "moves" and p.code != "unknown_group"]
    assert named and not [m for m in named if re.search(rf"\b({red}|{blue})\b", m)]


def test_off_board_and_same_square(opening: GameState, content: Content) -> None:
    gid = _red_group(opening)
    problems = validate_orders(
        opening, Side.RED, Orders(moves=(MoveOrder(gid, Coord.parse("A1")),)), content
    )
    assert [p.code for p in problems] == ["off_board"]
    problems = validate_orders(
        opening, Side.RED, Orders(moves=(MoveOrder(gid, Coord.parse("D4")),)), content
    )
    assert [p.code for p in problems] == ["same_square"]


def test_discarding_a_cast_card_is_refused(opening: GameState, content: Content) -> None:
    card = opening.player(Side.RED).hand[0].uid
    orders = Orders(casts=(CastOrder(card, Target("globe")),), discard=DiscardOrder(card))
    assert "discard_and_cast" in [
        p.code for p in validate_orders(opening, Side.RED, orders, content)
    ]


def test_no_orders_after_the_game_ended(opening: GameState, content: Content) -> None:
    from engine.turn import concede

    ended = concede(opening, Side.BLUE)
    assert [p.code for p in validate_orders(ended, Side.RED, Orders(), content)] == ["game_over"]


def test_refused_orders_do_not_stop_the_turn(opening: GameState, content: Content) -> None:
    gid = _red_group(opening)
    orders = Orders(
        moves=(MoveOrder(gid, Coord.parse("H12")), MoveOrder(gid, Coord.parse("D5"))),
        trains=(TrainOrder(Coord.parse("A1"), "archer"),),
        discard=DiscardOrder(-3),
    )
    state, report = resolve_turn(opening, {Side.RED: orders}, content=content)
    assert state.group(gid) is not None
    kinds = [e.kind for e in report.events]
    assert "order_refused" in kinds


def test_mana_training_counts_towards_what_can_be_cast(
    opening: GameState, content: Content
) -> None:
    sanctum = opening.sanctum(Side.RED)
    assert sanctum is not None
    state = replace(
        opening,
        structures=tuple(
            replace(s, novices=("human",)) if s.id == sanctum.id else s for s in opening.structures
        ),
    )
    orders = Orders(trains=(TrainOrder(sanctum.coord, "mana", "strife"),))
    assert validate_orders(state, Side.RED, orders, content) == []
    bad = Orders(trains=(TrainOrder(sanctum.coord, "mana", "world"),))
    assert [p.code for p in validate_orders(state, Side.RED, bad, content)] == ["bad_mana_type"]


def test_D_TOWN_MANA_choices_name_a_town_not_yet_owned_once_with_a_real_type(
    opening: GameState,
    content: Content,
) -> None:
    town = next(s for s in opening.structures if s.kind == "town")
    mine, other = [s for s in opening.structures if s.kind == "town" and s.id != town.id][:2]
    state = replace(
        opening,
        structures=tuple(
            replace(s, owner=Side.RED) if s.id == mine.id else s for s in opening.structures
        ),
    )
    sanctum = state.sanctum(Side.RED)
    assert sanctum is not None
    choices = (
        ManaChoice(town.coord, "mystery"),  # fine: any of the six types
        ManaChoice(town.coord, "will"),  # a second choice for the same town
        ManaChoice(sanctum.coord, "order"),  # a Sanctum is never captured this way
        ManaChoice(Coord.parse("A12"), "order"),  # no structure
        ManaChoice(mine.coord, "order"),  # already red's
        ManaChoice(other.coord, "gold"),
    )
    problems = validate_orders(state, Side.RED, Orders(mana_choices=choices), content)
    codes = [(p.section, p.order_index, p.code) for p in problems]
    assert ("mana_choices", 1, "duplicate_choice") in codes
    assert ("mana_choices", 2, "no_town") in codes
    assert ("mana_choices", 3, "no_town") in codes
    assert ("mana_choices", 4, "own_structure") in codes
    assert ("mana_choices", 5, "bad_mana_type") in codes
    assert not any(i == 0 for _, i, _ in codes)
    assert all(p.message for p in problems)


def test_D_TOWN_MANA_a_refused_choice_is_reported_and_the_rest_apply(
    opening: GameState, content: Content
) -> None:
    orders = Orders(mana_choices=(ManaChoice(Coord.parse("A12"), "order"),))
    _, report = resolve_turn(opening, {Side.RED: orders}, content=content)
    refused = [e for e in report.events if e.kind == "order_refused"]
    assert [(e.get("section"), e.get("index"), e.get("code")) for e in refused] == [
        ("mana_choices", 0, "no_town")
    ]


def test_D_MOVE_RANGE_a_move_counts_the_speed_spell_cast_with_it_and_never_an_expiring_one() -> (
    None
):
    path = Path(__file__).parent.parent / "scenarios" / "movement" / "one_turn_speed_spell.toml"
    scenario = load_scenario(path)
    state, content = scenario.state, scenario.content
    red = next(g for g in state.groups if g.owner == Side.RED)
    march = next(c for c in state.player(Side.RED).hand if c.spell_id == "forced_march")
    two = MoveOrder(red.id, Coord.parse("C1"))
    # Alone, a two-square move is out of range; with Forced March cast on the group it is not.
    alone = validate_orders(state, Side.RED, Orders(moves=(two,)), content)
    assert [p.code for p in alone] == ["too_far"]
    cast = CastOrder(march.uid, Target("group", red.id))
    assert validate_orders(state, Side.RED, Orders(moves=(two,), casts=(cast,)), content) == []
    # Next turn the spell is still in play when orders are given, but it ends before movement.
    after, _ = resolve_turn(state, {Side.RED: Orders(casts=(cast,))}, content=content)
    red_after = next(g for g in after.groups if g.owner == Side.RED)
    again = MoveOrder(red_after.id, Coord.parse("C1"))
    problems = validate_orders(after, Side.RED, Orders(moves=(again,)), content)
    assert [p.code for p in problems] == ["too_far"]
