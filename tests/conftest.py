"""Fixtures shared by every test package: the catalogue the engine is given, the storage and
service tests' databases (each runs on SQLite and on PostgreSQL), and the sandbox's contract
switched on for the whole suite."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine.content import Content, load_content
from storage import Store
from tests.storage.backends import BACKENDS, database_url

# Every sandbox in the suite checks its traffic against Discord's OpenAPI description.
os.environ.setdefault("SANDBOX_CONTRACT", "1")


@pytest.fixture(scope="session")
def content() -> Content:
    """The shipped catalogue: every engine call is handed its content explicitly."""
    return load_content()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def db_url(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    async with database_url(backend, tmp_path) as url:
        yield url


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    opened = await Store.open(db_url)
    try:
        yield opened
    finally:
        await opened.close()
