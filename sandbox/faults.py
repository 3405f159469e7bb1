"""Fault injection and rate-limit accounting for the sandbox's REST API."""

from __future__ import annotations

import fnmatch
import hashlib
import time
from dataclasses import dataclass


@dataclass(slots=True)
class _Rule:
    pattern: str
    status: int
    remaining: int
    retry_after: float
    is_global: bool
    lost_reply: bool


@dataclass(frozen=True, slots=True)
class Fault:
    """One injected failure, as it is about to be answered.

    With `lost_reply` the request is carried out and only its answer is the error, as when a
    connection drops after Discord acted (or an edge answers 5xx, or a 429, once the API had
    made the message): the client cannot know that it did.
    """

    status: int
    retry_after: float
    is_global: bool
    lost_reply: bool = False


@dataclass(frozen=True, slots=True)
class RequestRecord:
    """One REST request the sandbox answered, for tests that count retries."""

    method: str
    path: str
    status: int


class FaultInjector:
    """Makes the next N requests matching a route answer with an error status.

    Routes are glob patterns over ``"METHOD /path"`` with the path as the bot sent it after
    ``/api/v10``, e.g. ``"POST /channels/*/messages"`` or ``"* /webhooks/*"``.
    """

    def __init__(self) -> None:
        self._rules: list[_Rule] = []

    def inject(
        self,
        route: str,
        status: int,
        *,
        times: int = 1,
        retry_after: float = 0.05,
        is_global: bool = False,
        lost_reply: bool = False,
    ) -> None:
        if times < 1:
            raise ValueError("times must be at least 1")
        if " " not in route:
            route = f"* {route}"
        self._rules.append(_Rule(route, status, times, retry_after, is_global, lost_reply))

    def rate_limit(self, route: str, *, times: int = 1, retry_after: float = 0.05) -> None:
        self.inject(route, 429, times=times, retry_after=retry_after)

    def server_error(self, route: str, *, times: int = 1, status: int = 500) -> None:
        self.inject(route, status, times=times)

    def status_after_post(
        self, route: str, status: int, *, times: int = 1, retry_after: float = 0.05
    ) -> None:
        """The next `times` matching requests are carried out (the message is made), then
        answered with `status`: 5xx, or a 429 that asks for a retry of what was done."""
        self.inject(route, status, times=times, retry_after=retry_after, lost_reply=True)

    def clear(self) -> None:
        self._rules.clear()

    @property
    def pending(self) -> int:
        return sum(rule.remaining for rule in self._rules)

    def take(self, method: str, path: str) -> Fault | None:
        key = f"{method.upper()} {path}"
        for rule in self._rules:
            if fnmatch.fnmatchcase(key, rule.pattern):
                rule.remaining -= 1
                if rule.remaining == 0:
                    self._rules.remove(rule)
                return Fault(rule.status, rule.retry_after, rule.is_global, rule.lost_reply)
        return None


@dataclass(slots=True)
class _Window:
    started: float
    used: int


@dataclass(frozen=True, slots=True)
class RateLimitState:
    bucket: str
    limit: int
    remaining: int
    reset_after: float
    allowed: bool

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Bucket": self.bucket,
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": f"{time.time() + self.reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{self.reset_after:.3f}",
        }


# Discord's own limit on posting: 5 messages per 5 seconds in one channel.
MESSAGE_ROUTE = "POST /channels/{channel_id}/messages"
DISCORD_ROUTE_LIMITS: dict[str, tuple[int, float]] = {MESSAGE_ROUTE: (5, 5.0)}
GLOBAL_LIMIT = 50  # requests per second across every route but the interaction endpoints


class RateLimiter:
    """Fixed-window buckets per (route, major parameter), as Discord reports them in headers,
    and Discord's global limit of 50 requests a second.

    Routes without a limit of Discord's own (``route_limits``) get ``limit`` per ``window``:
    generous, so that a well-behaved bot never waits, yet a bot that floods meets a real 429.
    """

    def __init__(
        self,
        limit: int = 50,
        window: float = 1.0,
        *,
        route_limits: dict[str, tuple[int, float]] | None = None,
        global_limit: int = GLOBAL_LIMIT,
    ) -> None:
        self.limit = limit
        self.window = window
        self.route_limits = DISCORD_ROUTE_LIMITS if route_limits is None else route_limits
        self.global_limit = global_limit
        self._windows: dict[str, _Window] = {}
        self._global = _Window(time.monotonic(), 0)

    def hit_global(self) -> float | None:
        """Count one request against the global limit: None if allowed, else the wait."""
        now = time.monotonic()
        if now - self._global.started >= 1.0:
            self._global = _Window(now, 0)
        if self._global.used >= self.global_limit:
            return max(0.001, 1.0 - (now - self._global.started))
        self._global.used += 1
        return None

    def hit(self, route_key: str, major: str) -> RateLimitState:
        bucket = hashlib.sha1(route_key.encode(), usedforsecurity=False).hexdigest()[:16]
        limit, span = self.route_limits.get(route_key, (self.limit, self.window))
        now = time.monotonic()
        key = f"{bucket}:{major}"
        window = self._windows.get(key)
        if window is None or now - window.started >= span:
            window = _Window(now, 0)
            self._windows[key] = window
        reset_after = max(0.001, span - (now - window.started))
        if window.used >= limit:
            return RateLimitState(bucket, limit, 0, reset_after, allowed=False)
        window.used += 1
        return RateLimitState(bucket, limit, limit - window.used, reset_after, True)
