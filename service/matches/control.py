"""A match in progress, stopped or held by its players or a moderator: concession, draw offers,
pauses (both players ask, or a moderator decides), resumes, and deadline extensions."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from engine.state import Side
from service import engine_bridge as eb
from service.announcements import (
    DrawOffered,
    Extended,
    Paused,
    PauseRequested,
    Resumed,
    ResumeRequested,
)
from service.errors import NotAllowedError, WrongStateError
from service.matches.core import MatchCore, match_over
from service.matches.lifecycle import MAX_TURN_SECONDS
from service.matches.records import is_computer
from storage import MatchRecord, Session
from storage.records import JsonDict, MatchStatus, SeatRecord

# After a resume, players get at least this long (or a whole turn, if shorter) to finish.
MIN_RESUME_SECONDS = 3600
IN_PROGRESS = (MatchStatus.ACTIVE, MatchStatus.PAUSED)


class Control:
    def __init__(self, core: MatchCore, turn_opened: Callable[[int], Awaitable[None]]) -> None:
        self.core = core
        # Called with the match id when its turn is open again (the computer seats give
        # their orders).
        self.turn_opened = turn_opened

    async def concede(self, match_id: int, player_id: str) -> MatchRecord:
        now = self.core.now_ms()
        async with self.core.store.write() as s:
            match, seat, state = await self._in_progress(s, match_id, player_id)
            assert seat.side is not None
            conceded = eb.end_by_concession(state, seat.side)
            ended = await self.end(s, match, conceded, now, "concession")
        await self.core.after_end(ended)
        return ended

    async def _in_progress(
        self, s: Session, match_id: int, player_id: str
    ) -> tuple[MatchRecord, SeatRecord, JsonDict]:
        """The match (locked, with its state) while active or paused, and the player's seat."""
        match = await self.core.load(s, match_id, with_state=True)
        seat = self.core.seat_of(match, player_id)
        if match.status not in IN_PROGRESS or match.state is None:
            raise WrongStateError(f"Match #{match_id} is not in progress.")
        return match, seat, match.state

    async def offer_draw(self, match_id: int, player_id: str) -> MatchRecord:
        """Offer a draw; when the opponent had offered one already, the draw is agreed."""
        now = self.core.now_ms()
        async with self.core.store.write() as s:
            match, seat, state = await self._in_progress(s, match_id, player_id)
            if match.draw_offer_side == seat.side:
                raise WrongStateError("You have already offered a draw this turn.")
            if match.draw_offer_side is not None:
                outcome = await self.end(s, match, eb.end_by_agreement(state), now, "agreed")
            else:
                assert seat.side is not None
                await s.update_match(match.id, draw_offer_side=seat.side)
                offer = DrawOffered(match.id, match.turn, Side(seat.side), player_id)
                await s.add_outbox(offer, now=now)
                outcome = await self.core.load(s, match.id)
        await self.core.after_end(outcome)
        return outcome

    async def accept_draw(self, match_id: int, player_id: str) -> MatchRecord:
        now = self.core.now_ms()
        async with self.core.store.write() as s:
            match, seat, state = await self._in_progress(s, match_id, player_id)
            if match.draw_offer_side is None or match.draw_offer_side == seat.side:
                raise WrongStateError("Your opponent has not offered a draw.")
            ended = await self.end(s, match, eb.end_by_agreement(state), now, "agreed")
        await self.core.after_end(ended)
        return ended

    async def decline_draw(self, match_id: int, player_id: str) -> MatchRecord:
        async with self.core.store.write() as s:
            match = await self.core.load(s, match_id)
            self.core.seat_of(match, player_id)
            if match.draw_offer_side is None:
                raise WrongStateError("No draw is on offer.")
            await s.update_match(match_id, draw_offer_side=None)
            return await self.core.load(s, match_id)

    async def end(
        self, s: Session, match: MatchRecord, state: JsonDict, now: int, reason: str
    ) -> MatchRecord:
        """End the match in the caller's transaction; the caller runs `after_end` once it
        commits."""
        winner, _engine_reason = eb.outcome(state)
        await s.update_match(
            match.id,
            status=MatchStatus.ENDED,
            state=state,
            deadline_at=None,
            paused_remaining_ms=None,
            result="draw" if winner is None else "win",
            winner=winner,
            end_reason=reason,
            ended_at=now,
            draw_offer_side=None,
            claimed_by=None,
            claimed_until=None,
        )
        await s.add_outbox(match_over(match, winner, reason), now=now)
        return await self.core.load(s, match.id)

    async def pause(self, match_id: int, by: str, *, moderator: bool = False) -> MatchRecord:
        """Pause when both players asked for it (the first request is recorded and announced),
        or at once for a moderator."""
        return await self._toggle(match_id, by, moderator, pausing=True)

    async def resume(self, match_id: int, by: str, *, moderator: bool = False) -> MatchRecord:
        return await self._toggle(match_id, by, moderator, pausing=False)

    async def _toggle(
        self, match_id: int, by: str, moderator: bool, *, pausing: bool
    ) -> MatchRecord:
        now = self.core.now_ms()
        word = "pause" if pausing else "resume"
        notify: int | None = None
        async with self.core.store.write() as s:
            match = await self.core.load(s, match_id)
            if match.status != (MatchStatus.ACTIVE if pausing else MatchStatus.PAUSED):
                raise WrongStateError(f"Match #{match_id} cannot {word} now.")
            seat = None if moderator else self.core.seat_of(match, by)
            others = [x for x in match.seats if seat is None or x.seat != seat.seat]
            if seat is not None and not all(x.toggle_request for x in others):
                if seat.toggle_request:
                    raise WrongStateError(
                        f"You have already asked to {word}; waiting for your opponent."
                    )
                await s.update_seat(match_id, seat.seat, toggle_request=True)
                await s.update_match(match_id)
                request = PauseRequested if pausing else ResumeRequested
                await s.add_outbox(request(match_id, by, match.version), now=now)
                return await self.core.load(s, match_id)
            for x in match.seats:
                await s.update_seat(match_id, x.seat, toggle_request=False)
            if pausing:
                assert match.deadline_at is not None
                remaining = max(0, match.deadline_at - now)
                await s.update_match(
                    match_id,
                    status=MatchStatus.PAUSED,
                    deadline_at=None,
                    paused_remaining_ms=remaining,
                    claimed_by=None,
                    claimed_until=None,
                )
                notify = None
                told: Paused | Resumed = Paused(
                    match_id, by, moderator, match.turn, remaining, match.version
                )
            else:
                floor = min(match.turn_seconds, MIN_RESUME_SECONDS) * 1000
                deadline = now + max(match.paused_remaining_ms or 0, floor)
                await s.update_match(
                    match_id,
                    status=MatchStatus.ACTIVE,
                    deadline_at=deadline,
                    paused_remaining_ms=None,
                )
                notify = deadline
                told = Resumed(match_id, by, moderator, match.turn, deadline, match.version)
            await s.add_outbox(told, now=now)
            result = await self.core.load(s, match_id)
        self.core.notify(match, notify)
        if not pausing and any(is_computer(seat.player_id) for seat in result.seats):
            # Orders a computer was working out when the match paused were dropped; its
            # confirmation may also resolve the turn.
            await self.turn_opened(match_id)
            return await self.core.read(match_id)
        return result

    async def extend(self, match_id: int, by: str, seconds: int, *, moderator: bool) -> MatchRecord:
        """Move the current deadline later (moderators only)."""
        if not moderator:
            raise NotAllowedError("Only a moderator can extend a deadline.")
        if seconds <= 0 or seconds > MAX_TURN_SECONDS:
            raise WrongStateError("An extension lasts between one second and two weeks.")
        now = self.core.now_ms()
        async with self.core.store.write() as s:
            match = await self.core.load(s, match_id)
            if match.status == MatchStatus.ACTIVE and match.deadline_at is not None:
                deadline: int | None = max(match.deadline_at, now) + seconds * 1000
                await s.update_match(match_id, deadline_at=deadline)
            elif match.status == MatchStatus.PAUSED:
                deadline = None
                await s.update_match(
                    match_id, paused_remaining_ms=(match.paused_remaining_ms or 0) + seconds * 1000
                )
            else:
                raise WrongStateError(f"Match #{match_id} is not in progress.")
            told = Extended(match_id, by, match.turn, seconds, deadline, match.version)
            await s.add_outbox(told, now=now)
            result = await self.core.load(s, match_id)
        if deadline is not None:
            self.core.notify(match, deadline)
        return result
