"""Discord's OpenAPI description as the sandbox's contract.

Every request the bot sends is matched to a path and method of Discord's own description of its
HTTP API (`sandbox/spec/openapi.json`) and its parameters, headers and body validated; every
answer the sandbox gives, errors included, is validated against the response described for its
status. The validator is openapi-core (a development dependency, imported only when the contract
is on); the spec object is built once per process.
"""

from __future__ import annotations

import copy
import json
import os
import threading
import time
import uuid
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

SPEC_PATH = Path(__file__).resolve().parent / "spec" / "openapi.json"
# The spec's only server; requests are presented to the validator as if sent there.
_HOST = "https://discord.com"
_BASE = "/api/v10"
# Set to a directory, each sandbox writes what its contract saw there when it stops, for
# `python -m sandbox.conformance` to add up.
TRAFFIC_DIR_ENV = "SANDBOX_TRAFFIC_DIR"
CONTRACT_ENV = "SANDBOX_CONTRACT"


def contract_wanted() -> bool:
    """The contract is on where the environment asks for it (the test suite does)."""
    return os.environ.get(CONTRACT_ENV, "").lower() in ("1", "true", "yes")


@dataclass(frozen=True, slots=True)
class Violation:
    """One way a request or an answer departs from Discord's description."""

    route: str
    side: str  # "request" or "response <status>"
    field: str
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.route} {self.side}: {self.field or '(whole)'}: {self.rule}: {self.message}"


class ContractViolationError(AssertionError):
    """A test's traffic broke Discord's contract; the message lists every violation."""


@dataclass(slots=True)
class _Request:
    """openapi-core's request protocol over what the sandbox received."""

    host_url: str
    path: str
    method: str
    parameters: Any
    content_type: str
    body: bytes | None

    @property
    def full_url_pattern(self) -> str:
        return self.host_url + self.path


@dataclass(slots=True)
class _Response:
    status_code: int
    content_type: str
    headers: Any
    data: bytes


@cache
def _spec() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
    return loaded


@cache
def _openapi(*, numeric_snowflakes: bool) -> Any:
    """The spec object, built once per process and side (parsing the description takes ~0.5 s).

    Discord takes a snowflake in a request body as a JSON number too (discord.py sends
    `recipient_id` and attachment ids so), while its description says string: requests may use
    either; the sandbox's own answers must use strings, as Discord's do.
    """
    from openapi_core import Config, OpenAPI

    spec = copy.deepcopy(_spec())
    schemas = spec["components"]["schemas"]
    # Erratum: a field error of an Invalid Form Body (50035) carries a string code such as
    # "BASE_TYPE_MAX_LENGTH" (Discord's error reference shows so, and discord.py reads it so);
    # the description reuses the top-level Error, whose code is an integer.
    schemas["InnerErrors"]["properties"]["_errors"]["items"] = {
        "type": "object",
        "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
        "required": ["code", "message"],
    }
    if numeric_snowflakes:
        strict = schemas["SnowflakeType"]
        schemas["SnowflakeType"] = {"anyOf": [strict, {"type": "integer", "minimum": 0}]}
    # The OAuth2 scheme is not checked (the bot authenticates with its token); say so once.
    warnings.filterwarnings("ignore", "Unsupported scheme type", UserWarning)
    # The description itself is Discord's and trusted: checking it would cost seconds per run.
    return OpenAPI.from_dict(spec, config=Config(spec_validator_cls=None))


@cache
def _templates() -> tuple[tuple[str, frozenset[str]], ...]:
    return tuple(
        (path, frozenset(m.upper() for m in item if m != "parameters"))
        for path, item in _spec()["paths"].items()
    )


def spec_route(method: str, path: str) -> str | None:
    """The spec's ``METHOD /template`` that this request matches, if any."""
    return _spec_route(method.upper(), _shape(path))


def _shape(path: str) -> str:
    # Only the shape matters for matching; ids would defeat the cache.
    return "/".join("{}" if part.isdigit() else part for part in path.split("/"))


@cache
def _spec_route(method: str, shape: str) -> str | None:
    parts = shape.split("/")
    best: tuple[int, str] | None = None
    for template, methods in _templates():
        t_parts = template.split("/")
        if len(t_parts) != len(parts) or method not in methods:
            continue
        literal = 0
        for want, got in zip(t_parts, parts, strict=True):
            if want.startswith("{"):
                continue
            if want != got:
                break
            literal += 1
        else:
            if best is None or literal > best[0]:
                best = (literal, template)
    return f"{method} {best[1]}" if best else None


_DISCRIMINATING = frozenset({"type", "enum", "const"})


