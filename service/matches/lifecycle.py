"""A match before its first turn: creating it, taking the open seat, choosing decks, cancelling,
and starting it (colours, the board, turn one and its deadline)."""

from __future__ import annotations

import random
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ai import LEVELS
from engine.content import load_content
from engine.setup import default_deck
from engine.state import RULESETS, Side
from service import engine_bridge as eb
from service.announcements import MatchCancelled, MatchCreated, MatchStarted
from service.deadline_anchor import DeadlineAnchor, turn_deadline
from service.errors import NotAllowedError, NotFoundError, WrongStateError
from service.matches.core import MatchCore, announce_sheets
from service.matches.records import computer_level, is_computer
from storage import MatchRecord, Session
from storage.records import MatchStatus

# Reminder points (seconds before the deadline) used when a match does not choose its own; a
# point longer than the turn itself is dropped.
DEFAULT_REMINDERS: tuple[int, ...] = (6 * 3600, 3600)
# Reminders are looked for this far ahead; no point may be longer.
MAX_REMINDER_SECONDS = 14 * 24 * 3600
MIN_TURN_SECONDS = 1
MAX_TURN_SECONDS = 14 * 24 * 3600


def _check_joinable(match: MatchRecord, player_id: str) -> None:
    if match.status != MatchStatus.OPEN:
        raise WrongStateError(f"Match #{match.id} is not open for joining.")
    if is_computer(player_id):
        raise NotAllowedError("A computer player only takes the seat it was created for.")
    if match.seat_of(player_id) is not None and match.seats[1].player_id != player_id:
        raise WrongStateError(f"You are already in match #{match.id}.")
    seat = match.seats[1]
    if seat.player_id is not None and seat.player_id != player_id:
        raise NotAllowedError(f"Match #{match.id} is reserved for another player.")


def red_seat_of(match: MatchRecord) -> int:
    """The seat that plays red: the one given when the match was created (its seats then carry
    their sides from the start), else drawn from the seed, so the match replays from its
    record."""
    for seat in match.seats:
        if seat.side == Side.RED:
            return seat.seat
    return random.Random(match.seed).randrange(2)


