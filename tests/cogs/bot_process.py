"""The real bot as its own process, pointed at a sandbox by address: what the kill test runs.

python -m tests.cogs.bot_process API_BASE GATEWAY_URL TOKEN DATABASE_URL GUILD_ID
"""

from __future__ import annotations

import asyncio
import sys

import discord

from bot import MatchBot, configure_logging, run_bot
from settings import Settings


def main(argv: list[str]) -> None:
    api, gateway, token, database, guild = argv
    discord.http.Route.BASE = api
    old = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = type(old)(gateway)
    settings = Settings(
        discord_token=token,
        database_url=database,
        log_level="WARNING",
        test_guild_id=int(guild),
        default_turn_hours=24.0,
        moderator_role=None,
        sandbox_turns=12,
        node_id="killed",
    )
    configure_logging(settings.log_level)
    # One worker process, so that a kill also leaves a worker behind to be killed with it.
    bot = MatchBot(
        settings,
        sync_commands=False,
        outbox_retry_seconds=0.5,
        workers=1,
        guild_ready_timeout=0.05,
    )
    asyncio.run(run_bot(bot, token))


if __name__ == "__main__":
    main(sys.argv[1:])
