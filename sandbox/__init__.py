"""A local Discord stand-in: REST (v10 subset) and gateway for the unmodified discord.py client.

See sandbox/README.md for the API and how to point a bot at it.
"""

from sandbox.errors import ApiError, InteractionFailedError, PlayerError, SandboxTimeoutError
from sandbox.faults import FaultInjector, RequestRecord
from sandbox.gateway import Intent
from sandbox.models import (
    Attachment,
    CallbackType,
    Channel,
    ChannelType,
    Guild,
    Message,
    MessageFlag,
    Permission,
    Role,
    User,
)
from sandbox.players import ScriptedPlayer
from sandbox.results import InteractionResult, Modal, walk_components
from sandbox.server import Sandbox
from sandbox.state import Upload
from sandbox.transcript import render_all, render_message, render_transcript, save_images

__all__ = [
    "ApiError",
    "Attachment",
    "CallbackType",
    "Channel",
    "ChannelType",
    "FaultInjector",
    "Guild",
    "Intent",
    "InteractionFailedError",
    "InteractionResult",
    "Message",
    "MessageFlag",
    "Modal",
    "Permission",
    "PlayerError",
    "RequestRecord",
    "Role",
    "Sandbox",
    "SandboxTimeoutError",
    "ScriptedPlayer",
    "Upload",
    "User",
    "render_all",
    "render_message",
    "render_transcript",
    "save_images",
    "walk_components",
]