class Lifecycle:
    def __init__(self, core: MatchCore, turn_opened: Callable[[int], Awaitable[None]]) -> None:
        self.core = core
        # Called with the match id once a turn opens (the computer seats give their orders).
        self.turn_opened = turn_opened

    async def create_match(
        self,
        creator_id: str,
        *,
        deck_id: int | None = None,
        opponent_id: str | None = None,
        ruleset: str = "classic",
        realm: str = "veldt",
        board: str = "classic",
        symmetric: bool = False,
        turn_seconds: int = 24 * 3600,
        no_show_limit: int = 3,
        grace_seconds: int = 0,
        reminders: Sequence[int] | None = None,
        guild_id: str | None = None,
        channel_id: str | None = None,
        seed: int | None = None,
        red_seat: int | None = None,
        anchor: DeadlineAnchor | None = None,
    ) -> MatchRecord:
        """A new open match. `red_seat` (0: the creator, 1: the opponent) fixes the colours;
        without it they are drawn from the seed when the match starts. `anchor` moves each
        turn's deadline to a time of day and allowed weekdays (service.deadline_anchor)."""
        if ruleset not in RULESETS:
            raise WrongStateError(
                f"Unknown ruleset {ruleset!r}; choose one of {', '.join(RULESETS)}."
            )
        if not MIN_TURN_SECONDS <= turn_seconds <= MAX_TURN_SECONDS:
            raise WrongStateError("A turn lasts between one second and two weeks.")
        if red_seat not in (None, 0, 1):
            raise WrongStateError("The red seat is seat 0 (the creator) or 1.")
        if opponent_id == creator_id:
            raise NotAllowedError("You cannot play against yourself.")
        if is_computer(creator_id):
            raise NotAllowedError("A computer player cannot create a match.")
        level = computer_level(opponent_id)
        if is_computer(opponent_id) and level is None:
            raise WrongStateError(f"Unknown computer level; choose one of {', '.join(LEVELS)}.")
        seed = secrets.randbits(62) if seed is None else seed
        if no_show_limit < 0 or grace_seconds < 0:
            raise WrongStateError("The no-show limit and the grace time cannot be negative.")
        points = DEFAULT_REMINDERS if reminders is None else tuple(reminders)
        if any(p <= 0 or p > MAX_REMINDER_SECONDS for p in points):
            raise WrongStateError("Reminder points must be between one second and two weeks.")
        points = tuple(sorted({p for p in points if p < turn_seconds}, reverse=True))
        now = self.core.now_ms()
        async with self.core.store.write() as s:
            house, spells = None, None
            if deck_id is not None:
                house, spells = await self._deck_for(s, creator_id, deck_id)
            match_id = await s.insert_match(
                created_by=creator_id,
                guild_id=guild_id,
                channel_id=channel_id,
                ruleset=ruleset,
                realm=realm,
                board=board,
                symmetric=symmetric,
                seed=seed,
                turn_seconds=turn_seconds,
                no_show_limit=no_show_limit,
                grace_seconds=grace_seconds,
                reminders=points,
                now=now,
                deadline_clock=None if anchor is None else anchor.clock,
                deadline_days=None if anchor is None else anchor.days_text(),
                deadline_zone=anchor.zone if anchor is not None and anchor.anchored else None,
            )
            await s.insert_seat(match_id, 0, creator_id, deck_id, house, spells)
            if level is None:
                await s.insert_seat(match_id, 1, opponent_id, None, None, None)
            else:
                # The computer takes a house from the match seed and that house's default deck.
                content = load_content()
                ai_house = random.Random(f"{seed}:house").choice(sorted(content.houses))
                await s.insert_seat(
                    match_id, 1, opponent_id, None, ai_house, default_deck(ai_house, content)
                )
            if red_seat is not None:
                await s.update_seat(match_id, red_seat, side=str(Side.RED))
                await s.update_seat(match_id, 1 - red_seat, side=str(Side.BLUE))
            match = await self.core.load(s, match_id)
            await s.add_outbox(MatchCreated(match_id, creator_id, opponent_id), now=now)
        return match

    @staticmethod
    async def _deck_for(s: Session, player_id: str, deck_id: int) -> tuple[str, tuple[str, ...]]:
        deck = await s.get_deck(deck_id)
        if deck is None or deck.owner_id != player_id:
            raise NotFoundError(f"You have no deck #{deck_id}.")
        return deck.house, deck.spells

    async def join_match(
        self, match_id: int, player_id: str, deck_id: int | None = None
    ) -> MatchRecord:
        async with self.core.store.write() as s:
            match = await self.core.load(s, match_id)
            _check_joinable(match, player_id)
            fields: dict[str, Any] = {"player_id": player_id}
            if deck_id is not None:
                house, spells = await self._deck_for(s, player_id, deck_id)
                fields.update(deck_id=deck_id, house=house, spells=list(spells))
            await s.update_seat(match_id, 1, **fields)
            await s.update_match(match_id)
            return await self.core.load(s, match_id)

    async def check_join(self, match_id: int, player_id: str) -> MatchRecord:
        """The match, if ``player_id`` may join it now (else the refusal join_match gives):
        asked before a player picks the deck to join with."""
        match = await self.core.read(match_id)
        _check_joinable(match, player_id)
        return match

    async def choose_deck(self, match_id: int, player_id: str, deck_id: int) -> MatchRecord:
        async with self.core.store.write() as s:
            match = await self.core.load(s, match_id)
            seat = self.core.seat_of(match, player_id)
            if match.status != MatchStatus.OPEN:
                raise WrongStateError("Decks can only be changed before the match starts.")
            house, spells = await self._deck_for(s, player_id, deck_id)
            await s.update_seat(match_id, seat.seat, deck_id=deck_id, house=house, spells=spells)
            await s.update_match(match_id)
            return await self.core.load(s, match_id)

    async def cancel_match(self, match_id: int, player_id: str) -> MatchRecord:
        """Withdraw a match that has not started."""
        now = self.core.now_ms()
        async with self.core.store.write() as s:
            match = await self.core.load(s, match_id)
            self.core.seat_of(match, player_id)
            if match.status != MatchStatus.OPEN:
                raise WrongStateError("Only a match that has not started can be cancelled.")
            await s.update_match(match_id, status=MatchStatus.CANCELLED, ended_at=now)
            await s.add_outbox(MatchCancelled(match_id), now=now)
            return await self.core.load(s, match_id)

    async def expire_challenges(self, max_age_seconds: int) -> int:
        """Cancel the matches whose open seat nobody took within ``max_age_seconds``."""
        now = self.core.now_ms()
        cutoff = now - max_age_seconds * 1000
        async with self.core.store.read() as s:
            opens = await s.list_matches(statuses=(MatchStatus.OPEN,), limit=10_000)
        expired = 0
        for old in (m for m in opens if m.created_at <= cutoff):
            async with self.core.store.write() as s:
                match = await self.core.load(s, old.id)
                if match.status != MatchStatus.OPEN:
                    continue
                await s.update_match(match.id, status=MatchStatus.CANCELLED, ended_at=now)
                hours = max_age_seconds / 3600
                await s.add_outbox(MatchCancelled(match.id, expired_after_hours=hours), now=now)
                expired += 1
        return expired

    async def start_match(self, match_id: int, player_id: str) -> MatchRecord:
        """Give out colours, set up the board, open turn one and its deadline."""
        now = self.core.now_ms()
        async with self.core.store.read() as s:
            match = await self.core.load(s, match_id)
        self.core.seat_of(match, player_id)
        if match.status != MatchStatus.OPEN:
            raise WrongStateError(f"Match #{match_id} has already started.")
        missing = [s for s in match.seats if s.player_id is None or s.spells is None]
        if missing:
            raise WrongStateError(
                "Both players must join and choose a deck before the match starts."
            )
        red = red_seat_of(match)
        sides = {red: Side.RED, 1 - red: Side.BLUE}
        houses = {sides[seat.seat]: seat.house or "" for seat in match.seats}
        decks = {sides[seat.seat]: list(seat.spells or ()) for seat in match.seats}
        config, state = eb.start_game(
            seed=match.seed,
            ruleset=match.ruleset,
            realm=match.realm,
            board=match.board,
            symmetric=match.symmetric,
            houses=houses,
            decks=decks,
        )
        deadline = turn_deadline(match, now)
        turn = int(state["turn"])
        async with self.core.store.write() as s:
            for seat in match.seats:
                await s.update_seat(match_id, seat.seat, side=str(sides[seat.seat]))
            if not await s.update_match(
                match_id,
                expect_version=match.version,
                status=MatchStatus.ACTIVE,
                turn=turn,
                config=config,
                initial_state=state,
                state=state,
                deadline_at=deadline,
                started_at=now,
            ):
                raise WrongStateError(f"Match #{match_id} changed while starting; try again.")
            started = await self.core.load(s, match_id)
            players = {sides[x.seat]: x.player_id for x in match.seats}
            await s.add_outbox(MatchStarted(match_id, turn, deadline, players), now=now)
            await announce_sheets(s, started, turn, deadline, now)
        self.core.notify(started, deadline)
        await self.turn_opened(match_id)
        return started
