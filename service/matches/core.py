"""What every part of the match service shares: the store, the clock, the listeners, and the
checks that find a match and a player's seat in it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

from engine.state import Side
from service.announcements import MatchOver, OrderSheet
from service.clock import Clock, to_ms
from service.errors import (
    DeadlinePassedError,
    NotFoundError,
    NotYourMatchError,
    NotYourTurnError,
    WrongStateError,
)
from service.matches.records import DeadlineListener, EndListener, MatchEnded, is_computer
from storage import MatchRecord, Session, Store
from storage.records import MatchStatus, SeatRecord

log = logging.getLogger(__name__)


class MatchCore:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        node_id: str,
        claim_lease_ms: int,
        executor: Executor | None,
        workers: int,
    ) -> None:
        self.store = store
        self.clock = clock
        self.node_id = node_id
        self.claim_lease_ms = claim_lease_ms
        self.executor = executor
        # How many pieces a batch of resolutions is cut into for the executor.
        self.workers = max(1, workers)
        self.listeners: list[DeadlineListener] = []
        self.end_listeners: list[EndListener] = []

    def now_ms(self) -> int:
        return to_ms(self.clock.now())

    def notify(self, match: MatchRecord, deadline_at: int | None) -> None:
        for listener in self.listeners:
            try:
                listener(match.id, deadline_at, match.reminders)
            except Exception:
                log.exception("deadline listener failed for match %s", match.id)

    async def tell_ended(self, ended: MatchEnded) -> None:
        # The end is committed whatever a listener does; a failing one is logged, not raised.
        for listener in list(self.end_listeners):
            try:
                await listener(ended)
            except Exception:
                log.exception("end listener failed for match %s", ended.match_id)

    @staticmethod
    def ending(
        match: MatchRecord, turn: int, winner: str | None, reason: str, now: int
    ) -> MatchEnded:
        seat = None if winner is None else match.seat_for_side(winner)
        return MatchEnded(
            match.id,
            match.guild_id,
            turn,
            "draw" if winner is None else "win",
            None if winner is None else Side(winner),
            None if seat is None else seat.player_id,
            reason,
            now,
        )

    async def after_end(self, match: MatchRecord) -> None:
        """What follows a concession or an agreed draw, once its transaction committed."""
        if match.status != MatchStatus.ENDED:
            return
        self.notify(match, None)
        assert match.end_reason is not None and match.ended_at is not None
        await self.tell_ended(
            self.ending(match, match.turn, match.winner, match.end_reason, match.ended_at)
        )

    async def compute(self, fn: Callable[..., Any], *args: Any) -> Any:
        if self.executor is None:
            return fn(*args)
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)

    @staticmethod
    async def load(s: Session, match_id: int, *, with_state: bool = False) -> MatchRecord:
        match = await s.get_match(match_id, lock=True, with_state=with_state)
        if match is None:
            raise NotFoundError(f"There is no match #{match_id}.")
        return match

    async def read(self, match_id: int, *, with_state: bool = False) -> MatchRecord:
        async with self.store.read() as s:
            match = await s.get_match(match_id, with_state=with_state)
        if match is None:
            raise NotFoundError(f"There is no match #{match_id}.")
        return match

    @staticmethod
    def seat_of(match: MatchRecord, player_id: str) -> SeatRecord:
        seat = match.seat_of(player_id)
        if seat is None:
            raise NotYourMatchError(f"You are not playing in match #{match.id}.")
        return seat

    def playing(self, match: MatchRecord, player_id: str, turn: int | None, now: int) -> SeatRecord:
        """The player's seat, when they may act on the current turn right now."""
        seat = self.seat_of(match, player_id)
        if match.status == MatchStatus.PAUSED:
            raise WrongStateError(f"Match #{match.id} is paused.")
        if match.status != MatchStatus.ACTIVE:
            raise WrongStateError(f"Match #{match.id} is not in progress.")
        if turn is not None and turn != match.turn:
            raise NotYourTurnError(
                f"That was for turn {turn} of match #{match.id}; it is now turn {match.turn}."
            )
        if match.deadline_at is not None and now >= match.deadline_at:
            raise DeadlinePassedError(
                f"The deadline for turn {match.turn} has passed; the turn is being resolved."
            )
        assert seat.side is not None
        return seat


def order_sheets(match: MatchRecord, turn: int, deadline_at: int) -> list[OrderSheet]:
    """The order sheet of every human seat for a turn that has just opened."""
    return [
        OrderSheet(match.id, seat.player_id, turn, Side(seat.side), deadline_at)
        for seat in match.seats
        if not is_computer(seat.player_id) and seat.player_id is not None and seat.side is not None
    ]


async def announce_sheets(
    s: Session, match: MatchRecord, turn: int, deadline_at: int, now: int
) -> None:
    """Queue the order sheet of every human seat for a turn that has just opened."""
    for sheet in order_sheets(match, turn, deadline_at):
        await s.add_outbox(sheet, now=now)


def match_over(match: MatchRecord, winner: str | None, reason: str | None) -> MatchOver:
    """The announcement of the match's end (a concession, an agreement, or the last turn)."""
    winner_seat = None if winner is None else match.seat_for_side(winner)
    return MatchOver(
        match.id,
        None if winner is None else Side(winner),
        None if winner_seat is None else winner_seat.player_id,
        reason,
    )
