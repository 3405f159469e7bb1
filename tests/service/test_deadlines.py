"""The alarm clock: jobs rebuilt from the database, a deadline that passed while down, real
APScheduler firing on time."""

from __future__ import annotations

import asyncio

from service.clock import ManualClock, SystemClock, to_ms
from service.deadlines import DeadlineAlarm
from service.matches import MatchService
from storage import Store
from tests.service.jobs import EVENT_JOB_EXECUTED, job_outcome
from tests.service.matchkit import player_on, started_match


async def test_start_rebuilds_a_job_per_deadline_and_reminder(db_url: str) -> None:
    clock = ManualClock()
    store = await Store.open(db_url)
    service = MatchService(store, clock, node_id="n1")
    first = await started_match(service, turn_seconds=7200, reminders=[3600, 600])
    second = await started_match(service, ("carol", "dave"), turn_seconds=600, reminders=[])
    await store.close()

    store = await Store.open(db_url)
    alarm = DeadlineAlarm(MatchService(store, clock, node_id="n1"))
    try:
        await alarm.start()
        assert alarm.job_ids() == sorted(
            [
                "sweep",
                f"match:{first.id}:deadline",
                f"match:{first.id}:reminder:3600",
                f"match:{first.id}:reminder:600",
                f"match:{second.id}:deadline",
            ]
        )
        await alarm.service.pause(first.id, "mod", moderator=True)
        assert f"match:{first.id}:deadline" not in alarm.job_ids()
        await alarm.service.resume(first.id, "mod", moderator=True)
        assert f"match:{first.id}:deadline" in alarm.job_ids()
    finally:
        await alarm.stop()
        await store.close()


async def test_a_deadline_that_passed_while_down_resolves_at_start_without_a_late_reminder(
    db_url: str,
) -> None:
    clock = ManualClock()
    store = await Store.open(db_url)
    service = MatchService(store, clock, node_id="n1")
    match = await started_match(service, turn_seconds=3600, reminders=[600])
    await service.confirm(match.id, player_on(match, "red"))
    await store.close()

    clock.advance(2 * 3600)  # nothing runs: the reminder point and the deadline both pass
    store = await Store.open(db_url)
    service = MatchService(store, clock, node_id="n1")
    alarm = DeadlineAlarm(service)
    try:
        await alarm.start()
        record = await service.history(match.id, 1)
        assert record.cause == "deadline" and record.no_shows == ("blue",)
        after = await service.get_match(match.id)
        assert after.turn == 2 and after.deadline_at == to_ms(clock.now()) + 3600_000
        async with store.read() as s:
            reminders = await s.list_outbox(kind="reminder")
        assert reminders == [], "the reminder for a passed deadline is not sent late"
        assert f"match:{match.id}:deadline" in alarm.job_ids()
        assert f"match:{match.id}:reminder:600" in alarm.job_ids()
        clock.advance(3000)
        await alarm.sweep()
        async with store.read() as s:
            reminders = await s.list_outbox(kind="reminder")
        assert sorted(r.payload["turn"] for r in reminders) == [2, 2]
    finally:
        await alarm.stop()
        await store.close()


async def test_start_releases_the_claims_of_its_previous_run(db_url: str) -> None:
    clock = ManualClock()
    store = await Store.open(db_url)
    service = MatchService(store, clock, node_id="n1", claim_lease_seconds=3600)
    match = await started_match(service, turn_seconds=60, reminders=[])
    clock.advance(60)
    async with store.write() as s:
        [claimed] = await s.claim_due(to_ms(clock.now()), "n1", 3_600_000, 10)
    assert claimed.id == match.id  # ...and the process dies holding it
    alarm = DeadlineAlarm(MatchService(store, clock, node_id="n1"))
    try:
        await alarm.start()
        assert (await alarm.service.get_match(match.id)).turn == 2
    finally:
        await alarm.stop()
        await store.close()


async def test_the_alarm_fires_at_the_deadline(store: Store) -> None:
    service = MatchService(store, SystemClock(), node_id="live")
    alarm = DeadlineAlarm(service, sweep_seconds=3600)
    try:
        await alarm.start()
        # Heard from before the match exists: a loaded machine may take its deadline's second
        # to create it, and then the job fires before the test would otherwise listen.
        fired = job_outcome(alarm.scheduler, lambda job_id: job_id.endswith(":deadline"))
        match = await started_match(service, ("ann", "ben"), turn_seconds=1, reminders=[])
        assert f"match:{match.id}:deadline" in alarm.job_ids() or fired.done()
        assert await asyncio.wait_for(fired, timeout=60) == EVENT_JOB_EXECUTED
        assert (await service.get_match(match.id)).turn == 2
        record = await service.history(match.id, 1)
        assert record.cause == "deadline"
        assert record.resolved_at >= (match.deadline_at or 0)
    finally:
        await alarm.stop()
