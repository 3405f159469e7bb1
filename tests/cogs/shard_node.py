"""One bot process of a fleet, for the standby proof: the real entry's `serve` (settings from
the environment, shard leases, the bot) against the sandbox whose addresses it is given.

    python -m tests.cogs.shard_node API_BASE GATEWAY_URL TOKEN
"""

from __future__ import annotations

import asyncio
import sys

import discord.gateway
import discord.http
import yarl

from bot import configure_logging, serve
from settings import load_settings


def main() -> None:
    api_base, gateway_url, token = sys.argv[1:4]
    discord.http.Route.BASE = api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
    settings = load_settings()
    configure_logging(settings.log_level)
    asyncio.run(serve(settings, token, guild_ready_timeout=0.05, workers=0))


if __name__ == "__main__":
    main()
