"""Reminders before a deadline, to the players who have not confirmed their orders."""

from __future__ import annotations

from engine.state import Side
from service.announcements import Reminder
from service.matches.core import MatchCore
from service.matches.lifecycle import MAX_REMINDER_SECONDS
from service.matches.records import gave_nothing, is_computer
from storage.records import MatchStatus


class Reminders:
    def __init__(self, core: MatchCore) -> None:
        self.core = core

    async def send_reminders(self) -> int:
        """Queue reminders whose point has come, to players who have not confirmed.

        Only deadlines still ahead are considered, so a reminder is never sent after its
        deadline; when several points of one deadline are due at once (the process was down),
        only the nearest is sent."""
        now = self.core.now_ms()
        async with self.core.store.read() as s:
            pending = await s.pending_deadlines(now, now + MAX_REMINDER_SECONDS * 1000)
        sent = 0
        for item in pending:
            due = [p for p in item.reminders if item.deadline_at - p * 1000 <= now]
            if due:
                sent += await self._remind(item.id, item.turn, item.deadline_at, min(due), now)
        return sent

    async def _remind(self, match_id: int, turn: int, deadline: int, point: int, now: int) -> int:
        count = 0
        async with self.core.store.write() as s:
            match = await s.get_match(match_id, lock=True)
            if (
                match is None
                or match.status != MatchStatus.ACTIVE
                or match.turn != turn
                or match.deadline_at != deadline
                or deadline <= now
            ):
                return 0
            if not await s.mark_reminder(match_id, turn, deadline, point, now):
                return 0
            orders = await s.get_orders(match_id, turn)
            for seat in match.seats:
                if (
                    seat.side is None
                    or seat.player_id is None
                    or is_computer(seat.player_id)
                    or (seat.side in orders and orders[seat.side].confirmed)
                ):
                    continue
                record = orders.get(seat.side)
                # A no-show here would reach the limit, with no grace left to move the deadline.
                last_chance = (
                    gave_nothing(record)
                    and match.no_show_limit > 0
                    and seat.no_shows + 1 >= match.no_show_limit
                    and (seat.grace_used or match.grace_seconds <= 0)
                )
                reminder = Reminder(
                    match_id,
                    seat.player_id,
                    turn,
                    Side(seat.side),
                    deadline,
                    point,
                    has_orders=record is not None,
                    forfeits_if_missed=last_chance,
                )
                await s.add_outbox(reminder, now=now)
                count += 1
        return count
