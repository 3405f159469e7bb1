"""Sanctum Host entry point: settings, logging, the MatchBot, and sandbox mode without a token."""

from __future__ import annotations

import logging
import sys

import discord
from discord.ext import commands

from cogs import EXTENSIONS
from settings import Settings, SettingsError, load_settings

log = logging.getLogger("sanctum")

NO_TOKEN_HELP = """\
No Discord token is configured (DISCORD_TOKEN is empty), so Sanctum Host starts in sandbox mode.

Sandbox mode runs this same bot against a local stand-in for Discord on 127.0.0.1 and plays a
demo match between two scripted players; nothing goes over the network.

To run on real Discord:
  1. Create an application at https://discord.com/developers/applications and add a Bot.
  2. Copy the bot token into .env as DISCORD_TOKEN=... (see .env.example for every setting).
  3. Invite the bot with the scopes "bot" and "applications.commands" and the permissions listed
     in docs/operations.md. No privileged intents are needed.
  4. Run `make run` again.
"""


def configure_logging(level: str) -> None:
    """Configure the root logger once, for the whole process."""
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)-8s %(name)s: %(message)s",
        datefmt="%Y-%m-%d %H:%M:%S",
    )
    # discord.py logs every gateway frame at DEBUG; keep our own DEBUG output readable.
    if level == "DEBUG":
        logging.getLogger("discord").setLevel(logging.INFO)


def bot_intents() -> discord.Intents:
    """Only what the bot uses; none of these are privileged."""
    intents = discord.Intents.none()
    intents.guilds = True
    intents.dm_messages = True
    return intents


class MatchBot(commands.Bot):
    def __init__(self, settings: Settings) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=bot_intents())
        self.settings = settings

    async def setup_hook(self) -> None:
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        guild_id = self.settings.test_guild_id
        if guild_id is not None:
            guild = discord.Object(id=guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to test guild %s", len(synced), guild_id)
        else:
            synced = await self.tree.sync()
            log.info("synced %d commands globally", len(synced))


def main() -> int:
    try:
        settings = load_settings()
    except SettingsError as error:
        print(f"Configuration error: {error}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level)
    if settings.discord_token is None:
        print(NO_TOKEN_HELP)
        return 0
    bot = MatchBot(settings)
    # discord.py's run() handles SIGINT/SIGTERM by closing the client cleanly.
    bot.run(settings.discord_token, log_handler=None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
