"""The combat record: one "round" event per round and pair of groups, the strikes on demand."""

from __future__ import annotations

import gc
from collections import Counter
from dataclasses import replace

import pytest

from bench.engine import late_game, opening
from engine.content import Content
from engine.orders import Orders
from engine.report import Event, TurnReport
from engine.state import GameState, Side
from engine.turn import resolve_turn


@pytest.fixture(scope="module")
def fights(content: Content) -> tuple[GameState, dict[Side, Orders]]:
    """Twelve fights at once, most of them the full six rounds, with deaths and levels."""
    return late_game(content)


def _pair(event: Event, key: str) -> tuple[int, int]:
    value = event.get(key)
    assert isinstance(value, tuple)
    first, second = value
    assert isinstance(first, int) and isinstance(second, int)
    return first, second


def test_strike_detail_is_the_same_turn(
    fights: tuple[GameState, dict[Side, Orders]], content: Content
) -> None:
    state, orders = fights
    plain_state, plain = resolve_turn(state, orders, content=content)
    detail_state, detail = resolve_turn(state, orders, content=content, strikes=True)
    assert plain_state == detail_state
    assert not any(e.kind == "strike" for e in plain.events)
    assert sum(e.kind == "strike" for e in detail.events) > 500
    without = tuple(e for e in detail.events if e.kind != "strike")
    assert replace(detail, events=without) == plain


def test_a_round_records_each_groups_hits_misses_damage_and_kills(
    fights: tuple[GameState, dict[Side, Orders]], content: Content
) -> None:
    state, orders = fights
    _, report = resolve_turn(state, orders, content=content, strikes=True)
    group_of = {m.id: g.id for g in state.groups for m in g.minions}
    rounds = 0
    current: Event | None = None
    seen: Counter[tuple[str, int]] = Counter()

    def check(record: Event | None) -> None:
        if record is None:
            return
        groups = _pair(record, "groups")
        for key in ("hits", "misses", "damage", "kills"):
            assert _pair(record, key) == tuple(seen[key, g] for g in groups), key

    for event in [*report.events, Event("combat", ())]:
        if event.kind in ("round", "combat", "combat_ended"):
            check(current)
            current, seen = (event if event.kind == "round" else None), Counter()
            rounds += event.kind == "round"
        elif event.kind == "strike" and current is not None:
            group = group_of[int(str(event.get("attacker")))]
            seen["hits" if event.get("hit") else "misses", group] += 1
            seen["damage", group] += int(str(event.get("damage")))
        elif event.kind == "died" and current is not None:
            killer = group_of[int(str(event.get("by")))]
            seen["kills", killer] += 1
    assert rounds > 50


def test_a_fight_ends_with_the_levels_each_group_earned(
    fights: tuple[GameState, dict[Side, Orders]], content: Content
) -> None:
    state, orders = fights
    _, report = resolve_turn(state, orders, content=content)
    earned = sum(sum(_pair(e, "levels")) for e in report.events if e.kind == "combat_ended")
    assert earned > 0
    assert earned == sum(e.kind == "level_gained" for e in report.events)


def test_the_cyclic_collector_is_left_as_the_caller_had_it(
    fights: tuple[GameState, dict[Side, Orders]], content: Content
) -> None:
    state, orders = fights
    assert gc.isenabled()
    resolve_turn(state, orders, content=content)
    assert gc.isenabled()
    gc.disable()
    try:
        resolve_turn(state, orders, content=content)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_report_without_strikes_reads_back(
    fights: tuple[GameState, dict[Side, Orders]], content: Content
) -> None:
    state, orders = fights
    _, report = resolve_turn(state, orders, content=content)
    assert TurnReport.from_dict(report.to_dict()) == report


def test_a_level_the_state_already_marks_earned_is_awarded_without_a_fight(
    content: Content,
) -> None:
    # The World skips the levels step when no minion holds an earned level: one marked in the
    # state it starts from (a position built by hand) still counts.
    state = opening(content)[0]
    group = next(g for g in state.groups if g.minions[0].kind == "recruit")
    marked = group.minions[0]._replace(earned_level=True)
    groups = tuple(
        g.with_minions((marked, *g.minions[1:])) if g.id == group.id else g for g in state.groups
    )
    after, report = resolve_turn(replace(state, groups=groups), {}, content=content)
    assert [e.get("minion") for e in report.events if e.kind == "level_gained"] == [marked.id]
    levelled = after.minion(marked.id)
    assert levelled is not None
    assert (levelled.level, levelled.earned_level) == (marked.level + 1, False)
