"""The sandbox's parts on their own: REST answers, faults, limits, snowflakes, players."""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest

from sandbox import ApiError, PlayerError, Sandbox, Upload
from sandbox.faults import FaultInjector, RateLimiter
from sandbox.limits import DEFAULT_ATTACHMENT_LIMIT, validate_message
from sandbox.snowflake import SnowflakeGenerator, snowflake_time


def test_faults_match_globs_and_run_out() -> None:
    faults = FaultInjector()
    faults.rate_limit("POST /channels/*/messages", times=2)
    faults.server_error("/webhooks/*")
    assert faults.take("GET", "/channels/1/messages") is None
    assert faults.take("POST", "/channels/1/messages/2") is None
    first = faults.take("POST", "/channels/1/messages")
    assert first is not None and first.status == 429
    assert faults.pending == 2
    assert faults.take("PATCH", "/webhooks/1/abc/messages/@original") is not None
    assert faults.take("POST", "/channels/9/messages") is not None
    assert faults.take("POST", "/channels/9/messages") is None
    assert faults.pending == 0


def test_rate_limiter_counts_a_window_per_major_parameter() -> None:
    limiter = RateLimiter(limit=2, window=60, route_limits={})
    states = [limiter.hit("POST /channels/{channel_id}/messages", "1") for _ in range(3)]
    assert [s.remaining for s in states] == [1, 0, 0]
    assert [s.allowed for s in states] == [True, True, False]
    assert limiter.hit("POST /channels/{channel_id}/messages", "2").allowed
    assert states[0].bucket == states[2].bucket
    assert set(states[0].headers()) >= {"X-RateLimit-Remaining", "X-RateLimit-Reset-After"}


def test_limits_answer_with_discords_error_shapes() -> None:
    with pytest.raises(ApiError) as too_long:
        validate_message({"content": "x" * 2001}, [], attachment_limit=10)
    assert too_long.value.code == 50035
    assert too_long.value.errors == {
        "content": {
            "_errors": [
                {"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 2000 or fewer in length."}
            ]
        }
    }
    with pytest.raises(ApiError) as field:
        validate_message(
            {"embeds": [{"fields": [{"name": "a", "value": "v" * 1025}]}]}, [], attachment_limit=10
        )
    assert field.value.errors is not None and "0" in field.value.errors["embeds"]
    with pytest.raises(ApiError) as empty:
        validate_message({"content": ""}, [], attachment_limit=10)
    assert empty.value.code == 50006
    with pytest.raises(ApiError) as big:
        validate_message({"content": "x"}, [11], attachment_limit=10)
    assert (big.value.status, big.value.code) == (413, 40005)
    validate_message(
        {"content": "x" * 2000, "embeds": [{"title": "t" * 256}]}, [10], attachment_limit=10
    )


def test_the_attachment_limit_is_discords_ten_mib_for_each_file() -> None:
    """Discord's reference: 10 MiB by default, for each file of a request (not their sum)."""
    limit = DEFAULT_ATTACHMENT_LIMIT
    assert limit == 10 * 1024 * 1024
    validate_message({"content": "x"}, [limit, limit, limit], attachment_limit=limit)
    with pytest.raises(ApiError) as big:
        validate_message({"content": "x"}, [1, limit + 1], attachment_limit=limit)
    assert (big.value.status, big.value.code, big.value.message) == (
        413,
        40005,
        "Request entity too large",
    )


def test_components_are_refused_as_discord_refuses_them() -> None:
    """Found by fuzzing (`python -m sandbox.fuzz`): the sandbox used to store and echo any
    component, so a button without a style was "sent" and answered outside Discord's shapes."""

    def errors(components: list[dict[str, Any]], flags: int = 0) -> dict[str, Any]:
        with pytest.raises(ApiError) as refused:
            validate_message({"components": components, "flags": flags}, [], attachment_limit=10)
        assert refused.value.code == 50035
        return refused.value.errors or {}

    row = {"type": 1, "components": [{"type": 2, "label": "Go", "custom_id": "go"}]}
    assert "style" in errors([row])["components"]["0"]["components"]["0"]
    link = {"type": 1, "components": [{"type": 2, "style": 5, "label": "Docs"}]}
    assert "url" in errors([link])["components"]["0"]["components"]["0"]
    select = {"type": 1, "components": [{"type": 3, "custom_id": "pick"}]}
    assert "options" in errors([select])["components"]["0"]["components"]["0"]
    text_input = {"type": 1, "components": [{"type": 4, "custom_id": "t", "style": 1}]}
    assert "type" in errors([text_input])["components"]["0"]["components"]["0"]
    assert "type" in errors([{"type": 14, "divider": True}])["components"]["0"]
    assert "flags" in errors([{"type": 10, "content": "x"}], flags=1 << 15)
    ok = {"type": 1, "components": [{"type": 2, "style": 1, "label": "Go", "custom_id": "go"}]}
    validate_message({"components": [ok]}, [], attachment_limit=10)


def test_snowflakes_increase_and_carry_their_time() -> None:
    ids = SnowflakeGenerator()
    issued = [ids.next() for _ in range(1000)]
    assert issued == sorted(set(issued))
    assert snowflake_time(issued[0]).year >= 2026


