"""Matches from creation to the end: seats, orders, confirmation, resolution, deadlines.

Every change is one transaction against the database, which is the source of truth. A turn is
resolved optimistically: read the match at some version, run the engine outside any lock, then
commit the new state only if the match is still at that version (`update_match(expect_version=)`).
Order changes and confirmations bump the version, so a resolution computed from stale orders is
thrown away and redone; the (match, turn) primary key of `turns` is the last guard. Overdue
matches are claimed with a lease before they are worked on, so two processes sharing a database
do not both compute the same turn.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from ai import DESCRIPTIONS, LEVELS, Level, choose_orders
from engine.content import load_content
from engine.orders import Orders
from engine.setup import default_deck
from engine.state import RULESETS, GameState, Side
from engine.view import view_for
from service import engine_bridge as eb
from service import export
from service.clock import Clock, to_ms
from service.errors import (
    AlreadyConfirmedError,
    DeadlinePassedError,
    InvalidOrdersError,
    NotAllowedError,
    NotConfirmedError,
    NotFoundError,
    NotYourMatchError,
    NotYourTurnError,
    ServiceError,
    WrongStateError,
)
from storage import ConflictError, MatchRecord, OrdersRecord, Session, Store, TurnRecord
from storage.records import JsonDict, SeatRecord

log = logging.getLogger(__name__)

SIDES = eb.SIDES
DeadlineListener = Callable[[int, int | None, tuple[int, ...]], None]
# Reminder points (seconds before the deadline) used when a match does not choose its own; a
# point longer than the turn itself is dropped.
DEFAULT_REMINDERS: tuple[int, ...] = (6 * 3600, 3600)
# Reminders are looked for this far ahead; no point may be longer.
MAX_REMINDER_SECONDS = 14 * 24 * 3600
MIN_TURN_SECONDS = 1
MAX_TURN_SECONDS = 14 * 24 * 3600
# After a resume, players get at least this long (or a whole turn, if shorter) to finish.
MIN_RESUME_SECONDS = 3600
# A seat whose player id is this prefix and a level of `ai.LEVELS` is played by the computer.
COMPUTER_PREFIX = "computer:"
COMPUTER_LEVELS: tuple[str, ...] = LEVELS
# One line per level, shown next to it where a player picks the computer.
COMPUTER_DESCRIPTIONS: dict[str, str] = {level: DESCRIPTIONS[level] for level in LEVELS}
# The anytime cap on a computer's thinking per turn (levels without a clock ignore it).
COMPUTER_SECONDS = 1.5


def computer_level(player_id: str | None) -> Level | None:
    """The level of a computer player's id; None for a human (or an open seat)."""
    if player_id is None or not player_id.startswith(COMPUTER_PREFIX):
        return None
    level = player_id.removeprefix(COMPUTER_PREFIX)
    for known in LEVELS:
        if level == known:
            return known
    return None


def _check_joinable(match: MatchRecord, player_id: str) -> None:
    if match.status != "open":
        raise WrongStateError(f"Match #{match.id} is not open for joining.")
    if is_computer(player_id):
        raise NotAllowedError("A computer player only takes the seat it was created for.")
    if match.seat_of(player_id) is not None and match.seats[1].player_id != player_id:
        raise WrongStateError(f"You are already in match #{match.id}.")
    seat = match.seats[1]
    if seat.player_id is not None and seat.player_id != player_id:
        raise NotAllowedError(f"Match #{match.id} is reserved for another player.")


def is_computer(player_id: str | None) -> bool:
    return player_id is not None and player_id.startswith(COMPUTER_PREFIX)


@dataclass(frozen=True, slots=True)
class NoShow:
    side: str
    player_id: str | None


@dataclass(frozen=True, slots=True)
class ResolvedTurn:
    match_id: int
    turn: int
    cause: str
    no_shows: tuple[NoShow, ...]
    next_turn: int | None
    deadline_at: int | None
    winner: str | None
    end_reason: str | None

    @property
    def ended(self) -> bool:
        return self.next_turn is None


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """A match's end, as told to end listeners once it is committed."""

    match_id: int
    guild_id: str | None
    turn: int
    result: str
    winner: str | None
    winner_id: str | None
    reason: str
    ended_at: int


EndListener = Callable[[MatchEnded], Awaitable[object]]


@dataclass(frozen=True, slots=True)
class ConfirmResult:
    orders: OrdersRecord
    resolved: ResolvedTurn | None


@dataclass(frozen=True, slots=True)
class _Plan:
    """A resolution computed from a match read at `version`, ready to commit."""

    match: MatchRecord
    version: int
    cause: str
    orders: dict[str, JsonDict | None]
    no_show_sides: tuple[str, ...]
    new_state: JsonDict
    report: JsonDict


@dataclass(frozen=True, slots=True)
class _Final:
    """A planned resolution with its consequences: no-show counts, forfeit, next deadline."""

    plan: _Plan
    state: JsonDict
    counts: dict[str, int]
    winner: str | None
    end_reason: str | None
    next_turn: int | None
    deadline: int | None


@dataclass(slots=True)
class _Batch:
    """Claimed matches whose resolutions are being computed."""

    jobs: list[tuple[MatchRecord, dict[str, OrdersRecord], str]]
    results: asyncio.Future[list[tuple[JsonDict, JsonDict]]]


def _orders_empty(doc: Mapping[str, Any]) -> bool:
    return not any(
        doc.get(section) for section in ("casts", "moves", "trains", "discard", "mana_choices")
    )


