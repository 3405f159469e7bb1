"""What a moderator does to a match beyond pauses and extensions: forfeit a side, cancel the
match, and hand a seat to another player or to the computer (and back)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ai import LEVELS
from engine.state import Side
from service import engine_bridge as eb
from service.announcements import MatchCancelled, SeatHandedOver
from service.errors import NotAllowedError, WrongStateError
from service.matches.control import IN_PROGRESS, Control
from service.matches.core import MatchCore
from service.matches.records import computer_level, is_computer
from storage import MatchRecord
from storage.records import MatchStatus


class Moderation:
    def __init__(
        self, core: MatchCore, control: Control, turn_opened: Callable[[int], Awaitable[None]]
    ) -> None:
        self.core = core
        self.control = control
        # Called with the match id when a computer takes a seat (it gives its orders).
        self.turn_opened = turn_opened

    async def forfeit(self, match_id: int, side: str) -> MatchRecord:
        """End a match in progress as lost by ``side``."""
        now = self.core.now_ms()
        async with self.core.store.write() as s:
            match = await self.core.load(s, match_id, with_state=True)
            if match.status not in IN_PROGRESS or match.state is None:
                raise WrongStateError(f"Match #{match_id} is not in progress.")
            state = eb.end_by_concession(match.state, side)
            ended = await self.control.end(s, match, state, now, "forfeit by a moderator")
        await self.core.after_end(ended)
        return ended

    async def cancel(self, match_id: int) -> MatchRecord:
        """Cancel a match: one not begun is withdrawn, one in progress ends without a winner."""
        now = self.core.now_ms()
        async with self.core.store.write() as s:
            match = await self.core.load(s, match_id, with_state=True)
            if match.status == MatchStatus.OPEN:
                await s.update_match(match_id, status=MatchStatus.CANCELLED, ended_at=now)
                await s.add_outbox(MatchCancelled(match_id), now=now)
                return await self.core.load(s, match_id)
            if match.status not in IN_PROGRESS or match.state is None:
                raise WrongStateError(f"Match #{match_id} is over already.")
            state = eb.end_by_agreement(match.state)
            ended = await self.control.end(s, match, state, now, "cancelled by a moderator")
        await self.core.after_end(ended)
        return ended

    async def hand_seat(self, match_id: int, side: str, player_id: str, by: str) -> MatchRecord:
        """Give ``side``'s seat to ``player_id`` (a person, or ``computer:LEVEL``): the side,
        its orders so far and its position stay; only who gives its orders changes."""
        if is_computer(player_id) and computer_level(player_id) is None:
            raise WrongStateError(f"Unknown computer level; choose one of {', '.join(LEVELS)}.")
        now = self.core.now_ms()
        async with self.core.store.write() as s:
            match = await self.core.load(s, match_id)
            if match.status not in IN_PROGRESS:
                raise WrongStateError(f"Match #{match_id} is not in progress.")
            seat = match.seat_for_side(side)
            other = match.seat_for_side(Side(side).other)
            if seat is None or other is None:
                raise WrongStateError(f"Match #{match_id} has no {side} seat.")
            if seat.player_id == player_id:
                raise WrongStateError("That player has that seat already.")
            if other.player_id == player_id:
                raise NotAllowedError("A player cannot take both seats of a match.")
            await s.update_seat(match_id, seat.seat, player_id=player_id, no_shows=0)
            told = SeatHandedOver(
                match_id, by, match.turn, Side(side), seat.player_id, player_id, match.version
            )
            await s.add_outbox(told, now=now)
            result = await self.core.load(s, match_id)
        if is_computer(player_id):
            await self.turn_opened(match_id)
        return result
