"""The contract itself: Discord's description catches what departs from it, and says where."""

from __future__ import annotations

from sandbox.contract import Contract, spec_route

MESSAGE = {
    "id": "1",
    "channel_id": "2",
    "type": 0,
    "author": {
        "id": "3",
        "username": "bot",
        "discriminator": "0",
        "global_name": None,
        "avatar": None,
        "public_flags": 0,
        "flags": 0,
        "primary_guild": None,
    },
    "content": "hi",
    "timestamp": "2026-01-01T00:00:00+00:00",
    "edited_timestamp": None,
    "tts": False,
    "mention_everyone": False,
    "mentions": [],
    "mention_roles": [],
    "attachments": [],
    "embeds": [],
    "components": [],
    "pinned": False,
    "flags": 0,
}


def post(contract: Contract, body: object, answer: object, status: int = 200) -> list[str]:
    found = contract.check(
        method="POST",
        path="/channels/2/messages",
        query=[],
        headers={"Authorization": "Bot t"},
        content_type="application/json",
        body=body,
        status=status,
        response_headers={"Content-Type": "application/json", "X-RateLimit-Limit": "5"},
        response_body=answer,
    )
    return [f"{v.side}: {v.field}: {v.rule}" for v in found]


def test_routes_match_the_most_literal_template() -> None:
    assert spec_route("GET", "/users/@me") == "GET /users/@me"
    assert spec_route("GET", "/users/12") == "GET /users/{user_id}"
    assert spec_route("GET", "/webhooks/1/tok/messages/@original") == (
        "GET /webhooks/{webhook_id}/{webhook_token}/messages/@original"
    )
    assert spec_route("POST", "/nowhere") is None


def test_a_conforming_exchange_passes_and_each_departure_is_named() -> None:
    contract = Contract()
    assert post(contract, {"content": "hi"}, MESSAGE) == []
    assert post(contract, {"content": "x" * 4001}, MESSAGE) == ["request: content: maxLength"]
    no_author = {k: v for k, v in MESSAGE.items() if k != "author"}
    assert post(contract, {"content": "hi"}, no_author) == ["response 200: : required"]
    refusal = {"code": 50013, "message": "Missing Permissions"}
    assert post(contract, {"content": "hi"}, refusal, status=403) == []
    form = {"code": 50035, "message": "Invalid Form Body", "errors": {"content": {"_errors": []}}}
    assert post(contract, {"content": "hi"}, form, status=400) == []
    assert post(contract, {"content": "hi"}, {"message": "x"}, status=404) == [
        "response 404: : required"
    ]
    assert post(contract, {"content": "hi"}, None, status=500) == ["response 500: : status"]
    assert len(contract.violations) == 4 and contract.requests == 7
