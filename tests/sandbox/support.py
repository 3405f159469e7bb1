"""Run a discord.py client against the sandbox: point it there, start it, stop it cleanly.

Other test packages (tests/cogs) may import these helpers too.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import TypeVar

import discord
import discord.gateway
import discord.http
import yarl

from sandbox import Sandbox

ClientT = TypeVar("ClientT", bound=discord.Client)


@contextlib.contextmanager
def pointed_at(sandbox: Sandbox) -> Iterator[None]:
    """Point discord.py's REST base and gateway at the sandbox, restoring them afterwards."""
    old_base = discord.http.Route.BASE
    old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = sandbox.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(sandbox.gateway_url)
    try:
        yield
    finally:
        discord.http.Route.BASE = old_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway


@contextlib.asynccontextmanager
async def running(client: ClientT, sandbox: Sandbox) -> AsyncIterator[ClientT]:
    """Start ``client`` against ``sandbox`` and wait for on_ready; close it on exit."""
    with pointed_at(sandbox):
        task = asyncio.create_task(client.start(sandbox.token))
        try:
            # Generous: a loaded machine (the suite runs beside other work) starts slowly.
            async with asyncio.timeout(30):
                while not client.is_ready():
                    if task.done():
                        task.result()  # re-raises the start-up failure
                    await asyncio.sleep(0.01)
            yield client
        finally:
            await client.close()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, 5)
