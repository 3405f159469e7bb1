"""What every part of the league service shares: the store, the clock, the match service."""

from __future__ import annotations

from dataclasses import dataclass

from service.clock import Clock, to_ms
from service.matches import MatchService
from storage import Store


@dataclass(slots=True)
class LeagueContext:
    store: Store
    clock: Clock
    matches: MatchService
    # Reminder points (seconds before a round's start deadline), longest first.
    reminders: tuple[int, ...]

    def now_ms(self) -> int:
        return to_ms(self.clock.now())
