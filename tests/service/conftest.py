from __future__ import annotations

import pytest

from service.clock import ManualClock
from service.matches import MatchService
from storage import Store


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def service(store: Store, clock: ManualClock) -> MatchService:
    return MatchService(store, clock, node_id="test")
