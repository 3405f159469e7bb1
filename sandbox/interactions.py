"""Application commands and interactions: what players start and how the bot may answer.

`Commands` is a mixin of SandboxState; its methods read and change the state they are part of.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import TYPE_CHECKING

from sandbox.errors import ApiError, unknown
from sandbox.limits import validate_choices
from sandbox.models import (
    JSON,
    CallbackType,
    Channel,
    Command,
    Interaction,
    InteractionMeta,
    InteractionType,
    Message,
    MessageFlag,
    MessageType,
    User,
)
from sandbox.payloads import Payloads
from sandbox.snowflake import interaction_token

if TYPE_CHECKING:
    from sandbox.gateway import GatewayHub
    from sandbox.snowflake import SnowflakeGenerator
    from sandbox.state import Upload

FOLLOWUP_LIFETIME = 15 * 60.0


class Commands(Payloads):
    """Commands the bot registers, interactions players start, and the bot's answers."""

    ids: SnowflakeGenerator
    gateway: GatewayHub
    ack_timeout: float
    commands: dict[int, Command]
    interactions: dict[int, Interaction]
    _interactions_by_token: dict[str, Interaction]
    _command_version: int

    if TYPE_CHECKING:
        # Defined by SandboxState, which posts and edits the messages these answers make.
        def notify(self, *channel_ids: int) -> None: ...

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
        ) -> Message: ...

        def edit_message(self, msg: Message, body: JSON, uploads: list[Upload]) -> Message: ...

    # commands

    def set_commands(self, guild_id: int | None, payloads: list[JSON]) -> list[Command]:
        """Bulk overwrite: keep ids of commands that survive (matched by name and type)."""
        existing = {(c.name, c.type): c for c in self.commands.values() if c.guild_id == guild_id}
        for command in existing.values():
            del self.commands[command.id]
        out = []
        for data in payloads:
            self._command_version += 1
            key = (str(data["name"]), int(data.get("type", 1)))
            old = existing.get(key)
            command = Command(
                id=old.id if old is not None else self.ids.next(),
                application_id=self.application_id,
                guild_id=guild_id,
                data=dict(data),
                version=self._command_version,
            )
            self.commands[command.id] = command
            out.append(command)
        self.notify()
        return out

    def upsert_command(self, guild_id: int | None, data: JSON) -> Command:
        others = [
            c.payload()
            for c in self.commands.values()
            if c.guild_id == guild_id
            and (c.name, c.type) != (data["name"], int(data.get("type", 1)))
        ]
        self.set_commands(guild_id, [*others, data])
        return next(
            c for c in self.commands.values() if c.guild_id == guild_id and c.name == data["name"]
        )

    def commands_for(self, guild_id: int | None) -> list[Command]:
        return [c for c in self.commands.values() if c.guild_id == guild_id]

    def find_command(self, name: str, guild_id: int | None) -> Command | None:
        """The command a user sees under ``name`` (guild commands win over global ones)."""
        for scope in ([guild_id] if guild_id is not None else []) + [None]:
            for command in self.commands.values():
                if command.guild_id == scope and command.name == name and command.type == 1:
                    return command
        return None

    # interactions

    def start_interaction(
        self,
        user: User,
        channel: Channel,
        kind: InteractionType,
        data: JSON,
        *,
        command_name: str | None = None,
        source: Message | None = None,
        trigger: Interaction | None = None,
    ) -> Interaction:
        interaction_id = self.ids.next()
        interaction = Interaction(
            id=interaction_id,
            token=interaction_token(interaction_id),
            type=kind,
            user_id=user.id,
            channel_id=channel.id,
            guild_id=channel.guild_id,
            data=data,
            created_at=asyncio.get_running_loop().time(),
            command_name=command_name,
            source_message_id=source.id if source is not None else None,
            trigger_id=trigger.id if trigger is not None else None,
        )
        self.interactions[interaction.id] = interaction
        self._interactions_by_token[interaction.token] = interaction
        self.gateway.dispatch("INTERACTION_CREATE", self.interaction_payload(interaction))
        self.notify(channel.id)
        return interaction

    def interaction_by_id(self, interaction_id: int | str, token: str) -> Interaction:
        try:
            interaction = self.interactions[int(interaction_id)]
        except (KeyError, ValueError):
            raise unknown("interaction", 10062) from None
        if not secrets.compare_digest(interaction.token, token):
            raise unknown("interaction", 10062)
        return interaction

    def interaction_by_token(self, application_id: int | str, token: str) -> Interaction:
        interaction = self._interactions_by_token.get(token)
        if interaction is None or str(application_id) != str(self.application_id):
            raise unknown("Webhook", 10015)
        age = asyncio.get_running_loop().time() - interaction.created_at
        if age > FOLLOWUP_LIFETIME or not interaction.is_acknowledged:
            raise unknown("Webhook", 10015)
        return interaction

    def _meta(self, interaction: Interaction) -> InteractionMeta:
        trigger = self.interactions.get(interaction.trigger_id or 0)
        return InteractionMeta(
            id=interaction.id,
            type=interaction.type,
            user_id=interaction.user_id,
            name=interaction.command_name,
            guild_id=interaction.guild_id,
            original_response_message_id=interaction.original_message_id,
            interacted_message_id=interaction.source_message_id,
            triggering=self._meta(trigger) if trigger is not None else None,
        )

    def interaction_callback(
        self, interaction: Interaction, body: JSON, uploads: list[Upload]
    ) -> JSON:
        age = asyncio.get_running_loop().time() - interaction.created_at
        if interaction.is_acknowledged:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        if age > self.ack_timeout:
            raise unknown("interaction", 10062)
        try:
            kind = CallbackType(int(body["type"]))
        except (KeyError, ValueError):
            raise ApiError(400, 50035, "Invalid Form Body") from None
        data: JSON = body.get("data") or {}
        channel = self.channels[interaction.channel_id]
        is_component = interaction.type in (
            InteractionType.MESSAGE_COMPONENT,
            InteractionType.MODAL_SUBMIT,
        ) and (interaction.source_message_id is not None)
        is_autocomplete = interaction.type is InteractionType.AUTOCOMPLETE
        if is_autocomplete != (kind is CallbackType.AUTOCOMPLETE_RESULT):
            raise ApiError(400, 50035, "Interaction callback type is not valid here")
        if kind in (CallbackType.DEFERRED_UPDATE_MESSAGE, CallbackType.UPDATE_MESSAGE) and not (
            is_component
        ):
            raise ApiError(400, 50035, "Interaction callback type is not valid here")
        if kind is CallbackType.MODAL and interaction.type is InteractionType.MODAL_SUBMIT:
            raise ApiError(400, 50035, "A modal cannot answer a modal submit")
        resource: Message | None = None
        ephemeral = bool(int(data.get("flags") or 0) & MessageFlag.EPHEMERAL)
        meta_type = (
            MessageType.CHAT_INPUT_COMMAND
            if interaction.type is InteractionType.APPLICATION_COMMAND
            else MessageType.DEFAULT
        )
        if kind is CallbackType.CHANNEL_MESSAGE:
            resource = self.bot_message(
                channel,
                data,
                uploads,
                ephemeral_for=interaction.user_id if ephemeral else None,
                interaction=self._meta(interaction),
                msg_type=meta_type,
            )
            interaction.original_message_id = resource.id
        elif kind is CallbackType.DEFERRED_CHANNEL_MESSAGE:
            resource = self.bot_message(
                channel,
                {"flags": data.get("flags") or 0},
                [],
                ephemeral_for=interaction.user_id if ephemeral else None,
                interaction=self._meta(interaction),
                msg_type=meta_type,
                extra_flags=MessageFlag.LOADING,
                validate=False,
            )
            interaction.original_message_id = resource.id
        elif kind in (CallbackType.DEFERRED_UPDATE_MESSAGE, CallbackType.UPDATE_MESSAGE):
            source = self.messages[interaction.source_message_id or 0]
            interaction.original_message_id = source.id
            if kind is CallbackType.UPDATE_MESSAGE:
                resource = self.edit_message(source, data, uploads)
        elif kind is CallbackType.AUTOCOMPLETE_RESULT:
            choices = list(data.get("choices") or [])
            validate_choices(choices)
            interaction.choices = choices
        elif kind is CallbackType.MODAL:
            if not data.get("custom_id") or not data.get("title"):
                raise ApiError(400, 50035, "Invalid Form Body")
            interaction.modal = data
        interaction.callback_type = kind
        interaction.ephemeral = ephemeral or (resource is not None and resource.ephemeral)
        self.notify(interaction.channel_id)
        answer: JSON = {
            "interaction": {
                "id": str(interaction.id),
                "type": int(interaction.type),
                "response_message_loading": kind is CallbackType.DEFERRED_CHANNEL_MESSAGE,
                "response_message_ephemeral": interaction.ephemeral,
            }
        }
        if interaction.original_message_id is not None:
            answer["interaction"]["response_message_id"] = str(interaction.original_message_id)
        # Discord describes a resource only for the callbacks that post or edit a message.
        if resource is not None and kind in (
            CallbackType.CHANNEL_MESSAGE,
            CallbackType.UPDATE_MESSAGE,
        ):
            answer["resource"] = {
                "type": int(kind),
                "message": self.message_payload(resource, gateway=True),
            }
        return answer

    def followup(self, interaction: Interaction, body: JSON, uploads: list[Upload]) -> Message:
        channel = self.channels[interaction.channel_id]
        original = (
            self.messages.get(interaction.original_message_id)
            if interaction.original_message_id is not None
            else None
        )
        if (
            interaction.callback_type is CallbackType.DEFERRED_CHANNEL_MESSAGE
            and original is not None
            and original.loading
            and not interaction.followup_ids
        ):
            # Discord turns the first follow-up after a "thinking" defer into the original.
            edit = {k: v for k, v in body.items() if k != "flags"}
            edit.setdefault("content", "")
            self.edit_message(original, edit, uploads)
            interaction.followup_ids.append(original.id)
            return original
        ephemeral = bool(int(body.get("flags") or 0) & MessageFlag.EPHEMERAL)
        msg = self.bot_message(
            channel,
            body,
            uploads,
            ephemeral_for=interaction.user_id if ephemeral else None,
            interaction=self._meta(interaction),
        )
        interaction.followup_ids.append(msg.id)
        return msg

    def interaction_message(self, interaction: Interaction, message_id: str) -> Message:
        if message_id == "@original":
            if interaction.original_message_id is None:
                raise unknown("Message", 10008)
            target = interaction.original_message_id
        else:
            try:
                target = int(message_id)
            except ValueError:
                raise unknown("Message", 10008) from None
            if target not in interaction.followup_ids and target != interaction.original_message_id:
                raise unknown("Message", 10008)
        msg = self.messages.get(target)
        if msg is None or msg.deleted:
            raise unknown("Message", 10008)
        return msg
