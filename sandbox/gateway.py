"""The gateway: a websocket speaking Discord's gateway protocol (v10, JSON, zlib-stream)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import secrets
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from sandbox.models import JSON

log = logging.getLogger(__name__)


class Op:
    DISPATCH = 0
    HEARTBEAT = 1
    IDENTIFY = 2
    PRESENCE_UPDATE = 3
    VOICE_STATE_UPDATE = 4
    RESUME = 6
    RECONNECT = 7
    REQUEST_GUILD_MEMBERS = 8
    INVALID_SESSION = 9
    HELLO = 10
    HEARTBEAT_ACK = 11


class Intent:
    GUILDS = 1 << 0
    GUILD_MEMBERS = 1 << 1
    GUILD_PRESENCES = 1 << 8
    GUILD_MESSAGES = 1 << 9
    DIRECT_MESSAGES = 1 << 12
    MESSAGE_CONTENT = 1 << 15
    PRIVILEGED = GUILD_MEMBERS | GUILD_PRESENCES | MESSAGE_CONTENT


# Close codes after which discord.py must not reconnect.
AUTHENTICATION_FAILED = 4004
INVALID_SHARD = 4010
DISALLOWED_INTENTS = 4014
# Events whose payload is the guild itself rather than something in it.
_GUILD_EVENTS = frozenset({"GUILD_CREATE", "GUILD_UPDATE", "GUILD_DELETE"})
_BUFFER_LIMIT = 2000


class _Connection:
    """One websocket; frames leave in the order they were queued (zlib streams need that),
    except urgent ones, which go before every frame still waiting."""

    def __init__(self, ws: web.WebSocketResponse, compress: bool) -> None:
        self.ws = ws
        self._compressor = zlib.compressobj() if compress else None
        self._queue: collections.deque[str | None] = collections.deque()
        self._queued = asyncio.Event()
        self.closed_by_server = False
        self._writer = asyncio.create_task(self._write_loop(), name="sandbox-gateway-writer")

    def send(self, frame: JSON, *, urgent: bool = False) -> None:
        text = json.dumps(frame, separators=(",", ":"))
        if urgent:
            self._queue.appendleft(text)
        else:
            self._queue.append(text)
        self._queued.set()

    async def _next(self) -> str | None:
        while not self._queue:
            self._queued.clear()
            await self._queued.wait()
        return self._queue.popleft()

    async def _write_loop(self) -> None:
        while True:
            text = await self._next()
            if text is None or self.ws.closed:
                return
            try:
                if self._compressor is None:
                    await self.ws.send_str(text)
                else:
                    data = self._compressor.compress(text.encode())
                    data += self._compressor.flush(zlib.Z_SYNC_FLUSH)
                    await self.ws.send_bytes(data)
            except (ConnectionError, RuntimeError):
                return

    async def close(self, code: int) -> None:
        # Let queued frames out first so a RECONNECT or INVALID_SESSION is seen before the close.
        self.closed_by_server = True
        self._queue.append(None)
        self._queued.set()
        if not self._writer.done():
            await asyncio.wait({self._writer}, timeout=2)
        await self.ws.close(code=code)

    async def stop(self) -> None:
        self._writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._writer


def shard_of(guild_id: int | None, num_shards: int) -> int:
    """Discord's rule: a guild's events go to shard (guild_id >> 22) % num_shards; DMs (no
    guild) to shard 0."""
    return 0 if guild_id is None else (guild_id >> 22) % num_shards


def _guild_of(event: str, data: JSON) -> int | None:
    raw = data.get("id") if event in _GUILD_EVENTS else data.get("guild_id")
    return None if raw is None else int(raw)


@dataclass(slots=True)
class GatewaySession:
    session_id: str
    intents: int
    shard_id: int = 0
    num_shards: int = 1
    seq: int = 0
    buffer: list[JSON] = field(default_factory=list)
    connection: _Connection | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)

    def has(self, intent: int) -> bool:
        return intent == 0 or bool(self.intents & intent)

    def serves(self, guild_id: int | None) -> bool:
        return shard_of(guild_id, self.num_shards) == self.shard_id


class GatewayHub:
    """Holds bot sessions, turns state changes into dispatches, replays them on RESUME."""

    def __init__(
        self,
        *,
        token_ok: Callable[[str], bool],
        initial_events: Callable[[GatewaySession], list[tuple[str, JSON]]],
        guild_members: Callable[[int], list[JSON]],
        allowed_intents: int,
        heartbeat_interval_ms: int,
        on_change: Callable[[], None],
    ) -> None:
        self._token_ok = token_ok
        self._initial_events = initial_events
        self._guild_members = guild_members
        self.allowed_intents = allowed_intents
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.sessions: dict[str, GatewaySession] = {}
        self.resume_url = ""
        self.identify_count = 0
        self.resume_count = 0
        self.heartbeats = 0
        self.compressed_connections = 0
        self._connections: set[_Connection] = set()
        self._changed = asyncio.Event()
        self._on_change = on_change

    # dispatching

    def dispatch(
        self, event: str, data: JSON, *, intent: int = 0, without_content: JSON | None = None
    ) -> None:
        """Send an event to every session subscribed to ``intent`` whose shard holds the guild
        the event belongs to (shard 0 for DMs).

        ``without_content`` is the payload for sessions lacking the message content intent.
        """
        guild_id = _guild_of(event, data)
        for session in self.sessions.values():
            if not session.ready.is_set() or not session.has(intent):
                continue
            if not session.serves(guild_id):
                continue
            payload = data
            if without_content is not None and not session.has(Intent.MESSAGE_CONTENT):
                payload = without_content
            self._send_dispatch(session, event, payload)

    def _send_dispatch(self, session: GatewaySession, event: str, data: JSON) -> None:
        session.seq += 1
        frame: JSON = {"op": Op.DISPATCH, "t": event, "s": session.seq, "d": data}
        session.buffer.append(frame)
        if len(session.buffer) > _BUFFER_LIMIT:
            del session.buffer[: len(session.buffer) - _BUFFER_LIMIT]
        if session.connection is not None:
            session.connection.send(frame)

    @property
    def connected_shards(self) -> list[tuple[int, int]]:
        """``(shard_id, num_shards)`` of every session on a live connection."""
        return sorted(
            (s.shard_id, s.num_shards)
            for s in self.sessions.values()
            if s.connection is not None and s.ready.is_set()
        )

    @property
    def connected(self) -> bool:
        return any(s.connection is not None and s.ready.is_set() for s in self.sessions.values())

    async def wait_connected(self, timeout: float) -> None:  # noqa: ASYNC109
        async with asyncio.timeout(timeout):
            while not self.connected:
                self._changed.clear()
                await self._changed.wait()

    def _notify(self) -> None:
        self._changed.set()
        self._on_change()

    # test controls

    def request_reconnect(self) -> None:
        """Send op 7 RECONNECT: discord.py closes and RESUMEs."""
        for session in self.sessions.values():
            if session.connection is not None:
                session.connection.send({"op": Op.RECONNECT, "d": None})

    async def drop_connections(self, code: int = 4000) -> None:
        """Close every socket as a network failure would; the session stays resumable."""
        for conn in list(self._connections):
            await conn.close(code)

    def invalidate_sessions(self) -> None:
        """Send op 9 (not resumable): discord.py identifies again from scratch."""
        for session in list(self.sessions.values()):
            if session.connection is not None:
                session.connection.send({"op": Op.INVALID_SESSION, "d": False})
        self.sessions.clear()

    async def close(self) -> None:
        for conn in list(self._connections):
            await conn.close(1001)
            await conn.stop()

    # websocket handling

    async def handle(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        encoding = request.query.get("encoding", "json")
        if encoding != "json":
            await ws.close(code=4002, message=b"only json encoding is supported")
            return ws
        compress = request.query.get("compress") == "zlib-stream"
        self.compressed_connections += compress
        conn = _Connection(ws, compress)
        self._connections.add(conn)
        session: GatewaySession | None = None
        conn.send({"op": Op.HELLO, "d": {"heartbeat_interval": self.heartbeat_interval_ms}})
        try:
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                try:
                    payload = json.loads(msg.data)
                except ValueError:
                    await conn.close(4002)
                    break
                session = await self._receive(conn, session, payload)
        finally:
            self._connections.discard(conn)
            if session is not None and session.connection is conn:
                session.connection = None
                # As on Discord, a client that closes with 1000 or 1001 ends its session.
                if ws.close_code in (1000, 1001) and not conn.closed_by_server:
                    self.sessions.pop(session.session_id, None)
            await conn.stop()
            self._notify()
        return ws

    async def _receive(
        self, conn: _Connection, session: GatewaySession | None, payload: Any
    ) -> GatewaySession | None:
        op = payload.get("op") if isinstance(payload, dict) else None
        data = payload.get("d") if isinstance(payload, dict) else None
        if op == Op.HEARTBEAT:
            self.heartbeats += 1
            # Discord acknowledges at once, however many events are on their way: behind a
            # backlog of dispatches a late ack would make the client think the link is dead.
            conn.send({"op": Op.HEARTBEAT_ACK}, urgent=True)
            return session
        if op == Op.IDENTIFY and isinstance(data, dict):
            return await self._identify(conn, data)
        if op == Op.RESUME and isinstance(data, dict):
            return await self._resume(conn, data)
        if session is None:
            await conn.close(4003)
            return None
        if op == Op.REQUEST_GUILD_MEMBERS and isinstance(data, dict):
            self._answer_member_request(session, data)
        elif op not in (Op.PRESENCE_UPDATE, Op.VOICE_STATE_UPDATE):
            await conn.close(4001)
        return session

    async def _identify(self, conn: _Connection, data: JSON) -> GatewaySession | None:
        if not self._token_ok(str(data.get("token", ""))):
            await conn.close(AUTHENTICATION_FAILED)
            return None
        intents = int(data.get("intents", 0))
        if intents & Intent.PRIVILEGED & ~self.allowed_intents:
            await conn.close(DISALLOWED_INTENTS)
            return None
        shard = data.get("shard") or [0, 1]
        try:
            shard_id, num_shards = int(shard[0]), int(shard[1])
        except (TypeError, ValueError, IndexError):
            shard_id, num_shards = -1, 0
        if not 0 <= shard_id < num_shards or self._shard_taken(shard_id, num_shards):
            # Discord refuses a shard outside [0, num_shards) and a shard a live session of
            # this bot holds already: two processes running one shard would both answer.
            await conn.close(INVALID_SHARD)
            return None
        self.identify_count += 1
        session = GatewaySession(
            session_id=secrets.token_hex(16),
            intents=intents,
            shard_id=shard_id,
            num_shards=num_shards,
        )
        session.connection = conn
        self.sessions[session.session_id] = session
        for event, payload in self._initial_events(session):
            if event == "READY":
                ready = {**payload, "session_id": session.session_id}
                ready["resume_gateway_url"] = self.resume_url
                self._send_dispatch(session, event, ready)
            else:
                self._send_dispatch(session, event, payload)
        session.ready.set()
        self._notify()
        return session

    def _shard_taken(self, shard_id: int, num_shards: int) -> bool:
        return any(
            s.connection is not None and (s.shard_id, s.num_shards) == (shard_id, num_shards)
            for s in self.sessions.values()
        )

    async def _resume(self, conn: _Connection, data: JSON) -> GatewaySession | None:
        session = self.sessions.get(str(data.get("session_id")))
        if session is None or not self._token_ok(str(data.get("token", ""))):
            conn.send({"op": Op.INVALID_SESSION, "d": False})
            return None
        self.resume_count += 1
        if session.connection is not None and session.connection is not conn:
            await session.connection.close(4000)
        session.connection = conn
        last = data.get("seq") or 0
        for frame in session.buffer:
            if frame["s"] > last:
                conn.send(frame)
        self._send_dispatch(session, "RESUMED", {})
        self._notify()
        return session

    def _answer_member_request(self, session: GatewaySession, data: JSON) -> None:
        guild_id = int(data["guild_id"])
        members = self._guild_members(guild_id)
        wanted = data.get("user_ids")
        query = str(data.get("query") or "").lower()
        if wanted is not None:
            ids = {str(u) for u in (wanted if isinstance(wanted, list) else [wanted])}
            members = [m for m in members if m["user"]["id"] in ids]
        elif query:
            members = [m for m in members if m["user"]["username"].lower().startswith(query)]
        limit = int(data.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk: JSON = {
            "guild_id": str(guild_id),
            "members": members,
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        self._send_dispatch(session, "GUILD_MEMBERS_CHUNK", chunk)
