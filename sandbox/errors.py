"""Errors: the JSON errors the REST API answers, and what scripted players raise."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A Discord-style JSON error answer (HTTP status plus Discord's numeric code)."""

    def __init__(
        self, status: int, code: int, message: str, errors: dict[str, Any] | None = None
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            out["errors"] = self.errors
        return out


def unknown(kind: str, code: int) -> ApiError:
    return ApiError(404, code, f"Unknown {kind}")


def invalid_form(errors: dict[str, Any]) -> ApiError:
    return ApiError(400, 50035, "Invalid Form Body", errors)


def field_error(path: list[str | int], code: str, message: str) -> dict[str, Any]:
    """Nest one error the way Discord does: {"embeds": {"0": {"title": {"_errors": [...]}}}}."""
    node: dict[str, Any] = {"_errors": [{"code": code, "message": message}]}
    for part in reversed(path):
        node = {str(part): node}
    return node


def merge_errors(target: dict[str, Any], extra: dict[str, Any]) -> None:
    for key, value in extra.items():
        if key in target and isinstance(target[key], dict) and isinstance(value, dict):
            merge_errors(target[key], value)
        else:
            target[key] = value


class PlayerError(Exception):
    """A scripted player tried something the Discord client would not let a user do."""


class InteractionFailedError(PlayerError):
    """The bot did not acknowledge an interaction in time ("This interaction failed")."""


class SandboxTimeoutError(PlayerError):
    """Waiting for the bot to post something took longer than the given timeout."""
