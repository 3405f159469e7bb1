"""Discord's OpenAPI description as the sandbox's contract.

Every request the bot sends is matched to a path and method of Discord's own description of its
HTTP API (`sandbox/spec/openapi.json`); its path and query parameters, its authorisation header
and its body are validated against the operation's schemas, and so is every answer the sandbox
gives, errors included, against the response described for its status (exact, then 4XX).

The validator is `jsonschema` (Draft 2020-12, the dialect of OpenAPI 3.1) over the whole
description as one `referencing` resource, so every `$ref` resolves as written; a validator is
compiled once per operation, status and side and cached, which keeps a check at a few
milliseconds. (A general OpenAPI request/response library rebuilt its validators for every call,
which cost a tenth of a second a request on this description.)
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

SPEC_PATH = Path(__file__).resolve().parent / "spec" / "openapi.json"
_URN = "urn:discord-api"
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


@cache
def _spec() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
    return loaded


def corrected_spec() -> dict[str, Any]:
    """A fresh copy of the description with its errata corrected (what the sandbox answers)."""
    spec = copy.deepcopy(_spec())
    # Erratum: a field error of an Invalid Form Body (50035) carries a string code such as
    # "BASE_TYPE_MAX_LENGTH" (Discord's error reference shows so, and discord.py reads it so);
    # the description reuses the top-level Error, whose code is an integer.
    spec["components"]["schemas"]["InnerErrors"]["properties"]["_errors"]["items"] = {
        "type": "object",
        "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
        "required": ["code", "message"],
    }
    return spec


@cache
def _registry(*, numeric_snowflakes: bool) -> Any:
    """The description as one resource, with its errata; built once per process and side.

    Discord takes a snowflake in a request body as a JSON number too (discord.py sends
    `recipient_id` and attachment ids so), while its description says string: requests may use
    either; the sandbox's own answers must use strings, as Discord's do.
    """
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    spec = corrected_spec()
    schemas = spec["components"]["schemas"]
    if numeric_snowflakes:
        strict = schemas["SnowflakeType"]
        schemas["SnowflakeType"] = {"anyOf": [strict, {"type": "integer", "minimum": 0}]}
    resource = Resource.from_contents(spec, default_specification=DRAFT202012)
    return Registry().with_resource(_URN, resource)


def _pointer(*parts: str) -> str:
    return "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


@cache
def _validator(pointer: str, *, numeric_snowflakes: bool) -> Any:
    """A compiled validator for the schema at this JSON pointer of the description."""
    from jsonschema import Draft202012Validator

    registry = _registry(numeric_snowflakes=numeric_snowflakes)
    return Draft202012Validator({"$ref": f"{_URN}#/{pointer}"}, registry=registry)


@cache
def _inline_validator(schema_json: str) -> Any:
    """A compiled validator for a small inline schema (a parameter's, a header's), whose own
    `$ref`s point into the description."""
    from jsonschema import Draft202012Validator

    def absolute(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                k: (f"{_URN}{v}" if k == "$ref" and v.startswith("#/") else absolute(v))
                for k, v in node.items()
            }
        if isinstance(node, list):
            return [absolute(v) for v in node]
        return node

    schema = absolute(json.loads(schema_json))
    return Draft202012Validator(schema, registry=_registry(numeric_snowflakes=True))


def _deref(node: dict[str, Any]) -> dict[str, Any]:
    """Follow a `$ref` to a component (responses, parameters, headers) of the description."""
    while "$ref" in node:
        found: Any = _spec()
        for part in node["$ref"].removeprefix("#/").split("/"):
            found = found[part]
        node = found
    return node


def _coerce(raw: str, schema: dict[str, Any]) -> Any:
    """A query or header value as the type its schema names (they arrive as text)."""
    kinds = schema.get("type", "string")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    # Discord reads true/false and 1/0 as booleans in a query (discord.py sends 1 and 0).
    if "boolean" in kinds and raw.lower() in ("true", "false", "1", "0"):
        return raw.lower() in ("true", "1")
    for kind, convert in (("integer", int), ("number", float)):
        if kind in kinds:
            with contextlib.suppress(ValueError):
                return convert(raw)
    return raw


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


def _where(error: Any, prefix: str = "") -> tuple[str, str, str]:
    """Field path, rule and message of the most telling part of a schema error."""
    worst = _deepest(error)
    path = ".".join(str(p) for p in worst.absolute_path)
    return ".".join(p for p in (prefix, path) if p), str(worst.validator), worst.message[:200]


def _schema_errors(pointer: str, value: Any, *, numeric_snowflakes: bool) -> list[Any]:
    validator = _validator(pointer, numeric_snowflakes=numeric_snowflakes)
    return list(validator.iter_errors(value))


class Contract:
    """Validates traffic against Discord's description and keeps the tally."""

    def __init__(self) -> None:
        # Built here, once per process: the first sandbox pays the ~1 s, later ones nothing.
        _registry(numeric_snowflakes=True)
        _registry(numeric_snowflakes=False)
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
        headers: Mapping[str, str],
        content_type: str,
        body: Any,
        status: int,
        response_headers: Mapping[str, str],
        response_body: Any,
        injected: bool = False,
    ) -> list[Violation]:
        """Validate one request and the sandbox's answer to it; returns the new violations.

        ``body`` and ``response_body`` are parsed JSON (None for none). ``injected``: the answer
        is a failure a test asked for; Discord's description has no 5xx answers, so an injected
        5xx is not checked, and any other one is a violation."""
        started = time.perf_counter()
        route = spec_route(method, path)
        found: list[Violation] = []
        if route is None:
            found.append(
                Violation(f"{method} {path}", "request", "", "route", "no such path and method")
            )
        else:
            found += self._request(
                route,
                path=path,
                query=query,
                headers=headers,
                content_type=content_type,
                body=body,
            )
            side = f"response {status}"
            if status >= 500 and not injected:
                found.append(Violation(route, side, "", "status", "the sandbox failed"))
            elif status < 500:
                found += self._response(route, status, response_headers, response_body)
        with self._lock:
            self.seconds += time.perf_counter() - started
            self.requests += 1
            self.responses += route is not None
            if route is not None:
                self.routes[route] += 1
            self.violations.extend(found)
        return found

    def _request(
        self,
        route: str,
        *,
        path: str,
        query: Iterable[tuple[str, str]],
        headers: Mapping[str, str],
        content_type: str,
        body: Any,
    ) -> list[Violation]:
        method, template = route.split(" ", 1)
        item = _spec()["paths"][template]
        operation = item[method.lower()]
        out: list[Violation] = []
        values = dict(zip(template.split("/"), path.split("/"), strict=True))
        given = dict(query)
        for raw in [*item.get("parameters", []), *operation.get("parameters", [])]:
            param = _deref(raw)
            where, name = param["in"], param["name"]
            value = values.get("{" + name + "}") if where == "path" else given.pop(name, None)
            if where not in ("path", "query"):
                continue
            if value is None:
                if param.get("required"):
                    out.append(Violation(route, "request", name, "required", "missing"))
                continue
            value = _coerce(value, _deref(param.get("schema", {})))
            for error in self._param_errors(param, value):
                out.append(Violation(route, "request", *_where(error, f"{where}.{name}")))
        for name in given:
            out.append(Violation(route, "request", f"query.{name}", "parameter", "not described"))
        # Alternatives: the token is needed only where every one of them asks for it.
        schemes = operation.get("security", [])
        needs_token = bool(schemes) and all("BotToken" in scheme for scheme in schemes)
        if needs_token and not headers.get("Authorization", "").startswith("Bot "):
            out.append(Violation(route, "request", "Authorization", "security", "no token"))
        described = operation.get("requestBody")
        if described is None:
            if body is not None:
                out.append(Violation(route, "request", "", "body", "no body is described"))
            return out
        described = _deref(described)
        if body is None:
            if described.get("required"):
                out.append(Violation(route, "request", "", "required", "no body"))
            return out
        if content_type not in described["content"]:
            out.append(Violation(route, "request", "", "content-type", content_type))
            return out
        pointer = _pointer("paths", template, method.lower(), "requestBody", "content")
        pointer += "/" + _pointer(content_type, "schema")
        for error in _schema_errors(pointer, body, numeric_snowflakes=True):
            out.append(Violation(route, "request", *_where(error)))
        return out

    @staticmethod
    def _param_errors(param: dict[str, Any], value: Any) -> list[Any]:
        return list(_inline_validator(json.dumps(param.get("schema", {}))).iter_errors(value))

    def _response(
        self, route: str, status: int, headers: Mapping[str, str], body: Any
    ) -> list[Violation]:
        method, template = route.split(" ", 1)
        responses = _spec()["paths"][template][method.lower()]["responses"]
        side = f"response {status}"
        key = next((k for k in (str(status), f"{status // 100}XX") if k in responses), None)
        if key is None:
            return [Violation(route, side, "", "status", "not described for this route")]
        described = _deref(responses[key])
        out: list[Violation] = []
        for name, raw in (described.get("headers") or {}).items():
            header = _deref(raw)
            if name in headers:
                value = _coerce(headers[name], header.get("schema", {}))
                for error in self._param_errors(header, value):
                    out.append(Violation(route, side, *_where(error, name)))
        content = described.get("content")
        if not content:
            if body is not None:
                out.append(Violation(route, side, "", "body", "no body is described"))
            return out
        if body is None:
            return [*out, Violation(route, side, "", "body", "a body is described")]
        base = _pointer("paths", template, method.lower(), "responses", key)
        if "$ref" in responses[key]:
            base = responses[key]["$ref"].removeprefix("#/")
        pointer = base + "/" + _pointer("content", "application/json", "schema")
        for error in _schema_errors(pointer, body, numeric_snowflakes=False):
            out.append(Violation(route, side, *_where(error)))
        return out

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
