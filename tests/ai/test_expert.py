"""The expert level: two-turn rollouts, lasting value, a guarded Sanctum, a full hand cycled,
the match's ruleset, an anytime cap, a fallback when planning fails, and no hidden facts."""

from __future__ import annotations

import logging
import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import pytest

import ai.expert
from ai import DESCRIPTIONS, LEVELS, choose_orders, search
from ai.arena import match_config, play_match
from ai.determinize import determinize
from ai.evaluate import WEIGHTS, Weights, evaluate
from ai.expert import _rank, breach_risk, value
from ai.options import CastOption, cast_options
from ai.search import choose_trains
from engine.content import Content, load_content
from engine.coords import Coord
from engine.orders import CastOrder, MoveOrder, Orders, Target
from engine.position import PositionIndex
from engine.setup import new_game
from engine.state import ActiveSpell, Card, GameState, Group, HostRef, Mana, Options, Side
from engine.turn import resolve_turn
from engine.validate import validate_orders
from engine.view import view_for
from tests.ai.positions import group, position

SWORDS = ("swordsman",)


@pytest.fixture(scope="module")
def content() -> Content:
    return load_content()


@pytest.fixture(scope="module")
def midgame(content: Content) -> GameState:
    state = new_game(match_config(8, content), content)
    rng = random.Random(8)
    for _ in range(7):
        orders = {
            side: choose_orders(view_for(state, side, content), "greedy", rng, content=content)
            for side in Side
        }
        state, _ = resolve_turn(state, orders, content=content)
    assert state.result is None
    return state


def expert(state: GameState, content: Content, seed: int = 1, **kwargs: object) -> Orders:
    orders = choose_orders(
        view_for(state, Side.RED, content),
        "expert",
        random.Random(seed),
        content=content,
        budget=kwargs.pop("budget", 200),  # type: ignore[arg-type]
        **kwargs,  # type: ignore[arg-type]
    )
    assert validate_orders(state, Side.RED, orders, content) == []
    return orders


def test_every_level_has_a_description() -> None:
    assert LEVELS == ("random", "greedy", "strong", "expert")
    assert set(DESCRIPTIONS) == set(LEVELS)
    assert all(0 < len(text) <= 80 for text in DESCRIPTIONS.values())


def test_expert_orders_are_always_legal(content: Content) -> None:
    for seed in range(3):
        record = play_match(
            3000 + seed,
            {Side.RED: "expert", Side.BLUE: "strong"},
            content,
            max_turns=5,
            budgets={Side.RED: 40, Side.BLUE: 30},
        )
        assert record.illegal == [], record.illegal[:3]


def test_poisoned_hidden_parts_change_nothing(midgame: GameState, content: Content) -> None:
    """The enemy's hand, both decks' order and the enemy's hidden spells are replaced: the view
    is the same, so the orders must be too."""
    red, blue = midgame.player(Side.RED), midgame.player(Side.BLUE)
    poison = "fireball" if blue.hand[0].spell_id != "fireball" else "volcano"
    hidden = ActiveSpell(
        uid=midgame.next_id,
        spell_id="codex_of_order",
        owner=Side.BLUE,
        host=HostRef.globe(),
        cast_turn=midgame.turn - 1,
        visible=False,
    )
    poisoned = replace(
        midgame,
        players=(
            replace(red, deck=tuple(reversed(red.deck))),
            replace(
                blue,
                hand=tuple(Card(c.uid, poison) for c in blue.hand),
                deck=tuple(Card(c.uid, poison) for c in blue.deck),
            ),
        ),
        active_spells=(*midgame.active_spells, hidden),
        next_id=midgame.next_id + 1,
        seed=midgame.seed + 1,
    )
    assert view_for(poisoned, Side.RED, content) == view_for(midgame, Side.RED, content)
    assert expert(poisoned, content, 4, budget=60) == expert(midgame, content, 4, budget=60)


def test_a_seed_and_a_budget_fix_the_orders(midgame: GameState, content: Content) -> None:
    assert expert(midgame, content, 9, budget=80) == expert(midgame, content, 9, budget=80)


