"""Refusals a player can cause. Each message is fit to show them as it is."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class ServiceError(Exception):
    """An expected refusal; `str(error)` is the message for the player."""

    code = "refused"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFoundError(ServiceError):
    code = "not_found"


class NotYourMatchError(ServiceError):
    code = "not_your_match"


class NotAllowedError(ServiceError):
    code = "not_allowed"


class WrongStateError(ServiceError):
    """The match is not in a state that allows this (not started, paused, over, full...)."""

    code = "wrong_state"


class NotYourTurnError(ServiceError):
    """The action names a turn that is not the current one (an old button, for example)."""

    code = "not_your_turn"


class DeadlinePassedError(ServiceError):
    code = "deadline_passed"


class AlreadyConfirmedError(ServiceError):
    code = "already_confirmed"


class NotConfirmedError(ServiceError):
    code = "not_confirmed"


class InvalidOrdersError(ServiceError):
    code = "invalid_orders"

    def __init__(self, message: str, problems: Sequence[Any] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


class InvalidDeckError(ServiceError):
    code = "invalid_deck"

    def __init__(self, message: str, problems: Sequence[Any] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


def quoted(text: str, limit: int = 60) -> str:
    """``text`` as a refusal quotes it back: in quotes and cut to ``limit`` characters, so a
    refusal of an oversized input still fits in a Discord message."""
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")
