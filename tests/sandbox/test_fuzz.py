"""The sandbox under property-based fuzzing from Discord's own description of its API: it never
answers with a server error, and every answer it gives is one the description allows."""

from __future__ import annotations

import pytest

from sandbox.fuzz import fuzz

pytestmark = pytest.mark.slow


async def test_fuzzed_requests_never_meet_a_server_error_or_an_undescribed_answer() -> None:
    report = await fuzz(seconds=90, examples=3, seed=0)
    assert report.requests > 0
    assert report.failures == {}, "\n".join(report.lines())
    assert all(status < 500 for status in report.statuses), report.statuses
