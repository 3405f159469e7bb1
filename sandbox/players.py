"""Scripted players: people who use slash commands, buttons, selects, modals and DMs."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from sandbox.errors import InteractionFailedError, PlayerError
from sandbox.models import (
    JSON,
    Channel,
    Interaction,
    InteractionType,
    Message,
    Permission,
    Role,
    User,
)
from sandbox.results import DEFAULT_TIMEOUT, InteractionResult, Modal, walk_components
from sandbox.state import SandboxState, Upload

if TYPE_CHECKING:
    from sandbox.server import Sandbox

_ACK_GRACE = 0.5
_SELECT_TYPES = frozenset({3, 5, 6, 7, 8})


class ScriptedPlayer:
    """A user who drives the bot as a person would through the Discord client."""

    def __init__(self, sandbox: Sandbox, user: User, *, channel: Channel | None = None) -> None:
        self.sandbox = sandbox
        self.state: SandboxState = sandbox.state
        self.user = user
        self.channel = channel
        self.modals: list[Modal] = []
        self._cursors: dict[int, int] = {}

    @property
    def id(self) -> int:
        return self.user.id

    @property
    def mention(self) -> str:
        return self.user.mention

    @property
    def dm(self) -> Channel:
        return self.state.dm_channel(self.user)

    def _where(self, channel: Channel | None) -> Channel:
        where = channel or self.channel
        if where is None:
            raise PlayerError(f"{self.user.name} has no channel; pass channel=")
        if not self.state.can_view_channel(self.user.id, where):
            raise PlayerError(f"{self.user.name} cannot see channel {where.name or where.id}")
        return where

    async def _run(
        self,
        channel: Channel,
        kind: InteractionType,
        data: JSON,
        *,
        command_name: str | None = None,
        source: Message | None = None,
        trigger: Interaction | None = None,
    ) -> InteractionResult:
        interaction = self.state.start_interaction(
            self.user,
            channel,
            kind,
            data,
            command_name=command_name,
            source=source,
            trigger=trigger,
        )
        result = InteractionResult(self, interaction)
        timeout = self.state.ack_timeout + _ACK_GRACE
        try:
            await self.state.wait_for(
                lambda: interaction.is_acknowledged,
                timeout,
                "ack",
                channels=(interaction.channel_id,),
            )
        except PlayerError:
            raise InteractionFailedError(
                f"{self.user.name}: the bot did not acknowledge {command_name or data} "
                f"within {self.state.ack_timeout:.1f}s"
            ) from None
        modal = result.modal
        if modal is not None:
            self.modals.append(modal)
        return result

    # slash commands

    async def slash(
        self, path: str, /, *, in_channel: Channel | None = None, **options: Any
    ) -> InteractionResult:
        """Invoke ``/path`` ("match create") with options given by name.

        ``in_channel`` overrides the player's channel; it is not called ``channel`` so that a
        command may have an option of that name.
        """
        where = self._where(in_channel)
        data, name = self._command_data(path, where, options, focused=None)
        return await self._run(where, InteractionType.APPLICATION_COMMAND, data, command_name=name)

    async def autocomplete(
        self,
        path: str,
        focused: str,
        value: str,
        /,
        *,
        in_channel: Channel | None = None,
        **options: Any,
    ) -> list[JSON]:
        """Type ``value`` into option ``focused`` and return the choices the bot offers."""
        where = self._where(in_channel)
        data, name = self._command_data(path, where, {**options, focused: value}, focused=focused)
        result = await self._run(where, InteractionType.AUTOCOMPLETE, data, command_name=name)
        return result.choices

    def _command_data(
        self, path: str, channel: Channel, options: dict[str, Any], *, focused: str | None
    ) -> tuple[JSON, str]:
        parts = path.strip().lstrip("/").split()
        if not parts:
            raise PlayerError("empty command path")
        command = self.state.find_command(parts[0], channel.guild_id)
        if command is None:
            raise PlayerError(f"no command /{parts[0]} is registered where {self.user.name} is")
        self._check_command_permissions(command.data, channel, parts[0])
        data: JSON = {"id": str(command.id), "name": command.name, "type": 1, "options": []}
        if command.guild_id is not None:
            data["guild_id"] = str(command.guild_id)
        definitions: list[JSON] = list(command.data.get("options") or [])
        container: list[JSON] = data["options"]
        for part in parts[1:]:
            sub = next(
                (d for d in definitions if d.get("name") == part and d.get("type") in (1, 2)), None
            )
            if sub is None:
                raise PlayerError(f"/{path}: no subcommand {part!r}")
            node: JSON = {"type": sub["type"], "name": part, "options": []}
            container.append(node)
            container = node["options"]
            definitions = list(sub.get("options") or [])
        if any(d.get("type") in (1, 2) for d in definitions):
            raise PlayerError(f"/{path} is a group; name a subcommand")
        resolved: JSON = {}
        by_name = {str(d["name"]): d for d in definitions}
        for key, value in options.items():
            definition = by_name.get(key)
            if definition is None:
                raise PlayerError(f"/{path} has no option {key!r}")
            option: JSON = {"name": key, "type": definition["type"]}
            if key == focused:
                option["value"] = str(value)
                option["focused"] = True
            else:
                option["value"] = self._option_value(path, definition, value, channel, resolved)
            container.append(option)
        if focused is None:
            missing = [
                d["name"] for d in definitions if d.get("required") and d["name"] not in options
            ]
            if missing:
                raise PlayerError(f"/{path}: missing required option(s) {', '.join(missing)}")
        if resolved:
            data["resolved"] = resolved
        return data, " ".join(parts)

    def _check_command_permissions(self, data: JSON, channel: Channel, name: str) -> None:
        if channel.guild_id is None:
            contexts = data.get("contexts")
            if data.get("dm_permission") is False or (contexts is not None and 1 not in contexts):
                raise PlayerError(f"/{name} is not available in DMs")
            return
        required = data.get("default_member_permissions")
        if required is None:
            return
        guild = self.state.guilds[channel.guild_id]
        perms = guild.permissions_of(self.user.id)
        if int(required) & ~perms:
            raise PlayerError(f"{self.user.name} lacks the permissions to use /{name}")

    def _option_value(
        self, path: str, definition: JSON, value: Any, channel: Channel, resolved: JSON
    ) -> Any:
        kind = int(definition["type"])
        name = definition["name"]
        if kind == 3:
            out: Any = str(value)
        elif kind == 4:
            if isinstance(value, bool) or not isinstance(value, int):
                raise PlayerError(f"/{path} {name}: {value!r} is not an integer")
            out = value
        elif kind == 10:
            out = float(value)
        elif kind == 5:
            out = bool(value)
        elif kind in (6, 9) and isinstance(value, (User, ScriptedPlayer)):
            user = value.user if isinstance(value, ScriptedPlayer) else value
            self._resolve_user(user, channel, resolved)
            return str(user.id)
        elif kind in (8, 9) and isinstance(value, Role):
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            return str(value.id)
        elif kind == 7 and isinstance(value, Channel):
            allowed = definition.get("channel_types")
            if allowed and int(value.type) not in allowed:
                raise PlayerError(f"/{path} {name}: channel type {value.type.name} not allowed")
            guild = self.state.guilds[channel.guild_id or 0]
            payload = self.state.channel_payload(value)
            payload["permissions"] = str(guild.permissions_of(self.user.id))
            resolved.setdefault("channels", {})[str(value.id)] = payload
            return str(value.id)
        elif kind == 11 and isinstance(value, Upload):
            attachment = self.state.make_attachments([value])[0]
            self.state.loose_attachments[attachment.id] = attachment
            resolved.setdefault("attachments", {})[str(attachment.id)] = attachment.payload(
                self.state.base_url, channel.id
            )
            return str(attachment.id)
        else:
            raise PlayerError(f"/{path} {name}: cannot pass {value!r} as option type {kind}")
        choices = definition.get("choices")
        if choices:
            for choice in choices:
                if out in (choice["value"], choice["name"]):
                    return choice["value"]
            raise PlayerError(f"/{path} {name}: {value!r} is not one of the choices")
        low, high = definition.get("min_value"), definition.get("max_value")
        if kind in (4, 10) and (
            (low is not None and out < low) or (high is not None and out > high)
        ):
            raise PlayerError(f"/{path} {name}: {out} is out of range")
        if kind == 3:
            low_len = definition.get("min_length", 0)
            high_len = definition.get("max_length", 6000)
            if not low_len <= len(out) <= high_len:
                raise PlayerError(f"/{path} {name}: length of {out!r} is out of range")
        return out

    def _resolve_user(self, user: User, channel: Channel, resolved: JSON) -> None:
        resolved.setdefault("users", {})[str(user.id)] = user.payload()
        guild = self.state.guilds.get(channel.guild_id or 0)
        if guild is not None and user.id in guild.members:
            member = self.state.member_payload(guild, user.id, permissions=True)
            member.pop("user")
            resolved.setdefault("members", {})[str(user.id)] = member

    # components

    def _component(self, message: Message, predicate: Callable[[JSON], bool], what: str) -> JSON:
        if not self.state.can_see(self.user.id, message):
            raise PlayerError(f"{self.user.name} cannot see message {message.id}")
        current = self.state.messages[message.id]
        for component in walk_components(current.components):
            if predicate(component):
                if component.get("disabled"):
                    raise PlayerError(f"{what} is disabled")
                return component
        raise PlayerError(f"no {what} on message {message.id}")

    async def click(
        self, message: Message, label: str | None = None, *, custom_id: str | None = None
    ) -> InteractionResult:
        """Click the button with this label (or custom_id) on ``message``."""
        if label is None and custom_id is None:
            raise PlayerError("click needs a label or a custom_id")

        def matches(c: JSON) -> bool:
            return c.get("type") == 2 and (
                (label is not None and c.get("label") == label)
                or (custom_id is not None and c.get("custom_id") == custom_id)
            )

        button = self._component(message, matches, f"button {label or custom_id!r}")
        if "custom_id" not in button:
            raise PlayerError(f"button {label or custom_id!r} is a link, not an interaction")
        data = {"custom_id": button["custom_id"], "component_type": 2}
        if "id" in button:
            data["id"] = button["id"]
        channel = self.state.channels[message.channel_id]
        return await self._run(channel, InteractionType.MESSAGE_COMPONENT, data, source=message)

    async def select(
        self,
        message: Message,
        values: Iterable[Any],
        *,
        custom_id: str | None = None,
        placeholder: str | None = None,
    ) -> InteractionResult:
        """Pick ``values`` (option values or labels, or users for a user select)."""

        def matches(c: JSON) -> bool:
            if c.get("type") not in _SELECT_TYPES:
                return False
            if custom_id is not None:
                return bool(c.get("custom_id") == custom_id)
            if placeholder is not None:
                return bool(c.get("placeholder") == placeholder)
            return True

        menu = self._component(message, matches, f"select {custom_id or placeholder or ''}".strip())
        channel = self.state.channels[message.channel_id]
        picked, resolved = self._select_values(menu, list(values), channel)
        data: JSON = {
            "custom_id": menu["custom_id"],
            "component_type": menu["type"],
            "values": picked,
        }
        if resolved:
            data["resolved"] = resolved
        return await self._run(channel, InteractionType.MESSAGE_COMPONENT, data, source=message)

    def _select_values(
        self, menu: JSON, values: list[Any], channel: Channel
    ) -> tuple[list[str], JSON]:
        low = int(menu.get("min_values", 1))
        high = int(menu.get("max_values", 1))
        if not low <= len(values) <= high:
            raise PlayerError(f"select {menu.get('custom_id')}: pick {low} to {high} values")
        resolved: JSON = {}
        picked: list[str] = []
        if menu["type"] == 3:
            options = menu.get("options") or []
            for value in values:
                option = next(
                    (o for o in options if value in (o.get("value"), o.get("label"))), None
                )
                if option is None:
                    raise PlayerError(f"select {menu.get('custom_id')}: no option {value!r}")
                picked.append(str(option["value"]))
            return picked, resolved
        for value in values:
            if isinstance(value, (User, ScriptedPlayer)):
                user = value.user if isinstance(value, ScriptedPlayer) else value
                self._resolve_user(user, channel, resolved)
                picked.append(str(user.id))
            elif isinstance(value, Channel):
                payload = self.state.channel_payload(value)
                payload["permissions"] = str(int(Permission.VIEW_CHANNEL))
                resolved.setdefault("channels", {})[str(value.id)] = payload
                picked.append(str(value.id))
            else:
                raise PlayerError(f"cannot pick {value!r} in a select of type {menu['type']}")
        return picked, resolved

    async def submit_modal(
        self, values: dict[str, Any], *, modal: Modal | None = None
    ) -> InteractionResult:
        """Fill the last opened modal (fields keyed by custom_id or label) and submit it."""
        if modal is None:
            if not self.modals:
                raise PlayerError(f"{self.user.name} has no open modal")
            modal = self.modals[-1]
        remaining = dict(values)
        components: list[JSON] = []
        for label, field in modal.inputs():
            cid = str(field["custom_id"])
            key = next((k for k in (cid, label, field.get("label")) if k in remaining), None)
            value = remaining.pop(key) if key is not None else None
            submitted = self._modal_field(field, value, label or cid)
            top_label = any(
                c.get("type") == 18 and c.get("component") is field
                for c in modal.data.get("components") or []
            )
            components.append(
                {"type": 18, "component": submitted}
                if top_label
                else {"type": 1, "components": [submitted]}
            )
        if remaining:
            raise PlayerError(f"modal {modal.custom_id!r} has no field(s) {sorted(remaining)}")
        if modal in self.modals:
            self.modals.remove(modal)
        opener = modal.opened_by
        source = (
            self.state.messages.get(opener.source_message_id)
            if opener.source_message_id is not None
            else None
        )
        channel = self.state.channels[opener.channel_id]
        data = {"custom_id": modal.custom_id, "components": components}
        return await self._run(
            channel, InteractionType.MODAL_SUBMIT, data, source=source, trigger=opener
        )

    @staticmethod
    def _modal_field(field: JSON, value: Any, name: str) -> JSON:
        kind = field.get("type")
        cid = field["custom_id"]
        if kind == 4:
            text = "" if value is None else str(value)
            required = field.get("required", True)
            if required and not text:
                raise PlayerError(f"modal field {name!r} is required")
            low, high = field.get("min_length", 0), field.get("max_length", 4000)
            if text and not low <= len(text) <= high:
                raise PlayerError(f"modal field {name!r} must be {low} to {high} characters")
            return {"type": 4, "custom_id": cid, "value": text}
        if kind in _SELECT_TYPES:
            picked = [] if value is None else list(value) if isinstance(value, list) else [value]
            options = field.get("options") or []
            out = []
            for item in picked:
                match = next((o for o in options if item in (o.get("value"), o.get("label"))), None)
                if match is None:
                    raise PlayerError(f"modal select {name!r} has no option {item!r}")
                out.append(match["value"])
            return {"type": kind, "custom_id": cid, "values": out}
        raise PlayerError(f"modal field {name!r} of type {kind} is not supported")

    # typing messages

    async def send(
        self,
        content: str,
        *,
        channel: Channel | None = None,
        files: Iterable[Upload] = (),
        reply_to: Message | None = None,
    ) -> Message:
        """Type a message into a channel or thread."""
        where = self._where(channel)
        return self.state.post_user_message(
            self.user, where, content, files=files, reply_to=reply_to
        )

    async def send_dm(self, content: str, *, files: Iterable[Upload] = ()) -> Message:
        """Type a direct message to the bot."""
        return self.state.post_user_message(self.user, self.dm, content, files=files)

    # reading

    def visible(self, channel: Channel | None = None) -> list[Message]:
        return self.state.visible_messages(self.user.id, self._where(channel))

    def dms(self) -> list[Message]:
        """The bot's messages in this player's DM, oldest first."""
        return [
            m
            for m in self.state.visible_messages(self.user.id, self.dm)
            if m.author_id != self.user.id
        ]

    async def wait_for_message(
        self,
        channel: Channel | None = None,
        *,
        predicate: Callable[[Message], bool] | None = None,
        after: Message | None = None,
        timeout: float = DEFAULT_TIMEOUT,  # noqa: ASYNC109
    ) -> Message:
        """The first bot message this player can see in ``channel`` matching ``predicate``."""
        where = channel or self.channel
        if where is None:
            raise PlayerError("wait_for_message needs a channel")
        floor = after.id if after is not None else 0

        def find() -> Message | None:
            for msg in self.state.visible_messages(self.user.id, where):
                is_new = msg.author_id == self.state.bot.id and msg.id > floor
                if is_new and not msg.loading and (predicate is None or predicate(msg)):
                    return msg
            return None

        found: Message = await self.state.wait_for(
            find,
            timeout,
            f"a bot message in {where.name or 'DM'} for {self.user.name}",
            channels=(where.id,),
        )
        return found

    async def next_message(
        self,
        channel: Channel | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,  # noqa: ASYNC109
    ) -> Message:
        """The next bot message in ``channel`` this player has not read yet via this method."""
        where = channel or self.channel
        if where is None:
            raise PlayerError("next_message needs a channel")
        floor = self._cursors.get(where.id, 0)

        def find() -> Message | None:
            for msg in self.state.visible_messages(self.user.id, where):
                if msg.author_id == self.state.bot.id and msg.id > floor and not msg.loading:
                    return msg
            return None

        found: Message = await self.state.wait_for(
            find,
            timeout,
            f"the next bot message in {where.name or 'DM'} for {self.user.name}",
            channels=(where.id,),
        )
        self._cursors[where.id] = found.id
        return found

    async def next_dm(self, *, timeout: float = DEFAULT_TIMEOUT) -> Message:  # noqa: ASYNC109
        return await self.next_message(self.dm, timeout=timeout)
