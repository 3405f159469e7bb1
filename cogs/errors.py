"""The one error handler: refusals become a clear private message, the rest an incident id.

A refusal is anything the player caused and can fix (a service refusal, a typo in an order, a
missing permission, a stale button). Everything else is a bug or an outage: it is logged with a
short incident id, and the player sees that id so a moderator can find the log line.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.split import MESSAGE_LIMIT, clip
from engine.notation import NotationError
from service.errors import ServiceError

log = logging.getLogger(__name__)

# Discord's error code when an interaction was not acknowledged within 3 seconds.
UNKNOWN_INTERACTION = 10062


class RefusalError(Exception):
    """An expected refusal raised by a cog; the message is shown to the player as it is."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def new_incident_id() -> str:
    return secrets.token_hex(4)


def refusal_message(error: BaseException) -> str | None:
    """The message for a player when ``error`` is an expected refusal, else None."""
    if isinstance(error, app_commands.CommandInvokeError | commands.CommandInvokeError):
        error = error.original
    if isinstance(error, RefusalError):
        return error.message
    if isinstance(error, ServiceError):
        return error.message
    if isinstance(error, NotationError):
        return error.message
    if isinstance(error, app_commands.MissingPermissions | app_commands.MissingAnyRole):
        return "You need the Manage Server permission or the moderator role for that."
    if isinstance(error, app_commands.NoPrivateMessage):
        return "That command works only in a server channel."
    if isinstance(error, app_commands.CommandOnCooldown):
        return f"Slow down: try again in {error.retry_after:.0f} s."
    if isinstance(error, app_commands.CheckFailure):
        return str(error) or "You are not allowed to do that here."
    if isinstance(error, app_commands.TransformerError):
        return str(error)
    return None


async def tell(interaction: discord.Interaction, message: str) -> None:
    """Send ``message`` privately, whether or not the interaction was answered already.

    Clipped to one message: a refusal that quotes an oversized input must still arrive."""
    message = clip(message, MESSAGE_LIMIT)
    try:
        if interaction.response.is_done():
            await interaction.followup.send(message, ephemeral=True)
        else:
            await interaction.response.send_message(message, ephemeral=True)
    except (discord.HTTPException, RuntimeError):
        # The interaction expired, or the client is shutting down (its session is closed);
        # the log line is all that is left to do.
        log.warning("could not tell %s: %s", interaction.user.id, message)


async def handle_interaction_error(
    interaction: discord.Interaction, error: BaseException
) -> str | None:
    """Answer the player about ``error``; returns what they were told (None: too late)."""
    message = refusal_message(error)
    original = getattr(error, "original", error)
    if isinstance(original, discord.NotFound) and original.code == UNKNOWN_INTERACTION:
        # Too late to answer at all: Discord has already told the player it failed.
        log.warning(
            "interaction %s from %s expired before it was acknowledged",
            interaction.id,
            interaction.user.id,
        )
        return None
    if message is None:
        incident = new_incident_id()
        command = interaction.command.qualified_name if interaction.command is not None else None
        data: Any = interaction.data or {}
        custom_id = data.get("custom_id")
        log.error(
            "incident %s: %s in %s by user %s (guild %s, channel %s)",
            incident,
            type(original).__name__,
            f"/{command}" if command else custom_id or "an interaction",
            interaction.user.id,
            interaction.guild_id,
            interaction.channel_id,
            exc_info=original,
        )
        message = (
            f"Something went wrong on our side (incident `{incident}`). Your orders so far are "
            "kept; please try again, and give this id to a moderator if it happens again."
        )
    await tell(interaction, message)
    return message


class ErrorHandlingTree(app_commands.CommandTree[commands.Bot]):
    """The command tree whose errors all go through :func:`handle_interaction_error`."""

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await handle_interaction_error(interaction, error)
