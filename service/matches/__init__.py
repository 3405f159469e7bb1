"""Matches from creation to the end: seats, orders, confirmation, resolution, deadlines.

`MatchService` is the one object the cogs and the league service use; it hands each call to the
part that does it:

- `lifecycle`: creating, joining, choosing decks, cancelling, starting;
- `orders`: a player's orders for the open turn, and the computer seats';
- `resolution`: resolving each turn exactly once (the version check, the lease claims, the
  batch pipeline; read its docstring first);
- `control`: concession, draws, pauses, resumes, extensions;
- `reminders`: reminders before a deadline;
- `queries`: reading matches, turns and exports.

Every change is one transaction against the database, which is the source of truth, and every
announcement is an outbox row written in that transaction (`service.announcements`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

from engine.orders import Orders
from service.clock import Clock
from service.deadline_anchor import DeadlineAnchor
from service.matches.control import Control
from service.matches.core import MatchCore
from service.matches.lifecycle import Lifecycle
from service.matches.moderation import Moderation
from service.matches.orders import OrderBook
from service.matches.queries import Queries
from service.matches.records import (
    COMPUTER_DESCRIPTIONS,
    COMPUTER_LEVELS,
    COMPUTER_PREFIX,
    COMPUTER_SECONDS,
    ConfirmResult,
    DeadlineListener,
    EndListener,
    MatchEnded,
    NoShow,
    ResolvedTurn,
    computer_level,
    gave_nothing,
    is_computer,
)
from service.matches.reminders import Reminders
from service.matches.resolution import Resolver
from storage import MatchRecord, OrdersRecord, ResolutionFailure, Store, TurnRecord

__all__ = [
    "COMPUTER_DESCRIPTIONS",
    "COMPUTER_LEVELS",
    "COMPUTER_PREFIX",
    "COMPUTER_SECONDS",
    "ConfirmResult",
    "MatchEnded",
    "MatchService",
    "NoShow",
    "ResolvedTurn",
    "computer_level",
    "gave_nothing",
    "is_computer",
]


class MatchService:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        node_id: str = "main",
        claim_lease_seconds: float = 120.0,
        executor: Executor | None = None,
        workers: int | None = None,
        challenge_seconds: int | None = None,
    ) -> None:
        """`workers`: how many workers `executor` runs (a batch of resolutions is cut into
        that many pieces); the number of cores when not given. `challenge_seconds`: how long
        an open seat waits before the match expires (None: forever)."""
        self.challenge_seconds = challenge_seconds
        self._core = MatchCore(
            store,
            clock,
            node_id=node_id,
            claim_lease_ms=int(claim_lease_seconds * 1000),
            executor=executor,
            workers=workers or os.cpu_count() or 2,
        )
        self._queries = Queries(self._core)
        self._orders = OrderBook(self._core, self.resolve_match, self.concede)
        self._resolver = Resolver(self._core, self._orders.play_computers)
        self._lifecycle = Lifecycle(self._core, self._orders.play_computers)
        self._control = Control(self._core, self._orders.play_computers)
        self._reminders = Reminders(self._core)
        self._moderation = Moderation(self._core, self._control, self._orders.play_computers)

    @property
    def store(self) -> Store:
        return self._core.store

    @property
    def clock(self) -> Clock:
        return self._core.clock

    @property
    def node_id(self) -> str:
        return self._core.node_id

    def now_ms(self) -> int:
        return self._core.now_ms()

    def add_deadline_listener(self, listener: DeadlineListener) -> None:
        """Called with (match id, deadline in ms or None, reminder points) after a deadline
        changes."""
        self._core.listeners.append(listener)

    def add_end_listener(self, listener: EndListener) -> None:
        """Awaited once per ended match (concession, agreement, the engine's verdict, no-shows),
        after the transaction that ended it commits."""
        self._core.end_listeners.append(listener)

    def remove_end_listener(self, listener: EndListener) -> None:
        self._core.end_listeners.remove(listener)

    # --- lifecycle --------------------------------------------------------------------------

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
        return await self._lifecycle.create_match(
            creator_id,
            deck_id=deck_id,
            opponent_id=opponent_id,
            ruleset=ruleset,
            realm=realm,
            board=board,
            symmetric=symmetric,
            turn_seconds=turn_seconds,
            no_show_limit=no_show_limit,
            grace_seconds=grace_seconds,
            reminders=reminders,
            guild_id=guild_id,
            channel_id=channel_id,
            seed=seed,
            red_seat=red_seat,
            anchor=anchor,
        )

    async def join_match(
        self, match_id: int, player_id: str, deck_id: int | None = None
    ) -> MatchRecord:
        return await self._lifecycle.join_match(match_id, player_id, deck_id)

    async def check_join(self, match_id: int, player_id: str) -> MatchRecord:
        return await self._lifecycle.check_join(match_id, player_id)

    async def choose_deck(self, match_id: int, player_id: str, deck_id: int) -> MatchRecord:
        return await self._lifecycle.choose_deck(match_id, player_id, deck_id)

    async def cancel_match(self, match_id: int, player_id: str) -> MatchRecord:
        return await self._lifecycle.cancel_match(match_id, player_id)

    async def expire_challenges(self) -> int:
        """Cancel the open matches older than the challenge lifetime (none without one)."""
        if self.challenge_seconds is None:
            return 0
        return await self._lifecycle.expire_challenges(self.challenge_seconds)

    async def start_match(self, match_id: int, player_id: str) -> MatchRecord:
        return await self._lifecycle.start_match(match_id, player_id)

    # --- orders -----------------------------------------------------------------------------

    async def submit_orders(
        self,
        match_id: int,
        player_id: str,
        orders: Orders | Mapping[str, Any],
        *,
        turn: int | None = None,
    ) -> OrdersRecord:
        return await self._orders.submit_orders(match_id, player_id, orders, turn=turn)

    async def clear_orders(self, match_id: int, player_id: str, *, turn: int | None = None) -> None:
        await self._orders.clear_orders(match_id, player_id, turn=turn)

    async def current_orders(self, match_id: int, player_id: str) -> OrdersRecord | None:
        return await self._orders.current_orders(match_id, player_id)

    async def confirm(
        self, match_id: int, player_id: str, *, turn: int | None = None
    ) -> ConfirmResult:
        return await self._orders.confirm(match_id, player_id, turn=turn)

    async def unconfirm(self, match_id: int, player_id: str, *, turn: int | None = None) -> None:
        await self._orders.unconfirm(match_id, player_id, turn=turn)

    async def play_computer_turns(self, *, limit: int = 10_000) -> int:
        return await self._orders.play_computer_turns(limit=limit)

    # --- resolution -------------------------------------------------------------------------

    async def resolve_match(self, match_id: int) -> ResolvedTurn | None:
        return await self._resolver.resolve_match(match_id)

    async def run_due(self, *, batch: int = 64) -> list[ResolvedTurn]:
        return await self._resolver.run_due(batch=batch)

    async def release_my_claims(self) -> int:
        return await self._resolver.release_my_claims()

    # --- reminders --------------------------------------------------------------------------

    async def send_reminders(self) -> int:
        return await self._reminders.send_reminders()

    # --- control ----------------------------------------------------------------------------

    async def concede(self, match_id: int, player_id: str) -> MatchRecord:
        return await self._control.concede(match_id, player_id)

    async def offer_draw(self, match_id: int, player_id: str) -> MatchRecord:
        return await self._control.offer_draw(match_id, player_id)

    async def accept_draw(self, match_id: int, player_id: str) -> MatchRecord:
        return await self._control.accept_draw(match_id, player_id)

    async def decline_draw(self, match_id: int, player_id: str) -> MatchRecord:
        return await self._control.decline_draw(match_id, player_id)

    async def pause(self, match_id: int, by: str, *, moderator: bool = False) -> MatchRecord:
        return await self._control.pause(match_id, by, moderator=moderator)

    async def resume(self, match_id: int, by: str, *, moderator: bool = False) -> MatchRecord:
        return await self._control.resume(match_id, by, moderator=moderator)

    async def extend(self, match_id: int, by: str, seconds: int, *, moderator: bool) -> MatchRecord:
        return await self._control.extend(match_id, by, seconds, moderator=moderator)

    # --- reading ----------------------------------------------------------------------------

    # --- moderation -------------------------------------------------------------------------

    async def forfeit(self, match_id: int, side: str) -> MatchRecord:
        return await self._moderation.forfeit(match_id, side)

    async def moderator_cancel(self, match_id: int) -> MatchRecord:
        return await self._moderation.cancel(match_id)

    async def hand_seat(self, match_id: int, side: str, player_id: str, by: str) -> MatchRecord:
        return await self._moderation.hand_seat(match_id, side, player_id, by)

    async def get_match(self, match_id: int, *, with_state: bool = False) -> MatchRecord:
        return await self._queries.get_match(match_id, with_state=with_state)

    async def list_matches(
        self,
        *,
        player_id: str | None = None,
        guild_id: str | None = None,
        statuses: Sequence[str] | None = None,
        limit: int = 100,
    ) -> list[MatchRecord]:
        return await self._queries.list_matches(
            player_id=player_id, guild_id=guild_id, statuses=statuses, limit=limit
        )

    async def matches_in_channel(self, channel_id: str) -> list[MatchRecord]:
        return await self._queries.matches_in_channel(channel_id)

    async def move_to_channel(
        self, match_id: int, channel_id: str, *, from_channel_id: str
    ) -> MatchRecord:
        return await self._queries.move_to_channel(
            match_id, channel_id, from_channel_id=from_channel_id
        )

    async def failing(self, guild_id: str | None = None) -> list[ResolutionFailure]:
        return await self._queries.failing(guild_id)

    async def history(self, match_id: int, turn: int) -> TurnRecord:
        return await self._queries.history(match_id, turn)

    async def turn_detail(self, match_id: int, turn: int) -> TurnRecord:
        return await self._queries.turn_detail(match_id, turn)

    async def turns(self, match_id: int) -> list[TurnRecord]:
        return await self._queries.turns(match_id)

    async def export_match(self, match_id: int) -> bytes:
        return await self._queries.export_match(match_id)
