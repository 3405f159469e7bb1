"""The sandbox shards as Discord does: the recommended count, IDENTIFY's shard, events routed by
guild, DMs on shard 0, a connected shard refused a second time."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest

from sandbox import Guild, Sandbox
from sandbox.gateway import INVALID_SHARD, Op, shard_of


async def identify(
    http: aiohttp.ClientSession, sandbox: Sandbox, shard: list[int]
) -> aiohttp.ClientWebSocketResponse:
    ws = await http.ws_connect(f"{sandbox.gateway_url}?v=10&encoding=json")
    hello = await ws.receive_json()
    assert hello["op"] == Op.HELLO
    await ws.send_json(
        {"op": Op.IDENTIFY, "d": {"token": sandbox.token, "intents": 1 | 1 << 12, "shard": shard}}
    )
    return ws


async def events(ws: aiohttp.ClientWebSocketResponse, until: str) -> list[tuple[str, Any]]:
    seen: list[tuple[str, Any]] = []
    async with asyncio.timeout(5):
        while not seen or seen[-1][0] != until:
            frame = json.loads((await ws.receive()).data)
            if frame["op"] == Op.DISPATCH:
                seen.append((frame["t"], frame["d"]))
    return seen


async def test_gateway_bot_recommends_the_shard_count_and_counts_session_starts() -> None:
    async with Sandbox(shards=3) as sandbox, aiohttp.ClientSession() as http:
        auth = {"Authorization": f"Bot {sandbox.token}"}
        async with http.get(f"{sandbox.api_base}/gateway/bot", headers=auth) as resp:
            before = await resp.json()
        ws = await identify(http, sandbox, [0, 3])
        await events(ws, "READY")
        async with http.get(f"{sandbox.api_base}/gateway/bot", headers=auth) as resp:
            after = await resp.json()
        await ws.close()
    assert before["shards"] == 3
    limit = before["session_start_limit"]
    assert after["session_start_limit"]["remaining"] == limit["remaining"] - 1


async def test_guild_events_reach_their_shard_and_dms_shard_zero() -> None:
    async with Sandbox() as sandbox, aiohttp.ClientSession() as http:
        guilds: list[Guild] = []
        while {shard_of(g.id, 2) for g in guilds} != {0, 1}:
            guilds.append(sandbox.create_guild(f"g{len(guilds)}"))
            await asyncio.sleep(0.002)
        zero, one = await identify(http, sandbox, [0, 2]), await identify(http, sandbox, [1, 2])
        for ws, shard in ((zero, 0), (one, 1)):
            seen = await events(ws, "READY")
            ready = seen[-1][1]
            assert ready["shard"] == [shard, 2]
            assert {int(g["id"]) for g in ready["guilds"]} == {
                g.id for g in guilds if shard_of(g.id, 2) == shard
            }
        # A channel in a shard-1 guild, then a DM: each reaches exactly one shard.
        target = next(g for g in guilds if shard_of(g.id, 2) == 1)
        channel = sandbox.create_channel(target, "news")
        user = sandbox.create_user("Dee")
        sandbox.state.post_user_message(user, sandbox.dm_channel(user), "hello")
        on_one = await events(one, "CHANNEL_CREATE")
        on_zero = await events(zero, "MESSAGE_CREATE")
        assert [d["id"] for t, d in on_one if t == "CHANNEL_CREATE"] == [str(channel.id)]
        assert not any(t == "CHANNEL_CREATE" for t, _ in on_zero)
        assert on_zero[-1][1]["content"] == "hello"
        # Nothing more for shard 1: the DM went to shard 0 alone.
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.3):
                await one.receive()
        assert sandbox.connected_shards == [(0, 2), (1, 2)]

        # Shard 1 again while it is connected: refused, as Discord refuses it.
        again = await identify(http, sandbox, [1, 2])
        async with asyncio.timeout(5):
            closing = await again.receive()
        assert closing.type is aiohttp.WSMsgType.CLOSE
        assert closing.data == INVALID_SHARD
        for ws in (zero, one, again):
            await ws.close()
