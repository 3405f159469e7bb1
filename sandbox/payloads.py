"""The JSON payloads Discord sends for the sandbox's records, shared by REST and the gateway.

`Payloads` is a mixin of SandboxState: it renders what the state holds and changes nothing.
"""

from __future__ import annotations

from sandbox.gateway import GatewaySession, Intent
from sandbox.models import (
    ALL_PERMISSIONS,
    JSON,
    Channel,
    ChannelType,
    Guild,
    Interaction,
    InteractionMeta,
    InteractionType,
    Message,
    User,
)
from sandbox.snowflake import iso_timestamp, now_iso


class Payloads:
    """Discord's shapes for users, members, channels, guilds, messages and interactions."""

    users: dict[int, User]
    guilds: dict[int, Guild]
    channels: dict[int, Channel]
    messages: dict[int, Message]
    bot: User
    application_id: int
    base_url: str
    attachment_limit: int

    def permissions_in(self, user_id: int, channel: Channel) -> int:
        raise NotImplementedError

    def member_payload(self, guild: Guild, user_id: int, *, permissions: bool = False) -> JSON:
        member = guild.members[user_id]
        out: JSON = {
            "user": self.users[user_id].payload(),
            "nick": member.nick,
            "avatar": None,
            "banner": None,
            "roles": [str(r) for r in member.role_ids],
            "joined_at": member.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if permissions:
            out["permissions"] = str(guild.permissions_of(user_id))
        return out

    def _guild_member_payloads(self, guild_id: int) -> list[JSON]:
        guild = self.guilds.get(guild_id)
        if guild is None:
            return []
        return [self.member_payload(guild, uid) for uid in guild.members]

    def thread_member_payload(self, thread: Channel, user_id: int) -> JSON:
        return {
            "id": str(thread.id),
            "user_id": str(user_id),
            "join_timestamp": now_iso(),
            "flags": 0,
        }

    def channel_payload(self, channel: Channel) -> JSON:
        out: JSON = {"id": str(channel.id), "type": int(channel.type), "flags": 0}
        out["last_message_id"] = str(channel.last_message_id) if channel.last_message_id else None
        if channel.type is ChannelType.DM:
            recipient = self.users[channel.recipient_id or 0]
            out["recipients"] = [recipient.payload()]
            return out
        out.update(
            {
                "guild_id": str(channel.guild_id),
                "name": channel.name,
                "parent_id": str(channel.parent_id) if channel.parent_id else None,
                "rate_limit_per_user": 0,
                "nsfw": False,
            }
        )
        if channel.is_thread:
            out.update(
                {
                    "owner_id": str(channel.owner_id),
                    "message_count": channel.message_count,
                    "total_message_sent": channel.message_count,
                    "member_count": min(len(channel.member_ids), 50),
                    "thread_metadata": {
                        "archived": channel.archived,
                        "auto_archive_duration": channel.auto_archive_duration,
                        "archive_timestamp": iso_timestamp(channel.id),
                        "locked": channel.locked,
                        "invitable": channel.invitable,
                        "create_timestamp": iso_timestamp(channel.id),
                    },
                }
            )
            if self.bot.id in channel.member_ids:
                out["member"] = self.thread_member_payload(channel, self.bot.id)
        else:
            out.update(
                {
                    "position": channel.position,
                    "permission_overwrites": [o.payload() for o in channel.overwrites],
                    "topic": channel.topic,
                    "default_auto_archive_duration": 1440,
                }
            )
        return out

    def guild_payload(self, guild: Guild) -> JSON:
        channels = [self.channels[c] for c in guild.channel_ids]
        threads = [
            c
            for c in self.channels.values()
            if c.is_thread and c.guild_id == guild.id and not c.archived
        ]
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(guild.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [r.payload() for r in guild.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "joined_at": guild.members[self.bot.id].joined_at,
            "large": False,
            "unavailable": False,
            "member_count": len(guild.members),
            "voice_states": [],
            "members": self._guild_member_payloads(guild.id),
            "channels": [self.channel_payload(c) for c in channels],
            "threads": [self.channel_payload(t) for t in threads],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
        }

    def message_payload(self, msg: Message, *, gateway: bool = False) -> JSON:
        author = self.users[msg.author_id]
        out: JSON = {
            "id": str(msg.id),
            "channel_id": str(msg.channel_id),
            "type": int(msg.type),
            "author": author.payload(),
            "content": msg.content,
            "timestamp": msg.timestamp,
            "edited_timestamp": msg.edited_timestamp,
            "tts": msg.tts,
            "mention_everyone": False,
            "mentions": [self.users[u].payload() for u in msg.mention_ids if u in self.users],
            "mention_roles": [],
            "attachments": [a.payload(self.base_url, msg.channel_id) for a in msg.attachments],
            "embeds": msg.embeds,
            "components": msg.components,
            "pinned": False,
            "flags": msg.flags,
        }
        if msg.nonce is not None:
            out["nonce"] = msg.nonce
        if msg.webhook_id is not None:
            out["webhook_id"] = str(msg.webhook_id)
        if msg.application_id is not None:
            out["application_id"] = str(msg.application_id)
        if msg.interaction is not None:
            out["interaction_metadata"] = self._interaction_meta_payload(msg.interaction)
        if msg.reference_message_id is not None:
            out["message_reference"] = {
                "type": 0,
                "message_id": str(msg.reference_message_id),
                "channel_id": str(msg.channel_id),
            }
            ref = self.messages.get(msg.reference_message_id)
            if ref is not None and not ref.deleted:
                out["referenced_message"] = self.message_payload(ref)
        if msg.thread_id is not None and msg.thread_id in self.channels:
            out["thread"] = self.channel_payload(self.channels[msg.thread_id])
        if gateway and msg.guild_id is not None:
            out["guild_id"] = str(msg.guild_id)
            guild = self.guilds[msg.guild_id]
            if msg.author_id in guild.members and msg.webhook_id is None:
                member = self.member_payload(guild, msg.author_id)
                member.pop("user")
                out["member"] = member
        return out

    def _interaction_meta_payload(self, meta: InteractionMeta) -> JSON:
        owner = {"0": str(meta.guild_id)} if meta.guild_id else {"1": str(meta.user_id)}
        out: JSON = {
            "id": str(meta.id),
            "type": int(meta.type),
            "user": self.users[meta.user_id].payload(),
            "authorizing_integration_owners": owner,
        }
        if meta.name is not None:
            out["name"] = meta.name
        if meta.original_response_message_id is not None:
            out["original_response_message_id"] = str(meta.original_response_message_id)
        if meta.type is InteractionType.MESSAGE_COMPONENT and meta.interacted_message_id:
            out["interacted_message_id"] = str(meta.interacted_message_id)
        if meta.triggering is not None:
            out["triggering_interaction_metadata"] = self._interaction_meta_payload(meta.triggering)
        return out

    def message_payload_for_bot(self, msg: Message) -> tuple[JSON, JSON | None]:
        """The gateway payload, and the one for a bot without the message content intent.

        Discord blanks content, embeds, attachments and components of guild messages unless the
        bot wrote them or is mentioned; DMs always carry content.
        """
        full = self.message_payload(msg, gateway=True)
        exempt = (
            msg.guild_id is None or msg.author_id == self.bot.id or self.bot.id in msg.mention_ids
        )
        if exempt:
            return full, None
        return full, {**full, "content": "", "embeds": [], "attachments": [], "components": []}

    def _initial_events(self, session: GatewaySession) -> list[tuple[str, JSON]]:
        # A shard is told of its own guilds only.
        guilds = [g for g in self.guilds if session.serves(g)]
        ready: JSON = {
            "v": 10,
            "user": {**self.bot.payload(), "verified": True, "mfa_enabled": False},
            "guilds": [{"id": str(g), "unavailable": True} for g in guilds],
            "private_channels": [],
            "relationships": [],
            "application": {"id": str(self.application_id), "flags": 0},
            "shard": [session.shard_id, session.num_shards],
        }
        events: list[tuple[str, JSON]] = [("READY", ready)]
        if session.has(Intent.GUILDS):
            events += [("GUILD_CREATE", self.guild_payload(self.guilds[g])) for g in guilds]
        return events

    def interaction_payload(self, interaction: Interaction) -> JSON:
        channel = self.channels[interaction.channel_id]
        user = self.users[interaction.user_id]
        out: JSON = {
            "id": str(interaction.id),
            "application_id": str(self.application_id),
            "type": int(interaction.type),
            "data": interaction.data,
            "channel_id": str(channel.id),
            "channel": self.channel_payload(channel),
            "token": interaction.token,
            "version": 1,
            "locale": "en-US",
            "entitlements": [],
            "attachment_size_limit": self.attachment_limit,
        }
        if interaction.guild_id is not None:
            guild = self.guilds[interaction.guild_id]
            out["guild_id"] = str(guild.id)
            out["guild"] = {"id": str(guild.id), "locale": "en-US", "features": []}
            out["guild_locale"] = "en-US"
            out["member"] = self.member_payload(guild, user.id, permissions=True)
            out["app_permissions"] = str(self.permissions_in(self.bot.id, channel))
            out["authorizing_integration_owners"] = {"0": str(guild.id)}
            out["context"] = 0
        else:
            out["user"] = user.payload()
            out["app_permissions"] = str(ALL_PERMISSIONS)
            out["authorizing_integration_owners"] = {"1": str(user.id)}
            out["context"] = 1
        if interaction.source_message_id is not None:
            source = self.messages[interaction.source_message_id]
            out["message"] = self.message_payload(source, gateway=True)
        return out
