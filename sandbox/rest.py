"""The REST API (v10 subset): routing, auth, rate-limit headers, injected faults, handlers."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from sandbox.app_routes import ApplicationRoutes
from sandbox.calls import Call, Created, json_response, read_body
from sandbox.contract import Contract
from sandbox.errors import ApiError, unknown
from sandbox.faults import Fault, FaultInjector, RateLimiter, RequestRecord
from sandbox.models import JSON, Channel, ChannelType, Message, Permission
from sandbox.permissions import missing_permissions, require
from sandbox.state import SandboxState, Upload

log = logging.getLogger(__name__)

Handler = Callable[["Call"], Awaitable[Any]]
_PAYLOAD = web.RequestKey("sandbox.payload", object)
_INJECTED = web.RequestKey("sandbox.injected", bool)
_MAJOR = ("channel_id", "guild_id", "application_id", "interaction_id", "token")
# How long an enforced nonce is remembered; Discord says "the past few minutes".
NONCE_SECONDS = 300.0


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


class RestApi(ApplicationRoutes):
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
        # (channel, nonce) of the bot's messages posted with enforce_nonce: (message, when).
        self._nonces: dict[tuple[int, str], tuple[int, float]] = {}
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
        body: Any = None
        if content_type.startswith("multipart/"):
            # Discord reads `payload_json` as the JSON body; files are described in it.
            if _PAYLOAD not in request:
                request[_PAYLOAD] = (await read_body(request))[0]
            body, content_type = request[_PAYLOAD], "application/json"
        else:
            raw = await request.read()
            if raw:
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = raw.decode(errors="replace")
        answer: Any = None
        if isinstance(response.body, bytes) and response.body:
            answer = json.loads(response.body)
        assert self.contract is not None
        self.contract.check(
            method=method,
            path=path,
            query=request.query.items(),
            headers=request.headers,
            content_type=content_type,
            body=body,
            status=status,
            response_headers=response.headers,
            response_body=answer,
            injected=request.get(_INJECTED, False),
        )

    async def _answer(
        self, request: web.Request, method: str, path: str
    ) -> tuple[int, web.Response]:
        base_headers = {"Via": "1.1 google"}
        try:
            found = self._match(method, path)
        except ApiError as exc:
            return exc.status, json_response(exc.body(), status=exc.status, headers=base_headers)
        if found is None:
            body = {"message": "404: Not Found", "code": 0}
            return 404, json_response(body, status=404, headers=base_headers)
        route, params = found
        if route.auth and not self.state.token_ok(request.headers.get("Authorization", "")):
            body = {"message": "401: Unauthorized", "code": 0}
            return 401, json_response(body, status=401, headers=base_headers)
        # Interaction endpoints (no bot token) are not bound by the global limit.
        wait = self.limiter.hit_global() if route.auth else None
        if wait is not None:
            return 429, self._too_many(base_headers, wait, is_global=True)
        major = "+".join(params[k] for k in _MAJOR if k in params)
        limit = self.limiter.hit(route.key, major)
        headers = {**base_headers, **limit.headers()}
        fault = self.faults.take(method, path)
        if fault is None and not limit.allowed:
            retry = limit.reset_after
            return 429, self._too_many(headers, retry, is_global=False)
        if fault is not None and fault.status == 429 and not fault.lost_reply:
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
            return exc.status, json_response(exc.body(), status=exc.status, headers=headers)
        if fault is not None and fault.status == 429:
            return 429, self._too_many(headers, fault.retry_after, is_global=fault.is_global)
        if fault is not None:
            return fault.status, self._injected(fault, headers)
        if result is None:
            return 204, web.Response(status=204, headers=headers)
        if isinstance(result, Created):
            return 201, json_response(result.body, status=201, headers=headers)
        return 200, json_response(result, headers=headers)

    @staticmethod
    def _injected(fault: Fault, headers: dict[str, str]) -> web.Response:
        body = {"message": f"{fault.status}: Injected failure", "code": 0}
        return json_response(body, status=fault.status, headers=headers)

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
        return json_response(body, status=429, headers=headers)

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
        a("DELETE", "/channels/{channel_id}", self.delete_channel)
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

    # guilds

    async def get_guild(self, call: Call) -> JSON:
        guild = self.state.guild(call.params["guild_id"])
        payload = self.state.guild_payload(guild)
        for key in ("members", "channels", "threads", "presences", "voice_states"):
            payload.pop(key)
        payload["approximate_member_count"] = len(guild.members)
        payload.update(_GUILD_REST_FIELDS)
        return payload

    async def get_guild_channels(self, call: Call) -> list[JSON]:
        guild = self.state.guild(call.params["guild_id"])
        return [self.state.channel_payload(self.state.channels[c]) for c in guild.channel_ids]

    async def create_guild_channel(self, call: Call) -> Created:
        guild = self.state.guild(call.params["guild_id"])
        if not guild.permissions_of(self.state.bot.id) & Permission.MANAGE_CHANNELS:
            raise missing_permissions()
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
            "has_more": False,
        }

    # channels and messages

    def _channel(self, call: Call, *needed: Permission) -> Channel:
        """The channel, if the bot may see it and has ``needed`` there (Discord's 50001/50013)."""
        channel = self.state.channel(call.params["channel_id"])
        require(self.state.bot_permissions_in(channel), *needed)
        return channel

    def _can_send(self, channel: Channel, body: JSON, uploads: list[Upload]) -> None:
        needed = [
            Permission.SEND_MESSAGES_IN_THREADS if channel.is_thread else Permission.SEND_MESSAGES
        ]
        if body.get("embeds"):
            needed.append(Permission.EMBED_LINKS)
        if uploads:
            needed.append(Permission.ATTACH_FILES)
        if body.get("message_reference"):
            needed.append(Permission.READ_MESSAGE_HISTORY)
        require(self.state.bot_permissions_in(channel), *needed)

    async def get_channel(self, call: Call) -> JSON:
        return self.state.channel_payload(self._channel(call))

    async def patch_channel(self, call: Call) -> JSON:
        channel = self._channel(call)
        if channel.type is ChannelType.DM:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        self._may_edit(channel, call.json())
        return self.state.channel_payload(self.state.update_channel(channel, call.json()))

    async def delete_channel(self, call: Call) -> JSON:
        channel = self._channel(call)
        if channel.type is ChannelType.DM:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        manage = Permission.MANAGE_THREADS if channel.is_thread else Permission.MANAGE_CHANNELS
        require(self.state.bot_permissions_in(channel), manage)
        payload = self.state.channel_payload(channel)
        self.state.delete_channel(channel)
        return payload

    def _may_edit(self, channel: Channel, body: JSON) -> None:
        """Discord's rules for editing a channel: Manage Channels, or for a thread Manage
        Threads; a thread's creator may rename, archive and time it themselves, and anyone who
        may post there may unarchive an unlocked thread by posting or asking so."""
        perms = self.state.bot_permissions_in(channel)
        if not channel.is_thread:
            require(perms, Permission.MANAGE_CHANNELS)
            return
        if perms & Permission.MANAGE_THREADS:
            return
        changed = {k for k, v in body.items() if v is not None}
        if changed <= {"archived"} and body.get("archived") is False and not channel.locked:
            require(perms, Permission.SEND_MESSAGES_IN_THREADS)
            return
        own = channel.owner_id == self.state.bot.id
        if not own or not changed <= _OWNER_MAY_CHANGE:
            raise missing_permissions()

    async def get_messages(self, call: Call) -> list[JSON]:
        channel = self._channel(call)
        if not self.state.bot_permissions_in(channel) & Permission.READ_MESSAGE_HISTORY:
            return []  # Discord answers an empty history to a bot that may not read it
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
        self._channel(call, Permission.READ_MESSAGE_HISTORY)
        msg = self.state.message(call.params["channel_id"], call.params["message_id"])
        if msg.ephemeral:
            raise unknown("Message", 10008)
        return self.state.message_payload(msg)

    async def post_message(self, call: Call) -> JSON:
        channel = self._channel(call)
        body = call.json()
        earlier = self._by_nonce(channel, body)
        if earlier is not None:
            # Discord answers a repeated enforced nonce with the message it made the first time.
            return self.state.message_payload(earlier)
        self._can_send(channel, body, call.uploads)
        msg = self.state.bot_message(channel, body, call.uploads)
        self._save(msg)
        if body.get("enforce_nonce") and body.get("nonce") is not None:
            self._nonces[(channel.id, str(body["nonce"]))] = (msg.id, time.monotonic())
        return self.state.message_payload(msg)

    def _by_nonce(self, channel: Channel, body: JSON) -> Message | None:
        """The bot's message in ``channel`` posted with this enforced nonce a few minutes ago."""
        if not body.get("enforce_nonce") or body.get("nonce") is None:
            return None
        found = self._nonces.get((channel.id, str(body["nonce"])))
        if found is None or time.monotonic() - found[1] > NONCE_SECONDS:
            return None
        msg = self.state.messages.get(found[0])
        return None if msg is None or msg.deleted else msg

    async def patch_message(self, call: Call) -> JSON:
        self._channel(call)
        msg = self.state.message(call.params["channel_id"], call.params["message_id"])
        if msg.ephemeral:
            raise unknown("Message", 10008)
        if msg.author_id != self.state.bot.id:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        self.state.edit_message(msg, call.json(), call.uploads)
        self._save(msg)
        return self.state.message_payload(msg)

    async def delete_message(self, call: Call) -> None:
        channel = self._channel(call)
        msg = self.state.message(call.params["channel_id"], call.params["message_id"])
        if msg.ephemeral:
            raise unknown("Message", 10008)
        if msg.author_id != self.state.bot.id:
            require(self.state.bot_permissions_in(channel), Permission.MANAGE_MESSAGES)
        self.state.delete_message(msg)

    async def typing(self, call: Call) -> None:
        channel = self._channel(call)
        self._can_send(channel, {}, [])

    # threads

    async def thread_from_message(self, call: Call) -> Created:
        channel = self._channel(
            call, Permission.CREATE_PUBLIC_THREADS, Permission.READ_MESSAGE_HISTORY
        )
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
        require(
            self.state.bot_permissions_in(channel),
            Permission.CREATE_PUBLIC_THREADS
            if kind == ChannelType.PUBLIC_THREAD
            else Permission.CREATE_PRIVATE_THREADS,
        )
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
        if user_id != self.state.bot.id:
            # Adding someone needs what posting there needs, in a thread that is not archived.
            require(self.state.bot_permissions_in(thread), Permission.SEND_MESSAGES_IN_THREADS)
            if thread.archived:
                raise ApiError(400, 50083, "Thread is archived")
        self.state.add_thread_member(thread, self.state.users[user_id])

    async def remove_thread_member(self, call: Call) -> None:
        thread, user_id = self._thread_and_user(call)
        own_private = thread.type is ChannelType.PRIVATE_THREAD and (
            thread.owner_id == self.state.bot.id
        )
        if user_id != self.state.bot.id and not own_private:
            require(self.state.bot_permissions_in(thread), Permission.MANAGE_THREADS)
        self.state.remove_thread_member(thread, self.state.users[user_id])


# What REST's guild object adds to the gateway's (a small server with nothing configured).
_GUILD_REST_FIELDS: JSON = {
    "description": None,
    "home_header": None,
    "banner": None,
    "region": "deprecated",
    "widget_enabled": False,
    "widget_channel_id": None,
    "max_presences": None,
    "max_members": 250000,
    "max_stage_video_channel_users": 50,
    "max_video_channel_users": 25,
    "vanity_url_code": None,
    "safety_alerts_channel_id": None,
    "public_updates_channel_id": None,
    "nsfw": False,
    "incidents_data": None,
}
_OWNER_MAY_CHANGE = frozenset({"name", "archived", "auto_archive_duration"})
