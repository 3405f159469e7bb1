"""The REST API (v10 subset): routing, auth, rate-limit headers, injected faults, handlers."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import BodyPartReader, web

from sandbox.contract import Contract
from sandbox.errors import ApiError, unknown
from sandbox.faults import Fault, FaultInjector, RateLimiter, RequestRecord
from sandbox.models import JSON, Channel, ChannelType, Message
from sandbox.state import SandboxState, Upload

log = logging.getLogger(__name__)

Handler = Callable[["Call"], Awaitable[Any]]
_PAYLOAD = web.RequestKey("sandbox.payload", object)
_INJECTED = web.RequestKey("sandbox.injected", bool)
_MAJOR = ("channel_id", "guild_id", "application_id", "interaction_id", "token")


@dataclass(slots=True)
class Call:
    """One routed request: its parameters, JSON body and uploaded files."""

    request: web.Request
    params: dict[str, str]
    body: Any
    uploads: list[Upload]

    def json(self) -> JSON:
        return self.body if isinstance(self.body, dict) else {}


@dataclass(frozen=True, slots=True)
class Created:
    """A handler's answer for a new resource: Discord says 201 Created for those."""

    body: JSON


@dataclass(frozen=True, slots=True)
class _Route:
    method: str
    template: str
    pattern: re.Pattern[str]
    handler: Handler
    auth: bool

    @property
    def key(self) -> str:
        return f"{self.method} {self.template}"


async def read_body(request: web.Request) -> tuple[Any, list[Upload]]:
    """JSON bodies, or multipart with payload_json and files[n] as discord.py sends them."""
    if request.content_type.startswith("multipart/"):
        payload: Any = {}
        files: dict[str, tuple[str, bytes, str | None]] = {}
        reader = await request.multipart()
        while True:
            part = await reader.next()
            if part is None:
                break
            if not isinstance(part, BodyPartReader):
                continue
            raw = await part.read(decode=True)
            if part.name == "payload_json":
                payload = json.loads(raw)
            elif part.name is not None:
                content_type = part.headers.get("Content-Type")
                files[part.name] = (part.filename or part.name, bytes(raw), content_type)
        described: dict[int, JSON] = {}
        for item in payload.get("attachments") or [] if isinstance(payload, dict) else []:
            if "filename" in item:
                described[int(item["id"])] = item
        uploads = []
        for name, (filename, data, content_type) in files.items():
            match = re.fullmatch(r"files\[(\d+)\]", name)
            index = int(match.group(1)) if match else -1
            meta = described.get(index, {})
            uploads.append(
                Upload(
                    filename=str(meta.get("filename") or filename),
                    data=data,
                    description=meta.get("description"),
                    content_type=(
                        content_type
                        if content_type and content_type != "application/octet-stream"
                        else None
                    ),
                )
            )
        return payload, uploads
    raw_text = await request.text()
    if not raw_text:
        return {}, []
    try:
        return json.loads(raw_text), []
    except ValueError:
        raise ApiError(400, 50109, "The request body contains invalid JSON.") from None


def _json(data: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    # discord.py only parses bodies whose content-type is exactly "application/json".
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        headers={**(headers or {}), "Content-Type": "application/json"},
    )


