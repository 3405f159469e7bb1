"""The alarm clock for deadlines and reminders.

The database holds every deadline; APScheduler only wakes the process at the right moments. On
start the jobs are rebuilt from the database, after a first sweep that resolves whatever fell
due while the process was down. A sweep every minute catches anything a job missed (a deadline
moved by another process, a clock jump, a failed job).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from service.clock import from_ms
from service.matches import MatchService

log = logging.getLogger(__name__)

SWEEP_SECONDS = 60.0


class InFlight:
    """The jobs of an alarm that are running now, so that stopping can wait for them.

    APScheduler's shutdown cancels a running coroutine job, and a job cancelled inside a
    transaction can leave the connection in it. A stop pauses the scheduler, waits for the
    running jobs, and only then shuts it down: what it still cancels has not started.
    """

    def __init__(self) -> None:
        self._count = 0
        self._idle = asyncio.Event()
        self._idle.set()

    @contextmanager
    def running(self) -> Iterator[None]:
        # Entered before the job's first await, so a job that has started is always counted.
        self._count += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._count -= 1
            if self._count == 0:
                self._idle.set()

    async def drained(self) -> None:
        # Loops because a job submitted before the pause may start while this one waits.
        while self._count:
            await self._idle.wait()


class DeadlineAlarm:
    def __init__(
        self,
        service: MatchService,
        *,
        sweep_seconds: float = SWEEP_SECONDS,
        rebuild_limit: int = 100_000,
    ) -> None:
        self.service = service
        self.sweep_seconds = sweep_seconds
        self.rebuild_limit = rebuild_limit
        self.scheduler = AsyncIOScheduler(timezone="UTC")
        self._sweep_lock = asyncio.Lock()
        self._started = False
        self._jobs: dict[int, list[str]] = {}
        self._in_flight = InFlight()

    async def start(self) -> None:
        """Release this node's old claims, catch up, schedule every pending deadline."""
        await self.service.release_my_claims()
        await self.sweep()
        # A computer seat's orders for an open turn may have been lost with the last process.
        await self.service.play_computer_turns()
        async with self.service.store.read() as s:
            pending = await s.next_deadlines(self.rebuild_limit)
        for item in pending:
            self._schedule(item.id, item.deadline_at, item.reminders)
        self.scheduler.add_job(
            self.sweep,
            "interval",
            seconds=self.sweep_seconds,
            id="sweep",
            replace_existing=True,
            coalesce=True,
            max_instances=1,
        )
        self.service.add_deadline_listener(self._on_deadline)
        self.scheduler.start()
        self._started = True
        log.info("deadline alarm started with %d pending deadlines", len(pending))

    async def stop(self) -> None:
        """Stop firing; a job already running finishes first."""
        if self._started:
            self._started = False
            self.scheduler.pause()
            await self._in_flight.drained()
            self.scheduler.shutdown(wait=False)

    def job_ids(self) -> list[str]:
        return sorted(job.id for job in self.scheduler.get_jobs())

    async def sweep(self) -> None:
        """Resolve every overdue turn this node can claim, then queue due reminders."""
        with self._in_flight.running():
            async with self._sweep_lock:
                try:
                    resolved = await self.service.run_due()
                    if resolved:
                        log.info("sweep resolved %d turn(s)", len(resolved))
                    await self.service.send_reminders()
                    expired = await self.service.expire_challenges()
                    if expired:
                        log.info("sweep expired %d open challenge(s)", expired)
                except Exception:
                    log.exception("deadline sweep failed; the next sweep retries")

    async def _fire(self, match_id: int) -> None:
        with self._in_flight.running():
            try:
                await self.service.resolve_match(match_id)
                await self.service.send_reminders()
            except Exception:
                log.exception("deadline job for match %s failed; the sweep retries", match_id)

    async def _remind(self) -> None:
        with self._in_flight.running():
            try:
                await self.service.send_reminders()
            except Exception:
                log.exception("reminder job failed; the sweep retries")

    def _on_deadline(
        self, match_id: int, deadline_at: int | None, reminders: tuple[int, ...]
    ) -> None:
        self._unschedule(match_id)
        if deadline_at is not None:
            self._schedule(match_id, deadline_at, reminders)

    def _unschedule(self, match_id: int) -> None:
        for job_id in self._jobs.pop(match_id, ()):
            if self.scheduler.get_job(job_id) is not None:
                self.scheduler.remove_job(job_id)

    def _schedule(self, match_id: int, deadline_at: int, reminders: tuple[int, ...]) -> None:
        when = from_ms(deadline_at)
        ids = [f"match:{match_id}:deadline"]
        self.scheduler.add_job(
            self._fire,
            "date",
            run_date=when,
            args=[match_id],
            id=ids[0],
            replace_existing=True,
            misfire_grace_time=None,
            coalesce=True,
        )
        now = self.service.clock.now()
        for point in reminders:
            at = when - timedelta(seconds=point)
            if at > now:
                ids.append(f"match:{match_id}:reminder:{point}")
                self.scheduler.add_job(
                    self._remind,
                    "date",
                    run_date=at,
                    id=ids[-1],
                    replace_existing=True,
                    misfire_grace_time=None,
                    coalesce=True,
                )
        self._jobs[match_id] = ids
