"""A turn resolved without its report (``record=False``) ends in the same state."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.content import load_content
from engine.report import Recorder
from engine.setup import new_game
from engine.turn import resolve_turn
from tests.engine.conftest import classic_config, random_orders

CONTENT = load_content()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(0, 10_000))
def test_a_silent_turn_reaches_the_recorded_state(seed: int, play: int) -> None:
    state = new_game(classic_config(seed=seed), CONTENT)
    rnd = random.Random(play)
    for _ in range(14):
        if state.result is not None:
            break
        orders = random_orders(state, rnd, CONTENT, move=0.9, cast=0.7)
        recorded, report = resolve_turn(state, orders, content=CONTENT)
        silent, quiet = resolve_turn(state, orders, content=CONTENT, record=False)
        assert silent == recorded
        assert report.events
        assert quiet.events == ()
        assert (quiet.turn, quiet.initiative_before, quiet.initiative_after, quiet.result) == (
            report.turn,
            report.initiative_before,
            report.initiative_after,
            report.result,
        )
        state = recorded


def test_a_silent_recorder_keeps_nothing() -> None:
    silent = Recorder(recording=False)
    silent.emit("turn_started", turn=1)
    loud = Recorder()
    loud.emit("turn_started", turn=1)
    silent.append(loud.events[0])
    assert list(silent) == [] and len(loud) == 1