def gave_nothing(record: OrdersRecord | None) -> bool:
    """A side that neither gave an order nor confirmed passing is a no-show."""
    return record is None or (not record.confirmed and _orders_empty(record.orders))


class MatchService:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        node_id: str = "main",
        claim_lease_seconds: float = 120.0,
        executor: Executor | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.node_id = node_id
        self.claim_lease_ms = int(claim_lease_seconds * 1000)
        self.executor = executor
        self._listeners: list[DeadlineListener] = []
        self._end_listeners: list[EndListener] = []

    # --- plumbing ---------------------------------------------------------------------------

    def now_ms(self) -> int:
        return to_ms(self.clock.now())

    def add_deadline_listener(self, listener: DeadlineListener) -> None:
        """Called with (match id, deadline in ms or None, reminder points) after a deadline
        changes."""
        self._listeners.append(listener)

    def _notify(self, match: MatchRecord, deadline_at: int | None) -> None:
        for listener in self._listeners:
            try:
                listener(match.id, deadline_at, match.reminders)
            except Exception:
                log.exception("deadline listener failed for match %s", match.id)

    def add_end_listener(self, listener: EndListener) -> None:
        """Awaited once per ended match (concession, agreement, the engine's verdict, no-shows),
        after the transaction that ended it commits."""
        self._end_listeners.append(listener)

    def remove_end_listener(self, listener: EndListener) -> None:
        self._end_listeners.remove(listener)

    async def _tell_ended(self, ended: MatchEnded) -> None:
        # The end is committed whatever a listener does; a failing one is logged, not raised.
        for listener in list(self._end_listeners):
            try:
                await listener(ended)
            except Exception:
                log.exception("end listener failed for match %s", ended.match_id)

    @staticmethod
    def _ending(
        match: MatchRecord, turn: int, winner: str | None, reason: str, now: int
    ) -> MatchEnded:
        seat = None if winner is None else match.seat_for_side(winner)
        return MatchEnded(
            match.id,
            match.guild_id,
            turn,
            "draw" if winner is None else "win",
            winner,
            None if seat is None else seat.player_id,
            reason,
            now,
        )

    async def _after_resolution(self, match: MatchRecord, result: ResolvedTurn, now: int) -> None:
        self._notify(match, result.deadline_at)
        if not result.ended:
            await self._play_computers(match.id)
        if result.ended:
            assert result.end_reason is not None
            await self._tell_ended(
                self._ending(match, result.turn, result.winner, result.end_reason, now)
            )

    async def _after_end(self, match: MatchRecord) -> None:
        """What follows a concession or an agreed draw, once its transaction committed."""
        if match.status != "ended":
            return
        self._notify(match, None)
        assert match.end_reason is not None and match.ended_at is not None
        await self._tell_ended(
            self._ending(match, match.turn, match.winner, match.end_reason, match.ended_at)
        )

    def _workers(self) -> int:
        return 1 if self.executor is None else max(1, getattr(self.executor, "_max_workers", 1))

    async def _compute(self, fn: Callable[..., Any], *args: Any) -> Any:
        if self.executor is None:
            return fn(*args)
        return await asyncio.get_running_loop().run_in_executor(self.executor, fn, *args)

    @staticmethod
    async def _load(s: Session, match_id: int, *, with_state: bool = False) -> MatchRecord:
        match = await s.get_match(match_id, lock=True, with_state=with_state)
        if match is None:
            raise NotFoundError(f"There is no match #{match_id}.")
        return match

    @staticmethod
    def _seat_of(match: MatchRecord, player_id: str) -> SeatRecord:
        seat = match.seat_of(player_id)
        if seat is None:
            raise NotYourMatchError(f"You are not playing in match #{match.id}.")
        return seat

    def _playing(
        self, match: MatchRecord, player_id: str, turn: int | None, now: int
    ) -> SeatRecord:
        """The player's seat, when they may act on the current turn right now."""
        seat = self._seat_of(match, player_id)
        if match.status == "paused":
            raise WrongStateError(f"Match #{match.id} is paused.")
        if match.status != "active":
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

    @staticmethod
    async def _announce(
        s: Session,
        key: str,
        match: MatchRecord,
        kind: str,
        now: int,
        *,
        recipient: str | None = None,
        **payload: Any,
    ) -> None:
        await s.add_outbox(
            key,
            match_id=match.id,
            kind=kind,
            recipient=recipient,
            payload={"match_id": match.id, **payload},
            now=now,
        )

    # --- creating and starting --------------------------------------------------------------

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
    ) -> MatchRecord:
        if ruleset not in RULESETS:
            raise WrongStateError(
                f"Unknown ruleset {ruleset!r}; choose one of {', '.join(RULESETS)}."
            )
        if not MIN_TURN_SECONDS <= turn_seconds <= MAX_TURN_SECONDS:
            raise WrongStateError("A turn lasts between one second and two weeks.")
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
        now = self.now_ms()
        async with self.store.write() as s:
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
            match = await self._load(s, match_id)
            await self._announce(
                s,
                f"match:{match_id}:created",
                match,
                "match_created",
                now,
                creator_id=creator_id,
                opponent_id=opponent_id,
            )
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
        async with self.store.write() as s:
            match = await self._load(s, match_id)
            _check_joinable(match, player_id)
            fields: dict[str, Any] = {"player_id": player_id}
            if deck_id is not None:
                house, spells = await self._deck_for(s, player_id, deck_id)
                fields.update(deck_id=deck_id, house=house, spells=list(spells))
            await s.update_seat(match_id, 1, **fields)
            await s.update_match(match_id)
            return await self._load(s, match_id)

    async def check_join(self, match_id: int, player_id: str) -> MatchRecord:
        """The match, if ``player_id`` may join it now (else the refusal join_match gives):
        asked before a player picks the deck to join with."""
        async with self.store.read() as s:
            match = await s.get_match(match_id)
        if match is None:
            raise NotFoundError(f"There is no match #{match_id}.")
        _check_joinable(match, player_id)
        return match

    async def choose_deck(self, match_id: int, player_id: str, deck_id: int) -> MatchRecord:
        async with self.store.write() as s:
            match = await self._load(s, match_id)
            seat = self._seat_of(match, player_id)
            if match.status != "open":
                raise WrongStateError("Decks can only be changed before the match starts.")
            house, spells = await self._deck_for(s, player_id, deck_id)
            await s.update_seat(match_id, seat.seat, deck_id=deck_id, house=house, spells=spells)
            await s.update_match(match_id)
            return await self._load(s, match_id)

    async def cancel_match(self, match_id: int, player_id: str) -> MatchRecord:
        """Withdraw a match that has not started."""
        now = self.now_ms()
        async with self.store.write() as s:
            match = await self._load(s, match_id)
            self._seat_of(match, player_id)
            if match.status != "open":
                raise WrongStateError("Only a match that has not started can be cancelled.")
            await s.update_match(match_id, status="cancelled", ended_at=now)
            await self._announce(s, f"match:{match_id}:cancelled", match, "match_cancelled", now)
            return await self._load(s, match_id)

    async def start_match(self, match_id: int, player_id: str) -> MatchRecord:
        """Draw colours, set up the board, open turn one and its deadline."""
        now = self.now_ms()
        async with self.store.read() as s:
            match = await self._load(s, match_id)
        self._seat_of(match, player_id)
        if match.status != "open":
            raise WrongStateError(f"Match #{match_id} has already started.")
        missing = [s for s in match.seats if s.player_id is None or s.spells is None]
        if missing:
            raise WrongStateError(
                "Both players must join and choose a deck before the match starts."
            )
        # Colours come from the match seed, so the whole match replays from its record.
        red_seat = random.Random(match.seed).randrange(2)
        sides = {red_seat: "red", 1 - red_seat: "blue"}
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
        deadline = now + match.turn_seconds * 1000
        turn = int(state["turn"])
        async with self.store.write() as s:
            for seat in match.seats:
                await s.update_seat(match_id, seat.seat, side=sides[seat.seat])
            if not await s.update_match(
                match_id,
                expect_version=match.version,
                status="active",
                turn=turn,
                config=config,
                initial_state=state,
                state=state,
                deadline_at=deadline,
                started_at=now,
            ):
                raise WrongStateError(f"Match #{match_id} changed while starting; try again.")
            started = await self._load(s, match_id)
            await self._announce(
                s,
                f"match:{match_id}:started",
                started,
                "match_started",
                now,
                turn=turn,
                deadline_at=deadline,
                sides={sides[x.seat]: x.player_id for x in match.seats},
            )
            for seat in started.seats:
                if is_computer(seat.player_id):
                    continue
                await self._announce(
                    s,
                    f"match:{match_id}:turn:{turn}:sheet:{seat.side}",
                    started,
                    "order_sheet",
                    now,
                    recipient=seat.player_id,
                    turn=turn,
                    side=seat.side,
                    deadline_at=deadline,
                )
        self._notify(started, deadline)
        await self._play_computers(match_id)
        return started

    # --- orders -----------------------------------------------------------------------------

    async def submit_orders(
        self,
        match_id: int,
        player_id: str,
        orders: Orders | Mapping[str, Any],
        *,
        turn: int | None = None,
    ) -> OrdersRecord:
        """Replace the player's orders for the current turn (not confirming them)."""
        now = self.now_ms()
        parsed = orders if isinstance(orders, Orders) else self._parse(orders)
        async with self.store.write() as s:
            match = await self._load(s, match_id, with_state=True)
            seat = self._playing(match, player_id, turn, now)
            assert seat.side is not None and match.state is not None
            current = (await s.get_orders(match_id, match.turn)).get(seat.side)
            if current is not None and current.confirmed:
                raise AlreadyConfirmedError(
                    "Your orders are confirmed; unconfirm them to change them."
                )
            problems = eb.check_orders(match.state, seat.side, parsed)
            if problems:
                lines = "\n".join(f"- {p.message}" for p in problems)
                raise InvalidOrdersError(f"These orders cannot be given:\n{lines}", problems)
            doc = parsed.to_dict()
            doc["confirmed"] = False
            await s.put_orders(match_id, match.turn, seat.side, doc, confirmed=False, now=now)
            await s.update_match(match_id)
            stored = (await s.get_orders(match_id, match.turn))[seat.side]
        return stored

    @staticmethod
    def _parse(doc: Mapping[str, Any]) -> Orders:
        try:
            return eb.parse_orders(doc)
        except ValueError as exc:
            raise InvalidOrdersError(f"Those orders could not be read: {exc}") from exc

    async def clear_orders(self, match_id: int, player_id: str, *, turn: int | None = None) -> None:
        now = self.now_ms()
        async with self.store.write() as s:
            match = await self._load(s, match_id)
            seat = self._playing(match, player_id, turn, now)
            assert seat.side is not None
            current = (await s.get_orders(match_id, match.turn)).get(seat.side)
            if current is not None and current.confirmed:
                raise AlreadyConfirmedError(
                    "Your orders are confirmed; unconfirm them to change them."
                )
            await s.delete_orders(match_id, match.turn, seat.side)
            await s.update_match(match_id)

    async def current_orders(self, match_id: int, player_id: str) -> OrdersRecord | None:
        async with self.store.read() as s:
            match = await self._load(s, match_id)
            seat = self._seat_of(match, player_id)
            if seat.side is None:
                return None
            return (await s.get_orders(match_id, match.turn)).get(seat.side)

    async def confirm(
        self, match_id: int, player_id: str, *, turn: int | None = None
    ) -> ConfirmResult:
        """Confirm the player's orders (none given: confirm passing); the turn resolves when
        both sides have confirmed."""
        now = self.now_ms()
        async with self.store.write() as s:
            match = await self._load(s, match_id)
            seat = self._playing(match, player_id, turn, now)
            assert seat.side is not None
            all_orders = await s.get_orders(match_id, match.turn)
            current = all_orders.get(seat.side)
            if current is not None and current.confirmed:
                raise AlreadyConfirmedError("Your orders are already confirmed.")
            doc = dict(current.orders) if current is not None else Orders().to_dict()
            doc["confirmed"] = True
            await s.put_orders(match_id, match.turn, seat.side, doc, confirmed=True, now=now)
            await s.update_match(match_id)
            all_orders = await s.get_orders(match_id, match.turn)
            everyone = all(all_orders.get(side) and all_orders[side].confirmed for side in SIDES)
        resolved = await self.resolve_match(match_id) if everyone else None
        return ConfirmResult(all_orders[seat.side], resolved)

    async def unconfirm(self, match_id: int, player_id: str, *, turn: int | None = None) -> None:
        now = self.now_ms()
        async with self.store.write() as s:
            match = await self._load(s, match_id)
            seat = self._playing(match, player_id, turn, now)
            assert seat.side is not None
            current = (await s.get_orders(match_id, match.turn)).get(seat.side)
            if current is None or not current.confirmed:
                raise NotConfirmedError("Your orders are not confirmed.")
            await s.set_confirmed(match_id, match.turn, seat.side, False, now)
            await s.update_match(match_id)

    async def play_computer_turns(self, *, limit: int = 10_000) -> int:
        """Give the orders of every computer seat still owing them for its open turn (after a
        restart, or a turn the computer's orders missed); returns the matches looked at."""
        async with self.store.read() as s:
            matches = await s.list_matches(
                player_prefix=COMPUTER_PREFIX, statuses=("active",), limit=limit
            )
        for match in matches:
            await self._play_computers(match.id)
        return len(matches)

    async def _play_computers(self, match_id: int) -> None:
        """Give and confirm the orders of the match's computer seats for the open turn.

        Called whenever a turn opens; a seat that already confirmed this turn is left alone, so
        a repeated call does nothing."""
        match = await self.get_match(match_id, with_state=True)
        if match.status != "active" or match.state is None:
            return
        for seat in match.seats:
            level = computer_level(seat.player_id)
            if level is None or seat.side is None or seat.player_id is None:
                continue
            current = await self.current_orders(match_id, seat.player_id)
            if current is not None and current.confirmed:
                continue
            state = GameState.from_dict(match.state)
            content = load_content()
            view = view_for(state, Side(seat.side), content=content)
            rng = random.Random(f"{match.seed}:{match.turn}:{seat.side}")
            orders = await asyncio.to_thread(
                choose_orders,
                view,
                level,
                rng,
                content=content,
                options=state.options,
                seconds=COMPUTER_SECONDS,
                # The search may share its worlds out to the bot's worker processes.
                mapper=None if self.executor is None else self.executor.map,
                workers=self._workers(),
            )
            try:
                await self.submit_orders(match_id, seat.player_id, orders, turn=match.turn)
                await self.confirm(match_id, seat.player_id, turn=match.turn)
            except ServiceError:
                # The turn moved on (resolved, paused, ended) while the computer thought.
                log.info("computer orders for match %s turn %s dropped", match_id, match.turn)

    # --- resolution -------------------------------------------------------------------------

    def _cause(
        self, match: MatchRecord, orders: Mapping[str, OrdersRecord], now: int
    ) -> str | None:
        if match.status != "active" or match.state is None:
            return None
        if all(side in orders and orders[side].confirmed for side in SIDES):
            return "confirmed"
        if match.deadline_at is not None and match.deadline_at <= now:
            return "deadline"
        return None

    def _graced(self, match: MatchRecord, orders: Mapping[str, OrdersRecord]) -> list[SeatRecord]:
        """Seats whose once-per-match grace extends this deadline."""
        if match.grace_seconds <= 0:
            return []
        return [
            seat
            for seat in match.seats
            if seat.side is not None and not seat.grace_used and gave_nothing(orders.get(seat.side))
        ]

    async def resolve_match(self, match_id: int) -> ResolvedTurn | None:
        """Resolve the current turn if it is due (both confirmed, or deadline passed).

        Safe to call from anywhere at any time: at most one caller commits each turn."""
        for _attempt in range(20):
            now = self.now_ms()
            async with self.store.read() as s:
                match = await s.get_match(match_id, with_state=True)
                if match is None:
                    return None
                orders = await s.get_orders(match_id, match.turn)
            cause = self._cause(match, orders, now)
            if cause is None:
                return None
            if cause == "deadline" and self._graced(match, orders):
                if await self._grant_grace(match, orders, now):
                    return None
                continue
            assert match.state is not None
            docs = self._order_docs(orders)
            new_state, report = await self._compute(eb.resolve, match.state, docs)
            plan = self._plan(match, orders, cause, new_state, report)
            result = await self._commit(plan, now)
            if result is not None:
                return result
        raise RuntimeError(f"match {match_id}: the turn kept changing while being resolved")

    @staticmethod
    def _order_docs(orders: Mapping[str, OrdersRecord]) -> dict[str, JsonDict | None]:
        return {side: (orders[side].orders if side in orders else None) for side in SIDES}

    def _plan(
        self,
        match: MatchRecord,
        orders: Mapping[str, OrdersRecord],
        cause: str,
        new_state: JsonDict,
        report: JsonDict,
    ) -> _Plan:
        computers = {s.side for s in match.seats if is_computer(s.player_id)}
        no_shows = tuple(
            side for side in SIDES if side not in computers and gave_nothing(orders.get(side))
        )
        docs = self._order_docs(orders)
        return _Plan(match, match.version, cause, docs, no_shows, new_state, report)

    async def _grant_grace(
        self, match: MatchRecord, orders: Mapping[str, OrdersRecord], now: int
    ) -> bool:
        seats = self._graced(match, orders)
        assert match.deadline_at is not None
        deadline = max(match.deadline_at, now) + match.grace_seconds * 1000
        async with self.store.write() as s:
            if not await s.update_match(
                match.id,
                expect_version=match.version,
                deadline_at=deadline,
                claimed_by=None,
                claimed_until=None,
            ):
                return False
            for seat in seats:
                await s.update_seat(match.id, seat.seat, grace_used=True)
                await self._announce(
                    s,
                    f"match:{match.id}:turn:{match.turn}:grace:{seat.side}",
                    match,
                    "grace",
                    now,
                    turn=match.turn,
                    side=seat.side,
                    player_id=seat.player_id,
                    deadline_at=deadline,
                )
        self._notify(match, deadline)
        return True

    @staticmethod
    def _finalise(plan: _Plan, now: int) -> _Final:
        """Everything a resolution writes, decided before the write transaction opens."""
        match = plan.match
        state = plan.new_state
        counts = {
            seat.side: (seat.no_shows + 1 if seat.side in plan.no_show_sides else 0)
            for seat in match.seats
            if seat.side is not None
        }
        end_reason: str | None = None
        winner, reason = eb.outcome(state)
        if reason is None and match.no_show_limit > 0:
            forfeits = [side for side, n in counts.items() if n >= match.no_show_limit]
            if len(forfeits) == 2:
                state = eb.end_by_agreement(state)
                end_reason = "abandoned"
            elif forfeits:
                state = eb.end_by_concession(state, forfeits[0])
                end_reason = "forfeit"
            winner, reason = eb.outcome(state)
        over = reason is not None
        next_turn = None if over else int(state["turn"])
        deadline = None if over else now + match.turn_seconds * 1000
        return _Final(plan, state, counts, winner, end_reason or reason, next_turn, deadline)

    async def _commit(self, plan: _Plan, now: int) -> ResolvedTurn | None:
        """Write one resolution; None when the match moved on since it was read."""
        final = self._finalise(plan, now)
        async with self.store.write() as s:
            result = await self._write(s, final, now)
        if result is not None:
            await self._after_resolution(plan.match, result, now)
        return result

    async def _commit_many(self, plans: Sequence[_Plan], now: int) -> list[ResolvedTurn | None]:
        """Write a batch of resolutions in one transaction (one commit for the batch); each
        still goes through its own version check, so a stale one is skipped, not written."""
        finals = [self._finalise(plan, now) for plan in plans]
        async with self.store.write() as s:
            results = [await self._write(s, final, now) for final in finals]
        for plan, result in zip(plans, results, strict=True):
            if result is not None:
                await self._after_resolution(plan.match, result, now)
        return results

    async def _write(self, s: Session, final: _Final, now: int) -> ResolvedTurn | None:
        plan = final.plan
        match = plan.match
        over = final.next_turn is None
        fields: dict[str, Any] = {
            "state": final.state,
            "turn": match.turn if final.next_turn is None else final.next_turn,
            "deadline_at": final.deadline,
            "claimed_by": None,
            "claimed_until": None,
            "draw_offer_side": None,
        }
        if over:
            fields.update(
                status="ended",
                result="draw" if final.winner is None else "win",
                winner=final.winner,
                end_reason=final.end_reason,
                ended_at=now,
            )
        if not await s.update_match(match.id, expect_version=plan.version, **fields):
            return None
        try:
            await s.insert_turn(
                match.id,
                match.turn,
                orders=plan.orders,
                report=plan.report,
                state=final.state,
                no_shows=plan.no_show_sides,
                cause=plan.cause,
                now=now,
                node=self.node_id,
            )
        except ConflictError:
            # Unreachable while every writer goes through the version check; refusing is
            # still better than a second report for one turn.
            log.error("match %s turn %s was already resolved", match.id, match.turn)
            raise
        for seat in match.seats:
            if seat.side is None:
                continue
            gave = seat.side not in plan.no_show_sides
            await s.update_seat(
                match.id,
                seat.seat,
                no_shows=final.counts[seat.side],
                turns_with_orders=seat.turns_with_orders + (1 if gave else 0),
            )
        seat_by_side = {seat.side: seat for seat in match.seats}
        no_shows = tuple(NoShow(side, seat_by_side[side].player_id) for side in plan.no_show_sides)
        await self._announce(
            s,
            f"match:{match.id}:turn:{match.turn}:resolved",
            match,
            "turn_resolved",
            now,
            turn=match.turn,
            cause=plan.cause,
            next_turn=final.next_turn,
            deadline_at=final.deadline,
            no_shows=[{"side": n.side, "player_id": n.player_id} for n in no_shows],
        )
        if over:
            await self._announce_end(s, match, now, final.winner, final.end_reason)
        else:
            for seat in match.seats:
                if is_computer(seat.player_id):
                    continue
                await self._announce(
                    s,
                    f"match:{match.id}:turn:{final.next_turn}:sheet:{seat.side}",
                    match,
                    "order_sheet",
                    now,
                    recipient=seat.player_id,
                    turn=final.next_turn,
                    side=seat.side,
                    deadline_at=final.deadline,
                )
        return ResolvedTurn(
            match.id,
            match.turn,
            plan.cause,
            no_shows,
            final.next_turn,
            final.deadline,
            final.winner,
            final.end_reason,
        )

    async def _announce_end(
        self, s: Session, match: MatchRecord, now: int, winner: str | None, reason: str | None
    ) -> None:
        winner_seat = None if winner is None else match.seat_for_side(winner)
        await self._announce(
            s,
            f"match:{match.id}:ended",
            match,
            "match_ended",
            now,
            winner=winner,
            winner_id=None if winner_seat is None else winner_seat.player_id,
            reason=reason,
        )

    async def run_due(self, *, batch: int = 64) -> list[ResolvedTurn]:
        """Resolve every overdue turn this node can claim; returns what it resolved.

        Works in batches, two at a time: while one batch's resolutions are written, the next is
        claimed, read and handed to the engine (in the executor's processes, when there is one).
        """
        resolved: list[ResolvedTurn] = []
        writing: asyncio.Task[list[ResolvedTurn]] | None = None
        while True:
            now = self.now_ms()
            async with self.store.write() as s:
                claimed = [
                    c.id for c in await s.claim_due(now, self.node_id, self.claim_lease_ms, batch)
                ]
            computing = await self._start_batch(claimed, now) if claimed else None
            if writing is not None:
                resolved.extend(await writing)
            if computing is None:
                return resolved
            writing = asyncio.ensure_future(self._finish_batch(claimed, computing, now))

    async def _start_batch(self, match_ids: Sequence[int], now: int) -> _Batch:
        plans: list[tuple[MatchRecord, dict[str, OrdersRecord], str]] = []
        async with self.store.read() as s:
            for match_id in match_ids:
                match = await s.get_match(match_id, with_state=True)
                if match is None:
                    continue
                orders = await s.get_orders(match_id, match.turn)
                cause = self._cause(match, orders, now)
                if cause is not None:
                    plans.append((match, orders, cause))
        jobs: list[tuple[MatchRecord, dict[str, OrdersRecord], str]] = []
        for match, orders, cause in plans:
            if cause == "deadline" and self._graced(match, orders):
                await self._grant_grace(match, orders, now)
            else:
                jobs.append((match, orders, cause))
        jobs_in = [(m.state or {}, self._order_docs(o)) for m, o, _c in jobs]
        # The batch holds the task until `_finish_batch` awaits it.
        return _Batch(jobs, asyncio.ensure_future(self._compute_many(jobs_in)))

    async def _finish_batch(
        self, match_ids: Sequence[int], batch: _Batch, now: int
    ) -> list[ResolvedTurn]:
        results = await batch.results
        plans = [
            self._plan(match, orders, cause, new_state, report)
            for (match, orders, cause), (new_state, report) in zip(batch.jobs, results, strict=True)
        ]
        out: list[ResolvedTurn] = []
        for plan, written in zip(plans, await self._commit_many(plans, now), strict=True):
            # None: orders changed under us (or another path resolved it); start over for it.
            result = written if written is not None else await self.resolve_match(plan.match.id)
            if result is not None:
                out.append(result)
        async with self.store.write() as s:
            await s.release_claim(match_ids, self.node_id)
        return out

    async def _compute_many(
        self, jobs: list[tuple[JsonDict, dict[str, JsonDict | None]]]
    ) -> list[tuple[JsonDict, JsonDict]]:
        if self.executor is None or len(jobs) < 2:
            return eb.resolve_many(jobs)
        loop = asyncio.get_running_loop()
        workers = max(1, getattr(self.executor, "_max_workers", 2))
        size = max(1, -(-len(jobs) // workers))
        chunks = [jobs[i : i + size] for i in range(0, len(jobs), size)]
        parts: list[Awaitable[list[tuple[JsonDict, JsonDict]]]] = [
            loop.run_in_executor(self.executor, eb.resolve_many, chunk) for chunk in chunks
        ]
        done = await asyncio.gather(*parts)
        return [item for part in done for item in part]

    async def release_my_claims(self) -> int:
        """At start-up: the claims an earlier run of this node left are void."""
        async with self.store.write() as s:
            return await s.release_claims(self.node_id)

    # --- reminders --------------------------------------------------------------------------

    async def send_reminders(self) -> int:
        """Queue reminders whose point has come, to players who have not confirmed.

        Only deadlines still ahead are considered, so a reminder is never sent after its
        deadline; when several points of one deadline are due at once (the process was down),
        only the nearest is sent."""
        now = self.now_ms()
        async with self.store.read() as s:
            pending = await s.pending_deadlines(now, now + MAX_REMINDER_SECONDS * 1000)
        sent = 0
        for item in pending:
            due = [p for p in item.reminders if item.deadline_at - p * 1000 <= now]
            if due:
                sent += await self._remind(item.id, item.turn, item.deadline_at, min(due), now)
        return sent

    async def _remind(self, match_id: int, turn: int, deadline: int, point: int, now: int) -> int:
        count = 0
        async with self.store.write() as s:
            match = await s.get_match(match_id, lock=True)
            if (
                match is None
                or match.status != "active"
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
                    or is_computer(seat.player_id)
                    or (seat.side in orders and orders[seat.side].confirmed)
                ):
                    continue
                await self._announce(
                    s,
                    f"match:{match_id}:turn:{turn}:deadline:{deadline}:reminder:{point}:"
                    f"{seat.side}",
                    match,
                    "reminder",
                    now,
                    recipient=seat.player_id,
                    turn=turn,
                    side=seat.side,
                    deadline_at=deadline,
                    point_seconds=point,
                    has_orders=seat.side in orders,
                )
                count += 1
        return count

    # --- ending, draws, pauses, extensions --------------------------------------------------

    async def concede(self, match_id: int, player_id: str) -> MatchRecord:
        now = self.now_ms()
        async with self.store.write() as s:
            match, seat, state = await self._in_progress(s, match_id, player_id)
            assert seat.side is not None
            conceded = eb.end_by_concession(state, seat.side)
            ended = await self._end(s, match, conceded, now, "concession")
        await self._after_end(ended)
        return ended

    async def _in_progress(
        self, s: Session, match_id: int, player_id: str
    ) -> tuple[MatchRecord, SeatRecord, JsonDict]:
        """The match (locked, with its state) while active or paused, and the player's seat."""
        match = await self._load(s, match_id, with_state=True)
        seat = self._seat_of(match, player_id)
        if match.status not in ("active", "paused") or match.state is None:
            raise WrongStateError(f"Match #{match_id} is not in progress.")
        return match, seat, match.state

    async def offer_draw(self, match_id: int, player_id: str) -> MatchRecord:
        """Offer a draw; when the opponent had offered one already, the draw is agreed."""
        now = self.now_ms()
        async with self.store.write() as s:
            match, seat, state = await self._in_progress(s, match_id, player_id)
            if match.draw_offer_side == seat.side:
                raise WrongStateError("You have already offered a draw this turn.")
            if match.draw_offer_side is not None:
                outcome = await self._end(s, match, eb.end_by_agreement(state), now, "agreed")
            else:
                outcome = await self._offer(s, match, seat, player_id, now)
        await self._after_end(outcome)
        return outcome

    async def _offer(
        self, s: Session, match: MatchRecord, seat: SeatRecord, player_id: str, now: int
    ) -> MatchRecord:
        await s.update_match(match.id, draw_offer_side=seat.side)
        await self._announce(
            s,
            f"match:{match.id}:turn:{match.turn}:draw_offer:{seat.side}",
            match,
            "draw_offered",
            now,
            turn=match.turn,
            side=seat.side,
            player_id=player_id,
        )
        return await self._load(s, match.id)

    async def accept_draw(self, match_id: int, player_id: str) -> MatchRecord:
        now = self.now_ms()
        async with self.store.write() as s:
            match, seat, state = await self._in_progress(s, match_id, player_id)
            if match.draw_offer_side is None or match.draw_offer_side == seat.side:
                raise WrongStateError("Your opponent has not offered a draw.")
            ended = await self._end(s, match, eb.end_by_agreement(state), now, "agreed")
        await self._after_end(ended)
        return ended

    async def decline_draw(self, match_id: int, player_id: str) -> MatchRecord:
        async with self.store.write() as s:
            match = await self._load(s, match_id)
            self._seat_of(match, player_id)
            if match.draw_offer_side is None:
                raise WrongStateError("No draw is on offer.")
            await s.update_match(match_id, draw_offer_side=None)
            return await self._load(s, match_id)

    async def _end(
        self, s: Session, match: MatchRecord, state: JsonDict, now: int, reason: str
    ) -> MatchRecord:
        """End the match in the caller's transaction; the caller runs `_after_end` once it
        commits."""
        winner, _engine_reason = eb.outcome(state)
        await s.update_match(
            match.id,
            status="ended",
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
        await self._announce_end(s, match, now, winner, reason)
        return await self._load(s, match.id)

    async def pause(self, match_id: int, by: str, *, moderator: bool = False) -> MatchRecord:
        """Pause when both players asked for it (the first request is recorded and announced),
        or at once for a moderator."""
        return await self._toggle(match_id, by, moderator, pausing=True)

    async def resume(self, match_id: int, by: str, *, moderator: bool = False) -> MatchRecord:
        return await self._toggle(match_id, by, moderator, pausing=False)

    async def _toggle(
        self, match_id: int, by: str, moderator: bool, *, pausing: bool
    ) -> MatchRecord:
        now = self.now_ms()
        word = "pause" if pausing else "resume"
        notify: int | None = None
        async with self.store.write() as s:
            match = await self._load(s, match_id)
            if match.status != ("active" if pausing else "paused"):
                raise WrongStateError(f"Match #{match_id} cannot {word} now.")
            seat = None if moderator else self._seat_of(match, by)
            others = [x for x in match.seats if seat is None or x.seat != seat.seat]
            if seat is not None and not all(x.toggle_request for x in others):
                if seat.toggle_request:
                    raise WrongStateError(
                        f"You have already asked to {word}; waiting for your opponent."
                    )
                await s.update_seat(match_id, seat.seat, toggle_request=True)
                await s.update_match(match_id)
                await self._announce(
                    s,
                    f"match:{match_id}:v{match.version}:{word}_requested",
                    match,
                    f"{word}_requested",
                    now,
                    player_id=by,
                )
                return await self._load(s, match_id)
            for x in match.seats:
                await s.update_seat(match_id, x.seat, toggle_request=False)
            if pausing:
                assert match.deadline_at is not None
                remaining = max(0, match.deadline_at - now)
                await s.update_match(
                    match_id,
                    status="paused",
                    deadline_at=None,
                    paused_remaining_ms=remaining,
                    claimed_by=None,
                    claimed_until=None,
                )
                notify = None
                payload: dict[str, Any] = {"remaining_ms": remaining}
            else:
                floor = min(match.turn_seconds, MIN_RESUME_SECONDS) * 1000
                deadline = now + max(match.paused_remaining_ms or 0, floor)
                await s.update_match(
                    match_id, status="active", deadline_at=deadline, paused_remaining_ms=None
                )
                notify = deadline
                payload = {"deadline_at": deadline}
            kind = "paused" if pausing else "resumed"
            await self._announce(
                s,
                f"match:{match_id}:v{match.version}:{kind}",
                match,
                kind,
                now,
                by=by,
                moderator=moderator,
                turn=match.turn,
                **payload,
            )
            result = await self._load(s, match_id)
        self._notify(match, notify)
        if not pausing and any(is_computer(seat.player_id) for seat in result.seats):
            # Orders a computer was working out when the match paused were dropped; its
            # confirmation may also resolve the turn.
            await self._play_computers(match_id)
            return await self.get_match(match_id)
        return result

    async def extend(self, match_id: int, by: str, seconds: int, *, moderator: bool) -> MatchRecord:
        """Move the current deadline later (moderators only)."""
        if not moderator:
            raise NotAllowedError("Only a moderator can extend a deadline.")
        if seconds <= 0 or seconds > MAX_TURN_SECONDS:
            raise WrongStateError("An extension lasts between one second and two weeks.")
        now = self.now_ms()
        async with self.store.write() as s:
            match = await self._load(s, match_id)
            if match.status == "active" and match.deadline_at is not None:
                deadline: int | None = max(match.deadline_at, now) + seconds * 1000
                await s.update_match(match_id, deadline_at=deadline)
            elif match.status == "paused":
                deadline = None
                await s.update_match(
                    match_id, paused_remaining_ms=(match.paused_remaining_ms or 0) + seconds * 1000
                )
            else:
                raise WrongStateError(f"Match #{match_id} is not in progress.")
            await self._announce(
                s,
                f"match:{match_id}:v{match.version}:extended",
                match,
                "extended",
                now,
                by=by,
                turn=match.turn,
                seconds=seconds,
                deadline_at=deadline,
            )
            result = await self._load(s, match_id)
        if deadline is not None:
            self._notify(match, deadline)
        return result

    # --- reading ----------------------------------------------------------------------------

    async def get_match(self, match_id: int, *, with_state: bool = False) -> MatchRecord:
        async with self.store.read() as s:
            match = await s.get_match(match_id, with_state=with_state)
        if match is None:
            raise NotFoundError(f"There is no match #{match_id}.")
        return match

    async def list_matches(
        self,
        *,
        player_id: str | None = None,
        guild_id: str | None = None,
        statuses: Sequence[str] | None = None,
        limit: int = 100,
    ) -> list[MatchRecord]:
        async with self.store.read() as s:
            return await s.list_matches(
                player_id=player_id, guild_id=guild_id, statuses=statuses, limit=limit
            )

    async def matches_in_channel(self, channel_id: str) -> list[MatchRecord]:
        """Every match that posts in the channel, newest first, however old."""
        async with self.store.read() as s:
            return await s.matches_in_channel(channel_id)

    async def move_to_channel(
        self, match_id: int, channel_id: str, *, from_channel_id: str
    ) -> MatchRecord:
        """Make the match post in `channel_id` from now on, if it still posts in
        `from_channel_id`; the match as it is afterwards, so a caller that lost a race to move
        it learns where it went."""
        async with self.store.write() as s:
            await s.move_match_channel(match_id, from_channel_id, channel_id)
            return await self._load(s, match_id)

    async def history(self, match_id: int, turn: int) -> TurnRecord:
        """The record of a resolved turn: both sides' orders, the report, the state after."""
        async with self.store.read() as s:
            record = await s.get_turn(match_id, turn)
            if record is None:
                match = await s.get_match(match_id)
        if record is None:
            if match is None:
                raise NotFoundError(f"There is no match #{match_id}.")
            raise NotFoundError(f"Turn {turn} of match #{match_id} has not been resolved.")
        return record

    async def turns(self, match_id: int) -> list[TurnRecord]:
        async with self.store.read() as s:
            return await s.list_turns(match_id)

    async def export_match(self, match_id: int) -> bytes:
        """The whole match as a JSON file; only once it is over, since it shows both hands."""
        async with self.store.read() as s:
            match = await s.get_match(match_id, with_state=True)
            turns = await s.list_turns(match_id) if match is not None else []
        if match is None:
            raise NotFoundError(f"There is no match #{match_id}.")
        if match.status != "ended":
            raise WrongStateError("A match can be exported once it is over.")
        return export.dumps(export.build_export(match, turns))
