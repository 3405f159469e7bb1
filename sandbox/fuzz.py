"""`python -m sandbox.fuzz`: property-based fuzzing of the sandbox's REST API from Discord's own
OpenAPI description.

Schemathesis turns the description of every route the sandbox serves into Hypothesis
strategies and sends what they generate: bodies, queries and path parameters as Discord
describes them, the path parameters often replaced by ids that exist in the sandbox (a server,
its channels, a thread, a message, the members, the application and its commands), so requests
reach the handlers and not only the "unknown object" answers. Every answer must not be a
server error and must validate against the description for its status; the sandbox's own
contract checks each request and answer besides. Bounded in time: operations are fuzzed one
after another, each with a fixed number of examples, until the budget is spent.

    .venv/bin/python -m sandbox.fuzz [--seconds 120] [--examples 30] [--seed 0]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import hypothesis
import requests
import schemathesis
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error, response_schema_conformance
from schemathesis.core.result import Ok

from sandbox.conformance import served_routes
from sandbox.contract import corrected_spec
from sandbox.server import Sandbox

# Deleting comes last, so the objects the other routes are given still exist meanwhile.
_METHOD_ORDER = {"GET": 0, "POST": 1, "PUT": 2, "PATCH": 3, "DELETE": 4}


@dataclass
class FuzzReport:
    operations: list[str] = field(default_factory=list)
    requests: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    # Operation -> what failed (a server error, an answer outside the description).
    failures: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    # Operations the description does not let Schemathesis build strategies for.
    unusable: list[str] = field(default_factory=list)
    # Generated requests the sandbox's contract found outside the description.
    stray_requests: int = 0

    def lines(self) -> list[str]:
        out = [
            f"operations fuzzed: {len(self.operations)}"
            + (f" (not reached in the time: {len(self.skipped)})" if self.skipped else ""),
            f"requests: {self.requests}; answers by status: "
            + ", ".join(f"{s}: {n}" for s, n in sorted(self.statuses.items())),
            f"generated requests outside the description (refused or ignored): "
            f"{self.stray_requests}",
            f"server errors and answers outside the description: {len(self.failures)}",
        ]
        out += [f"  {op}: {why}" for op, why in sorted(self.failures.items())]
        out += [f"operation not fuzzable from the description: {why}" for why in self.unusable]
        return out


def served_spec() -> dict[str, Any]:
    """The description cut down to the routes the sandbox serves (with its errata corrected)."""
    spec = corrected_spec()
    served: dict[str, set[str]] = {}
    for route in served_routes().values():
        if route is not None:
            method, path = route.split(" ", 1)
            served.setdefault(path, set()).add(method.lower())
    paths: dict[str, Any] = {}
    for path, item in spec["paths"].items():
        methods = served.get(path)
        if methods:
            kept = {k: v for k, v in item.items() if k in methods or k == "parameters"}
            for operation in kept.values():
                body = operation.get("requestBody") if isinstance(operation, dict) else None
                if body is not None:
                    # JSON only: the sandbox's contract reads JSON bodies, as the bot sends them
                    # (form bodies are Discord's too, but nothing here speaks them).
                    body["content"] = {
                        k: v for k, v in body["content"].items() if k == "application/json"
                    }
            paths[path] = kept
    spec["paths"] = paths
    return spec


@dataclass(frozen=True)
class World:
    """Ids that exist in the sandbox, by the path parameter names of the description."""

    ids: dict[str, list[str]]
    token: str


def _world(sandbox: Sandbox) -> World:
    guild = sandbox.create_guild("Fuzz")
    lobby = sandbox.create_channel(guild, "lobby")
    other = sandbox.create_channel(guild, "other")
    users = [sandbox.create_user(name, guild=guild) for name in ("Ann", "Ben")]
    player = sandbox.player(users[0], channel=lobby)
    return World(
        ids={
            "guild_id": [str(guild.id)],
            "channel_id": [str(lobby.id), str(other.id), str(player.dm.id)],
            "user_id": [str(u.id) for u in users] + ["@me"],
            "application_id": [str(sandbox.state.application_id)],
            "webhook_id": [str(sandbox.state.application_id)],
        },
        token=sandbox.token,
    )


def _grow(world: World, base_url: str) -> None:
    """Objects made over the API itself: messages, a thread and a command to aim at."""
    auth = {"Authorization": f"Bot {world.token}"}
    channel = world.ids["channel_id"][0]
    for n in range(3):
        answer = requests.post(
            f"{base_url}/channels/{channel}/messages",
            json={"content": f"message {n}"},
            headers=auth,
            timeout=10,
        )
        answer.raise_for_status()
        world.ids.setdefault("message_id", []).append(answer.json()["id"])
    thread = requests.post(
        f"{base_url}/channels/{channel}/threads",
        json={"name": "a thread", "type": 11},
        headers=auth,
        timeout=10,
    )
    thread.raise_for_status()
    world.ids["channel_id"].append(thread.json()["id"])
    app = world.ids["application_id"][0]
    command = requests.post(
        f"{base_url}/applications/{app}/commands",
        json={"name": "ping", "description": "ping", "type": 1},
        headers=auth,
        timeout=10,
    )
    command.raise_for_status()
    world.ids["command_id"] = [command.json()["id"]]


def _fuzz_operation(
    operation: Any, world: World, base_url: str, *, examples: int, seed: int, report: FuzzReport
) -> None:
    auth = {"Authorization": f"Bot {world.token}"}

    @hypothesis.settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(hypothesis.HealthCheck),
        phases=[hypothesis.Phase.generate],
        print_blob=False,
    )
    @hypothesis.seed(seed)
    @hypothesis.given(case=operation.as_strategy(), data=st.data())
    def check(case: Any, data: st.DataObject) -> None:
        for name, value in list((case.path_parameters or {}).items()):
            known = world.ids.get(name)
            if known:
                # Mostly an object that exists; now and then the generated id (unknown).
                case.path_parameters[name] = data.draw(
                    st.sampled_from(known) | st.just(value), label=name
                )
        response = case.call(base_url=base_url, headers=auth, timeout=10)
        report.requests += 1
        report.statuses[response.status_code] += 1
        case.validate_response(response, checks=[not_a_server_error, response_schema_conformance])

    try:
        check()
    except (Exception, BaseExceptionGroup) as error:
        report.failures[operation.label] = _summary(error)


def _summary(error: BaseException) -> str:
    """The failure's title lines (Schemathesis names each check that failed), in one line."""
    lines = [line.strip() for line in str(error).splitlines()]
    titles = [line for line in lines if line.startswith("- ")]
    return "; ".join(titles) or next((line for line in lines if line), type(error).__name__)


