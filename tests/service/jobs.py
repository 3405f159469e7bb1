"""Waiting for an APScheduler job by its outcome instead of by the clock: a test that sleeps a
fixed time and then looks fails whenever a loaded machine runs the job later."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED, EVENT_JOB_MISSED, JobEvent
from apscheduler.schedulers.base import BaseScheduler

__all__ = ["EVENT_JOB_ERROR", "EVENT_JOB_EXECUTED", "EVENT_JOB_MISSED", "job_outcome"]


def job_outcome(scheduler: BaseScheduler, job: Callable[[str], bool]) -> asyncio.Future[int]:
    """The event code (executed, error or missed) of the next run of a job whose id `job`
    accepts; the job's coroutine has returned by the time the future is done. Call it before
    the job can run."""
    done: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def heard(event: JobEvent) -> None:
        if job(event.job_id) and not done.done():
            scheduler.remove_listener(heard)
            done.set_result(event.code)

    scheduler.add_listener(heard, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR | EVENT_JOB_MISSED)
    return done