def _deepest(error: Any) -> Any:
    """Inside a oneOf/anyOf, the branch error that got furthest into the value is the telling
    one: the others only say that the value is not some other kind of object."""
    while error.context:
        # A wrong discriminator ("type": 2 where a text display is 10) only says which branch
        # this is not; an error of any other kind is inside the branch that was meant.
        meant = [e for e in error.context if e.validator not in _DISCRIMINATING] or error.context
        error = max(meant, key=lambda e: len(e.absolute_path))
    return error


def _where(error: Any) -> tuple[str, str, str]:
    """Field path, rule and message of the most telling schema error under ``error``."""
    schema_errors = list(getattr(error, "schema_errors", None) or [])
    cause = error.__cause__
    while not schema_errors and cause is not None:
        schema_errors = list(getattr(cause, "schema_errors", None) or [])
        cause = cause.__cause__
    if not schema_errors:
        return "", type(error).__name__, str(error)[:200]
    worst = _deepest(max(schema_errors, key=lambda e: len(e.absolute_path)))
    path = ".".join(str(p) for p in worst.absolute_path)
    return path, str(worst.validator), worst.message[:200]


class Contract:
    """Validates traffic against Discord's description and keeps the tally."""

    def __init__(self) -> None:
        self._requests_api = _openapi(numeric_snowflakes=True)
        self._responses_api = _openapi(numeric_snowflakes=False)
        self.violations: list[Violation] = []
        self.requests = 0
        self.responses = 0
        self.routes: Counter[str] = Counter()
        self.seconds = 0.0
        self._lock = threading.Lock()

    def check(
        self,
        *,
        method: str,
        path: str,
        query: Iterable[tuple[str, str]],
        headers: Iterable[tuple[str, str]],
        content_type: str,
        body: bytes | None,
        status: int,
        response_headers: Mapping[str, str],
        response_body: bytes,
        injected: bool = False,
    ) -> list[Violation]:
        """``injected``: the answer is a failure a test asked for; Discord's description has no
        5xx answers, so an injected 5xx is not checked, and any other one is a violation."""
        """Validate one request and the sandbox's answer to it; returns the new violations."""
        from openapi_core.datatypes import RequestParameters
        from werkzeug.datastructures import Headers, ImmutableMultiDict

        started = time.perf_counter()
        route = spec_route(method, path)
        found: list[Violation] = []
        if route is None:
            found.append(
                Violation(f"{method} {path}", "request", "", "route", "no such path and method")
            )
        else:
            request = _Request(
                host_url=_HOST,
                path=_BASE + path,
                method=method.lower(),
                parameters=RequestParameters(
                    query=ImmutableMultiDict(list(query)),
                    header=Headers(list(headers)),
                    cookie=ImmutableMultiDict(),
                ),
                content_type=content_type,
                body=body,
            )
            response = _Response(
                status_code=status,
                content_type=response_headers.get("Content-Type", "application/json"),
                headers=Headers(list(response_headers.items())),
                data=response_body,
            )
            found += self._errors(route, "request", self._requests_api.iter_request_errors, request)
            if status >= 500 and not injected:
                found.append(
                    Violation(route, f"response {status}", "", "status", "the sandbox failed")
                )
            elif status < 500:
                found += self._errors(
                    route,
                    f"response {status}",
                    self._responses_api.iter_response_errors,
                    request,
                    response,
                )
        with self._lock:
            self.seconds += time.perf_counter() - started
            self.requests += 1
            self.responses += route is not None
            if route is not None:
                self.routes[route] += 1
            self.violations.extend(found)
        return found

    @staticmethod
    def _errors(route: str, side: str, iterate: Any, *args: Any) -> list[Violation]:
        try:
            return [Violation(route, side, *_where(error)) for error in iterate(*args)]
        except Exception as exc:  # a validator failure must fail the test, not the request
            return [Violation(route, side, "", "validator", repr(exc)[:300])]

    def take_violations(self) -> list[Violation]:
        """The violations so far, forgotten: for tests that break the contract on purpose."""
        with self._lock:
            taken, self.violations = self.violations, []
        return taken

    def summary(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "responses": self.responses,
            "seconds": self.seconds,
            "routes": dict(self.routes),
            # Ids differ from test to test: one example of each kind of violation is enough.
            "violations": [
                {"key": f"{v.route} {v.side}: {v.field}: {v.rule}", "example": str(v)}
                for v in self.violations
            ],
        }

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        name = f"{os.getpid()}-{uuid.uuid4().hex}.json"
        (directory / name).write_text(json.dumps(self.summary()), encoding="utf-8")

    def raise_if_broken(self) -> None:
        if self.violations:
            lines = "\n".join(f"  {v}" for v in self.violations[:20])
            more = len(self.violations) - 20
            tail = f"\n  ... and {more} more" if more > 0 else ""
            raise ContractViolationError(
                f"{len(self.violations)} contract violation(s) of Discord's API:\n{lines}{tail}"
            )
