"""The sandbox fixture for tests/sandbox."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from sandbox import Sandbox


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    async with Sandbox(bot_name="Test Bot") as server:
        yield server
