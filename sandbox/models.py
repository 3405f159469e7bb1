"""The sandbox's records (users, guilds, channels, messages, commands, interactions).

Records are mutable because the server edits them as the bot acts; every record renders itself
as the JSON payload Discord would send, so the REST and gateway layers share one shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from sandbox.snowflake import iso_timestamp

JSON = dict[str, Any]


class Permission(IntEnum):
    """The permission bits the sandbox reasons about (Discord's values)."""

    ADMINISTRATOR = 1 << 3
    MANAGE_CHANNELS = 1 << 4
    MANAGE_GUILD = 1 << 5
    ADD_REACTIONS = 1 << 6
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    MANAGE_MESSAGES = 1 << 13
    READ_MESSAGE_HISTORY = 1 << 16
    USE_APPLICATION_COMMANDS = 1 << 31
    MANAGE_THREADS = 1 << 34
    CREATE_PUBLIC_THREADS = 1 << 35
    CREATE_PRIVATE_THREADS = 1 << 36
    SEND_MESSAGES_IN_THREADS = 1 << 38


ALL_PERMISSIONS = (1 << 51) - 1
# What @everyone may do in a sandbox guild: talk, read and use commands. Nothing that a bot could
# need beyond its own role (thread creation, managing), so the bot has what its role grants.
EVERYONE_PERMISSIONS = (
    Permission.VIEW_CHANNEL
    | Permission.SEND_MESSAGES
    | Permission.ADD_REACTIONS
    | Permission.EMBED_LINKS
    | Permission.ATTACH_FILES
    | Permission.READ_MESSAGE_HISTORY
    | Permission.USE_APPLICATION_COMMANDS
    | Permission.SEND_MESSAGES_IN_THREADS
)


class ChannelType(IntEnum):
    TEXT = 0
    DM = 1
    PUBLIC_THREAD = 11
    PRIVATE_THREAD = 12


THREAD_TYPES = frozenset({ChannelType.PUBLIC_THREAD, ChannelType.PRIVATE_THREAD})


class MessageFlag(IntEnum):
    HAS_THREAD = 1 << 5
    EPHEMERAL = 1 << 6
    LOADING = 1 << 7
    IS_COMPONENTS_V2 = 1 << 15


class MessageType(IntEnum):
    DEFAULT = 0
    REPLY = 19
    CHAT_INPUT_COMMAND = 20


class InteractionType(IntEnum):
    APPLICATION_COMMAND = 2
    MESSAGE_COMPONENT = 3
    AUTOCOMPLETE = 4
    MODAL_SUBMIT = 5


class CallbackType(IntEnum):
    CHANNEL_MESSAGE = 4
    DEFERRED_CHANNEL_MESSAGE = 5
    DEFERRED_UPDATE_MESSAGE = 6
    UPDATE_MESSAGE = 7
    AUTOCOMPLETE_RESULT = 8
    MODAL = 9


@dataclass(slots=True)
class User:
    id: int
    name: str
    bot: bool = False
    dms_open: bool = True
    global_name: str | None = None

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> JSON:
        return {
            "id": str(self.id),
            "username": self.name,
            "discriminator": "0",
            "global_name": self.global_name or self.name,
            "avatar": None,
            "bot": self.bot,
            "system": False,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
            "collectibles": None,
            "primary_guild": None,
        }


@dataclass(slots=True)
class Role:
    id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False

    def payload(self) -> JSON:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
        }


@dataclass(slots=True)
class Member:
    user_id: int
    role_ids: list[int]
    joined_at: str
    nick: str | None = None


@dataclass(slots=True)
class Guild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, Role] = field(default_factory=dict)
    members: dict[int, Member] = field(default_factory=dict)
    channel_ids: list[int] = field(default_factory=list)

    def permissions_of(self, user_id: int) -> int:
        if user_id == self.owner_id:
            return ALL_PERMISSIONS
        member = self.members.get(user_id)
        if member is None:
            return 0
        value = self.roles[self.id].permissions
        for role_id in member.role_ids:
            value |= self.roles[role_id].permissions
        if value & Permission.ADMINISTRATOR:
            return ALL_PERMISSIONS
        return value


