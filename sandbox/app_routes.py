"""The REST routes of the application itself: gateway, users, commands and interactions.

`ApplicationRoutes` is a mixin of RestApi: handlers for the bot's identity, its commands, and the
answers and follow-ups it gives to interactions (which need no channel permission).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sandbox.calls import Call, Created
from sandbox.errors import ApiError, unknown
from sandbox.models import JSON, Message
from sandbox.state import SandboxState

SESSION_STARTS = 1000
DAY_MS = 24 * 60 * 60 * 1000


class ApplicationRoutes:
    state: SandboxState
    _gateway_url: Callable[[], str]

    if TYPE_CHECKING:

        def _save(self, msg: Message) -> None: ...

    # gateway, users, application

    async def get_gateway(self, call: Call) -> JSON:
        return {"url": self._gateway_url()}

    async def get_gateway_bot(self, call: Call) -> JSON:
        # Each IDENTIFY uses one of the day's session starts, as on Discord.
        used = self.state.gateway.identify_count
        return {
            "url": self._gateway_url(),
            "shards": self.state.recommended_shards,
            "session_start_limit": {
                "total": SESSION_STARTS,
                "remaining": max(0, SESSION_STARTS - used),
                "reset_after": DAY_MS if used else 0,
                "max_concurrency": 1,
            },
        }

    async def get_me(self, call: Call) -> JSON:
        return {
            **self.state.bot.payload(),
            "verified": True,
            "mfa_enabled": False,
            "locale": "en-US",
        }

    async def get_user(self, call: Call) -> JSON:
        return self.state.user(call.params["user_id"]).payload()

    async def create_dm(self, call: Call) -> JSON:
        user = self.state.user(call.json().get("recipient_id", ""))
        return self.state.channel_payload(self.state.dm_channel(user))

    async def get_application(self, call: Call) -> JSON:
        owner = next(
            (self.state.users[g.owner_id] for g in self.state.guilds.values()),
            self.state.bot,
        )
        return {
            "id": str(self.state.application_id),
            "name": self.state.bot.name,
            "icon": None,
            "description": "",
            "rpc_origins": [],
            "bot_public": True,
            "bot_require_code_grant": False,
            "bot": self.state.bot.payload(),
            "owner": owner.payload(),
            "team": None,
            "verify_key": "0" * 64,
            "flags": 0,
            "tags": [],
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "role_connections_verification_url": None,
            "type": None,
            "flags_new": "0",
            "approximate_guild_count": len(self.state.guilds),
            "approximate_user_install_count": 0,
            "approximate_user_authorization_count": 0,
            "explicit_content_filter": 0,
            "eligible_oauth2_scopes": ["bot", "applications.commands"],
        }

    # commands

    def _command_scope(self, call: Call) -> int | None:
        if call.params["application_id"] != str(self.state.application_id):
            raise ApiError(403, 50001, "Missing Access")
        if "guild_id" in call.params:
            return self.state.guild(call.params["guild_id"]).id
        return None

    async def get_commands(self, call: Call) -> list[JSON]:
        scope = self._command_scope(call)
        return [c.payload() for c in self.state.commands_for(scope)]

    async def put_commands(self, call: Call) -> list[JSON]:
        scope = self._command_scope(call)
        if not isinstance(call.body, list):
            raise ApiError(400, 50035, "Invalid Form Body")
        _validate_commands(call.body)
        return [c.payload() for c in self.state.set_commands(scope, call.body)]

    async def post_command(self, call: Call) -> JSON | Created:
        scope = self._command_scope(call)
        _validate_commands([call.json()])
        body = call.json()
        kind = int(body.get("type") or 1)
        is_new = all(
            (c.name, c.type) != (body["name"], kind) for c in self.state.commands_for(scope)
        )
        payload = self.state.upsert_command(scope, body).payload()
        return Created(payload) if is_new else payload

    def _command(self, call: Call) -> int:
        scope = self._command_scope(call)
        try:
            command = self.state.commands[int(call.params["command_id"])]
        except (KeyError, ValueError):
            raise unknown("application command", 10063) from None
        if command.guild_id != scope:
            raise unknown("application command", 10063)
        return command.id

    async def get_command(self, call: Call) -> JSON:
        return self.state.commands[self._command(call)].payload()

    async def delete_command(self, call: Call) -> None:
        del self.state.commands[self._command(call)]

    # interactions and their webhooks

    async def interaction_callback(self, call: Call) -> JSON | None:
        interaction = self.state.interaction_by_id(
            call.params["interaction_id"], call.params["token"]
        )
        answer = self.state.interaction_callback(interaction, call.json(), call.uploads)
        if interaction.original_message_id is not None:
            self._save(self.state.messages[interaction.original_message_id])
        with_response = call.request.query.get("with_response", "false").lower()
        return answer if with_response in ("1", "true") else None

    async def execute_webhook(self, call: Call) -> JSON | None:
        interaction = self.state.interaction_by_token(
            call.params["application_id"], call.params["token"]
        )
        msg = self.state.followup(interaction, call.json(), call.uploads)
        self._save(msg)
        wait = call.request.query.get("wait", "false").lower() in ("1", "true")
        return self.state.message_payload(msg) if wait else None

    def _webhook_message(self, call: Call) -> Message:
        interaction = self.state.interaction_by_token(
            call.params["application_id"], call.params["token"]
        )
        return self.state.interaction_message(interaction, call.params["message_id"])

    async def get_webhook_message(self, call: Call) -> JSON:
        return self.state.message_payload(self._webhook_message(call))

    async def patch_webhook_message(self, call: Call) -> JSON:
        msg = self._webhook_message(call)
        self.state.edit_message(msg, call.json(), call.uploads)
        self._save(msg)
        return self.state.message_payload(msg)

    async def delete_webhook_message(self, call: Call) -> None:
        self.state.delete_message(self._webhook_message(call))


_NAME = re.compile(r"^[-_\w]{1,32}$")


def _validate_commands(payloads: list[Any]) -> None:
    names: set[tuple[str, int]] = set()
    for index, data in enumerate(payloads):
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise ApiError(400, 50035, "Invalid Form Body")
        kind = int(data.get("type", 1))
        key = (data["name"], kind)
        if key in names:
            raise ApiError(400, 50035, f"Invalid Form Body: duplicate command {data['name']!r}")
        names.add(key)
        if kind == 1:
            _validate_options(str(index), data)
    if len(payloads) > 100:
        raise ApiError(400, 30032, "Maximum number of application commands reached (100)")


def _validate_options(where: str, data: JSON) -> None:
    name = str(data.get("name", ""))
    if not _NAME.match(name) or name.lower() != name:
        raise ApiError(400, 50035, f"Invalid Form Body: {where}.name {name!r}")
    description = str(data.get("description", ""))
    if not 1 <= len(description) <= 100:
        raise ApiError(400, 50035, f"Invalid Form Body: {where}.description of {name!r}")
    options = data.get("options") or []
    if len(options) > 25:
        raise ApiError(400, 50035, f"Invalid Form Body: {where}.options has more than 25")
    for o_index, option in enumerate(options):
        _validate_options(f"{where}.options.{o_index}", option)
        if len(option.get("choices") or []) > 25:
            raise ApiError(400, 50035, f"Invalid Form Body: {where}.options.{o_index}.choices")
