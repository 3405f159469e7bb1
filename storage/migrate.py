"""Numbered SQL migrations (`storage/migrations/<dialect>/NNNN_name.sql`), applied on start.

Each database records the versions it has in `schema_migrations`. All pending files run in one
transaction, under a lock, so two processes starting together apply each file once.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from pathlib import Path

from storage.db import Database

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
# Any constant works; it only has to be the same in every process of this application.
_PG_LOCK_KEY = 0x5A4C7


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    path: Path


def migrations_for(dialect: str) -> list[Migration]:
    found: list[Migration] = []
    for path in sorted((MIGRATIONS_DIR / dialect).iterdir()):
        match = _NAME.match(path.name)
        if match is None:
            raise ValueError(f"{path}: migration files are named NNNN_name.sql")
        found.append(Migration(int(match.group(1)), match.group(2), path))
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise ValueError(f"{MIGRATIONS_DIR / dialect}: versions must run 1, 2, 3...: {versions}")
    return found


async def migrate(db: Database) -> list[int]:
    """Apply every pending migration; return the versions applied now."""
    applied: list[int] = []
    async with db.transaction() as tx:
        if db.dialect == "postgres":
            await tx.execute("SELECT pg_advisory_xact_lock(?)", _PG_LOCK_KEY)
        await tx.executescript(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)"
        )
        done = {r["version"] for r in await tx.fetchall("SELECT version FROM schema_migrations")}
        for migration in migrations_for(db.dialect):
            if migration.version in done:
                continue
            log.info("applying migration %04d_%s", migration.version, migration.name)
            await tx.executescript(migration.path.read_text(encoding="utf-8"))
            await tx.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                migration.version,
                migration.name,
                int(time.time() * 1000),
            )
            applied.append(migration.version)
    return applied
