"""The alarm clock for leagues: APScheduler wakes the league step; the database decides.

On start the step runs once (a round that fell due while the process was down opens now), then
one date job is set for the next moment the database says something is due (a round opening, a
start deadline, a reminder, a scheduled league start) and a cron job runs the step every minute
as a safety net. Every run of the step recomputes the next moment, so the jobs always mirror the
database. When a match ends, the match service tells the alarm: the league result is recorded at
once, and the step runs straight after, so a completed round closes and the next one opens
without waiting. The step still records any result that notice missed (a crash between the
match's end and the league's write), once either way.
"""

from __future__ import annotations

import logging

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger

from service.clock import from_ms
from service.deadlines import InFlight
from service.leagues.service import LeagueService, StepReport
from service.matches import MatchEnded

log = logging.getLogger(__name__)

WAKE_JOB = "leagues:wake"
SWEEP_JOB = "leagues:sweep"
NUDGE_JOB = "leagues:nudge"


class LeagueAlarm:
    def __init__(self, service: LeagueService, *, sweep: CronTrigger | None = None) -> None:
        self.service = service
        self.sweep_trigger = sweep or CronTrigger(second=0, timezone="UTC")
        self.scheduler = AsyncIOScheduler(timezone="UTC")
        self._started = False
        self._in_flight = InFlight()

    async def start(self) -> None:
        await self.run()
        self.scheduler.add_job(
            self.run,
            self.sweep_trigger,
            id=SWEEP_JOB,
            replace_existing=True,
            coalesce=True,
            max_instances=1,
        )
        self.service.matches.add_end_listener(self._on_match_end)
        self.scheduler.start()
        self._started = True
        log.info("league alarm started")

    async def stop(self) -> None:
        """Stop listening and waking; a step already running finishes first."""
        if self._started:
            self._started = False
            self.service.matches.remove_end_listener(self._on_match_end)
            self.scheduler.pause()
            await self._in_flight.drained()
            self.scheduler.shutdown(wait=False)

    def job_ids(self) -> list[str]:
        return sorted(job.id for job in self.scheduler.get_jobs())

    async def run(self) -> StepReport | None:
        """One step, then the wake-up job for the next due moment."""
        with self._in_flight.running():
            return await self._run()

    async def _run(self) -> StepReport | None:
        report: StepReport | None = None
        try:
            report = await self.service.step()
        except Exception:
            log.exception("league step failed; the sweep retries")
        try:
            wake = await self.service.next_wake()
        except Exception:
            log.exception("could not compute the next league wake-up; the sweep covers it")
            return report
        if wake is None:
            if self.scheduler.get_job(WAKE_JOB) is not None:
                self.scheduler.remove_job(WAKE_JOB)
        else:
            self.scheduler.add_job(
                self.run,
                "date",
                run_date=from_ms(wake),
                id=WAKE_JOB,
                replace_existing=True,
                misfire_grace_time=None,
                coalesce=True,
            )
        return report

    async def _on_match_end(self, ended: MatchEnded) -> None:
        await self.service.record_match_end(ended)
        if self._started:
            # The step closes a completed round and rates a match outside the leagues. No
            # trigger: APScheduler runs the job as soon as the loop gets to it. No grace limit
            # either: on a busy loop the default second can pass first, and a missed nudge
            # would leave the round open until the next sweep.
            self.scheduler.add_job(
                self.run,
                id=NUDGE_JOB,
                replace_existing=True,
                misfire_grace_time=None,
                coalesce=True,
            )
