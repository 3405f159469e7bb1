"""What a side may order: every castable thing (hand, hereditary, bound, boosted) and the towns
it may take, each checked against validation, the single judge of what is accepted."""

from __future__ import annotations

import pickle
import random
from dataclasses import replace

import pytest

from engine.content import Content
from engine.coords import Coord
from engine.legal import CastOption, capturable, cast_options, castable, legal_moves
from engine.orders import CastOrder, DiscardOrder, ManaChoice, MoveOrder, Orders, Target
from engine.position import PositionIndex
from engine.spells.targeting import candidate_targets, validate_casts
from engine.state import GameState, HostRef, Mana, Side
from engine.turn import resolve_turn
from engine.validate import validate_orders
from tests.engine.spells.helpers import BLUE, RED, Board, with_pool


def dracha_board() -> tuple[Board, dict[str, int]]:
    """Death's red hero Dracha (her claws carry Dragon Breath, power 2/4) next to a blue group,
    a Fireball in hand, and a neutral town one step away."""
    b = Board()
    b.houses[RED] = "death"
    hero = b.group(RED, "C3", "dracha", traits=("hero",))
    minion = b.minion_ids(hero)[0]
    ids = {
        "hero": hero,
        "claws": b.active("dracha_claws", RED, HostRef.minion(minion)),
        "near": b.group(BLUE, "D4"),
        "far": b.group(BLUE, "H7"),
        "fireball": b.card(RED, "fireball"),
        "town": b.structure("town", "C4", "neutral"),
    }
    return b, ids


def by_label(options: list[CastOption]) -> dict[str, CastOption]:
    return {o.label: o for o in options}


def assert_exactly_accepted(state: GameState, side: Side, option: CastOption, c: Content) -> None:
    """The option lists precisely the targets on which casting it alone is accepted."""
    spell = c.spells[option.spell_id]
    for target in candidate_targets(PositionIndex(state, c), spell):
        accepted = not validate_casts(state, side, [option.order(target)], c)
        assert accepted == (target in option.targets), (option.label, target)


def test_hand_hereditary_bound_and_boosted_casts_are_all_offered(content: Content) -> None:
    b, ids = dracha_board()
    with_pool(b, RED)
    state = b.state()
    options = cast_options(state, RED, content)
    assert [o.label for o in options] == [
        "Fireball",
        "Fireball boosted",
        "Reaper's Due",
        "Reaper's Due boosted",
        "Dragon Breath power 2",
        "Dragon Breath power 4",
    ]
    found = by_label(options)
    fireball = found["Fireball boosted"]
    assert (fireball.source, fireball.card_uid, fireball.boosted) == ("hand", ids["fireball"], True)
    assert fireball.cost == Mana(strife=7, clarity=1)
    assert found["Reaper's Due boosted"].cost == Mana(mystery=4, will=2)
    reaper = found["Reaper's Due"]
    assert (reaper.source, reaper.card_uid, reaper.cost) == (
        "hereditary",
        0,
        Mana(mystery=2, will=1),
    )
    assert reaper.order(reaper.targets[0]).spell_id == "reapers_due"
    # Reaper's Due strikes one enemy minion in sight; Dragon Breath only within 2 squares.
    blue_minions = {m.id for g in state.groups if g.owner == BLUE for m in g.minions}
    assert {t.ref for t in reaper.targets} == blue_minions
    breath = found["Dragon Breath power 4"]
    assert breath.targets == (Target("group", ids["near"]),)
    assert (breath.source, breath.power, breath.bound_source, breath.cost) == (
        "bound",
        4,
        ids["claws"],
        Mana(),
    )
    assert breath.order(breath.targets[0]) == CastOrder(
        0,
        Target("group", ids["near"]),
        power=4,
        bound_source=ids["claws"],
        spell_id="dragon_breath",
    )
    for option in options:
        assert_exactly_accepted(state, RED, option, content)


def test_an_option_is_left_out_when_validation_would_refuse_it(content: Content) -> None:
    b, _ = dracha_board()
    b.pool(RED, strife=5, clarity=1)  # the plain Fireball only: no boost, no Reaper's Due
    state = b.state()
    labels = [o.label for o in cast_options(state, RED, content)]
    assert labels == ["Fireball", "Dragon Breath power 2", "Dragon Breath power 4"]
    reaper = CastOrder(0, Target("minion", state.groups[-1].minions[0].id), spell_id="reapers_due")
    assert [p.code for p in validate_casts(state, RED, [reaper], content)] == ["no_mana"]


def test_castable_is_the_plain_hand_part_of_cast_options(content: Content) -> None:
    b, ids = dracha_board()
    with_pool(b, RED)
    state = b.state()
    plain = [o for o in cast_options(state, RED, content) if o.source == "hand" and not o.boosted]
    assert castable(state, RED, content) == {ids["fireball"]: list(plain[0].targets)}


