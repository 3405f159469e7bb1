"""Database URLs for tests: a fresh SQLite file, or a fresh schema in the test PostgreSQL.

The PostgreSQL server comes from SANCTUM_TEST_POSTGRES_URL, which the test command sets by
running scripts/postgres.sh; without it, the script is run here (it is idempotent).
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache
from pathlib import Path

import asyncpg

ROOT = Path(__file__).resolve().parents[2]
BACKENDS = ["sqlite", "postgres"]


@cache
def postgres_server_url() -> str:
    url = os.environ.get("SANCTUM_TEST_POSTGRES_URL")
    if url:
        return url
    out = subprocess.run(
        ["bash", str(ROOT / "scripts" / "postgres.sh")],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    url = out.stdout.strip().splitlines()[-1]
    os.environ["SANCTUM_TEST_POSTGRES_URL"] = url
    return url


def with_schema(url: str, schema: str) -> str:
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}search_path={schema}"


@asynccontextmanager
async def database_url(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """A URL to an empty database of the given kind, removed afterwards."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'sanctum.db'}"
        return
    server = postgres_server_url()
    schema = f"t_{uuid.uuid4().hex[:16]}"
    conn = await asyncpg.connect(server)
    try:
        await conn.execute(f"CREATE SCHEMA {schema}")
    finally:
        await conn.close()
    try:
        yield with_schema(server, schema)
    finally:
        conn = await asyncpg.connect(server)
        try:
            await conn.execute(f"DROP SCHEMA {schema} CASCADE")
        finally:
            await conn.close()
