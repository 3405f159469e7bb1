"""The Sandbox: an in-process Discord stand-in on 127.0.0.1, and its API for tests."""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from aiohttp import web

from sandbox.contract import TRAFFIC_DIR_ENV, Contract, contract_wanted
from sandbox.faults import GLOBAL_LIMIT, FaultInjector, RateLimiter, RequestRecord
from sandbox.gateway import Intent
from sandbox.models import Channel, Guild, Message, Role, User
from sandbox.permissions import INVITE_PERMISSIONS
from sandbox.rest import RestApi
from sandbox.state import SandboxState

if TYPE_CHECKING:
    from sandbox.players import ScriptedPlayer

log = logging.getLogger(__name__)

API_VERSION = 10
DEFAULT_TOKEN = "sandbox-bot-token"


class Sandbox:
    """A local server speaking the subset of Discord's REST API and gateway a bot uses.

    Use as ``async with Sandbox() as sandbox:``; it listens on an ephemeral port of 127.0.0.1.
    Point discord.py at ``sandbox.api_base`` and ``sandbox.gateway_url`` and log in with
    ``sandbox.token``.
    """

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_name: str = "Sandbox Bot",
        privileged_intents: int = Intent.PRIVILEGED,
        heartbeat_interval: float = 41.25,
        ack_timeout: float = 3.0,
        rate_limit: int = 50,
        rate_window: float = 1.0,
        attachment_dir: Path | None = None,
        contract: bool | None = None,
        bot_permissions: int = INVITE_PERMISSIONS,
        route_limits: dict[str, tuple[int, float]] | None = None,
        global_rate_limit: int = GLOBAL_LIMIT,
        shards: int | None = None,
    ) -> None:
        """``contract``: validate all traffic against Discord's OpenAPI description (by default
        where ``SANDBOX_CONTRACT=1``, as in the test suite); a violation fails ``stop()``.
        ``bot_permissions``: the bot's role in every guild (by default the invite permissions
        of docs/operations.md). ``route_limits``: (requests, seconds) per ``METHOD /template``,
        by default Discord's 5 messages per 5 s in a channel; others get ``rate_limit`` per
        ``rate_window``; ``global_rate_limit`` requests a second in all, as on Discord.
        ``shards``: the shard count ``GET /gateway/bot`` recommends (by default one per 1,000
        guilds, so one)."""
        self.state = SandboxState(
            token=token,
            bot_name=bot_name,
            allowed_intents=privileged_intents,
            heartbeat_interval_ms=int(heartbeat_interval * 1000),
            ack_timeout=ack_timeout,
            bot_permissions=bot_permissions,
            shards=shards,
        )
        self.faults = FaultInjector()
        self.rate_limiter = RateLimiter(
            rate_limit,
            rate_window,
            route_limits=route_limits,
            global_limit=global_rate_limit,
        )
        wanted = contract_wanted() if contract is None else contract
        self.contract: Contract | None = Contract() if wanted else None
        self._rest = RestApi(
            self.state,
            self.faults,
            self.rate_limiter,
            gateway_url=lambda: self.gateway_url,
            attachment_dir=attachment_dir,
            contract=self.contract,
        )
        self._runner: web.AppRunner | None = None
        self._port = 0

    # lifecycle

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self.state.gateway.handle)
        app.router.add_get(
            "/attachments/{channel_id}/{attachment_id}/{filename}", self._rest.attachment
        )
        app.router.add_route("*", "/api/v{version:\\d+}/{tail:.*}", self._rest.handle)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self._port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()
        self.state.base_url = self.url
        self.state.gateway.resume_url = self.gateway_url
        log.info("sandbox listening on %s", self.url)

    async def stop(self, *, check_contract: bool = True) -> None:
        """Stop serving; with the contract on, raise ContractViolationError if it was broken."""
        await self.state.gateway.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self.contract is not None:
            traffic = os.environ.get(TRAFFIC_DIR_ENV)
            if traffic:
                self.contract.save(Path(traffic))
            if check_contract:
                self.contract.raise_if_broken()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # A test that already failed keeps its own error; the violations are then secondary.
        await self.stop(check_contract=exc is None)

    # addresses for the client

    @property
    def port(self) -> int:
        return self._port

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    @property
    def api_base(self) -> str:
        """What to assign to ``discord.http.Route.BASE``."""
        return f"{self.url}/api/v{API_VERSION}"

    @property
    def gateway_url(self) -> str:
        """What to assign to ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY``."""
        return f"ws://127.0.0.1:{self._port}/gateway"

    @property
    def token(self) -> str:
        return self.state.token

    @property
    def bot(self) -> User:
        return self.state.bot

    @property
    def application_id(self) -> int:
        return self.state.application_id

    # world building

    def create_guild(self, name: str = "Sandbox", *, owner: User | None = None) -> Guild:
        return self.state.create_guild(name, owner)

    def create_user(
        self,
        name: str,
        *,
        guild: Guild | None = None,
        dms_open: bool = True,
        manage_server: bool = False,
    ) -> User:
        """A person; with ``guild`` they join it (``manage_server`` makes them a moderator)."""
        user = self.state.create_user(name, dms_open=dms_open)
        if guild is not None:
            self.state.add_member(guild, user, manage_server=manage_server)
        return user

    def add_member(self, guild: Guild, user: User, *, manage_server: bool = False) -> None:
        self.state.add_member(guild, user, manage_server=manage_server)

    def create_channel(self, guild: Guild, name: str, *, topic: str | None = None) -> Channel:
        return self.state.create_channel(guild, name, topic=topic)

    def set_overwrite(
        self, channel: Channel, target: User | Role, *, allow: int = 0, deny: int = 0
    ) -> None:
        """Allow or deny permissions in ``channel`` (and its threads) to a member or a role, as
        a moderator would in the channel's settings; nothing allowed or denied removes it."""
        kind = 0 if isinstance(target, Role) else 1
        self.state.set_overwrite(channel, target.id, kind, allow, deny)

    def bot_role(self, guild: Guild) -> Role:
        """The role the bot was invited with."""
        member = guild.members[self.state.bot.id]
        return guild.roles[member.role_ids[0]]

    def set_dms_open(self, user: User, is_open: bool) -> None:
        user.dms_open = is_open

    def player(self, user: User, *, channel: Channel | None = None) -> ScriptedPlayer:
        from sandbox.players import ScriptedPlayer

        return ScriptedPlayer(self, user, channel=channel)

    # reading

    def channel(self, channel_id: int) -> Channel:
        return self.state.channel(channel_id)

    def channel_named(self, name: str, guild: Guild | None = None) -> Channel:
        for channel in self.state.channels.values():
            if channel.name == name and (guild is None or channel.guild_id == guild.id):
                return channel
        raise KeyError(name)

    def dm_channel(self, user: User) -> Channel:
        return self.state.dm_channel(user)

    def messages(self, channel: Channel) -> list[Message]:
        """Every live message in ``channel`` in order, ephemeral ones included."""
        return self.state.channel_history(channel.id)

    def visible_messages(self, user: User, channel: Channel) -> list[Message]:
        """What ``user`` sees in ``channel``: others' ephemeral replies are left out."""
        return self.state.visible_messages(user.id, channel)

    def everything_visible_to(self, user: User) -> dict[int, list[Message]]:
        """Channel id -> the messages ``user`` sees there, for every channel, thread and DM."""
        out: dict[int, list[Message]] = {}
        for channel in self.state.channels.values():
            if self.state.can_view_channel(user.id, channel):
                seen = self.state.visible_messages(user.id, channel)
                if seen:
                    out[channel.id] = seen
        return out

    def threads(self, channel: Channel) -> list[Channel]:
        return self.state.threads_of(channel)

    def can_view(self, user: User, channel: Channel) -> bool:
        return self.state.can_view_channel(user.id, channel)

    def served_routes(self) -> list[str]:
        """Every REST route the sandbox answers, as ``METHOD /template``."""
        return self._rest.route_keys()

    @property
    def requests(self) -> list[RequestRecord]:
        """Every REST request answered so far (method, path, status), oldest first."""
        return self._rest.requests

    def commands(self, guild: Guild | None = None) -> list[dict[str, Any]]:
        """The commands the bot registered, globally or for ``guild``."""
        return [c.payload() for c in self.state.commands_for(guild.id if guild else None)]

    async def wait_for(
        self,
        predicate: Callable[[], Any],
        *,
        timeout: float = 5.0,  # noqa: ASYNC109
        what: str = "a condition",
        channels: Iterable[Channel] = (),
    ) -> Any:
        """Wait until ``predicate()`` is truthy; naming the ``channels`` it reads (and nothing
        else) lets it sleep until one of them changes."""
        ids = [c.id for c in channels]
        return await self.state.wait_for(predicate, timeout, what, channels=ids)

    # gateway control

    @property
    def connected_shards(self) -> list[tuple[int, int]]:
        """``(shard_id, num_shards)`` of every live gateway session, in order."""
        return self.state.gateway.connected_shards

    @property
    def bot_connected(self) -> bool:
        return self.state.gateway.connected

    async def wait_until_connected(self, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        await self.state.gateway.wait_connected(timeout)

    def request_reconnect(self) -> None:
        self.state.gateway.request_reconnect()

    async def drop_connections(self, code: int = 4000) -> None:
        await self.state.gateway.drop_connections(code)

    def invalidate_sessions(self) -> None:
        self.state.gateway.invalidate_sessions()

    @property
    def gateway_stats(self) -> dict[str, int]:
        hub = self.state.gateway
        return {
            "identify": hub.identify_count,
            "resume": hub.resume_count,
            "heartbeats": hub.heartbeats,
            "compressed_connections": hub.compressed_connections,
            "sessions": len(hub.sessions),
        }
