"""A turn whose resolution raises is retried by the sweep with growing delays, reported to
moderators while it keeps failing, and never holds up the other matches of its batch."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from engine.state import GameState
from service import engine_bridge as eb
from service.clock import ManualClock
from service.matches import MatchService, resolution
from service.matches.resolution import RETRY_BASE_MS, RETRY_MAX_MS, retry_delay_ms
from tests.service.matchkit import player_on, started_match


def test_the_retry_delay_doubles_up_to_an_hour() -> None:
    delays = [retry_delay_ms(n) for n in range(1, 12)]
    assert delays[:4] == [RETRY_BASE_MS, 2 * RETRY_BASE_MS, 4 * RETRY_BASE_MS, 8 * RETRY_BASE_MS]
    assert delays[-1] == RETRY_MAX_MS == max(delays)


async def test_a_turn_that_keeps_failing_is_retried_later_and_later_and_reported(
    service: MatchService, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    match = await started_match(service, turn_seconds=86400, guild_id="g1")
    real = eb.resolve_game

    def broken(*args: object) -> object:
        raise RuntimeError("engine fault")

    monkeypatch.setattr(eb, "resolve_game", broken)
    await service.confirm(match.id, player_on(match, "red"))
    assert (await service.confirm(match.id, player_on(match, "blue"))).resolved is None
    for attempts in range(1, 4):
        [failure] = await service.failing("g1")
        assert (failure.match_id, failure.turn, failure.attempts) == (match.id, 1, attempts)
        assert failure.last_error == "RuntimeError: engine fault"
        assert failure.retry_at == service.now_ms() + retry_delay_ms(attempts)
        # Before the retry time the sweep leaves the turn alone.
        clock.advance(retry_delay_ms(attempts) / 1000 - 1)
        assert await service.run_due() == []
        assert (await service.failing("g1"))[0].attempts == attempts
        clock.advance(1)
        assert await service.run_due() == []
    assert await service.failing("another server") == []

    monkeypatch.setattr(eb, "resolve_game", real)
    clock.advance(retry_delay_ms(4) / 1000)
    assert [r.match_id for r in await service.run_due()] == [match.id]
    assert (await service.get_match(match.id)).turn == 2
    assert await service.failing("g1") == [] and await service.failing() == []


async def test_one_match_that_fails_to_resolve_holds_up_no_other(
    service: MatchService, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    matches = [await started_match(service, turn_seconds=60) for _ in range(5)]
    bad = await service.get_match(matches[2].id, with_state=True)
    assert bad.state is not None
    bad_state = GameState.from_dict(bad.state)
    real = eb.resolve_game

    def poisoned(state: GameState, orders: Mapping[str, Any]) -> object:
        if state == bad_state:
            raise ValueError("poisoned state")
        return real(state, orders)

    monkeypatch.setattr(eb, "resolve_game", poisoned)
    clock.advance(61)
    resolved = await service.run_due()
    assert sorted(r.match_id for r in resolved) == sorted(m.id for m in matches if m.id != bad.id)
    [failure] = await service.failing()
    assert (failure.match_id, failure.last_error) == (bad.id, "ValueError: poisoned state")
    # The claims are released: the failing match waits for its retry time, not for a lease.
    assert (await service.get_match(bad.id)).claimed_by is None


async def test_a_write_that_fails_for_one_match_holds_up_no_other(
    service: MatchService, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    matches = [await started_match(service, turn_seconds=60) for _ in range(4)]
    bad = matches[1].id
    writes = resolution._writes

    def failing_writes(final: Any, now: int) -> Any:
        if final.plan.match.id == bad:
            raise RuntimeError("disk full")
        return writes(final, now)

    monkeypatch.setattr(resolution, "_writes", failing_writes)
    clock.advance(61)
    resolved = await service.run_due()
    assert sorted(r.match_id for r in resolved) == sorted(m.id for m in matches if m.id != bad)
    assert [(f.match_id, f.last_error) for f in await service.failing()] == [
        (bad, "RuntimeError: disk full")
    ]
    assert (await service.get_match(bad)).turn == 1