@dataclass(slots=True)
class Overwrite:
    """A channel's permission overwrite for a role (``kind`` 0) or a member (``kind`` 1)."""

    target_id: int
    kind: int
    allow: int = 0
    deny: int = 0

    def payload(self) -> dict[str, object]:
        return {
            "id": str(self.target_id),
            "type": self.kind,
            "allow": str(self.allow),
            "deny": str(self.deny),
        }


@dataclass(slots=True)
class Channel:
    id: int
    type: ChannelType
    name: str | None
    guild_id: int | None = None
    parent_id: int | None = None
    position: int = 0
    topic: str | None = None
    recipient_id: int | None = None
    owner_id: int | None = None
    member_ids: list[int] = field(default_factory=list)
    archived: bool = False
    locked: bool = False
    invitable: bool = True
    auto_archive_duration: int = 1440
    last_message_id: int | None = None
    message_count: int = 0
    overwrites: list[Overwrite] = field(default_factory=list)

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"


@dataclass(slots=True)
class Attachment:
    """A stored upload; ``data`` holds the exact bytes the bot sent."""

    id: int
    filename: str
    data: bytes
    content_type: str | None = None
    description: str | None = None

    @property
    def size(self) -> int:
        return len(self.data)

    def payload(self, base_url: str, channel_id: int) -> JSON:
        url = f"{base_url}/attachments/{channel_id}/{self.id}/{self.filename}"
        out: JSON = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": url,
            "proxy_url": url,
            "content_type": self.content_type,
        }
        if self.description is not None:
            out["description"] = self.description
        return out


@dataclass(slots=True)
class InteractionMeta:
    """What a message remembers of the interaction that produced it."""

    id: int
    type: InteractionType
    user_id: int
    name: str | None
    guild_id: int | None
    original_response_message_id: int | None = None
    interacted_message_id: int | None = None
    # A modal submit names the interaction that opened the modal.
    triggering: InteractionMeta | None = None


@dataclass(slots=True)
class Message:
    id: int
    channel_id: int
    guild_id: int | None
    author_id: int
    content: str = ""
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    type: MessageType = MessageType.DEFAULT
    edited_timestamp: str | None = None
    ephemeral_for: int | None = None
    interaction: InteractionMeta | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    reference_message_id: int | None = None
    thread_id: int | None = None
    mention_ids: list[int] = field(default_factory=list)
    nonce: str | int | None = None
    tts: bool = False
    deleted: bool = False

    @property
    def ephemeral(self) -> bool:
        return self.ephemeral_for is not None

    @property
    def loading(self) -> bool:
        return bool(self.flags & MessageFlag.LOADING)

    @property
    def timestamp(self) -> str:
        return iso_timestamp(self.id)


@dataclass(slots=True)
class Command:
    """An application command as registered by the bot (global when ``guild_id`` is None)."""

    id: int
    application_id: int
    guild_id: int | None
    data: JSON
    version: int

    @property
    def name(self) -> str:
        return str(self.data["name"])

    @property
    def type(self) -> int:
        return int(self.data.get("type", 1))

    def payload(self) -> JSON:
        out = dict(self.data)
        out.setdefault("type", 1)
        out.setdefault("description", "")
        out.setdefault("options", [])
        out.setdefault("default_member_permissions", None)
        out.setdefault("nsfw", False)
        # Discord answers its defaults for what the bot left out or sent as null.
        if out.get("integration_types") is None:
            out["integration_types"] = [0]
        if out["default_member_permissions"] is not None:
            out["default_member_permissions"] = str(out["default_member_permissions"])
        if out.get("dm_permission") is None:
            out.pop("dm_permission", None)
        out["id"] = str(self.id)
        out["application_id"] = str(self.application_id)
        out["version"] = str(self.version)
        if self.guild_id is not None:
            out["guild_id"] = str(self.guild_id)
        return out


@dataclass(slots=True)
class Interaction:
    """One interaction a player started, and everything the bot answered to it."""

    id: int
    token: str
    type: InteractionType
    user_id: int
    channel_id: int
    guild_id: int | None
    data: JSON
    created_at: float
    command_name: str | None = None
    source_message_id: int | None = None
    trigger_id: int | None = None
    callback_type: CallbackType | None = None
    ephemeral: bool = False
    original_message_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    modal: JSON | None = None
    choices: list[JSON] | None = None

    @property
    def is_acknowledged(self) -> bool:
        return self.callback_type is not None
