"""Every route the sandbox serves, called as a client would, with Discord's refusals where
the bot's invite permissions fall short; the contract checks each answer against Discord's API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from sandbox import Permission, Sandbox
from sandbox.models import InteractionType


class Client:
    def __init__(self, sandbox: Sandbox, http: aiohttp.ClientSession) -> None:
        self.sandbox = sandbox
        self.http = http
        self.auth = {"Authorization": f"Bot {sandbox.token}"}

    async def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        url = f"{self.sandbox.api_base}{path}"
        async with self.http.request(method, url, json=body, headers=self.auth) as resp:
            data = await resp.json() if resp.content_type == "application/json" else None
            return resp.status, data


@pytest.fixture
async def client() -> AsyncIterator[Client]:
    async with Sandbox(contract=True) as sandbox, aiohttp.ClientSession() as http:
        yield Client(sandbox, http)


async def test_every_route_answers_as_discord_describes(client: Client) -> None:
    sandbox = client.sandbox
    guild = sandbox.create_guild("G")
    lobby = sandbox.create_channel(guild, "lobby")
    alice = sandbox.create_user("alice", guild=guild)
    app, g = sandbox.application_id, guild.id
    assert (await client.call("GET", "/gateway"))[0] == 200
    assert (await client.call("GET", "/gateway/bot"))[0] == 200
    assert (await client.call("GET", "/applications/@me"))[0] == 200
    command = {"name": "ping", "description": "Ping", "type": 1}
    for scope in (f"/applications/{app}", f"/applications/{app}/guilds/{g}"):
        status, made = await client.call("POST", f"{scope}/commands", command)
        assert status == 201
        assert (await client.call("POST", f"{scope}/commands", command))[0] == 200
        assert (await client.call("GET", f"{scope}/commands"))[1][0]["name"] == "ping"
        assert (await client.call("GET", f"{scope}/commands/{made['id']}"))[0] == 200
        assert (await client.call("DELETE", f"{scope}/commands/{made['id']}"))[0] == 204
    for path in ("", "/channels", "/roles", "/threads/active", f"/members/{alice.id}"):
        assert (await client.call("GET", f"/guilds/{g}{path}"))[0] == 200, path
    assert len((await client.call("GET", f"/guilds/{g}/members?limit=10"))[1]) == 3
    assert (await client.call("GET", f"/channels/{lobby.id}"))[0] == 200
    assert (await client.call("POST", f"/channels/{lobby.id}/typing"))[0] == 204
    # The invite asks for neither Manage Channels nor Manage Threads: Discord says 50013.
    status, refused = await client.call("POST", f"/guilds/{g}/channels", {"name": "more"})
    assert (status, refused["code"]) == (403, 50013)
    status, thread = await client.call(
        "POST", f"/channels/{lobby.id}/threads", {"name": "t", "type": 11}
    )
    assert status == 201
    t = thread["id"]
    assert (await client.call("PUT", f"/channels/{t}/thread-members/{alice.id}"))[0] == 204
    assert (await client.call("GET", f"/channels/{t}/thread-members/{alice.id}"))[0] == 200
    status, refused = await client.call("DELETE", f"/channels/{t}/thread-members/{alice.id}")
    assert (status, refused["code"]) == (403, 50013)
    status, refused = await client.call("PATCH", f"/channels/{t}", {"locked": True})
    assert (status, refused["code"]) == (403, 50013)
    assert (await client.call("PATCH", f"/channels/{t}", {"name": "renamed"}))[0] == 200
    status, refused = await client.call("DELETE", f"/channels/{t}")
    assert (status, refused["code"]) == (403, 50013)
    status, message = await client.call("POST", f"/channels/{lobby.id}/messages", {"content": "x"})
    assert status == 200
    m = message["id"]
    assert (await client.call("DELETE", f"/channels/{lobby.id}/messages/{m}"))[0] == 204
    # An interaction's webhook: answered, then its follow-up read and deleted.
    interaction = sandbox.state.start_interaction(
        alice, lobby, InteractionType.APPLICATION_COMMAND, {"name": "ping", "type": 1}
    )
    callback = f"/interactions/{interaction.id}/{interaction.token}/callback"
    assert (await client.call("POST", callback, {"type": 5}))[0] == 204
    hook = f"/webhooks/{app}/{interaction.token}"
    status, followup = await client.call("POST", f"{hook}?wait=true", {"content": "one"})
    assert status == 200
    status, second = await client.call("POST", f"{hook}?wait=true", {"content": "two"})
    assert (await client.call("GET", f"{hook}/messages/{second['id']}"))[0] == 200
    assert (await client.call("DELETE", f"{hook}/messages/{second['id']}"))[0] == 204
    assert followup["id"] != second["id"]


async def test_permissions_follow_roles_overwrites_and_thread_rules(client: Client) -> None:
    sandbox = client.sandbox
    guild = sandbox.create_guild("G")
    lobby = sandbox.create_channel(guild, "lobby")
    hidden = sandbox.create_channel(guild, "hidden")
    role = sandbox.bot_role(guild)
    sandbox.set_overwrite(hidden, role, deny=Permission.VIEW_CHANNEL)
    status, refused = await client.call("POST", f"/channels/{hidden.id}/messages", {"content": "x"})
    assert (status, refused["code"]) == (403, 50001)
    # A member overwrite beats the role's: allowed back in, the bot may post there.
    sandbox.set_overwrite(hidden, sandbox.bot, allow=Permission.VIEW_CHANNEL)
    assert (await client.call("POST", f"/channels/{hidden.id}/messages", {"content": "x"}))[
        0
    ] == 200
    # Threads take the parent's overwrites, and sending there is its own permission.
    status, thread = await client.call(
        "POST", f"/channels/{lobby.id}/threads", {"name": "t", "type": 11}
    )
    assert status == 201
    sandbox.set_overwrite(lobby, role, deny=Permission.SEND_MESSAGES_IN_THREADS)
    body = {"content": "in the thread"}
    status, refused = await client.call("POST", f"/channels/{thread['id']}/messages", body)
    assert (status, refused["code"]) == (403, 50013)
    assert (await client.call("POST", f"/channels/{lobby.id}/messages", body))[0] == 200
    sandbox.set_overwrite(lobby, role, deny=Permission.EMBED_LINKS)
    embed = {"embeds": [{"title": "board"}]}
    status, refused = await client.call("POST", f"/channels/{lobby.id}/messages", embed)
    assert (status, refused["code"]) == (403, 50013)
    status, refused = await client.call(
        "POST", f"/channels/{lobby.id}/threads", {"name": "p", "type": 12}
    )
    assert (status, refused["code"]) == (403, 50013)  # no Create Private Threads