@pytest.mark.parametrize("seed", [3, 4])
def test_options_of_a_real_game_are_exactly_what_validation_accepts(
    seed: int, opening: GameState, content: Content
) -> None:
    state = opening
    rng = random.Random(seed)
    for _ in range(4):
        orders = {}
        for side in Side:
            moves = [
                MoveOrder(gid, rng.choice(dests))
                for gid, dests in sorted(legal_moves(state, side, content).items())
                if dests
            ]
            orders[side] = Orders(moves=tuple(moves))
        state, _ = resolve_turn(state, orders, content=content)
    rich = Mana(*(12 for _ in range(6)))
    red, blue = (replace(state.player(side), pool=rich) for side in Side)
    state = replace(state, players=(red, blue))
    offered = {side: cast_options(state, side, content) for side in Side}
    assert "warcry" in {o.spell_id for o in offered[Side.RED] if o.source == "hereditary"}
    # Life's Elven Chorus is sung by a hero to her own group, and blue has no hero.
    assert "elven_chorus" not in {o.spell_id for o in offered[Side.BLUE]}
    blue_group = next(g for g in state.groups if g.owner == Side.BLUE)
    chorus = CastOrder(0, Target("group", blue_group.id), spell_id="elven_chorus")
    assert [p.code for p in validate_casts(state, Side.BLUE, [chorus], content)] == ["not_caster"]
    for side, options in offered.items():
        for option in options:
            assert_exactly_accepted(state, side, option, content)
            for target in option.targets:
                cast = Orders(casts=(option.order(target),))
                assert validate_orders(state, side, cast, content) == []
        # The sheet's worker processes hand them back pickled.
        assert pickle.loads(pickle.dumps(options)) == options


def test_moves_read_from_an_index_the_caller_built_are_the_same(content: Content) -> None:
    """A search asks both sides' moves and a score of one position with one index; an index of
    another position (here one where Complacency holds the group) is not used."""
    b = Board()
    gid = b.group(RED, "C3")
    free = b.state()
    b.active("complacency", BLUE, HostRef.group(gid), expires_turn=free.turn + 3)
    held = b.state()
    plain = legal_moves(free, RED, content)
    assert plain[gid] and gid not in legal_moves(held, RED, content)
    assert legal_moves(free, RED, content, position=PositionIndex(free, content)) == plain
    assert legal_moves(free, RED, content, position=PositionIndex(held, content)) == plain


def test_moves_under_a_speed_spell_ending_before_movement_read_the_same_from_one_index(
    content: Content,
) -> None:
    """Flying Carpet ending at this turn's start no longer speeds the group when movement comes
    (D-MOVE-RANGE), as it would while it lasts; both sides' moves asked of one index, which
    keeps the position at movement, are what each side's own question gives, and so is a
    second question."""
    b = Board()
    gid = b.group(RED, "C3")
    b.group(BLUE, "H8")
    ending = b.state()
    b.active("flying_carpet", RED, HostRef.group(gid), expires_turn=ending.turn)
    state = b.state()
    lasting = replace(state, active_spells=())
    flying = replace(
        state,
        active_spells=tuple(s.with_data(expires_turn=state.turn + 1) for s in state.active_spells),
    )
    assert len(legal_moves(flying, RED, content)[gid]) > len(
        legal_moves(lasting, RED, content)[gid]
    )
    index = PositionIndex(state, content)
    for side in (RED, BLUE, RED):
        mine = legal_moves(state, side, content, position=index)
        assert mine == legal_moves(state, side, content)
        assert mine == legal_moves(lasting, side, content)


def test_capturable_lists_the_towns_a_recruit_group_may_end_the_turn_on(content: Content) -> None:
    b = Board()
    b.group(RED, "C3")
    b.group(RED, "F3", "monster")
    b.structure("town", "C4", "neutral")  # one step from the recruits
    b.structure("colony", "D3", BLUE)  # one step, the enemy's
    b.structure("town", "C6", "neutral")  # too far
    b.structure("town", "F4", "neutral")  # only the monsters reach it: monsters do not capture
    b.structure("town", "B3", RED)  # already red
    state = b.state()
    assert capturable(state, RED, content) == [Coord.parse("D3"), Coord.parse("C4")]
    # Every square it lists takes a mana choice.
    choices = tuple(ManaChoice(at, "will") for at in capturable(state, RED, content))
    assert validate_orders(state, RED, Orders(mana_choices=choices), content) == []


def test_without_mana_only_the_free_bound_spell_is_offered(content: Content) -> None:
    b, _ = dracha_board()
    state = b.state()
    assert [o.label for o in cast_options(state, RED, content)] == [
        "Dragon Breath power 2",
        "Dragon Breath power 4",
    ]
    assert cast_options(state, BLUE, content) == []


def test_N2_N5_an_option_is_used_up_once_the_orders_cast_it(content: Content) -> None:
    b, ids = dracha_board()
    with_pool(b, RED)
    found = by_label(cast_options(b.state(), RED, content))
    fireball, reaper = found["Fireball"], found["Reaper's Due"]
    breath2, breath4 = found["Dragon Breath power 2"], found["Dragon Breath power 4"]
    assert not any(o.given(Orders(), content) for o in found.values())
    # A card is used up when cast (plainly or boosted) or discarded.
    boosted = Orders(casts=(found["Fireball boosted"].order(fireball.targets[0]),))
    assert fireball.given(boosted, content)
    assert fireball.given(Orders(discard=DiscardOrder(ids["fireball"])), content)
    # The hereditary spell is tried once a turn (N2); the bound spell is cast once a turn by
    # its holder, whatever the power (N5).
    cast = Orders(casts=(reaper.order(reaper.targets[0]), breath2.order(breath2.targets[0])))
    assert reaper.given(cast, content) and breath4.given(cast, content)
    assert not fireball.given(cast, content)


def test_a_resting_bound_spell_is_offered_at_its_lower_level_only(content: Content) -> None:
    b = Board()
    b.houses[RED] = "death"
    hero = b.group(RED, "C3", "dracha", traits=("hero",))
    minion = b.minion_ids(hero)[0]
    # The claws loosed Dragon Breath at its higher level last turn (D-SP14).
    b.active("dracha_claws", RED, HostRef.minion(minion), **{"high:dragon_breath": b.turn - 1})
    b.group(BLUE, "D4")
    state = b.state()
    assert [o.label for o in cast_options(state, RED, content)] == ["Dragon Breath power 2"]
