"""A turn both sides confirmed is resolved even when its resolution did not run after the last
confirmation committed: the process died in between, or the resolution raised."""

from __future__ import annotations

import pytest

from service import engine_bridge as eb
from service.clock import ManualClock
from service.deadlines import DeadlineAlarm
from service.matches import MatchService
from storage import Store
from tests.service.matchkit import player_on, started_match


class _Died(BaseException):
    """Stands for the process dying: nothing in the service catches it."""


async def test_a_turn_confirmed_before_the_process_died_resolves_at_start(db_url: str) -> None:
    clock = ManualClock()
    store = await Store.open(db_url)
    service = MatchService(store, clock, node_id="n1")
    match = await started_match(service, turn_seconds=86400)
    await service.confirm(match.id, player_on(match, "red"))

    async def die(match_id: int) -> None:
        raise _Died

    service._orders.resolve = die
    with pytest.raises(_Died):
        await service.confirm(match.id, player_on(match, "blue"))
    await store.close()

    clock.advance(5)  # the deadline is a day away
    store = await Store.open(db_url)
    service = MatchService(store, clock, node_id="n1")
    assert (await service.get_match(match.id)).turn == 1
    alarm = DeadlineAlarm(service)
    try:
        await alarm.start()
        record = await service.history(match.id, 1)
        assert record.cause == "confirmed"
        assert (await service.get_match(match.id)).turn == 2
    finally:
        await alarm.stop()
        await store.close()


async def test_a_failing_resolution_keeps_the_confirmation_and_the_sweep_resolves_it(
    service: MatchService, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    match = await started_match(service, turn_seconds=86400)
    await service.confirm(match.id, player_on(match, "red"))
    real = eb.resolve_game

    def broken(*args: object) -> object:
        raise RuntimeError("engine fault")

    monkeypatch.setattr(eb, "resolve_game", broken)
    result = await service.confirm(match.id, player_on(match, "blue"))
    assert result.resolved is None and result.orders.confirmed
    assert (await service.get_match(match.id)).turn == 1

    monkeypatch.setattr(eb, "resolve_game", real)
    clock.advance(3600)  # past any retry delay, still far from the deadline
    resolved = await service.run_due()
    assert [(r.match_id, r.cause) for r in resolved] == [(match.id, "confirmed")]
    assert (await service.get_match(match.id)).turn == 2