class RestApi:
    def __init__(
        self,
        state: SandboxState,
        faults: FaultInjector,
        limiter: RateLimiter,
        *,
        gateway_url: Callable[[], str],
        attachment_dir: Path | None,
        contract: Contract | None = None,
    ) -> None:
        self.state = state
        self.faults = faults
        self.limiter = limiter
        self.requests: list[RequestRecord] = []
        self.contract = contract
        self._gateway_url = gateway_url
        self._attachment_dir = attachment_dir
        self._routes: list[_Route] = []
        self._register()

    # plumbing

    def _add(self, method: str, template: str, handler: Handler, *, auth: bool = True) -> None:
        regex = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", template)
        self._routes.append(_Route(method, template, re.compile(regex + "/?"), handler, auth))

    def route_keys(self) -> list[str]:
        return [route.key for route in self._routes]

    def _match(self, method: str, path: str) -> tuple[_Route, dict[str, str]] | None:
        found_path = False
        for route in self._routes:
            match = route.pattern.fullmatch(path)
            if match is None:
                continue
            found_path = True
            if route.method == method:
                return route, match.groupdict()
        if found_path:
            raise ApiError(405, 0, "405: Method Not Allowed")
        return None

    async def handle(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["tail"]
        method = request.method
        status, response = await self._answer(request, method, path)
        self.requests.append(RequestRecord(method, path, status))
        if self.contract is not None:
            await self._check(request, method, path, status, response)
        return response

    async def _check(
        self, request: web.Request, method: str, path: str, status: int, response: web.Response
    ) -> None:
        content_type = request.content_type
        if content_type.startswith("multipart/"):
            # Discord reads `payload_json` as the JSON body; files are described in it.
            if _PAYLOAD not in request:
                request[_PAYLOAD] = (await read_body(request))[0]
            body: bytes | None = json.dumps(request[_PAYLOAD]).encode()
            content_type = "application/json"
        else:
            body = await request.read() or None
        assert self.contract is not None
        self.contract.check(
            method=method,
            path=path,
            query=request.query.items(),
            headers=request.headers.items(),
            content_type=content_type if body is not None else "",
            body=body,
            status=status,
            response_headers=response.headers,
            response_body=bytes(response.body or b"") if isinstance(response.body, bytes) else b"",
            injected=request.get(_INJECTED, False),
        )

    async def _answer(
        self, request: web.Request, method: str, path: str
    ) -> tuple[int, web.Response]:
        base_headers = {"Via": "1.1 google"}
        try:
            found = self._match(method, path)
        except ApiError as exc:
            return exc.status, _json(exc.body(), status=exc.status, headers=base_headers)
        if found is None:
            body = {"message": "404: Not Found", "code": 0}
            return 404, _json(body, status=404, headers=base_headers)
        route, params = found
        if route.auth and not self.state.token_ok(request.headers.get("Authorization", "")):
            body = {"message": "401: Unauthorized", "code": 0}
            return 401, _json(body, status=401, headers=base_headers)
        major = "+".join(params[k] for k in _MAJOR if k in params)
        limit = self.limiter.hit(route.key, major)
        headers = {**base_headers, **limit.headers()}
        fault = self.faults.take(method, path)
        if fault is None and not limit.allowed:
            retry = limit.reset_after
            return 429, self._too_many(headers, retry, is_global=False)
        if fault is not None and fault.status == 429:
            return 429, self._too_many(headers, fault.retry_after, is_global=fault.is_global)
        if fault is not None:
            request[_INJECTED] = True
        if fault is not None and not fault.lost_reply:
            return fault.status, self._injected(fault, headers)
        try:
            payload, uploads = await read_body(request)
            request[_PAYLOAD] = payload
            result = await route.handler(Call(request, params, payload, uploads))
        except ApiError as exc:
            return exc.status, _json(exc.body(), status=exc.status, headers=headers)
        if fault is not None:
            return fault.status, self._injected(fault, headers)
        if result is None:
            return 204, web.Response(status=204, headers=headers)
        if isinstance(result, Created):
            return 201, _json(result.body, status=201, headers=headers)
        return 200, _json(result, headers=headers)

    @staticmethod
    def _injected(fault: Fault, headers: dict[str, str]) -> web.Response:
        body = {"message": f"{fault.status}: Injected failure", "code": 0}
        return _json(body, status=fault.status, headers=headers)

    @staticmethod
    def _too_many(headers: dict[str, str], retry_after: float, *, is_global: bool) -> web.Response:
        headers = {
            **headers,
            "Retry-After": f"{retry_after:.3f}",
            "X-RateLimit-Scope": "global" if is_global else "user",
            "X-RateLimit-Remaining": "0",
        }
        if is_global:
            headers["X-RateLimit-Global"] = "true"
        body = {
            "message": "You are being rate limited.",
            "retry_after": retry_after,
            "global": is_global,
            "code": 0,
        }
        return _json(body, status=429, headers=headers)

    async def attachment(self, request: web.Request) -> web.StreamResponse:
        try:
            attachment_id = int(request.match_info["attachment_id"])
            channel_id = int(request.match_info["channel_id"])
        except ValueError:
            raise web.HTTPNotFound() from None
        found = self.state.loose_attachments.get(attachment_id)
        for msg_id in self.state.channel_messages.get(channel_id, []):
            for item in self.state.messages[msg_id].attachments:
                if item.id == attachment_id:
                    found = item
        if found is None:
            raise web.HTTPNotFound()
        content_type = found.content_type or "application/octet-stream"
        return web.Response(body=found.data, content_type=content_type)

    def _save(self, msg: Message) -> None:
        if self._attachment_dir is None or not msg.attachments:
            return
        self._attachment_dir.mkdir(parents=True, exist_ok=True)
        for item in msg.attachments:
            (self._attachment_dir / f"{item.id}-{item.filename}").write_bytes(item.data)

    # routes

    def _register(self) -> None:
        a = self._add
        a("GET", "/gateway", self.get_gateway)
        a("GET", "/gateway/bot", self.get_gateway_bot)
        a("GET", "/users/@me", self.get_me)
        a("POST", "/users/@me/channels", self.create_dm)
        a("GET", "/users/{user_id}", self.get_user)
        a("GET", "/oauth2/applications/@me", self.get_application)
        a("GET", "/applications/@me", self.get_application)
        for prefix in (
            "/applications/{application_id}",
            "/applications/{application_id}/guilds/{guild_id}",
        ):
            a("GET", prefix + "/commands", self.get_commands)
            a("PUT", prefix + "/commands", self.put_commands)
            a("POST", prefix + "/commands", self.post_command)
            a("GET", prefix + "/commands/{command_id}", self.get_command)
            a("DELETE", prefix + "/commands/{command_id}", self.delete_command)
        a("GET", "/guilds/{guild_id}", self.get_guild)
        a("GET", "/guilds/{guild_id}/channels", self.get_guild_channels)
        a("POST", "/guilds/{guild_id}/channels", self.create_guild_channel)
        a("GET", "/guilds/{guild_id}/members", self.get_members)
        a("GET", "/guilds/{guild_id}/members/{user_id}", self.get_member)
        a("GET", "/guilds/{guild_id}/roles", self.get_roles)
        a("GET", "/guilds/{guild_id}/threads/active", self.get_active_threads)
        a("GET", "/channels/{channel_id}", self.get_channel)
        a("PATCH", "/channels/{channel_id}", self.patch_channel)
        a("GET", "/channels/{channel_id}/messages", self.get_messages)
        a("POST", "/channels/{channel_id}/messages", self.post_message)
        a("GET", "/channels/{channel_id}/messages/{message_id}", self.get_message)
        a("PATCH", "/channels/{channel_id}/messages/{message_id}", self.patch_message)
        a("DELETE", "/channels/{channel_id}/messages/{message_id}", self.delete_message)
        a("POST", "/channels/{channel_id}/typing", self.typing)
        a("POST", "/channels/{channel_id}/messages/{message_id}/threads", self.thread_from_message)
        a("POST", "/channels/{channel_id}/threads", self.thread_without_message)
        a("GET", "/channels/{channel_id}/thread-members", self.get_thread_members)
        a("GET", "/channels/{channel_id}/thread-members/{user_id}", self.get_thread_member)
        a("PUT", "/channels/{channel_id}/thread-members/{user_id}", self.add_thread_member)
        a("DELETE", "/channels/{channel_id}/thread-members/{user_id}", self.remove_thread_member)
        a(
            "POST",
            "/interactions/{interaction_id}/{token}/callback",
            self.interaction_callback,
            auth=False,
        )
        a("POST", "/webhooks/{application_id}/{token}", self.execute_webhook, auth=False)
        for method, handler in (
            ("GET", self.get_webhook_message),
            ("PATCH", self.patch_webhook_message),
            ("DELETE", self.delete_webhook_message),
        ):
            a(
                method,
                "/webhooks/{application_id}/{token}/messages/{message_id}",
                handler,
                auth=False,
            )

    # gateway, users, application

    async def get_gateway(self, call: Call) -> JSON:
        return {"url": self._gateway_url()}

    async def get_gateway_bot(self, call: Call) -> JSON:
        return {
            "url": self._gateway_url(),
            "shards": 1,
            "session_start_limit": {
                "total": 1000,
                "remaining": 1000,
                "reset_after": 0,
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

    # guilds

    async def get_guild(self, call: Call) -> JSON:
        guild = self.state.guild(call.params["guild_id"])
        payload = self.state.guild_payload(guild)
        for key in ("members", "channels", "threads", "presences", "voice_states"):
            payload.pop(key)
        payload["approximate_member_count"] = len(guild.members)
        return payload

    async def get_guild_channels(self, call: Call) -> list[JSON]:
        guild = self.state.guild(call.params["guild_id"])
        return [self.state.channel_payload(self.state.channels[c]) for c in guild.channel_ids]

    async def create_guild_channel(self, call: Call) -> Created:
        guild = self.state.guild(call.params["guild_id"])
        body = call.json()
        if int(body.get("type") or 0) != ChannelType.TEXT or not body.get("name"):
            raise ApiError(400, 50035, "Invalid Form Body")
        channel = self.state.create_channel(guild, str(body["name"]), topic=body.get("topic"))
        return Created(self.state.channel_payload(channel))

    async def get_members(self, call: Call) -> list[JSON]:
        guild = self.state.guild(call.params["guild_id"])
        limit = int(call.request.query.get("limit", "1"))
        after = int(call.request.query.get("after", "0"))
        ids = sorted(uid for uid in guild.members if uid > after)[:limit]
        return [self.state.member_payload(guild, uid) for uid in ids]

    async def get_member(self, call: Call) -> JSON:
        guild = self.state.guild(call.params["guild_id"])
        user = self.state.user(call.params["user_id"])
        if user.id not in guild.members:
            raise unknown("Member", 10007)
        return self.state.member_payload(guild, user.id)

    async def get_roles(self, call: Call) -> list[JSON]:
        guild = self.state.guild(call.params["guild_id"])
        return [r.payload() for r in guild.roles.values()]

    async def get_active_threads(self, call: Call) -> JSON:
        guild = self.state.guild(call.params["guild_id"])
        threads = [
            c
            for c in self.state.channels.values()
            if c.is_thread and c.guild_id == guild.id and not c.archived
        ]
        bot_id = self.state.bot.id
        return {
            "threads": [self.state.channel_payload(t) for t in threads],
            "members": [
                self.state.thread_member_payload(t, bot_id)
                for t in threads
                if bot_id in t.member_ids
            ],
        }

    # channels and messages

    def _channel(self, call: Call) -> Channel:
        return self.state.channel(call.params["channel_id"])

    async def get_channel(self, call: Call) -> JSON:
        return self.state.channel_payload(self._channel(call))

    async def patch_channel(self, call: Call) -> JSON:
        channel = self._channel(call)
        if channel.type is ChannelType.DM:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        return self.state.channel_payload(self.state.update_channel(channel, call.json()))

    async def get_messages(self, call: Call) -> list[JSON]:
        channel = self._channel(call)
        query = call.request.query
        limit = max(1, min(100, int(query.get("limit", "50"))))
        history = [m for m in self.state.channel_history(channel.id) if not m.ephemeral]
        if "before" in query:
            history = [m for m in history if m.id < int(query["before"])]
        if "after" in query:
            history = [m for m in history if m.id > int(query["after"])][:limit]
        if "around" in query:
            around = int(query["around"])
            older = [m for m in history if m.id <= around][-(limit // 2 + 1) :]
            newer = [m for m in history if m.id > around][: limit - len(older)]
            history = older + newer
        selected = history[-limit:]
        return [self.state.message_payload(m) for m in reversed(selected)]

    async def get_message(self, call: Call) -> JSON:
        msg = self.state.message(call.params["channel_id"], call.params["message_id"])
        if msg.ephemeral:
            raise unknown("Message", 10008)
        return self.state.message_payload(msg)

    async def post_message(self, call: Call) -> JSON:
        channel = self._channel(call)
        msg = self.state.bot_message(channel, call.json(), call.uploads)
        self._save(msg)
        return self.state.message_payload(msg)

    async def patch_message(self, call: Call) -> JSON:
        msg = self.state.message(call.params["channel_id"], call.params["message_id"])
        if msg.ephemeral:
            raise unknown("Message", 10008)
        if msg.author_id != self.state.bot.id:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        self.state.edit_message(msg, call.json(), call.uploads)
        self._save(msg)
        return self.state.message_payload(msg)

    async def delete_message(self, call: Call) -> None:
        msg = self.state.message(call.params["channel_id"], call.params["message_id"])
        if msg.ephemeral:
            raise unknown("Message", 10008)
        self.state.delete_message(msg)

    async def typing(self, call: Call) -> None:
        self._channel(call)

    # threads

    async def thread_from_message(self, call: Call) -> Created:
        channel = self._channel(call)
        msg = self.state.message(channel.id, call.params["message_id"])
        if msg.ephemeral:
            raise unknown("Message", 10008)
        body = call.json()
        thread = self.state.create_thread(
            channel,
            str(body.get("name", "")),
            owner=self.state.bot,
            private=False,
            from_message=msg,
            auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
        )
        return Created(self.state.channel_payload(thread))

    async def thread_without_message(self, call: Call) -> Created:
        channel = self._channel(call)
        body = call.json()
        kind = int(body.get("type") or ChannelType.PRIVATE_THREAD)
        if kind not in (ChannelType.PUBLIC_THREAD, ChannelType.PRIVATE_THREAD):
            raise ApiError(400, 50035, "Invalid Form Body")
        thread = self.state.create_thread(
            channel,
            str(body.get("name", "")),
            owner=self.state.bot,
            private=kind == ChannelType.PRIVATE_THREAD,
            auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
            invitable=bool(body.get("invitable", True)),
        )
        return Created(self.state.channel_payload(thread))

    def _thread_and_user(self, call: Call) -> tuple[Channel, int]:
        thread = self._channel(call)
        if not thread.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        raw = call.params["user_id"]
        user_id = self.state.bot.id if raw == "@me" else self.state.user(raw).id
        return thread, user_id

    async def get_thread_members(self, call: Call) -> list[JSON]:
        thread = self._channel(call)
        if not thread.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        return [self.state.thread_member_payload(thread, uid) for uid in thread.member_ids]

    async def get_thread_member(self, call: Call) -> JSON:
        thread, user_id = self._thread_and_user(call)
        if user_id not in thread.member_ids:
            raise unknown("Member", 10007)
        return self.state.thread_member_payload(thread, user_id)

    async def add_thread_member(self, call: Call) -> None:
        thread, user_id = self._thread_and_user(call)
        self.state.add_thread_member(thread, self.state.users[user_id])

    async def remove_thread_member(self, call: Call) -> None:
        thread, user_id = self._thread_and_user(call)
        self.state.remove_thread_member(thread, self.state.users[user_id])

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
