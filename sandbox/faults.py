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
    connection drops after Discord acted: the client cannot know that it did.
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
        if lost_reply and status == 429:
            raise ValueError("a rate limit is answered before the request is carried out")
        if " " not in route:
            route = f"* {route}"
        self._rules.append(_Rule(route, status, times, retry_after, is_global, lost_reply))

    def rate_limit(self, route: str, *, times: int = 1, retry_after: float = 0.05) -> None:
        self.inject(route, 429, times=times, retry_after=retry_after)

    def server_error(self, route: str, *, times: int = 1, status: int = 500) -> None:
        self.inject(route, status, times=times)

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


class RateLimiter:
    """Fixed-window buckets per (route, major parameter), as Discord reports them in headers.

    The defaults are generous so that a well-behaved bot never waits, yet a bot that floods one
    channel meets a real 429 rather than an endless stream of 200s.
    """

    def __init__(self, limit: int = 50, window: float = 1.0) -> None:
        self.limit = limit
        self.window = window
        self._windows: dict[str, _Window] = {}

    def hit(self, route_key: str, major: str) -> RateLimitState:
        bucket = hashlib.sha1(route_key.encode(), usedforsecurity=False).hexdigest()[:16]
        now = time.monotonic()
        key = f"{bucket}:{major}"
        window = self._windows.get(key)
        if window is None or now - window.started >= self.window:
            window = _Window(now, 0)
            self._windows[key] = window
        reset_after = max(0.001, self.window - (now - window.started))
        if window.used >= self.limit:
            return RateLimitState(bucket, self.limit, 0, reset_after, allowed=False)
        window.used += 1
        return RateLimitState(bucket, self.limit, self.limit - window.used, reset_after, True)
