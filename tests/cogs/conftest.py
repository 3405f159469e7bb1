"""A sandbox with a guild, a lobby and three people: Alice and Bob play, Carol watches."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sandbox import Sandbox
from tests.cogs.support import World


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async with Sandbox(bot_name="Sanctum Host") as sandbox:
        guild = sandbox.create_guild("Sanctum")
        lobby = sandbox.create_channel(guild, "matches")
        alice, bob, carol = (
            sandbox.player(sandbox.create_user(name, guild=guild), channel=lobby)
            for name in ("Alice", "Bob", "Carol")
        )
        yield World(sandbox, guild, lobby, alice, bob, carol, database=tmp_path / "sanctum.db")