def test_a_rollout_already_played_in_a_world_is_not_played_again(
    midgame: GameState, content: Content, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Orders screened in the first world and then scored in all of them cost one rollout a
    world; the budget still counts the first world twice, so the search is unchanged."""
    played: list[int] = []
    real = ai.expert.rollout

    def counted(
        world: ai.expert.World,
        side: Side,
        orders: Orders,
        content: Content,
        after: dict[tuple[GameState, int], float],
    ) -> float:
        played.append(world.seed)
        return real(world, side, orders, content, after)

    monkeypatch.setattr(ai.expert, "rollout", counted)
    sampled = [ai.expert.World(midgame, Orders(), seed) for seed in (11, 12, 13)]
    sim = ai.expert.Rollouts(Side.RED, content, sampled, 100, None)
    quick = sim.score(Orders(), quick=True)
    full = sim.score(Orders())
    assert sorted(played) == [11, 12, 13]
    assert sim.used == 4
    fresh = ai.expert.Rollouts(Side.RED, content, sampled, 100, None)
    assert fresh.score(Orders()) == full
    assert fresh.score(Orders(), quick=True) == quick


def test_orders_that_lead_to_the_same_position_are_played_on_from_it_once(
    midgame: GameState, content: Content, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two order sets whose turns end in equal positions (here a move to the square the group
    stands on, and no move) share the rest of the rollout, and score the same as each played
    out alone."""
    group = next(g for g in midgame.groups if g.owner is Side.RED)
    stay = Orders(moves=(MoveOrder(group.id, group.coord),))
    rest: list[int] = []
    real = ai.expert._played_on

    def counted(first: GameState, side: Side, seed: int, content: Content) -> float:
        rest.append(seed)
        return real(first, side, seed, content)

    monkeypatch.setattr(ai.expert, "_played_on", counted)
    sampled = [ai.expert.World(midgame, Orders(), 11)]
    sim = ai.expert.Rollouts(Side.RED, content, sampled, 100, None)
    still, stayed = sim.score(Orders()), sim.score(stay)
    assert rest == [11]
    assert sim.used == 2
    alone = ai.expert.Rollouts(Side.RED, content, sampled, 100, None)
    assert alone.score(stay) == stayed == still


def test_a_score_read_from_an_index_the_caller_built_is_the_same(content: Content) -> None:
    """A rollout scores the position between its two turns with the index its moves were read
    from; an index of another position (here the blue group strikes 4 harder, not 1) is not
    used."""
    groups = [
        group(content, 1, Side.RED, "F4", SWORDS * 3),
        group(content, 2, Side.BLUE, "F6", SWORDS * 3),
    ]
    calm = position(content, groups)
    copies = tuple(
        ActiveSpell(
            uid=calm.next_id + i,
            spell_id="secret_strength",
            owner=Side.BLUE,
            host=HostRef.group(2),
            cast_turn=calm.turn - 1,
        )
        for i in range(4)
    )
    fierce = replace(calm, active_spells=copies, next_id=calm.next_id + 4)
    blessed = replace(fierce, active_spells=copies[:1])
    plain = value(blessed, Side.RED, content)
    assert value(fierce, Side.RED, content) < plain
    assert value(blessed, Side.RED, content, position=PositionIndex(blessed, content)) == plain
    assert value(blessed, Side.RED, content, position=PositionIndex(fierce, content)) == plain


def test_a_time_cap_still_gives_legal_orders(midgame: GameState, content: Content) -> None:
    expert(midgame, content, 2, budget=100_000, seconds=0.0)


def test_a_failing_plan_falls_back_to_legal_orders(
    midgame: GameState, content: Content, monkeypatch: pytest.MonkeyPatch, caplog: object
) -> None:
    def broken(*args: object, **kwargs: object) -> Orders:
        raise RuntimeError("planning broke")

    monkeypatch.setattr(ai.expert, "plan", broken)
    with pytest.LogCaptureFixture.at_level(caplog, logging.ERROR):  # type: ignore[arg-type]
        orders = expert(midgame, content, 3)
    assert "expert planning failed" in caplog.text  # type: ignore[attr-defined]
    assert orders.moves or orders.trains or orders.casts


def test_a_spell_in_play_is_worth_its_turns_left(content: Content) -> None:
    groups = [
        group(content, 1, Side.RED, "E6", SWORDS * 4),
        group(content, 2, Side.BLUE, "I9", SWORDS * 4),
    ]
    state = position(content, groups)
    codex = ActiveSpell(
        uid=30000, spell_id="codex_of_order", owner=Side.RED, host=HostRef.globe(), cast_turn=4
    )
    with_codex = replace(state, active_spells=(codex,))
    assert value(with_codex, Side.RED, content) > value(state, Side.RED, content) + 2
    assert value(with_codex, Side.BLUE, content) < value(state, Side.BLUE, content) - 2


def test_a_spell_is_worth_the_turns_and_uses_its_counters_show(content: Content) -> None:
    state = replace(position(content, [group(content, 1, Side.RED, "E6", SWORDS * 4)]), turn=5)
    circle = ActiveSpell(
        uid=30000,
        spell_id="faerie_circle",
        owner=Side.RED,
        host=HostRef.square(Coord.parse("F6")),
        cast_turn=4,
    )
    # Cast on turn 4 for two turns, but its counter says it ends now: nothing is left of it.
    estimated = value(replace(state, active_spells=(circle,)), Side.RED, content)
    ending = replace(circle, data=(("expires_turn", 5),))
    exact = value(replace(state, active_spells=(ending,)), Side.RED, content)
    assert exact == pytest.approx(value(state, Side.RED, content))
    assert estimated > exact + 1
    aegis = ActiveSpell(
        uid=30001, spell_id="aegis_of_dawn", owner=Side.RED, host=HostRef.group(1), cast_turn=4
    )
    fresh = value(replace(state, active_spells=(aegis,)), Side.RED, content)
    spent = replace(aegis, data=(("uses_left", 0),))
    assert value(replace(state, active_spells=(spent,)), Side.RED, content) < fresh - 1


def test_a_raid_four_squares_out_weighs_against_an_empty_sanctum(content: Content) -> None:
    raid = group(content, 2, Side.BLUE, "D8", SWORDS * 6)
    empty = position(content, [group(content, 1, Side.RED, "F4", SWORDS * 4), raid])
    guarded = position(content, [group(content, 1, Side.RED, "D4", SWORDS * 4), raid])
    assert value(guarded, Side.RED, content) > value(empty, Side.RED, content) + 10


def test_a_spell_that_makes_mana_is_worth_its_income(content: Content) -> None:
    state = position(content, [group(content, 1, Side.RED, "E6", SWORDS * 4)])
    codex = ActiveSpell(
        uid=30000, spell_id="codex_of_order", owner=Side.RED, host=HostRef.globe(), cast_turn=4
    )
    gain = value(replace(state, active_spells=(codex,)), Side.RED, content)
    cost = content.spells["codex_of_order"].cost.total
    # One Order a turn for the rest of the game is worth more than the four mana it cost.
    assert gain - value(state, Side.RED, content) > cost * 1.2


def test_death_knells_echo_is_worth_the_will_it_will_make(content: Content) -> None:
    state = position(content, [group(content, 1, Side.RED, "E6", SWORDS * 4)])
    echo = ActiveSpell(
        uid=30000, spell_id="knell_echo", owner=Side.RED, host=HostRef.globe(), cast_turn=4
    )
    assert content.spells["knell_echo"].helper
    gain = value(replace(state, active_spells=(echo,)), Side.RED, content)
    # One Will at every start of turn for the rest of the game: worth more than the knell cost.
    assert gain - value(state, Side.RED, content) > content.spells["death_knell"].cost.total * 3


@pytest.mark.parametrize(("pool", "share"), [(10, 1.0), (30, 0.5), (40, 0.0), (200, 0.0)])
def test_income_is_worth_only_what_the_pool_will_spend(
    content: Content, pool: int, share: float
) -> None:
    """A source of mana counts the mana its owner will spend: in full while the pool is small,
    in part as it fills, not at all once the pool floats past what any turn spends."""
    held = Mana(strife=pool)
    state = position(content, [group(content, 1, Side.RED, "E6", SWORDS * 4)], pool=held)
    echo = ActiveSpell(
        uid=30000, spell_id="knell_echo", owner=Side.RED, host=HostRef.globe(), cast_turn=4
    )
    gain = value(replace(state, active_spells=(echo,)), Side.RED, content) - value(
        state, Side.RED, content
    )
    full = ai.expert.INCOME_WORTH * ai.expert.INCOME_TURNS
    assert gain == pytest.approx(full * share)


def test_a_guard_too_weak_for_the_raid_beside_it_is_a_breach_in_the_making(
    content: Content,
) -> None:
    raid = group(content, 2, Side.BLUE, "D6", SWORDS * 6)
    weak = position(content, [group(content, 1, Side.RED, "D4", SWORDS[:1]), raid])
    strong = position(content, [group(content, 1, Side.RED, "D4", SWORDS * 8), raid])
    far = raid._replace(coord=Coord.parse("D8"))
    calm = position(content, [group(content, 1, Side.RED, "D4", SWORDS[:1]), far])
    assert breach_risk(weak, Side.RED) > 40
    assert breach_risk(strong, Side.RED) < breach_risk(weak, Side.RED) / 3
    assert breach_risk(calm, Side.RED) == 0
    # The main army beside the Sanctum meets the raid with the guard.
    backed = position(
        content,
        [
            group(content, 1, Side.RED, "D4", SWORDS[:1]),
            group(content, 3, Side.RED, "E4", SWORDS * 8),
            raid,
        ],
    )
    assert breach_risk(backed, Side.RED) < breach_risk(weak, Side.RED) / 2


def test_keeps_a_full_hand_while_the_pool_is_small(content: Content) -> None:
    groups = [
        group(content, 1, Side.RED, "E6", SWORDS * 4),
        group(content, 2, Side.BLUE, "I9", SWORDS * 4),
    ]
    hand = ["volcano", "fireball", "mountain_climb", "volcano", "fireball"]
    orders = expert(position(content, groups, hand=hand, pool=Mana()), content)
    assert orders.casts == () and orders.discard is None


def test_a_full_hand_and_a_floating_pool_make_room(content: Content) -> None:
    groups = [
        group(content, 1, Side.RED, "E6", SWORDS * 4),
        group(content, 2, Side.BLUE, "I9", SWORDS * 4),
    ]
    state = position(content, groups, hand=["volcano"] * 2 + ["fireball"] * 2 + ["warcry"])
    rich = replace(
        state,
        players=(
            replace(state.player(Side.RED), pool=Mana(strife=11, clarity=1)),
            state.player(Side.BLUE),
        ),
    )
    orders = expert(rich, content)
    assert orders.casts or orders.discard is not None


def test_guards_its_sanctum_against_a_raid_two_turns_out(content: Content) -> None:
    groups = [
        group(content, 1, Side.RED, "E4", SWORDS * 4),
        group(content, 2, Side.BLUE, "D8", SWORDS * 6),
    ]
    for seed in (1, 2):
        dest = next((m.dest for m in expert(position(content, groups), content, seed).moves), None)
        assert dest == Coord.parse("D4")


def test_brings_its_main_group_home_to_meet_a_raid(content: Content) -> None:
    """A lone guard, a six-swordsman raid three or four squares out, and the main group off
    toward the enemy's lightly guarded Sanctum: the main group turns home."""
    home = Coord.parse("D4")
    for main, raid in (("F5", "D8"), ("G4", "C7")):
        groups = [
            group(content, 1, Side.RED, "D4", SWORDS[:1]),
            group(content, 2, Side.RED, main, SWORDS * 6),
            group(content, 3, Side.BLUE, raid, SWORDS * 6),
            group(content, 4, Side.BLUE, "I9", SWORDS * 2),
        ]
        for seed in (1, 2):
            orders = expert(position(content, groups), content, seed)
            dest = next(m.dest for m in orders.moves if m.group_id == 2)
            assert dest.dist(home) < Coord.parse(main).dist(home)


def test_cycles_a_full_hand_it_cannot_use(content: Content) -> None:
    groups = [
        group(content, 1, Side.RED, "E6", SWORDS * 4),
        group(content, 2, Side.BLUE, "I9", SWORDS * 4),
    ]
    hand = ["volcano"] * 5  # far beyond an empty pool
    orders = expert(position(content, groups, hand=hand, pool=Mana()), content)
    assert orders.casts == ()
    assert orders.discard is not None


def test_a_duel_match_is_simulated_with_its_ruleset(midgame: GameState, content: Content) -> None:
    view = view_for(midgame, Side.RED, content)
    duel = Options.for_ruleset("duel")
    state = determinize(view, random.Random(1), content, duel)
    assert state.options.magic_duel
    assert state.options.board == view.board and state.options.realm == view.realm
    expert(midgame, content, 5, budget=60, options=duel)


def test_a_search_shared_out_to_workers_is_legal_and_deterministic(
    midgame: GameState, content: Content
) -> None:
    def shared(seed: int) -> Orders:
        view = view_for(midgame, Side.RED, content)
        with ProcessPoolExecutor(2) as pool:
            return choose_orders(
                view,
                "expert",
                random.Random(seed),
                content=content,
                budget=80,
                mapper=pool.map,
                workers=2,
            )

    first = shared(6)
    assert validate_orders(midgame, Side.RED, first, content) == []
    assert shared(6) == first


def test_a_dispel_is_aimed_where_it_takes_enemy_spells_off(content: Content) -> None:
    """Second Chance dispels every visible spell on a group: the enemy's Ostracize on a red
    group makes that group its best target, red's own Fortitude makes one its worst."""
    groups = [
        group(content, 1, Side.RED, "E6", SWORDS),
        group(content, 3, Side.RED, "E7", SWORDS),
        group(content, 4, Side.RED, "E8", SWORDS),
        group(content, 2, Side.BLUE, "I9", SWORDS * 2),
    ]
    state = position(content, groups, hand=["second_chance"])
    cursed, blessed, bare, enemy = (g.id for g in groups)
    spells = (
        ActiveSpell(20001, "ostracize", Side.BLUE, HostRef.group(cursed), 4),
        ActiveSpell(20002, "fortitude", Side.RED, HostRef.group(blessed), 4),
    )
    state = replace(state, active_spells=spells)
    spell = content.spells["second_chance"]

    def rank(group_id: int) -> float:
        order = CastOrder(9000, Target("group", group_id))
        index = PositionIndex(state, content)
        return _rank(state, index, Side.RED, CastOption(order, spell, Mana()), content)

    assert rank(cursed) > rank(bare) == 0.0 > rank(blessed)
    assert rank(enemy) == 0.0  # nothing on it to dispel, however valuable the group


def test_casts_and_still_makes_room_while_mana_floats(content: Content) -> None:
    """A discarded card comes back with the reshuffle, so a pool that floats after the casts
    also drops the weakest card left: one more card is drawn next turn."""
    groups = [
        group(content, 1, Side.RED, "E6", SWORDS * 4),
        group(content, 2, Side.BLUE, "I9", SWORDS * 4),
    ]
    hand = ["fireball", "warcry", "mountain_climb", "volcano", "fireball"]
    state = position(content, groups, hand=hand, pool=Mana(strife=30, clarity=6))
    orders = expert(state, content)
    assert orders.casts and orders.discard is not None
    assert orders.discard.card_uid not in {c.card_uid for c in orders.casts}


def test_a_mana_novice_makes_what_the_cards_want_and_none_floats(content: Content) -> None:
    """War's cards cost strife more than three times as much as clarity: with one strife novice
    already, strong's alternation would train clarity, the expert trains strife again; once
    strife floats the novice makes clarity, and once both float it fights."""
    groups = [
        group(content, 1, Side.RED, "D4", SWORDS * 4),
        group(content, 2, Side.BLUE, "I9", SWORDS * 4),
    ]
    state = position(content, groups, novices=1)
    red = replace(state.player(Side.RED), mana_novices=Mana(strife=1))
    state = replace(state, players=(red, state.player(Side.BLUE)))
    assert [(t.kind, t.mana_type) for t in ai.expert.trains(state, Side.RED, content)] == [
        ("mana", "strife")
    ]
    strife = replace(state, players=(replace(red, pool=Mana(strife=20)), state.player(Side.BLUE)))
    assert [(t.kind, t.mana_type) for t in ai.expert.trains(strife, Side.RED, content)] == [
        ("mana", "clarity")
    ]
    both = replace(red, pool=Mana(strife=40, clarity=20))
    flooded = replace(state, players=(both, state.player(Side.BLUE)))
    assert [t.kind for t in ai.expert.trains(flooded, Side.RED, content)] == ["swordsman"]


def test_mana_novices_go_on_past_strongs_three(content: Content) -> None:
    """Every spell costs some of both types, so the scarcer type's income is how many spells a
    turn are cast: with three mana novices already, strong's fourth novice fights, the
    expert's makes mana of the type that runs out first."""
    groups = [
        group(content, 1, Side.RED, "D4", SWORDS * 4),
        group(content, 2, Side.BLUE, "I9", SWORDS * 4),
    ]
    state = position(content, groups, novices=1)
    red = replace(state.player(Side.RED), mana_novices=Mana(strife=2, clarity=1))
    state = replace(state, players=(red, state.player(Side.BLUE)))
    assert [t.kind for t in choose_trains(state, Side.RED, content)] == ["archer"]
    assert [(t.kind, t.mana_type) for t in ai.expert.trains(state, Side.RED, content)] == [
        ("mana", "strife")
    ]


def test_a_second_copy_of_a_spell_on_its_target_is_never_added(content: Content) -> None:
    """Banner of the Fallen is not cumulative (S6): a second copy on the same group would be
    refused, so the search never adds it, not even untested when both copies' trials gained;
    on another group it may."""
    groups = [
        group(content, 1, Side.RED, "D5", SWORDS * 4),
        group(content, 3, Side.RED, "F5", SWORDS * 2),
        group(content, 2, Side.BLUE, "I8", SWORDS * 4),
    ]
    pool = Mana(strife=20, clarity=20)
    hand = ["banner_of_the_fallen", "banner_of_the_fallen"]
    state = position(content, groups, hand=hand, pool=pool)
    options = [o for o in cast_options(state, Side.RED, content) if o.order.card_uid]
    spells = {o.order: o.spell for o in options}
    aimed = {(o.order.card_uid, o.order.target.ref): o.order for o in options}
    first, twin, elsewhere = aimed[9000, 1], aimed[9001, 1], aimed[9001, 3]
    assert search._clashes(twin, (first,), spells)
    assert not search._clashes(elsewhere, (first,), spells)
    costs = {o.order: o.cost for o in options}
    tried = {9000: (5.0, first), 9001: (4.0, twin)}
    orders = ai.expert.spend_untested(pool, Orders(), costs, spells, tried)
    assert orders.casts == (first,)
    assert validate_orders(state, Side.RED, orders, content) == []


def test_a_summoning_is_never_aimed_under_the_enemy_sanctums_guard(content: Content) -> None:
    """The shared prior is drawn to the enemy Sanctum; creatures summoned on it or beside it
    would die to its guard at the next start of turn, so those squares rank last."""
    groups = [
        group(content, 1, Side.RED, "I7", SWORDS * 4),
        group(content, 2, Side.BLUE, "C9", SWORDS * 4),
    ]
    state = position(content, groups, hand=["brimstone_dragon"], pool=Mana(strife=8, clarity=2))
    index = PositionIndex(state, content)
    options = [
        o for o in cast_options(state, Side.RED, content) if o.spell.id == "brimstone_dragon"
    ]
    sanctum = Coord.parse("I9")
    near = [
        o
        for o in options
        if isinstance(o.order.target.ref, Coord) and o.order.target.ref.dist(sanctum) <= 1
    ]
    assert near, "the fixture must offer squares beside the enemy Sanctum"
    ranks = {o.order.target.ref: _rank(state, index, Side.RED, o, content) for o in options}
    assert all(ranks[o.order.target.ref] == ai.expert.DOOMED for o in near)
    assert max(ranks.values()) > ai.expert.DOOMED
    best = ai.expert._prune(state, Side.RED, options, content)[0]
    assert isinstance(best.order.target.ref, Coord) and best.order.target.ref.dist(sanctum) > 1


def test_a_won_field_closes_in_on_a_guarded_sanctum(content: Content) -> None:
    """A guarded enemy Sanctum pulls a lone raid at a fraction of the usual pull, so it does not
    walk into the guard; an army that outmatches the guard, after the Sanctum has struck each
    of its groups, is pulled in full and closes in instead of waiting out the game."""
    army = [
        group(content, gid, Side.RED, at, SWORDS * 8)
        for gid, at in ((1, "I7"), (2, "G9"), (3, "H8"))
    ]
    field = position(content, [*army, group(content, 9, Side.BLUE, "I9", SWORDS * 2)])
    raid = position(
        content,
        [
            group(content, 1, Side.RED, "I7", SWORDS * 3),
            group(content, 9, Side.BLUE, "I9", SWORDS * 8),
        ],
    )

    def pull(state: GameState) -> float:
        return evaluate(state, Side.RED, content, ai.expert.EXPERT_WEIGHTS) - evaluate(
            state, Side.RED, content
        )

    assert pull(raid) == pytest.approx(0.0)
    assert pull(field) > 100
    # ``strong`` keeps the plain pull: the yardstick does not change with the expert.
    assert not WEIGHTS.siege


def test_an_open_sanctum_draws_a_group_that_can_get_through_its_strikes(
    content: Content,
) -> None:
    """The Sanctum strikes every hostile group on an entrance or on it at each start of turn, so
    a breach is worth only what can outlast two strikes: three swordsmen are worth none, six
    (the two groups of three joined) nearly all of it."""

    def worth(groups: list[Group], weights: Weights) -> float:
        state = position(content, groups)
        return evaluate(state, Side.RED, content, weights) - evaluate(
            replace(state, groups=()), Side.RED, content, weights
        )

    apart = [
        group(content, 1, Side.RED, "I7", SWORDS * 3),
        group(content, 2, Side.RED, "H8", SWORDS * 3),
    ]
    together = [group(content, 1, Side.RED, "I7", SWORDS * 6)]
    breach = WEIGHTS.breach[2]
    siege = ai.expert.EXPERT_WEIGHTS
    assert worth(together, siege) - worth(apart, siege) > 0.9 * breach
    # Counted without the strikes (``strong``), the two small groups hold a breach each.
    assert worth(apart, WEIGHTS) - worth(together, WEIGHTS) == pytest.approx(breach)


def test_a_large_army_late_in_the_game_marches_the_groups_its_search_does_not_reach(
    content: Content,
) -> None:
    """Within its budget the move search reaches only some of many groups. Past the opening, a
    large army starts from the default march, so the groups the search never reaches close on
    their goals instead of standing still; in the opening they still stand."""
    squares = ("E2", "F2", "G2", "C3", "E3", "G3", "B4", "F4", "H4", "B5", "E5", "G5")
    army = [group(content, gid, Side.RED, at, SWORDS * 2) for gid, at in enumerate(squares, 1)]
    assert len(army) == ai.expert.MARCH_GROUPS + 2
    enemy = group(content, 50, Side.BLUE, "I9", SWORDS * 4)
    late = replace(position(content, [*army, enemy]), turn=ai.expert.MARCH_TURN)
    # A budget of one scoring: the search itself moves nothing.
    assert expert(replace(late, turn=ai.expert.MARCH_TURN - 1), content, budget=4).moves == ()
    moves = expert(late, content, budget=4).moves
    nine = Coord.parse("I9")
    start = {g.id: g.coord for g in army}
    closer = [
        m for m in moves if m.dest is not None and m.dest.dist(nine) < start[m.group_id].dist(nine)
    ]
    assert len(closer) >= len(army) - 2
    small = replace(late, groups=(*late.groups[: ai.expert.MARCH_GROUPS - 1], enemy))
    assert expert(small, content, budget=4).moves == ()