async def fuzz(*, seconds: float, examples: int, seed: int) -> FuzzReport:
    """Fuzz the routes a fresh sandbox serves; its own contract checks the traffic as well, and
    stopping the sandbox raises if it saw a violation."""
    report = FuzzReport()
    schema = schemathesis.openapi.from_dict(served_spec())
    operations = []
    for result in schema.get_all_operations():
        if isinstance(result, Ok):
            operations.append(result.ok())
        else:
            report.unusable.append(str(result.err()).strip().splitlines()[0])
    operations.sort(key=lambda op: (_METHOD_ORDER.get(op.method.upper(), 9), op.path))
    async with Sandbox(
        bot_name="Fuzz",
        contract=True,
        rate_limit=1_000_000,
        route_limits={},
        global_rate_limit=1_000_000,
    ) as sandbox:
        world = _world(sandbox)
        base_url = sandbox.api_base
        await asyncio.to_thread(_grow, world, base_url)
        deadline = time.monotonic() + seconds
        for operation in operations:
            if time.monotonic() >= deadline:
                report.skipped.append(operation.label)
                continue
            report.operations.append(operation.label)
            await asyncio.to_thread(
                functools.partial(
                    _fuzz_operation,
                    operation,
                    world,
                    base_url,
                    examples=examples,
                    seed=seed,
                    report=report,
                )
            )
        # The sandbox's own contract checked every exchange too: a request that strays from the
        # description is the fuzzer's doing (counted), an answer that strays is the sandbox's.
        for violation in sandbox.contract.take_violations() if sandbox.contract else []:
            if violation.side == "request":
                report.stray_requests += 1
            else:
                report.failures.setdefault(f"{violation.route} (contract)", str(violation))
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0, help="time budget")
    parser.add_argument("--examples", type=int, default=30, help="examples per operation")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    report = asyncio.run(fuzz(seconds=args.seconds, examples=args.examples, seed=args.seed))
    print("\n".join(report.lines()))
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