async def test_rest_auth_unknown_routes_headers_and_real_429() -> None:
    async with Sandbox(rate_limit=2, rate_window=60) as sandbox, aiohttp.ClientSession() as http:
        auth = {"Authorization": f"Bot {sandbox.token}"}
        async with http.get(f"{sandbox.api_base}/users/@me") as resp:
            assert resp.status == 401
        async with http.get(f"{sandbox.api_base}/nowhere", headers=auth) as resp:
            assert resp.status == 404
            assert await resp.json() == {"message": "404: Not Found", "code": 0}
        statuses = []
        for _ in range(3):
            async with http.get(f"{sandbox.api_base}/users/@me", headers=auth) as resp:
                statuses.append(resp.status)
                assert resp.headers["Content-Type"] == "application/json"
                assert "X-RateLimit-Bucket" in resp.headers
                last = await resp.json()
        assert statuses == [200, 200, 429]
        assert last["retry_after"] > 0 and last["global"] is False
        async with http.get(f"{sandbox.api_base}/channels/1/messages", headers=auth) as resp:
            assert resp.status == 404
            assert (await resp.json())["code"] == 10003
        if sandbox.contract is not None:
            # Only the made-up route breaks Discord's description; every answer conforms.
            broken = sandbox.contract.take_violations()
            assert [(v.route, v.rule) for v in broken] == [("GET /nowhere", "route")]


async def test_gateway_compresses_with_one_zlib_stream_per_connection() -> None:
    async with Sandbox() as sandbox, aiohttp.ClientSession() as http:
        url = f"{sandbox.gateway_url}?v=10&encoding=json&compress=zlib-stream"
        async with http.ws_connect(url) as ws:
            inflate = zlib.decompressobj()
            hello = await ws.receive_bytes()
            assert hello.endswith(b"\x00\x00\xff\xff")
            assert b'"op":10' in inflate.decompress(hello)
            await ws.send_json({"op": 1, "d": None})
            ack = inflate.decompress(await ws.receive_bytes())
            assert ack == b'{"op":11}'
            await ws.send_json({"op": 2, "d": {"token": "wrong", "intents": 0}})
            closing = await ws.receive()
            assert closing.type is aiohttp.WSMsgType.CLOSE and closing.data == 4004


async def test_players_are_refused_what_the_client_would_refuse() -> None:
    async with Sandbox() as sandbox:
        guild = sandbox.create_guild()
        lobby = sandbox.create_channel(guild, "lobby")
        outsider = sandbox.player(sandbox.create_user("outsider"), channel=lobby)
        with pytest.raises(PlayerError, match="cannot see"):
            await outsider.send("hello")
        member = sandbox.player(sandbox.create_user("member", guild=guild), channel=lobby)
        with pytest.raises(PlayerError, match="no command"):
            await member.slash("match create")
        posted = await member.send("hi <@1> and " + outsider.mention, files=[Upload("a.txt", b"1")])
        assert posted.mention_ids == [outsider.id]
        assert sandbox.messages(lobby) == [posted]
        assert sandbox.visible_messages(outsider.user, lobby) == []


def test_a_status_after_post_is_taken_as_a_lost_reply() -> None:
    faults = FaultInjector()
    faults.status_after_post("POST /channels/*/messages", 429, retry_after=0.2)
    fault = faults.take("POST", "/channels/1/messages")
    assert fault is not None and (fault.status, fault.lost_reply, fault.retry_after) == (
        429,
        True,
        0.2,
    )
    assert faults.take("POST", "/channels/1/messages") is None


async def test_keyed_waiters_wake_only_for_their_channels() -> None:
    async with Sandbox() as sandbox:
        guild = sandbox.create_guild("G")
        here, there = sandbox.create_channel(guild, "here"), sandbox.create_channel(guild, "there")
        state = sandbox.state
        asked = {"here": 0, "everything": 0}

        def count(name: str, channel: int) -> Callable[[], bool]:
            def predicate() -> bool:
                asked[name] += 1
                return bool(state.channel_messages[channel])

            return predicate

        keyed = asyncio.create_task(
            state.wait_for(count("here", here.id), 5, "here", channels=[here.id])
        )
        watching = asyncio.create_task(state.wait_for(count("everything", there.id), 5, "all"))
        await asyncio.sleep(0)
        for _ in range(5):
            state.notify(there.id)
            await asyncio.sleep(0.01)
        # Changes elsewhere never ask the keyed predicate again; the unkeyed one sees them all.
        assert asked["here"] == 1 and asked["everything"] >= 6
        state.bot_message(here, {"content": "hello"}, [])
        assert await keyed is True and asked["here"] == 2
        state.bot_message(there, {"content": "hi"}, [])
        assert await watching is True


def test_discord_limits_five_messages_per_channel_and_fifty_requests_a_second() -> None:
    limiter = RateLimiter()
    route = "POST /channels/{channel_id}/messages"
    posts = [limiter.hit(route, "7") for _ in range(6)]
    assert [p.allowed for p in posts] == [True] * 5 + [False]
    assert posts[0].limit == 5 and 4.9 < posts[-1].reset_after <= 5.0
    assert limiter.hit(route, "8").allowed  # another channel has its own bucket
    waits = [limiter.hit_global() for _ in range(51)]
    assert waits[:50] == [None] * 50
    assert waits[50] is not None and 0 < waits[50] <= 1.0


async def test_a_global_429_says_so_in_its_body_and_headers() -> None:
    async with Sandbox(global_rate_limit=1) as sandbox, aiohttp.ClientSession() as http:
        auth = {"Authorization": f"Bot {sandbox.token}"}
        async with http.get(f"{sandbox.api_base}/users/@me", headers=auth) as resp:
            assert resp.status == 200
        async with http.get(f"{sandbox.api_base}/users/@me", headers=auth) as resp:
            assert resp.status == 429
            assert resp.headers["X-RateLimit-Global"] == "true"
            assert resp.headers["X-RateLimit-Scope"] == "global"
            body = await resp.json()
        assert body["global"] is True and body["retry_after"] > 0
