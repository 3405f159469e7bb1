"""A player's orders for the open turn: giving, clearing, confirming, unconfirming; and the
computer seats, which give and confirm theirs as soon as a turn opens.

Every order change bumps the match's version, so a resolution computed from the orders as they
were before is thrown away and redone (see `service.matches.resolution`).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ai import choose_orders, concedes
from engine.content import load_content
from engine.orders import Orders
from engine.state import GameState, Side
from engine.view import view_for
from service import engine_bridge as eb
from service.errors import (
    AlreadyConfirmedError,
    InvalidOrdersError,
    NotConfirmedError,
    ServiceError,
)
from service.matches.core import MatchCore
from service.matches.records import (
    COMPUTER_PREFIX,
    COMPUTER_SECONDS,
    ConfirmResult,
    ResolvedTurn,
    computer_level,
)
from storage import OrdersRecord
from storage.records import MatchStatus

log = logging.getLogger(__name__)


class OrderBook:
    def __init__(
        self,
        core: MatchCore,
        resolve: Callable[[int], Awaitable[ResolvedTurn | None]],
        concede: Callable[[int, str], Awaitable[object]],
    ) -> None:
        self.core = core
        # Resolves the match's turn if it is due (called once both sides confirmed).
        self.resolve = resolve
        # Ends the match as a concession by the player (a computer seat's, for a lost game).
        self.concede = concede

    async def submit_orders(
        self,
        match_id: int,
        player_id: str,
        orders: Orders | Mapping[str, Any],
        *,
        turn: int | None = None,
    ) -> OrdersRecord:
        """Replace the player's orders for the current turn (not confirming them)."""
        now = self.core.now_ms()
        parsed = orders if isinstance(orders, Orders) else self._parse(orders)
        async with self.core.store.write() as s:
            match = await self.core.load(s, match_id, with_state=True)
            seat = self.core.playing(match, player_id, turn, now)
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
        now = self.core.now_ms()
        async with self.core.store.write() as s:
            match = await self.core.load(s, match_id)
            seat = self.core.playing(match, player_id, turn, now)
            assert seat.side is not None
            current = (await s.get_orders(match_id, match.turn)).get(seat.side)
            if current is not None and current.confirmed:
                raise AlreadyConfirmedError(
                    "Your orders are confirmed; unconfirm them to change them."
                )
            await s.delete_orders(match_id, match.turn, seat.side)
            await s.update_match(match_id)

    async def current_orders(self, match_id: int, player_id: str) -> OrdersRecord | None:
        async with self.core.store.read() as s:
            match = await self.core.load(s, match_id)
            seat = self.core.seat_of(match, player_id)
            if seat.side is None:
                return None
            return (await s.get_orders(match_id, match.turn)).get(seat.side)

    async def confirm(
        self, match_id: int, player_id: str, *, turn: int | None = None
    ) -> ConfirmResult:
        """Confirm the player's orders (none given: confirm passing); the turn resolves when
        both sides have confirmed."""
        now = self.core.now_ms()
        async with self.core.store.write() as s:
            match = await self.core.load(s, match_id)
            seat = self.core.playing(match, player_id, turn, now)
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
            everyone = all(all_orders.get(side) and all_orders[side].confirmed for side in eb.SIDES)
        resolved = await self._resolve_confirmed(match_id) if everyone else None
        return ConfirmResult(all_orders[seat.side], resolved)

    async def _resolve_confirmed(self, match_id: int) -> ResolvedTurn | None:
        # The confirmation is committed whatever happens here: a failing resolution is left
        # to the deadline sweep, which claims every turn both sides confirmed, instead of
        # telling the player that a confirmation they have was refused.
        try:
            return await self.resolve(match_id)
        except Exception:
            log.exception(
                "match %s: resolving the confirmed turn failed; the sweep retries", match_id
            )
            return None

    async def unconfirm(self, match_id: int, player_id: str, *, turn: int | None = None) -> None:
        now = self.core.now_ms()
        async with self.core.store.write() as s:
            match = await self.core.load(s, match_id)
            seat = self.core.playing(match, player_id, turn, now)
            assert seat.side is not None
            current = (await s.get_orders(match_id, match.turn)).get(seat.side)
            if current is None or not current.confirmed:
                raise NotConfirmedError("Your orders are not confirmed.")
            await s.set_confirmed(match_id, match.turn, seat.side, False, now)
            await s.update_match(match_id)

    # --- the computer's seats ----------------------------------------------------------------

    async def play_computer_turns(self, *, limit: int = 10_000) -> int:
        """Give the orders of every computer seat still owing them for its open turn (after a
        restart, or a turn the computer's orders missed); returns the matches looked at."""
        async with self.core.store.read() as s:
            matches = await s.list_matches(
                player_prefix=COMPUTER_PREFIX, statuses=(MatchStatus.ACTIVE,), limit=limit
            )
        for match in matches:
            await self.play_computers(match.id)
        return len(matches)

    async def play_computers(self, match_id: int) -> None:
        """Give and confirm the orders of the match's computer seats for the open turn, or
        concede for a seat whose game is lost (:func:`ai.concedes`).

        Called whenever a turn opens; a seat that already confirmed this turn is left alone, so
        a repeated call does nothing."""
        match = await self.core.read(match_id)
        if match.status != MatchStatus.ACTIVE or not any(
            computer_level(seat.player_id) is not None for seat in match.seats
        ):
            return  # most matches: nothing to do, and no state to decode on the event loop
        match = await self.core.read(match_id, with_state=True)
        if match.status != MatchStatus.ACTIVE or match.state is None:
            return
        for seat in match.seats:
            level = computer_level(seat.player_id)
            if level is None or seat.side is None or seat.player_id is None:
                continue
            current = await self.current_orders(match_id, seat.player_id)
            if current is not None and current.confirmed:
                continue
            content = load_content()
            state = GameState.from_dict(match.state)
            view = view_for(state, Side(seat.side), content)
            if concedes(view, content):
                # A lost game (ai.concession): the human wins now instead of walking on.
                try:
                    await self.concede(match_id, seat.player_id)
                except ServiceError:
                    # The match stopped or ended while the computer looked at it.
                    log.info("computer concession for match %s dropped", match_id)
                return
            rng = random.Random(f"{match.seed}:{match.turn}:{seat.side}")
            executor = self.core.executor
            orders = await asyncio.to_thread(
                choose_orders,
                view,
                level,
                rng,
                content=content,
                options=state.options,
                seconds=COMPUTER_SECONDS,
                # The search may share its worlds out to the bot's worker processes.
                mapper=None if executor is None else executor.map,
                workers=self.core.workers,
            )
            try:
                await self.submit_orders(match_id, seat.player_id, orders, turn=match.turn)
                await self.confirm(match_id, seat.player_id, turn=match.turn)
            except ServiceError:
                # The turn moved on (resolved, paused, ended) while the computer thought.
                log.info("computer orders for match %s turn %s dropped", match_id, match.turn)
