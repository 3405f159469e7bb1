"""Invariants of turn resolution, checked with Hypothesis on random positions and orders."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.content import load_content
from engine.coords import coord
from engine.legal import castable, legal_moves, trainable
from engine.orders import CastOrder, DiscardOrder, MoveOrder, Orders, Target, TrainOrder
from engine.setup import new_game
from engine.state import (
    NEUTRAL,
    Card,
    GameState,
    Group,
    Mana,
    Options,
    Owner,
    PlayerState,
    Side,
    Square,
)
from engine.turn import resolve_turn
from tests.engine.conftest import classic_config

CONTENT = load_content()
CASTABLE = sorted(s.id for s in CONTENT.spells.values() if not s.helper)
POOL = Mana(8, 8, 8, 8, 8, 8)
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def crowded_positions(draw: st.DrawFn) -> GameState:
    """A 5x5 plains board with up to 10 groups of 1-8 minions of three owners."""
    squares = [coord(x, y) for y in range(5) for x in range(5)]
    places = draw(st.lists(st.sampled_from(squares), min_size=2, max_size=10, unique=True))
    next_id = 1
    groups = []
    for at in places:
        owner: Owner = draw(st.sampled_from([Side.RED, Side.BLUE, NEUTRAL]))
        size = draw(st.integers(1, 8))
        kind = draw(st.sampled_from(["swordsman", "archer", "wolf"]))
        minions = []
        for _ in range(size):
            minions.append(CONTENT.make_minion(next_id, kind, None))
            next_id += 1
        groups.append(Group(next_id, owner, owner, at, tuple(minions)))
        next_id += 1
    hands = []
    for _ in range(2):
        spells = draw(st.lists(st.sampled_from(CASTABLE), max_size=5))
        hands.append(tuple(Card(next_id + i, spell) for i, spell in enumerate(spells)))
        next_id += len(spells)
    return GameState(
        seed=draw(st.integers(0, 1000)),
        turn=1,
        options=Options(board="custom"),
        width=5,
        height=5,
        squares=tuple(Square(at, "plains") for at in squares),
        structures=(),
        groups=tuple(groups),
        players=(
            PlayerState(Side.RED, "war", hand=hands[0], pool=POOL),
            PlayerState(Side.BLUE, "life", hand=hands[1], pool=POOL),
        ),
        initiative=draw(st.sampled_from([Side.RED, Side.BLUE])),
        next_id=next_id,
    )


@st.composite
def wild_orders(draw: st.DrawFn, state: GameState) -> dict[Side, Orders]:
    """Orders a player could send: mostly sensible moves, some nonsense."""
    ids = [g.id for g in state.groups] + [0, 999]
    minion_ids = [m.id for g in state.groups for m in g.minions]
    squares = st.builds(coord, st.integers(0, 6), st.integers(0, 6))
    targets = st.one_of(
        st.just(Target("globe")),
        st.builds(Target, st.just("group"), st.sampled_from(ids) | squares),
        st.builds(Target, st.just("minion"), st.sampled_from([*minion_ids, -1])),
        st.builds(Target, st.just("square"), squares),
        st.builds(Target, st.just("structure"), st.integers(-1, 60)),
    )
    cards = [c.uid for p in state.players for c in p.hand]
    casts = st.builds(
        CastOrder,
        st.sampled_from([*cards, -2, 0]),
        targets,
        st.booleans(),
        st.none() | st.integers(-1, 3),
        st.none() | st.sampled_from(ids),
        st.none() | st.sampled_from(["fireball", "nonsense", "raze"]),
    )
    out = {}
    for side in (Side.RED, Side.BLUE):
        moves = draw(
            st.lists(
                st.builds(
                    MoveOrder,
                    st.sampled_from(ids),
                    st.builds(coord, st.integers(0, 6), st.integers(0, 6)),
                ),
                max_size=8,
            )
        )
        out[side] = Orders(
            moves=tuple(moves),
            trains=tuple(
                draw(
                    st.lists(
                        st.builds(
                            TrainOrder,
                            st.builds(coord, st.integers(0, 5), st.integers(0, 5)),
                            st.sampled_from(["swordsman", "archer", "mana"]),
                        ),
                        max_size=2,
                    )
                )
            ),
            casts=tuple(draw(st.lists(casts, max_size=3))),
            discard=draw(st.none() | st.builds(DiscardOrder, st.integers(-2, 50))),
        )
    return out


def _check_invariants(state: GameState) -> None:
    assert all(1 <= len(g.minions) <= 8 for g in state.groups)
    occupied = Counter(g.coord for g in state.groups)
    assert all(n == 1 for n in occupied.values()), "two groups share a square"
    for p in state.players:
        assert all(v >= 0 for _, v in p.pool.items())
    minion_ids = [m.id for g in state.groups for m in g.minions]
    assert len(minion_ids) == len(set(minion_ids))


@SETTINGS
@given(st.data())
def test_movement_keeps_every_invariant_on_crowded_boards(data: st.DataObject) -> None:
    state = data.draw(crowded_positions())
    orders = data.draw(wild_orders(state))
    seed = data.draw(st.integers(0, 2**32))
    first = resolve_turn(state, orders, random.Random(seed), content=CONTENT)
    _check_invariants(first[0])
    # Deterministic, and independent of the order in which the sides' orders were submitted.
    swapped = {Side.BLUE: orders[Side.BLUE], Side.RED: orders[Side.RED]}
    assert resolve_turn(state, swapped, random.Random(seed), content=CONTENT) == first
    # Round trip.
    assert GameState.from_dict(json.loads(json.dumps(first[0].to_dict()))) == first[0]


def _sensible_orders(state: GameState, rnd: random.Random) -> dict[Side, Orders]:
    out = {}
    for side in (Side.RED, Side.BLUE):
        moves = []
        for gid, dests in legal_moves(state, side, CONTENT).items():
            if dests and rnd.random() < 0.8:
                moves.append(MoveOrder(gid, rnd.choice(dests)))
        trains = [rnd.choice(opts) for opts in trainable(state, side, CONTENT).values()]
        casts = []
        for uid, targets in castable(state, side, CONTENT).items():
            if rnd.random() < 0.5:
                casts.append(CastOrder(uid, rnd.choice(targets)))
        out[side] = Orders(casts=tuple(casts), moves=tuple(moves), trains=tuple(trains))
    return out


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(0, 10_000))
def test_whole_games_keep_every_invariant(seed: int, play: int) -> None:
    state = new_game(classic_config(seed=seed), CONTENT)
    rnd = random.Random(play)
    for _ in range(8):
        if state.result is not None:
            break
        orders = _sensible_orders(state, rnd)
        new_state, report = resolve_turn(state, orders, content=CONTENT)
        again = resolve_turn(state, dict(reversed(list(orders.items()))), content=CONTENT)
        assert again == (new_state, report)
        _check_invariants(new_state)
        assert GameState.from_dict(json.loads(json.dumps(new_state.to_dict()))) == new_state
        state = new_state
