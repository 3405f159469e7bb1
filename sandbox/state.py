"""Everything the sandbox knows, and the changes the bot and the players make."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import mimetypes
import re
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sandbox.errors import ApiError, SandboxTimeoutError, unknown
from sandbox.gateway import GatewayHub, Intent
from sandbox.interactions import Commands
from sandbox.limits import DEFAULT_ATTACHMENT_LIMIT, numbered, validate_message
from sandbox.models import (
    ALL_PERMISSIONS,
    EVERYONE_PERMISSIONS,
    JSON,
    Attachment,
    Channel,
    ChannelType,
    Command,
    Guild,
    Interaction,
    InteractionMeta,
    Member,
    Message,
    MessageFlag,
    MessageType,
    Overwrite,
    Permission,
    Role,
    User,
)
from sandbox.permissions import INVITE_PERMISSIONS, channel_permissions
from sandbox.snowflake import SnowflakeGenerator, now_iso

log = logging.getLogger(__name__)

_MENTION = re.compile(r"<@!?(\d+)>")
_POLL_INTERVAL = 0.02
# Keyed waiters are woken by their channels' changes; the slow poll only bounds the cost of a
# change that forgot to say where it happened.
_KEYED_POLL_INTERVAL = 0.5


@dataclass(frozen=True, slots=True)
class Upload:
    """A file a bot or a player sends: a name and its bytes."""

    filename: str
    data: bytes
    description: str | None = None
    content_type: str | None = None


class SandboxState(Commands):
    """The world: users, guilds, channels, messages, commands and interactions."""

    def __init__(
        self,
        *,
        token: str,
        bot_name: str,
        allowed_intents: int,
        heartbeat_interval_ms: int,
        ack_timeout: float,
        attachment_limit: int = DEFAULT_ATTACHMENT_LIMIT,
        bot_permissions: int = INVITE_PERMISSIONS,
        shards: int | None = None,
    ) -> None:
        self.ids = SnowflakeGenerator()
        self.shards = shards
        self.token = token
        self.base_url = ""
        self.ack_timeout = ack_timeout
        self.attachment_limit = attachment_limit
        self.bot_permissions = bot_permissions
        self.users: dict[int, User] = {}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.channel_messages: dict[int, list[int]] = {}
        self.commands: dict[int, Command] = {}
        self.interactions: dict[int, Interaction] = {}
        self._interactions_by_token: dict[str, Interaction] = {}
        self._dm_by_user: dict[int, int] = {}
        # Files attached to slash command options belong to no message until the bot posts them.
        self.loose_attachments: dict[int, Attachment] = {}
        # Waiters by the channel whose changes they wait for; None: every change.
        self._waiters: dict[int | None, set[asyncio.Event]] = {}
        self._command_version = 0
        self.bot = self.create_user(bot_name, bot=True)
        self.application_id = self.bot.id
        self.gateway = GatewayHub(
            token_ok=self.token_ok,
            initial_events=self._initial_events,
            guild_members=self._guild_member_payloads,
            allowed_intents=allowed_intents,
            heartbeat_interval_ms=heartbeat_interval_ms,
            on_change=self.notify,
        )

    # change notification

    def notify(self, *channel_ids: int) -> None:
        """Wake the waiters of these channels and those watching everything; with no channel
        (a change of the world at large), every waiter."""
        if channel_ids:
            groups = [self._waiters.get(None, set())]
            groups += [self._waiters.get(c, set()) for c in channel_ids]
        else:
            groups = list(self._waiters.values())
        for group in groups:
            for event in group:
                event.set()

    async def wait_for(
        self,
        predicate: Callable[[], Any],
        timeout: float,  # noqa: ASYNC109
        what: str,
        *,
        channels: Iterable[int] = (),
    ) -> Any:
        """Wait until ``predicate()`` is truthy and return it, or raise SandboxTimeoutError.

        A predicate that reads only these ``channels`` (their messages and the interactions
        started in them) names them, and is then asked again only when one of them changes:
        hundreds of waiting players would otherwise each be asked on every change.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        keys: list[int | None] = list(channels) or [None]
        # Unkeyed predicates may read the bot's own state too, which never notifies: poll.
        poll = _KEYED_POLL_INTERVAL if keys != [None] else _POLL_INTERVAL
        event = asyncio.Event()
        for key in keys:
            self._waiters.setdefault(key, set()).add(event)
        try:
            while True:
                event.clear()
                value = predicate()
                if value:
                    return value
                remaining = deadline - loop.time()
                if remaining <= 0:
                    raise SandboxTimeoutError(f"timed out after {timeout:.1f}s waiting for {what}")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), min(remaining, poll))
        finally:
            for key in keys:
                group = self._waiters.get(key)
                if group is not None:
                    group.discard(event)
                    if not group:
                        del self._waiters[key]

    @property
    def recommended_shards(self) -> int:
        """What GET /gateway/bot recommends: the sandbox's set count, else one shard per
        1,000 guilds, as Discord roughly does."""
        return self.shards or max(1, -(-len(self.guilds) // 1000))

    def token_ok(self, token: str) -> bool:
        return secrets.compare_digest(token.removeprefix("Bot "), self.token)

    # world building

    def create_user(self, name: str, *, bot: bool = False, dms_open: bool = True) -> User:
        user = User(id=self.ids.next(), name=name, bot=bot, dms_open=dms_open)
        self.users[user.id] = user
        return user

    def create_guild(self, name: str, owner: User | None = None) -> Guild:
        guild_id = self.ids.next()
        # Someone else owns the server: an owner has every permission, a bot only its role's.
        owner = owner or self.create_user(f"{name} owner")
        guild = Guild(id=guild_id, name=name, owner_id=owner.id)
        guild.roles[guild_id] = Role(guild_id, "@everyone", int(EVERYONE_PERMISSIONS))
        bot_role = Role(self.ids.next(), self.bot.name, int(self.bot_permissions), 1, True)
        guild.roles[bot_role.id] = bot_role
        self.guilds[guild_id] = guild
        guild.members[self.bot.id] = Member(self.bot.id, [bot_role.id], now_iso())
        guild.members[owner.id] = Member(owner.id, [], now_iso())
        # A guild joined while online comes without "unavailable": discord.py reads it as a join.
        joined = {k: v for k, v in self.guild_payload(guild).items() if k != "unavailable"}
        self.gateway.dispatch("GUILD_CREATE", joined, intent=Intent.GUILDS)
        self.notify()
        return guild

    def moderator_role(self, guild: Guild) -> Role:
        for role in guild.roles.values():
            if role.name == "Moderator":
                return role
        role = Role(self.ids.next(), "Moderator", int(Permission.MANAGE_GUILD), 2)
        guild.roles[role.id] = role
        return role

    def add_member(self, guild: Guild, user: User, *, manage_server: bool = False) -> Member:
        roles = [self.moderator_role(guild).id] if manage_server else []
        member = Member(user.id, roles, now_iso())
        guild.members[user.id] = member
        payload = {**self.member_payload(guild, user.id), "guild_id": str(guild.id)}
        self.gateway.dispatch("GUILD_MEMBER_ADD", payload, intent=Intent.GUILD_MEMBERS)
        self.notify()
        return member

    def create_channel(self, guild: Guild, name: str, *, topic: str | None = None) -> Channel:
        channel = Channel(
            id=self.ids.next(),
            type=ChannelType.TEXT,
            name=name,
            guild_id=guild.id,
            position=len(guild.channel_ids),
            topic=topic,
        )
        self._add_channel(channel)
        guild.channel_ids.append(channel.id)
        self.gateway.dispatch("CHANNEL_CREATE", self.channel_payload(channel), intent=Intent.GUILDS)
        self.notify()
        return channel

    def _add_channel(self, channel: Channel) -> None:
        self.channels[channel.id] = channel
        self.channel_messages[channel.id] = []

    def dm_channel(self, user: User) -> Channel:
        channel_id = self._dm_by_user.get(user.id)
        if channel_id is not None:
            return self.channels[channel_id]
        channel = Channel(id=self.ids.next(), type=ChannelType.DM, name=None, recipient_id=user.id)
        self._add_channel(channel)
        self._dm_by_user[user.id] = channel.id
        return channel

    # lookups

    def user(self, user_id: int | str) -> User:
        try:
            return self.users[int(user_id)]
        except (KeyError, ValueError):
            raise unknown("User", 10013) from None

    def guild(self, guild_id: int | str) -> Guild:
        try:
            return self.guilds[int(guild_id)]
        except (KeyError, ValueError):
            raise unknown("Guild", 10004) from None

    def channel(self, channel_id: int | str) -> Channel:
        try:
            return self.channels[int(channel_id)]
        except (KeyError, ValueError):
            raise unknown("Channel", 10003) from None

    def message(self, channel_id: int | str, message_id: int | str) -> Message:
        try:
            msg = self.messages[int(message_id)]
        except (KeyError, ValueError):
            raise unknown("Message", 10008) from None
        if msg.channel_id != int(channel_id) or msg.deleted:
            raise unknown("Message", 10008)
        return msg

    def channel_history(self, channel_id: int) -> list[Message]:
        found = (self.messages[i] for i in self.channel_messages.get(channel_id, []))
        return [m for m in found if not m.deleted]

    def threads_of(self, channel: Channel) -> list[Channel]:
        return [c for c in self.channels.values() if c.is_thread and c.parent_id == channel.id]

    # visibility and permissions

    def permissions_in(self, user_id: int, channel: Channel) -> int:
        """``user_id``'s permissions in ``channel``, as Discord computes them (all in a DM)."""
        guild = self.guilds.get(channel.guild_id or 0)
        if guild is None:
            return ALL_PERMISSIONS
        parent = self.channels.get(channel.parent_id or 0) if channel.is_thread else channel
        overwrites = parent.overwrites if parent is not None else []
        return channel_permissions(guild, channel, user_id, overwrites)

    def bot_permissions_in(self, channel: Channel) -> int:
        return self.permissions_in(self.bot.id, channel)

    def set_overwrite(
        self, channel: Channel, target_id: int, kind: int, allow: int, deny: int
    ) -> None:
        """Set (or with nothing allowed or denied, remove) a channel's overwrite for a role or
        member, and tell the bot, as a moderator editing the channel would."""
        channel.overwrites = [o for o in channel.overwrites if o.target_id != target_id]
        if allow or deny:
            channel.overwrites.append(Overwrite(target_id, kind, allow, deny))
        self.gateway.dispatch("CHANNEL_UPDATE", self.channel_payload(channel), intent=Intent.GUILDS)
        self.notify()

    def can_view_channel(self, user_id: int, channel: Channel) -> bool:
        if user_id == self.bot.id:
            return True
        if channel.type is ChannelType.DM:
            return channel.recipient_id == user_id
        guild = self.guilds.get(channel.guild_id or 0)
        if guild is None or user_id not in guild.members:
            return False
        return bool(self.permissions_in(user_id, channel) & Permission.VIEW_CHANNEL)

    def can_see(self, user_id: int, message: Message) -> bool:
        if message.deleted:
            return False
        if message.ephemeral_for is not None and message.ephemeral_for != user_id:
            return False
        return self.can_view_channel(user_id, self.channels[message.channel_id])

    def visible_messages(self, user_id: int, channel: Channel) -> list[Message]:
        return [m for m in self.channel_history(channel.id) if self.can_see(user_id, m)]

    # messages

    def _mentions(self, content: str) -> list[int]:
        found = [int(m) for m in _MENTION.findall(content)]
        return [u for u in dict.fromkeys(found) if u in self.users]

    def make_attachments(self, uploads: Iterable[Upload]) -> list[Attachment]:
        out = []
        for upload in uploads:
            content_type = upload.content_type or mimetypes.guess_type(upload.filename)[0]
            out.append(
                Attachment(
                    id=self.ids.next(),
                    filename=upload.filename,
                    data=upload.data,
                    content_type=content_type,
                    description=upload.description,
                )
            )
        return out

    def _store_message(self, msg: Message) -> Message:
        channel = self.channels[msg.channel_id]
        self.messages[msg.id] = msg
        self.channel_messages[channel.id].append(msg.id)
        channel.last_message_id = msg.id
        if channel.is_thread:
            channel.message_count += 1
        if not msg.ephemeral:
            full, redacted = self.message_payload_for_bot(msg)
            intent = Intent.DIRECT_MESSAGES if msg.guild_id is None else Intent.GUILD_MESSAGES
            self.gateway.dispatch("MESSAGE_CREATE", full, intent=intent, without_content=redacted)
        self.notify(channel.id)
        return msg

    def _dispatch_update(self, msg: Message) -> None:
        if msg.ephemeral:
            return
        full, redacted = self.message_payload_for_bot(msg)
        intent = Intent.DIRECT_MESSAGES if msg.guild_id is None else Intent.GUILD_MESSAGES
        self.gateway.dispatch("MESSAGE_UPDATE", full, intent=intent, without_content=redacted)

    def post_user_message(
        self,
        user: User,
        channel: Channel,
        content: str,
        *,
        files: Iterable[Upload] = (),
        reply_to: Message | None = None,
    ) -> Message:
        """A person typing into a channel, thread or DM (DMs always go to the bot)."""
        if not self.can_view_channel(user.id, channel):
            raise ApiError(403, 50001, "Missing Access")
        if channel.is_thread and channel.locked:
            raise ApiError(403, 50083, "Thread is archived")
        uploads = list(files)
        validate_message(
            {"content": content}, [len(u.data) for u in uploads], attachment_limit=10**12
        )
        self._unarchive(channel)
        if channel.type is ChannelType.PUBLIC_THREAD and user.id not in channel.member_ids:
            # Posting in a public thread joins it, as in the Discord client.
            self.add_thread_member(channel, user)
        msg = Message(
            id=self.ids.next(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author_id=user.id,
            content=content,
            attachments=self.make_attachments(uploads),
            mention_ids=self._mentions(content),
            type=MessageType.REPLY if reply_to is not None else MessageType.DEFAULT,
            reference_message_id=reply_to.id if reply_to is not None else None,
        )
        return self._store_message(msg)

    def _unarchive(self, channel: Channel) -> None:
        if channel.is_thread and channel.archived:
            channel.archived = False
            self.gateway.dispatch(
                "THREAD_UPDATE", self.channel_payload(channel), intent=Intent.GUILDS
            )

    def bot_message(
        self,
        channel: Channel,
        body: JSON,
        uploads: list[Upload],
        *,
        ephemeral_for: int | None = None,
        interaction: InteractionMeta | None = None,
        msg_type: MessageType = MessageType.DEFAULT,
        extra_flags: int = 0,
        validate: bool = True,
    ) -> Message:
        if validate:
            validate_message(
                body, [len(u.data) for u in uploads], attachment_limit=self.attachment_limit
            )
        if channel.type is ChannelType.DM and interaction is None:
            recipient = self.users[channel.recipient_id or 0]
            if not recipient.dms_open or recipient.bot:
                raise ApiError(403, 50007, "Cannot send messages to this user")
        if channel.is_thread and channel.locked:
            raise ApiError(403, 50083, "Thread is archived")
        self._unarchive(channel)
        content = str(body.get("content") or "")
        flags = int(body.get("flags") or 0) | extra_flags
        if ephemeral_for is not None:
            flags |= MessageFlag.EPHEMERAL
        reference = body.get("message_reference") or {}
        reference_id = int(reference["message_id"]) if reference.get("message_id") else None
        if reference_id is not None and msg_type is MessageType.DEFAULT:
            msg_type = MessageType.REPLY
        msg = Message(
            id=self.ids.next(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author_id=self.bot.id,
            content=content,
            embeds=list(body.get("embeds") or []),
            components=numbered(list(body.get("components") or [])),
            attachments=self.make_attachments(uploads),
            flags=flags,
            type=msg_type,
            ephemeral_for=ephemeral_for,
            interaction=interaction,
            webhook_id=self.application_id if interaction is not None else None,
            application_id=self.application_id if interaction is not None else None,
            reference_message_id=reference_id,
            mention_ids=self._mentions(content),
            nonce=body.get("nonce"),
            tts=bool(body.get("tts")),
        )
        return self._store_message(msg)

    def edit_message(self, msg: Message, body: JSON, uploads: list[Upload]) -> Message:
        validate_message(
            body,
            [len(u.data) for u in uploads],
            attachment_limit=self.attachment_limit,
            require_body=False,
        )
        if "content" in body:
            msg.content = str(body["content"] or "")
            msg.mention_ids = self._mentions(msg.content)
        if "embeds" in body:
            msg.embeds = list(body["embeds"] or [])
        if "components" in body:
            msg.components = numbered(list(body["components"] or []))
        if "flags" in body and body["flags"] is not None:
            keep = msg.flags & (MessageFlag.EPHEMERAL | MessageFlag.HAS_THREAD)
            msg.flags = int(body["flags"]) | keep
        if "attachments" in body and body["attachments"] is not None:
            kept_ids = {int(a["id"]) for a in body["attachments"] if "filename" not in a}
            kept = [a for a in msg.attachments if a.id in kept_ids]
            msg.attachments = kept + self.make_attachments(uploads)
        elif uploads:
            msg.attachments = msg.attachments + self.make_attachments(uploads)
        msg.flags &= ~MessageFlag.LOADING
        msg.edited_timestamp = now_iso()
        self._dispatch_update(msg)
        self.notify(msg.channel_id)
        return msg

    def delete_message(self, msg: Message) -> None:
        msg.deleted = True
        if not msg.ephemeral:
            data: JSON = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
            if msg.guild_id is not None:
                data["guild_id"] = str(msg.guild_id)
            intent = Intent.DIRECT_MESSAGES if msg.guild_id is None else Intent.GUILD_MESSAGES
            self.gateway.dispatch("MESSAGE_DELETE", data, intent=intent)
        self.notify(msg.channel_id)

    # threads

    def create_thread(
        self,
        parent: Channel,
        name: str,
        *,
        owner: User,
        private: bool,
        from_message: Message | None = None,
        auto_archive_duration: int = 1440,
        invitable: bool = True,
    ) -> Channel:
        if parent.type is not ChannelType.TEXT:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        if not 1 <= len(name) <= 100:
            raise ApiError(400, 50035, "Invalid Form Body")
        if from_message is not None and from_message.thread_id is not None:
            raise ApiError(400, 160004, "A thread has already been created for this message")
        thread_id = from_message.id if from_message is not None else self.ids.next()
        thread = Channel(
            id=thread_id,
            type=ChannelType.PRIVATE_THREAD if private else ChannelType.PUBLIC_THREAD,
            name=name,
            guild_id=parent.guild_id,
            parent_id=parent.id,
            owner_id=owner.id,
            member_ids=[owner.id],
            auto_archive_duration=auto_archive_duration,
            invitable=invitable,
        )
        self._add_channel(thread)
        payload = {**self.channel_payload(thread), "newly_created": True}
        self.gateway.dispatch("THREAD_CREATE", payload, intent=Intent.GUILDS)
        if from_message is not None:
            from_message.thread_id = thread.id
            from_message.flags |= MessageFlag.HAS_THREAD
            self._dispatch_update(from_message)
        self.notify()
        return thread

    def add_thread_member(self, thread: Channel, user: User) -> None:
        if not thread.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        if user.id in thread.member_ids:
            return
        guild = self.guilds[thread.guild_id or 0]
        if user.id not in guild.members:
            raise unknown("Member", 10007)
        thread.member_ids.append(user.id)
        self._dispatch_thread_members(thread, added=[user.id], removed=[])
        self.notify()

    def remove_thread_member(self, thread: Channel, user: User) -> None:
        if user.id in thread.member_ids:
            thread.member_ids.remove(user.id)
            self._dispatch_thread_members(thread, added=[], removed=[user.id])
            self.notify()

    def _dispatch_thread_members(
        self, thread: Channel, *, added: list[int], removed: list[int]
    ) -> None:
        guild = self.guilds[thread.guild_id or 0]
        added_payloads = []
        for uid in added:
            item = self.thread_member_payload(thread, uid)
            item["member"] = self.member_payload(guild, uid)
            item["presence"] = None
            added_payloads.append(item)
        data: JSON = {
            "id": str(thread.id),
            "guild_id": str(thread.guild_id),
            "member_count": min(len(thread.member_ids), 50),
            "added_members": added_payloads,
            "removed_member_ids": [str(u) for u in removed],
        }
        self.gateway.dispatch("THREAD_MEMBERS_UPDATE", data, intent=Intent.GUILDS)

    def delete_channel(self, channel: Channel) -> None:
        """A channel or thread deleted, with its threads and messages."""
        for thread in self.threads_of(channel):
            self.delete_channel(thread)
        del self.channels[channel.id]
        for msg_id in self.channel_messages.pop(channel.id, []):
            self.messages[msg_id].deleted = True
        if channel.guild_id is not None and channel.id in self.guilds[channel.guild_id].channel_ids:
            self.guilds[channel.guild_id].channel_ids.remove(channel.id)
        starter = self.messages.get(channel.id)
        if starter is not None and starter.thread_id == channel.id:
            starter.thread_id = None
        event = "THREAD_DELETE" if channel.is_thread else "CHANNEL_DELETE"
        payload = self.channel_payload(channel)
        self.gateway.dispatch(event, payload, intent=Intent.GUILDS)
        self.notify(channel.id)

    def update_channel(self, channel: Channel, body: JSON) -> Channel:
        if body.get("name"):
            channel.name = str(body["name"])
        if "topic" in body and not channel.is_thread:
            channel.topic = body["topic"]
        if channel.is_thread:
            for key in ("archived", "locked", "invitable"):
                if key in body and body[key] is not None:
                    setattr(channel, key, bool(body[key]))
            if body.get("auto_archive_duration"):
                channel.auto_archive_duration = int(body["auto_archive_duration"])
        event = "THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE"
        self.gateway.dispatch(event, self.channel_payload(channel), intent=Intent.GUILDS)
        self.notify()
        return channel
